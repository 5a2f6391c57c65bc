// Estimators where the two sides differ (issue 28): mean != median, asymmetric intervals, one
// side autocorrelated and the other not. Inputs with mean = median or mirror-image sides cannot
// tell a right estimator from a wrong one; these can. Expected figures by hand or by plain
// python3 (math.hypot / math.log / math.exp), as noted.
#include <gtest/gtest.h>

#include <cmath>

#include "src/stats/intervals.h"
#include "pricing/cost_model.h"

using namespace pperf;

namespace {
CostInput one_group(double usd_per_hour, StepTimeEstimate step) {
  CostInput in;
  in.groups = {PricedGroup{"x", 1, "dnn", Market::on_demand, usd_per_hour, "on_demand"}};
  in.step = step;
  in.samples_per_step = 10;
  return in;
}
StepTimeEstimate estimate(double median, double mean, std::optional<std::array<double, 2>> mean_ci) {
  return StepTimeEstimate{median, std::nullopt, mean, mean_ci};
}
/// Step times whose batches of ten drift together (blocks of 30 slow, 30 fast steps): strong
/// correlation between consecutive batch means. Mean 100 ms.
std::vector<double> drifting(size_t n) {
  std::vector<double> out;
  for (size_t i = 0; i < n; ++i) out.push_back(((i / 30) % 2 ? 110.0 : 90.0) + static_cast<double>(i % 3));
  return out;
}
/// Step times with no correlation between batches: the same values, alternating. Mean 201 ms.
std::vector<double> alternating(size_t n) {
  std::vector<double> out;
  for (size_t i = 0; i < n; ++i) out.push_back((i % 2 ? 220.0 : 180.0) + static_cast<double>(i % 3));
  return out;
}
}  // namespace

// to_train bills steps x the mean step (the median, 80 ms, would under-price a skewed step).
TEST(EstimatorAsymmetry, ToTrainIsStepsTimesTheMeanNotTheMedian) {
  CostInput in = one_group(36, estimate(80, 100, std::nullopt));
  in.steps_to_train = 1000;
  const Cost c = price(in);
  EXPECT_DOUBLE_EQ(c.to_train->hours, 1000 * 0.1 / 3600);  // 1/36 h
  EXPECT_DOUBLE_EQ(c.to_train->usd, 1.0);                    // 36 USD/h x 1/36 h
  EXPECT_DOUBLE_EQ(c.usd_per_step, 0.001);                   // 0.01 USD/s x 0.1 s
}

// MOVER with lopsided intervals: candidate 100 ms [95, 120], baseline 200 ms [180, 205]. The low
// end of the ratio takes the candidate's low half and the baseline's high half, the high end the
// reverse. python3: r = 0.5; lo = hypot(log(100/95), log(205/200)); hi = hypot(log(120/100),
// log(200/180)); 0.5 exp(-lo) = 0.47233133176634523, 0.5 exp(hi) = 0.6171940455294395.
TEST(EstimatorAsymmetry, MoverTakesEachSidesOppositeHalfWidth) {
  const std::vector<double> some = {1};  // samples present: measured sides
  const StepTimeEstimate cs = estimate(99, 100, std::array<double, 2>{95, 120});
  const StepTimeEstimate bs = estimate(198, 200, std::array<double, 2>{180, 205});
  const Cost cc = price(one_group(36, cs)), bc = price(one_group(36, bs));
  const Comparison c = compare({cc, cs, &some}, {bc, bs, &some}, false);
  ASSERT_TRUE(c.speedup_ci95 && c.improvement_pct_ci95);
  EXPECT_NEAR((*c.speedup_ci95)[0], 1.6202359812823262, 1e-12);
  EXPECT_NEAR((*c.speedup_ci95)[1], 2.1171578778404734, 1e-12);
  EXPECT_NEAR((*c.improvement_pct_ci95)[0], 38.28059544705605, 1e-10);
  EXPECT_NEAR((*c.improvement_pct_ci95)[1], 52.766866823365476, 1e-10);
  EXPECT_DOUBLE_EQ(*c.improvement_pct, 50);
  // Sides swapped: the ratio's interval is the reciprocal of the other's.
  const Comparison swapped = compare({bc, bs, &some}, {cc, cs, &some}, false);
  EXPECT_NEAR((*swapped.speedup_ci95)[0], 1 / (*c.speedup_ci95)[1], 1e-12);
  EXPECT_NEAR((*swapped.speedup_ci95)[1], 1 / (*c.speedup_ci95)[0], 1e-12);
  // The baseline itself gets a speedup of 1 and no intervals.
  const Comparison self = compare({bc, bs, &some}, {bc, bs, &some}, true);
  EXPECT_DOUBLE_EQ(*self.speedup, 1);
  EXPECT_FALSE(self.speedup_ci95);
  EXPECT_FALSE(self.improvement_pct_ci95);
  // An interval reaching 0 (no lower bound) gives no ratio interval rather than an infinite one.
  const StepTimeEstimate zero = estimate(99, 100, std::array<double, 2>{0, 120});
  const Comparison open = compare({price(one_group(36, zero)), zero, &some}, {bc, bs, &some}, false);
  EXPECT_FALSE(open.speedup_ci95);
  EXPECT_FALSE(open.improvement_pct_ci95);
}

// Spot price ranges on both sides, given times (no time interval): the improvement's low end is
// the candidate's dearest over the baseline's cheapest. Candidate 50 ms at [1, 2] USD/h, baseline
// 100 ms at [3, 5]: [(1 - 2/3 x 0.5), (1 - 1/5 x 0.5)] x 100 = [66.67, 90].
TEST(EstimatorAsymmetry, PriceRangesPairDearestWithCheapest) {
  PricedGroup cg{"x", 1, "dnn", Market::spot, 1.5, "spot_mid", std::array<double, 2>{1, 2}};
  PricedGroup bg{"y", 1, "dnn", Market::spot, 4, "spot_mid", std::array<double, 2>{3, 5}};
  CostInput ci = one_group(0, estimate(50, 50, std::nullopt)), bi = one_group(0, estimate(100, 100, std::nullopt));
  ci.groups = {cg};
  bi.groups = {bg};
  const Cost cc = price(ci), bc = price(bi);
  const Comparison c = compare({cc, ci.step, nullptr}, {bc, bi.step, nullptr}, false);
  ASSERT_TRUE(c.improvement_pct_ci95);
  EXPECT_NEAR((*c.improvement_pct_ci95)[0], (1 - 2.0 / 3 * 0.5) * 100, 1e-10);
  EXPECT_NEAR((*c.improvement_pct_ci95)[1], 90, 1e-10);
  // The cost interval of a measured step at a price range: cheapest x CI low, dearest x CI high.
  CostInput measured = one_group(0, estimate(100, 100, std::array<double, 2>{90, 120}));
  measured.groups = {PricedGroup{"x", 1, "dnn", Market::spot, 2.7, "spot_mid", std::array<double, 2>{1.8, 3.6}}};
  const Cost m = price(measured);
  EXPECT_NEAR((*m.usd_per_step_ci95)[0], 1.8 / 3.6e6 * 90, 1e-18);   // 4.5e-5
  EXPECT_NEAR((*m.usd_per_step_ci95)[1], 3.6 / 3.6e6 * 120, 1e-18);  // 1.2e-4
}

// One side autocorrelated (drifting in blocks), the other not: each side's mean interval is its
// own (batch means, widened for its own correlation), and the ratio's interval combines the two
// lopsided intervals by MOVER, end by end.
TEST(EstimatorAsymmetry, OneSideAutocorrelatedTheOtherNot) {
  const std::vector<double> cand = drifting(120), base = alternating(120);
  const StepTimeEstimate cs = step_time_estimate(cand), bs = step_time_estimate(base);
  ASSERT_TRUE(cs.mean_ci95_ms && bs.mean_ci95_ms);
  EXPECT_DOUBLE_EQ(cs.mean_ms, 101);  // 90/110 blocks + (0, 1, 2)
  EXPECT_DOUBLE_EQ(bs.mean_ms, 201);
  // The drifting side's batches (12 of 10 steps) follow the 30-step blocks: positively
  // correlated; the alternating side's batch means are nearly equal (no widening to speak of).
  const auto c_error = mean_with_error(cand), b_error = mean_with_error(base);
  ASSERT_TRUE(c_error && b_error);
  EXPECT_EQ(c_error->dof, 11);
  EXPECT_GT(c_error->se / c_error->mean, 20 * b_error->se / b_error->mean);
  const Cost cc = price(one_group(36, cs)), bc = price(one_group(36, bs));
  const Comparison c = compare({cc, cs, &cand}, {bc, bs, &base}, false);
  const auto& mc = *cs.mean_ci95_ms;
  const auto& mb = *bs.mean_ci95_ms;
  const double ratio = 101.0 / 201;
  const double lo = ratio * std::exp(-std::hypot(std::log(101 / mc[0]), std::log(mb[1] / 201)));
  const double hi = ratio * std::exp(std::hypot(std::log(mc[1] / 101), std::log(201 / mb[0])));
  EXPECT_NEAR((*c.speedup_ci95)[0], 1 / hi, 1e-12);
  EXPECT_NEAR((*c.speedup_ci95)[1], 1 / lo, 1e-12);
  EXPECT_NEAR((*c.improvement_pct_ci95)[0], (1 - hi) * 100, 1e-9);
  EXPECT_NEAR((*c.improvement_pct_ci95)[1], (1 - lo) * 100, 1e-9);
}

// The number of batches: n / 10, at least 6, at most 30 (dof = batches - 1); no interval below
// 60 steps.
TEST(EstimatorAsymmetry, BatchCountBounds) {
  EXPECT_FALSE(mean_with_error(alternating(59)));
  EXPECT_EQ(mean_with_error(alternating(60))->dof, 5);
  EXPECT_EQ(mean_with_error(alternating(299))->dof, 28);
  EXPECT_EQ(mean_with_error(alternating(300))->dof, 29);
  EXPECT_EQ(mean_with_error(alternating(400))->dof, 29);
}
