// The decision tables of docs/statistics.md and docs/compare.md added by issue 40, simulated
// through the real code (src/stats/decision.h, turn_order.h, compare_stats.h):
//   build/pperf_stats_sim TABLE [TRIALS [nohorizon]]   TABLE: interval | aa | aa200 | order | stop | stopedge |
//   predict | cost | cost20 | cost200 (and _3: first look at 3) | meanci (the mean's interval at fixed n:
//   coverage, and how often the steps' range bounds it) | horizon | aaar (AR(1) r=0.8 A/A at 20/60/200
//   rounds) | aawander (A/A, each side's speed an AR(1) over rounds: round means only / steps) | aaarwhen (the
//   rounds at which those false decisions fall) | compare | untimed | all; nohorizon: the decision is not told
//   the budget in rounds (as before item 9); hosts (issue 60: configurations measured apart, `pperf decide`:
//   A/A false decisions and coverage by between-host spread and hosts a side; one host a side with the
//   spread from 5 other hosts of the type, and ignored; issue 68: 2-5 hosts a side at 200 and 60 steps a
//   host, one host a side with the prior or 3/5/10 history hosts) | hostsadd (issue 68 item 4: A/A when
//   `decide` is re-run after adding hosts until decided)
// TRIALS per cell (default 10000; the unit tests run a few hundred of the same simulations).
#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/non_central_t.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "bench/stats_sim/between_hosts_sim.h"
#include "bench/stats_sim/replicates_sim.h"
#include "bench/stats_sim/coverage_sim.h"

using namespace pperf;
using namespace pperf::coverage;

namespace {
/// `nohorizon` as the third argument: the decision is not told the budget (the endless sequence,
/// as before issue 40's item 9).
bool g_horizon = true;

const std::vector<std::pair<const char*, Generator>> kShapeRows = {
    {"lognormal s=0.05", {Shape::lognormal_005}},      {"lognormal s=0.3", {Shape::lognormal_03}},
    {"5% outliers at 3x", {Shape::outliers_5pct_3x}},  {"bimodal 25% at 1.7x", {Shape::bimodal}},
    {"AR(1) r=0.5", {Shape::lognormal_005, 100, 0.5}}, {"AR(1) r=0.5 + 5% outliers", {Shape::outliers_5pct_3x, 100, 0.5}},
    {"AR(1) r=0.8", {Shape::lognormal_005, 100, 0.8}},
    {"regimes 1x / 2.14x, runs of 5-20", {Shape::regime_switching}}};

double pct(int count, int of) { return of ? 100.0 * count / of : 0; }

/// Coverage of the printed improvement interval in turns at the run's end: the fixed-sample t
/// printed before (`before`) and the anytime interval printed now, over every run, and over the
/// runs the decision stopped (a true 5.5 % difference: nearly all of them).
void interval_table(int trials, size_t max_rounds, uint64_t& seed) {
  fmt::print("\nImprovement interval printed after a run in turns ({} rounds at most, a look after every round), {} trials "
             "a cell: coverage of the true improvement at the run's end, in %, before (fixed-sample t) / now (anytime). "
             "Every run: A/A and 5.5 % cheaper (10 % faster at a 5 % higher price); runs the decision stopped: 5.5 % "
             "cheaper (the share stopped in brackets):\n\n",
             max_rounds, trials);
  fmt::print("| shape | effect | runs |");
  for (Drift d : kDrifts) fmt::print(" {} |", name(d));
  fmt::print("\n|---|---|---|---|---|---|---|\n");
  for (const auto& [label, g] : kShapeRows) {
    std::vector<DecisionCell> cells[2];
    for (int effect = 0; effect < 2; ++effect)
      for (Drift d : kDrifts) {
        TurnsSetup s;
        s.base = g;
        s.speed = {1, effect ? 0.9 : 1.0};
        s.price_ratio = {1, effect ? 1.05 : 1.0};
        s.drift = d;
        s.max_rounds = max_rounds;
        s.horizon = g_horizon;
        cells[effect].push_back(simulate_turns(s, trials, seed++));
      }
    for (int row = 0; row < 3; ++row) {
      fmt::print("| {} | {} | {} |", label, row == 0 ? "A/A" : "5.5 % cheaper", row < 2 ? "every run" : "stopped by the decision");
      for (const DecisionCell& c : cells[row == 0 ? 0 : 1]) {
        if (row < 2)
          fmt::print(" {:.1f} / {:.1f} |", pct(c.fixed_hits, c.intervals), pct(c.anytime_hits, c.intervals));
        else
          fmt::print(" {:.1f} / {:.1f} ({:.0f} %) |", pct(c.stopped_fixed_hits, c.stopped), pct(c.stopped_anytime_hits, c.stopped),
                     pct(c.stopped, c.trials));
      }
      fmt::print("\n");
    }
  }
}

/// The precision stop tables' cells: each shape at targets 1, 2, 5 % and max_steps 200, 400,
/// 1000 (min_steps 10, max_seconds out of the way), in the tables' order.
template <typename Cell>
void for_each_stop_cell(Cell&& cell) {
  for (const auto& [label, g] : kShapeRows)
    for (double target : {0.01, 0.02, 0.05})
      for (int64_t max_steps : {200, 400, 1000}) {
        StopSettings m;
        m.min_steps = 10;
        m.max_steps = max_steps;
        m.max_seconds = 1e9;
        m.target_rel_ci = target;
        cell(label, g, m);
      }
}

/// The precision stop rule: how often it stops on its target, and the mean CI's coverage over
/// the runs it stopped (conditional) and over every run.
void stop_table(int trials, uint64_t& seed) {
  fmt::print("\nThe precision stop rule (min_steps 10, max_seconds out of the way), {} trials a cell: share stopped on the "
             "target, in %, the mean CI's coverage over those runs / over every run, in %, and mean steps:\n\n"
             "| shape | target | max_steps | stopped on target | coverage when stopped on target | coverage, every run | mean n |\n"
             "|---|---|---|---|---|---|---|\n",
             trials);
  for_each_stop_cell([&](const char* label, const Generator& g, const StopSettings& m) {
    const Cell c = simulate(g, 0, trials, seed++, &m);
    fmt::print("| {} | {:g} % | {} | {:.1f} | {} | {:.1f} | {:.0f} |\n", label, m.target_rel_ci * 100, m.max_steps,
               pct(c.on_target, c.trials),
               c.on_target ? fmt::format("{:.1f}", pct(c.on_target_mean_hits, c.on_target)) : std::string("—"),
               c.mean_coverage() * 100, c.steps);
  });
}

/// Why the precision stop's last cells stay under 90 %: per cell, the true 95 % half-widths at
/// max_steps of the mean and of the median, which the rule both holds to its target (1.96 x the
/// spread of the means / medians of max_steps steps over the trials, relative to the true value),
/// the runs stopped on target with their printed half-width of the mean (median over the runs)
/// and coverage, and that coverage with each stopped run's printed interval widened 1.1x about
/// its mean (an interval that covers 95 % at fixed n for AR(1) r = 0.8; the stops are the same).
void stop_edge_table(int trials, uint64_t& seed) {
  fmt::print("\nThe precision stop rule's edge (min_steps 10), {} trials a cell: the true 95 % half-widths of the mean / "
             "the median at max_steps, %; runs stopped on target, %; their printed half-width of the mean, median over "
             "the runs, %; their coverage, %; and with their printed interval 1.1x as wide, %:\n\n"
             "| shape | target | max_steps | true half-widths at max_steps | stopped on target | printed half-width | "
             "coverage | coverage, 1.1x |\n|---|---|---|---|---|---|---|---|\n",
             trials);
  for_each_stop_cell([&](const char* label, const Generator& g, const StopSettings& m) {
    std::mt19937_64 rng(seed++);
    const double truth = g.true_mean();
    std::vector<double> full_means, full_medians, halfwidths;
    int hits = 0, wide_hits = 0;
    for (int t = 0; t < trials; ++t) {
      const std::vector<double> steps = g.draw(static_cast<size_t>(m.max_steps), rng);
      full_means.push_back(mean(steps));
      full_medians.push_back(median(steps));
      size_t used = 0;
      StopReason reason = StopReason::other;
      const StepTimeEstimate e = measure_like_pperf(steps, m, used, &reason);
      if (reason != StopReason::target_rel_ci || !e.mean_ci95_ms) continue;
      const auto [lo, hi] = *e.mean_ci95_ms;
      halfwidths.push_back((hi - lo) / 2 / e.mean_ms * 100);
      hits += lo <= truth && truth <= hi;
      wide_hits += e.mean_ms - (e.mean_ms - lo) * 1.1 <= truth && truth <= e.mean_ms + (hi - e.mean_ms) * 1.1;
    }
    const int stopped = static_cast<int>(halfwidths.size());
    auto share = [&](int count) { return stopped ? fmt::format("{:.1f}", pct(count, stopped)) : std::string("—"); };
    fmt::print("| {} | {:g} % | {} | {:.2f} / {:.2f} | {:.1f} | {} | {} | {} |\n", label, m.target_rel_ci * 100,
               m.max_steps, 1.96 * stdev(full_means) / truth * 100, 1.96 * stdev(full_medians) / g.true_median() * 100,
               pct(stopped, trials), stopped ? fmt::format("{:.2f}", median(halfwidths)) : std::string("—"), share(hits),
               share(wide_hits));
  });
}

/// The mean's printed interval at fixed n (issue 60, item 7): its coverage of the true mean, and how
/// often the rule that keeps it within the steps measured bounds it: its lower end at the fastest
/// step, its upper end at the slowest (without the rule those ends reached beyond every step, the
/// lower one towards and below zero).
void mean_interval_table(int trials, uint64_t& seed) {
  fmt::print("\nThe mean's 95 % interval (mean_ci95) at fixed n, {} trials a cell: coverage of the true mean, % / "
             "intervals whose lower end is the fastest step measured, % / whose upper end is the slowest, %:\n\n"
             "| shape |",
             trials);
  const std::vector<size_t> ns = {kMinCiSteps, 100, 200, 400};
  for (size_t n : ns) fmt::print(" n={} |", n);
  fmt::print("\n|---|---|---|---|---|\n");
  for (const auto& [label, g] : kShapeRows) {
    fmt::print("| {} |", label);
    for (size_t n : ns) {
      std::mt19937_64 rng(seed++);
      int intervals = 0, hits = 0, at_fastest = 0, at_slowest = 0;
      for (int i = 0; i < trials; ++i) {
        const std::vector<double> steps = g.draw(n, rng);
        const StepTimeEstimate e = step_time_estimate(steps);
        if (!e.mean_ci95_ms) continue;
        const auto [lo, hi] = *e.mean_ci95_ms;
        const auto [fastest, slowest] = std::minmax_element(steps.begin(), steps.end());
        ++intervals;
        hits += lo <= g.true_mean() && g.true_mean() <= hi;
        at_fastest += lo == *fastest;
        at_slowest += hi == *slowest;
      }
      fmt::print(" {:.1f} / {:.1f} / {:.1f} |", pct(hits, intervals), pct(at_fastest, intervals), pct(at_slowest, intervals));
    }
    fmt::print("\n");
  }
}

/// The rounds-to-decide prediction of an undecided run at the default budget (20 rounds): the
/// run goes on (up to 1000 rounds) and the share decided by the predicted median and within the
/// predicted 80 % range is counted.
void predict_table(int trials, uint64_t& seed) {
  fmt::print("\nRounds-to-decide prediction, made after 20 rounds (the default budget) for runs still undecided, then "
             "checked by going on (up to 1000 rounds), {} trials a cell: share of undecided runs, and of those the share "
             "decided by the predicted median (goal 50 %) and within the predicted 80 % range (goal 80 %), in %:\n\n"
             "| case | undecided at 20 | decided by the median | within the 80 % range |\n|---|---|---|---|\n",
             trials);
  struct Case {
    const char* label;
    Generator g;
    double speed, price;
  };
  const std::vector<Case> cases = {{"2 % faster, 5% of steps 3x slower", {Shape::outliers_5pct_3x}, 0.98, 1},
                                   {"5 % faster, 5% of steps 3x slower", {Shape::outliers_5pct_3x}, 0.95, 1},
                                   {"3 % faster, lognormal s=0.3", {Shape::lognormal_03}, 0.97, 1},
                                   {"5 % faster, bimodal", {Shape::bimodal}, 0.95, 1},
                                   {"1 % faster, lognormal s=0.05", {Shape::lognormal_005}, 0.99, 1},
                                   {"A/A, lognormal s=0.3", {Shape::lognormal_03}, 1, 1}};
  constexpr size_t kAt = 20, kCap = 1000, kRound = 10, kUntimed = 3;
  int all_undecided = 0, all_by_median = 0, all_in_range = 0;
  for (const Case& c : cases) {
    std::mt19937_64 rng(seed++);
    int undecided = 0, by_median = 0, in_range = 0;
    for (int t = 0; t < trials; ++t) {
      Generator cand = c.g;
      cand.scale *= c.speed;
      RoundSteps a{{}, kRound}, b{{}, kRound};
      std::optional<RoundsToDecide> predicted;
      size_t decided_at = 0;
      // Each side's steps drawn a round at a time (AR state not carried: these shapes are independent).
      for (size_t r = 1; r <= kCap; ++r) {
        for (int side = 0; side < 2; ++side) {
          const std::vector<double> steps = (side ? cand : c.g).draw(kRound + kUntimed, rng);
          (side ? b : a).step_ms.insert((side ? b : a).step_ms.end(), steps.begin() + kUntimed, steps.end());
        }
        if (r < DecisionSettings{}.min_rounds) continue;
        const Decision d = decide_interleaved(a, b, c.price, DecisionSettings{});
        if (d.verdict != CostVerdict::undecided) {
          decided_at = r;
          break;
        }
        if (r == kAt) {
          predicted = rounds_to_decide(a, b, PriceRatio{c.price, c.price}, DecisionSettings{});
          if (!predicted) break;
        }
      }
      if (!predicted) continue;
      ++undecided;
      const double at = decided_at ? static_cast<double>(decided_at) : std::numeric_limits<double>::infinity();
      by_median += at <= predicted->median;
      in_range += at >= predicted->low && at <= predicted->high;
    }
    fmt::print("| {} | {:.1f} | {:.1f} | {:.1f} |\n", c.label, pct(undecided, trials), pct(by_median, undecided),
               pct(in_range, undecided));
    all_undecided += undecided, all_by_median += by_median, all_in_range += in_range;
  }
  // Calibration over the mix (issue 40 item 5): the six cases in equal numbers of trials, every
  // prediction counted once.
  fmt::print("| the mix of the {} cases | {:.1f} | {:.1f} | {:.1f} |\n", cases.size(),
             pct(all_undecided, trials * static_cast<int>(cases.size())), pct(all_by_median, all_undecided),
             pct(all_in_range, all_undecided));
}

/// The cost of deciding: rounds the sequential decision needs (median, up to 1000 rounds) against
/// a fixed-sample paired t test with the same error rates (alpha 5 % two-sided, the sequential
/// test's power), for 2/5/10/20 % faster candidates at equal prices.
void cost_table(int trials, size_t min_rounds, uint64_t& seed, size_t max_rounds = 1000) {
  fmt::print("\nCost of deciding (first look at {} rounds, equal prices, no drift, up to {} rounds{}), {} trials a cell: "
             "the sequential test's median rounds to a `cheaper` verdict (and its 10th-90th percentiles), the share "
             "decided cheaper, the fixed-sample rounds with the same alpha and power (z: the rounds' variance known; t: "
             "estimated from the rounds, as the sequential test must, the paired t test's exact power), and the ratios of "
             "the medians to each:\n\n"
             "| shape | faster | median rounds (10-90 %) | cheaper | fixed-sample rounds, z / t | ratio, z / t |\n|---|---|---|---|---|---|\n",
             min_rounds, max_rounds, g_horizon ? ", the decision told the budget" : "", trials);
  std::vector<double> ratios, ratios_t;
  for (const auto& [label, g] : kShapeRows) {
    if (g.rho > 0) continue;
    for (double faster : {0.02, 0.05, 0.10, 0.20}) {
      TurnsSetup s;
      s.base = g;
      s.speed = {1, 1 - faster};
      s.max_rounds = max_rounds;
      s.horizon = g_horizon;
      s.settings.min_rounds = min_rounds;
      // The rounds' terms' true sd, from one long A/A draw.
      std::mt19937_64 rng(seed);
      std::vector<double> a, b;
      for (int r = 0; r < 20000; ++r) {
        for (int side = 0; side < 2; ++side) {
          const std::vector<double> steps = g.draw(13, rng);
          double sum = 0;
          for (size_t j = 3; j < 13; ++j) sum += steps[j];
          (side ? b : a).push_back(sum / 10);
        }
      }
      const double ma = mean(a), mb = mean(b);
      std::vector<double> psi;
      for (size_t j = 0; j < a.size(); ++j) psi.push_back(b[j] / mb - a[j] / ma);
      const double sd = stdev(psi);
      const DecisionCell c = simulate_turns(s, trials, seed++);
      std::vector<double> rounds = c.rounds_each;
      std::sort(rounds.begin(), rounds.end());
      const double power = std::min(0.99, std::max(0.5, c.rate(c.cheaper)));
      const boost::math::normal z;
      const double n_fixed = std::pow((boost::math::quantile(z, 0.975) + boost::math::quantile(z, power)) * sd /
                                          std::abs(std::log(1 - faster)), 2);
      // The smallest n whose two-sided paired t test (alpha 5 %) has that power: noncentral t.
      double n_t = 2;
      for (;; ++n_t) {
        const double df = n_t - 1, crit = boost::math::quantile(boost::math::students_t(df), 0.975);
        const double shift = std::abs(std::log(1 - faster)) / sd * std::sqrt(n_t);
        if (boost::math::cdf(boost::math::complement(boost::math::non_central_t(df, shift), crit)) >= power) break;
      }
      const double median = rounds[rounds.size() / 2];
      fmt::print("| {} | {:g} % | {:.0f} ({:.0f}-{:.0f}) | {:.1f} % | {:.1f} / {:.0f} | {:.2f} / {:.2f} |\n", label, faster * 100,
                 median, rounds[rounds.size() / 10], rounds[rounds.size() * 9 / 10], c.rate(c.cheaper) * 100,
                 std::max(2.0, n_fixed), n_t, median / std::max(2.0, n_fixed), median / n_t);
      ratios.push_back(median / std::max(2.0, n_fixed));
      ratios_t.push_back(median / n_t);
    }
  }
  const auto median_of = [](std::vector<double> x) {
    std::sort(x.begin(), x.end());
    return (x[(x.size() - 1) / 2] + x[x.size() / 2]) / 2;
  };
  fmt::print("\nmedian ratio over the {} cells, z / t: {:.2f} / {:.2f}\n", ratios.size(), median_of(ratios), median_of(ratios_t));
}

/// horizon_scale for the default confidence and mixture: first look x budget in rounds.
void horizon_table() {
  fmt::print("\nhorizon_scale (confidence 95 %, mixture tuned for 30 rounds): the factor on the sequence's width when "
             "the budget in rounds is known:\n\n| first look | 10 | 20 | 60 | 200 | 1000 | 2000 |\n|---|---|---|---|---|---|---|\n");
  for (size_t m : {2, 3, 5, 8}) {
    fmt::print("| {} |", m);
    for (size_t h : {10, 20, 60, 200, 1000, 2000}) {
      DecisionSettings s;
      s.min_rounds = m;
      s.horizon_rounds = h;
      fmt::print(" {:.4f} |", horizon_scale(s));
    }
    fmt::print("\n");
  }
}

/// A/A false decisions (cheaper + dearer) / equivalent / undecided, in %, and mean rounds.
void aa_table(int trials, size_t max_rounds, uint64_t& seed, size_t min_rounds = DecisionSettings{}.min_rounds) {
  fmt::print("\nA/A in turns (identical configurations, equal prices; {} rounds at most), {} trials a cell: cheaper + dearer "
             "(false decisions) / equivalent / undecided, in %, and mean rounds:\n\n| shape |",
             max_rounds, trials);
  for (Drift d : kDrifts) fmt::print(" {} |", name(d));
  fmt::print("\n|---|---|---|---|---|\n");
  for (const auto& [label, g] : kShapeRows) {
    fmt::print("| {} |", label);
    for (Drift d : kDrifts) {
      TurnsSetup s;
      s.base = g;
      s.drift = d;
      s.max_rounds = max_rounds;
      s.horizon = g_horizon;
      s.settings.min_rounds = min_rounds;
      const DecisionCell c = simulate_turns(s, trials, seed++);
      fmt::print(" {:.1f} / {:.1f} / {:.1f}, {:.0f} |", c.rate(c.cheaper + c.dearer) * 100, c.rate(c.equivalent) * 100,
                 c.rate(c.undecided) * 100, c.rounds);
    }
    fmt::print("\n");
  }
}

/// Issue 46: un-timed steps after each switch, prefetch_batches + 1 = 5 (before) against 1 (a
/// held pipeline): A/A false decisions and, for a 5.5 % cheaper candidate, the share decided
/// cheaper and the printed interval's coverage. The host's drift spans each run's longest
/// length, so with fewer un-timed steps the same drift comes in fewer steps (harsher for 1).
void untimed_table(int trials, uint64_t& seed) {
  fmt::print("\nUn-timed steps after a switch, 5 (before) / 1 (now), 20 rounds at most, {} trials a cell: A/A false decisions "
             "(cheaper + dearer) %; 5.5 % cheaper: decided cheaper %, interval coverage %:\n\n| shape | figure |",
             trials);
  for (Drift d : kDrifts) fmt::print(" {} |", name(d));
  fmt::print("\n|---|---|---|---|---|---|\n");
  for (const auto& [label, g] : kShapeRows) {
    std::vector<std::pair<DecisionCell, DecisionCell>> aa, effect;
    for (Drift d : kDrifts)
      for (int cheaper = 0; cheaper < 2; ++cheaper) {
        DecisionCell cells[2];
        for (int now = 0; now < 2; ++now) {
          TurnsSetup s;
          s.base = g;
          s.speed = {1, cheaper ? 0.9 : 1.0};
          s.price_ratio = {1, cheaper ? 1.05 : 1.0};
          s.drift = d;
          s.max_rounds = 20;
          s.untimed = now ? 1 : 5;
          cells[now] = simulate_turns(s, trials, seed);
        }
        ++seed;
        (cheaper ? effect : aa).push_back({cells[0], cells[1]});
      }
    fmt::print("| {} | A/A false decisions |", label);
    for (const auto& [b, n] : aa) fmt::print(" {:.1f} / {:.1f} |", b.rate(b.cheaper + b.dearer) * 100, n.rate(n.cheaper + n.dearer) * 100);
    fmt::print("\n| {} | 5.5 % cheaper: decided cheaper |", label);
    for (const auto& [b, n] : effect) fmt::print(" {:.1f} / {:.1f} |", b.rate(b.cheaper) * 100, n.rate(n.cheaper) * 100);
    fmt::print("\n| {} | 5.5 % cheaper: coverage |", label);
    for (const auto& [b, n] : effect)
      fmt::print(" {:.1f} / {:.1f} |", pct(b.anytime_hits, b.intervals), pct(n.anytime_hits, n.intervals));
    fmt::print("\n");
  }
}

/// Three or four identical configurations with a carry-over effect of the order itself.
void order_table(int trials, uint64_t& seed) {
  fmt::print("\nOrder of turns with a carry-over effect, identical configurations (lognormal s=0.05, no drift, 60 rounds at "
             "most), {} trials a cell: each candidate's false decisions against configuration A (cheaper + dearer), in %, "
             "before (A B C, C B A, ...) / now (Williams design):\n\n"
             "| configurations | carry-over | B vs A | C vs A | D vs A |\n|---|---|---|---|---|\n",
             trials);
  for (size_t k : {3, 4})
    for (int model = 0; model < 2; ++model) {
      CarryOver carry;
      (model == 0 ? carry.back_to_back : carry.first_in_round) = model == 0 ? 0.98 : 1.02;
      fmt::print("| {} | {} |", k, model == 0 ? "2 % faster back to back" : "2 % slower first in a round");
      for (size_t cand = 1; cand < 4; ++cand) {
        if (cand >= k) {
          fmt::print(" — |");
          continue;
        }
        double rate[2];
        for (int o = 0; o < 2; ++o) {
          TurnsSetup s;
          s.base = {Shape::lognormal_005};
          s.speed.assign(k, 1);
          s.price_ratio.assign(k, 1);
          s.order = o == 0 ? Order::reversing : Order::balanced;
          s.carry = carry;
          s.candidate = cand;
          const DecisionCell c = simulate_turns(s, trials, seed++);
          rate[o] = c.rate(c.cheaper + c.dearer) * 100;
        }
        fmt::print(" {:.1f} / {:.1f} |", rate[0], rate[1]);
      }
      fmt::print("\n");
    }
}

/// `pperf compare`'s calls against its 5 % threshold: before (point estimate beyond it, p <
/// 0.05) and now (the 95 % interval beyond it, p < 0.05).
void compare_table(int trials, uint64_t& seed) {
  fmt::print("\n`pperf compare` against a 5 % threshold, one run a side, {} trials a cell: share called regressed (true "
             "change > 0) or improved (< 0), in %, before (point estimate beyond 5 %, p < 0.05) / now (the 95 % interval "
             "beyond 5 %, p < 0.05). Run-to-run: each run's level drawn with that sd of log.\n\n"
             "| shape | steps a run | run-to-run | -10 % | -3 % | 0 | +3 % | +7.5 % | +10 % |\n|---|---|---|---|---|---|---|---|---|\n",
             trials);
  for (const auto& [label, g] : kShapeRows)
    for (size_t n : {kMinCiSteps, size_t{200}})
      for (double run_sd : {0.0, 0.03}) {
        fmt::print("| {} | {} | {:g} % |", label, n, run_sd * 100);
        for (double change : {-0.10, -0.03, 0.0, 0.03, 0.075, 0.10}) {
          std::mt19937_64 rng(seed++);
          std::normal_distribution<double> z(0, 1);
          auto run = [&](double factor) {
            std::vector<double> steps = g.draw(n, rng);
            const double level = factor * std::exp(run_sd * z(rng));
            for (double& x : steps) x *= level;
            return steps;
          };
          int before = 0, now = 0;
          for (int t = 0; t < trials; ++t) {
            const std::vector<double> b = run(1), c = run(1 + change);
            const auto m = welch_mean_change(b, c);
            if (!m || m->p_value >= 0.05) continue;
            const bool up = change >= 0;  // the direction counted; for 0 both
            const double est = m->estimate * 100;
            const ThresholdSide side = threshold_side({m->ci[0] * 100, m->ci[1] * 100}, 5);
            if (change == 0) {
              before += std::abs(est) > 5, now += side != ThresholdSide::within;
            } else {
              before += up ? est > 5 : est < -5;
              now += side == (up ? ThresholdSide::above : ThresholdSide::below);
            }
          }
          fmt::print(" {:.1f} / {:.1f} |", pct(before, trials), pct(now, trials));
        }
        fmt::print("\n");
      }
}
}  // namespace

/// `pperf decide`'s decisions (issue 60 item 5, issue 68 items 2, 3, 5): A/A false decisions
/// (cheaper or dearer) and the improvement interval's coverage where the truth is 5.5 % cheaper
/// (10 % faster at a 5 % higher price), by the between-host spread: 2-5 hosts a side at 200 and at
/// 60 steps a host; then one host a side: the spread ignored, the stated prior
/// (kPriorBetweenHostCv), and the spread from 3, 5 or 10 other hosts of each type (the history).
void hosts_table(int trials, uint64_t& seed) {
  const std::vector<std::pair<const char*, Generator>> shapes = {
      {"lognormal s=0.05", {Shape::lognormal_005}}, {"lognormal s=0.3", {Shape::lognormal_03}},
      {"5% outliers at 3x", {Shape::outliers_5pct_3x}}, {"bimodal 25% at 1.7x", {Shape::bimodal}},
      {"AR(1) r=0.8", {Shape::lognormal_005, 100, 0.8}}};
  const auto cell = [&](const SeparateSetup& aa) {
    fmt::print("{}", hosts_cell(aa, trials, seed));
    seed += 2;
  };
  for (size_t steps : {200, 60}) {
    fmt::print("\nConfigurations measured apart (`pperf decide`), {} steps a host, {} trials a cell: A/A false decisions / "
               "coverage of the improvement interval where the truth is 5.5 % cheaper (10 % faster at a 5 % higher "
               "price), in %:\n\n| steps | between-host spread | 2 hosts a side | 3 | 4 | 5 |\n|---|---|---|---|---|---|\n",
               steps, trials);
    for (const auto& [label, g] : shapes)
      for (double spread : {0.0, 0.02, 0.05}) {
        fmt::print("| {} | {:g} % |", label, spread * 100);
        for (int64_t k : {2, 3, 4, 5}) {
          SeparateSetup s{g, spread, k};
          s.steps_per_host = steps;
          cell(s);
        }
        fmt::print("\n");
      }
  }
  fmt::print("\nOne host a side, 200 steps a host, {} trials a cell, the same figures: the between-host spread ignored "
             "(as before issue 68), the stated {:g} % prior added (what `decide` does with no history), and the spread "
             "from 3, 5 or 10 other hosts of each type (the history):\n\n"
             "| steps | between-host spread | ignored | {:g} % prior | history of 3 | 5 | 10 |\n|---|---|---|---|---|---|---|\n",
             trials, kPriorBetweenHostCv * 100, kPriorBetweenHostCv * 100);
  for (const auto& [label, g] : shapes)
    for (double spread : {0.0, 0.02, 0.05}) {
      fmt::print("| {} | {:g} % |", label, spread * 100);
      SeparateSetup s{g, spread, 1};
      cell(s);
      s.prior_cv = kPriorBetweenHostCv;
      cell(s);
      s.prior_cv = 0;
      for (int64_t history : {3, 5, 10}) {
        s.history_hosts = history;
        cell(s);
      }
      fmt::print("\n");
    }
}

/// Issue 68 item 4: A/A false verdicts when `decide` is run again after adding a host a side,
/// until it decides: at the first look alone / over every look, from 1 host a side (the prior)
/// or 2 up to 5 or 10 a side.
void adding_hosts_table(int trials, uint64_t& seed) {
  fmt::print("\nA/A, re-deciding after adding a host a side until decided, 200 steps a host, {} trials a cell: false "
             "verdicts (cheaper or dearer) at the first look / over every look, in %:\n\n"
             "| steps | between-host spread | 1 to 5 hosts a side | 2 to 5 | 2 to 10 |\n|---|---|---|---|---|\n",
             trials);
  const std::vector<std::pair<const char*, Generator>> shapes = {{"lognormal s=0.05", {Shape::lognormal_005}},
                                                                 {"lognormal s=0.3", {Shape::lognormal_03}},
                                                                 {"AR(1) r=0.8", {Shape::lognormal_005, 100, 0.8}}};
  for (const auto& [label, g] : shapes)
    for (double spread : {0.0, 0.02, 0.05}) {
      fmt::print("| {} | {:g} % |", label, spread * 100);
      for (const auto& [start, most] : {std::pair<int64_t, int64_t>{1, 5}, {2, 5}, {2, 10}}) {
        SeparateSetup s{g, spread, start};
        s.prior_cv = kPriorBetweenHostCv;
        fmt::print("{}", adding_hosts_cell(s, most, trials, seed++));
      }
      fmt::print("\n");
    }
}

void replicates_table(int trials, uint64_t& seed) {
  fmt::print("\nRuns in turns with a between-run spread (each run's true ratio of mean step times drawn around the "
             "truth, lognormal with that sd), 60 rounds of 10 steps a side a run, {} trials a cell: A/A false decisions "
             "of one run as printed (looking every round, stopped when decided) / the same widened as a contended run "
             "(with_contention) | A/A false decisions of the replicates pooled (each measured to its 60 rounds) / "
             "coverage of their interval where the truth is 5.5 % cheaper (10 % faster at a 5 % higher price), in %:\n\n"
             "| steps | between-run spread | replicates | one run / widened | pooled / coverage |\n|---|---|---|---|---|\n",
             trials);
  const std::vector<std::pair<const char*, Generator>> shapes = {{"lognormal s=0.05", {Shape::lognormal_005}},
                                                                 {"AR(1) r=0.8", {Shape::lognormal_005, 100, 0.8}}};
  for (const auto& [label, g] : shapes)
    for (double spread : {0.0, 0.02, 0.077})
      for (int64_t k : {2, 3, 5}) {
        ReplicatedSetup s{g, spread, k};
        fmt::print("| {} | {:g} % | {} |{}\n", label, spread * 100, k, replicates_cell(s, trials, seed));
        seed += 2;
      }
}

int main(int argc, char** argv) {
  const std::string table = argc > 1 ? argv[1] : "all";
  const int trials = argc > 2 ? std::atoi(argv[2]) : 10000;
  uint64_t seed = 40;
  g_horizon = !(argc > 3 && std::strcmp(argv[3], "nohorizon") == 0);
  const bool all = table == "all";
  if (table == "horizon") horizon_table();
  if (table == "aaarwhen") {  // the rounds at which AR(1) r=0.8 A/A runs decide falsely
    for (size_t h : {20, 60, 200}) {
      std::vector<int> hist(9, 0);
      int falses = 0;
      for (int t = 0; t < trials; ++t) {
        TurnsSetup s;
        s.base = {Shape::lognormal_005, 100, 0.8};
        s.max_rounds = h;
        const DecisionCell c = simulate_turns(s, 1, seed++);
        if (c.cheaper + c.dearer == 0) continue;
        ++falses;
        const double r = c.rounds_each[0];
        ++hist[r < 8 ? 0 : r < 10 ? 1 : r < 13 ? 2 : r < 20 ? 3 : r < 30 ? 4 : r < 60 ? 5 : r < 100 ? 6 : r < 150 ? 7 : 8];
      }
      fmt::print("{} rounds: {:.1f} % false; by stop round <8,8-9,10-12,13-19,20-29,30-59,60-99,100-149,150+:", h, pct(falses, trials));
      for (int x : hist) fmt::print(" {}", x);
      fmt::print("\n");
    }
  }
  if (table == "aawander") {  // A/A with a correlation that is not AR(1) at the step level
    for (const auto& [sd, rho] : {std::pair<double, double>{0.01, 0.5}, {0.02, 0.3}, {0.01, 0.3}})
      for (size_t h : {20, 60, 200}) {
        fmt::print("A/A, lognormal s=0.05 steps, each side's speed wandering over rounds (sd {:g}, AR(1) r={:g} over rounds) "
                   "at {} rounds, false decisions, round means only / steps:",
                   sd, rho, h);
        const uint64_t at = seed++;
        for (bool steps : {false, true}) {
          TurnsSetup s;
          s.base = {Shape::lognormal_005};
          s.wander_sd = sd, s.wander_rho = rho;
          s.max_rounds = h;
          s.horizon = g_horizon;
          s.steps = steps;
          const DecisionCell c = simulate_turns(s, trials, at);
          fmt::print(" {:.1f} %", c.rate(c.cheaper + c.dearer) * 100);
        }
        fmt::print("\n");
      }
  }
  if (table == "aaar") {
    for (size_t h : {20, 60, 200}) {
      fmt::print("AR(1) r=0.8 A/A at {} rounds:", h);
      for (Drift d : {Drift::none, Drift::random_walk}) {
        TurnsSetup s;
        s.base = {Shape::lognormal_005, 100, 0.8};
        s.drift = d;
        s.max_rounds = h;
        s.horizon = g_horizon;
        const DecisionCell c = simulate_turns(s, trials, seed++);
        fmt::print(" {:.1f} %", c.rate(c.cheaper + c.dearer) * 100);
      }
      fmt::print("\n");
    }
  }
  if (all || table == "interval") interval_table(trials, 20, seed), interval_table(trials, 60, seed);
  if (all || table == "aa") aa_table(trials, 20, seed), aa_table(trials, 60, seed);
  if (all || table == "aa200") {
    fmt::print("\nAR(1) r=0.8 at 200 rounds:\n");
    for (Drift d : kDrifts) {
      TurnsSetup s;
      s.base = {Shape::lognormal_005, 100, 0.8};
      s.drift = d;
      s.max_rounds = 200;
      s.horizon = g_horizon;
      const DecisionCell c = simulate_turns(s, trials, seed++);
      fmt::print("| {} | {:.1f} / {:.1f} / {:.1f}, {:.0f} |\n", name(d), c.rate(c.cheaper + c.dearer) * 100,
                 c.rate(c.equivalent) * 100, c.rate(c.undecided) * 100, c.rounds);
    }
  }
  if (all || table == "order") order_table(trials, seed);
  if (all || table == "stop") stop_table(trials, seed);
  if (table == "stopedge") stop_edge_table(trials, seed);
  if (all || table == "predict") predict_table(trials, seed);
  if (all || table == "cost") cost_table(trials, 8, seed);
  if (table == "cost3") cost_table(trials, 3, seed);
  if (table == "cost20") cost_table(trials, 8, seed, 20);
  if (table == "cost20_3") cost_table(trials, 3, seed, 20);
  if (table == "cost200") cost_table(trials, 8, seed, 200);
  if (table == "cost200_3") cost_table(trials, 3, seed, 200);
  if (table == "aa3") aa_table(trials, 20, seed, 3);
  if (table == "aa200all") aa_table(trials, 200, seed);
  if (all || table == "compare") compare_table(trials, seed);
  if (all || table == "untimed") untimed_table(trials, seed);
  if (all || table == "hosts") hosts_table(trials, seed);
  if (all || table == "hostsadd") adding_hosts_table(trials, seed);
  if (all || table == "meanci") mean_interval_table(trials, seed);
  if (all || table == "replicates") replicates_table(trials, seed);
  return 0;
}
