#include <gtest/gtest.h>

#include "bench/measure/runner.h"

using namespace pperf;

namespace {
// Time moves only when the fakes say so: each batch costs `wait_ms`, each step `step_ms`.
class FakeClock : public Clock {
 public:
  double now_ms() const override { return now; }
  double now = 1000;
};

class FakeSource : public DataSource {
 public:
  FakeSource(FakeClock& clock, double wait_ms, int64_t limit) : clock_(clock), wait_ms_(wait_ms), limit_(limit) {}
  std::optional<Batch> next() override {
    if (served_ >= limit_) return std::nullopt;
    clock_.now += wait_ms_;
    Batch b;
    b.index = served_++;
    b.inputs = torch::zeros({8, 1});
    return b;
  }

 private:
  FakeClock& clock_;
  double wait_ms_;
  int64_t limit_, served_ = 0;
};

class FakeWorkload : public Workload {
 public:
  FakeWorkload(FakeClock& clock, std::vector<double> step_ms) : clock_(clock), step_ms_(std::move(step_ms)) {}
  ModelInfo model_info() const override { return {}; }
  double train_step(const Batch& b) override {
    clock_.now += step_ms_[b.index % step_ms_.size()];
    ++steps;
    return 1.0 / (steps);
  }
  int64_t steps = 0;

 private:
  FakeClock& clock_;
  std::vector<double> step_ms_;
};
}  // namespace

TEST(Runner, WarmupIsExcludedAndWaitIsMeasuredApart) {
  FakeClock clock;
  FakeSource source(clock, 2, 1000);
  FakeWorkload workload(clock, {10});
  MeasureSettings s;
  s.warmup_steps = 3;
  s.min_steps = s.max_steps = 20;
  std::atomic<bool> stop{false};
  Measurement m = measure(workload, source, s, stop, clock);
  EXPECT_EQ(workload.steps, 23);
  EXPECT_EQ(m.warmup_steps, 3);
  ASSERT_EQ(m.step_ms.size(), 20u);
  for (double t : m.step_ms) EXPECT_DOUBLE_EQ(t, 12.0);
  for (double t : m.data_wait_ms) EXPECT_DOUBLE_EQ(t, 2.0);
  EXPECT_DOUBLE_EQ(m.data_wait_fraction(), 2.0 / 12.0);
  EXPECT_DOUBLE_EQ(m.samples_per_s(8), 8 / 0.012);
  EXPECT_DOUBLE_EQ(m.elapsed_s, 0.24);
  EXPECT_EQ(m.stop_reason, "max_steps (20)");
  EXPECT_LT(m.last_loss, m.first_loss);
}

TEST(Runner, StopsAtTargetPrecisionOnceMinStepsAreIn) {
  FakeClock clock;
  FakeSource source(clock, 0, 1000);
  FakeWorkload workload(clock, {10});
  MeasureSettings s;
  s.warmup_steps = 0;
  s.min_steps = 7;
  s.max_steps = 100;
  s.target_rel_ci = 0.01;
  std::atomic<bool> stop{false};
  Measurement m = measure(workload, source, s, stop, clock);
  EXPECT_EQ(m.step_ms.size(), 7u);
  EXPECT_EQ(m.stop_reason.rfind("target_rel_ci", 0), 0u) << m.stop_reason;
}

TEST(Runner, NoisyStepsRunToMaxSeconds) {
  FakeClock clock;
  FakeSource source(clock, 0, 100000);
  FakeWorkload workload(clock, {50, 150});
  MeasureSettings s;
  s.warmup_steps = 0;
  s.min_steps = 5;
  s.max_steps = 100000;
  s.max_seconds = 2;
  s.target_rel_ci = 0.01;
  std::atomic<bool> stop{false};
  Measurement m = measure(workload, source, s, stop, clock);
  EXPECT_EQ(m.stop_reason, "max_seconds (2 s)");
  EXPECT_EQ(m.step_ms.size(), 20u);  // 20 x 100 ms on average = 2 s
}

TEST(Runner, EndOfDataAndInterruptionAreReported) {
  FakeClock clock;
  FakeSource source(clock, 0, 5);
  FakeWorkload workload(clock, {10});
  MeasureSettings s;
  s.warmup_steps = 1;
  std::atomic<bool> stop{false};
  Measurement m = measure(workload, source, s, stop, clock);
  EXPECT_EQ(m.step_ms.size(), 4u);
  EXPECT_EQ(m.stop_reason, "data source ended");

  FakeSource endless(clock, 0, 1000);
  stop = true;
  Measurement interrupted = measure(workload, endless, s, stop, clock);
  EXPECT_TRUE(interrupted.interrupted);
  EXPECT_TRUE(interrupted.step_ms.empty());
}

TEST(Runner, RanksStopOnTheStepTheGroupAgreesOn) {
  FakeClock clock;
  FakeSource source(clock, 1, 1000);
  FakeWorkload workload(clock, {10});
  MeasureSettings s;
  s.warmup_steps = 2;
  s.min_steps = s.max_steps = 5;  // this rank's own rule would stop at 5...
  std::atomic<bool> stop{false};
  std::vector<int> proposals;
  StepAgreement group;
  group.rank0 = false;  // ...but only rank 0's rules count: the group stops it at 8
  group.agree = [&](int code) {
    proposals.push_back(code);
    return proposals.size() == 2 + 8 ? 1 : 0;
  };
  Measurement m = measure(workload, source, s, stop, clock, {}, &group);
  EXPECT_EQ(m.step_ms.size(), 8u);
  EXPECT_EQ(m.stop_reason, "rank 0 stopped");
  EXPECT_EQ(proposals, std::vector<int>(10, 0)) << "a rank that is not rank 0 proposes no stop of its own";

  group.rank0 = true;
  proposals.clear();
  group.agree = [&](int code) {
    proposals.push_back(code);
    return proposals.size() == 4 ? 2 : code;  // a peer was interrupted on the 2nd measured step
  };
  Measurement interrupted = measure(workload, source, s, stop, clock, {}, &group);
  EXPECT_TRUE(interrupted.interrupted);
  EXPECT_EQ(interrupted.step_ms.size(), 2u);
}
