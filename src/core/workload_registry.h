#pragma once
// The workload registry as the rest of pperf sees it: names, presets, params and factories.
// Torch-free on purpose, so config validation, `pperf list` and the unit tests don't pull in
// libtorch; the torch-side interfaces (Workload, InputPipeline) are in workloads/workload.h.
#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace pperf {

/// Batch indices are in [0, kMaxBatchIndex]: 2^40 batches outlast any run, and every index
/// computation (index x batch size, first + position x stride) stays far from overflow.
constexpr int64_t kMaxBatchIndex = int64_t{1} << 40;

class Workload;
class InputPipeline;

struct PresetSpec {
  std::string name;
  std::string doc;
  int64_t default_batch_size = 1;
};

/// A workload param. Its default lives here and nowhere else: specs are completed from it.
struct ParamSpec {
  std::string name;
  std::string type;                  // one of param_types(); "path": a file or directory name,
                                     // relative ones resolved against the config's directory
  nlohmann::json default_value;
  std::string doc;
  std::vector<std::string> choices;  // for strings; empty = any
};

/// The param type names a ParamSpec may use.
const std::vector<std::string>& param_types();
/// Whether `value` has the JSON shape `type` names ("integer_list": an array of integers).
bool param_value_has_type(const nlohmann::json& value, const std::string& type);

/// Everything a factory gets: the request from the config with every declared param present
/// (defaults applied). Workloads read params through the typed accessors, which throw
/// std::logic_error for a param the workload never declared (a programming error).
struct WorkloadSpec {
  std::string name;
  std::string preset;
  int64_t batch_size = 1;
  nlohmann::json params = nlohmann::json::object();
  uint64_t seed = 0;
  /// Where the model trains: "cpu" or "cuda:N". Set by the executor from the configuration's
  /// execution.device (one rank per GPU), never by the config's workload entry.
  std::string device = "cpu";
  /// The directory of the config file that asked for it ("" when none): where a workload looks
  /// for files the user names beside the config (python_step's module).
  std::string config_dir;
  /// A rank of a data-parallel item whose workload forms its own group (steps_as_own_ranks):
  /// the launcher variables its step is started with (RANK, WORLD_SIZE, LOCAL_RANK,
  /// MASTER_ADDR, MASTER_PORT), MASTER_PORT a port of the step's own, not pperf's store.
  /// Empty otherwise. Set by the executor, like `device`.
  std::map<std::string, std::string> rank_env;
  /// The workload's capabilities.owns_device, copied here so the plan can read it.
  bool owns_device = false;
  /// How its batches travel from a data worker to the trainer (a wire_formats() name): the
  /// pipeline makes them in this form and the step finishes the conversion on its device. Set by
  /// the executor (and a data worker) from execution.data.wire; "float32" for the local loader.
  std::string wire = "float32";

  const nlohmann::json& param(const std::string& key) const;
  std::string string_param(const std::string& key) const;
  double number_param(const std::string& key) const;
  int64_t int_param(const std::string& key) const;
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

class JsonView;
/// A result's `model` and `data` objects (docs/results.md) and back; ModelInfo::events are the
/// result's own events, not part of `model`.
nlohmann::json to_json(const ModelInfo& m);
nlohmann::json to_json(const DataInfo& d);
ModelInfo read_model_info(const JsonView& v);
DataInfo read_data_info(const JsonView& v);

/// One tensor of every sample of a batch, as the model takes it: a batch of B samples holds it
/// with shape [B] + shape. dtype is a wire name: "float32", "int64", "int32", "uint8", "bfloat16".
struct TensorDecl {
  std::string name;  // "inputs" | "targets"
  std::string dtype;
  std::vector<int64_t> shape;
  bool operator==(const TensorDecl& o) const { return name == o.name && dtype == o.dtype && shape == o.shape; }
};

/// "inputs float32[1,28,28]".
std::string describe_tensor(const TensorDecl& t);
/// "" when `served` holds exactly the tensors `needed` names, with their dtypes and shapes;
/// otherwise the first difference, e.g. "inputs: the worker serves float32[3,32,32] per sample,
/// the model takes float32[1,28,28]".
std::string layout_mismatch(const std::vector<TensorDecl>& needed, const std::vector<TensorDecl>& served);

/// The optional hooks of workloads/workload.h a workload implements, declared beside its
/// factories. Config validation refuses a config that needs one the workload lacks, naming it,
/// before anything runs; `pperf list workloads` shows them. A torch test holds every built-in
/// workload's declaration to what its hooks really do, so a forgotten hook cannot degrade a
/// feature silently.
struct WorkloadCapabilities {
  bool data_parallel = false;  // Workload::parameters() non-empty: execution.distributed, device "cuda"
  bool checkpoint = false;     // save_state/load_state: Spot checkpoint cost, --spot-drill
  bool data_workers = false;   // make_pipeline + batch_layout: data.mode "service" (pperf or Python workers)
  bool model_flops = false;    // ModelInfo::flops_per_sample > 0: MFU
  /// The step runs in a process of its own (python_step's worker): as ranks it does its own
  /// data-parallel with the launcher variables of WorkloadSpec::rank_env (execution.distributed
  /// without data_parallel); its memory is that process's, so the in-process probe does not apply.
  bool steps_as_own_ranks = false;
  /// The step chooses and drives its own device (python_step's object): pperf opens no CUDA
  /// context for it, places no batch on a GPU, and --native on a GPU instance does not ask it to
  /// train on "cuda" (the step's own choice is its business; execution.device names the GPU
  /// pperf samples).
  bool owns_device = false;
  /// Wire formats beyond "float32" the pipeline makes exactly: the step, finishing the
  /// conversion on its device, sees bit for bit the values the float32 wire carries (e.g.
  /// "uint8": images before the byte -> float table). A data_workers workload always has float32.
  std::vector<std::string> wires;
  /// Every batch has the same shapes and Workload::graphable_step runs the step as device work
  /// alone: execution.cuda_graphs can capture it once and replay it.
  bool static_shapes = false;
};

/// The wire formats of the data service, smallest first per image: "uint8", "bf16", "float32".
const std::vector<std::string>& wire_formats();
/// The wire formats `c` declares, float32 included when it has data_workers.
std::vector<std::string> exact_wires(const WorkloadCapabilities& c);
/// The smallest wire `c` declares exact (the default of execution.data.wire); "float32" if none.
std::string default_wire(const WorkloadCapabilities& c);
/// `layout` as it travels on `wire`: the "inputs" tensor's dtype becomes the wire's ("bf16"
/// travels as "bfloat16"); targets are unchanged.
std::vector<TensorDecl> layout_on_wire(std::vector<TensorDecl> layout, const std::string& wire);
/// Bytes one sample of `layout` takes on the wire (every tensor's elements x element size).
int64_t bytes_per_sample(const std::vector<TensorDecl>& layout);

/// The names of the capabilities `c` has, in declaration order ("data_parallel", "checkpoint",
/// "data_workers", "model_flops", "steps_as_own_ranks", "owns_device", "static_shapes").
std::vector<std::string> capability_names(const WorkloadCapabilities& c);

struct WorkloadDescriptor {
  std::string name;
  std::string description;
  std::vector<PresetSpec> presets;
  std::vector<ParamSpec> params;
  WorkloadCapabilities capabilities;
  /// Builds model + optimizer (the trainer side).
  std::function<std::unique_ptr<Workload>(const WorkloadSpec&)> make_workload;
  /// Builds the input pipeline alone (the data side: loader threads or a data worker).
  std::function<std::shared_ptr<InputPipeline>(const WorkloadSpec&)> make_pipeline;
  /// What the model takes per sample (checked against what a data worker declares); empty
  /// function: the workload does not declare it and no check is made.
  std::function<std::vector<TensorDecl>(const WorkloadSpec&)> batch_layout;
  /// What only trying can tell, checked before anything runs (python_step: its module imports
  /// and has the factory). Throws InputError naming the param at fault (re-anchored in the
  /// config file by the caller). Empty function: nothing to check.
  std::function<void(const WorkloadSpec&)> preflight;

  const PresetSpec* find_preset(const std::string& preset) const;
  std::vector<std::string> preset_names() const;
  const ParamSpec* find_param(const std::string& name) const;
};

class WorkloadRegistry {
 public:
  /// Throws std::logic_error for a duplicate name, no preset, an unknown param type name or a
  /// default that does not have its param's type: registry mistakes surface at start-up.
  void add(WorkloadDescriptor descriptor);
  const WorkloadDescriptor* find(const std::string& name) const;
  std::vector<std::string> names() const;
  const std::vector<WorkloadDescriptor>& all() const { return descriptors_; }

 private:
  std::vector<WorkloadDescriptor> descriptors_;
};

/// A complete spec: `overrides` (already type-checked by the caller, e.g. config loading) over
/// the descriptor's defaults; preset "" means the first preset, batch_size 0 the preset's default.
WorkloadSpec make_workload_spec(const WorkloadDescriptor& descriptor, const std::string& preset,
                                int64_t batch_size, const nlohmann::json& overrides = nlohmann::json::object(),
                                uint64_t seed = 0);

/// The workloads compiled into pperf (defined with the workloads, in the torch library).
const WorkloadRegistry& builtin_workloads();

}  // namespace pperf
