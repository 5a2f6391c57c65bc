// The pricing stage with several instance groups (issue 28): which group's interruption rate goes
// with which group, what On-Demand price a Spot group with a negotiated price is compared against,
// which baseline a candidate is matched to. Every expected figure is worked from the price and
// interruption tables by hand (aws-ec2-us-east-1: g5.2xlarge 1.212 USD/h On-Demand, c5.9xlarge
// 1.53, g5.12xlarge 5.672; aws-spot-interruptions us-east-1: g5.2xlarge "15-20%" = 17.5 %,
// c5.9xlarge "<5%" = 2.5 % of instances a month, i.e. -ln(1 - p) interruptions per instance).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "src/config/config.h"
#include "pricing/pricing_stage.h"
#include "pricing/spot_model.h"
#include "test_helpers.h"
#include "unit_registry.h"

using namespace pperf;
using nlohmann::json;

namespace {

const double kG5Rate = -std::log(1 - 0.175);  // per g5.2xlarge instance per month
const double kC5Rate = -std::log(1 - 0.025);  // per c5.9xlarge instance per month

/// A priced-only config: "od" (baseline, one g5.12xlarge On-Demand) and "spot" with `groups`.
json config_with(const json& spot_groups, const json& spot_settings = json::object()) {
  json c = json::parse(R"({
    "name": "s", "seed": 5, "steps_to_train": 100000,
    "pricing": {"table": "aws-ec2-us-east-1"},
    "workloads": [{"name": "vit_synthetic", "preset": "tiny", "batch_size": 8}],
    "configurations": [
      {"name": "od", "baseline": true, "step_time_ms": 400, "instances": [{"type": "g5.12xlarge"}]},
      {"name": "spot", "step_time_ms": 500, "instances": []}
    ]
  })");
  c["configurations"][1]["instances"] = spot_groups;
  json spot = {{"checkpoint_save_s", 10}, {"checkpoint_restore_s", 20}, {"restart_overhead_s", 300}};
  spot.update(spot_settings);
  c["configurations"][1]["spot"] = spot;
  return c;
}

Config load(const json& config_json) {
  pperf::testing::TempDir dir;
  return load_config(dir.write("c.json", config_json.dump()), pperf::testing::fixture_workloads());
}

/// A result as the measure stage leaves it: median and mean differ (a skewed step).
Result result(const std::string& configuration, bool baseline, double median_ms, double mean_ms, int64_t batch = 8,
              const std::string& preset = "tiny") {
  Result r;
  r.workload = "vit_synthetic";
  r.preset = preset;
  r.batch_size = batch;
  r.samples_per_step = batch;
  r.configuration = configuration;
  r.baseline = baseline;
  r.step = StepTimeEstimate{median_ms, std::nullopt, mean_ms, std::nullopt};
  return r;
}

/// The Spot result of `config_json` priced by the stage (mean 500 ms, median 400 ms).
Result priced_spot(const json& config_json) {
  const Config config = load(config_json);
  std::vector<Result> results = {result("od", true, 400, 400), result("spot", false, 400, 500)};
  price_results(results, pricing_inputs(config));
  return results[1];
}

/// The Spot model's estimate from inputs written out by hand: what the stage must hand it.
SpotEstimate expected_estimate(double group_rate_per_month, double spot_instances, double usd_per_hour,
                               double on_demand_usd_per_hour) {
  SpotModelInput in;
  in.step_s = 0.5;  // the mean step, not the 0.4 s median
  in.work_s = 100000 * 0.5;
  in.interruptions_per_hour = group_rate_per_month / 730;
  in.checkpoint_save_s = 10;
  in.checkpoint_restore_s = 20;
  in.restart_overhead_s = 300;
  in.usd_per_hour = usd_per_hour;
  in.on_demand_usd_per_hour = on_demand_usd_per_hour;
  in.spot_instances = spot_instances;
  in.seed = 5;
  return estimate_spot(in);
}

}  // namespace

// Two Spot groups with different table rates, in both orders: the group's rate is the sum of
// count x each type's own rate, whichever comes first.
TEST(PricingStage, TwoSpotGroupsEachWithItsOwnRateInEitherOrder) {
  const json g5 = {{"type", "g5.2xlarge"}, {"count", 2}, {"market", "spot"}};
  const json c5 = {{"type", "c5.9xlarge"}, {"count", 3}, {"market", "spot"}, {"role", "data"}};
  const double group_rate = 2 * kG5Rate + 3 * kC5Rate;  // 0.4606972... interruptions a month
  for (const json& groups : {json::array({g5, c5}), json::array({c5, g5})}) {
    const Result r = priced_spot(config_with(groups));
    ASSERT_TRUE(r.spot) << groups.dump() << (r.events.empty() ? "" : r.events[0]);
    EXPECT_NEAR(r.spot->interruptions_per_hour, group_rate / 730, 1e-15) << groups.dump();
    EXPECT_NEAR(r.spot->interruptions_per_hour, 0.46069720924778196 / 730, 1e-12);
    // On-Demand: 2 x 1.212 + 3 x 1.53 = 7.014 USD/h for the same groups.
    EXPECT_NEAR(r.spot->on_demand_usd, 100000 * 0.5 / 3600 * 7.014, 1e-9) << groups.dump();
    // The model got exactly these inputs: five Spot instances share the rate (break-even).
    const SpotEstimate e = expected_estimate(group_rate, 5, r.cost->usd_per_hour, 7.014);
    EXPECT_DOUBLE_EQ(r.spot->expected_usd, e.expected_usd);
    EXPECT_DOUBLE_EQ(r.spot->mc_mean_usd, e.mc_mean_usd);
    ASSERT_TRUE(e.break_even_interruptions_per_month);
    ASSERT_TRUE(r.spot->break_even_interruptions_per_month);
    EXPECT_DOUBLE_EQ(*r.spot->break_even_interruptions_per_month, *e.break_even_interruptions_per_month);
  }
}

// A Spot group beside an On-Demand one: only the Spot group is interrupted and counted.
TEST(PricingStage, AnOnDemandGroupBesideASpotOneIsNeverInterrupted) {
  const json spot_g5 = {{"type", "g5.2xlarge"}, {"count", 2}, {"market", "spot"}};
  const json od_c5 = {{"type", "c5.9xlarge"}, {"count", 3}, {"role", "data"}};
  for (const json& groups : {json::array({spot_g5, od_c5}), json::array({od_c5, spot_g5})}) {
    const Result r = priced_spot(config_with(groups));
    ASSERT_TRUE(r.spot) << groups.dump();
    EXPECT_NEAR(r.spot->interruptions_per_hour, 2 * kG5Rate / 730, 1e-15) << groups.dump();
    EXPECT_NEAR(r.spot->on_demand_usd, 100000 * 0.5 / 3600 * 7.014, 1e-9);
    const SpotEstimate e = expected_estimate(2 * kG5Rate, 2, r.cost->usd_per_hour, 7.014);
    EXPECT_DOUBLE_EQ(*r.spot->break_even_interruptions_per_month, *e.break_even_interruptions_per_month);
  }
  // The config keeps a rate per group, 0 for the On-Demand one, also with an override rate.
  const Config config = load(config_with(json::array({od_c5, spot_g5}), {{"interruptions_per_month", 1.5}}));
  EXPECT_EQ(config.configurations[1].spot->group_interruptions_per_month, (std::vector<double>{0, 1.5}));
}

// A negotiated usd_per_hour on a Spot group prices the job, but Spot's savings are against the
// table's On-Demand price of that type: the override says nothing of On-Demand.
TEST(PricingStage, ASpotOverrideIsComparedWithTheTablesOnDemandPrice) {
  const json groups = json::array({{{"type", "g5.2xlarge"}, {"count", 4}, {"market", "spot"}, {"usd_per_hour", 0.5}}});
  const Result r = priced_spot(config_with(groups));
  ASSERT_TRUE(r.spot);
  EXPECT_DOUBLE_EQ(r.cost->usd_per_hour, 2.0);                              // 4 x the override
  EXPECT_NEAR(r.spot->on_demand_usd, 100000 * 0.5 / 3600 * 4 * 1.212, 1e-9);  // 4 x the table's 1.212
  EXPECT_NEAR(r.spot->work_hours, 100000 * 0.5 / 3600, 1e-12) << "billed on the mean step, not the median";
  const SpotEstimate e = expected_estimate(4 * kG5Rate, 4, 2.0, 4 * 1.212);
  EXPECT_DOUBLE_EQ(r.spot->expected_usd, e.expected_usd);
  EXPECT_DOUBLE_EQ(r.spot->savings_pct, e.savings_pct);
}

// One workload at two batch sizes and two presets: each candidate is compared with the baseline
// of its own (workload, preset, batch size). Baselines come first, so a looser match would pick
// the last one of the workload.
TEST(PricingStage, ACandidateIsMatchedToTheBaselineOfItsPresetAndBatchSize) {
  json j = config_with(json::array());
  j["configurations"][1] = {{"name", "cand"}, {"step_time_ms", 1}, {"instances", {{{"type", "g5.2xlarge"}, {"count", 4}}}}};
  const Config config = load(j);
  std::vector<Result> results = {result("od", true, 390, 400, 8),        result("od", true, 690, 700, 16),
                                 result("od", true, 880, 900, 8, "full"), result("cand", false, 290, 300, 8),
                                 result("cand", false, 340, 350, 16),     result("cand", false, 490, 500, 8, "full")};
  price_results(results, pricing_inputs(config));
  // od: 5.672 USD/h; cand: 4 x 1.212 = 4.848 USD/h; improvement = (1 - 4.848 t / (5.672 t_base)) x 100
  // on the mean step times (python3: (1 - 4.848*300/(5.672*400))*100 etc.).
  EXPECT_NEAR(*results[3].comparison.improvement_pct, 35.895627644569816, 1e-9);  // vs od tiny/8 (400 ms)
  EXPECT_NEAR(*results[4].comparison.improvement_pct, 57.26375176304654, 1e-9);   // vs od tiny/16 (700 ms)
  EXPECT_NEAR(*results[5].comparison.improvement_pct, 52.51527973671839, 1e-9);   // vs od full/8 (900 ms)
  EXPECT_NEAR(*results[3].comparison.speedup, 400.0 / 300, 1e-12);
  EXPECT_NEAR(*results[4].comparison.speedup, 700.0 / 350, 1e-12);
  EXPECT_NEAR(*results[5].comparison.speedup, 900.0 / 500, 1e-12);
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(results[i].comparison.improvement_pct) << "a baseline is not compared with itself";
    EXPECT_FALSE(results[i].decision);
  }
  // A candidate at a batch size no baseline ran: nothing to compare with, and it says so.
  std::vector<Result> lone = {result("od", true, 390, 400, 8), result("cand", false, 290, 300, 32)};
  price_results(lone, pricing_inputs(config));
  EXPECT_FALSE(lone[1].comparison.improvement_pct);
  EXPECT_EQ(lone[1].events, std::vector<std::string>{"no priced baseline result for this workload: improvement not computed"});
}
