// The projection model (src/project): exact figures where the formula is exact, the seed's
// heterogeneous results from their homogeneous ones, the catalog's candidates, the report.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <tuple>

#include "test_helpers.h"
#include "src/core/input_error.h"
#include "src/project/assemble.h"
#include "src/project/projection.h"
#include "src/project/next_config.h"
#include "src/project/report.h"
#include "reports/formats.h"

using namespace pperf;
using namespace pperf::project;

namespace {
Measured given(double step_ms, int64_t vcpus, int64_t samples) {
  Measured m;
  m.workload = "w";
  m.samples_per_step = samples;
  m.pipeline_cpu_s_per_sample = Range::point(pipeline_cost_from_bound_step(step_ms, vcpus, samples));
  return m;
}

Candidate cluster(const std::string& trainer, int64_t vcpus, double accelerators, double usd_h, const std::string& data,
                  int64_t count, int64_t data_vcpus, double data_usd_h) {
  Candidate c;
  c.trainer_type = trainer;
  c.trainer_vcpus = vcpus;
  c.trainer_accelerators = accelerators;
  c.trainer_usd_per_hour = usd_h;
  c.data_type = data;
  c.data_count = count;
  c.data_vcpus = data_vcpus;
  c.data_usd_per_hour = data_usd_h;
  return c;
}

const SpeedFactor kSame{"p3", Range::point(1), "reference"};
}  // namespace

TEST(Projection, ARelativeRangeOfAPositiveQuantityStaysPositive) {
  // A noisy run's mean CI may be wider than the mean (half-width 195 %): a time is never <= 0, or
  // a speed factor built on it turns negative and a step's upper bound infinite.
  const pperf::project::Range wide = pperf::project::Range::relative(4.0, 1.95);
  EXPECT_DOUBLE_EQ(wide.lo, 0.04);
  EXPECT_DOUBLE_EQ(wide.hi, 4.0 * 2.95);
  const pperf::project::Range usual = pperf::project::Range::relative(4.0, 0.25);
  EXPECT_DOUBLE_EQ(usual.lo, 3.0);
  EXPECT_DOUBLE_EQ(usual.hi, 5.0);
}

TEST(Projection, FamilyOfStripsSageMakersPrefixAndSize) {
  EXPECT_EQ(family_of("ml.c5.9xlarge"), "c5");
  EXPECT_EQ(family_of("p4d.24xlarge"), "p4d");
  EXPECT_EQ(family_of("trn1.32xlarge"), "trn1");
}

TEST(Projection, PipelineCostFromAnInputBoundStep) {
  // 1193 ms on 8 vCPUs for 8192 samples: 1.193 x 8 / 8192 CPU-s per sample.
  EXPECT_DOUBLE_EQ(pipeline_cost_from_bound_step(1193, 8, 8192), 1.193 * 8 / 8192);
}

TEST(Projection, Seed000Example2FromItsHomogeneousStep) {
  // ml.p3.2xlarge (8 vCPUs, 3.825 USD/h) + ml.c5.9xlarge (36 vCPUs, 1.836 USD/h): 1193 x 8/44.
  const Measured m = given(1193, 8, 8192);
  const SpeedFactor c5 = unmeasured_factor("c5");  // 1 ±25 %
  ModelSettings s;  // model error 10 %
  const Prediction p = predict(m, cluster("ml.p3.2xlarge", 8, 1, 3.825, "ml.c5.9xlarge", 1, 36, 1.836), kSame, c5, s);
  EXPECT_NEAR(p.step_ms.value, 1193.0 * 8 / 44, 1e-9);   // 216.9 ms
  EXPECT_NEAR(p.step_ms.value, 216.909, 1e-3);
  EXPECT_NEAR(p.step_ms.lo, 1193.0 * 8 / (8 + 36 * 1.25) * 0.9, 1e-9);
  EXPECT_NEAR(p.step_ms.hi, 1193.0 * 8 / (8 + 36 * 0.75) * 1.1, 1e-9);
  EXPECT_EQ(p.bound, "pipeline");
  EXPECT_DOUBLE_EQ(p.usable_cores, 44);
  EXPECT_NEAR(p.usd_per_step.value, 1193.0 * 8 / 44 / 1000 * (3.825 + 1.836) / 3600, 1e-12);
  EXPECT_NEAR(p.usd_per_1m_samples.value, p.usd_per_step.value * 1e6 / 8192, 1e-12);
  // The seed measured 184 ms: +17.9 %, inside the interval.
  EXPECT_NEAR(100 * (p.step_ms.value - 184) / 184, 17.88, 0.01);
  EXPECT_LT(p.step_ms.lo, 184);
  EXPECT_GT(p.step_ms.hi, 184);
}

TEST(Projection, Seed000Example1IsFlooredByTheTrainersStep) {
  // ml.p4d.24xlarge (96 vCPUs) + 2 x ml.c5.18xlarge (72 each): 192 x 96/240 = 76.8 ms.
  Measured m = given(192, 96, 1024);
  const Candidate c = cluster("ml.p4d.24xlarge", 96, 8, 37.688, "ml.c5.18xlarge", 2, 72, 3.672);
  ModelSettings s;
  const Prediction free = predict(m, c, kSame, unmeasured_factor("c5"), s);
  EXPECT_NEAR(free.step_ms.value, 76.8, 1e-9);
  EXPECT_NEAR(100 * (free.step_ms.value - 86) / 86, -10.70, 0.01);
  EXPECT_LT(free.step_ms.lo, 86);
  EXPECT_GT(free.step_ms.hi, 86);
  // With the GPU's own step known (80 ms), the step is the GPU's: the pipeline is no longer the bound.
  m.trainer_step_ms = Range::point(80);
  const Prediction floored = predict(m, c, kSame, unmeasured_factor("c5"), s);
  EXPECT_DOUBLE_EQ(floored.step_ms.value, 80);
  EXPECT_EQ(floored.bound, "trainer");
  EXPECT_DOUBLE_EQ(floored.step_ms.lo, 80 * 0.9);
}

TEST(Projection, KneeIsWhereThePipelineMeetsTheTrainer) {
  // 192 ms on 96 vCPUs of work per step = 18.432 core-s; a 64 ms GPU step needs 288 cores: 36 per GPU of 8.
  Measured m = given(192, 96, 1024);
  EXPECT_FALSE(knee_vcpus_per_accelerator(m, 8));
  m.trainer_step_ms = Range::point(64);
  EXPECT_NEAR(*knee_vcpus_per_accelerator(m, 8), 36, 1e-9);
  // At the knee the two terms are equal: 96 + 192 vCPUs (trainer + data) gives exactly 64 ms.
  const Prediction at = predict(m, cluster("t", 96, 8, 1, "d", 1, 192, 1), kSame, kSame, ModelSettings{});
  EXPECT_NEAR(at.pipeline_ms, 64, 1e-9);
}

TEST(Projection, TrainerCpuUseIsChargedToAPooledPipelineOnly) {
  // On one shared CPU: 5 ms of trainer CPU + 32 samples x 0.25 ms = 13 ms; apart (not pooled), 8 ms.
  Measured m;
  m.samples_per_step = 32;
  m.pipeline_cpu_s_per_sample = Range::point(0.25e-3);
  m.trainer_cpu_s_per_step = 5e-3;
  m.trainer_step_ms = Range::point(5);
  Candidate shared = cluster("host", 1, 0, 0, "", 0, 0, 0);
  EXPECT_NEAR(predict(m, shared, kSame, kSame, ModelSettings{}).step_ms.value, 13, 1e-9);
  Candidate apart = cluster("host", 1, 0, 0, "host", 1, 1, 0);
  apart.pooled = false;
  EXPECT_NEAR(predict(m, apart, kSame, kSame, ModelSettings{}).step_ms.value, 8, 1e-9);
}

TEST(Projection, LinkBoundWhenBatchesOutgrowTheLink) {
  // 100 MB per batch over 10 Gbit/s: 80 ms, above the 20 ms pipeline and 30 ms trainer.
  Measured m = given(20, 1, 1);
  m.bytes_per_batch = 100e6;
  m.trainer_step_ms = Range::point(30);
  ModelSettings s;
  s.link_gbit_per_s = 10;
  const Prediction p = predict(m, cluster("t", 1, 1, 1, "d", 1, 1000000, 1), kSame, kSame, s);
  EXPECT_NEAR(*p.link_ms, 80, 1e-9);
  EXPECT_EQ(p.bound, "link");
  EXPECT_NEAR(p.step_ms.value, 80, 1e-9);
}

// The shipped tables' link figures: each c5.18xlarge has 25 Gbit/s, a p4d.24xlarge 400, so the
// data group of n c5.18xlarge feeds the trainer at min(25 n, 400) Gbit/s. Seed 000's ResNet50 at
// 224 px, 8 GPUs x batch 32, on the uint8 wire (150,536 bytes a sample: 3x224x224 bytes + an
// int64 label): 38.5 MB a step, 12.33 ms at 25 Gbit/s; float32 (602,120 bytes) is 4x that.
TEST(Projection, TheTablesLinkFiguresBoundTheDataGroup) {
  const PriceTable sm = load_price_table(pperf::testing::source_dir() + "/pricing/tables/aws-sagemaker-us-east-1.json");
  EXPECT_EQ(*sm.find("ml.c5.18xlarge")->link_gbps, 25);
  EXPECT_EQ(*sm.find("ml.p4d.24xlarge")->link_gbps, 400);
  EXPECT_FALSE(sm.find("ml.p3.2xlarge")->link_gbps) << "only a burst figure is published";
  Measured m = given(192, 96, 256);
  m.pipeline_cpu_s_per_sample = Range::point(1e-6);  // a light pipeline: the link and the GPU decide
  m.trainer_step_ms = Range::point(10);
  m.bytes_per_batch = 256.0 * 150536;
  std::map<int64_t, Prediction> by_count;
  for (const Candidate& c : catalog_candidates(sm, "ml.p4d.24xlarge", 1, 4, Market::on_demand))
    if (c.data_type == "ml.c5.18xlarge") by_count[c.data_count] = predict(m, c, kSame, kSame, ModelSettings{});
  ASSERT_EQ(by_count.size(), 4u);
  for (const auto& [n, p] : by_count) {
    SCOPED_TRACE(n);
    EXPECT_EQ(*p.link_gbps, 25.0 * n);
    EXPECT_EQ(p.link_source, "price table");
    EXPECT_NEAR(*p.link_ms, 256.0 * 150536 * 8 / (25e9 * n) * 1000, 1e-9);
  }
  EXPECT_EQ(by_count.at(1).bound, "link") << "12.33 ms on the link against a 10 ms GPU step";
  EXPECT_EQ(by_count.at(2).bound, "trainer");
  // --link-gbps overrides every candidate's; --no-link leaves the term out.
  ModelSettings given_link;
  given_link.link_gbit_per_s = 10;
  const Candidate two = [&] {
    for (const Candidate& c : catalog_candidates(sm, "ml.p4d.24xlarge", 1, 2, Market::on_demand))
      if (c.data_type == "ml.c5.18xlarge" && c.data_count == 2) return c;
    return Candidate{};
  }();
  EXPECT_EQ(*predict(m, two, kSame, kSame, given_link).link_gbps, 10);
  ModelSettings no_link;
  no_link.table_links = false;
  EXPECT_FALSE(predict(m, two, kSame, kSame, no_link).link_ms);
  // The trainer's link caps many data instances: 20 x 25 > 400.
  Candidate many = two;
  many.data_count = 20;
  EXPECT_EQ(*candidate_link_gbps(many), 400);
}

TEST(Projection, CatalogCandidatesOfTheShippedTables) {
  const PriceTable sm = load_price_table(pperf::testing::source_dir() + "/pricing/tables/aws-sagemaker-us-east-1.json");
  // ml.p3.2xlarge is the only V100 x1; two CPU-only types x 1..2 each, plus alone: 5.
  const auto p3 = catalog_candidates(sm, "ml.p3.2xlarge", 1, 2, Market::on_demand);
  ASSERT_EQ(p3.size(), 5u);
  EXPECT_EQ(p3[0].data_count, 0);
  EXPECT_DOUBLE_EQ(p3[0].trainer_usd_per_hour, 3.825);
  const PriceTable ec2 = load_price_table(pperf::testing::source_dir() + "/pricing/tables/aws-ec2-us-east-1.json");
  // One A10G: g5.xlarge, g5.2xlarge, g5.4xlarge (the scale-ups), each alone and with 1..2 of c5.9xlarge/c5.18xlarge.
  const auto g5 = catalog_candidates(ec2, "g5.xlarge", 1, 2, Market::on_demand);
  EXPECT_EQ(g5.size(), 15u);
  EXPECT_TRUE(catalog_candidates(ec2, "no.such", 1, 2, Market::on_demand).empty());
}

TEST(Projection, ReportCarriesTheCheapestTheKneeAndAChart) {
  Measured m = given(192, 96, 1024);
  m.trainer_step_ms = Range::point(64);
  WorkloadProjection w;
  w.measured = m;
  w.trainer_type = "t";
  for (int64_t n = 0; n <= 3; ++n)
    w.predictions.push_back(predict(m, cluster("t", 96, 8, 30, n ? "d" : "", n, n ? 72 : 0, 3), kSame, kSame, ModelSettings{}));
  w.knee_vcpus_per_accelerator = knee_vcpus_per_accelerator(m, 8);
  Projection p;
  p.config_name = "c";
  p.workloads.push_back(w);
  const nlohmann::json j = projection_json(p);
  EXPECT_EQ(j["kind"], "pperf-projection");
  EXPECT_DOUBLE_EQ(j["workloads"][0]["knee_vcpus_per_accelerator"].get<double>(), 36);
  EXPECT_EQ(j["workloads"][0]["predictions"].size(), 4u);
  // 96 + 3 x 72 = 312 vCPUs >= 288: the third data instance reaches the trainer's floor (the knee).
  EXPECT_EQ(w.predictions[3].bound, "trainer");
  EXPECT_EQ(w.predictions[2].bound, "pipeline");
  const std::string html = projection_html(ProjectionPage{&p, 10, {}});
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("class=\"knee\""), std::string::npos);
}

TEST(Projection, ConsoleTextFitsTheWidthItIsGiven) {
  // Seed 000 ex. 1's clusters (ml.p4d.24xlarge + n x ml.c5.18xlarge): 40-character names and two
  // intervals a row made 123 columns; at 100 the prose wraps and the step's interval gives way.
  Measured m = given(192, 96, 1024);
  m.pipeline_source = std::string(150, 'x').replace(40, 1, " ").replace(90, 1, " ");
  WorkloadProjection w;
  w.measured = m;
  w.trainer_type = "ml.p4d.24xlarge";
  for (int64_t n = 0; n <= 4; ++n)
    w.predictions.push_back(predict(m, cluster("ml.p4d.24xlarge", 96, 8, 37.688, n ? "ml.c5.18xlarge" : "", n, 72, 4.284), kSame, kSame,
                                    ModelSettings{}));
  Projection p;
  p.config_name = "seed000-ex1";
  p.table = "aws-sagemaker-us-east-1";
  p.workloads.push_back(w);
  const std::string narrow = projection_console(ProjectionPage{&p, 10, ConsoleOptions{100, false}});
  std::stringstream in(narrow);
  for (std::string line; std::getline(in, line);) EXPECT_LE(line.size(), 100u) << line;
  EXPECT_NE(narrow.find("\n  left out at this width: the step's interval (--out and --html have them)\n"), std::string::npos) << narrow;
  EXPECT_NE(narrow.find("USD/1M samples [interval]"), std::string::npos) << narrow;
  EXPECT_EQ(narrow.find("step ms [interval]"), std::string::npos) << narrow;
  // Narrower still: the cost's interval goes too, the rows each on one line.
  const std::string tiny = projection_console(ProjectionPage{&p, 10, ConsoleOptions{70, false}});
  EXPECT_NE(tiny.find("left out at this width: the step's interval and the cost's interval"), std::string::npos) << tiny;
  EXPECT_NE(tiny.find("\n  5  1 x ml.p4d.24xlarge + 4 x ml.c5.18xlarge       48          0.7139  pipeline\n"), std::string::npos) << tiny;
  // No width: every column, nothing said left out, the long source on one line.
  const std::string all = projection_console(ProjectionPage{&p, 10, ConsoleOptions{0, false}});
  EXPECT_NE(all.find("step ms [interval]"), std::string::npos);
  EXPECT_EQ(all.find("left out"), std::string::npos);
  EXPECT_NE(all.find(m.pipeline_source + "\n"), std::string::npos);
}

TEST(Projection, ConsoleShowsEachCandidatesLinkFromTheTable) {
  // Issue 66: the JSON carried each candidate's link_ms from the table (2 x 25 Gbit/s) while the
  // console said "(no link bandwidth: --link-gbps)" and showed no link figure.
  Measured m = given(192, 96, 1024);
  m.bytes_per_batch = 50e6;  // 50 MB a step: 8 ms over 50 Gbit/s
  WorkloadProjection w;
  w.measured = m;
  w.trainer_type = "ml.p4d.24xlarge";
  for (int64_t n = 0; n <= 2; ++n) {
    Candidate c = cluster("ml.p4d.24xlarge", 96, 8, 37.688, n ? "ml.c5.18xlarge" : "", n, 72, 4.284);
    c.trainer_link_gbps = 400;
    if (n) c.data_link_gbps = 25;
    w.predictions.push_back(predict(m, c, kSame, kSame, ModelSettings{}));
  }
  ASSERT_TRUE(w.predictions[2].link_ms);
  EXPECT_DOUBLE_EQ(*w.predictions[2].link_ms, 8);
  Projection p;
  p.config_name = "seed000-ex1";
  p.workloads.push_back(w);
  const std::string out = projection_console(ProjectionPage{&p, 10, ConsoleOptions{0, false}});
  EXPECT_EQ(out.find("no link bandwidth"), std::string::npos) << out;
  EXPECT_NE(out.find("MB on the data link per step (each cluster's link from the price table: the link column)"), std::string::npos) << out;
  EXPECT_NE(out.find("link ms (Gbit/s)"), std::string::npos) << out;
  EXPECT_NE(out.find("  8 (50)  "), std::string::npos) << "2 x 25 Gbit/s: 8 ms\n" << out;
  EXPECT_NE(out.find("  16 (25)  "), std::string::npos) << "1 x 25 Gbit/s: 16 ms\n" << out;
  // --no-link and --link-gbps say so instead.
  p.settings.table_links = false;
  EXPECT_NE(projection_console(ProjectionPage{&p, 10, ConsoleOptions{0, false}}).find("(link term left out: --no-link)"), std::string::npos);
  p.settings.link_gbit_per_s = 100;
  EXPECT_NE(projection_console(ProjectionPage{&p, 10, ConsoleOptions{0, false}}).find("(100 Gbit/s: 4 ms)"), std::string::npos);
}

TEST(Projection, ChartDrawsTheCheapestTrainersCurveBesideTheConfigs) {
  // Seed 004's shape: the config's trainer (p4d, 183.8 ms) is dearer per sample than another
  // type (trn1, 150.6 ms); both trainer-bound alone, data instances only add cost.
  Measured m;
  m.samples_per_step = 16;
  m.pipeline_cpu_s_per_sample = Range::point(0.05e-3);
  WorkloadProjection w;
  w.trainer_type = "ml.p4d.24xlarge";
  for (const auto& [type, vcpus, usd, step] : {std::make_tuple("ml.p4d.24xlarge", 96, 37.688, 183.8), std::make_tuple("ml.trn1.32xlarge", 128, 24.725, 150.6)}) {
    Measured mt = m;
    mt.trainer_step_ms = Range::point(step);
    for (int64_t n = 0; n <= 2; ++n)
      w.predictions.push_back(predict(mt, cluster(type, vcpus, 8, usd, n ? "ml.c5.18xlarge" : "", n, 72, 4.284), kSame, kSame, ModelSettings{}));
  }
  std::stable_sort(w.predictions.begin(), w.predictions.end(),
                   [](const Prediction& a, const Prediction& b) { return a.usd_per_1m_samples.value < b.usd_per_1m_samples.value; });
  ASSERT_EQ(cheapest(w)->candidate.trainer_type, "ml.trn1.32xlarge");
  Projection p;
  p.workloads.push_back(w);
  const std::string html = projection_html(ProjectionPage{&p, 10, {}});
  const size_t at = html.find("data-chart=\"projection\"");
  ASSERT_NE(at, std::string::npos);
  const std::string svg = html.substr(at, html.find("</svg>", at) - at);
  // The cheapest trainer's curve solid, the config's dashed, each named in the legend.
  EXPECT_NE(svg.find("stroke-width=\"2\" data-trainer=\"ml.trn1.32xlarge\" data-type=\"ml.c5.18xlarge\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("stroke-dasharray=\"6 4\" data-trainer=\"ml.p4d.24xlarge\" data-type=\"ml.c5.18xlarge\""), std::string::npos) << svg;
  EXPECT_NE(svg.find(">1 x ml.trn1.32xlarge (cheapest)</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">1 x ml.p4d.24xlarge (the config's)</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find("data instances per trainer"), std::string::npos) << svg;
  // The cheapest point itself (trn1 alone) is drawn: its curve starts at its cost.
  EXPECT_NE(svg.find(fmt::format("ml.trn1.32xlarge + 1 x ml.c5.18xlarge: {:.4g} USD/1M samples", w.predictions[1].usd_per_1m_samples.value)),
            std::string::npos)
      << svg;
  // When the config's trainer is the cheapest, one trainer as before: no trainer legend.
  w.trainer_type = "ml.trn1.32xlarge";
  p.workloads[0] = w;
  const std::string one = projection_html(ProjectionPage{&p, 10, {}});
  EXPECT_EQ(one.find("data-legend=\"trainer\""), std::string::npos);
  EXPECT_EQ(one.find("data-trainer=\"ml.p4d.24xlarge\""), std::string::npos);
  EXPECT_NE(one.find("data instances per 1 x ml.trn1.32xlarge"), std::string::npos);
}

TEST(Projection, KneeAtZeroDataInstancesWhenTheTrainerAloneIsTrainerBound) {
  // BERT on a p4d: 184 ms given step, a pipeline of 0.05 CPU-ms per sample x 16 samples on 96
  // vCPUs is 0.0083 ms: trainer-bound alone, so every data instance only adds cost.
  Measured m;
  m.samples_per_step = 16;
  m.pipeline_cpu_s_per_sample = Range::point(0.05e-3);
  m.trainer_step_ms = Range::point(183.8);
  ModelSettings s;
  std::vector<Prediction> ps;
  for (int64_t n = 0; n <= 2; ++n)
    ps.push_back(predict(m, cluster("ml.p4d.24xlarge", 96, 8, 37.688, n ? "ml.c5.18xlarge" : "", n, 72, 4.284), kSame, kSame, s));
  EXPECT_EQ(ps[0].bound, "trainer");
  EXPECT_DOUBLE_EQ(ps[0].step_ms.value, 183.8);
  EXPECT_LT(ps[0].usd_per_1m_samples.value, ps[1].usd_per_1m_samples.value);
  EXPECT_EQ(knee_data_instances(ps, "ml.p4d.24xlarge"), std::optional<int64_t>(0));
  EXPECT_EQ(knee_data_instances(ps, "ml.trn1.32xlarge"), std::nullopt);
  // Input-bound alone (seed 000 ex. 2 with a 150 ms floor): the knee is where the floor is met.
  Measured bound = given(1193, 8, 8192);
  bound.trainer_step_ms = Range::point(150);
  std::vector<Prediction> qs;
  for (int64_t n = 0; n <= 3; ++n)
    qs.push_back(predict(bound, cluster("ml.p3.2xlarge", 8, 1, 3.825, n ? "ml.c5.9xlarge" : "", n, 36, 1.836), kSame, kSame, s));
  // 1193 x 8 / (8 + 36n): 1193, 216.9, 114.7 (floored at 150), ...: the knee is at 2.
  EXPECT_EQ(qs[1].bound, "pipeline");
  EXPECT_EQ(qs[2].bound, "trainer");
  EXPECT_EQ(knee_data_instances(qs, "ml.p3.2xlarge"), std::optional<int64_t>(2));
}

namespace {
nlohmann::json measured_config() {
  return nlohmann::json::parse(R"({
    "$schema": "../schemas/config.schema.json", "name": "c",
    "pricing": {"table": "aws-sagemaker-us-east-1"},
    "workloads": [{"name": "mnist_heavy", "preset": "tiny"}],
    "configurations": [
      {"name": "one", "instances": [{"type": "ml.p3.2xlarge", "role": "dnn"}],
       "execution": {"threads": 1, "data": {"mode": "local", "workers": 1, "prefetch_batches": 2}}},
      {"name": "base", "baseline": true, "instances": [{"type": "ml.p3.2xlarge", "count": 1, "role": "dnn"}],
       "execution": {"threads": 1, "data": {"mode": "local", "workers": 2, "prefetch_batches": 3}}}]})");
}
}  // namespace

TEST(NextConfig, ADataGroupOnAConfigWithoutOneRunsItsPipelineInSpawnedWorkers) {
  NextConfigInputs in;
  in.config = measured_config();
  in.name = "c";
  in.table = "/abs/t.json";
  in.region = "us-east-1";
  in.paths = {{"/workloads/0/params/data_dir", "/abs/data"}};
  in.config_dir = "/abs/configs";
  in.config["configurations"][1]["execution"]["data"]["python_path"] = {"../python/examples", "/already/absolute"};
  in.reference = 1;
  in.host_cpus = 4;
  const Candidate best = cluster("ml.p3.2xlarge", 8, 1, 3.825, "ml.c5.9xlarge", 2, 36, 1.836);
  const nlohmann::json next = next_config(in, best, nullptr);
  EXPECT_EQ(next["name"], "c-next");
  EXPECT_FALSE(next.contains("$schema"));
  EXPECT_EQ(next["pricing"]["table"], "/abs/t.json");
  EXPECT_EQ(next["pricing"]["region"], "us-east-1");
  EXPECT_EQ(next["workloads"][0]["params"]["data_dir"], "/abs/data");
  ASSERT_EQ(next["configurations"].size(), 2u);
  nlohmann::json base = in.config["configurations"][1];  // the baseline, as written, its paths absolute
  base["execution"]["data"]["python_path"] = {"/abs/python/examples", "/already/absolute"};
  EXPECT_EQ(next["configurations"][0], base);
  const nlohmann::json& c = next["configurations"][1];
  EXPECT_EQ(c["name"], "projected-cheapest");
  EXPECT_EQ(c["instances"][1], (nlohmann::json{{"type", "ml.c5.9xlarge"}, {"count", 2}, {"role", "data"}}));
  // The trainer named no CPUs: it gets CPU 0, two spawned workers (one per data instance) the rest.
  EXPECT_EQ(c["execution"]["threads"], 1);
  EXPECT_EQ(c["execution"]["cpus"], nlohmann::json::array({0}));
  EXPECT_EQ(c["execution"]["data"], nlohmann::json::parse(
      R"({"mode": "service", "prefetch_batches": 3, "python_path": ["/abs/python/examples", "/already/absolute"],
          "spawn_local": {"processes": 2, "workers": 1, "cpus": [1, 2, 3]}})"));  // its Python path kept
}

TEST(NextConfig, ATlsCaRelativeToTheConfigIsMadeAbsolute) {
  NextConfigInputs in;
  in.config = measured_config();
  in.config["configurations"][1]["execution"]["data"]["tls_ca"] = "certs/ca.pem";
  in.name = "c";
  in.config_dir = "/abs/configs";
  in.reference = 1;
  in.host_cpus = 4;
  const nlohmann::json next = next_config(in, cluster("ml.p3.2xlarge", 8, 1, 3.825, "ml.c5.9xlarge", 2, 36, 1.836), nullptr);
  EXPECT_EQ(next["configurations"][0]["execution"]["data"]["tls_ca"], "/abs/configs/certs/ca.pem");
}

TEST(NextConfig, TheTrainerAloneCheapestIsMeasuredBesideItsCheapestClusterWithData) {
  NextConfigInputs in;
  in.config = measured_config();
  in.config["configurations"][1]["execution"]["cpus"] = {0, 1};  // every CPU of a 2-CPU host
  in.name = "c";
  in.reference = 1;
  in.host_cpus = 2;
  const Candidate alone = cluster("ml.p3.2xlarge", 8, 1, 3.825, "", 0, 0, 0);
  const Candidate with = cluster("ml.p3.2xlarge", 8, 1, 3.825, "ml.c5.xlarge", 1, 4, 0.2);
  const nlohmann::json next = next_config(in, alone, &with);
  // The cheapest is the baseline's own cluster: not repeated; the cluster with data is added.
  ASSERT_EQ(next["configurations"].size(), 2u);
  EXPECT_EQ(next["configurations"][1]["name"], "projected-with-data");
  EXPECT_EQ(next["configurations"][1]["execution"]["cpus"], nlohmann::json::array({0}));
  EXPECT_EQ(next["configurations"][1]["execution"]["data"]["spawn_local"]["cpus"], nlohmann::json::array({1}));
  // A config with a data-group configuration: that one's execution is reused.
  in.config["configurations"].push_back(nlohmann::json::parse(
      R"({"name": "het", "instances": [{"type": "ml.p3.2xlarge", "role": "dnn"}, {"type": "ml.c5.xlarge", "role": "data"}],
          "execution": {"threads": 1, "cpus": [0], "data": {"mode": "service", "spawn_local": {"processes": 1, "cpus": [1]}}}})"));
  in.data_configuration = 2;
  const nlohmann::json reused = next_config(in, with, nullptr);
  EXPECT_EQ(reused["configurations"][1]["execution"], in.config["configurations"][2]["execution"]);
  // Priced-only: the cheapest alone, as the baseline, no execution.
  in.priced_only = true;
  const nlohmann::json priced = next_config(in, alone, &with);
  ASSERT_EQ(priced["configurations"].size(), 1u);
  EXPECT_EQ(priced["configurations"][0], (nlohmann::json{{"name", "projected-cheapest"}, {"baseline", true},
                                                          {"instances", {{{"type", "ml.p3.2xlarge"}, {"count", 1}, {"role", "dnn"}}}}}));
}

TEST(NextConfig, ServiceExecutionOnOneCpuSharesIt) {
  const nlohmann::json e = service_execution(nlohmann::json::object(), 3, 1);
  EXPECT_EQ(e["cpus"], nlohmann::json::array({0}));
  EXPECT_EQ(e["data"]["spawn_local"]["cpus"], nlohmann::json::array({0}));
  EXPECT_EQ(e["data"]["spawn_local"]["processes"], 3);
  EXPECT_EQ(e["data"]["prefetch_batches"], 4);
}

TEST(NextConfig, DataParallelRanksTrainOneRankBesideTheDataService) {
  const nlohmann::json e = service_execution(nlohmann::json::parse(R"({"threads": 1, "distributed": {"ranks": 4}})"), 1, 2);
  EXPECT_FALSE(e.contains("distributed"));
  EXPECT_EQ(e["data"]["mode"], "service");
}

// --- src/project/assemble.h: from the gathered inputs to a workload's projection ------------------

TEST(ProjectAssemble, RelativeCiFromTheMeansIntervalElseFromTheSpread) {
  Result r;
  EXPECT_EQ(relative_ci(r), 0);  // no step
  r.step = StepTimeEstimate{100, std::nullopt, 200, std::array<double, 2>{190, 214}, 0.95, 0.5};
  EXPECT_DOUBLE_EQ(relative_ci(r), 12.0 / 200);  // half of 24 ms over the 200 ms mean
  // Fewer steps than an interval needs: 1.96 CV / sqrt(n), widened by sqrt((1 + rho) / (1 - rho)).
  r.step->mean_ci95_ms.reset();
  r.spread = StepTimeSpread{200, 20, 0.1, 180, 220};
  r.measurement = Measurement{};
  r.measurement->step_ms = {190, 200, 210, 200};
  EXPECT_DOUBLE_EQ(relative_ci(r), 1.96 * 0.1 / 2 * std::sqrt(1.5 / 0.5));
  r.step->lag1_autocorrelation = 0.99;  // clamped at 0.9
  EXPECT_DOUBLE_EQ(relative_ci(r), 1.96 * 0.1 / 2 * std::sqrt(1.9 / (1 - 0.9)));
}

TEST(ProjectAssemble, LayoutBytesPerBatch) {
  // ResNet cifar (docs/projection.md): 1024 x (3 x 32 x 32 x 4 + 8) = 12,591,104 bytes.
  const std::vector<TensorDecl> cifar = {{"inputs", "float32", {3, 32, 32}}, {"targets", "int64", {}}};
  EXPECT_EQ(layout_bytes(cifar, 1024), std::optional<double>(1024.0 * (3 * 32 * 32 * 4 + 8)));
  EXPECT_EQ(layout_bytes({{"inputs", "complex64", {2}}}, 8), std::nullopt);
  EXPECT_EQ(layout_bytes({}, 8), std::nullopt);
}

TEST(ProjectAssemble, Seed000Example2ThroughTheWholeWorkload) {
  // The shipped table and the seed's given steps, as `pperf project` gathers them: the
  // heterogeneous configuration checked at 1193 x 8/44 against its 184 ms, cheapest first.
  const PriceTable table = load_price_table(pperf::testing::source_dir() + "/pricing/tables/aws-sagemaker-us-east-1.json");
  WorkloadInputs in;
  in.measured = given(1193, 8, 8192);
  in.trainer = InstanceGroup{"ml.p3.2xlarge", 1, "dnn"};
  in.trainer_accelerators = 1;
  ConfigurationInput homogeneous, heterogeneous;
  homogeneous.name = "homogeneous", homogeneous.reference = true, homogeneous.trainer = in.trainer;
  homogeneous.actual_ms = 1193, homogeneous.actual_source = "given";
  heterogeneous.name = "heterogeneous", heterogeneous.trainer = in.trainer;
  heterogeneous.data = InstanceGroup{"ml.c5.9xlarge", 1, "data"};
  heterogeneous.actual_ms = 184, heterogeneous.actual_source = "given";
  in.configurations = {homogeneous, heterogeneous};
  in.max_data = 2;
  FactorInputs factors;
  factors.reference_family_exact = true;
  factors.reference_family = "p3";
  const WorkloadProjection w = project_workload(in, table, factors);
  ASSERT_EQ(w.checks.size(), 2u);
  EXPECT_NEAR(w.checks[1].predicted.step_ms.value, 1193.0 * 8 / 44, 1e-9);
  EXPECT_NEAR(error_pct(w.checks[1]), 17.88, 0.01);
  EXPECT_FALSE(w.host_calibration);
  // Every cluster once (the p3 alone and with 1..2 of each CPU-only type: 5), cheapest per sample first.
  EXPECT_EQ(w.predictions.size(), 5u);
  for (size_t i = 1; i < w.predictions.size(); ++i)
    EXPECT_LE(w.predictions[i - 1].usd_per_1m_samples.value, w.predictions[i].usd_per_1m_samples.value);
  // The factors used, by family: c5 unmeasured (1, ±25 %), p3 the reference's own cores.
  ASSERT_EQ(w.speed_factors.size(), 2u);
  EXPECT_EQ(w.speed_factors[0].family, "c5");
  EXPECT_DOUBLE_EQ(w.speed_factors[0].factor.hi, 1.25);
  EXPECT_EQ(w.speed_factors[1].source, "reference: the given step's own cores");
  EXPECT_FALSE(w.knee_vcpus_per_accelerator);  // no trainer step: no knee
}

TEST(ProjectAssemble, MeasuredHereTheChecksAreOnThisHostsCpusAndCalibrated) {
  // The reference pooled on 1 CPU, measured at 30 ms against 20 ms projected: x 1.5 on every check;
  // the other configuration's pipeline on 1 CPU of its own.
  const PriceTable table = load_price_table(pperf::testing::source_dir() + "/pricing/tables/aws-sagemaker-us-east-1.json");
  WorkloadInputs in;
  in.measured.workload = "w";
  in.measured.samples_per_step = 100;
  in.measured.pipeline_cpu_s_per_sample = Range::point(1e-4);  // 10 ms of pipeline a step
  in.measured.trainer_cpu_s_per_step = 0.010;                    // 10 ms of trainer
  in.measured.trainer_step_ms = Range::point(10);
  in.trainer = InstanceGroup{"ml.p3.2xlarge", 1, "dnn"};
  in.trainer_accelerators = 1;
  ConfigurationInput local, service;
  local.name = "local", local.reference = true, local.trainer = in.trainer;
  local.host = ConfigurationInput::HostCpus{1, true, 0};
  local.actual_ms = 30, local.actual_source = "measured";
  service.name = "service", service.trainer = in.trainer, service.data = InstanceGroup{"ml.c5.9xlarge", 1, "data"};
  service.host = ConfigurationInput::HostCpus{1, false, 1};
  in.configurations = {local, service};
  in.calibrate_to_host = true;
  FactorInputs factors;
  factors.relative_to_host = true;
  const WorkloadProjection w = project_workload(in, table, factors);
  ASSERT_EQ(w.checks.size(), 2u);
  // Pooled on 1 CPU: (10 + 10) ms of CPU a step = 20 ms; measured 30: calibration 1.5.
  ASSERT_TRUE(w.host_calibration);
  EXPECT_NEAR(*w.host_calibration, 1.5, 1e-12);
  EXPECT_NEAR(w.checks[0].predicted.step_ms.value, 30, 1e-9);
  // Apart: max(trainer 10, pipeline 10 on its own CPU) = 10 ms, x 1.5.
  EXPECT_NEAR(w.checks[1].predicted.step_ms.value, 15, 1e-9);
  EXPECT_FALSE(w.checks[1].predicted.candidate.pooled);
  EXPECT_EQ(w.checks[1].predicted.trainer_speed.source, "this host");
  for (const auto& f : w.speed_factors) EXPECT_EQ(f.source.rfind("relative to this host; ", 0), 0u) << f.source;
}

TEST(ProjectAssemble, MeasuredFromTheRunnersCpuAccounting) {
  // 10 steps of 32 samples in 2 s; a local loader of 1 thread on the trainer's 2 CPUs, 25 % busy;
  // the trainer's CPUs 50 % busy, 1 thread: 0.5 s of loader, 2 s of trainer CPU time.
  Result r;
  r.workload = "w";
  r.configuration = "local";
  r.samples_per_step = 32;
  r.measurement = Measurement{};
  r.measurement->step_ms.assign(10, 200);
  r.measurement->elapsed_s = 2;
  r.step = StepTimeEstimate{200, std::nullopt, 200, std::array<double, 2>{190, 210}};
  r.bottleneck = Bottleneck{};
  r.bottleneck->trainer_cpu_pct = 50;
  r.bottleneck->data_cpu_pct = 25;
  r.execution = ExecutionReport{};
  r.execution->cpus = {0, 1};
  r.execution->data_workers = 1;
  r.execution->threads_effective = 1;
  WorkloadCapabilities pipeline;
  pipeline.data_workers = true;
  double cores = 0;
  const Measured m = measured_from(r, &pipeline, 8, "r.json", &cores);
  EXPECT_DOUBLE_EQ(cores, 1);  // one loader thread
  EXPECT_DOUBLE_EQ(m.pipeline_cpu_s_per_sample.value, 0.25 * 2 * 1 / (10 * 32.0));
  EXPECT_DOUBLE_EQ(m.pipeline_cpu_s_per_sample.hi / m.pipeline_cpu_s_per_sample.value, 1.05);  // the mean's ±5 %
  EXPECT_DOUBLE_EQ(m.trainer_cpu_s_per_step, 0.5 * 2 * 2 / 10);
  EXPECT_DOUBLE_EQ(m.trainer_step_ms->value, 200);  // on the CPU: its CPU time per step / 1 thread
  EXPECT_TRUE(m.pipeline_absent.empty());
  // A workload whose step makes its own input: no pipeline to project.
  const WorkloadCapabilities own_input;
  EXPECT_EQ(measured_from(r, &own_input, 8, "r.json").pipeline_absent,
            "workload w has no input pipeline a data worker can run (its step makes its own input)");
  r.measurement.reset();
  EXPECT_THROW(measured_from(r, &pipeline, 8, "r.json"), InputError);
}

// The projection page escapes as every HTML writer does (reports/markup.h): a quote and a
// control character in a name are made safe, not only <, >, & and ".
TEST(ProjectionReport, HtmlEscapesLikeEveryPage) {
  Projection p;
  p.config_name = "o'brien\x01<x>";
  const std::string html = projection_html(ProjectionPage{&p, 10, {}});
  EXPECT_NE(html.find("Projection of o&#39;brien &lt;x&gt;</h1>"), std::string::npos) << html;
  EXPECT_EQ(html.find("o'brien"), std::string::npos);
}
