// GPU facts and utilization from nvidia-smi, tested against a fake nvidia-smi on PATH that
// prints what the real one prints (this host has no GPU).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "src/env/gpu_info.h"
#include "test_helpers.h"

using namespace pperf;

namespace {
/// PATH = a directory holding a fake nvidia-smi, for the scope's lifetime.
class FakeNvidiaSmi {
 public:
  bool printed() const { return std::filesystem::exists(dir_.path() + "/printed"); }
  FakeNvidiaSmi() : old_path_(std::getenv("PATH") ? std::getenv("PATH") : "") {
    const std::string script = dir_.write("nvidia-smi", R"(#!/bin/sh
case "$1" in
  --query-gpu=index,*) printf '0, NVIDIA A10G, 23028, 535.104.05\n1, NVIDIA A10G, 23028, 535.104.05\n' ;;
  --query-gpu=utilization.gpu,memory.used)
    case "$*" in
      *"-i 0"|*"-i GPU-8f3c") printf '35, 1024\n[N/A], 1000\n75, 2048\n' ;;
      *"-i 1") printf '5, 100\n15, 300\n' ;;
      *"-i MIG-"*) printf '[N/A], 1000\n[N/A], 1200\n' ;;  # MIG instances: no utilization
      *"-i "*) echo "No devices were found" ;;
      *) printf '35, 1024\n5, 100\n75, 2048\n15, 300\n' ;;  # every GPU, one line each per period
    esac
    touch "$(dirname "$0")/printed"; exec sleep 30 ;;
  "") printf '| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n' ;;
esac
)");
    chmod(script.c_str(), 0755);
    setenv("PATH", (dir_.path() + ":" + old_path_).c_str(), 1);
  }
  ~FakeNvidiaSmi() { setenv("PATH", old_path_.c_str(), 1); }

 private:
  pperf::testing::TempDir dir_;
  std::string old_path_;
};
}  // namespace

TEST(GpuInfo, FactsComeFromNvidiaSmi) {
  FakeNvidiaSmi smi;
  const nlohmann::json facts = nvidia_gpu_facts();
  ASSERT_EQ(facts["gpus"].size(), 2u);
  EXPECT_EQ(facts["gpus"][1]["index"], 1);
  EXPECT_EQ(facts["gpus"][0]["name"], "NVIDIA A10G");
  EXPECT_EQ(facts["gpus"][0]["memory_mib"], 23028.0);
  EXPECT_EQ(facts["gpus"][0]["driver"], "535.104.05");
  EXPECT_EQ(facts["cuda_driver"], "12.2");
}

namespace {
std::optional<GpuUtilization> sample_once(const FakeNvidiaSmi& smi, const std::string& gpu) {
  GpuSampler sampler(100, gpu);
  for (int i = 0; i < 3000 && !smi.printed(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(smi.printed());
  return sampler.finish();
}
}  // namespace

TEST(GpuInfo, SamplerSummarisesItsOwnGpuAndSkipsUnreadableSamples) {
  FakeNvidiaSmi smi;
  const std::optional<GpuUtilization> u = sample_once(smi, "0");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->gpu, "0");
  EXPECT_EQ(u->samples, 2);  // "[N/A]" is not a sample
  EXPECT_DOUBLE_EQ(u->mean_pct, 55.0);
  EXPECT_DOUBLE_EQ(u->max_pct, 75.0);
  EXPECT_DOUBLE_EQ(u->max_memory_used_mib, 2048.0);
}

TEST(GpuInfo, AnotherGpuIsNotPooledIn) {
  FakeNvidiaSmi smi;
  const std::optional<GpuUtilization> second = sample_once(smi, "1");
  ASSERT_TRUE(second);
  EXPECT_DOUBLE_EQ(second->mean_pct, 10.0);
  EXPECT_DOUBLE_EQ(second->max_memory_used_mib, 300.0);
}

TEST(GpuInfo, AllPoolsEveryGpuAndSaysSo) {
  FakeNvidiaSmi smi;
  const std::optional<GpuUtilization> all = sample_once(smi, "all");
  ASSERT_TRUE(all);
  EXPECT_EQ(all->gpu, "all");
  EXPECT_EQ(all->samples, 4);
  EXPECT_DOUBLE_EQ(all->mean_pct, 32.5);
}

TEST(GpuInfo, CudaOrdinalsMapToNvidiaSmiIdsThroughVisibleDevices) {
  EXPECT_EQ(map_to_nvidia_smi(1, nullptr, "PCI_BUS_ID").id, "1");  // pperf's default order = nvidia-smi's
  EXPECT_EQ(map_to_nvidia_smi(1, nullptr, nullptr).id, "all");     // fastest first: unknown
  EXPECT_EQ(map_to_nvidia_smi(1, nullptr, "FASTEST_FIRST").id, "all");
  EXPECT_EQ(map_to_nvidia_smi(0, "6,7", "PCI_BUS_ID").id, "6");  // Slurm: one GPU per task, renumbered
  EXPECT_EQ(map_to_nvidia_smi(1, "6, 7", "PCI_BUS_ID").id, "7");
  // Indices in CUDA_VISIBLE_DEVICES count in CUDA's order: fastest first, they are not nvidia-smi's.
  EXPECT_EQ(map_to_nvidia_smi(1, "6, 7", nullptr).id, "all");
  EXPECT_EQ(map_to_nvidia_smi(0, "6", "FASTEST_FIRST").id, "all");
  EXPECT_EQ(map_to_nvidia_smi(0, "GPU-8f3c,GPU-11aa", nullptr).id, "GPU-8f3c");  // UUIDs name one GPU in any order
  EXPECT_EQ(map_to_nvidia_smi(0, "MIG-5c1e9a2b", "FASTEST_FIRST").id, "MIG-5c1e9a2b");
  EXPECT_EQ(map_to_nvidia_smi(2, "6,7", "PCI_BUS_ID").id, "all");  // not visible
  EXPECT_EQ(map_to_nvidia_smi(1, "6,,7", "PCI_BUS_ID").id, "all");  // CUDA stops at an empty entry
  EXPECT_EQ(map_to_nvidia_smi(-1, nullptr, "PCI_BUS_ID").id, "all");
}

TEST(GpuInfo, AnUnknownMappingSaysWhy) {
  const SmiGpuId fastest = map_to_nvidia_smi(1, "6,7", "FASTEST_FIRST");
  EXPECT_EQ(fastest.id, "all");
  EXPECT_EQ(fastest.why_all, "CUDA_DEVICE_ORDER=FASTEST_FIRST numbers GPUs in another order than nvidia-smi's PCI "
                             "order; set CUDA_DEVICE_ORDER=PCI_BUS_ID or list UUIDs in CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(map_to_nvidia_smi(0, nullptr, nullptr).why_all.rfind("CUDA_DEVICE_ORDER unset (fastest first) numbers", 0), 0u);
  EXPECT_EQ(map_to_nvidia_smi(2, "6,7", "PCI_BUS_ID").why_all, "cuda:2 is not in CUDA_VISIBLE_DEVICES=6,7");
  EXPECT_EQ(map_to_nvidia_smi(1, "6,7", "PCI_BUS_ID").why_all, "");
}

TEST(GpuInfo, MigUtilizationIsNotAvailableAndTheResultSaysWhy) {
  FakeNvidiaSmi smi;
  GpuSampler sampler(100, "MIG-5c1e9a2b");
  for (int i = 0; i < 3000 && !smi.printed(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(smi.printed());
  EXPECT_FALSE(sampler.finish());
  EXPECT_EQ(sampler.why_none(), "GPU utilization not recorded: nvidia-smi gives utilization.gpu of GPU MIG-5c1e9a2b "
                                "as N/A (2 readings), as it does for MIG instances and GPUs that do not report it");
}

TEST(GpuInfo, AGpuNvidiaSmiDoesNotKnowIsSaidSo) {
  FakeNvidiaSmi smi;
  GpuSampler sampler(100, "7");
  for (int i = 0; i < 3000 && !smi.printed(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(smi.printed());
  EXPECT_FALSE(sampler.finish());
  EXPECT_EQ(sampler.why_none(), "GPU utilization not recorded: nvidia-smi printed no reading of GPU 7 (it said: No "
                                "devices were found)");
}

TEST(GpuInfo, SamplesOutsideTheOwnRoundsAreLeftOut) {
  // Two configurations take turns on one GPU: this one's rounds are 0-1000 ms and 2000-3000 ms;
  // the other's kernels (95 %, 30 GiB) ran in between.
  const std::vector<GpuSample> samples = {{100, 40, 1000}, {900, 60, 2000},   {1200, 95, 30000},
                                          {1800, 95, 30000}, {2000, 50, 1500}, {3200, 90, 25000}};
  const std::vector<TimeWindow> own = {{0, 1000}, {2000, 3000}};
  const auto mine = summarize_gpu_samples(samples, "0", &own);
  ASSERT_TRUE(mine);
  EXPECT_EQ(mine->gpu, "0");
  EXPECT_EQ(mine->samples, 3);
  EXPECT_DOUBLE_EQ(mine->mean_pct, 50.0);
  EXPECT_DOUBLE_EQ(mine->max_pct, 60.0);
  EXPECT_DOUBLE_EQ(mine->max_memory_used_mib, 2000.0);
  const auto all = summarize_gpu_samples(samples, "0");  // not taking turns: every sample
  EXPECT_EQ(all->samples, 6);
  EXPECT_DOUBLE_EQ(all->max_memory_used_mib, 30000.0);
  const std::vector<TimeWindow> between = {{1300, 1700}};
  EXPECT_FALSE(summarize_gpu_samples(samples, "0", &between));
  const std::vector<TimeWindow> none;
  EXPECT_FALSE(summarize_gpu_samples(samples, "0", &none));
}

TEST(GpuInfo, TheSamplerCutsToWindowsOnItsOwnClock) {
  FakeNvidiaSmi smi;
  GpuSampler sampler(100, "0");
  for (int i = 0; i < 3000 && !smi.printed(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(smi.printed());
  // A window long before any sample arrived: nothing of the run is this configuration's.
  const std::vector<TimeWindow> long_ago = {{0, 1}};
  EXPECT_FALSE(sampler.finish(&long_ago));
  EXPECT_EQ(sampler.why_none(), "GPU utilization not recorded: none of nvidia-smi's 2 readings of GPU 0 (one every "
                                "100 ms) fell in this configuration's own rounds");
}

TEST(GpuInfo, WithoutNvidiaSmiThereIsNothingToReport) {
  const std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  pperf::testing::TempDir empty;
  setenv("PATH", empty.path().c_str(), 1);
  EXPECT_TRUE(nvidia_gpu_facts().is_null());
  GpuSampler sampler(100, "0");
  EXPECT_FALSE(sampler.finish());
  setenv("PATH", old_path.c_str(), 1);
}

TEST(GpuInfo, SampleLines) {
  EXPECT_EQ(parse_gpu_sample("35, 1024"), std::make_pair(35.0, 1024.0));
  EXPECT_FALSE(parse_gpu_sample("[N/A], 1024"));
  EXPECT_FALSE(parse_gpu_sample("135, 1024"));  // not a percentage
  EXPECT_FALSE(parse_gpu_sample("35"));
  EXPECT_FALSE(parse_gpu_sample("utilization.gpu [%], memory.used [MiB]"));
}

namespace {
/// A fake /proc and /sys of a two-node host with GPUs on buses 0000:07 (node 0) and 0000:87
/// (node 1); the driver lists bus ids in upper case, sysfs in lower case, as on real hosts.
struct FakeNumaHost {
  pperf::testing::TempDir root;
  FakeNumaHost() {
    for (const char* bus : {"0000:87:00.0", "0000:07:00.0"})
      std::filesystem::create_directories(root.path() + "/proc/driver/nvidia/gpus/" + bus);
    root.write("sys/bus/pci/devices/0000:07:00.0/numa_node", "0\n");
    root.write("sys/bus/pci/devices/0000:87:00.0/numa_node", "1\n");
    root.write("sys/devices/system/node/node0/cpulist", "0-3,8-11\n");
    root.write("sys/devices/system/node/node1/cpulist", "4-7,12-15\n");
  }
};
}  // namespace

TEST(GpuNuma, EachGpuMapsToItsNodesCpusInPciOrder) {
  FakeNumaHost host;
  EXPECT_EQ(gpu_numa_cpus(0, nullptr, "PCI_BUS_ID", host.root.path()), (std::vector<int>{0, 1, 2, 3, 8, 9, 10, 11}));
  EXPECT_EQ(gpu_numa_cpus(1, nullptr, "PCI_BUS_ID", host.root.path()), (std::vector<int>{4, 5, 6, 7, 12, 13, 14, 15}));
  EXPECT_EQ(gpu_numa_cpus(2, nullptr, "PCI_BUS_ID", host.root.path()), std::nullopt);
}

TEST(GpuNuma, VisibleDevicesRenumberTheGpus) {
  FakeNumaHost host;
  EXPECT_EQ(gpu_numa_cpus(0, "1", "PCI_BUS_ID", host.root.path()), (std::vector<int>{4, 5, 6, 7, 12, 13, 14, 15}));
  EXPECT_EQ(gpu_numa_cpus(1, "1", "PCI_BUS_ID", host.root.path()), std::nullopt);
  EXPECT_EQ(gpu_numa_cpus(0, "GPU-5d1f6e0a", "PCI_BUS_ID", host.root.path()), std::nullopt) << "UUIDs: unknown";
  EXPECT_EQ(gpu_numa_cpus(0, "", "PCI_BUS_ID", host.root.path()), std::nullopt) << "no GPU visible";
}

// Slurm's --gpus-per-task=1: local rank 1 sees only its own GPU (physical 1) as cuda:0. Its node
// is found from the CUDA ordinal it trains on (0), not from its local rank (1: not visible).
TEST(GpuNuma, ARankWithOneVisibleGpuIsPinnedToThatGpusNode) {
  FakeNumaHost host;
  EXPECT_EQ(gpu_numa_cpus(0, "1", "PCI_BUS_ID", host.root.path()), (std::vector<int>{4, 5, 6, 7, 12, 13, 14, 15}));
  EXPECT_EQ(gpu_numa_cpus(1, "1", "PCI_BUS_ID", host.root.path()), std::nullopt) << "the local rank is no ordinal";
}

TEST(GpuNuma, UnknownLinksLeaveTheRankUnpinned) {
  FakeNumaHost host;
  EXPECT_EQ(gpu_numa_cpus(0, nullptr, nullptr, host.root.path()), std::nullopt) << "fastest-first order";
  EXPECT_EQ(gpu_numa_cpus(0, nullptr, "FASTEST_FIRST", host.root.path()), std::nullopt);
  host.root.write("sys/bus/pci/devices/0000:07:00.0/numa_node", "-1\n");  // single-node hosts say -1
  EXPECT_EQ(gpu_numa_cpus(0, nullptr, "PCI_BUS_ID", host.root.path()), std::nullopt);
  pperf::testing::TempDir empty;
  EXPECT_EQ(gpu_numa_cpus(0, nullptr, "PCI_BUS_ID", empty.path()), std::nullopt);
}

TEST(GpuNuma, CpuListsParseAsSysfsWritesThem) {
  EXPECT_EQ(parse_cpu_list("0-2,5,7-8\n"), (std::vector<int>{0, 1, 2, 5, 7, 8}));
  EXPECT_EQ(parse_cpu_list("3"), (std::vector<int>{3}));
  for (const char* bad : {"", "a", "1-", "3-1", "1,,2", "1x", "-1"}) EXPECT_EQ(parse_cpu_list(bad), std::nullopt) << bad;
}
