#pragma once
// Simulated replicates in turns (src/stats/replicates.h, what `pperf run --replicates N` does):
// each run in turns draws its own true ratio of the candidate's mean step to the baseline's
// around the truth (lognormal, sd `spread`: the between-run spread a busy host adds), then each
// side's steps, `rounds` rounds of kRoundSteps. One run read as pperf prints it (the anytime
// sequence, looking every round and stopping when decided), the same widened as a contended run
// is (with_contention), and N runs measured to their budget and pooled (decide_replicates).
// Shared by bench/stats_sim (the "Replicates" table in docs/statistics.md) and the unit tests.
#include <fmt/format.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "bench/stats_sim/coverage_sim.h"
#include "src/stats/decision.h"
#include "src/stats/replicates.h"

namespace pperf::coverage {

struct ReplicatedSetup {
  Generator steps{Shape::lognormal_005};
  double spread = 0;         // between-run sd of the log ratio of mean step times
  int64_t replicates = 3;    // runs pooled
  size_t rounds = 60;        // a run's rounds (its budget), kRoundSteps timed steps a side each
  int64_t round_steps = 10;  // src/measure/interleave.h kRoundSteps
  double speed = 1;          // candidate's mean step over the baseline's (the long-run truth)
  double price_ratio = 1;    // candidate's hourly price over the baseline's
};

struct ReplicatedCell {
  int trials = 0;
  int single_false = 0, single_covered = 0, single_intervals = 0;        // one run as printed
  int widened_false = 0, widened_covered = 0;                            // the same run, contended
  int pooled_false = 0, pooled_covered = 0, pooled_intervals = 0;        // the replicates pooled
};

/// One run in turns: each side's steps, the candidate's scaled by speed exp(spread z).
inline std::pair<RoundSteps, RoundSteps> simulated_run(const ReplicatedSetup& s, std::mt19937_64& rng) {
  std::normal_distribution<double> z(0, 1);
  const double ratio = s.speed * std::exp(s.spread * z(rng));
  Generator c = s.steps;
  c.scale *= ratio;
  const size_t n = s.rounds * static_cast<size_t>(s.round_steps);
  RoundSteps b{s.steps.draw(n, rng), s.round_steps};
  RoundSteps cand{c.draw(n, rng), s.round_steps};
  return {b, cand};
}

inline ReplicatedCell simulate_replicates(const ReplicatedSetup& s, int trials, uint64_t seed) {
  std::mt19937_64 rng(seed);
  ReplicatedCell cell;
  const DecisionSettings settings =
      settings_for_turns(DecisionSettings{}, static_cast<int64_t>(s.rounds) * s.round_steps, s.round_steps);
  const PriceRatio price{s.price_ratio, s.price_ratio};
  const double truth = (1 - s.price_ratio * s.speed) * 100;
  const auto is_false = [&](CostVerdict v) {
    if (s.speed == 1 && s.price_ratio == 1) return v == CostVerdict::cheaper || v == CostVerdict::dearer;
    return (v == CostVerdict::cheaper && truth <= 0) || (v == CostVerdict::dearer && truth >= 0);
  };
  const auto covers = [&](const Decision& d) {
    return d.improvement_pct_bounds && (*d.improvement_pct_bounds)[0] <= truth && truth <= (*d.improvement_pct_bounds)[1];
  };
  for (int t = 0; t < trials; ++t) {
    ++cell.trials;
    std::vector<PairedLogRatio> estimates;
    for (int64_t k = 0; k < s.replicates; ++k) {
      const auto [b, c] = simulated_run(s, rng);
      if (k == 0) {
        // As the run prints it: a look every round from the first early look, stopped when decided.
        Decision d;
        for (size_t r = settings.early_look_rounds; r <= s.rounds; ++r) {
          const size_t n = r * static_cast<size_t>(s.round_steps);
          d = decide_interleaved(RoundSteps{{b.step_ms.begin(), b.step_ms.begin() + n}, s.round_steps},
                                 RoundSteps{{c.step_ms.begin(), c.step_ms.begin() + n}, s.round_steps}, price, settings);
          if (d.verdict != CostVerdict::undecided) break;
        }
        if (d.improvement_pct_bounds) {
          ++cell.single_intervals;
          cell.single_covered += covers(d);
          const Decision w = with_contention(d, 1.0, price, settings);
          cell.widened_false += is_false(w.verdict);
          cell.widened_covered += covers(w);
        }
        cell.single_false += is_false(d.verdict);
      }
      if (const auto e = paired_log_ratio(b, c)) estimates.push_back(*e);
    }
    if (static_cast<int64_t>(estimates.size()) < s.replicates) continue;
    const Decision pooled = decide_replicates(estimates, price, settings);
    ++cell.pooled_intervals;
    cell.pooled_false += is_false(pooled.verdict);
    cell.pooled_covered += covers(pooled);
  }
  return cell;
}

/// One row's cells of docs/statistics.md's Replicates table: A/A simulated with `seed`, the
/// truth 5.5 % cheaper (10 % faster at a 5 % higher price) with `seed + 1`; " one run false / one
/// run widened false | pooled false / coverage |" (false: A/A; coverage: the 5.5 % truth).
inline std::string replicates_cell(const ReplicatedSetup& aa, int trials, uint64_t seed) {
  ReplicatedSetup effect = aa;
  effect.speed = 0.9, effect.price_ratio = 1.05;
  const ReplicatedCell a = simulate_replicates(aa, trials, seed), e = simulate_replicates(effect, trials, seed + 1);
  const auto pct = [](int count, int of) { return of ? 100.0 * count / of : 0; };
  return fmt::format(" {:.1f} / {:.1f} | {:.1f} / {:.1f} |", pct(a.single_false, a.trials), pct(a.widened_false, a.trials),
                     pct(a.pooled_false, a.trials), pct(e.pooled_covered, e.pooled_intervals));
}

}  // namespace pperf::coverage
