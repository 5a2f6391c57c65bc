#pragma once
// A projection across a catalog, as a record: per workload, what was measured, every
// candidate's prediction (cheapest first), the knee and the speed factors used, and the
// config's own configurations projected beside what measured or gave them. Its writers (JSON,
// schemas/projection.schema.json; a console table; an HTML page with an SVG chart) are in
// reports/formats.h, registered as reports/writer.h's projection_writers().
#include <optional>
#include <string>
#include <vector>

#include "src/project/data_parallel.h"
#include "src/project/projection.h"

namespace pperf::project {

/// A configuration of the config itself, projected, beside its measured (or given) step.
struct ConfigurationCheck {
  std::string configuration;
  Prediction predicted;
  std::optional<double> actual_ms;   // measured mean, or the config's step_time_ms
  std::string actual_source;         // "measured" | "given" | "" (not measured)
  bool reference = false;            // the configuration the inputs came from
};

struct WorkloadProjection {
  Measured measured;
  std::string trainer_type;  // the config's trainer group
  int64_t trainer_count = 1;
  std::vector<Prediction> predictions;  // cheapest per sample first
  std::optional<double> knee_vcpus_per_accelerator;
  /// The fewest data instances with which the config's trainer is trainer-bound (0: the trainer
  /// alone keeps its pipeline fed, data instances only add cost); unset when unknown.
  std::optional<int64_t> knee_data_instances;
  std::vector<SpeedFactor> speed_factors;  // every family used
  std::vector<ConfigurationCheck> checks;
  /// Measured here: the reference's measured step / its projected step (contention from
  /// others and imperfect overlap, as this host showed them); the other configurations'
  /// projections on this host are scaled by it. Unset for given steps.
  std::optional<double> host_calibration;
};

struct Projection {
  std::string config_path, config_name;
  std::string table, table_path, region, market;
  ModelSettings settings;
  std::string reference_host;  // where the pipeline cost was measured ("given" when derived)
  std::vector<WorkloadProjection> workloads;
  /// A config with a scaling curve: each workload's curve projected to its instance counts of
  /// every type with the trainer's accelerator (src/project/data_parallel.h).
  std::vector<DataParallelProjection> data_parallel;
  std::string next_config_path;  // the configuration to measure next
};

/// The cheapest prediction of `w` (predictions[0]); nullptr when there is none.
const Prediction* cheapest(const WorkloadProjection& w);

/// (step - actual) / actual in %: the projection's error against a measured/given step.
double error_pct(const ConfigurationCheck& c);

}  // namespace pperf::project
