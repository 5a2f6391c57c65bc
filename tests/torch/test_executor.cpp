// The executor: an item measured in a child process comes back as the same record; a child
// that dies costs one failed result; a data group that fails part-way leaves nothing running.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <fstream>
#include <thread>

#include "src/config/plan.h"
#include "src/measure/data_sources.h"
#include "src/measure/executor.h"
#include "src/measure/memory_probe.h"
#include "test_helpers.h"

using namespace pperf;

namespace {
const std::string kPperf = pperf::testing::binary_dir() + "/pperf";

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
  options.process.pperf_binary = kPperf;
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
  options.process.pperf_binary = executable_script(t.dir, "crash", "kill -SEGV $$");
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
  options.process.pperf_binary = kPperf;
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

TEST(MemoryProbe, TwoStepsOnTheCpuReportNoDeviceFigures) {
  TinyConfig tiny;
  WorkloadSpec spec = *tiny.item().workload;
  const ProbeFigures f = probe_item_memory(*builtin_workloads().find(spec.name), spec, 4);
  EXPECT_GT(f.peak_rss_bytes, 0);
  EXPECT_EQ(f.device_reserved_bytes, -1);
  EXPECT_EQ(f.device_capacity_bytes, -1);
  const auto read = parse_probe_line(probe_line(f));
  ASSERT_TRUE(read);
  EXPECT_EQ(read->peak_rss_bytes, f.peak_rss_bytes);
  EXPECT_FALSE(parse_probe_line("peak_rss_bytes 12")) << "a probe line from another pperf is not read as figures";
}

TEST(MemoryProbe, AGpuItemPredictedOverItsDeviceDoesNotFit) {
  constexpr int64_t GiB = int64_t{1} << 30;
  MemoryEstimate e;
  e.batch_size = 256;
  e.probes = {{32, 2 * GiB}, {64, 2 * GiB + GiB / 2}};
  e.predicted_peak_bytes = 5 * GiB;
  e.limit_bytes = 100 * GiB;
  e.device = "cuda:0";
  e.device_probes = {{32, 12 * GiB}, {64, 22 * GiB}};
  e.device_capacity_bytes = 80 * GiB;
  e.predicted_device_bytes = 82 * GiB;  // 22 + (256 - 64) x 10/32
  EXPECT_FALSE(e.fits());
  EXPECT_EQ(e.describe(),
            "needs about 5.00 GiB at batch 256 (2.00 GiB at batch 32, 2.50 GiB at batch 64, each in a fresh process); "
            "on cuda:0 about 82.00 GiB of its 80.00 GiB, more than it has (torch's reserved peak: 12.00 GiB at batch "
            "32, 22.00 GiB at batch 64)");
  e.device_capacity_bytes = 94 * GiB;
  EXPECT_TRUE(e.fits());
}
