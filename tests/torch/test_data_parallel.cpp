// Data-parallel ranks: c10d's Gloo group and Reducer wrapped around a workload, ranks as
// threads of this process meeting at a TCPStore this test serves; the launcher variables.
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "src/core/input_error.h"
#include "src/measure/data_parallel.h"
#include "src/measure/runner.h"
#include "workloads/common/torch_compat.h"

using namespace pperf;

namespace {
// A small model with two layers (so more than one gradient), plain SGD, mean loss.
class TwoLayer : public Workload {
 public:
  TwoLayer() : fc1_(torch::nn::Linear(16, 32)), fc2_(torch::nn::Linear(32, 4)) {
    torch::manual_seed(7);
    fc1_ = torch::nn::Linear(16, 32);
    fc2_ = torch::nn::Linear(32, 4);
    std::vector<torch::Tensor> params = parameters();
    optimizer_ = std::make_unique<torch::optim::SGD>(params, torch::optim::SGDOptions(0.5));
  }
  ModelInfo model_info() const override { return {}; }
  std::vector<torch::Tensor> parameters() const override {
    std::vector<torch::Tensor> p = fc1_->parameters();
    for (const auto& t : fc2_->parameters()) p.push_back(t);
    return p;
  }
  double train_step(const Batch& b) override {
    optimizer_->zero_grad();
    torch::Tensor loss = torch::mse_loss(fc2_->forward(torch::relu(fc1_->forward(b.inputs))), b.targets);
    loss.backward();
    optimizer_->step();
    if (fail_at_step >= 0 && ++steps_ > fail_at_step) {
      if (fail_out_of_memory)  // what the CUDA caching allocator throws
        TORCH_CHECK_WITH(OutOfMemoryError, false, "CUDA out of memory. Tried to allocate 2.00 GiB");
      throw std::runtime_error("this rank breaks");
    }
    return loss.item<double>();
  }
  int64_t fail_at_step = -1;
  bool fail_out_of_memory = false;

 private:
  torch::nn::Linear fc1_, fc2_;
  std::unique_ptr<torch::optim::SGD> optimizer_;
  int64_t steps_ = 0;
};

Batch batch(int64_t index, int64_t size) {
  torch::manual_seed(1000 + index);
  return {index, torch::randn({size, 16}), torch::randn({size, 4})};
}

Batch concatenated(int64_t step, int64_t world, int64_t size) {
  std::vector<torch::Tensor> in, out;
  for (int64_t r = 0; r < world; ++r) {
    Batch b = batch(step * world + r, size);
    in.push_back(b.inputs);
    out.push_back(b.targets);
  }
  return {step, torch::cat(in), torch::cat(out)};
}

/// Inputs through a BatchNorm first (its running statistics then depend on the batches only),
/// then layers of 16x512, 512x600 (1.2 MB: more than DDP's 1 MiB first bucket) and 600x4.
class Normalized : public Workload {
 public:
  Normalized()
      : bn_(torch::nn::BatchNorm1d(torch::nn::BatchNorm1dOptions(16).affine(false))), fc1_(torch::nn::Linear(16, 512)), fc2_(torch::nn::Linear(512, 600)),
        fc3_(torch::nn::Linear(600, 4)) {
    optimizer_ = std::make_unique<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(0.1));
  }
  ModelInfo model_info() const override { return {}; }
  std::vector<torch::Tensor> parameters() const override {
    std::vector<torch::Tensor> p;
    for (const auto& layer : {fc1_, fc2_, fc3_})
      for (const auto& t : layer->parameters()) p.push_back(t);
    return p;  // fc1.weight, fc1.bias, fc2.weight, fc2.bias, fc3.weight, fc3.bias (BN's affine off)
  }
  std::vector<torch::Tensor> buffers() const override { return bn_->buffers(); }
  double train_step(const Batch& b) override {
    optimizer_->zero_grad();
    torch::Tensor x = torch::relu(fc1_->forward(bn_->forward(b.inputs)));
    torch::Tensor loss = torch::mse_loss(fc3_->forward(torch::relu(fc2_->forward(x))), b.targets);
    loss.backward();
    optimizer_->step();
    return loss.item<double>();
  }
  torch::nn::BatchNorm1d bn_;

 private:
  torch::nn::Linear fc1_, fc2_, fc3_;
  std::unique_ptr<torch::optim::SGD> optimizer_;
};

RankContext context_for(const RunStore& store, int64_t rank, int64_t world, const std::string& prefix) {
  RankContext c;
  c.rank = rank;
  c.world_size = world;
  c.store_port = store.port();
  c.store_prefix = prefix;
  return c;
}

std::vector<torch::Tensor> clone_all(const std::vector<torch::Tensor>& ts) {
  std::vector<torch::Tensor> out;
  for (const auto& t : ts) out.push_back(t.detach().clone());
  return out;
}
}  // namespace

TEST(DataParallel, RanksHoldIdenticalParametersEqualToOneProcessOnTheConcatenatedBatch) {
  constexpr int64_t kWorld = 2, kBatch = 8, kSteps = 4;
  RankContext serve;
  serve.world_size = kWorld;
  RunStore store(serve, true, 20);
  std::vector<std::vector<torch::Tensor>> params(kWorld);
  std::vector<std::string> errors(kWorld);
  std::vector<std::vector<CommStep>> comm(kWorld);
  // Models and batches are drawn here, not in the rank threads: they seed torch's one global
  // generator, which two threads would interleave.
  std::vector<std::unique_ptr<TwoLayer>> models;
  std::vector<std::vector<Batch>> batches(kWorld);
  for (int64_t r = 0; r < kWorld; ++r) {
    models.push_back(std::make_unique<TwoLayer>());
    for (int64_t s = 0; s < kSteps; ++s) batches[r].push_back(batch(s * kWorld + r, kBatch));
  }
  std::vector<std::thread> ranks;
  for (int64_t r = 0; r < kWorld; ++r)
    ranks.emplace_back([&, r] {
      try {
        TwoLayer& inner = *models[r];
        if (r == 1) {  // rank 1 starts elsewhere: the broadcast from rank 0 must undo it
          torch::NoGradGuard no_grad;
          for (auto& p : inner.parameters()) p.add_(1.0);
        }
        auto group = join_group(context_for(store, r, kWorld, "t1/"), {"gloo", 20, "same"});
        DataParallelWorkload dp(inner, group, 1 << 20);
        for (int64_t s = 0; s < kSteps; ++s) dp.train_step(batches[r][s]);
        params[r] = clone_all(dp.parameters());
        comm[r] = dp.comm_steps();
      } catch (const std::exception& e) {
        errors[r] = e.what();
      }
    });
  for (auto& t : ranks) t.join();
  for (int64_t r = 0; r < kWorld; ++r) ASSERT_EQ(errors[r], "") << "rank " << r;

  TwoLayer reference;
  for (int64_t s = 0; s < kSteps; ++s) reference.train_step(concatenated(s, kWorld, kBatch));
  const std::vector<torch::Tensor> expected = reference.parameters();
  ASSERT_EQ(params[0].size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_TRUE(torch::equal(params[0][i], params[1][i])) << "parameter " << i << " differs between ranks";
    EXPECT_TRUE(torch::allclose(params[0][i], expected[i], 1e-5, 1e-6)) << "parameter " << i;
  }
  EXPECT_EQ(parameters_sha256(params[0]), parameters_sha256(params[1]));
  // Every step all-reduced every gradient: (16x32 + 32 + 32x4 + 4) floats.
  ASSERT_EQ(comm[0].size(), static_cast<size_t>(kSteps));
  EXPECT_EQ(comm[0][0].bytes, (16 * 32 + 32 + 32 * 4 + 4) * 4);
  EXPECT_GE(comm[0][0].allreduce_ms, 0);
}

TEST(DataParallel, ARankThatThrowsEndsTheOthersStepWithinTheTimeout) {
  constexpr int64_t kWorld = 2;
  RankContext serve;
  serve.world_size = kWorld;
  RunStore store(serve, true, 5);
  std::vector<std::string> errors(kWorld);
  std::vector<double> seconds(kWorld);
  std::vector<std::thread> ranks;
  for (int64_t r = 0; r < kWorld; ++r)
    ranks.emplace_back([&, r] {
      const auto start = std::chrono::steady_clock::now();
      try {
        TwoLayer inner;
        if (r == 1) inner.fail_at_step = 2;
        auto group = join_group(context_for(store, r, kWorld, "t2/"), {"gloo", 3, "same"});
        DataParallelWorkload dp(inner, group, 1 << 20);
        for (int64_t s = 0; s < 50; ++s) dp.train_step(batch(s * kWorld + r, 4));
      } catch (const std::exception& e) {
        errors[r] = e.what();
      }
      seconds[r] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    });
  for (auto& t : ranks) t.join();
  EXPECT_NE(errors[1].find("this rank breaks"), std::string::npos) << errors[1];
  EXPECT_NE(errors[0], "") << "rank 0 went on without its peer";
  EXPECT_LT(seconds[0], 20) << "rank 0 waited past the 3 s collective timeout";
}

TEST(DataParallel, OnlyNcclIsTimedByDeviceEventsWhateverTheDevice) {
  // Gloo's work has no getDuration (it throws): a Gloo rank on a GPU times by the host clock.
  EXPECT_EQ(collective_timing("gloo", torch::Device("cuda:0")), CollectiveTiming::host_clock);
  EXPECT_EQ(collective_timing("gloo", torch::Device("cpu")), CollectiveTiming::host_clock);
  EXPECT_EQ(collective_timing("nccl", torch::Device("cuda:1")), CollectiveTiming::device_events);
}

TEST(DataParallel, NcclIsTheEngineInitProcessGroupPicks) {
  EXPECT_FALSE(torch_compat::nccl_is_nccl2("0"));  // TORCH_DIST_USE_NCCL2=0: the legacy engine
  EXPECT_EQ(torch_compat::nccl_is_nccl2(nullptr), bool(PPERF_TORCH_NCCL2));
  EXPECT_EQ(torch_compat::nccl_is_nccl2("1"), bool(PPERF_TORCH_NCCL2));
}

TEST(DataParallel, TheGroupNamesItsEngine) {
  RankContext serve;
  RunStore store(serve, true, 5);
  auto group = join_group(context_for(store, 0, 1, "t8/"), {"gloo", 5, "alone"});
  EXPECT_EQ(engine_name(*group), "gloo");
}

TEST(DataParallel, AnOutOfMemoryErrorOfTheInnerStepReachesTheCallerAsItself) {
  constexpr int64_t kWorld = 2;
  RankContext serve;
  serve.world_size = kWorld;
  RunStore store(serve, true, 20);
  std::vector<std::string> caught(kWorld);
  std::vector<std::unique_ptr<TwoLayer>> models;
  for (int64_t r = 0; r < kWorld; ++r) {
    models.push_back(std::make_unique<TwoLayer>());
    models.back()->fail_at_step = 1;  // the second step runs out of memory, on both ranks
    models.back()->fail_out_of_memory = true;
  }
  std::vector<Batch> batches = {batch(0, 4), batch(1, 4)};
  std::vector<std::thread> ranks;
  for (int64_t r = 0; r < kWorld; ++r)
    ranks.emplace_back([&, r] {
      try {
        auto group = join_group(context_for(store, r, kWorld, "t6/"), {"gloo", 20, "same"});
        DataParallelWorkload dp(*models[r], group, 1 << 20);
        for (int64_t s = 0; s < 2; ++s) dp.train_step(batches[r]);
        caught[r] = "nothing";
      } catch (const c10::OutOfMemoryError& e) {
        caught[r] = std::string("OutOfMemoryError: ") + e.what_without_backtrace();
      } catch (const std::exception& e) {
        caught[r] = std::string("another exception: ") + e.what();
      }
    });
  for (auto& t : ranks) t.join();
  for (int64_t r = 0; r < kWorld; ++r)
    EXPECT_EQ(caught[r].rfind("OutOfMemoryError: CUDA out of memory", 0), 0u) << "rank " << r << ": " << caught[r];
}

TEST(DataParallel, BuffersAreRank0sBeforeEveryForwardAndBucketsAreRecutInGradientOrderOnce) {
  constexpr int64_t kWorld = 2, kBatch = 8, kSteps = 3;
  RankContext serve;
  serve.world_size = kWorld;
  RunStore store(serve, true, 20);
  std::vector<std::unique_ptr<Normalized>> models;
  std::vector<std::vector<Batch>> batches(kWorld);
  for (int64_t r = 0; r < kWorld; ++r) {
    torch::manual_seed(11);
    models.push_back(std::make_unique<Normalized>());
    for (int64_t s = 0; s < kSteps; ++s) batches[r].push_back(batch(s * kWorld + r, kBatch));
  }
  std::vector<torch::Tensor> start_buffers;  // rank 0's, the ones every rank must start from
  for (const auto& b : models[0]->buffers()) start_buffers.push_back(b.clone());
  {
    torch::NoGradGuard no_grad;
    for (auto& b : models[1]->buffers()) b.add_(5);  // rank 1 starts elsewhere
  }
  std::vector<std::string> errors(kWorld);
  std::vector<std::vector<std::vector<std::vector<size_t>>>> layouts(kWorld);  // before each step, and after the last
  std::vector<std::vector<torch::Tensor>> buffers(kWorld);
  std::vector<std::thread> ranks;
  for (int64_t r = 0; r < kWorld; ++r)
    ranks.emplace_back([&, r] {
      try {
        auto group = join_group(context_for(store, r, kWorld, "t7/"), {"gloo", 20, "same"});
        DataParallelWorkload dp(*models[r], group, 1 << 20);
        for (int64_t s = 0; s < kSteps; ++s) {
          layouts[r].push_back(dp.bucket_indices());
          dp.train_step(batches[r][s]);
        }
        layouts[r].push_back(dp.bucket_indices());
        for (const auto& b : dp.buffers()) buffers[r].push_back(b.clone());
      } catch (const std::exception& e) {
        errors[r] = e.what();
      }
    });
  for (auto& t : ranks) t.join();
  for (int64_t r = 0; r < kWorld; ++r) ASSERT_EQ(errors[r], "") << "rank " << r;

  // DDP's buckets: one until the first backward has shown the gradients' order; from the second
  // step on, cut in that order (fc3's and fc2's gradients come first and pass 1 MiB, then fc1's).
  using Layout = std::vector<std::vector<size_t>>;
  const auto as_sets = [](const Layout& layout) {
    std::vector<std::set<size_t>> sets;
    for (const auto& bucket : layout) sets.emplace_back(bucket.begin(), bucket.end());
    return sets;
  };
  for (int64_t r = 0; r < kWorld; ++r) {
    EXPECT_EQ(as_sets(layouts[r][0]), (std::vector<std::set<size_t>>{{0, 1, 2, 3, 4, 5}})) << "rank " << r;
    EXPECT_EQ(as_sets(layouts[r][1]), as_sets(layouts[r][0])) << "rebuilt before the first backward";
    EXPECT_EQ(as_sets(layouts[r][2]), (std::vector<std::set<size_t>>{{2, 3, 4, 5}, {0, 1}})) << "rank " << r;
    EXPECT_EQ(layouts[r][3], layouts[r][2]) << "rebuilt more than once";
  }
  EXPECT_EQ(layouts[0][3], layouts[1][3]);

  // BatchNorm's running statistics, as under DDP: each step starts from rank 0's, then each rank
  // updates them with its own batch. Rank 0's saw rank 0's batches only; rank 1's last update was
  // from rank 0's statistics of the step before with rank 1's last batch.
  torch::nn::BatchNorm1d reference(torch::nn::BatchNorm1dOptions(16).affine(false));
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < start_buffers.size(); ++i) reference->buffers()[i].copy_(start_buffers[i]);
  }
  std::vector<torch::Tensor> before_last;
  for (int64_t s = 0; s < kSteps; ++s) {
    if (s == kSteps - 1)
      for (const auto& b : reference->buffers()) before_last.push_back(b.clone());
    reference->forward(batches[0][s].inputs);
  }
  std::vector<torch::Tensor> expected0;
  for (const auto& b : reference->buffers()) expected0.push_back(b.clone());
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < before_last.size(); ++i) reference->buffers()[i].copy_(before_last[i]);
  }
  reference->forward(batches[1][kSteps - 1].inputs);
  const std::vector<torch::Tensor> expected1 = reference->buffers();
  ASSERT_EQ(buffers[0].size(), 3u);  // running_mean, running_var, num_batches_tracked
  for (size_t i = 0; i < expected0.size(); ++i) {
    EXPECT_TRUE(torch::allclose(buffers[0][i], expected0[i], 1e-5, 1e-6)) << "rank 0, buffer " << i;
    EXPECT_TRUE(torch::allclose(buffers[1][i], expected1[i], 1e-5, 1e-6)) << "rank 1, buffer " << i;
  }
}

TEST(DataParallel, ARankOfAnotherItemIsRefusedByName) {
  RankContext serve;
  serve.world_size = 2;
  RunStore store(serve, true, 5);
  std::vector<std::string> errors(2);
  std::vector<std::thread> ranks;
  for (int64_t r = 0; r < 2; ++r)
    ranks.emplace_back([&, r] {
      try {
        join_group(context_for(store, r, 2, "t3/"), {"gloo", 3, r == 0 ? "config A" : "config B"});
      } catch (const std::exception& e) {
        errors[r] = e.what();
      }
    });
  for (auto& t : ranks) t.join();
  EXPECT_NE(errors[0].find("config B"), std::string::npos) << errors[0];
}

TEST(DataParallel, AMissingRankEndsTheRendezvousAfterTheTimeout) {
  RankContext serve;
  serve.world_size = 2;
  RunStore store(serve, true, 2);
  const auto start = std::chrono::steady_clock::now();
  try {
    join_group(context_for(store, 0, 2, "t4/"), {"gloo", 1, "alone"});
    FAIL() << "joined a group whose rank 1 never came";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 1 of 2 did not join"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10);
}

TEST(DataParallel, RanksAgreeOnTheLargestCode) {
  RankContext serve;
  serve.world_size = 2;
  RunStore store(serve, true, 5);
  std::vector<int> got(2, -1);
  std::vector<std::thread> ranks;
  for (int64_t r = 0; r < 2; ++r)
    ranks.emplace_back([&, r] {
      auto group = join_group(context_for(store, r, 2, "t5/"), {"gloo", 5, "same"});
      got[r] = agree_on(*group, r == 0 ? 1 : 2);
    });
  for (auto& t : ranks) t.join();
  EXPECT_EQ(got, (std::vector<int>{2, 2}));
}

// --- the launcher convention -------------------------------------------------------------------

namespace {
GetEnv env_of(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}
}  // namespace

TEST(Launcher, TorchrunVariables) {
  auto c = launcher_from_env(
      env_of({{"RANK", "3"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "1"}, {"MASTER_ADDR", "10.0.0.5"}, {"MASTER_PORT", "29500"}}));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->rank, 3);
  EXPECT_EQ(c->world_size, 4);
  EXPECT_EQ(c->local_rank, 1);
  EXPECT_EQ(c->store_host, "10.0.0.5");
  EXPECT_EQ(c->store_port, 29500);
  EXPECT_EQ(c->launcher, Launcher::env);
  EXPECT_FALSE(launcher_from_env(env_of({})));
}

TEST(Launcher, APartialOrWrongSetNamesTheVariable) {
  try {
    launcher_from_env(env_of({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "MASTER_PORT");
  }
  try {
    launcher_from_env(env_of({{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "1"}}));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "RANK");
  }
}

TEST(Launcher, SlurmVariables) {
  auto c = launcher_from_env(env_of({{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}, {"SLURM_LOCALID", "0"},
                                     {"SLURM_JOB_NODELIST", "gpu[07-09,12],cpu1"}, {"SLURM_JOB_ID", "123456"}}));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->launcher, Launcher::slurm);
  EXPECT_EQ(c->rank, 1);
  EXPECT_EQ(c->world_size, 2);
  EXPECT_EQ(c->store_host, "gpu07");
  EXPECT_EQ(c->store_port, 20000 + 123456 % 20000);
  auto with_port = launcher_from_env(env_of({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}, {"SLURM_JOB_NODELIST", "n1"},
                                             {"MASTER_PORT", "4242"}}));
  EXPECT_EQ(with_port->store_port, 4242);
  EXPECT_EQ(with_port->store_host, "n1");
  EXPECT_EQ(first_slurm_host("a,b"), "a");
  EXPECT_EQ(first_slurm_host("node[3,5-6]"), "node3");
}

TEST(Launcher, RankCpusAreDisjointBlocksWrappingWhenShort) {
  EXPECT_EQ(rank_cpus(1, 2, 8), (std::vector<int>{2, 3}));
  EXPECT_EQ(rank_cpus(3, 1, 2), (std::vector<int>{1}));
  EXPECT_TRUE(rank_cpus(0, 0, 8).empty());
}

TEST(Launcher, EachRankTrainsOnItsOwnGpu) {
  EXPECT_EQ(cuda_ordinal_of_rank(3, 8), 3);  // torchrun on a p4d: cuda:LOCAL_RANK
  EXPECT_EQ(cuda_ordinal_of_rank(0, 8), 0);
  EXPECT_EQ(cuda_ordinal_of_rank(5, 1), 0);  // srun --gpus-per-task=1: each task sees its GPU as cuda:0
  EXPECT_THROW(cuda_ordinal_of_rank(2, 2), std::runtime_error);  // more local ranks than GPUs
  try {
    cuda_ordinal_of_rank(4, 2);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "local rank 4 has no GPU: this process sees 2 (CUDA_VISIBLE_DEVICES)");
  }
}
