#include <ATen/autocast_mode.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "src/measure/executor.h"
#include "workloads/common/synthetic_normal.h"
#include "src/core/workload_registry.h"
#include "workloads/workload.h"

using namespace pperf;

namespace {
const WorkloadDescriptor& vit() { return *builtin_workloads().find("vit_synthetic"); }

WorkloadSpec spec(const std::string& preset, int64_t batch, const std::string& precision = "fp32") {
  return make_workload_spec(vit(), preset, batch, {{"precision", precision}});
}

// Trainable parameters of timm's VisionTransformer, counted layer by layer.
int64_t vit_params(int64_t image, int64_t patch, int64_t dim, int64_t depth, int64_t mlp, int64_t classes) {
  const int64_t tokens = (image / patch) * (image / patch) + 1;
  const int64_t patch_embed = 3 * patch * patch * dim + dim;
  const int64_t cls_and_pos = dim + tokens * dim;
  const int64_t layer_norm = 2 * dim;
  const int64_t block = layer_norm + (dim * 3 * dim + 3 * dim) + (dim * dim + dim) + layer_norm +
                        (dim * mlp + mlp) + (mlp * dim + dim);
  const int64_t head = dim * classes + classes;
  return patch_embed + cls_and_pos + depth * block + layer_norm + head;
}

// Forward multiply-adds per sample: patch conv, per block qkv + QK^T + AV + proj + MLP, head.
// Building ViT-B/16 takes seconds here: the tests that need its ModelInfo share one.
const ModelInfo& base_info() {
  static const ModelInfo info = vit().make_workload(spec("base", 1))->model_info();
  return info;
}

double vit_forward_macs(int64_t image, int64_t patch, int64_t dim, int64_t depth, int64_t mlp, int64_t classes) {
  const double n = (image / patch) * (image / patch), t = n + 1, d = dim;
  return n * d * 3 * patch * patch + depth * (3 * t * d * d + 2 * t * t * d + t * d * d + 2 * t * d * mlp) +
         d * classes;
}
}  // namespace

TEST(ViT, ParamCountsMatchTheFormula) {
  EXPECT_EQ(vit_params(224, 16, 768, 12, 3072, 1000), 86567656);  // the formula agrees with timm's ViT-B/16
  EXPECT_EQ(base_info().params, 86567656);
  const int64_t small = vit_params(224, 16, 384, 12, 1536, 1000);
  EXPECT_EQ(small, 22050664);  // timm vit_small_patch16_224
  EXPECT_EQ(vit().make_workload(spec("small", 1))->model_info().params, small);
  const int64_t tiny = vit_params(32, 8, 64, 2, 128, 10);
  EXPECT_EQ(tiny, 81226);
  EXPECT_EQ(vit().make_workload(spec("tiny", 1))->model_info().params, tiny);
}

TEST(ViT, FlopsPerSampleAreThreeTimesTwiceTheForwardMacs) {
  const double base_macs = vit_forward_macs(224, 16, 768, 12, 3072, 1000);
  EXPECT_DOUBLE_EQ(base_macs, 17563828224.0);  // ~17.6 GMACs, the usual ViT-B/16 figure
  const ModelInfo& base = base_info();
  EXPECT_DOUBLE_EQ(base.flops_per_sample, 3 * 2 * base_macs);
  EXPECT_EQ(base.precision, "fp32");
  EXPECT_TRUE(base.events.empty());
  EXPECT_DOUBLE_EQ(vit().make_workload(spec("tiny", 1))->model_info().flops_per_sample,
                   3 * 2 * vit_forward_macs(32, 8, 64, 2, 128, 10));
}

TEST(ViT, PipelineIsDeterministicPerBatchIndex) {
  auto a = vit().make_pipeline(spec("tiny", 64));
  auto b = vit().make_pipeline(spec("tiny", 64));
  Batch x = a->make_batch(5), y = b->make_batch(5), z = a->make_batch(6);
  EXPECT_EQ(x.inputs.sizes(), (std::vector<int64_t>{64, 3, 32, 32}));
  EXPECT_EQ(x.inputs.dtype(), torch::kFloat);
  EXPECT_TRUE(torch::equal(x.inputs, y.inputs));
  EXPECT_TRUE(torch::equal(x.targets, y.targets));
  EXPECT_FALSE(torch::equal(x.inputs, z.inputs));
  EXPECT_FALSE(torch::equal(x.inputs[0], x.inputs[1]));  // samples within a batch differ too
  WorkloadSpec other_seed = spec("tiny", 64);
  other_seed.seed = 1;
  EXPECT_FALSE(torch::equal(x.inputs, vit().make_pipeline(other_seed)->make_batch(5).inputs));
  for (int64_t i = 0; i < 64; ++i) EXPECT_EQ(x.targets[i].item<int64_t>(), (5 * 64 + i) % 10);
  EXPECT_EQ(a->data_info().source, "synthetic");
  EXPECT_EQ(a->data_info().samples, 1000000);
  EXPECT_EQ(vit().make_pipeline(spec("base", 2))->make_batch(0).inputs.sizes(),
            (std::vector<int64_t>{2, 3, 224, 224}));
}

// A statistical property with generous tolerances: 196,608 draws have a standard error of the
// mean of ~0.0023, so these bounds fail only if the generator is wrong.
TEST(ViT, PipelineImagesAreStandardNormal) {
  torch::Tensor x = vit().make_pipeline(spec("tiny", 64))->make_batch(0).inputs;
  EXPECT_NEAR(x.mean().item<double>(), 0.0, 0.02);
  EXPECT_NEAR(x.std().item<double>(), 1.0, 0.02);
  const double within_one_sigma = (x.abs() < 1).to(torch::kDouble).mean().item<double>();
  EXPECT_NEAR(within_one_sigma, 0.6827, 0.01);
  EXPECT_NEAR((x * x * x).mean().item<double>(), 0.0, 0.05);   // skewness
  EXPECT_NEAR(x.pow(4).mean().item<double>(), 3.0, 0.1);       // kurtosis
  EXPECT_TRUE(torch::isfinite(x).all().item<bool>());
}

TEST(ViT, NormalGeneratorHandlesOddLengthsAndIsSeeded) {
  std::vector<float> a(7), b(7);
  fill_standard_normal(a.data(), 7, 42);
  fill_standard_normal(b.data(), 7, 42);
  EXPECT_EQ(a, b);
  fill_standard_normal(b.data(), 7, 43);
  EXPECT_NE(a, b);
  for (float v : a) EXPECT_TRUE(std::isfinite(v));
  EXPECT_NE(stream_seed(0, 1), stream_seed(0, 2));
  EXPECT_NE(stream_seed(0, 1), stream_seed(1, 1));
}

TEST(ViT, TinyStepsOnAFixedBatchReduceTheLoss) {
  auto w = vit().make_workload(spec("tiny", 32));
  Batch batch = vit().make_pipeline(spec("tiny", 32))->make_batch(0);
  double first = w->train_step(batch), last = first;
  for (int i = 0; i < 15; ++i) last = w->train_step(batch);
  EXPECT_LT(last, first * 0.8) << "first " << first << " last " << last;
}

TEST(ViT, Bf16AutocastChangesTheMatmulDtypeOnThisCpu) {
  const torch::Tensor a = torch::randn({16, 16}), b = torch::randn({16, 16});
  ASSERT_FALSE(at::autocast::is_cpu_enabled());
  at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
  at::autocast::set_cpu_enabled(true);
  const torch::Tensor inside = torch::mm(a, b);
  at::autocast::set_cpu_enabled(false);
  at::autocast::clear_cache();
  EXPECT_EQ(inside.scalar_type(), at::kBFloat16);
  EXPECT_EQ(torch::mm(a, b).scalar_type(), at::kFloat);
  EXPECT_TRUE(torch::allclose(inside.to(torch::kFloat), torch::mm(a, b), 0.05, 0.1));
}

TEST(ViT, Bf16PrecisionReportsWhatRanAndSteps) {
  auto bf16 = vit().make_workload(spec("tiny", 16, "bf16"));
  ModelInfo info = bf16->model_info();
  // On a CPU where bf16 autocast works (this one: see the test above) that is what runs; anywhere
  // else the workload must say fp32 and why.
  if (info.precision == "fp32") {
    ASSERT_FALSE(info.events.empty());
    GTEST_SKIP() << "bf16 not usable here: " << info.events.front();
  }
  EXPECT_EQ(info.precision, "bf16-autocast");
  EXPECT_TRUE(info.events.empty());

  auto fp32 = vit().make_workload(spec("tiny", 16, "fp32"));
  Batch batch = vit().make_pipeline(spec("tiny", 16))->make_batch(0);
  const double bf16_loss = bf16->train_step(batch), fp32_loss = fp32->train_step(batch);
  EXPECT_TRUE(std::isfinite(bf16_loss));
  // Same seed, same weights, same batch: bf16 rounding makes the losses close but not equal.
  EXPECT_NEAR(bf16_loss, fp32_loss, 0.05);
  EXPECT_NE(bf16_loss, fp32_loss);
  EXPECT_EQ(bf16->model_info().precision, "bf16-autocast");
  EXPECT_FALSE(at::autocast::is_cpu_enabled()) << "autocast must be restored after the step";
  EXPECT_EQ(at::autocast::get_autocast_cpu_dtype(), at::kBFloat16);  // default, restored
}

// One full-size ViT-B/16 step at batch 1 (seconds on 2 cores; CI may filter *LongFullStep*).
TEST(ViT, LongFullStep) {
  auto w = vit().make_workload(spec("base", 1));
  Batch batch = vit().make_pipeline(spec("base", 1))->make_batch(0);
  const double loss = w->train_step(batch);
  EXPECT_TRUE(std::isfinite(loss));
  EXPECT_NEAR(loss, std::log(1000.0), 1.0);  // near-uniform logits at init
}

// The hook a bf16 fallback relies on: the sweep asks model_info() again after running, so a
// precision change during the run shows in the result, with the workload's events.
namespace {
class ChangesPrecisionWhenRun : public Workload {
 public:
  ModelInfo model_info() const override {
    ModelInfo info{1, 0, stepped_ ? "fp32" : "bf16-autocast"};
    if (stepped_) info.events.push_back("precision bf16 requested but running fp32: test");
    return info;
  }
  double train_step(const Batch&) override {
    stepped_ = true;
    return 1.0;
  }

 private:
  bool stepped_ = false;
};

class ZerosPipeline : public InputPipeline {
 public:
  Batch make_batch(int64_t index) const override { return {index, torch::zeros({2, 1}), torch::zeros({2})}; }
  DataInfo data_info() const override { return {"zeros", "", 0}; }
};
}  // namespace

TEST(ViT, SweepCarriesModelInfoAsItIsAfterTheRun) {
  WorkloadRegistry registry;
  WorkloadDescriptor d;
  d.name = "changes_precision";
  d.presets = {{"tiny", "", 2}};
  d.make_workload = [](const WorkloadSpec&) { return std::make_unique<ChangesPrecisionWhenRun>(); };
  d.make_pipeline = [](const WorkloadSpec&) { return std::make_shared<ZerosPipeline>(); };
  registry.add(d);
  Config config;
  config.name = "t";
  config.workloads = {make_workload_spec(*registry.find("changes_precision"), "tiny", 2)};
  config.measure.warmup_steps = 1;
  config.measure.min_steps = config.measure.max_steps = 2;
  Configuration c;
  c.name = "a";
  c.baseline = true;
  config.configurations = {c};
  std::atomic<bool> stop{false};
  const Plan plan = make_plan(config, {}, HostCapacity{1});
  ExecutorOptions in_process;
  in_process.process.in_process = true;
  MeasureObserver quiet;
  std::vector<Result> results = run_plan(config, plan, registry, in_process, stop, quiet);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, ResultStatus::ok) << results[0].reason;
  EXPECT_EQ(results[0].model->precision, "fp32");
  EXPECT_NE(std::find(results[0].events.begin(), results[0].events.end(),
                      "precision bf16 requested but running fp32: test"),
            results[0].events.end());
}
