#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "workloads/common/local_loader.h"

using namespace pperf;

namespace {
// Batch i holds the value i; counts how many batches were made.
class CountingPipeline : public InputPipeline {
 public:
  explicit CountingPipeline(int64_t fail_at = -1) : fail_at_(fail_at) {}
  Batch make_batch(int64_t index) const override {
    if (index == fail_at_) throw std::runtime_error("bad sample in batch " + std::to_string(index));
    ++made;
    Batch b;
    b.index = index;
    b.inputs = torch::full({2, 1}, static_cast<float>(index));
    b.targets = torch::zeros({2}, torch::kLong);
    return b;
  }
  DataInfo data_info() const override { return {"counting", "", 0}; }
  mutable std::atomic<int64_t> made{0};

 private:
  int64_t fail_at_;
};
}  // namespace

TEST(LocalLoader, DeliversEveryBatchInOrderWhateverTheThreadCount) {
  for (int workers : {1, 3}) {
    auto pipeline = std::make_shared<CountingPipeline>();
    LocalLoader loader(pipeline, workers, 4, 10);
    for (int64_t i = 10; i < 60; ++i) {
      auto b = loader.next();
      ASSERT_TRUE(b);
      EXPECT_EQ(b->index, i);
      EXPECT_EQ(b->inputs[0][0].item<float>(), static_cast<float>(i));
    }
  }
}

TEST(LocalLoader, PrefetchIsBounded) {
  auto pipeline = std::make_shared<CountingPipeline>();
  auto wait_for = [&](int64_t n) {  // polls: a slow machine only makes this take longer
    for (int i = 0; i < 1000 && pipeline->made.load() < n; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  };
  LocalLoader loader(pipeline, 3, 5);
  wait_for(5);
  // Workers with nothing consumed must stop at the bound however long they are given.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(pipeline->made.load(), 5);
  loader.next();
  wait_for(6);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(pipeline->made.load(), 6);
}

namespace {
// make_batch waits for a permit: the test decides when each batch finishes.
class GatedPipeline : public InputPipeline {
 public:
  Batch make_batch(int64_t index) const override {
    std::unique_lock<std::mutex> lock(mutex_);
    ++started;
    opened_.wait(lock, [&] { return permits_ > 0; });
    --permits_;
    ++made;
    Batch b;
    b.index = index;
    b.inputs = torch::zeros({1});
    return b;
  }
  DataInfo data_info() const override { return {"gated", "", 0}; }
  void permit(int64_t n) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      permits_ += n;
    }
    opened_.notify_all();
  }
  /// Polls until `counter` reaches n (a slow machine only makes this take longer).
  bool reaches(const int64_t& counter, int64_t n) const {
    for (int i = 0; i < 1000; ++i) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (counter >= n) return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  int64_t count(const int64_t& counter) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return counter;
  }
  mutable int64_t started = 0, made = 0;

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable opened_;
  mutable int64_t permits_ = 0;
};
}  // namespace

TEST(LocalLoader, EveryThreadWorksWhenThereAreMoreThreadsThanPrefetch) {
  // 6 threads, a prefetch depth of 2: a bound of 2 batches in flight would leave 4 threads idle
  // while the trainer waits (seen on a GPU: 12 loader threads, 29 % busy, the step 63 % waiting).
  auto pipeline = std::make_shared<GatedPipeline>();
  LocalLoader loader(pipeline, 6, 2);
  ASSERT_TRUE(pipeline->reaches(pipeline->started, 6));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(pipeline->count(pipeline->started), 6) << "one batch in preparation per thread, no more";
  pipeline->permit(100);
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(loader.next()->index, i);
}

TEST(LocalLoader, PausedItFinishesWhatItStartedAndStartsNothing) {
  auto pipeline = std::make_shared<GatedPipeline>();
  LocalLoader loader(pipeline, 2, 6);
  pipeline->permit(2);
  ASSERT_TRUE(pipeline->reaches(pipeline->made, 2));
  ASSERT_TRUE(pipeline->reaches(pipeline->started, 4));  // two more in preparation
  loader.pause();
  pipeline->permit(100);
  ASSERT_TRUE(pipeline->reaches(pipeline->made, 4));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(pipeline->count(pipeline->started), 4) << "paused, no thread starts a batch";
  EXPECT_EQ(loader.resume(), 2) << "the two in preparation at the pause are its head start";
  ASSERT_TRUE(pipeline->reaches(pipeline->made, 6));  // up to its prefetch bound again
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(pipeline->count(pipeline->made), 6);
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(loader.next()->index, i);
  EXPECT_EQ(loader.resume(), 0) << "not paused: no head start";
  ASSERT_TRUE(pipeline->reaches(pipeline->made, 12));  // full again, nothing in preparation
  loader.pause();
  EXPECT_EQ(loader.resume(), 0) << "nothing in preparation, nothing gained";
}

TEST(LocalLoader, PipelineErrorsReachTheConsumer) {
  auto pipeline = std::make_shared<CountingPipeline>(2);
  LocalLoader loader(pipeline, 2, 2);
  EXPECT_TRUE(loader.next());
  EXPECT_TRUE(loader.next());
  EXPECT_THROW(
      {
        try {
          loader.next();
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "bad sample in batch 2");
          throw;
        }
      },
      std::runtime_error);
}

// A step that makes its own data (python_step) gets batches with no tensors; a loader feeding a
// GPU pins what it delivers, and must pass those through instead of failing at batch 0.
TEST(LocalLoader, PinningPassesBatchesWithoutTensorsThrough) {
  class IndexOnlyPipeline : public InputPipeline {
   public:
    Batch make_batch(int64_t index) const override { return Batch{index, {}, {}}; }
    DataInfo data_info() const override { return {"index only", "", 0}; }
  };
  LocalLoader loader(std::make_shared<IndexOnlyPipeline>(), 2, 2, 0, 1, /*pin_memory=*/true);
  for (int64_t i = 0; i < 3; ++i) {
    const auto b = loader.next();
    ASSERT_TRUE(b);
    EXPECT_EQ(b->index, i);
    EXPECT_FALSE(b->inputs.defined());
  }
}
