// The projection model (src/project): exact figures where the formula is exact, the seed's
// heterogeneous results from their homogeneous ones, the catalog's candidates, the report.
#include <gtest/gtest.h>

#include "src/project/projection.h"
#include "src/project/report.h"

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
  const SpeedFactor c5 = unmeasured_factor("c5");  // 1 +-25 %
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

TEST(Projection, CatalogCandidatesOfTheShippedTables) {
  const PriceTable sm = load_price_table(PPERF_SOURCE_DIR "/pricing/tables/aws-sagemaker-us-east-1.json");
  // ml.p3.2xlarge is the only V100 x1; two CPU-only types x 1..2 each, plus alone: 5.
  const auto p3 = catalog_candidates(sm, "ml.p3.2xlarge", 1, 2, Market::on_demand);
  ASSERT_EQ(p3.size(), 5u);
  EXPECT_EQ(p3[0].data_count, 0);
  EXPECT_DOUBLE_EQ(p3[0].trainer_usd_per_hour, 3.825);
  const PriceTable ec2 = load_price_table(PPERF_SOURCE_DIR "/pricing/tables/aws-ec2-us-east-1.json");
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
  const nlohmann::json j = to_json(p);
  EXPECT_EQ(j["kind"], "pperf-projection");
  EXPECT_DOUBLE_EQ(j["workloads"][0]["knee_vcpus_per_accelerator"].get<double>(), 36);
  EXPECT_EQ(j["workloads"][0]["predictions"].size(), 4u);
  // 96 + 3 x 72 = 312 vCPUs >= 288: the third data instance reaches the trainer's floor (the knee).
  EXPECT_EQ(w.predictions[3].bound, "trainer");
  EXPECT_EQ(w.predictions[2].bound, "pipeline");
  const std::string html = html_page(p, 10);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("class=\"knee\""), std::string::npos);
}
