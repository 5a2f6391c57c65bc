#include <gtest/gtest.h>
#include <torch/torch.h>

#include "workloads/common/adadelta.h"
#include "src/core/workload_registry.h"
#include "workloads/workload.h"

using namespace pperf;

namespace {
WorkloadSpec spec(const std::string& preset, int64_t batch, const std::string& data = "fashion-mnist") {
  return make_workload_spec(*builtin_workloads().find("mnist_heavy"), preset, batch, {{"data", data}});
}
const WorkloadDescriptor& mnist() { return *builtin_workloads().find("mnist_heavy"); }
}  // namespace

TEST(MnistHeavy, FullPresetIsTheSeedNetwork) {
  auto w = mnist().make_workload(spec("full", 4));
  ModelInfo info = w->model_info();
  EXPECT_EQ(info.params, 1199882);
  // Forward: conv1 2*32*26*26*9 + conv2 2*64*24*24*32*9 + fc 2*(9216*128 + 128*10).
  EXPECT_DOUBLE_EQ(info.flops_per_sample, 3.0 * (389376 + 21233664 + 2359296 + 2560));
  EXPECT_EQ(info.precision, "fp32");
  EXPECT_EQ(mnist().make_workload(spec("tiny", 4))->model_info().params, 75338);
}

TEST(MnistHeavy, BatchesAreDeterministicNormalizedAndBlurred) {
  auto a = mnist().make_pipeline(spec("tiny", 16));
  auto b = mnist().make_pipeline(spec("tiny", 16));
  Batch x = a->make_batch(3), y = b->make_batch(3), z = a->make_batch(4);
  EXPECT_EQ(x.inputs.sizes(), (std::vector<int64_t>{16, 1, 28, 28}));
  EXPECT_EQ(x.targets.dtype(), torch::kLong);
  EXPECT_TRUE(torch::equal(x.inputs, y.inputs));
  EXPECT_TRUE(torch::equal(x.targets, y.targets));
  EXPECT_FALSE(torch::equal(x.inputs, z.inputs));
  EXPECT_EQ(a->data_info().source, "fashion-mnist");
  EXPECT_EQ(a->data_info().samples, 60000);
  // Normalize(0.1307, 0.3081) maps [0, 1] to [-0.424, 2.821]; a blur stays inside that range.
  EXPECT_GE(x.inputs.min().item<float>(), -0.4243f);
  EXPECT_LE(x.inputs.max().item<float>(), 2.8215f);
  EXPECT_GE(x.targets.min().item<int64_t>(), 0);
  EXPECT_LE(x.targets.max().item<int64_t>(), 9);
}

TEST(MnistHeavy, SyntheticDataIsLabelledSynthetic) {
  auto p = mnist().make_pipeline(spec("tiny", 4, "synthetic"));
  EXPECT_EQ(p->data_info().source, "synthetic");
  EXPECT_EQ(p->make_batch(0).inputs.size(0), 4);
}

TEST(MnistHeavy, StepsOnAFixedBatchReduceTheLoss) {
  torch::manual_seed(0);
  auto w = mnist().make_workload(spec("tiny", 32));
  Batch batch = mnist().make_pipeline(spec("tiny", 32))->make_batch(0);
  double first = w->train_step(batch), last = first;
  for (int i = 0; i < 15; ++i) last = w->train_step(batch);
  EXPECT_LT(last, first * 0.8) << "first " << first << " last " << last;
}

TEST(Adadelta, MatchesTheUpdateRuleByHand) {
  torch::Tensor p = torch::tensor({1.0}, torch::dtype(torch::kDouble).requires_grad(true));
  Adadelta opt({p}, AdadeltaOptions{1.0, 0.9, 1e-6, 0});
  double value = 1.0, sq = 0, acc = 0;
  for (int step = 0; step < 3; ++step) {
    opt.zero_grad();
    (2 * p * p).sum().backward();  // grad = 4p
    opt.step();
    const double g = 4 * value;
    sq = 0.9 * sq + 0.1 * g * g;
    const double delta = std::sqrt(acc + 1e-6) / std::sqrt(sq + 1e-6) * g;
    acc = 0.9 * acc + 0.1 * delta * delta;
    value -= delta;
    EXPECT_NEAR(p.item<double>(), value, 1e-12) << "step " << step;
  }
}
