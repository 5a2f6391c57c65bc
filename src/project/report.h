#pragma once
// A projection across a catalog, as a document: per workload, what was measured, every
// candidate's prediction (cheapest first), the knee and the speed factors used, and the
// config's own configurations projected beside what measured or gave them. Written as JSON
// (schemas/projection.schema.json), a console table, and an HTML page with an SVG chart.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

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
  std::string next_config_path;  // the configuration to measure next
};

/// The cheapest prediction of `w` (predictions[0]); nullptr when there is none.
const Prediction* cheapest(const WorkloadProjection& w);

/// (step - actual) / actual in %: the projection's error against a measured/given step.
double error_pct(const ConfigurationCheck& c);

nlohmann::json to_json(const Range& r);
nlohmann::json to_json(const Prediction& p);
nlohmann::json to_json(const Projection& p);

/// The console text: per workload, the inputs, the cheapest and the knee, the top `top` rows
/// with intervals, the config's own configurations checked, and where the next config is. With a
/// width (0: none), the prose is wrapped to it and the rows' intervals (the step's, then the
/// cost's) are left out, and said so, until the rows fit.
std::string console_text(const Projection& p, size_t top, size_t width = 0);

/// A self-contained HTML page: per workload, an SVG chart of USD per 1M samples against data
/// instances per trainer (one line per data type, the knee marked) and the top rows.
std::string html_page(const Projection& p, size_t top);

}  // namespace pperf::project
