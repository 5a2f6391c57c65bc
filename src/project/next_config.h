#pragma once
// The configuration to measure next, written as a pperf config: pure (no files), from the config
// as its file reads and the projection's choice. The caller writes it (atomically) and prints
// its path; `pperf validate` accepts what this returns for any config `pperf project` accepts.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/project/projection.h"

namespace pperf::project {

struct NextConfigInputs {
  nlohmann::json config;      // the config file as written
  std::string name;           // its name
  std::string table, region;  // the table the projection priced (a name or an absolute path)
  /// Workload path params made absolute: (JSON pointer into `config`, path), so the next config
  /// runs from anywhere; relative execution.data.python_path entries are resolved against
  /// `config_dir` (the config file's directory, absolute).
  std::vector<std::pair<std::string, std::string>> paths;
  std::string config_dir;
  bool priced_only = false;
  size_t reference = 0;                        // index of the baseline in config["configurations"]
  std::optional<size_t> data_configuration;    // the first configuration with a data group
  int64_t host_cpus = 1;                       // logical CPUs of the host that will run it
};

/// A runnable config: for a measured config, the baseline beside `projected-cheapest` (the
/// cheapest cluster's instance groups), and, when the cheapest has no data instances and
/// `with_data` is given, `projected-with-data` (that cluster), so measuring it confirms or
/// refutes that data instances do not pay. A configuration with a data group runs as the
/// config's own data-group configuration runs (its `execution`), else as the baseline with its
/// pipeline moved to spawned data workers on this host (`execution.data` in service mode,
/// pinned to the CPUs the trainer does not use; the trainer gets CPU 0 when it named none).
/// A cluster identical to the baseline's is not repeated. For a priced-only config: the
/// cheapest cluster alone as the baseline (measured on whatever host runs it).
nlohmann::json next_config(const NextConfigInputs& in, const Candidate& cheapest, const Candidate* with_data);

/// The `execution` that runs `baseline`'s pipeline in `processes` spawned data workers on a host
/// of `host_cpus` CPUs: the trainer keeps its `cpus` (CPU 0 when it named none or all), the
/// workers get the others (CPU 0 as well on a 1-CPU host); prefetch as the baseline's. Without
/// the baseline's `distributed` (the data service does not feed data-parallel ranks).
nlohmann::json service_execution(const nlohmann::json& baseline_execution, int64_t processes, int64_t host_cpus);

}  // namespace pperf::project
