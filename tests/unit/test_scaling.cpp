// Scaling curves (docs/scaling.md) and the data-parallel term of a projection
// (docs/projection.md): the efficiency's interval, each point's arithmetic, the ring
// all-reduce, the model's check on a measured curve, the config's expansion and its refusals,
// and the record's round trip. Every figure is worked by hand in the comments.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "pricing/scaling_curve.h"
#include "src/config/config.h"
#include "src/core/input_error.h"
#include "src/core/scaling_curve.h"
#include "src/project/data_parallel.h"
#include "src/stats/scaling.h"
#include "member_count.h"
#include "test_helpers.h"
#include "unit_registry.h"

using namespace pperf;
using nlohmann::json;

namespace {
constexpr double kZ975 = 1.959963984540054;  // the normal's 97.5 % quantile

TEST(ScalingEfficiency, RatioOfMeansWithTheDeltaMethodOnItsLog) {
  // 1 instance: 16 samples in 100 ms (se 2); 2 instances: 32 samples in 110 ms (se 3.3).
  // efficiency = (32 / 110) / (2 x 16 / 100) = 100 / 110; relative errors 0.02 and 0.03, so
  // se_log = sqrt(0.0004 + 0.0009) = sqrt(0.0013). Degrees of freedom 0: unknown, the normal's z.
  const EfficiencyEstimate e = scaling_efficiency(MeanWithError{100, 2, 0}, 16, MeanWithError{110, 3.3, 0}, 32, 2);
  EXPECT_DOUBLE_EQ(e.value, 100.0 / 110.0);
  EXPECT_NEAR(e.se_log, std::sqrt(0.0013), 1e-15);
  EXPECT_TRUE(std::isinf(e.dof));
  EXPECT_NEAR(e.lo, 100.0 / 110.0 * std::exp(-kZ975 * std::sqrt(0.0013)), 1e-12);
  EXPECT_NEAR(e.hi, 100.0 / 110.0 * std::exp(kZ975 * std::sqrt(0.0013)), 1e-12);
  // 1.96 x 0.036056 = 0.070668: 0.90909 x exp(-+0.070668) = 0.84707 .. 0.97566, not symmetric
  // about 0.90909 (it is on the log scale).
  EXPECT_NEAR(e.lo, 0.84707, 1e-5);
  EXPECT_NEAR(e.hi, 0.97566, 1e-5);
}

TEST(ScalingEfficiency, WelchSatterthwaiteDegreesOfFreedom) {
  // 10 degrees of freedom each: (0.0013)^2 / ((0.02^4 + 0.03^4) / 10) = 1.69e-6 / 9.7e-8 = 17.4227.
  const EfficiencyEstimate e = scaling_efficiency(MeanWithError{100, 2, 10}, 16, MeanWithError{110, 3.3, 10}, 32, 2);
  EXPECT_NEAR(e.dof, 1.69e-6 / 9.7e-8, 1e-9);
  // t(0.975, 17.42) = 2.1056...: wider than the normal's.
  const double t = std::log(e.hi / e.value) / e.se_log;
  EXPECT_NEAR(t, 2.1056, 1e-3);
  EXPECT_GT(e.hi - e.lo, 100.0 / 110.0 * (std::exp(kZ975 * std::sqrt(0.0013)) - std::exp(-kZ975 * std::sqrt(0.0013))));
}

TEST(ScalingEfficiency, NotARatioOfMedians) {
  // Rare slow steps (a straggling rank every 7th step) move the mean, which is billed, and
  // hardly the median: the efficiency follows the means.
  std::vector<double> one(60), two(60);
  for (size_t i = 0; i < 60; ++i) {
    one[i] = 100 + 3 * std::sin(1.7 * static_cast<double>(i));
    two[i] = 100 + 3 * std::sin(2.3 * static_cast<double>(i)) + (i % 7 == 0 ? 100 : 0);
  }
  auto mean = [](const std::vector<double>& x) {
    double sum = 0;
    for (double v : x) sum += v;
    return sum / static_cast<double>(x.size());
  };
  const auto e = scaling_efficiency(one, 16, two, 32, 2);
  ASSERT_TRUE(e);
  EXPECT_NEAR(e->value, mean(one) / mean(two), 1e-12);
  EXPECT_LT(e->value, 0.9) << "the 9 slow steps cost 15 %: the medians' ratio would say about 1";
  EXPECT_LT(e->lo, e->value);
  EXPECT_GT(e->hi, e->value);
  EXPECT_FALSE(scaling_efficiency(std::vector<double>(10, 100.0), 16, two, 32, 2)) << "below 60 steps: no interval";
}

Result point_result(const std::string& name, int64_t instances, int64_t samples, double mean_ms, double usd_per_hour) {
  Result r;
  r.workload = "vit_synthetic";
  r.preset = "tiny";
  r.batch_size = 16;
  r.configuration = name;
  r.samples_per_step = samples;
  r.instances.push_back(PricedGroup{"g5.2xlarge", static_cast<int>(instances), "dnn"});
  r.step = StepTimeEstimate{};
  r.step->mean_ms = mean_ms;
  r.step->mean_ci95_ms = std::array<double, 2>{mean_ms * 0.9, mean_ms * 1.1};
  r.cost = Cost{};
  r.cost->usd_per_hour = usd_per_hour;
  r.distributed = DistributedReport{};
  r.distributed->world_size = instances;
  r.distributed->bytes_per_step = 1000000;
  r.distributed->allreduce_median_ms = instances > 1 ? 8 : 0.1;
  return r;
}

TEST(ScalingCurve, EachPointsThroughputEfficiencyEpochAndTheCheapestWithinTheDeadline) {
  // 1 x g5.2xlarge (1.212 USD/h): 16 samples per 100 ms step = 160 samples/s; 2 x: 32 per 110 ms
  // = 290.9 samples/s, efficiency 100/110; 4 x: 64 per 125 ms = 512 samples/s, efficiency 0.8.
  // An epoch of 1e6 samples: 1.7361 h (2.1042 USD), 0.95486 h (2.3146 USD), 0.54253 h (2.6302 USD);
  // the time's interval is the mean's +-10 % inverted: 1 x [1.5625, 1.9097] h.
  std::vector<Result> results{point_result("instances=1", 1, 16, 100, 1.212), point_result("instances=2", 2, 32, 110, 2.424),
                              point_result("instances=4", 4, 64, 125, 4.848)};
  ScalingSettings s{{1, 2, 4}, 1e6, 1.0};
  const auto record = scaling_record(s, results);
  ASSERT_TRUE(record);
  ASSERT_EQ(record->curves.size(), 1u);
  const ScalingCurve& c = record->curves[0];
  ASSERT_EQ(c.points.size(), 3u);
  EXPECT_EQ(c.instance_type, "g5.2xlarge");
  EXPECT_DOUBLE_EQ(*c.points[0].samples_per_s, 160);
  EXPECT_DOUBLE_EQ(*c.points[1].samples_per_s, 32000.0 / 110);
  EXPECT_DOUBLE_EQ(*c.points[0].efficiency, 1);
  EXPECT_DOUBLE_EQ(*c.points[1].efficiency, 100.0 / 110);
  EXPECT_DOUBLE_EQ(*c.points[2].efficiency, 0.8);
  EXPECT_NEAR(*c.points[0].epoch_hours, 1e6 / 160 / 3600, 1e-12);
  EXPECT_NEAR((*c.points[0].epoch_hours_ci95)[0], 1e6 / (16000.0 / 90) / 3600, 1e-12);
  EXPECT_NEAR((*c.points[0].epoch_hours_ci95)[1], 1e6 / (16000.0 / 110) / 3600, 1e-12);
  EXPECT_NEAR(*c.points[0].epoch_usd, 1e6 / 160 / 3600 * 1.212, 1e-12);
  EXPECT_NEAR(*c.points[1].epoch_usd, 1e6 / (32000.0 / 110) / 3600 * 2.424, 1e-12);
  // Within 1 h: 2 x (upper end 1.0503 h: no) and 4 x (0.5968 h: yes); the cheapest that does is 4 x.
  EXPECT_FALSE(*c.points[0].meets_deadline);
  EXPECT_FALSE(*c.points[1].meets_deadline) << "its estimate 0.955 h is within, its interval's upper end 1.050 h is not";
  EXPECT_TRUE(*c.points[2].meets_deadline);
  EXPECT_EQ(c.cheapest_instances, 4);
  EXPECT_EQ(c.points[1].allreduce_bytes_per_step, 1000000);
  EXPECT_DOUBLE_EQ(c.points[1].allreduce_ms, 8);
  // Without steps, no efficiency interval (a given step time); the reference's is [1, 1].
  EXPECT_FALSE(c.points[1].efficiency_ci95);
  EXPECT_EQ(*c.points[0].efficiency_ci95, (std::array<double, 2>{1, 1}));
  EXPECT_NE(c.summary.find("4 x g5.2xlarge: scaling efficiency 80.0 %"), std::string::npos) << c.summary;
  EXPECT_NE(c.summary.find("Cheapest epoch within 1 h: 4 x g5.2xlarge"), std::string::npos) << c.summary;
  EXPECT_FALSE(scaling_record(std::nullopt, results)) << "no curve asked for";
}

TEST(ScalingCurve, RoundTripsThroughItsJson) {
  std::vector<Result> results{point_result("instances=1", 1, 16, 100, 1.212), point_result("instances=2", 2, 32, 110, 2.424)};
  const auto record = scaling_record(ScalingSettings{{1, 2}, 5e5, std::nullopt}, results);
  const json j = to_json(*record);
  const ScalingRecord back = read_scaling(JsonView(j, "r.json"));
  EXPECT_EQ(to_json(back), j);
  EXPECT_TRUE(j["curves"][0]["points"][1]["meets_deadline"].is_null());
}

TEST(ScalingCurve, EveryRecordMemberHasAKey) {
  using pperf::testing::member_count;
  EXPECT_EQ(member_count<ScalingPoint>(), std::tuple_size_v<decltype(kScalingPointFields)>);
  EXPECT_EQ(member_count<ScalingCurve>(), std::tuple_size_v<decltype(kScalingCurveFields)> + 1u);  // + points, by hand
}

TEST(DataParallelTerm, RingAllReduceArithmetic) {
  // 100 MB of gradients: each of 4 ranks sends 2 x 3/4 x 100 MB = 150 MB; over 400 Gbit/s
  // (p4d's EFA) 150e6 x 8 / 400e9 s = 3 ms; 2 ranks over 25 Gbit/s: 100e6 x 8 / 25e9 = 32 ms.
  EXPECT_DOUBLE_EQ(project::ring_allreduce_bytes(4, 100e6), 150e6);
  EXPECT_DOUBLE_EQ(project::ring_allreduce_bytes(1, 100e6), 0);
  EXPECT_DOUBLE_EQ(project::ring_allreduce_ms(4, 100e6, 400), 3);
  EXPECT_DOUBLE_EQ(project::ring_allreduce_ms(2, 100e6, 25), 32);
  EXPECT_DOUBLE_EQ(project::ring_allreduce_ms(8, 100e6, 25), 56);  // 2 x 7/8 x 100e6 x 8 / 25e9
  // A step 10 ms longer than one instance's while 40 ms of all-reduce were in flight: 75 % hidden.
  EXPECT_DOUBLE_EQ(project::measured_overlap(100, 110, 40), 0.75);
  EXPECT_DOUBLE_EQ(project::measured_overlap(100, 99, 40), 1) << "faster than one instance: all hidden";
  EXPECT_DOUBLE_EQ(project::measured_overlap(100, 150, 40), 0) << "longer than the all-reduce: none hidden";
}

TEST(DataParallelTerm, PredictionOnATypesLink) {
  // step(1) 100 ms [90, 110], 75 % hidden, 100 MB: on 4 x a 400 Gbit/s type the all-reduce is
  // 3 ms, 0.75 ms of it exposed: step 100.75 ms, efficiency 100 / 100.75; at 10 USD/h each,
  // 40 USD/h for 4 x 16 samples per step; 1e6 samples an epoch: 1e6 / 64 x 100.75 ms.
  project::DataParallelInputs in;
  in.step_one_ms = {100, 90, 110};
  in.samples_per_step_one = 16;
  in.bytes_per_step = 100e6;
  in.overlap = 0.75;
  project::Candidate p4d;
  p4d.trainer_type = "p4d.24xlarge";
  p4d.trainer_usd_per_hour = 10;
  p4d.trainer_link_gbps = 400;
  const auto p = project::predict_data_parallel(in, p4d, 4, 1e6, 1.0, 10);
  EXPECT_DOUBLE_EQ(p.allreduce_ms, 3);
  EXPECT_DOUBLE_EQ(p.exposed_ms, 0.75);
  EXPECT_DOUBLE_EQ(p.step_ms.value, 100.75);
  EXPECT_DOUBLE_EQ(p.step_ms.lo, 90 + 0.75 * 0.9);
  EXPECT_DOUBLE_EQ(p.step_ms.hi, 110 + 0.75 * 1.1);
  EXPECT_DOUBLE_EQ(p.efficiency.value, 100 / 100.75);
  EXPECT_DOUBLE_EQ(p.usd_per_hour, 40);
  EXPECT_NEAR(p.epoch_hours->value, 1e6 / 64 * 100.75 / 3.6e6, 1e-12);
  EXPECT_NEAR(p.epoch_usd->value, 1e6 / 64 * 100.75 / 3.6e6 * 40, 1e-12);
  EXPECT_TRUE(*p.meets_deadline);
  // The same on a type without a link figure: no link term.
  p4d.trainer_link_gbps.reset();
  EXPECT_DOUBLE_EQ(project::predict_data_parallel(in, p4d, 4, std::nullopt, std::nullopt, 10).step_ms.value, 100);
}

TEST(DataParallelTerm, CheckedOnTheMeasuredCurve) {
  // 1 x: 100 ms; 2 x: 104 ms with 8 ms of all-reduce in flight for 1 MB: the ring sends 1 MB,
  // so the link is 1e6 x 8 / 0.008 s = 1 Gbit/s, and 1 - 4/8 = 50 % was hidden. 4 x predicted:
  // 1.5 MB / 1 Gbit/s = 12 ms, step 100 + 6 = 106 ms; measured 107 ms: -0.9346 %.
  std::vector<Result> results{point_result("instances=1", 1, 16, 100, 1), point_result("instances=2", 2, 32, 104, 2),
                              point_result("instances=4", 4, 64, 107, 4)};
  results[2].distributed->allreduce_median_ms = 12.5;
  const auto record = scaling_record(ScalingSettings{{1, 2, 4}, std::nullopt, std::nullopt}, results);
  const ScalingCurve& c = record->curves[0];
  const project::DataParallelInputs in = project::data_parallel_inputs(c);
  EXPECT_DOUBLE_EQ(in.bytes_per_step, 1e6);
  EXPECT_EQ(in.samples_per_step_one, 16);
  EXPECT_DOUBLE_EQ(in.overlap, 1 - 7.0 / 12.5) << "measured on the widest point";
  const project::DataParallelValidation v = project::validate_on_curve(c, in);
  ASSERT_TRUE(v.host_link_gbps);
  EXPECT_NEAR(*v.host_link_gbps, 1, 1e-12);
  ASSERT_EQ(v.checks.size(), 2u);
  EXPECT_TRUE(v.checks[0].fitted);
  EXPECT_NEAR(v.checks[0].error_pct, 0, 1e-9);
  EXPECT_NEAR(v.checks[1].predicted_allreduce_ms, 12, 1e-9);
  EXPECT_NEAR(v.checks[1].predicted_step_ms, 106, 1e-9);
  EXPECT_NEAR(v.checks[1].error_pct, (106.0 - 107) / 107 * 100, 1e-9);
}

json scaling_config() {
  return json::parse(R"({
    "name": "t",
    "pricing": {"table": "aws-ec2-us-east-1"},
    "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 8}],
    "configurations": [
      {"name": "dp", "instances": [{"type": "g5.2xlarge", "count": 1}],
       "execution": {"threads": 1, "distributed": {"world_size": 1, "spawn_local": {"cpus_per_rank": 1}}}}
    ],
    "scaling": {"instances": [1, 2, 4], "epoch_samples": 60000, "deadline_h": 0.5}
  })");
}

std::string error_of(json config, const std::function<void(json&)>& mutate) {
  pperf::testing::TempDir dir;
  mutate(config);
  const std::string path = dir.write("c.json", config.dump());
  try {
    load_config(path, pperf::testing::fixture_workloads());
  } catch (const InputError& e) {
    return std::string(e.what()).substr(path.size() + 2);
  }
  return "";
}

TEST(ScalingConfig, ExpandsToOneConfigurationPerInstanceCount) {
  pperf::testing::TempDir dir;
  json doc = scaling_config();
  doc["configurations"][0]["instances"][0]["count"] = 2;  // 2 instances, 4 ranks: 2 ranks each
  doc["configurations"][0]["execution"]["distributed"]["world_size"] = 4;
  const Config c = load_config(dir.write("c.json", doc.dump()), pperf::testing::fixture_workloads());
  ASSERT_EQ(c.configurations.size(), 3u);
  ASSERT_TRUE(c.scaling);
  EXPECT_EQ(c.scaling->instances, (std::vector<int64_t>{1, 2, 4}));
  EXPECT_EQ(*c.scaling->epoch_samples, 60000);
  EXPECT_EQ(*c.scaling->deadline_h, 0.5);
  const int64_t ranks[] = {2, 4, 8};
  for (size_t i = 0; i < 3; ++i) {
    const Configuration& x = c.configurations[i];
    EXPECT_EQ(x.name, "instances=" + std::to_string(c.scaling->instances[i]));
    EXPECT_EQ(x.baseline, i == 0);
    EXPECT_EQ(x.instances[0].count, c.scaling->instances[i]);
    EXPECT_EQ(x.execution.distributed->world_size, ranks[i]);
  }
}

TEST(ScalingConfig, RefusalsNameTheirPointer) {
  EXPECT_EQ(error_of(scaling_config(), [](json&) {}), "");
  EXPECT_EQ(error_of(scaling_config(), [](json& c) { c["scaling"]["instances"] = {1, 4, 2}; }),
            "/scaling/instances/2: instance counts must be ascending and distinct (2 after 4)");
  EXPECT_EQ(error_of(scaling_config(), [](json& c) { c["scaling"]["instances"] = {2}; }),
            "/scaling/instances: a curve needs at least two instance counts, e.g. [1, 2, 4]");
  EXPECT_EQ(error_of(scaling_config(), [](json& c) { c["scaling"].erase("epoch_samples"); }),
            "/scaling/deadline_h: a deadline is for an epoch: give epoch_samples too");
  EXPECT_EQ(error_of(scaling_config(), [](json& c) { c["configurations"][0]["execution"].erase("distributed"); }),
            "/configurations/0/execution: a scaling curve trains data-parallel: give execution.distributed (world_size, spawn_local) "
            "to the configuration");
  EXPECT_EQ(error_of(scaling_config(), [](json& c) { c["configurations"][0]["execution"]["distributed"]["world_size"] = 3;
                                                     c["configurations"][0]["instances"][0]["count"] = 2; }),
            "/configurations/0/execution/distributed/world_size: world_size 3 is not a whole number of ranks per trainer instance (2 "
            "instances)");
  EXPECT_EQ(error_of(scaling_config(), [](json& c) { c["configurations"].push_back(c["configurations"][0]);
                                                     c["configurations"][1]["name"] = "other";
                                                     c["configurations"][0]["baseline"] = true; }),
            "/scaling: a scaling curve varies one configuration's instance count, and this config has 2: give exactly one under "
            "/configurations");
  EXPECT_EQ(error_of(scaling_config(), [](json& c) { c["scaling"]["epochs"] = 1; }).substr(0, 16), "/scaling/epochs:");
}

}  // namespace
