#include <gtest/gtest.h>

#include <torch/cuda.h>

#include "src/measure/runner.h"

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
  EXPECT_EQ(m.stop.code, StopReason::max_steps);
  EXPECT_EQ(m.stop.text, "max_steps (20)");
  EXPECT_LT(m.last_loss, m.first_loss);
}

TEST(Runner, StopsAtTargetPrecisionOnceMinStepsAreInAndConfirmed) {
  FakeClock clock;
  FakeSource source(clock, 0, 1000);
  FakeWorkload workload(clock, {10, 10.1, 9.9});
  MeasureSettings s;
  s.warmup_steps = 0;
  s.min_steps = 70;
  s.max_steps = 200;
  s.target_rel_ci = 0.05;  // from 60 steps on (stopping.h: unseen_tail_steps)
  std::atomic<bool> stop{false};
  Measurement m = measure(workload, source, s, stop, clock);
  // Met at the first look (70 steps), confirmed at the next, a quarter later.
  EXPECT_EQ(m.step_ms.size(), 87u);
  EXPECT_EQ(m.stop.code, StopReason::target_rel_ci) << m.stop.text;
}

TEST(Runner, TakesTurnsRoundByRoundAtTheSchedulersWord) {
  FakeClock clock;
  FakeSource source(clock, 1, 1000);
  FakeWorkload workload(clock, {10});
  MeasureSettings s;
  s.warmup_steps = 3;
  std::atomic<bool> stop{false};
  bool ready = false;
  std::vector<std::vector<double>> rounds;
  std::vector<int64_t> orders = {10, 10};
  TurnTaking turns;
  turns.ready = [&] { ready = true; };
  turns.next = [&](StopCause& end) -> std::optional<int64_t> {
    EXPECT_TRUE(ready);
    if (rounds.size() < orders.size()) return orders[rounds.size()];
    end = {StopReason::decided, "decided (after 2 rounds)"};
    return std::nullopt;
  };
  turns.done = [&](const std::vector<double>& round) { rounds.push_back(round); };
  Measurement m = measure_in_turns(workload, source, s, 5, turns, stop, clock);
  // Warmup before the first round, 5 un-timed steps before the second.
  EXPECT_EQ(workload.steps, 3 + 10 + 5 + 10);
  ASSERT_EQ(rounds.size(), 2u);
  EXPECT_EQ(rounds[0], std::vector<double>(10, 11.0));
  EXPECT_EQ(m.step_ms.size(), 20u);
  EXPECT_DOUBLE_EQ(m.elapsed_s, 0.22) << "its own steps only, not the waits between turns";
  EXPECT_EQ(m.stop.code, StopReason::decided);
  EXPECT_EQ(m.stop.text, "decided (after 2 rounds)");
  EXPECT_FALSE(m.interrupted());
  EXPECT_EQ(m.turns.schedule, Schedule::interleaved);
  EXPECT_EQ(m.turns.round_steps, 10);
  EXPECT_EQ(m.turns.untimed_steps, 5) << "a source that cannot tell its head start: the fallback count";
  EXPECT_EQ(m.turns.most_untimed_steps, 5);
  EXPECT_DOUBLE_EQ(*m.turns.untimed_s, 0.055);
  EXPECT_EQ(m.turns.rounds, 2);
  EXPECT_EQ(m.round_means_ms(), (std::vector<double>{11.0, 11.0}));
}

namespace {
// A source that says how far it got ahead while paused: the head starts it reports, in order.
class HeadStartSource : public FakeSource {
 public:
  HeadStartSource(FakeClock& clock, std::vector<int64_t> head_starts)
      : FakeSource(clock, 1, 1000), head_starts_(std::move(head_starts)) {}
  void pause() override { ++pauses; }
  std::optional<int64_t> resume() override { return head_starts_.at(resumes++); }
  int pauses = 0;
  size_t resumes = 0;

 private:
  std::vector<int64_t> head_starts_;
};
}  // namespace

TEST(Runner, AfterASwitchOnlyTheHeadStartGoesUntimedAtLeastOneStep) {
  FakeClock clock;
  HeadStartSource source(clock, {4, 0, 3});  // the first resume is the warmup's: ignored
  FakeWorkload workload(clock, {10});
  MeasureSettings s;
  s.warmup_steps = 2;
  std::atomic<bool> stop{false};
  size_t rounds = 0;
  TurnTaking turns;
  turns.ready = [&] { EXPECT_EQ(source.pauses, 1) << "held before the others measure"; };
  turns.next = [&](StopCause& end) -> std::optional<int64_t> {
    if (rounds < 3) return 10;
    end = {StopReason::decided, "decided (after 3 rounds)"};
    return std::nullopt;
  };
  turns.done = [&](const std::vector<double>&) {
    ++rounds;
    EXPECT_EQ(source.pauses, static_cast<int>(rounds) + 1) << "held before the scheduler hears the round";
  };
  Measurement m = measure_in_turns(workload, source, s, 5, turns, stop, clock);
  EXPECT_EQ(source.resumes, 3u);
  // Warmup 2, round, max(1, 0) = 1 un-timed, round, 3 un-timed, round.
  EXPECT_EQ(workload.steps, 2 + 10 + 1 + 10 + 3 + 10);
  EXPECT_EQ(m.warmup_steps, 2);
  EXPECT_EQ(m.turns.untimed_steps, 4);
  EXPECT_EQ(m.turns.most_untimed_steps, 3);
  EXPECT_DOUBLE_EQ(*m.turns.untimed_s, 4 * 0.011);
  EXPECT_EQ(m.step_ms.size(), 30u);
  EXPECT_DOUBLE_EQ(m.elapsed_s, 0.33);
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
  EXPECT_EQ(m.stop.code, StopReason::max_seconds);
  EXPECT_EQ(m.stop.text, "max_seconds (2 s)");
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
  EXPECT_EQ(m.stop.code, StopReason::data_source_ended);
  EXPECT_EQ(m.stop.text, "data source ended");

  FakeSource endless(clock, 0, 1000);
  stop = true;
  Measurement interrupted = measure(workload, endless, s, stop, clock);
  EXPECT_TRUE(interrupted.interrupted());
  EXPECT_TRUE(interrupted.step_ms.empty());
}

namespace {
// An asynchronous device: train_step only queues work (1 ms to launch), the device runs it
// (10 ms) and only synchronize() waits for it, as CUDA does. Every call is logged in order.
struct AsyncWork {
  FakeClock& clock;
  std::vector<std::string> log;
  double queued_ms = 0;
};

class QueuingSource : public DataSource {
 public:
  explicit QueuingSource(AsyncWork& w) : w_(w) {}
  std::optional<Batch> next() override {
    w_.log.push_back("next");
    w_.clock.now += 2;
    Batch b;
    b.index = served_++;
    b.inputs = torch::zeros({8, 1});
    return b;
  }

 private:
  AsyncWork& w_;
  int64_t served_ = 0;
};

class QueuingWorkload : public Workload {
 public:
  explicit QueuingWorkload(AsyncWork& w) : w_(w) {}
  ModelInfo model_info() const override { return {}; }
  double train_step(const Batch& b) override {
    w_.log.push_back(b.inputs.sum().item<double>() == 8 ? "step on device" : "step on host");
    w_.clock.now += 1;
    w_.queued_ms += 10;
    return 1;
  }

 private:
  AsyncWork& w_;
};

class FakeDevice : public Device {
 public:
  explicit FakeDevice(AsyncWork& w) : w_(w) {}
  Batch place(Batch b) const override {
    w_.log.push_back("place");
    b.inputs = b.inputs + 1;  // "on the device": the step can tell
    return b;
  }
  void synchronize() const override {
    w_.log.push_back("sync");
    w_.clock.now += w_.queued_ms;
    w_.queued_ms = 0;
  }
  std::string name() const override { return "fake:0"; }

 private:
  AsyncWork& w_;
};
}  // namespace

TEST(Runner, SynchronizesTheDeviceOncePerStepBeforeReadingTheClock) {
  FakeClock clock;
  AsyncWork work{clock};
  QueuingSource source(work);
  QueuingWorkload workload(work);
  FakeDevice device(work);
  MeasureSettings s;
  s.warmup_steps = 2;
  s.min_steps = s.max_steps = 6;
  std::atomic<bool> stop{false};
  const Measurement m = measure(workload, source, s, stop, clock, {}, device);
  const std::vector<std::string> one_step = {"next", "place", "step on device", "sync"};
  ASSERT_EQ(work.log.size(), 8 * one_step.size());
  for (size_t i = 0; i < work.log.size(); ++i) EXPECT_EQ(work.log[i], one_step[i % one_step.size()]) << i;
  // 2 ms waiting + 1 ms launching + 10 ms the device ran: without the sync, 3 ms.
  ASSERT_EQ(m.step_ms.size(), 6u);
  for (double t : m.step_ms) EXPECT_DOUBLE_EQ(t, 13.0);
  for (double t : m.data_wait_ms) EXPECT_DOUBLE_EQ(t, 2.0);
}

TEST(Device, CpuLeavesBatchesWhereTheyAreAndCudaIsRefusedWithoutOne) {
  Batch b;
  b.inputs = torch::ones({2, 3});
  const Batch placed = cpu_device().place(b);
  EXPECT_EQ(placed.inputs.data_ptr(), b.inputs.data_ptr());
  EXPECT_EQ(open_device("cpu")->name(), "cpu");
  if (!torch::cuda::is_available()) {
    try {
      open_device("cuda:0");
      FAIL() << "cuda:0 opened without CUDA";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "device 'cuda:0': this libtorch has no CUDA, or this host no GPU");
    }
  }
  EXPECT_THROW(open_device("tpu:0"), std::exception);
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
  Measurement m = measure(workload, source, s, stop, clock, {}, cpu_device(), &group);
  EXPECT_EQ(m.step_ms.size(), 8u);
  EXPECT_EQ(m.stop.code, StopReason::other);
  EXPECT_EQ(m.stop.text, "rank 0 stopped");
  EXPECT_EQ(proposals, std::vector<int>(10, 0)) << "a rank that is not rank 0 proposes no stop of its own";

  group.rank0 = true;
  proposals.clear();
  group.agree = [&](int code) {
    proposals.push_back(code);
    return proposals.size() == 4 ? 2 : code;  // a peer was interrupted on the 2nd measured step
  };
  Measurement interrupted = measure(workload, source, s, stop, clock, {}, cpu_device(), &group);
  EXPECT_TRUE(interrupted.interrupted());
  EXPECT_EQ(interrupted.step_ms.size(), 2u);
}
