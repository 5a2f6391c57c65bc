// src/measure beyond its happy paths (issue 45): the memory bound's refusal and what it says,
// the executor's failed-result path, the step beacon as the runner marks it, the order turns are
// taken in and the un-timed steps after a switch. Measuring processes are played by small shell
// scripts where the test is about the parent; nothing here reads a clock.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <sstream>

#include "src/config/plan.h"
#include "src/env/memory_cgroup.h"
#include "src/measure/executor.h"
#include "src/measure/interleave.h"
#include "src/measure/memory_bound.h"
#include "src/measure/progress.h"
#include "src/measure/runner.h"
#include "test_helpers.h"

using namespace pperf;

namespace {
// The runner marks the beacon PPERF_STEP_BEACON names, looked up once per process: set before
// main, so this binary's runs all mark it (children that inherit it mark it too, harmlessly).
StepBeacon& test_beacon() {
  static StepBeacon beacon = [] {
    StepBeacon b = StepBeacon::create();
    setenv(StepBeacon::kEnvironment, b.path().c_str(), 1);
    return b;
  }();
  return beacon;
}
const bool kBeaconSet = (test_beacon(), true);

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string executable_script(const pperf::testing::TempDir& dir, const std::string& name, const std::string& body) {
  const std::string path = dir.write(name, "#!/bin/sh\n" + body + "\n");
  chmod(path.c_str(), 0755);
  return path;
}

/// Polled bounds (no cgroup) while alive: what a host without a memory controller gets.
struct PolledBound {
  PolledBound() { setenv("PPERF_NO_MEMORY_CGROUP", "1", 1); }
  ~PolledBound() { unsetenv("PPERF_NO_MEMORY_CGROUP"); }
};

/// Writes the step counter as a measuring process would (StepBeacon::mark: warm-up steps negative).
void mark_beacon_file(const std::string& path, int64_t value) {
  const int fd = ::open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(::pwrite(fd, &value, sizeof value, 0), static_cast<ssize_t>(sizeof value));
  ::close(fd);
}

struct TwoConfigurations {
  pperf::testing::TempDir dir;
  Config config;
  explicit TwoConfigurations(const std::string& measure = R"({"warmup_steps": 1, "min_steps": 3, "max_steps": 3})",
                             const std::string& data = "{}") {
    const std::string path = dir.write("c.json", R"({
      "name": "edges", "pricing": {"table": "aws-ec2-us-east-1"}, "measure": )" + measure + R"(,
      "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 8, "params": {"data": "synthetic"}}],
      "configurations": [
        {"name": "a", "baseline": true, "instances": [{"type": "p3.2xlarge"}], "execution": {"threads": 1, "data": )" +
                                                   data + R"(}},
        {"name": "b", "instances": [{"type": "g5.xlarge"}], "execution": {"threads": 1}}]})");
    config = load_config(path, builtin_workloads());
  }
  Plan plan() const { return make_plan(config, {}, HostCapacity{2}); }
};

/// Time moves only when the fakes say so.
class FakeClock : public Clock {
 public:
  double now_ms() const override { return now; }
  double now = 0;
};
class EndlessSource : public DataSource {
 public:
  std::optional<Batch> next() override {
    Batch b;
    b.index = served_++;
    b.inputs = torch::zeros({2, 1});
    return b;
  }

 private:
  int64_t served_ = 0;
};
/// Dies (throws) on its `fatal`-th training step, as a process killed mid-step would stop.
class DyingWorkload : public Workload {
 public:
  DyingWorkload(FakeClock& clock, int64_t fatal) : clock_(clock), fatal_(fatal) {}
  ModelInfo model_info() const override { return {}; }
  double train_step(const Batch&) override {
    clock_.now += 10;
    if (++steps_ == fatal_) throw std::runtime_error("killed");
    return 1;
  }

 private:
  FakeClock& clock_;
  int64_t fatal_, steps_ = 0;
};
}  // namespace

// --- the memory bound (memory_bound.h) --------------------------------------------------

TEST(MemoryBound, AnUnboundedItemIsGivenNothingAndRecordsNoLimit) {
  ItemMemoryBound unbounded(0);
  SpawnOptions spawn;
  unbounded.prepare(spawn);
  EXPECT_EQ(spawn.join_cgroup, "");
  EXPECT_TRUE(spawn.set_env.empty());
  EXPECT_FALSE(unbounded.over_limit());
  Result r;
  unbounded.record(r);
  ASSERT_TRUE(r.memory);
  EXPECT_EQ(r.memory->bound, "none");
  EXPECT_FALSE(r.memory->limit_bytes);
  EXPECT_FALSE(r.memory->group_peak_bytes);
}

// Over its limit the polled bound kills the process, says so, and says at which step: the one
// the process marked in the beacon it was handed.
TEST(MemoryBound, APolledBoundKillsAProcessOverItsLimitAndNamesTheStep) {
  PolledBound polled;
  ItemMemoryBound bound(4096);  // any process is over 4 KiB
  SpawnOptions spawn;
  spawn.argv = {"/bin/sleep", "30"};
  bound.prepare(spawn);
  EXPECT_EQ(spawn.join_cgroup, "") << "polled: no cgroup";
  ASSERT_EQ(spawn.set_env.size(), 1u) << "the process is told where its beacon is";
  EXPECT_EQ(spawn.set_env[0].first, StepBeacon::kEnvironment);
  const std::string beacon = spawn.set_env[0].second;
  mark_beacon_file(beacon, -3);  // warm-up step 3
  ChildProcess child(spawn);
  bound.watch(child);
  const std::optional<int> status = child.wait(20);
  ASSERT_TRUE(status) << "the bound did not end it";
  EXPECT_TRUE(WIFSIGNALED(*status) && WTERMSIG(*status) == SIGKILL) << describe_wait_status(*status);
  EXPECT_TRUE(bound.over_limit());
  const std::string reason = bound.failure_reason();
  EXPECT_EQ(reason.rfind("out of memory: over the 0.0 GiB limit at warm-up step 3 (peak ", 0), 0u) << reason;
  mark_beacon_file(beacon, 14);
  EXPECT_EQ(bound.failure_reason().rfind("out of memory: over the 0.0 GiB limit at step 14 (peak ", 0), 0u);
  Result r;
  bound.record(r);
  EXPECT_EQ(r.memory->bound, "polled");
  EXPECT_EQ(r.memory->limit_bytes, std::optional<int64_t>(4096));
}

// --- the executor's failed results (executor.h) -------------------------------------------

TEST(ExecutorFailures, AFailedResultKeepsTheItemAndDropsEveryMeasuredFigure) {
  Result r;
  r.workload = "w";
  r.configuration = "c";
  r.step = StepTimeEstimate{10, std::array<double, 2>{9, 11}, 10.5, std::array<double, 2>{10, 11}, 0.95, 0.1};
  r.spread = StepTimeSpread{10.5, 1, 0.1, 9, 12};
  r.samples_per_s = 800;
  r.data_wait_fraction = 0.1;
  r.measurement.emplace();
  r.measurement->step_ms = {10, 11};
  const Result f = failed_result(r, "why");
  EXPECT_EQ(f.status, ResultStatus::failed);
  EXPECT_EQ(f.reason, "why");
  EXPECT_EQ(f.configuration, "c");
  EXPECT_FALSE(f.step);
  EXPECT_FALSE(f.spread);
  EXPECT_FALSE(f.samples_per_s);
  EXPECT_FALSE(f.data_wait_fraction);
  EXPECT_FALSE(f.measurement);
}

TEST(ExecutorFailures, AnUnreadableResultFromTheMeasuringProcessFailsTheItem) {
  TwoConfigurations t;
  ExecutorOptions options;
  // Writes something that is not a results file where it was asked to write its result.
  options.process.pperf_binary = executable_script(
      t.dir, "garbage", R"(while [ $# -gt 0 ]; do [ "$1" = --out ] && echo "not json" > "$2"; shift; done)");
  std::atomic<bool> stop{false};
  const Result r = measure_item_in_child(t.config, t.plan().items.at(0), options, stop);
  EXPECT_EQ(r.status, ResultStatus::failed);
  EXPECT_EQ(r.reason.rfind("unreadable result from the measuring process: ", 0), 0u) << r.reason;
  EXPECT_EQ(r.configuration, "a");
  EXPECT_FALSE(r.step);
}

TEST(ExecutorFailures, AMeasuringProcessTheBoundKilledIsOutOfMemory) {
  PolledBound polled;
  TwoConfigurations t;
  ExecutorOptions options;
  options.max_memory_bytes = 4096;
  options.process.pperf_binary = executable_script(t.dir, "sleeper", "exec sleep 20");
  std::atomic<bool> stop{false};
  const Result r = measure_item_in_child(t.config, t.plan().items.at(0), options, stop);
  EXPECT_EQ(r.status, ResultStatus::failed);
  EXPECT_EQ(r.reason.rfind("out of memory: over the 0.0 GiB limit before the first step (peak ", 0), 0u) << r.reason;
  ASSERT_TRUE(r.memory);
  EXPECT_EQ(r.memory->bound, "polled");
  EXPECT_EQ(r.memory->limit_bytes, std::optional<int64_t>(4096));
}

// Taking turns, a configuration's loader is held while it waits: after the switch one
// un-timed step (its head start is at most the batch its one thread had in hand), not its
// whole prefetch queue and one more as before issue 46.
TEST(ExecutorTurns, AfterASwitchTheHeldLoadersHeadStartGoesUntimedOneStep) {
  TwoConfigurations t(R"({"warmup_steps": 1, "min_steps": 2, "max_steps": 4})", R"({"prefetch_batches": 2})");
  int rounds = 0;
  TurnTaking turns;
  turns.ready = [] {};
  turns.next = [&](StopCause& end) -> std::optional<int64_t> {
    if (rounds < 2) return 2;
    end = {StopReason::max_steps, "max_steps (4)"};
    return std::nullopt;
  };
  turns.done = [&](const std::vector<double>&) { ++rounds; };
  ExecutorOptions options;
  options.process.turns = &turns;
  std::atomic<bool> stop{false};
  const Result r = measure_item_here(t.config, t.plan().items.at(0), builtin_workloads(), options, stop);
  ASSERT_EQ(r.status, ResultStatus::ok) << r.reason;
  EXPECT_EQ(r.measurement->turns.untimed_steps, 1);
  EXPECT_EQ(r.measurement->turns.most_untimed_steps, 1);
  EXPECT_EQ(r.measurement->turns.rounds, 2);
  EXPECT_EQ(r.measurement->step_ms.size(), 4u);
}

// --- the runner's step beacon (runner.h) --------------------------------------------------

TEST(RunnerBeacon, SaysWhichWarmUpOrMeasuredStepWasRunningWhenTheProcessDied) {
  ASSERT_TRUE(kBeaconSet);
  ASSERT_NE(StepBeacon::from_environment(), nullptr);
  MeasureSettings s;
  s.warmup_steps = 3;
  s.min_steps = s.max_steps = 20;
  std::atomic<bool> stop{false};
  {
    FakeClock clock;
    EndlessSource source;
    DyingWorkload dies_warming_up(clock, 2);
    EXPECT_THROW(measure(dies_warming_up, source, s, stop, clock), std::runtime_error);
    EXPECT_EQ(test_beacon().describe(), "warm-up step 2");
  }
  {
    FakeClock clock;
    EndlessSource source;
    DyingWorkload dies_measuring(clock, 3 + 5);  // the 5th measured step
    EXPECT_THROW(measure(dies_measuring, source, s, stop, clock), std::runtime_error);
    EXPECT_EQ(test_beacon().describe(), "step 5");
  }
  {
    FakeClock clock;
    EndlessSource source;
    DyingWorkload dies_first(clock, 3 + 1);
    EXPECT_THROW(measure(dies_first, source, s, stop, clock), std::runtime_error);
    EXPECT_EQ(test_beacon().describe(), "step 1");
  }
}

// --- turns (interleave.h) -----------------------------------------------------------------

// Two configurations take their turns A B, B A, ... and stop on the round that reaches
// max_steps, not one later. Each measuring process is a script speaking the turns protocol that
// logs its configuration per round it is given.
TEST(Interleave, TurnsAlternateABBAAndEndOnTheRoundThatReachesMaxSteps) {
  TwoConfigurations t(R"({"warmup_steps": 0, "min_steps": 10, "max_steps": 40, "max_seconds": 600})");
  const std::string log = t.dir.path() + "/turns.log";
  ExecutorOptions options;
  options.process.pperf_binary = executable_script(t.dir, "turns", R"(
while [ $# -gt 0 ]; do [ "$1" = --configuration-index ] && c="$2"; shift; done
echo "pperf-turn ready"
while read -r word steps rest; do
  [ "$word" = round ] || exit 0
  echo "$c" >> )" + log + R"(
  echo "pperf-turn done 10 10 10 10 10 10 10 10 10 10"
done)");
  const Plan plan = t.plan();
  std::vector<const PlanItem*> items;
  for (const PlanItem& item : plan.items) items.push_back(&item);
  ASSERT_EQ(items.size(), 2u);
  std::atomic<bool> stop{false};
  MeasureObserver observer;
  const std::vector<Result> results = measure_interleaved(t.config, items, options, stop, observer);
  EXPECT_EQ(read_text(log), "0\n1\n1\n0\n0\n1\n1\n0\n") << "4 rounds of 10 steps: 40 = max_steps";
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].configuration, "a");
  EXPECT_EQ(results[1].configuration, "b");
  // The scripts write no result: each item fails, saying so.
  EXPECT_EQ(results[0].status, ResultStatus::failed);
  EXPECT_EQ(results[0].reason, "the measuring process ended without a result");
}

TEST(ProgressLine, CutAtAWordBoundaryToFitTheTerminal) {
  // The turns' line of two candidates at 80 and 100 columns: cut where a word ends, never inside
  // one, no separator left hanging, shorter than the width (a wrapped line cannot be redrawn).
  TurnsSnapshot s;
  s.workload = "resnet50_augment";
  s.rounds = 7;
  s.round_steps = 10;
  s.elapsed_s = 21;
  s.max_steps = 200;
  s.max_seconds = 90;
  for (const char* name : {"homogeneous", "heterogeneous", "heterogeneous_spot"}) {
    TurnsSnapshot::Side side;
    side.configuration = name;
    side.steps = 70;
    side.measured_s = 9;
    if (std::string(name) != "homogeneous") {
      Decision d;
      d.verdict = CostVerdict::undecided;
      d.improvement_pct_bounds = std::array<double, 2>{-32.2, -6.8};
      side.decision = d;
    }
    s.sides.push_back(side);
  }
  const std::string full = TurnsProgressLine::line(s);
  ASSERT_GT(full.size(), 100u) << full;
  for (const size_t width : {80, 100}) {
    const std::string cut = fit_progress_line(full, width);
    EXPECT_LT(cut.size(), width) << cut;
    EXPECT_EQ(full.rfind(cut, 0), 0u) << "a prefix of the line: " << cut;
    EXPECT_NE(std::string(" |,:;").find(full[cut.size()]), std::string::npos)
        << "cut inside a word: '" << cut << "' of '" << full << "'";
    EXPECT_EQ(std::string(" |,:;").find(cut.back()), std::string::npos) << "a separator left at the end: " << cut;
  }
  EXPECT_EQ(fit_progress_line(full, 0), full);
  EXPECT_EQ(fit_progress_line("short", 80), "short");
}
