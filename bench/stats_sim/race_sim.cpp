// Error rates and savings of racing a sweep's points (src/stats/race.h), by simulation: k points
// take turns in rounds of 10 steps drawn from the audit shapes (coverage_sim.h); after each round
// points decided dearer than the best leave; the race ends when decided or at the budget. Counts
// how often the named best is not within measure.equivalence_pct of the true best, and the steps
// measured against every point measuring every round of the budget (and that fixed design's own
// error, naming the lowest mean; how often the true best was eliminated). docs/statistics.md "Sweeps".
// usage: pperf_race_sim [TRIALS [ROUNDS [RULE [DESIGN]]]]   (default 400 per cell, a budget of 60 rounds)
//   RULE: margin (race_look as shipped), equivalence (the stop before: one point left or every
//   point left equivalent), stepdown (as margin, each look at alpha / (m - 1) over the m points
//   still racing), onesided (as margin, each comparison at two-sided 1 - 2 alpha / (k - 1), the
//   statement's one side at alpha / (k - 1)); stepdown and onesided are not the shipped rule,
//   simulated for docs/statistics.md
//   DESIGN: spread (the best, +1 %, then +3 % .. +60 %), tied (every point the same cost and a
//   margin of 0: how often one given point is eliminated, the elimination's family-wise error at
//   its least favourable)
#include <fmt/format.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bench/stats_sim/coverage_sim.h"
#include "src/stats/race.h"

using namespace pperf;
using namespace pperf::coverage;

namespace {
/// True relative costs of k points: the best, one 1 % dearer (inside a 2 % margin), the rest
/// spread evenly from 3 % to 60 % dearer.
enum class Rule { margin, equivalence, stepdown, onesided };
enum class Design { spread, tied };

std::vector<double> true_costs(size_t k, Design design) {
  if (design == Design::tied) return std::vector<double>(k, 1.0);
  std::vector<double> c{1.0, 1.01};
  for (size_t i = 2; i < k; ++i) c.push_back(1.03 + 0.57 * static_cast<double>(i - 2) / static_cast<double>(k > 3 ? k - 3 : 1));
  return c;
}

struct RaceCell {
  int trials = 0, wrong = 0, decided = 0, wrong_decided = 0;
  int best_out = 0;    // races in which the true best (point 0 of the design) was eliminated
  int fixed_wrong = 0;  // every point measured to the budget, the lowest mean named: not within the margin
  double steps_ratio = 0;  // mean of (steps measured) / (k x max_rounds x round_steps)
};

/// The look of `rule` over the racing points: as race_look, but for `stepdown` over the racing
/// points alone (so its level is alpha / (m - 1)) and for `equivalence` without the margin stop.
RaceLook look_by(Rule rule, const std::vector<RacePoint>& points, const DecisionSettings& settings) {
  if (rule != Rule::stepdown) {
    RaceLook look = race_look(points, settings);
    if (rule == Rule::equivalence && look.finished && look.why.rfind("the best costs at most", 0) == 0) look.finished = false;
    return look;
  }
  std::vector<RacePoint> racing;
  std::vector<size_t> index;
  for (size_t i = 0; i < points.size(); ++i)
    if (points[i].racing) racing.push_back(points[i]), index.push_back(i);
  const RaceLook sub = race_look(racing, settings);
  RaceLook look;
  look.verdict.assign(points.size(), RaceVerdict::out);
  look.best = index.empty() ? 0 : index[sub.best];
  for (size_t j = 0; j < index.size(); ++j) look.verdict[index[j]] = sub.verdict[j];
  look.finished = sub.finished;
  look.why = sub.why;
  return look;
}

RaceCell simulate_race(const Generator& shape, size_t k, size_t max_rounds, const DecisionSettings& settings, int trials,
                       uint64_t seed, Rule rule, Design design) {
  const size_t round_steps = 10;
  std::mt19937_64 rng(seed);
  const std::vector<double> cost = true_costs(k, design);
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
        points[i].steps.round_steps = static_cast<int64_t>(round_steps);
        points[i].steps.step_ms.insert(points[i].steps.step_ms.end(), steps[i].begin() + r * round_steps,
                                       steps[i].begin() + (r + 1) * round_steps);
        measured += round_steps;
      }
      look = look_by(rule, points, settings);
      for (size_t i = 0; i < k; ++i)
        if (look.verdict[i] == RaceVerdict::eliminated) points[i].racing = false;
      if (look.finished) break;
    }
    // The fixed design: every point's whole budget, the cheapest by mean named.
    size_t fixed_best = 0;
    double fixed_least = 0;
    for (size_t i = 0; i < k; ++i) {
      double sum = 0;
      for (double x : steps[i]) sum += x;
      if (i == 0 || sum < fixed_least) fixed_least = sum, fixed_best = i;
    }
    cell.fixed_wrong += cost[perm[fixed_best]] > 1 + settings.equivalence_pct / 100;
    ++cell.trials;
    for (size_t i = 0; i < k; ++i) cell.best_out += perm[i] == 0 && !points[i].racing;
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
  const std::string rule_name = argc > 3 ? argv[3] : "margin", design_name = argc > 4 ? argv[4] : "spread";
  const Rule rule = rule_name == "equivalence" ? Rule::equivalence
                    : rule_name == "stepdown"  ? Rule::stepdown
                    : rule_name == "onesided"  ? Rule::onesided
                                               : Rule::margin;
  const Design design = design_name == "tied" ? Design::tied : Design::spread;
  if ((rule == Rule::margin && rule_name != "margin") || (design == Design::spread && design_name != "spread")) {
    fmt::print(stderr, "usage: pperf_race_sim [TRIALS [ROUNDS [margin|equivalence|stepdown|onesided [spread|tied]]]]\n");
    return 2;
  }
  if (design == Design::tied) settings.equivalence_pct = 0;
  // race_look runs each comparison at 1 - (1 - confidence) / (k - 1): twice the error per comparison.
  if (rule == Rule::onesided) settings.confidence = 1 - 2 * (1 - settings.confidence);
  settings.horizon_rounds = max_rounds;  // as pperf run tells the decision its budget in rounds
  struct Case {
    const char* name;
    Generator g;
  };
  const std::vector<Case> cases = {{"lognormal s=0.05", {Shape::lognormal_005}},
                                   {"5% outliers at 3x", {Shape::outliers_5pct_3x}},
                                   {"AR(1) r=0.5", {Shape::lognormal_005, 100, 0.5}}};
  fmt::print("Racing k points ({}), rounds of 10 steps, budget {} rounds (the decision's horizon),\n"
             "each comparison at 1 - 0.05/{}; stop rule: {}; {} trials per cell.\n\n",
             design == Design::tied ? "every point the same true cost, margin 0"
                                    : fmt::format("true costs: best, +1 % (inside the ±{:g} % margin), the rest +3 % .. +60 %", settings.equivalence_pct),
             max_rounds, rule == Rule::stepdown ? "(m-1), m the points still racing" : rule == Rule::onesided ? "(k-1) on the statement's side (0.1/(k-1) two-sided)" : "(k-1)",
             rule == Rule::equivalence ? "one point left or all equivalent" : "also when the best is within the margin of every point left", trials);
  fmt::print("| shape | k | P(named best not within ±{:g} % of the true best) | the same, races decided before the budget | decided before the budget | P(true best eliminated) | steps / every point to the budget | P(not within ±{:g} %), every point to the budget |\n",
             settings.equivalence_pct, settings.equivalence_pct);
  fmt::print("|---|---|---|---|---|---|---|---|\n");
  uint64_t seed = 43;
  for (const auto& c : cases)
    for (size_t k : {4, 8, 16}) {
      const RaceCell cell = simulate_race(c.g, k, max_rounds, settings, trials, seed++, rule, design);
      fmt::print("| {} | {} | {:.1f} % | {} | {:.0f} % | {:.1f} % | {:.2f} | {:.1f} % |\n", c.name, k, 100.0 * cell.wrong / cell.trials,
                 cell.decided ? fmt::format("{:.1f} %", 100.0 * cell.wrong_decided / cell.decided) : std::string("-"),
                 100.0 * cell.decided / cell.trials, 100.0 * cell.best_out / cell.trials, cell.steps_ratio,
                 100.0 * cell.fixed_wrong / cell.trials);
    }
  return 0;
}
