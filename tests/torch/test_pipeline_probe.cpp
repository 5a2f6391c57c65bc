// The pipeline probe (src/measure/pipeline_probe): CPU time per sample of a pipeline that burns a
// known CPU time per batch, on 1 and 2 threads; distinct batch indices; a failing pipeline's
// error comes back.
#include <gtest/gtest.h>

#include <time.h>

#include <mutex>
#include <set>

#include "src/measure/pipeline_probe.h"
#include "workloads/workload.h"

using namespace pperf;

namespace {
double thread_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

// Each batch burns `cpu_s` of its thread's CPU time; records the indices it was asked for.
class BurningPipeline : public InputPipeline {
 public:
  explicit BurningPipeline(double cpu_s, int64_t fail_at = -1) : cpu_s_(cpu_s), fail_at_(fail_at) {}
  Batch make_batch(int64_t index) const override {
    if (index == fail_at_) throw std::runtime_error("bad sample in batch " + std::to_string(index));
    const double start = thread_cpu_s();
    volatile double sink = 0;
    while (thread_cpu_s() - start < cpu_s_) sink = sink + 1;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      seen_.insert(index);
      ++calls_;
    }
    Batch b;
    b.index = index;
    b.inputs = torch::zeros({4, 1});
    b.targets = torch::zeros({4}, torch::kLong);
    return b;
  }
  DataInfo data_info() const override { return {"burning", "", 0}; }
  size_t distinct() const { return seen_.size(); }
  size_t calls() const { return calls_; }

 private:
  double cpu_s_;
  int64_t fail_at_;
  mutable std::mutex mutex_;
  mutable std::set<int64_t> seen_;
  mutable size_t calls_ = 0;
};

WorkloadDescriptor descriptor_of(std::shared_ptr<BurningPipeline> p) {
  WorkloadDescriptor d;
  d.name = "burning";
  d.make_pipeline = [p](const WorkloadSpec&) { return p; };
  return d;
}
}  // namespace

TEST(PipelineProbe, CpuTimePerSampleOfAKnownBurn) {
  WorkloadSpec spec;
  spec.batch_size = 4;
  for (int threads : {1, 2}) {
    auto pipeline = std::make_shared<BurningPipeline>(0.002);  // 2 ms of CPU per batch of 4
    const PipelineProbe p = probe_pipeline(descriptor_of(pipeline), spec, threads, 0.05, 5);
    EXPECT_EQ(p.threads, threads);
    EXPECT_GE(p.batches, 5 * threads);
    // At least the burn; the loop's own overhead is small against 2 ms.
    EXPECT_GE(p.cpu_s_per_sample, 0.002 / 4 * 0.98) << threads;
    EXPECT_LE(p.cpu_s_per_sample, 0.002 / 4 * 1.5) << threads;
    EXPECT_GE(p.rel_ci95, 0);
    EXPECT_LT(p.rel_ci95, 0.5);
    EXPECT_EQ(pipeline->distinct(), pipeline->calls()) << threads;  // no index made twice
    EXPECT_EQ(pipeline->calls(), static_cast<size_t>(p.batches + threads));  // + each thread's warm-up
  }
}

TEST(PipelineProbe, APipelinesErrorComesBack) {
  auto pipeline = std::make_shared<BurningPipeline>(0, 3);
  WorkloadSpec spec;
  spec.batch_size = 4;
  EXPECT_THROW(probe_pipeline(descriptor_of(pipeline), spec, 2, 0.05, 10), std::runtime_error);
}
