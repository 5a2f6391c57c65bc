// Config -> Plan: filters, "valid" separate from "runnable here", samples per step from the item.
#include <gtest/gtest.h>

#include "src/config/plan.h"
#include "src/core/input_error.h"
#include "test_helpers.h"
#include "unit_registry.h"

using namespace pperf;
using nlohmann::json;

namespace {
Config load(const json& j, pperf::testing::TempDir& dir) {
  return load_config(dir.write("c.json", j.dump()), pperf::testing::fixture_workloads());
}

json two_by_two() {
  return json::parse(R"({
    "name": "t", "pricing": {"table": "aws-ec2-us-east-1"},
    "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 8},
                  {"name": "mnist_heavy", "preset": "full", "batch_size": 16}],
    "configurations": [
      {"name": "small", "baseline": true, "instances": [{"type": "p3.2xlarge"}]},
      {"name": "big", "instances": [{"type": "p4d.24xlarge"}],
       "execution": {"cpus": [64, 65], "data": {"mode": "service", "spawn_local": {"cpus": [95]}}}}]})");
}
}  // namespace

TEST(Plan, ItemsAreWorkloadsTimesConfigurationsInConfigOrder) {
  pperf::testing::TempDir dir;
  const Config c = load(two_by_two(), dir);
  const Plan plan = make_plan(c, {}, HostCapacity{128});
  ASSERT_EQ(plan.items.size(), 4u);
  EXPECT_EQ(plan.items[1].workload->preset, "tiny");
  EXPECT_EQ(plan.items[1].configuration->name, "big");
  EXPECT_EQ(plan.items[2].workload_index, 1u);
  EXPECT_EQ(plan.items[2].configuration_index, 0u);
  EXPECT_TRUE(plan.runnable_here());
  const Result r = plan.items[3].result_skeleton();
  EXPECT_EQ(r.samples_per_step, 16);
  EXPECT_FALSE(r.baseline);
}

TEST(Plan, SamplesPerStepCountEveryRank) {
  pperf::testing::TempDir dir;
  const Config c = load(two_by_two(), dir);
  PlanItem item = make_plan(c, {}, HostCapacity{128}).items[0];
  item.ranks = 4;
  EXPECT_EQ(item.samples_per_step(), 32);
  EXPECT_EQ(item.result_skeleton().samples_per_step, 32);
}

TEST(Plan, ValidForAnotherMachineButNotRunnableHere) {
  pperf::testing::TempDir dir;
  const Config c = load(two_by_two(), dir);  // loads: CPUs 64.. are fine on a 96-CPU instance
  const Plan plan = make_plan(c, {}, HostCapacity{2});
  EXPECT_FALSE(plan.runnable_here());
  EXPECT_TRUE(plan.items[0].not_runnable_here.empty());
  ASSERT_EQ(plan.items[1].not_runnable_here.size(), 2u);
  EXPECT_EQ(plan.items[1].not_runnable_here[0].pointer, "/configurations/1/execution/cpus");
  EXPECT_EQ(plan.items[1].not_runnable_here[0].reason, "CPU 64 does not exist here (2 CPUs)");
  EXPECT_EQ(plan.items[1].not_runnable_here[1].pointer, "/configurations/1/execution/data/spawn_local/cpus");
  EXPECT_TRUE(make_plan(c, {{"small"}, ""}, HostCapacity{2}).runnable_here());
}

TEST(Plan, FiltersAndTheirMistakes) {
  pperf::testing::TempDir dir;
  const Config c = load(two_by_two(), dir);
  EXPECT_EQ(make_plan(c, {{"big"}, ""}, HostCapacity{128}).items.size(), 2u);
  EXPECT_EQ(make_plan(c, {{}, "mnist_heavy"}, HostCapacity{128}).items.size(), 4u);
  try {
    make_plan(c, {{"bigg"}, ""}, HostCapacity{128});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--only: no configuration 'bigg' in " + c.path + " (did you mean 'big'?)");
  }
  EXPECT_THROW(make_plan(c, {{}, "vit"}, HostCapacity{128}), InputError);
}

TEST(Plan, GivenResultsCarryTheGivenStepTime) {
  pperf::testing::TempDir dir;
  json j = two_by_two();
  j["workloads"].erase(1);
  j["configurations"][0]["step_time_ms"] = 200;
  j["configurations"][1]["step_time_ms"] = 100;
  const Config c = load(j, dir);
  const std::vector<Result> results = given_results(make_plan(c, {}, HostCapacity{2}));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_DOUBLE_EQ(results[1].step->median_ms, 100);
  EXPECT_DOUBLE_EQ(*results[1].samples_per_s, 80);  // 8 samples per 0.1 s
  EXPECT_FALSE(results[1].measured);
}

TEST(Plan, AGpuDeviceIsValidEverywhereButRunnableOnlyWithGpus) {
  pperf::testing::TempDir dir;
  json j = two_by_two();
  j["configurations"][0]["execution"]["device"] = "cuda";
  j["configurations"][1]["execution"]["device"] = "cuda:3";
  const Config c = load(j, dir);
  EXPECT_EQ(c.configurations[0].execution.device.kind, DeviceChoice::Kind::every_gpu);
  EXPECT_EQ(c.configurations[0].execution.device.name(), "cuda");
  HostCapacity cpu_only{128};
  cpu_only.no_cuda_reason = "this pperf is built against a CPU-only libtorch";
  const PlanItem on_cpu_host = make_plan(c, {}, cpu_only).items[0];
  ASSERT_EQ(on_cpu_host.not_runnable_here.size(), 1u);
  EXPECT_EQ(on_cpu_host.not_runnable_here[0].pointer, "/configurations/0/execution/device");
  EXPECT_EQ(on_cpu_host.not_runnable_here[0].reason, "device 'cuda': this pperf is built against a CPU-only libtorch");
  HostCapacity two_gpus{128};
  two_gpus.cuda_devices = 2;
  const Plan plan = make_plan(c, {}, two_gpus);
  EXPECT_TRUE(plan.items[0].not_runnable_here.empty());
  ASSERT_EQ(plan.items[1].not_runnable_here.size(), 1u);
  EXPECT_EQ(plan.items[1].not_runnable_here[0].reason, "device 'cuda:3': this host has 2 GPUs");
  // This host, as built here (Debian's CPU-only libtorch): never runnable, and it says why.
  if (HostCapacity::here().cuda_devices == 0) EXPECT_FALSE(HostCapacity::here().no_cuda_reason.empty());
}

TEST(Plan, NativeOnGpuInstancesMustTrainOnTheGpus) {
  pperf::testing::TempDir dir;
  json j = two_by_two();  // small: 1x p3.2xlarge (1 GPU), trained on the CPU
  j["configurations"][1]["instances"] = {{{"type", "c5.18xlarge"}}};
  const Config c = load(j, dir);
  EXPECT_EQ(c.configurations[0].priced_gpus, 1);
  EXPECT_EQ(c.configurations[1].priced_gpus, 0);
  HostCapacity native{128};
  native.native = true;
  const Plan plan = make_plan(c, {{}, "mnist_heavy"}, native);
  ASSERT_EQ(plan.items[0].not_runnable_here.size(), 1u);
  EXPECT_EQ(plan.items[0].not_runnable_here[0].pointer, "/configurations/0/execution/device");
  EXPECT_NE(plan.items[0].not_runnable_here[0].reason.find("--native: the priced trainer instances have 1 GPU(s)"),
            std::string::npos);
  // A CPU instance measured on its CPU; its spawned data group is the emulation's only.
  ASSERT_EQ(plan.items[1].not_runnable_here.size(), 1u);
  EXPECT_EQ(plan.items[1].not_runnable_here[0].pointer, "/configurations/1/execution/data/spawn_local");
  EXPECT_TRUE(make_plan(c, {}, HostCapacity{128}).items[0].not_runnable_here.empty()) << "emulated: allowed";
  // A step that drives its own device (python_step) is not pperf's to put on the GPU.
  Config own_device = c;
  for (auto& w : own_device.workloads) w.owns_device = true;
  EXPECT_TRUE(make_plan(own_device, {{}, "mnist_heavy"}, native).items[0].not_runnable_here.empty());
}

TEST(Plan, OneGpuOfSeveralPricedSaysSo) {
  pperf::testing::TempDir dir;
  json j = two_by_two();  // small: 1x p3.2xlarge (1 GPU); big: 1x p4d.24xlarge (8 GPUs)
  j["configurations"][0]["execution"] = {{"device", "cuda:0"}};
  j["configurations"][1]["execution"] = {{"device", "cuda:0"}};
  const Config c = load(j, dir);
  HostCapacity one_gpu{128};
  one_gpu.cuda_devices = 1;
  const Plan plan = make_plan(c, {{}, "mnist_heavy"}, one_gpu);
  EXPECT_TRUE(plan.items[0].notes.empty()) << "the one priced GPU";
  ASSERT_EQ(plan.items[1].notes.size(), 1u);
  EXPECT_EQ(plan.items[1].notes[0],
            "trains 1 of 8 priced GPUs (cuda:0): the cost per sample prices all 8 for one GPU's throughput; "
            "\"device\": \"cuda\" trains one rank per priced GPU");
  EXPECT_TRUE(plan.items[1].not_runnable_here.empty()) << "it runs, and says so";
}

TEST(Plan, CudaRunsOneRankPerGpuOfTheTrainerInstances) {
  pperf::testing::TempDir dir;
  json j = two_by_two();  // small: 1x p3.2xlarge (1 GPU); big: 1x p4d.24xlarge (8 GPUs)
  j["configurations"][0]["execution"]["device"] = "cuda";
  j["configurations"][1]["execution"] = {{"device", "cuda"}};
  j["configurations"][1]["instances"][0]["count"] = 2;
  const Config c = load(j, dir);
  EXPECT_FALSE(c.configurations[0].execution.distributed) << "one GPU: one process";
  ASSERT_TRUE(c.configurations[1].execution.distributed);
  EXPECT_EQ(c.configurations[1].execution.distributed->world_size, 16);
  EXPECT_TRUE(c.configurations[1].execution.distributed->spawn_local);
  HostCapacity eight_gpus{128};
  eight_gpus.cuda_devices = 8;
  const PlanItem big = make_plan(c, {{"big"}, ""}, eight_gpus).items[0];
  EXPECT_EQ(big.ranks, 16);
  EXPECT_EQ(big.result_skeleton().samples_per_step, 8 * 16);
  ASSERT_EQ(big.not_runnable_here.size(), 1u);
  EXPECT_EQ(big.not_runnable_here[0].reason,
            "one rank per GPU: 16 ranks, this host has 8 GPUs (start them with a launcher across the instances: "
            "docs/gpu.md)");

  // Under a launcher (torchrun or srun over both p4d) the ranks are not spawned here: one GPU
  // per process is enough, and the launcher's group must be the 16 priced GPUs.
  HostCapacity launched = eight_gpus;
  launched.launcher_world_size = 16;
  EXPECT_TRUE(make_plan(c, {{"big"}, ""}, launched).items[0].not_runnable_here.empty());
  HostCapacity one_gpu_per_task{8};
  one_gpu_per_task.cuda_devices = 1;
  one_gpu_per_task.launcher_world_size = 16;
  EXPECT_TRUE(make_plan(c, {{"big"}, ""}, one_gpu_per_task).items[0].not_runnable_here.empty());
  launched.launcher_world_size = 8;
  const PlanItem short_group = make_plan(c, {{"big"}, ""}, launched).items[0];
  ASSERT_EQ(short_group.not_runnable_here.size(), 1u);
  EXPECT_EQ(short_group.not_runnable_here[0].pointer, "/configurations/1/execution/device");
  EXPECT_EQ(short_group.not_runnable_here[0].reason,
            "the configuration runs 16 ranks (one per priced GPU), the launcher started 8");

  j["configurations"][0]["instances"][0]["type"] = "c5.18xlarge";  // no GPU
  try {
    load(j, dir);
    FAIL() << "cuda on a CPU instance loaded";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/configurations/0/execution/device: \"cuda\": the trainer instances have no GPU"),
              std::string::npos) << e.what();
  }
}

namespace {
/// One configuration per way batches can reach the trainer (mnist_heavy makes uint8 exactly).
json data_paths() {
  json c = two_by_two();
  c["workloads"] = json::parse(R"([{"name": "mnist_heavy", "preset": "tiny", "batch_size": 8}])");
  const json data = json::parse(R"({"mode": "service", "spawn_local": {"processes": 1}})");
  c["configurations"] = json::array();
  c["configurations"].push_back({{"name", "local"}, {"baseline", true}, {"instances", {{{"type", "p3.2xlarge"}}}}});
  c["configurations"].push_back(
      {{"name", "workers"}, {"instances", {{{"type", "p3.2xlarge"}}}}, {"execution", {{"data", data}}}});
  json named = data;
  named["wire"] = "float32";
  c["configurations"].push_back({{"name", "float32"}, {"instances", {{{"type", "p3.2xlarge"}}}}, {"execution", {{"data", named}}}});
  json linked = data;
  linked["link_gbps"] = 0.02;
  linked["link_scale"] = 2;
  c["configurations"].push_back(
      {{"name", "link"}, {"instances", {{{"type", "p3.2xlarge"}}, {{"type", "c5.9xlarge"}, {"role", "data"}}}},
       {"execution", {{"data", linked}}}});
  return c;
}
}  // namespace

TEST(Plan, TheDataPathIsResolvedOncePerItem) {
  pperf::testing::TempDir dir;
  const Config c = load(data_paths(), dir);
  EXPECT_EQ(c.default_wires, std::vector<std::string>{"uint8"});
  const Plan plan = make_plan(c, {}, HostCapacity{128});
  ASSERT_EQ(plan.items.size(), 4u);
  // The local loader hands batches over in memory; pperf's workers send the workload's smallest
  // exact wire unless the configuration names one.
  EXPECT_EQ(plan.items[0].data_path.wire, "float32");
  EXPECT_EQ(plan.items[1].data_path.wire, "uint8");
  EXPECT_EQ(plan.items[2].data_path.wire, "float32");
  EXPECT_EQ(plan.items[3].data_path.wire, "uint8");
  for (size_t i = 0; i < 3; ++i) EXPECT_FALSE(plan.items[i].data_path.link) << i;
  const std::optional<EmulatedLink>& link = plan.items[3].data_path.link;
  ASSERT_TRUE(link);
  EXPECT_EQ(link->gbps, 0.02);
  EXPECT_EQ(link->scale, 2);
  EXPECT_EQ(link->source, "config");
  EXPECT_EQ(link->rate_bit_per_s(), 0.04e9);
  // On the real instances the link is theirs: nothing is emulated.
  EXPECT_FALSE(data_path_of(c, 0, c.configurations[3], true).link);
}

TEST(Plan, AnEmulatedLinkThisHostCannotMakeIsRefusedAtItsKey) {
  pperf::testing::TempDir dir;
  const Config c = load(data_paths(), dir);
  HostCapacity host{128};
  EXPECT_TRUE(make_plan(c, {}, host).runnable_here()) << "a host that can make links";
  host.link_obstacle = "making a network namespace and shaping it with tc needs root (this process is not)";
  const Plan plan = make_plan(c, {}, host);
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(plan.items[i].not_runnable_here.empty()) << i;
  ASSERT_EQ(plan.items[3].not_runnable_here.size(), 1u);
  const Obstacle& o = plan.items[3].not_runnable_here[0];
  EXPECT_EQ(o.pointer, "/configurations/3/execution/data/link_gbps");
  EXPECT_EQ(o.reason, "cannot emulate the 0.02 Gbit/s link: making a network namespace and shaping it with tc needs root "
                      "(this process is not)");
  EXPECT_TRUE(o.emulation_setup) << "validate refuses it as run does: the emulation runs on no other host";
}
