// The Spot model (pricing/spot_model.h): formulas pinned on small cases, the Monte Carlo
// against the first-order analytic model, the interruption table and the config's spot keys.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "src/config/config.h"
#include "src/config/plan.h"
#include "src/core/input_error.h"
#include "pricing/advise.h"
#include "pricing/interruption_table.h"
#include "pricing/pricing_stage.h"
#include "pricing/spot_model.h"
#include "reports/page_text.h"
#include "test_helpers.h"
#include "unit_registry.h"

using namespace pperf;
using nlohmann::json;

TEST(SpotModel, YoungDalyIntervalRoundsToWholeSteps) {
  // C = 60 s, one interruption per hour: sqrt(2 x 60 x 3600) = 657.27 s -> 66 steps of 10 s.
  EXPECT_DOUBLE_EQ(young_daly_interval_s(60, 1, 10, 1e6), 660);
  EXPECT_DOUBLE_EQ(young_daly_interval_s(60, 1, 0, 1e6), std::sqrt(432000.0));
  EXPECT_DOUBLE_EQ(young_daly_interval_s(60, 1, 10, 300), 300);  // never beyond the work
  EXPECT_DOUBLE_EQ(young_daly_interval_s(60, 0, 10, 5000), 5000);  // no interruptions: no checkpoint
  EXPECT_DOUBLE_EQ(young_daly_interval_s(0.001, 1, 10, 5000), 10);  // at least one step
}

TEST(SpotModel, SegmentsEndWithoutACheckpoint) {
  EXPECT_EQ(segments_s(1000, 300, 10), (std::vector<double>{310, 310, 310, 100}));
  EXPECT_EQ(segments_s(900, 300, 10), (std::vector<double>{310, 310, 300}));
  EXPECT_EQ(segments_s(900, 900, 10), (std::vector<double>{900}));
  EXPECT_TRUE(segments_s(0, 300, 10).empty());
}

TEST(SpotModel, FirstOrderBilledTime) {
  // One segment of an hour, 0.36 interruptions per hour, no restore: 3600 / (1 - 1e-4 x 1800).
  EXPECT_DOUBLE_EQ(*first_order_billed_s({3600}, 1e-4, 0), 3600 / 0.82);
  // {310, 310, 310, 100}, 1 per hour, R = 20 s: S = 1030, sum s^2 = 298300.
  EXPECT_DOUBLE_EQ(*first_order_billed_s({310, 310, 310, 100}, 1.0 / 3600, 20),
                   1030 / (1 - (20 + 298300.0 / 2060) / 3600));
  EXPECT_DOUBLE_EQ(*first_order_billed_s({310, 310, 310, 100}, 0, 20), 1030);
  EXPECT_FALSE(first_order_billed_s({3600}, 1.0 / 1800, 0).has_value());  // lambda x s/2 = 1
}

namespace {
SpotModelInput small_job() {
  SpotModelInput in;
  in.work_s = 10 * 3600;              // 10 h of work
  in.step_s = 1;
  in.interruptions_per_hour = 0.1;    // group MTBF 10 h
  in.checkpoint_save_s = 20;
  in.checkpoint_restore_s = 30;
  in.restart_overhead_s = 600;
  in.usd_per_hour = 2;
  in.on_demand_usd_per_hour = 5;
  in.spot_instances = 4;
  in.seed = 7;
  return in;
}
}  // namespace

TEST(SpotModel, EstimateJoinsTheParts) {
  const SpotModelInput in = small_job();
  const SpotEstimate e = estimate_spot(in);
  // tau = sqrt(2 x 20 x 36000) = 1200 s exactly: 30 segments of 1220 s, the last 1200 s.
  EXPECT_EQ(e.interval_basis, "young_daly");
  EXPECT_DOUBLE_EQ(e.checkpoint_interval_s, 1200);
  EXPECT_DOUBLE_EQ(*e.mtbf_h, 10);
  const double S = 29 * 1220 + 1200, sum_sq = 29 * 1220.0 * 1220 + 1200.0 * 1200;
  const double billed_s = S / (1 - 0.1 / 3600 * (30 + sum_sq / (2 * S)));
  EXPECT_DOUBLE_EQ(e.expected_hours, billed_s / 3600);
  EXPECT_DOUBLE_EQ(e.expected_interruptions, billed_s / 3600 * 0.1);
  EXPECT_DOUBLE_EQ(e.expected_wall_hours, e.expected_hours + e.expected_interruptions * 600 / 3600);
  EXPECT_DOUBLE_EQ(e.expected_usd, e.expected_hours * 2);
  EXPECT_DOUBLE_EQ(e.on_demand_usd, 50);
  EXPECT_DOUBLE_EQ(e.savings_pct, (1 - e.expected_usd / 50) * 100);
  EXPECT_LE(e.p50_usd, e.p95_usd);
  // Seeded: the same inputs give the same figures.
  EXPECT_EQ(estimate_spot(in).p95_usd, e.p95_usd);
}

TEST(SpotModel, BreakEvenIsWhereSpotCostsWhatOnDemandDoes) {
  SpotModelInput in = small_job();
  in.mc_trials = 0;
  in.usd_per_hour = 4.5;  // 10 % below On-Demand: break-even well inside the first-order range
  const SpotEstimate e = estimate_spot(in);
  ASSERT_TRUE(e.break_even_interruptions_per_month);
  EXPECT_FALSE(e.break_even_is_lower_bound);
  in.interruptions_per_hour = *e.break_even_interruptions_per_month * in.spot_instances / kHoursPerMonth;
  EXPECT_NEAR(estimate_spot(in).expected_usd, e.on_demand_usd, 1e-6 * e.on_demand_usd);
  in.usd_per_hour = 6;  // Spot above On-Demand: never cheaper
  EXPECT_FALSE(estimate_spot(in).break_even_interruptions_per_month.has_value());
}

TEST(SpotModel, BreakEvenBeyondFirstOrderIsALowerBoundAtItsEdge) {
  SpotModelInput in = small_job();  // 60 % below On-Demand: cheaper wherever first order holds
  in.mc_trials = 0;
  const SpotEstimate e = estimate_spot(in);
  ASSERT_TRUE(e.break_even_interruptions_per_month);
  EXPECT_TRUE(e.break_even_is_lower_bound);
  in.interruptions_per_hour = *e.break_even_interruptions_per_month * in.spot_instances / kHoursPerMonth;
  const SpotEstimate edge = estimate_spot(in);
  EXPECT_NEAR(in.interruptions_per_hour / 3600 * (edge.checkpoint_interval_s + 20 + 30), kFirstOrderReach, 1e-3);
  EXPECT_LT(edge.expected_usd, edge.on_demand_usd);
}

TEST(SpotModel, WithoutInterruptionsSpotIsWorkAtTheSpotPrice) {
  SpotModelInput in = small_job();
  in.interruptions_per_hour = 0;
  const SpotEstimate e = estimate_spot(in);
  EXPECT_EQ(e.interval_basis, "no_interruptions");
  EXPECT_FALSE(e.mtbf_h.has_value());
  EXPECT_DOUBLE_EQ(e.expected_hours, 10);
  EXPECT_DOUBLE_EQ(e.mc_mean_hours, 10);
  EXPECT_DOUBLE_EQ(e.p95_usd, 20);
  EXPECT_DOUBLE_EQ(e.savings_pct, 60);
}

TEST(SpotModel, MonteCarloAgreesWithFirstOrderWhereItHolds) {
  // Where an interruption is rare within a segment plus a restore (lambda x (tau + C + R) <= 0.25),
  // the first-order mean is within 2 % of the simulated one.
  for (double per_hour : {0.01, 0.1, 0.5}) {
    for (double save_s : {5.0, 60.0}) {
      SpotModelInput in = small_job();
      in.interruptions_per_hour = per_hour;
      in.checkpoint_save_s = save_s;
      const SpotEstimate e = estimate_spot(in);
      const double reach = per_hour / 3600 * (e.checkpoint_interval_s + save_s + in.checkpoint_restore_s);
      ASSERT_LE(reach, 0.25);
      EXPECT_NEAR(e.mc_mean_hours / e.expected_hours, 1, 0.02) << per_hour << "/h, C=" << save_s << " s";
    }
  }
}

TEST(SpotModel, FirstOrderOverestimatesWhenSegmentsAreLongAgainstMtbf) {
  // A fixed interval of 2 h against a 2 h MTBF: lambda x s = 1, beyond first order.
  SpotModelInput in = small_job();
  in.interruptions_per_hour = 0.5;
  in.checkpoint_interval_s = 3600;  // lambda x s = 0.5: analytic 1/(1 - 0.25) vs exact (e^0.5 - 1)/0.5
  const SpotEstimate e = estimate_spot(in);
  EXPECT_GT(e.expected_hours / e.mc_mean_hours - 1, 0.02);
}

TEST(SpotModel, RefusesNegativeAndNonFiniteInputs) {
  SpotModelInput in = small_job();
  in.interruptions_per_hour = -1;
  EXPECT_THROW(estimate_spot(in), std::invalid_argument);
  in = small_job();
  in.checkpoint_save_s = NAN;
  EXPECT_THROW(estimate_spot(in), std::invalid_argument);
  in = small_job();
  in.checkpoint_interval_s = 0;
  EXPECT_THROW(estimate_spot(in), std::invalid_argument);
}

TEST(InterruptionTable, BucketsAndPoissonRates) {
  const InterruptionTable t = load_interruption_table(kDefaultInterruptionTable);
  EXPECT_DOUBLE_EQ(interruptions_per_month_from_share(25), -std::log(0.75));
  const auto g5 = t.find("us-east-1", "g5.2xlarge");
  ASSERT_TRUE(g5);
  EXPECT_EQ(g5->bucket, "15-20%");  // the pinned snapshot (2025-06-28)
  EXPECT_DOUBLE_EQ(g5->interruptions_per_month, -std::log(1 - 0.175));
  EXPECT_EQ(t.find("us-east-1", "g5.12xlarge")->bucket, ">20%");
  EXPECT_FALSE(t.find("us-east-1", "x9.nothing"));
  EXPECT_FALSE(t.find("mars-1", "g5.2xlarge"));
}

TEST(InterruptionTable, BadTableNamesItsPointer) {
  pperf::testing::TempDir dir;
  const std::string path = dir.write("t.json", R"({"schema_version": 1, "name": "t", "source": "s",
    "snapshot": "2025-01-01", "retrieved": "2025-01-02",
    "buckets": [{"label": "<5%", "from_pct": 0, "to_pct": 5, "value_pct": 7}], "regions": {}})");
  try {
    load_interruption_table(path);
    FAIL() << "loaded";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": /buckets/0/value_pct: ", 0), 0u) << e.what();
  }
}

namespace {

json spot_config() {
  return json::parse(R"({
    "name": "s", "seed": 3, "steps_to_train": 100000,
    "pricing": {"table": "aws-ec2-us-east-1"},
    "workloads": [{"name": "vit_synthetic", "preset": "tiny", "batch_size": 8}],
    "configurations": [
      {"name": "od", "baseline": true, "step_time_ms": 400,
       "instances": [{"type": "g5.12xlarge", "market": "on_demand"}]},
      {"name": "spot", "step_time_ms": 500,
       "instances": [{"type": "g5.2xlarge", "count": 4, "market": "spot"}],
       "spot": {"checkpoint_save_s": 10, "checkpoint_restore_s": 20, "restart_overhead_s": 300}}
    ]
  })");
}

std::string spot_error(const std::function<void(json&)>& mutate) {
  pperf::testing::TempDir dir;
  json config = spot_config();
  mutate(config);
  const std::string path = dir.write("c.json", config.dump());
  try {
    load_config(path, pperf::testing::fixture_workloads());
  } catch (const InputError& e) {
    return std::string(e.what()).substr(path.size() + 2);
  }
  return "";
}

std::vector<Result> priced_spot(const json& config_json) {
  pperf::testing::TempDir dir;
  const std::string path = dir.write("c.json", config_json.dump());
  Config config = load_config(path, pperf::testing::fixture_workloads());
  std::vector<Result> results = given_results(make_plan(config, {}, HostCapacity{2}));
  price_results(results, pricing_inputs(config));
  return results;
}

}  // namespace

TEST(SpotConfig, GroupRateIsInstancesTimesTheTablesRate) {
  const std::vector<Result> results = priced_spot(spot_config());
  ASSERT_EQ(results.size(), 2u);
  EXPECT_FALSE(results[0].spot);  // On-Demand
  ASSERT_TRUE(results[1].spot) << (results[1].events.empty() ? "" : results[1].events[0]);
  const SpotEstimate& s = *results[1].spot;
  EXPECT_DOUBLE_EQ(s.interruptions_per_hour, 4 * -std::log(1 - 0.175) / 730);
  EXPECT_EQ(s.checkpoint_basis, "config");
  EXPECT_DOUBLE_EQ(s.work_hours, 100000 * 0.5 / 3600);
  // On-Demand of the same group: 4 x g5.2xlarge at 1.212 USD/h.
  EXPECT_DOUBLE_EQ(s.on_demand_usd, s.work_hours * 4 * 1.212);
  EXPECT_EQ(s.mc_seed, 3u);
}

TEST(SpotConfig, OverrideReplacesTheTable) {
  json c = spot_config();
  c["configurations"][1]["spot"]["interruptions_per_month"] = 1.5;
  const std::vector<Result> results = priced_spot(c);
  EXPECT_DOUBLE_EQ(results[1].spot->interruptions_per_hour, 4 * 1.5 / 730);
}

TEST(SpotConfig, WithoutCheckpointCostSaysWhy) {
  json c = spot_config();
  c["configurations"][1].erase("spot");
  const std::vector<Result> results = priced_spot(c);
  EXPECT_FALSE(results[1].spot);
  ASSERT_FALSE(results[1].events.empty());
  EXPECT_NE(results[1].events[0].find("checkpoint_save_s"), std::string::npos);
}

TEST(SpotConfig, Mistakes) {
  EXPECT_EQ(spot_error([](json&) {}), "");
  EXPECT_EQ(spot_error([](json& c) { c["configurations"][1]["spot"]["interruptions_per_month"] = -1; }),
            "/configurations/1/spot/interruptions_per_month: must be a finite number >= 0, got -1");
  EXPECT_EQ(spot_error([](json& c) { c["configurations"][1]["spot"]["restart_overhead_s"] = -5; }),
            "/configurations/1/spot/restart_overhead_s: must be a finite number >= 0, got -5");
  EXPECT_NE(spot_error([](json& c) { c["configurations"][1]["spot"]["checkpoint_interval_s"] = 0; })
                .rfind("/configurations/1/spot/checkpoint_interval_s: ", 0),
            std::string::npos);
  EXPECT_NE(spot_error([](json& c) { c["configurations"][1]["spot"]["checkpoint_save_s"] = "ten"; })
                .rfind("/configurations/1/spot/checkpoint_save_s: ", 0),
            std::string::npos);
  EXPECT_EQ(spot_error([](json& c) { c["configurations"][0]["spot"] = json::object(); }),
            "/configurations/0/spot: spot settings on a configuration without a Spot instance group");
  // A Spot type the interruption table does not know, and no override: no rate at all.
  EXPECT_EQ(spot_error([](json& c) {
              c["pricing"]["table"] = "aws-sagemaker-us-east-1";
              c["configurations"][0]["instances"][0]["type"] = "ml.g5.12xlarge";
              c["configurations"][1]["instances"][0] = {{"type", "ml.g5.2xlarge"}, {"market", "spot"},
                                                        {"usd_per_hour", 0.6}};
            }),
            "/configurations/1/instances/0/type: no Spot interruption rate for ml.g5.2xlarge in us-east-1 in table "
            "aws-spot-interruptions; give spot.interruptions_per_month");
  EXPECT_NE(spot_error([](json& c) { c["pricing"]["interruptions"] = "no-such-table"; })
                .rfind("/configurations/1/instances/0/type: interruption table 'no-such-table': ", 0),
            std::string::npos);
}

TEST(Advise, RanksByExpectedUsdWithSpotBesideOnDemand) {
  RunReport report;
  report.results = priced_spot(spot_config());
  const Advice advice = advise({{"r.json", report}}, {});
  ASSERT_EQ(advice.rows.size(), 3u);
  for (size_t i = 0; i < advice.rows.size(); ++i) {
    EXPECT_EQ(advice.rows[i].rank, static_cast<int>(i + 1));
    if (i > 0) EXPECT_LE(advice.rows[i - 1].usd, advice.rows[i].usd);
  }
  // Spot 4x g5.2xlarge (mid 0.52 USD/h each) is cheapest; its On-Demand twin costs 4 x 1.212 USD/h.
  EXPECT_EQ(advice.rows[0].configuration, "spot");
  EXPECT_EQ(advice.rows[0].market, "spot");
  EXPECT_DOUBLE_EQ(advice.rows[0].usd, report.results[1].spot->expected_usd);
  // Its reason leads with the run's verdict against the baseline, then why it ranks first.
  EXPECT_EQ(advice.rows[0].decision.has_value(), report.results[1].decision.has_value());
  const std::string decision = advice_decision_text(advice.rows[0]), reason = advice_reason(advice, advice.rows[0]);
  EXPECT_EQ(reason.rfind(decision.empty() ? "cheapest: " : decision + "; cheapest: ", 0), 0u) << reason;
  const double work_h = 100000 * 0.5 / 3600;
  for (const auto& row : advice.rows)
    if (row.configuration == "spot" && row.market == "on_demand") EXPECT_DOUBLE_EQ(row.usd, work_h * 4 * 1.212);
    else if (row.configuration == "od") EXPECT_DOUBLE_EQ(row.usd, 100000 * 0.4 / 3600 * 5.672);
  EXPECT_EQ(advise({{"r.json", report}}, {"spot", std::nullopt}).rows.size(), 1u);
  EXPECT_EQ(advise({{"r.json", report}}, {"on_demand", std::nullopt}).rows.size(), 2u);
}

TEST(Advise, RespotWithTheSameStepsReproducesTheEstimate) {
  const std::vector<Result> results = priced_spot(spot_config());
  const Result& r = results[1];
  const SpotEstimate again = respot(r, 100000);
  EXPECT_DOUBLE_EQ(again.expected_usd, r.spot->expected_usd);
  EXPECT_DOUBLE_EQ(again.p95_usd, r.spot->p95_usd);
  EXPECT_DOUBLE_EQ(again.on_demand_usd, r.spot->on_demand_usd);
  EXPECT_DOUBLE_EQ(*again.break_even_interruptions_per_month, *r.spot->break_even_interruptions_per_month);
  EXPECT_DOUBLE_EQ(respot(r, 200000).work_hours, 2 * r.spot->work_hours);
}

TEST(Advise, WithoutStepsToTrainAsksForSteps) {
  json c = spot_config();
  c.erase("steps_to_train");
  RunReport report;
  report.results = priced_spot(c);
  try {
    advise({{"r.json", report}}, {});
    FAIL() << "advised";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "--steps: r.json has no steps_to_train for od: give --steps N");
  }
  EXPECT_EQ(advise({{"r.json", report}}, {"both", 10}).rows.size(), 1u);  // Spot without steps: no estimate
}

TEST(SpotConfig, MeasuredRestoreAndADrillsRestartMakeR) {
  json c = spot_config();
  c["configurations"][1]["spot"].erase("checkpoint_restore_s");
  pperf::testing::TempDir dir;
  const std::string path = dir.write("c.json", c.dump());
  Config config = load_config(path, pperf::testing::fixture_workloads());
  std::vector<Result> results = given_results(make_plan(config, {}, HostCapacity{2}));
  results[1].checkpoint = CheckpointCost{1000, 40, 25, 5, "x"};
  price_results(results, pricing_inputs(config));
  EXPECT_DOUBLE_EQ(results[1].spot->checkpoint_restore_s, 0.025);
  EXPECT_EQ(results[1].spot->checkpoint_basis, "measured+config");
  results[1].spot_drill = SpotDrill{15, 10, 3.2, 0.1, 2.9, 0.03, 0.27};
  price_results(results, pricing_inputs(config));
  EXPECT_DOUBLE_EQ(results[1].spot->checkpoint_restore_s, 0.025 + 2.9);
  EXPECT_EQ(results[1].spot->checkpoint_basis, "measured+config+drill");
}
