// Spot checkpoints: a restored training state continues exactly as if never stopped (model,
// optimizer and the random generator dropout draws from: mnist_heavy has dropout).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>

#include "src/core/workload_registry.h"
#include "src/measure/spot_drill.h"
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

// Every built-in workload declares what its optional hooks really do: config validation trusts
// the declaration, so a hook added or dropped without it would be refused or degrade silently.
TEST(WorkloadCapabilities, EveryBuiltinDeclaresWhatItsHooksDo) {
  for (const WorkloadDescriptor& d : builtin_workloads().all()) {
    SCOPED_TRACE(d.name);
    nlohmann::json params = nlohmann::json::object();
    if (d.name == "torchscript")
      params = {{"path", pperf::testing::source_dir() + "/tests/data/tiny_mlp.pt"}, {"input_shape", {64}}, {"classes", 10}};
    // A Python step with save_state/load_state (Debian's python3: no framework needed).
    if (d.name == "python_step") params = {{"step", "test_steps:null"}, {"python", "/usr/bin/python3"}};
    WorkloadSpec spec = make_workload_spec(d, d.find_preset("tiny") ? "tiny" : "", 4, params, 1);
    spec.config_dir = pperf::testing::source_dir() + "/tests/data/python_step";
    auto workload = d.make_workload(spec);
    EXPECT_EQ(d.capabilities.data_parallel, !workload->parameters().empty());
    torch::serialize::OutputArchive archive;
    EXPECT_EQ(d.capabilities.checkpoint, workload->save_state(archive));
    EXPECT_EQ(d.capabilities.data_workers, d.make_pipeline && d.batch_layout && d.make_pipeline(spec));
    EXPECT_EQ(d.capabilities.model_flops, workload->model_info().flops_per_sample > 0);
    // Ranks are either pperf's data-parallel or the step's own group, never both.
    EXPECT_FALSE(d.capabilities.steps_as_own_ranks && d.capabilities.data_parallel);
    // static_shapes: the step runs as device work alone, its loss a tensor (a CUDA graph captures it).
    if (d.capabilities.static_shapes) {
      const torch::Tensor loss = workload->graphable_step(d.make_pipeline(spec)->make_batch(0));
      EXPECT_EQ(loss.numel(), 1);
      EXPECT_TRUE(std::isfinite(loss.item<double>()));
    } else if (d.make_pipeline) {
      EXPECT_THROW(workload->graphable_step(d.make_pipeline(spec)->make_batch(0)), std::logic_error);
    }
  }
}
