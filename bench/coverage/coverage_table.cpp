// The coverage table of docs/statistics.md: simulated coverage of every interval pperf prints,
// over the audit's four step-time shapes, n = 6..400 and with the stop rules.
//   build/pperf_coverage_table [trials]      (default 10000; ~minutes on 2 cores)
#include <fmt/format.h>

#include <cstdlib>

#include "coverage_sim.h"

using namespace pperf;
using namespace pperf::coverage;

int main(int argc, char** argv) {
  const int trials = argc > 1 ? std::atoi(argv[1]) : 10000;
  fmt::print("Bill (mean) vs median, per shape:\n");
  for (Shape s : kShapes) {
    const Generator g{s};
    fmt::print("  {}: median {:.2f} ms, mean {:.2f} ms: the bill is {:.1f} % above the median's price\n", name(s),
               g.true_median(), g.true_mean(), (g.true_mean() / g.true_median() - 1) * 100);
  }
  fmt::print("\nBefore: how often the printed cost CI (the median's CI x price) contained the billed value, in %\n");
  {
    uint64_t before_seed = 1000;
    fmt::print("| shape | n=3 | n=10 | n=40 | n=200 |\n|---|---|---|---|---|\n");
    for (Shape s : kShapes) {
      fmt::print("| {} |", name(s));
      for (size_t n : {3, 10, 40, 200}) fmt::print(" {:.1f} |", simulate({s}, n, trials, before_seed++).before_coverage() * 100);
      fmt::print("\n");
    }
  }
  fmt::print("\nAfter: {} trials per cell; coverage of the median's CI / the mean's CI (cost's), in %\n", trials);
  const std::vector<size_t> ns = {6, 10, 20, 40, 100, 200, 400};
  fmt::print("(the median's interval is exact-binomial, so at least 95 %: at n =");
  for (size_t n : ns) fmt::print(" {}: {:.1f} %", n, median_exact_level(n, 0.95) * 100);
  fmt::print(")\n\n");
  fmt::print("| shape |");
  for (size_t n : ns) fmt::print(" n={} |", n);
  fmt::print("\n|---|");
  for (size_t i = 0; i < ns.size(); ++i) fmt::print("---|");
  fmt::print("\n");
  uint64_t seed = 1;
  for (Shape s : kShapes) {
    fmt::print("| {} |", name(s));
    for (size_t n : ns) {
      const Cell c = simulate({s}, n, trials, seed++);
      fmt::print(" {:.1f} / {:.1f} |", c.median_coverage() * 100, c.mean_coverage() * 100);
    }
    fmt::print("\n");
  }
  fmt::print("\nWith lag-1 correlation 0.5 of log step times (lognormal s=0.05):\n");
  for (size_t n : ns) {
    const Cell c = simulate({Shape::lognormal_005, 100, 0.5}, n, trials, seed++);
    fmt::print("n={}: {:.1f} / {:.1f}\n", n, c.median_coverage() * 100, c.mean_coverage() * 100);
  }
  fmt::print("\nWith the stop rules (min_steps 10, target_rel_ci, max_steps 40 and 400):\n");
  fmt::print("| shape | target | max_steps | mean n | median CI | mean CI |\n|---|---|---|---|---|---|\n");
  for (Shape s : kShapes) {
    const double target = s == Shape::lognormal_005 ? 0.01 : 0.05;
    for (int64_t max_steps : {40, 400}) {
      MeasureSettings m;
      m.min_steps = 10;
      m.max_steps = max_steps;
      m.max_seconds = 1e9;
      m.target_rel_ci = target;
      const Cell c = simulate({s}, 0, trials, seed++, &m);
      fmt::print("| {} | {:.0f} % | {} | {:.0f} | {:.1f} | {:.1f} |\n", name(s), target * 100, max_steps, c.steps,
                 c.median_coverage() * 100, c.mean_coverage() * 100);
    }
  }
  fmt::print("\nimprovement_pct_ci95 (bootstrap of the ratio of means), baseline lognormal s=0.05 at 100 ms:\n");
  const int cmp_trials = std::max(1, trials / 10);
  for (Shape s : kShapes)
    for (size_t n : {10, 40, 200})
      fmt::print("candidate {} at 60 ms, n={}: {:.1f} % ({} trials)\n", name(s), n,
                 improvement_coverage({Shape::lognormal_005}, {s, 60}, n, cmp_trials, seed++) * 100, cmp_trials);
}
