#include <gtest/gtest.h>

#include <cmath>

#include "test_helpers.h"
#include "src/config/config.h"
#include "src/config/plan.h"
#include "src/stats/intervals.h"
#include "pricing/cost_model.h"
#include "pricing/pricing_stage.h"
#include "unit_registry.h"

using namespace pperf;

namespace {
PricedGroup group(const std::string& type, int count, double usd) {
  return PricedGroup{type, count, "dnn", Market::on_demand, usd, "on_demand"};
}
CostInput input(std::vector<PricedGroup> groups, double step_ms, double batch = 1024) {
  CostInput in;
  in.groups = std::move(groups);
  in.step = StepTimeEstimate{step_ms, std::nullopt, step_ms, std::nullopt};
  in.samples_per_step = batch;
  return in;
}
double round_to(double v, int digits) { return std::round(v * std::pow(10, digits)) / std::pow(10, digits); }

std::vector<Result> priced(const std::string& config_file) {
  Config config = load_config(pperf::testing::source_dir() + "/configs/" + config_file, pperf::testing::fixture_workloads());
  std::vector<Result> results = given_results(make_plan(config, {}, HostCapacity{2}));
  price_results(results, pricing_inputs(config));
  return results;
}
}  // namespace

TEST(CostModel, UsdPerHourSumsGroupsAndAppliesDiscount) {
  CostInput in = input({group("ml.p4d.24xlarge", 1, 37.688), group("ml.c5.18xlarge", 2, 3.672)}, 86);
  EXPECT_DOUBLE_EQ(price(in).usd_per_hour, 45.032);
  in.discount_pct = 25;
  EXPECT_DOUBLE_EQ(price(in).usd_per_hour, 45.032 * 0.75);
}

TEST(CostModel, PerStepPerSampleAndInverse) {
  CostInput in = input({group("x", 1, 36.0)}, 100, 50);  // 36 $/h = 0.01 $/s
  Cost c = price(in);
  EXPECT_DOUBLE_EQ(c.usd_per_step, 0.001);
  EXPECT_DOUBLE_EQ(c.usd_per_1m_samples, 0.001 / 50 * 1e6);
  EXPECT_DOUBLE_EQ(c.samples_per_usd, 50 / 0.001);
  EXPECT_FALSE(c.usd_per_1m_samples_ci95) << "no step interval, none per 1M samples";
  in.step.mean_ci95_ms = std::array<double, 2>{90, 120};  // $ 0.0009 .. 0.0012 per step of 50 samples
  c = price(in);
  ASSERT_TRUE(c.usd_per_1m_samples_ci95);
  EXPECT_DOUBLE_EQ((*c.usd_per_1m_samples_ci95)[0], 18.0);
  EXPECT_DOUBLE_EQ((*c.usd_per_1m_samples_ci95)[1], 24.0);
}

TEST(CostModel, PricesTheMeanAndItsCiNotTheMedian) {
  CostInput in = input({group("x", 1, 36.0)}, 100);
  in.step.median_ms = 80;  // a skewed step: typical 80 ms, billed 100 ms on average
  in.step.ci95_ms = std::array<double, 2>{75, 85};
  in.step.mean_ci95_ms = std::array<double, 2>{90, 120};
  Cost c = price(in);
  EXPECT_DOUBLE_EQ(c.usd_per_step, 0.001);
  EXPECT_DOUBLE_EQ((*c.usd_per_step_ci95)[0], 0.0009);
  EXPECT_DOUBLE_EQ((*c.usd_per_step_ci95)[1], 0.0012);
  in.step.mean_ci95_ms.reset();
  EXPECT_FALSE(price(in).usd_per_step_ci95) << "no interval for a given step time";
}

TEST(CostModel, ImprovementIsOnMeansWithTheTwoMeansIntervalsCombined) {
  std::vector<double> base_samples, samples;
  for (int i = 0; i < 60; ++i) {
    base_samples.push_back(200 + (i % 5) * 4.0);  // mean 208
    samples.push_back(100 + (i % 4) * 2.0);       // mean 103
  }
  CostInput base_in = input({group("x", 1, 36.0)}, 0), in = input({group("x", 1, 36.0)}, 0);
  base_in.step = step_time_estimate(base_samples);
  in.step = step_time_estimate(samples);
  Cost base = price(base_in), cost = price(in);
  Comparison c = compare({cost, in.step, &samples}, {base, base_in.step, &base_samples}, false);
  EXPECT_NEAR(*c.improvement_pct, (1 - 103.0 / 208) * 100, 1e-9);
  EXPECT_NEAR(c.speedup.value(), 208.0 / 103, 1e-12);
  ASSERT_TRUE(c.improvement_pct_ci95 && c.speedup_ci95);
  EXPECT_LT((*c.improvement_pct_ci95)[0], *c.improvement_pct);
  EXPECT_GT((*c.improvement_pct_ci95)[1], *c.improvement_pct);
  EXPECT_LT((*c.speedup_ci95)[0], *c.speedup);
  EXPECT_GT((*c.speedup_ci95)[1], *c.speedup);
  // MOVER on the log scale: each end combines the candidate's and the baseline's opposite
  // half-widths of their means' intervals.
  const auto& mc = *in.step.mean_ci95_ms;
  const auto& mb = *base_in.step.mean_ci95_ms;
  const double ratio = 103.0 / 208;
  const double hi = ratio * std::exp(std::hypot(std::log(mc[1] / 103), std::log(208 / mb[0])));
  const double lo = ratio * std::exp(-std::hypot(std::log(103 / mc[0]), std::log(mb[1] / 208)));
  EXPECT_NEAR((*c.improvement_pct_ci95)[0], (1 - hi) * 100, 1e-9);
  EXPECT_NEAR((*c.improvement_pct_ci95)[1], (1 - lo) * 100, 1e-9);
  EXPECT_NEAR((*c.speedup_ci95)[0], 1 / hi, 1e-12);
  // Given step times: point estimates, no interval.
  StepTimeEstimate given_step = in.step, given_base = base_in.step;
  given_step.mean_ci95_ms.reset();
  given_base.mean_ci95_ms.reset();
  Comparison given = compare({cost, given_step, nullptr}, {base, given_base, nullptr}, false);
  EXPECT_TRUE(given.improvement_pct);
  EXPECT_FALSE(given.improvement_pct_ci95);
  EXPECT_FALSE(given.speedup_ci95);
  Comparison self = compare({base, base_in.step, &base_samples}, {base, base_in.step, &base_samples}, true);
  EXPECT_FALSE(self.improvement_pct);
  EXPECT_DOUBLE_EQ(self.speedup.value(), 1.0);
}

TEST(CostModel, ToTrainFromStepsOrFromBillableSeconds) {
  CostInput in = input({group("x", 1, 10.0)}, 360);
  in.steps_to_train = 1000;  // 1000 x 0.36 s = 0.1 h
  Cost c = price(in);
  EXPECT_DOUBLE_EQ(c.to_train->hours, 0.1);
  EXPECT_DOUBLE_EQ(c.to_train->usd, 1.0);
  in.billable_seconds = 7200;
  c = price(in);
  EXPECT_DOUBLE_EQ(c.to_train->hours, 2.0);
  EXPECT_DOUBLE_EQ(c.to_train->usd, 20.0);
}

TEST(SeedTables, Seed000Example1ResNet50) {
  auto r = priced("seed000_ex1_resnet50_cost.json");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_DOUBLE_EQ(r[0].cost->usd_per_hour, 37.688);
  EXPECT_DOUBLE_EQ(r[1].cost->usd_per_hour, 45.032);
  EXPECT_DOUBLE_EQ(round_to(r[0].cost->usd_per_step * 100, 4), 0.2010);
  EXPECT_DOUBLE_EQ(round_to(r[1].cost->usd_per_step * 100, 4), 0.1076);
  EXPECT_NEAR(*r[1].comparison.improvement_pct, 46.48, 0.005);
  EXPECT_EQ(static_cast<int>(*r[1].comparison.improvement_pct), 46);
  EXPECT_NEAR(r[1].comparison.speedup.value(), 192.0 / 86, 1e-12);
}

TEST(SeedTables, Seed000Example2Mnist) {
  auto r = priced("seed000_ex2_mnist_cost.json");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_DOUBLE_EQ(r[1].cost->usd_per_hour, 5.661);
  EXPECT_DOUBLE_EQ(round_to(r[0].cost->usd_per_step * 100, 3), 0.127);
  EXPECT_DOUBLE_EQ(round_to(r[1].cost->usd_per_step * 100, 3), 0.029);
  EXPECT_EQ(static_cast<int>(*r[1].comparison.improvement_pct), 77);
}

TEST(SeedTables, Seed004BertCostToTrain) {
  auto r = priced("seed004_bert_trn1_vs_p4d_cost.json");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_DOUBLE_EQ(round_to(r[0].cost->to_train->usd, 1), 68.6);
  EXPECT_DOUBLE_EQ(round_to(r[1].cost->to_train->usd, 1), 41.4);
  EXPECT_DOUBLE_EQ(r[1].cost->to_train->hours, 6033.0 / 3600);
  EXPECT_NEAR(r[1].comparison.speedup.value(), 6.64 / 5.44, 1e-6);
}
