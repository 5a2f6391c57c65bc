// Error rates and savings of racing a sweep's points (src/stats/race.h), by simulation: k points
// take turns in rounds of 10 steps drawn from the audit shapes (coverage_sim.h); after each round
// points decided dearer than the best leave; the race ends when decided or at the budget. Counts
// how often the named best is not within measure.equivalence_pct of the true best, and the steps
// measured against every point measuring every round of the budget. docs/statistics.md "Sweeps".
// usage: pperf_race_sim [TRIALS [ROUNDS]]   (default 400 per cell, a budget of 60 rounds)
#include <fmt/format.h>

#include <cstdlib>
#include <random>
#include <vector>

#include "coverage_sim.h"
#include "src/stats/race.h"

using namespace pperf;
using namespace pperf::coverage;

namespace {
/// True relative costs of k points: the best, one 1 % dearer (inside a 2 % margin), the rest
/// spread evenly from 3 % to 60 % dearer.
std::vector<double> true_costs(size_t k) {
  std::vector<double> c{1.0, 1.01};
  for (size_t i = 2; i < k; ++i) c.push_back(1.03 + 0.57 * static_cast<double>(i - 2) / static_cast<double>(k > 3 ? k - 3 : 1));
  return c;
}

struct RaceCell {
  int trials = 0, wrong = 0, decided = 0, wrong_decided = 0;
  double steps_ratio = 0;  // mean of (steps measured) / (k x max_rounds x round_steps)
};

RaceCell simulate_race(const Generator& shape, size_t k, size_t max_rounds, const DecisionSettings& settings, int trials,
                       uint64_t seed) {
  const size_t round_steps = 10;
  std::mt19937_64 rng(seed);
  const std::vector<double> cost = true_costs(k);
  RaceCell cell;
  for (int t = 0; t < trials; ++t) {
    // Shuffle which point is which, so the best is not always point 0 (ties in the estimate).
    std::vector<size_t> perm(k);
    for (size_t i = 0; i < k; ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<RacePoint> points(k);
    std::vector<std::vector<double>> steps(k);
    for (size_t i = 0; i < k; ++i) {
      Generator g = shape;
      g.scale *= cost[perm[i]];  // the cost difference as a speed difference at one price
      steps[i] = g.draw(max_rounds * round_steps, rng);
    }
    size_t measured = 0;
    RaceLook look;
    for (size_t r = 0; r < max_rounds; ++r) {
      for (size_t i = 0; i < k; ++i) {
        if (!points[i].racing) continue;
        double sum = 0;
        for (size_t j = 0; j < round_steps; ++j) sum += steps[i][r * round_steps + j];
        points[i].round_ms.push_back(sum / round_steps);
        measured += round_steps;
      }
      look = race_look(points, settings);
      for (size_t i = 0; i < k; ++i)
        if (look.verdict[i] == RaceVerdict::eliminated) points[i].racing = false;
      if (look.finished) break;
    }
    ++cell.trials;
    cell.decided += look.finished;
    const bool wrong = cost[perm[look.best]] > 1 + settings.equivalence_pct / 100;
    cell.wrong += wrong;
    cell.wrong_decided += wrong && look.finished;
    cell.steps_ratio += static_cast<double>(measured) / static_cast<double>(k * max_rounds * round_steps) / trials;
  }
  return cell;
}
}  // namespace

int main(int argc, char** argv) {
  const int trials = argc > 1 ? std::atoi(argv[1]) : 400;
  DecisionSettings settings;  // confidence 0.95, equivalence_pct 2, min_rounds 8
  const size_t max_rounds = argc > 2 ? static_cast<size_t>(std::atoi(argv[2])) : 60;
  settings.horizon_rounds = max_rounds;  // as pperf run tells the decision its budget in rounds
  struct Case {
    const char* name;
    Generator g;
  };
  const std::vector<Case> cases = {{"lognormal s=0.05", {Shape::lognormal_005}},
                                   {"5% outliers at 3x", {Shape::outliers_5pct_3x}},
                                   {"AR(1) r=0.5", {Shape::lognormal_005, 100, 0.5}}};
  fmt::print("Racing k points (true costs: best, +1 % (inside the ±{:g} % margin), the rest +3 % .. +60 %), rounds of 10 steps,\n"
             "budget {} rounds (the decision's horizon), each comparison at 1 - 0.05/(k-1); {} trials per cell.\n\n",
             settings.equivalence_pct, max_rounds, trials);
  fmt::print("| shape | k | P(named best not within ±{:g} % of the true best) | the same, races decided before the budget | decided before the budget | steps / every point to the budget |\n",
             settings.equivalence_pct);
  fmt::print("|---|---|---|---|---|---|\n");
  uint64_t seed = 43;
  for (const auto& c : cases)
    for (size_t k : {4, 8, 16}) {
      const RaceCell cell = simulate_race(c.g, k, max_rounds, settings, trials, seed++);
      fmt::print("| {} | {} | {:.1f} % | {} | {:.0f} % | {:.2f} |\n", c.name, k, 100.0 * cell.wrong / cell.trials,
                 cell.decided ? fmt::format("{:.1f} %", 100.0 * cell.wrong_decided / cell.decided) : std::string("-"),
                 100.0 * cell.decided / cell.trials, cell.steps_ratio);
    }
  return 0;
}
