#pragma once
// The Spot model: expected cost to train a job that is interrupted (Poisson, rate lambda for
// the whole group), loses the work since its last checkpoint, pays for writing checkpoints and
// for restoring, and waits (unbilled) for capacity before it restarts. Pure: no timer, no
// workload; the same inputs and seed give the same figures.
//
// Time is cut into segments: `interval` seconds of useful work, then a checkpoint write of C
// seconds (the last segment writes none). An interruption anywhere in a segment (work or
// write) loses the segment so far; the job then restores for R seconds (an interruption during
// the restore starts the restore again) and repeats the segment. Restart overhead D is wall
// time only: SageMaker managed Spot bills training time, not the wait for capacity.
#include <cstdint>
#include <optional>
#include <vector>

#include "src/core/spot.h"

namespace pperf {

constexpr double kHoursPerMonth = 730;  // AWS's billing month: 365 x 24 / 12
/// Where the first-order model holds: an interruption within one segment plus a restore is
/// unlikely, λ x (τ + C + R) <= 0.35 (docs/spot.md: the Monte Carlo agrees within 2 % there).
constexpr double kFirstOrderReach = 0.35;

struct SpotModelInput {
  double work_s = 0;                 // W: steps x step time
  double step_s = 0;                 // checkpoints fall on step boundaries (0: anywhere)
  double interruptions_per_hour = 0; // lambda of the whole group
  double checkpoint_save_s = 0;      // C
  double checkpoint_restore_s = 0;   // R (billed)
  double restart_overhead_s = 0;     // D (wall only)
  std::optional<double> checkpoint_interval_s;  // given; else Young/Daly
  double usd_per_hour = 0;           // the configuration as priced (Spot groups at Spot prices)
  double on_demand_usd_per_hour = 0; // the same groups On-Demand
  /// Break-even: the group's rate is this many times the per-instance rate (its Spot instance
  /// count when all its Spot groups share one rate).
  double spot_instances = 1;
  int64_t mc_trials = 20000;
  uint64_t seed = 0;
};

/// Young/Daly: tau = sqrt(2 x C x MTBF), rounded to whole steps (at least one), at most W.
/// Without interruptions: W (one segment, no checkpoint).
double young_daly_interval_s(double checkpoint_save_s, double interruptions_per_hour, double step_s, double work_s);

/// The segments' lengths in seconds (work + the checkpoint after it; none after the last).
std::vector<double> segments_s(double work_s, double interval_s, double checkpoint_save_s);

/// First-order expected billed seconds: S / (1 - lambda x (R + sum(s^2) / (2 S))), S = sum of
/// segments. Each interruption costs half a segment (length-weighted) plus a restore; the
/// denominator counts interruptions during rework. nullopt when it is not positive (the job
/// is expected never to finish: lambda x (R + s/2) >= 1).
std::optional<double> first_order_billed_s(const std::vector<double>& segments, double lambda_per_s, double restore_s);

struct MonteCarloSummary {
  double mean_s = 0, p50_s = 0, p95_s = 0;
};
/// Simulates the job `trials` times with exponential times between interruptions (seeded).
MonteCarloSummary simulate_billed_s(const std::vector<double>& segments, double lambda_per_s, double restore_s,
                                    int64_t trials, uint64_t seed);

/// The whole estimate. Throws std::invalid_argument for negative or non-finite inputs (config
/// loading rejects them first, naming the JSON pointer).
SpotEstimate estimate_spot(const SpotModelInput& input);

}  // namespace pperf
