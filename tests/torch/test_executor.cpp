// The executor: an item measured in a child process comes back as the same record; a child
// that dies costs one failed result; a data group that fails part-way leaves nothing running.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <fstream>
#include <thread>

#include "bench/config/plan.h"
#include "bench/measure/data_sources.h"
#include "bench/measure/executor.h"
#include "test_helpers.h"

using namespace pperf;

namespace {
const std::string kPperf = std::string(PPERF_BINARY_DIR) + "/pperf";

struct TinyConfig {
  pperf::testing::TempDir dir;
  Config config;
  TinyConfig() {
    const std::string path = dir.write("c.json", R"({
      "name": "exec", "pricing": {"table": "aws-ec2-us-east-1"},
      "measure": {"warmup_steps": 1, "min_steps": 3, "max_steps": 3},
      "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 8, "params": {"data": "synthetic"}}],
      "configurations": [{"name": "a", "baseline": true, "instances": [{"type": "p3.2xlarge"}],
                          "execution": {"threads": 1}}]})");
    config = load_config(path, builtin_workloads());
  }
  PlanItem item() const { return make_plan(config, {}, HostCapacity{2}).items.at(0); }
};

std::string executable_script(const pperf::testing::TempDir& dir, const std::string& name, const std::string& body) {
  const std::string path = dir.write(name, "#!/bin/sh\n" + body + "\n");
  chmod(path.c_str(), 0755);
  return path;
}

bool process_exists(int pid) { return kill(pid, 0) == 0; }
}  // namespace

TEST(Executor, ChildProcessMeasuresTheItemAndSaysSo) {
  TinyConfig t;
  ExecutorOptions options;
  options.pperf_binary = kPperf;
  std::atomic<bool> stop{false};
  const Result r = measure_item_in_child(t.config, t.item(), options, stop);
  ASSERT_EQ(r.status, ResultStatus::ok) << r.reason;
  ASSERT_TRUE(r.measurement);
  EXPECT_EQ(r.measurement->executor, "process");
  EXPECT_EQ(r.measurement->step_ms.size(), 3u);
  EXPECT_EQ(r.samples_per_step, 8);
  EXPECT_EQ(r.configuration, "a");
  EXPECT_EQ(r.model->params, 75338);
  EXPECT_EQ(r.data->source, "synthetic");
}

TEST(Executor, InProcessGivesTheSameRecordShape) {
  TinyConfig t;
  ExecutorOptions options;
  std::atomic<bool> stop{false};
  const Result r = measure_item_here(t.config, t.item(), builtin_workloads(), options, stop);
  ASSERT_EQ(r.status, ResultStatus::ok) << r.reason;
  EXPECT_EQ(r.measurement->executor, "in_process");
  EXPECT_EQ(r.measurement->step_ms.size(), 3u);
  EXPECT_NEAR(*r.samples_per_s, 8 * 3 / (r.measurement->step_ms[0] + r.measurement->step_ms[1] + r.measurement->step_ms[2]) * 1000, 1e-9);
}

TEST(Executor, ACrashingChildBecomesAFailedResult) {
  TinyConfig t;
  ExecutorOptions options;
  options.pperf_binary = executable_script(t.dir, "crash", "kill -SEGV $$");
  std::atomic<bool> stop{false};
  const Result r = measure_item_in_child(t.config, t.item(), options, stop);
  EXPECT_EQ(r.status, ResultStatus::failed);
  EXPECT_NE(r.reason.find("killed by signal 11"), std::string::npos) << r.reason;
  EXPECT_EQ(r.configuration, "a");
  EXPECT_FALSE(r.step);
}

TEST(Executor, AnItemThatCannotRunHereFailsWithTheReason) {
  TinyConfig t;
  PlanItem item = t.item();
  item.not_runnable_here.push_back({"/configurations/0/execution/cpus", "CPU 95 does not exist here (2 CPUs)"});
  std::atomic<bool> stop{false};
  const Result r = measure_item_here(t.config, item, builtin_workloads(), ExecutorOptions{}, stop);
  EXPECT_EQ(r.status, ResultStatus::failed);
  EXPECT_NE(r.reason.find("CPU 95 does not exist here"), std::string::npos) << r.reason;
}

TEST(Executor, StopRequestReachesTheChild) {
  TinyConfig t;
  t.config.measure.min_steps = t.config.measure.max_steps = 1000000;
  t.config.measure.max_seconds = 300;
  // The child re-reads the config file: write the long-running measure settings into it.
  const std::string path = t.dir.write("long.json", R"({
      "name": "exec", "pricing": {"table": "aws-ec2-us-east-1"},
      "measure": {"warmup_steps": 0, "min_steps": 1000000, "max_steps": 1000000, "max_seconds": 300},
      "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 8, "params": {"data": "synthetic"}}],
      "configurations": [{"name": "a", "baseline": true, "instances": [{"type": "p3.2xlarge"}]}]})");
  const Config config = load_config(path, builtin_workloads());
  ExecutorOptions options;
  options.pperf_binary = kPperf;
  std::atomic<bool> stop{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::seconds(5));  // well past the child's start-up, even on a busy host
    stop = true;
  });
  const Result r = measure_item_in_child(config, make_plan(config, {}, HostCapacity{2}).items.at(0), options, stop);
  stopper.join();
  ASSERT_EQ(r.status, ResultStatus::ok) << r.reason;
  EXPECT_TRUE(r.measurement->interrupted());
  EXPECT_GT(r.measurement->step_ms.size(), 0u);
}

TEST(LocalDataGroup, AWorkerThatCannotStartStopsTheOnesAlreadyStarted) {
  pperf::testing::TempDir dir;
  const std::string config = dir.write("c.json", R"({
      "name": "svc", "pricing": {"table": "aws-ec2-us-east-1"},
      "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 8, "params": {"data": "synthetic"}}],
      "configurations": [{"name": "a", "baseline": true, "instances": [{"type": "p3.2xlarge"}]}]})");
  // The first start is a real worker (its pid noted); every later start fails.
  const std::string pids = dir.path() + "/pids";
  const std::string fake = executable_script(
      dir, "fake-pperf",
      "if [ -e '" + pids + "' ]; then echo 'cannot start' >&2; exit 1; fi\n"
      "echo $$ > '" + pids + "'\nexec '" + kPperf + "' \"$@\"");
  EXPECT_THROW(LocalDataGroup(fake, config, "mnist_heavy", 3, 1, {}, ""), std::runtime_error);
  int first = 0;
  std::ifstream(pids) >> first;
  ASSERT_GT(first, 0);
  EXPECT_FALSE(process_exists(first)) << "worker " << first << " was left running";
}
