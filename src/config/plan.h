#pragma once
// Config -> Plan: the (workload x configuration) items a run measures, after the --only and
// --workload filters, each with what would keep it from running on this host.
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "src/config/config.h"
#include "src/core/result.h"

namespace pperf {

struct PlanFilter {
  /// Names as --only lists them, split at every comma (empty = all): make_plan joins neighbours
  /// back into a sweep point's name (`threads=8,workers=4`), see only_names().
  std::vector<std::string> configurations;
  std::string workload;                     // empty = all
};

/// What the plan needs to know of this host.
struct HostCapacity {
  int64_t logical_cpus = 1;
  int64_t cuda_devices = 0;  // GPUs this pperf can train on here (0 in a CPU-only build)
  std::string no_cuda_reason;  // why cuda_devices is 0
  /// Set when a launcher (torchrun, Slurm, ...) started this process as one of that many ranks:
  /// then ranks are not spawned here, and each needs one visible GPU, not world_size of them.
  std::optional<int64_t> launcher_world_size;
  /// `--native`: this host is one of the priced instances, so what it measures is theirs.
  bool native = false;
  /// Why this host cannot emulate a data group's link (root, and `ip` and `tc` on PATH:
  /// src/env/shaped_link.h), "" when it can. The config library does not look at the host's
  /// tools: whoever builds a HostCapacity for a run fills it (src/session: host_capacity).
  std::string link_obstacle;
  /// This host's.
  static HostCapacity here();
};

/// Something that keeps a valid item from running on this host, and where the config asks for it.
struct Obstacle {
  std::string pointer;  // JSON pointer into the config
  std::string reason;
  /// What the emulation needs of this pperf and does not have (a link without root, `ip` or
  /// `tc`): the emulation runs on no other host, so no host the config was written for would
  /// run it; `validate` refuses it as `run` does, instead of listing it as fine elsewhere.
  bool emulation_setup = false;
};

/// A data group's link emulated here: the spawned data workers sit behind a veth whose sending
/// side tc shapes (src/env/shaped_link.h) to the real instances' link times `scale`.
struct EmulatedLink {
  double gbps = 0;      // the real instances' link, Gbit/s
  std::string source;   // where gbps comes from: "config" (link_gbps) | "price table" ("table")
  double scale = 1;     // link_scale: real trainer step / this host's
  double rate_bit_per_s() const { return gbps * scale * 1e9; }
};

/// How an item's batches reach its trainer, resolved once by the plan (data_path_of): the
/// executor, `pperf project` and the data workers the executor starts read this, never the
/// settings it came from.
struct DataPath {
  std::string wire;                  // a wire_formats() name the batches travel as
  std::optional<EmulatedLink> link;  // none: loopback, workers elsewhere, or --native (the real link)
};

/// The data path of `configuration` for workload entry `workload_index` of `config`: the wire
/// execution.data.wire names; else, for pperf's data workers, the workload's default
/// (Config::default_wires), and float32 for pperf's local loader (batches in memory, ranks
/// included) and for Python workers (the dataset yields what it yields). The link is emulated
/// when the configuration gives link_gbps (it needs spawn_local), unless `native`.
DataPath data_path_of(const Config& config, size_t workload_index, const Configuration& configuration, bool native);

struct PlanItem {
  size_t workload_index = 0;       // into Config::workloads
  size_t configuration_index = 0;  // into Config::configurations
  /// The workload as this item runs it: Config::workloads' entry, or, for a sweep point over the
  /// workload's knobs (batch_size, precision), own_workload, that entry with the point's values.
  const WorkloadSpec* workload = nullptr;
  std::shared_ptr<const WorkloadSpec> own_workload;
  const Configuration* configuration = nullptr;
  int64_t ranks = 1;  // data-parallel processes; each consumes one batch per step
  DataPath data_path;  // how its batches reach the trainer
  /// Why this item cannot run on this host (empty: it can).
  std::vector<Obstacle> not_runnable_here;
  /// What the item measures that a reader of its cost must know (it runs, and its result and
  /// `validate` say so), e.g. one GPU trained of the eight priced.
  std::vector<std::string> notes;

  int64_t samples_per_step() const { return workload->batch_size * ranks; }
  /// A Result carrying the item's identity (workload, configuration, samples per step), status ok.
  Result result_skeleton() const;
};

struct Plan {
  std::vector<PlanItem> items;
  bool runnable_here() const;
};

/// --only's comma-split pieces as configuration names of `config`: from each piece on, the most
/// pieces that joined with commas name a configuration (so a sweep point `threads=8,workers=4`
/// is one name, and `a,threads=8,workers=4` two). An unknown name is an InputError on --only; for
/// a piece holding '=' it names the run of such pieces, the point as written.
std::vector<std::string> only_names(const Config& config, const std::vector<std::string>& pieces);

/// The items of `config` selected by `filter`, in config order (workloads outer). An unknown
/// name in the filter is an InputError naming the flag (--only / --workload). The items point
/// into `config`, which must outlive the plan.
Plan make_plan(const Config& config, const PlanFilter& filter, const HostCapacity& host);

/// The one item (workload_index, configuration_index); std::out_of_range when there is none.
PlanItem plan_item(const Config& config, size_t workload_index, size_t configuration_index, const HostCapacity& host);

/// Results for a priced-only config: each configuration's given step time, nothing run.
std::vector<Result> given_results(const Plan& plan);

}  // namespace pperf
