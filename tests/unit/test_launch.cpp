// The SageMaker container contract as real jobs printed it (../shared/real-data/launchers/
// sagemaker, SOURCES.md there: a two-group heterogeneous job, a 2 x p4d job whose group lists
// algo-2 first) read by src/launch, and a config's `native` size.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "src/config/config.h"
#include "src/core/atomic_file.h"
#include "src/core/input_error.h"
#include "src/launch/sagemaker.h"
#include "test_helpers.h"
#include "unit_registry.h"

using namespace pperf;

namespace {

/// ../shared/real-data/launchers/sagemaker (or $PPERF_REAL_DATA/launchers/sagemaker); "" when absent.
std::string real_sagemaker_dir() {
  const char* env = std::getenv("PPERF_REAL_DATA");
  const std::string base = env && *env ? env : std::string(PPERF_SOURCE_DIR) + "/../shared/real-data";
  const std::string dir = base + "/launchers/sagemaker";
  return std::filesystem::is_directory(dir) ? dir : "";
}

#define REAL_SAGEMAKER_OR_SKIP(dir)                                                               \
  const std::string dir = real_sagemaker_dir();                                                   \
  if (dir.empty()) GTEST_SKIP() << "no launchers/sagemaker under PPERF_REAL_DATA (../shared/real-data)"

std::map<std::string, std::string> job_hyper(const std::string& trainer, const std::string& data_of, const std::string& workers) {
  return {{sagemaker_keys::kTrainerGroup, trainer}, {sagemaker_keys::kDataGroups, data_of}, {sagemaker_keys::kDataWorkers, workers}};
}

}  // namespace

TEST(SageMakerContract, RealHeterogeneousJobRoleComesFromTheGroup) {
  REAL_SAGEMAKER_OR_SKIP(dir);
  const std::string file = dir + "/real.hetero-helloworld.algo-1.resourceconfig.json";
  const SageMakerResourceConfig rc = parse_resource_config(read_text_file(file), file);
  EXPECT_EQ(rc.current_host, "algo-1");
  EXPECT_EQ(rc.current_group, "data_group");
  EXPECT_EQ(rc.current_instance_type, "ml.c5.xlarge");
  EXPECT_EQ(rc.group_hosts.at("dnn_group"), std::vector<std::string>{"algo-2"});
  EXPECT_EQ(rc.network_interface, "eth0");
  // algo-1, first in /hosts, is the data host here: its group says so.
  const SageMakerRole role =
      sagemaker_role(rc, job_hyper("dnn_group", R"({"hetero": ["data_group", 1]})", R"({"data_group": 4})"), file, "hp.json");
  EXPECT_FALSE(role.trainer);
  EXPECT_EQ(role.group, "data_group");
  EXPECT_EQ(role.data_workers, 4);
  EXPECT_EQ(role.all_data_hosts, std::vector<std::string>{"algo-1"});
  EXPECT_EQ(role.data_hosts.at("hetero"), std::vector<std::string>{"algo-1"});
}

TEST(SageMakerContract, RealTwoNodeJobKeepsTheGroupsHostOrder) {
  REAL_SAGEMAKER_OR_SKIP(dir);
  const std::string file = dir + "/real.p4d-2node.algo-2.SM_RESOURCE_CONFIG.json";
  const SageMakerResourceConfig rc = parse_resource_config(read_text_file(file), file);
  EXPECT_EQ(rc.hosts, (std::vector<std::string>{"algo-1", "algo-2"}));
  EXPECT_EQ(rc.group_hosts.at("homogeneousCluster"), (std::vector<std::string>{"algo-2", "algo-1"}));
  // A job without data groups: the host trains, whatever its place in /hosts.
  const SageMakerRole role = sagemaker_role(rc, job_hyper("", "{}", "{}"), file, "hp.json");
  EXPECT_TRUE(role.trainer);
  EXPECT_TRUE(role.all_data_hosts.empty());
  // Data hosts of a configuration are the group's first hosts in the group's order: algo-2 first.
  const SageMakerRole as_data = sagemaker_role(
      rc, job_hyper("homogeneousCluster", R"({"c": ["homogeneousCluster", 1]})", R"({})"), file, "hp.json");
  EXPECT_EQ(as_data.data_hosts.at("c"), std::vector<std::string>{"algo-2"});
}

TEST(SageMakerContract, MalformedFilesNameTheFileAndKey) {
  auto error_of = [](const std::string& text) {
    try {
      parse_resource_config(text, "rc.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("[1]"), "rc.json: not a JSON object");
  EXPECT_EQ(error_of(R"({"hosts": ["algo-1"]})").rfind("rc.json: /current_host: ", 0), 0u);
  EXPECT_EQ(error_of(R"({"current_host": "algo-3", "hosts": ["algo-1"]})"), "rc.json: /current_host: 'algo-3' is not one of /hosts");
  EXPECT_EQ(error_of(R"({"current_host": "algo-1", "hosts": ["algo-1"], "current_group_name": "g"})"),
            "rc.json: /current_group_name: 'g' is not one of /instance_groups");
  try {
    parse_hyperparameters(R"({"a": 1})", "hp.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "hp.json: /a: must be a string (SageMaker passes hyperparameters as strings)");
  }
  // The SDK's JSON-encoded values are decoded, SageMaker's plain ones kept.
  const auto h = parse_hyperparameters(R"({"sagemaker_program": "\"entry.sh\"", "n": "3"})", "hp.json");
  EXPECT_EQ(h.at("sagemaker_program"), "entry.sh");
  EXPECT_EQ(h.at("n"), "3");
}

TEST(SageMakerLaunch, NamesAsTheApiAllows) {
  EXPECT_EQ(launch_name("p4d-vs-hetero-ml.p4d.24xlarge", 63), "p4d-vs-hetero-ml-p4d-24xlarge");
  EXPECT_EQ(launch_name("__a b__", 63), "a-b");
  EXPECT_EQ(launch_name(std::string(80, 'x') + "-y", 63).size(), 63u);
  EXPECT_EQ(launch_name("abc-def", 4), "abc");  // never ends in '-'
}

TEST(SageMakerLaunch, RuntimeFromTheMeasureBudget) {
  MeasureSettings m;
  m.max_seconds = 90;
  EXPECT_EQ(launch_max_runtime_s(m, 2), 900 + 2 * (90 + 300));
  m.max_seconds = 0.5;
  EXPECT_EQ(launch_max_runtime_s(m, 1), 900 + 1 + 300);
}

TEST(NativeSize, ShippedSeedConfigCarriesItsRealSize) {
  // Seed 000's example 2: batch 256 emulated here, the seed's 8192 on the real instances.
  const std::string path = std::string(PPERF_SOURCE_DIR) + "/configs/p3_vs_hetero_mnist.json";
  const Config here = load_config(path, pperf::testing::fixture_workloads());
  ASSERT_EQ(here.workloads.size(), 1u);
  EXPECT_EQ(here.workloads[0].batch_size, 256);
  EXPECT_FALSE(here.native);
  EXPECT_EQ(here.configurations[0].execution.cpus, std::vector<int>{0});
  ASSERT_TRUE(here.native_workloads[0]);
  EXPECT_EQ(here.native_workloads[0]->batch_size, 8192);
  const Config real = load_config(path, pperf::testing::fixture_workloads(), true);
  EXPECT_TRUE(real.native);
  EXPECT_EQ(real.workloads[0].preset, "full");
  EXPECT_EQ(real.workloads[0].batch_size, 8192);
  EXPECT_EQ(real.workloads_as_written[0].batch_size, 256);
  // The emulation's CPU pinning is dropped on the real instances.
  EXPECT_TRUE(real.configurations[0].execution.cpus.empty());
  EXPECT_TRUE(real.configurations[1].execution.data.spawn_local_cpus.empty());
  EXPECT_EQ(real.configurations[1].execution.data.spawn_local_processes, 1);
}

TEST(NativeSize, RefusalsNameTheNativeKey) {
  const std::string dir = ::testing::TempDir() + "native-size";
  std::filesystem::create_directories(dir);
  auto error_of = [&](const std::string& native) {
    const std::string path = dir + "/c.json";
    write_file_atomically(path, R"({"name": "n", "pricing": {"table": "aws-sagemaker-us-east-1"},
      "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 8, "native": )" + native + R"(}],
      "configurations": [{"name": "a", "baseline": true, "instances": [{"type": "ml.p3.2xlarge", "count": 1, "role": "dnn"}]}]})");
    try {
      load_config(path, pperf::testing::fixture_workloads());
    } catch (const InputError& e) {
      return std::string(e.what()).substr(path.size() + 2);
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of(R"({"preset": "huge"})").rfind("/workloads/0/native/preset: unknown preset 'huge' of mnist_heavy", 0), 0u);
  EXPECT_EQ(error_of(R"({"batch_size": 0})").rfind("/workloads/0/native/batch_size: ", 0), 0u);
  EXPECT_EQ(error_of(R"({"threads": 2})").rfind("/workloads/0/native/threads: unknown key", 0), 0u);
  EXPECT_EQ(error_of(R"({"params": {"nope": 1}})").rfind("/workloads/0/native/params/nope: ", 0), 0u);
  EXPECT_EQ(error_of(R"({"batch_size": 4096})"), "no error");
}
