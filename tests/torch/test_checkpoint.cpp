// Spot checkpoints: a restored training state continues exactly as if never stopped (model,
// optimizer and the random generator dropout draws from: mnist_heavy has dropout).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>

#include "bench/core/workload_registry.h"
#include "bench/measure/spot_drill.h"
#include "test_helpers.h"
#include "workloads/workload.h"

using namespace pperf;

namespace {

class Checkpoint : public ::testing::TestWithParam<std::string> {};

WorkloadSpec tiny(const std::string& name, uint64_t seed) {
  return make_workload_spec(*builtin_workloads().find(name), "tiny", 4, nlohmann::json::object(), seed);
}

}  // namespace

TEST_P(Checkpoint, LossAfterRestoreEqualsLossWithout) {
  const WorkloadDescriptor& d = *builtin_workloads().find(GetParam());
  pperf::testing::TempDir dir;
  const std::string path = dir.path() + "/state.pt";
  const auto pipeline = d.make_pipeline(tiny(GetParam(), 1));
  auto trained = d.make_workload(tiny(GetParam(), 1));
  for (int64_t i = 0; i < 3; ++i) trained->train_step(pipeline->make_batch(i));
  EXPECT_GT(write_checkpoint(*trained, path, 3), 0);
  const double loss3 = trained->train_step(pipeline->make_batch(3));
  const double loss4 = trained->train_step(pipeline->make_batch(4));

  // Another initialisation (seed 2), then the checkpoint: the same losses, to the bit.
  auto restored = d.make_workload(tiny(GetParam(), 2));
  EXPECT_EQ(read_checkpoint(*restored, path), 3);
  EXPECT_EQ(restored->train_step(pipeline->make_batch(3)), loss3);
  EXPECT_EQ(restored->train_step(pipeline->make_batch(4)), loss4);

  // Without the checkpoint the seed-2 model trains to other losses (the test can fail).
  auto fresh = d.make_workload(tiny(GetParam(), 2));
  EXPECT_NE(fresh->train_step(pipeline->make_batch(3)), loss3);
}

INSTANTIATE_TEST_SUITE_P(Workloads, Checkpoint, ::testing::Values("vit_synthetic", "mnist_heavy"));

TEST(CheckpointCost, MeasuresSaveAndRestoreAndRemovesTheFile) {
  const WorkloadDescriptor& d = *builtin_workloads().find("vit_synthetic");
  pperf::testing::TempDir dir;
  auto w = d.make_workload(tiny("vit_synthetic", 1));
  const std::string path = checkpoint_path(dir.path(), "4x g5/spot");
  EXPECT_EQ(std::filesystem::path(path).parent_path(), dir.path());
  const CheckpointCost c = measure_checkpoint(*w, path, 3);
  // 81,226 fp32 parameters, plus Adam's two moments of each once trained: at least the weights.
  EXPECT_GE(c.bytes, 81226 * 4);
  EXPECT_GT(c.save_ms, 0);
  EXPECT_GT(c.restore_ms, 0);
  EXPECT_EQ(c.repetitions, 3);
  EXPECT_FALSE(std::filesystem::exists(path));
}
