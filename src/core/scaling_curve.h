#pragma once
// A scaling curve (config `scaling`, docs/scaling.md): one workload trained data-parallel on
// 1, 2, 4, ... instances of one type, each point's step, throughput, scaling efficiency, time
// and cost per epoch, and the cheapest point that meets a deadline. The record the results file
// carries (`scaling`) and its writers read; filled by the pricing stage (pricing/scaling_curve.h).
#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/core/json_fields.h"
#include "src/core/json_view.h"

namespace pperf {

/// What a config's `scaling` asks for.
struct ScalingSettings {
  std::vector<int64_t> instances;        // the points: trainer instances, ascending; the first is the reference
  std::optional<double> epoch_samples;   // samples of one epoch: time and cost per epoch
  std::optional<double> deadline_h;      // an epoch must take at most this (needs epoch_samples)
};

/// One point of a curve: `instances` trainer instances running `world_size` ranks.
struct ScalingPoint {
  std::string configuration;
  int64_t instances = 1;
  int64_t world_size = 1;
  std::string status = "ok";  // the result's status; a failed point has only its identity
  std::string reason;
  std::optional<double> step_ms;                        // mean step (what is billed)
  std::optional<std::array<double, 2>> step_ms_ci95;
  std::optional<double> samples_per_s;                  // all ranks together
  std::optional<std::array<double, 2>> samples_per_s_ci95;
  /// throughput / (instances / reference instances x reference throughput); 1 on the reference.
  std::optional<double> efficiency;
  std::optional<std::array<double, 2>> efficiency_ci95;
  std::optional<double> usd_per_hour;
  std::optional<double> usd_per_1m_samples;
  std::optional<double> epoch_hours, epoch_usd;
  std::optional<std::array<double, 2>> epoch_hours_ci95, epoch_usd_ci95;
  std::optional<bool> meets_deadline;  // the epoch's time interval's upper end <= deadline_h
  /// The link term's inputs: gradient bytes each rank all-reduces per step and the time per step
  /// at least one bucket's all-reduce was in flight (median), ms; 0 for one rank.
  int64_t allreduce_bytes_per_step = 0;
  double allreduce_ms = 0;
};
inline constexpr auto kScalingPointFields = std::make_tuple(
    json_field("configuration", &ScalingPoint::configuration), json_field("instances", &ScalingPoint::instances),
    json_field("world_size", &ScalingPoint::world_size), json_field("status", &ScalingPoint::status),
    json_field("reason", &ScalingPoint::reason), json_field("step_ms", &ScalingPoint::step_ms),
    json_field("step_ms_ci95", &ScalingPoint::step_ms_ci95), json_field("samples_per_s", &ScalingPoint::samples_per_s),
    json_field("samples_per_s_ci95", &ScalingPoint::samples_per_s_ci95), json_field("efficiency", &ScalingPoint::efficiency),
    json_field("efficiency_ci95", &ScalingPoint::efficiency_ci95), json_field("usd_per_hour", &ScalingPoint::usd_per_hour),
    json_field("usd_per_1m_samples", &ScalingPoint::usd_per_1m_samples), json_field("epoch_hours", &ScalingPoint::epoch_hours),
    json_field("epoch_hours_ci95", &ScalingPoint::epoch_hours_ci95), json_field("epoch_usd", &ScalingPoint::epoch_usd),
    json_field("epoch_usd_ci95", &ScalingPoint::epoch_usd_ci95), json_field("meets_deadline", &ScalingPoint::meets_deadline),
    json_field("allreduce_bytes_per_step", &ScalingPoint::allreduce_bytes_per_step),
    json_field("allreduce_ms", &ScalingPoint::allreduce_ms));

/// One workload's curve.
struct ScalingCurve {
  std::string workload, preset;
  int64_t batch_size = 0;      // per rank
  std::string instance_type;   // the trainer group's type
  std::vector<ScalingPoint> points;  // in ascending instances
  std::optional<double> epoch_samples, deadline_h;
  /// The cheapest point (per epoch) whose epoch meets the deadline; none without a deadline or
  /// when no point meets it.
  std::optional<int64_t> cheapest_instances;
  std::string summary;  // one sentence: what the curve says
};
inline constexpr auto kScalingCurveFields = std::make_tuple(
    json_field("workload", &ScalingCurve::workload), json_field("preset", &ScalingCurve::preset),
    json_field("batch_size", &ScalingCurve::batch_size), json_field("instance_type", &ScalingCurve::instance_type),
    json_field("epoch_samples", &ScalingCurve::epoch_samples), json_field("deadline_h", &ScalingCurve::deadline_h),
    json_field("cheapest_instances", &ScalingCurve::cheapest_instances), json_field("summary", &ScalingCurve::summary));

struct ScalingRecord {
  std::string measured_as;  // how the points were measured (one sentence)
  std::vector<ScalingCurve> curves;
};

nlohmann::json to_json(const ScalingRecord& s);
ScalingRecord read_scaling(const JsonView& v);

}  // namespace pperf
