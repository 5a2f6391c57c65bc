#pragma once
// Projection across a price catalog: from what one measurement (or a given step time) says of a
// workload — the data pipeline's CPU cost per sample, the trainer's own step — predict the step
// time and cost of every (trainer type x data type x data count) the catalog sells. Pure
// functions: no timer, no files. The model (docs/projection.md):
//   step = max(trainer step, pipeline CPU-seconds per step / usable core-equivalents, link time)
// where usable core-equivalents are the vCPUs that preprocess (the trainer's own when pooled, and
// every data instance's) times their family's per-core speed factor and the pipeline's scaling
// efficiency. Every interval is the formula at its inputs' interval ends, widened by the stated
// model error.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pricing/price_table.h"

namespace pperf::project {

/// A figure with its interval: lo <= value <= hi.
struct Range {
  double value = 0, lo = 0, hi = 0;
  static Range point(double v) { return {v, v, v}; }
  /// v (a positive quantity: a time, a cost) with a relative half-width `rel` (0.1: ±10 %); the lower
  /// bound never falls below 1 % of v, as a noisy run's half-width may pass 100 %.
  static Range relative(double v, double rel) { return {v, v * std::max(1 - rel, 0.01), v * (1 + rel)}; }
};

/// What one measurement says of a workload (per step of `samples_per_step` samples).
struct Measured {
  std::string workload;
  int64_t samples_per_step = 0;
  /// CPU-seconds of preprocessing per sample, on one core of the reference (the trainer family's
  /// cores when derived from a given step; this host's when measured here).
  Range pipeline_cpu_s_per_sample;
  /// Pipeline throughput at `scaling_cores` / (scaling_cores x at one core); 1 when not measured.
  Range scaling_efficiency = Range::point(1);
  int64_t scaling_cores = 1;
  /// The trainer's own CPU-seconds per step on the CPUs it shares with a pooled pipeline.
  double trainer_cpu_s_per_step = 0;
  /// The trainer's step with its input ready (ms); unknown: no floor (the pipeline bound only).
  std::optional<Range> trainer_step_ms;
  std::optional<double> bytes_per_batch;  // on the data link, per step
  std::string pipeline_source, trainer_source;  // how each figure was obtained (one sentence)
  /// Why the pipeline's cost is unknown ("" when known): then no data instances are projected
  /// (nothing says what they would take off the trainer) and the output says why.
  std::string pipeline_absent;
};

/// The per-core speed of an instance family relative to the reference cores.
struct SpeedFactor {
  std::string family;
  Range factor = Range::point(1);
  std::string source;  // "reference family", "history: ...", "none (1, ±25 % stated)"
};

/// The family of an instance type: "ml.c5.9xlarge" and "c5.9xlarge" -> "c5".
std::string family_of(const std::string& type);

/// The factor when nothing measured the family: 1 with ±`error_pct` (stated).
SpeedFactor unmeasured_factor(const std::string& family, double error_pct = 25);

/// One candidate cluster: `trainer_count` x trainer type plus `data_count` x data type.
struct Candidate {
  std::string trainer_type;
  int64_t trainer_count = 1;
  int64_t trainer_vcpus = 0;        // each
  double trainer_accelerators = 0;  // each
  double trainer_usd_per_hour = 0;  // each
  std::string data_type;            // "" when data_count == 0
  int64_t data_count = 0;
  int64_t data_vcpus = 0;           // each
  double data_usd_per_hour = 0;     // each
  bool pooled = true;               // the trainer's vCPUs preprocess too
  /// Each instance's network bandwidth from the price table (Gbit/s; unset: none published).
  std::optional<double> trainer_link_gbps, data_link_gbps;
};

/// The link a candidate's batches cross, Gbit/s: the data instances' links together, capped by
/// the trainers' (min(data_count x data link, trainer_count x trainer link); a side whose figure
/// is unknown does not cap). nullopt without data instances or without the data side's figure.
std::optional<double> candidate_link_gbps(const Candidate& c);

struct ModelSettings {
  double model_error_pct = 10;               // stated: widens every interval
  /// The data link's bandwidth for every candidate (--link-gbps); unset: each candidate's own
  /// from the price table (candidate_link_gbps), and no link term where the table has none.
  std::optional<double> link_gbit_per_s;
  bool table_links = true;                   // false: no link term unless link_gbit_per_s is set
};

struct Prediction {
  Candidate candidate;
  SpeedFactor trainer_speed, data_speed;
  double usable_cores = 0;     // point value, core-equivalents of the reference
  double pipeline_ms = 0;      // point value of each term
  std::optional<double> trainer_ms, link_ms;
  std::optional<double> link_gbps;  // the link the link term used (Gbit/s)
  std::string link_source;          // "--link-gbps" | "price table" | "" (no link term)
  std::string bound;           // "trainer" | "pipeline" | "link"
  Range step_ms, usd_per_hour, usd_per_step, usd_per_1m_samples;
  double vcpus_per_accelerator = 0;  // every vCPU of the cluster / its accelerators
};

/// The prediction for `c`. Monotone in each input, so each end of the interval is the formula at
/// the inputs' matching ends, then widened by settings.model_error_pct.
Prediction predict(const Measured& m, const Candidate& c, const SpeedFactor& trainer_speed,
                   const SpeedFactor& data_speed, const ModelSettings& settings);

/// vCPUs (trainer-family core-equivalents) per accelerator beyond which the step stops
/// improving: where the pipeline term meets the trainer's step. nullopt when the trainer's step
/// is unknown.
std::optional<double> knee_vcpus_per_accelerator(const Measured& m, double accelerators);

/// The fewest data instances (of any data type) with which a `trainer_type` cluster among
/// `predictions` is trainer-bound: 0 when the trainer alone is; nullopt when none is (the trainer's
/// step unknown, or the pipeline still bounds the step at the most data instances projected).
std::optional<int64_t> knee_data_instances(const std::vector<Prediction>& predictions, const std::string& trainer_type);

/// Given-step derivation (priced-only configs): a homogeneous step `step_ms` taken to be
/// input-bound on `vcpus` vCPUs of the trainer instance(s) gives the pipeline's CPU-seconds per
/// sample in those vCPUs' core-seconds: step x vcpus / samples.
double pipeline_cost_from_bound_step(double step_ms, int64_t vcpus, int64_t samples_per_step);

/// The candidates a table sells for a trainer group (`trainer_type` x `trainer_count`): that
/// type and every type with the same accelerator model and count (a scale-up), each alone and
/// with 1..max_data of every CPU-only type. Types without a price in `market` are left out.
std::vector<Candidate> catalog_candidates(const PriceTable& table, const std::string& trainer_type,
                                          int64_t trainer_count, int64_t max_data, Market market);

}  // namespace pperf::project
