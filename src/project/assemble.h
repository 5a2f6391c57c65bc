#pragma once
// From what `pperf project` gathered to a workload's projection: what a result says of its
// pipeline and trainer, the pipeline's scaling from a wider configuration of the same results,
// a batch's bytes from its layout, and every candidate, knee, speed factor and configuration
// check of one workload (docs/projection.md). Pure: no timer, no files, no measuring; the caller
// gathers the inputs (results, the config's configurations, the table) and writes the outputs.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pricing/price_table.h"
#include "pricing/pricing_stage.h"
#include "src/core/result.h"
#include "src/core/workload_registry.h"
#include "src/project/report.h"

namespace pperf::project {

/// The half-width of a result's mean step CI relative to the mean; below the runner's 6 steps
/// for one, 1.96 CV / sqrt(n), widened for lag-1 autocorrelation rho by sqrt((1 + rho) / (1 - rho)).
/// 0 without a step.
double relative_ci(const Result& r);

/// What a measured result says of its pipeline and trainer (the runner's CPU accounting:
/// src/measure/item_figures.cpp's busy fractions, times the wall time and the CPUs they are of), its
/// CPUs counted on a host of `logical_cpus`; `workload` is what its workload declares (nullptr:
/// unknown). `data_cores`, when given, gets the cores its pipeline ran on. Throws
/// InputError(`file`) when `r` has no measurement to project from.
Measured measured_from(const Result& r, const WorkloadCapabilities* workload, int64_t logical_cpus, const std::string& file,
                       double* data_cores = nullptr);

/// The pipeline's scaling efficiency from the widest configuration of `results` (same workload,
/// not `reference`, ok, its pipeline on more cores than the reference's `reference_cores`): its
/// CPU-seconds per sample against `m`'s; `m` is left as it is when none ran wider. The source
/// sentence gets what it was taken from.
void scaling_from_results(Measured& m, const WorkloadCapabilities* workload, double reference_cores, const std::vector<Result>& results,
                          const std::string& reference, int64_t logical_cpus, const std::string& file);

/// Bytes of one batch of `batch_size` samples laid out as `layout` (float32, int64, int32, uint8,
/// bfloat16); nullopt for an empty layout or another dtype.
std::optional<double> layout_bytes(const std::vector<TensorDecl>& layout, int64_t batch_size);

/// One of the config's configurations as the model sees it.
struct ConfigurationInput {
  std::string name;
  bool reference = false;                // the configuration the inputs came from
  std::optional<InstanceGroup> trainer;  // its role "dnn" group; a configuration without one is not checked
  std::optional<InstanceGroup> data;     // its role "data" group
  std::optional<double> given_step_ms;   // the config's step_time_ms
  /// On this host (measured here): the CPUs its execution pins, which replace the catalog's
  /// instances in its check (the trainer's, whether the pipeline shares them, the data workers').
  struct HostCpus {
    int64_t trainer_vcpus = 1;
    bool pooled = true;
    int64_t data_vcpus = 0;
  };
  std::optional<HostCpus> host;
  std::optional<double> actual_ms;  // its measured mean or given step
  std::string actual_source;        // "measured" | "given" | ""
};

/// Where the speed factors come from.
struct FactorInputs {
  std::map<std::string, SpeedFactor> measured;  // per family (from history), taken as they are
  /// The reference family's factor is 1 exactly (the pipeline's cost is in its cores: a given
  /// step read as input-bound); others are unmeasured (1, ±25 % stated).
  bool reference_family_exact = false;
  std::string reference_family;
  bool relative_to_host = false;  // the pipeline's cost is this host's: each source says so
};

/// One workload's inputs, gathered.
struct WorkloadInputs {
  Measured measured;
  InstanceGroup trainer;  // the baseline's trainer group
  double trainer_accelerators = 0;  // each, from the table
  std::vector<ConfigurationInput> configurations;  // in the config's order
  /// Every configuration's trainer (and its scale-ups) projected with its own given step; else
  /// the reference's alone.
  bool each_trainer = false;
  /// The reference was measured on this host: its measured / projected step scales the checks.
  bool calibrate_to_host = false;
  int64_t max_data = 4;  // data instances per trainer group considered (0 when the pipeline's cost is unknown)
  Market market = Market::on_demand;
  ModelSettings settings;
};

/// The workload's projection: every catalog candidate of the trainers (cheapest per sample
/// first, each cluster once), the knees, the config's configurations checked (scaled by the host
/// calibration when measured here), and every speed factor used (by family).
WorkloadProjection project_workload(const WorkloadInputs& in, const PriceTable& table, const FactorInputs& factors);

}  // namespace pperf::project
