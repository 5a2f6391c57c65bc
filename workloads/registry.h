#pragma once
// The workload registry as the rest of pperf sees it: names, presets, params and factories.
// Torch-free on purpose, so config validation and `pperf list` don't pull in libtorch.
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace pperf {

class Workload;
class InputPipeline;

struct PresetSpec {
  std::string name;
  std::string doc;
  int64_t default_batch_size = 1;
};

struct ParamSpec {
  std::string name;
  std::string type;                  // "string" | "number" | "integer" | "bool" | "integer_list"
  nlohmann::json default_value;
  std::string doc;
  std::vector<std::string> choices;  // for strings; empty = any
};

/// Everything a factory gets: the request from the config with defaults filled in.
struct WorkloadSpec {
  std::string name;
  std::string preset;
  int64_t batch_size = 1;
  nlohmann::json params = nlohmann::json::object();  // every declared param, defaults applied
  uint64_t seed = 0;
};

/// Facts about the model a result records.
struct ModelInfo {
  int64_t params = 0;
  double flops_per_sample = 0;  // training: 3 x analytic forward FLOPs
  std::string precision = "fp32";
  /// Notes a result should carry about what ran, e.g. why a requested precision fell back.
  std::vector<std::string> events;
};

/// Where the samples come from.
struct DataInfo {
  std::string source;  // e.g. "fashion-mnist" or "synthetic"
  std::string path;    // "" for synthetic
  int64_t samples = 0; // size of the dataset the batches cycle over
};

struct WorkloadDescriptor {
  std::string name;
  std::string description;
  std::vector<PresetSpec> presets;
  std::vector<ParamSpec> params;
  /// Builds model + optimizer (the trainer side).
  std::function<std::unique_ptr<Workload>(const WorkloadSpec&)> make_workload;
  /// Builds the input pipeline alone (the data side: loader threads or a data worker).
  std::function<std::shared_ptr<InputPipeline>(const WorkloadSpec&)> make_pipeline;

  const PresetSpec* find_preset(const std::string& preset) const;
  std::vector<std::string> preset_names() const;
};

class WorkloadRegistry {
 public:
  void add(WorkloadDescriptor descriptor);
  const WorkloadDescriptor* find(const std::string& name) const;
  std::vector<std::string> names() const;
  const std::vector<WorkloadDescriptor>& all() const { return descriptors_; }

 private:
  std::vector<WorkloadDescriptor> descriptors_;
};

/// The workloads compiled into pperf (defined with the workloads, in the torch library).
const WorkloadRegistry& builtin_workloads();

}  // namespace pperf
