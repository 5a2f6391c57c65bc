#pragma once
// A pperf configuration file (keys in docs/config.md), loaded and validated in full before
// anything runs: every mistake is an InputError "FILE: /json/pointer: what is wrong".
// Validity does not depend on this host: whether a valid config can run here (CPU sets that
// exist, ...) is the plan's question (src/config/plan.h).
#include <optional>
#include <string>
#include <vector>

#include "src/core/kinds.h"
#include "src/core/scaling_curve.h"
#include "src/core/workload_registry.h"
#include "src/stats/decision.h"
#include "src/stats/stopping.h"
#include "pricing/interruption_table.h"
#include "pricing/price_table.h"
#include "pricing/pricing_stage.h"

namespace pperf {

struct DataSettings {
  DataMode mode = DataMode::local;       // local: loader threads here; service: data workers
  int64_t workers = 1;                   // preprocessing threads (local) or per worker (service)
  int64_t prefetch_batches = 4;          // bound of the ready-batch queue
  std::vector<std::string> endpoints;    // service: "host:port" of running data workers
  int64_t spawn_local_processes = 0;     // service: data workers pperf starts on this host
  int64_t spawn_local_workers = 1;       // preprocessing threads of each spawned worker
  std::vector<int> spawn_local_cpus;     // CPUs the spawned workers are pinned to (empty: any)
  std::string tls_ca;                    // service: PEM CA the workers' TLS certificates chain to
                                         // (absolute, resolved against the config's directory)
  DataWorker worker = DataWorker::pperf; // pperf: the workload's C++ pipeline; python:
                                         // pperf-data-worker.py serving `dataset`
  std::string dataset;                   // python: "module:factory" returning a torch Dataset
                                         // (or a DataLoader, when `dataset_is_dataloader`)
  bool dataset_is_dataloader = false;    // python: given as "dataloader" rather than "dataset"
  nlohmann::json dataset_kwargs = nlohmann::json::object();  // python: keyword args of the factory
  std::vector<std::string> python_path;  // python: module directories (absolute; default: the
                                         // config's directory)
  /// The data group's link the emulation enforces (spawn_local: the workers run behind a shaped
  /// veth, src/env/shaped_link.h): Gbit/s of the real instances, from `link_gbps` or, with
  /// "table", the price table's figures (min(data count x data link, trainer count x trainer
  /// link)); unset: workers on loopback.
  std::optional<double> link_gbps;
  bool link_from_table = false;
  /// Real trainer step / this host's trainer step (0 < scale): the emulated link runs at
  /// link_gbps x link_scale, as slow as the emulated trainer is against the real one.
  double link_scale = 1;
  std::string wire;                      // service and python: a wire_formats() name; "": the
                                         // default (the plan resolves it: data_path_of, plan.h)
};

/// `execution.distributed`: the configuration trains as `world_size` data-parallel ranks.
struct DistributedSettings {
  int64_t world_size = 1;
  std::string backend = "gloo";  // "gloo" (CPU) | "nccl" (a CUDA libtorch with NCCL only)
  bool spawn_local = false;      // pperf starts the ranks on this host
  int64_t cpus_per_rank = 0;     // spawn_local: CPUs pinned per rank (0: not pinned)
  double timeout_s = 300;        // rendezvous and every collective
  int64_t bucket_mib = 25;       // gradient bucket size bound (DDP's bucket_cap_mb)
};

/// Where a configuration trains, parsed once from `execution.device`: the CPU, every visible
/// GPU (one rank each), or GPU N.
struct DeviceChoice {
  enum class Kind { cpu, every_gpu, gpu };
  Kind kind = Kind::cpu;
  int64_t index = 0;  // Kind::gpu only
  /// "cpu", "cuda" or "cuda:N": nullopt for anything else.
  static std::optional<DeviceChoice> parse(const std::string& text);
  /// As configs spell it.
  std::string name() const;
  /// The torch device one rank opens: "cpu", or "cuda:N" (every_gpu: GPU `ordinal`).
  std::string torch_device(int64_t ordinal = 0) const;
};

struct ExecutionSettings {
  int64_t threads = 1;          // libtorch intra-op threads of the trainer
  int64_t interop_threads = 1;  // libtorch inter-op threads
  std::vector<int> cpus;        // CPUs the trainer (and local loader threads) run on; empty: any
  DeviceChoice device;
  DataSettings data;
  std::optional<DistributedSettings> distributed;
  /// The step captured once as a CUDA graph and replayed (src/measure/cuda_graph_step.h): a
  /// GPU device, no ranks, and a workload with the static_shapes capability.
  bool cuda_graphs = false;
};

struct Configuration {
  std::string name;
  std::string pointer;  // JSON pointer of this configuration in the file
  bool baseline = false;
  std::vector<InstanceGroup> instances;
  ExecutionSettings execution;
  std::optional<double> step_time_ms;      // priced-only configs: measured elsewhere
  std::optional<double> billable_seconds;  // priced-only configs: a whole job's billed time
  std::optional<SpotSettings> spot;        // set when a group is Spot (rates resolved)
  int64_t priced_gpus = 0;                 // accelerators of the trainer groups, from the price table
  /// A sweep point (Config::sweep): each axis and its value as the name spells it, in the
  /// point's order ({"threads", "8"}, {"workers", "4"}); empty for a configuration written out.
  std::vector<std::pair<std::string, std::string>> sweep_values;
  /// A sweep point: the JSON pointer of each knob the sweep set, by the path under the
  /// configuration ("/execution/cpus" -> "/sweep/axes/cpus/2"), so a refusal names the value.
  std::vector<std::pair<std::string, std::string>> sweep_pointers;
  /// A sweep point over the workload's knobs (axes batch_size, precision): what it changes in
  /// every workload it is measured with (the plan's item carries the changed spec). Points of
  /// different batch sizes are compared per sample, by the race; none for a configuration
  /// written out.
  std::optional<int64_t> workload_batch_size;
  nlohmann::json workload_params = nlohmann::json::object();
};

/// Most points a sweep may expand to (each point takes turns in every round of the race).
constexpr size_t kMaxSweepPoints = 64;

/// The knobs a sweep may vary (docs/config.md "Sweeps"), as axes name them.
const std::vector<std::string>& sweep_knobs();

/// A config's `sweep`: named axes over execution knobs of its one configuration, expanded to
/// points (Config::configurations: one configuration per point, named from its values; the
/// first is the baseline) that race (src/stats/race.h).
struct SweepSettings {
  std::string base;                     // the configuration the points vary
  std::vector<std::string> axes;        // knob names, in the file's order
  std::vector<std::vector<std::string>> values;  // per axis: its values as names spell them
  bool grid = true;                     // axes: every combination; false: listed points
};

struct PricingSettings {
  std::string table;   // a shipped table's name, or a path (made relative to the config's directory)
  std::string region;  // "" = the table's only region
  int64_t max_age_days = 90;  // run and cost warn when the table's prices are older
  Market market = Market::on_demand;
  double discount_pct = 0;
  std::string interruptions = kDefaultInterruptionTable;  // Spot interruption table
};

/// A path a config gives in a workload param, resolved against the config's directory.
struct PathParam {
  std::string pointer;  // e.g. /workloads/0/params/path
  std::string path;
};

/// The config's `measure` section, by concern: how many warm-up steps, when the measured phase
/// ends (src/stats/stopping.h), how configurations in turns are decided (src/stats/decision.h),
/// and the memory bound.
struct MeasureSettings : StopSettings {
  int64_t warmup_steps = 3;
  DecisionSettings decision;  // measure.equivalence_pct
  /// The memory bound of each item's processes, GiB (src/measure/memory_bound.h); unset: a
  /// share of the memory available when the run starts.
  std::optional<double> max_memory_gib;
};

struct Config {
  std::string path;  // the file read (find_config: as given, or the shipped file absolute)
  std::string sha256;  // of the file's bytes
  std::string name;
  PricingSettings pricing;
  PriceTable price_table;
  std::vector<WorkloadSpec> workloads;
  std::vector<std::vector<PathParam>> path_params;  // per workload: the paths its params name
  MeasureSettings measure;
  std::vector<Configuration> configurations;
  std::optional<int64_t> steps_to_train;
  uint64_t seed = 0;
  /// Every configuration carries step_time_ms: `pperf cost` input, workloads are labels only.
  bool priced_only = false;
  /// Set when the config has a `sweep`: `configurations` are then its points.
  std::optional<SweepSettings> sweep;
  /// Set when the config has a `scaling` curve: `configurations` are then its points.
  std::optional<ScalingSettings> scaling;
  /// Loaded for `--native`: `workloads` are the real sizes (each entry's `native`, where given)
  /// and the emulation-only CPU pinning (`execution.cpus`, `spawn_local.cpus`) is dropped.
  bool native = false;
  /// Per workload entry: as written (what runs emulated here), and its `native` object's
  /// workload (what runs on the real instances), nullopt where the entry has none.
  std::vector<WorkloadSpec> workloads_as_written;
  std::vector<std::optional<WorkloadSpec>> native_workloads;
  /// Per workload entry: the wire pperf's data workers send its batches on unless a
  /// configuration names one (default_wire() of its capabilities: the smallest its pipeline
  /// makes exactly); the plan resolves each item's wire from it (data_path_of, plan.h).
  std::vector<std::string> default_wires;

  const Configuration& baseline() const;
};

/// The configs that ship with pperf: `<data dir>/configs` (data_dir(): an installed pperf's
/// share/pperf, else $PPERF_DATA_DIR, else the source tree), so they and the price tables they
/// name come from the same tree. Throws what data_dir() throws when there is no data dir.
std::string shipped_configs_dir();

/// A shipped config as `pperf list configs` shows it.
struct ShippedConfig {
  std::string name;     // the file name without ".json": what `--config NAME` takes
  std::string path;     // the file
  std::string summary;  // the first sentence of its "description" ("" without one; never throws)
};

/// Every `*.json` file directly in `dir`, sorted by name; empty when `dir` is not a directory.
std::vector<ShippedConfig> shipped_configs(const std::string& dir);

/// The file a `--config ARG` means: the one lookup of every command that takes a config.
/// - ARG with a '/' is a path: returned as given (relative to the current directory).
/// - A bare name (no '/') that exists in the current directory: returned as given (it wins).
/// - Otherwise a shipped config: `configs_dir/ARG` when that is a file, else
///   `configs_dir/ARG.json`; returned absolute, the path actually read.
/// Found nowhere: InputError "ARG: ..." on one line naming the current directory and
/// `configs_dir`, with the closest shipped names. `configs_dir` "" means there is none;
/// `no_configs_dir_reason` then says why (e.g. data_dir()'s message).
std::string find_config(const std::string& arg, const std::string& configs_dir,
                        const std::string& no_configs_dir_reason = "");

/// find_config(arg, shipped_configs_dir()) (or with data_dir()'s message when it has none).
std::string find_config(const std::string& arg);

/// Loads and validates the config `arg` names (find_config(arg): a path, or a shipped config's
/// name). Workloads are checked against `registry` unless the config is priced-only. Throws
/// InputError on the first mistake. Config::path is the file read. `native` (`--native`: on the
/// priced instances themselves): each workload entry's `native` size replaces its own, and the
/// emulation-only CPU pinning is dropped (Config::native).
Config load_config(const std::string& arg, const WorkloadRegistry& registry, bool native = false);

/// What the pricing stage needs of the config: the table, discount, and each configuration's
/// instance groups.
PricingInputs pricing_inputs(const Config& config);

}  // namespace pperf
