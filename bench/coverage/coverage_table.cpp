// The coverage and decision tables of docs/statistics.md: simulated coverage of every interval
// pperf prints and the error rates of its verdicts, over the audit's step-time shapes and host
// drifts, at fixed n and under the real stop rules; and `pperf compare`'s error rates
// (docs/compare.md).
//   build/pperf_coverage_table [trials]      (default 4000; minutes on 2 cores)
#include <fmt/format.h>

#include <cstdlib>

#include "bench/stats_sim/coverage_sim.h"

using namespace pperf;
using namespace pperf::coverage;

int main(int argc, char** argv) {
  const int trials = argc > 1 ? std::atoi(argv[1]) : 4000;
  const std::vector<std::pair<const char*, Generator>> shapes = {
      {"lognormal s=0.05", {Shape::lognormal_005}},      {"lognormal s=0.3", {Shape::lognormal_03}},
      {"5% outliers at 3x", {Shape::outliers_5pct_3x}},  {"bimodal 25% at 1.7x", {Shape::bimodal}},
      {"AR(1) r=0.5", {Shape::lognormal_005, 100, 0.5}}, {"AR(1) r=0.5 + 5% outliers", {Shape::outliers_5pct_3x, 100, 0.5}},
      {"AR(1) r=0.8", {Shape::lognormal_005, 100, 0.8}}};
  uint64_t seed = 1;
  const std::vector<size_t> ns = {kMinCiSteps, 100, 200, 400};
  fmt::print("Fixed n, {} trials per cell: median's CI / mean's CI coverage, in %\n\n| shape |", trials);
  for (size_t n : ns) fmt::print(" n={} |", n);
  fmt::print("\n|---|");
  for (size_t i = 0; i < ns.size(); ++i) fmt::print("---|");
  fmt::print("\n");
  for (const auto& [label, g] : shapes) {
    fmt::print("| {} |", label);
    for (size_t n : ns) {
      const Cell c = simulate(g, n, trials, seed++);
      fmt::print(" {:.1f} / {:.1f} |", c.median_coverage() * 100, c.mean_coverage() * 100);
    }
    fmt::print("\n");
  }
  fmt::print("\nWith the stop rule (min_steps 10, target_rel_ci as given, max_seconds out of the way), {} trials:\n\n", trials);
  fmt::print("| shape | target | max_steps | mean n | median CI | mean CI |\n|---|---|---|---|---|---|\n");
  for (const auto& [label, g] : shapes)
    for (int64_t max_steps : {100, 400}) {
      StopSettings m;
      m.min_steps = 10;
      m.max_steps = max_steps;
      m.max_seconds = 1e9;
      m.target_rel_ci = g.shape == Shape::lognormal_005 ? 0.01 : 0.05;
      const Cell c = simulate(g, 0, trials, seed++, &m);
      fmt::print("| {} | {:.0f} % | {} | {:.0f} | {:.1f} | {:.1f} |\n", label, m.target_rel_ci * 100, max_steps, c.steps,
                 c.median_coverage() * 100, c.mean_coverage() * 100);
    }
  const int cmp_trials = std::max(1, trials / 4);
  fmt::print("\nimprovement_pct_ci95, baseline lognormal s=0.05 at 100 ms, candidate at 60 ms, {} trials:\n\n", cmp_trials);
  fmt::print("| candidate | n = 60 | n = 200 |\n|---|---|---|\n");
  for (const auto& [label, g] : shapes) {
    Generator cand = g;
    cand.scale = 60;
    fmt::print("| {} | {:.1f} % | {:.1f} % |\n", label, improvement_coverage({Shape::lognormal_005}, cand, 60, cmp_trials, seed++) * 100,
               improvement_coverage({Shape::lognormal_005}, cand, 200, cmp_trials, seed++) * 100);
  }
  const int dec_trials = std::max(1, trials / 4);
  fmt::print("\nDecisions in turns (10-step rounds, 3 un-timed steps per switch, A B / B A, a look after every round, "
             "at most 60 rounds), {} trials per cell.\nA/A (identical configurations, equal prices): cheaper + dearer "
             "(false decisions) / equivalent / undecided, in %, and mean rounds:\n\n| shape |",
             dec_trials);
  for (Drift d : kDrifts) fmt::print(" {} |", name(d));
  fmt::print("\n|---|---|---|---|---|\n");
  for (const auto& [label, g] : shapes) {
    fmt::print("| {} |", label);
    for (Drift d : kDrifts) {
      const DecisionCell c = simulate_decisions(g, 1.0, 1.0, d, dec_trials, seed++);
      fmt::print(" {:.1f} / {:.1f} / {:.1f}, {:.0f} |", c.rate(c.cheaper + c.dearer) * 100, c.rate(c.equivalent) * 100,
                 c.rate(c.undecided) * 100, c.rounds);
    }
    fmt::print("\n");
  }
  fmt::print("\nPower: candidate 10 % / 3 % faster at a 5 % / equal higher price, +3 % linear drift: cheaper / dearer / "
             "equivalent / undecided, in %, and mean rounds:\n\n| shape | 10 % faster, +5 % price (5.5 % cheaper) | 3 % "
             "faster, same price |\n|---|---|---|\n");
  for (const auto& [label, g] : shapes) {
    const DecisionCell a = simulate_decisions(g, 0.9, 1.05, Drift::linear_3pct, dec_trials, seed++);
    const DecisionCell b = simulate_decisions(g, 0.97, 1.0, Drift::linear_3pct, dec_trials, seed++);
    auto cell = [](const DecisionCell& c) {
      return fmt::format("{:.1f} / {:.1f} / {:.1f} / {:.1f}, {:.0f}", c.rate(c.cheaper) * 100, c.rate(c.dearer) * 100,
                         c.rate(c.equivalent) * 100, c.rate(c.undecided) * 100, c.rounds);
    };
    fmt::print("| {} | {} | {} |\n", label, cell(a), cell(b));
  }

  fmt::print("\n`pperf compare`, {} trials per cell: share of comparisons with p < 0.05, in %. A/A: the same "
             "configuration; +10 %: the candidate 10 % slower. Run-to-run: each run's level drawn with that sd of log.\n\n"
             "| shape | steps a run | run-to-run | 1 run vs 1: A/A | +10 % | vs 3 runs: A/A | +10 % | vs 5 runs: A/A | +10 % |\n"
             "|---|---|---|---|---|---|---|---|---|\n", trials);
  for (const auto& [label, g] : shapes)
    for (size_t n : {kMinCiSteps, size_t{200}})
      for (double run_sd : {0.0, 0.03}) {
        fmt::print("| {} | {} | {:g} % |", label, n, run_sd * 100);
        for (size_t runs : {1, 3, 5})
          for (double speed : {1.0, 1.10})
            fmt::print(" {:.1f} |", compare_rejection_rate(g, n, runs, speed, run_sd, trials, seed++) * 100);
        fmt::print("\n");
      }

  // The audit's two compare cases: a bill 7.5 % higher from rare slow steps alone (5 % of steps
  // 2.5x), and a bulk 3 % faster with rare slow steps on both sides (5 % at 3x); one run a side.
  fmt::print("\nThe audit's cases, one run a side, {} trials: share called regressed (p < 0.05, change > 5 %), in %\n\n"
             "| steps a run | +7.5 % bill from slow steps | bulk 3 % faster, slow steps on both sides |\n|---|---|---|\n",
             trials);
  std::mt19937_64 rng(seed++);
  auto draw = [&](size_t n, double bulk, double slow_p, double slow_x) {
    std::normal_distribution<double> z(0, 1);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<double> v(n);
    for (auto& x : v) x = bulk * 10 * std::exp(0.05 * z(rng)) * (u(rng) < slow_p ? slow_x : 1);
    return v;
  };
  auto regressed = [](const std::optional<MeanChange>& c) { return c && c->p_value < 0.05 && c->estimate > 0.05; };
  for (size_t n : {200, 600, 1000}) {
    int tail = 0, bulk = 0;
    for (int t = 0; t < trials; ++t) {
      tail += regressed(welch_mean_change(draw(n, 1, 0, 1), draw(n, 1, 0.05, 2.5)));
      bulk += regressed(welch_mean_change(draw(n, 1, 0.05, 3), draw(n, 0.97, 0.05, 3)));
    }
    fmt::print("| {} | {:.1f} | {:.1f} |\n", n, 100.0 * tail / trials, 100.0 * bulk / trials);
  }
}
