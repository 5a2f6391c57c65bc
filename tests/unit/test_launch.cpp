// The SageMaker container contract as real jobs printed it (../shared/real-data/launchers/
// sagemaker, SOURCES.md there: a two-group heterogeneous job, a 2 x p4d job whose group lists
// algo-2 first) read by src/launch, and a config's `native` size.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <regex>

#include "src/config/config.h"
#include "src/core/atomic_file.h"
#include "src/core/input_error.h"
#include "src/launch/framework_images.h"
#include "src/launch/sagemaker.h"
#include "src/launch/sagemaker_container.h"
#include "test_helpers.h"
#include "unit_registry.h"

using namespace pperf;

namespace {

/// ../shared/real-data/launchers/sagemaker (or $PPERF_REAL_DATA/launchers/sagemaker); "" when absent.
std::string real_sagemaker_dir() {
  const char* env = std::getenv("PPERF_REAL_DATA");
  const std::string base = env && *env ? env : pperf::testing::source_dir() + "/../shared/real-data";
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
  const std::string path = pperf::testing::source_dir() + "/configs/p3_vs_hetero_mnist.json";
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

// ---- The launch plan every platform writes from, and the files' shared pieces ----

#include "src/launch/kubernetes.h"
#include "src/launch/skypilot.h"
#include "src/launch/yaml.h"

namespace {
/// Seed 000's two configurations (configs/p4d_vs_hetero.json's instances) on the unit tests' workload.
Config seed000_native() {
  const std::string dir = ::testing::TempDir() + "launch-plan";
  std::filesystem::create_directories(dir);
  write_file_atomically(dir + "/p4d_vs_hetero.json", R"({"name": "p4d-vs-hetero", "pricing": {"table": "aws-sagemaker-us-east-1"},
    "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 8}],
    "configurations": [
      {"name": "homogeneous", "baseline": true, "instances": [{"type": "ml.p4d.24xlarge", "count": 1, "role": "dnn"}],
       "execution": {"device": "cuda:0", "data": {"mode": "local"}}},
      {"name": "heterogeneous", "instances": [{"type": "ml.p4d.24xlarge", "count": 1, "role": "dnn"},
                                              {"type": "ml.c5.18xlarge", "count": 2, "role": "data"}],
       "execution": {"device": "cuda:0", "data": {"mode": "service", "spawn_local": {"processes": 2}}}}]})");
  return load_config(dir + "/p4d_vs_hetero.json", pperf::testing::fixture_workloads(), true);
}
const InstanceTypeRule kAnyType = [](const std::string&) { return std::string(); };
}  // namespace

TEST(LaunchPlan, Seed000IsOneJobMeasuringBothInTurns) {
  const auto jobs = launch_plan(seed000_native(), {}, "test", kAnyType);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].key, "ml.p4d.24xlarge");
  EXPECT_EQ(jobs[0].configurations, (std::vector<std::string>{"homogeneous", "heterogeneous"}));
  ASSERT_EQ(jobs[0].data_groups.size(), 1u);
  EXPECT_EQ(jobs[0].data_groups[0].type, "ml.c5.18xlarge");
  EXPECT_EQ(jobs[0].data_groups[0].count, 2);
  EXPECT_EQ(jobs[0].data_groups[0].workers, 72);  // the c5.18xlarge's vCPUs, from the price table
  EXPECT_EQ(jobs[0].data_of.at("heterogeneous"), (std::pair<size_t, int64_t>{0, 2}));
  EXPECT_EQ(jobs[0].items, 2);
  // --spot makes it a job of its own key; a platform's type rule refuses naming the configuration.
  EXPECT_EQ(launch_plan(seed000_native(), {{}, "", true}, "test", kAnyType)[0].key, "ml.p4d.24xlarge-spot");
  try {
    launch_plan(seed000_native(), {}, "test", [](const std::string& t) { return "no " + t; });
    FAIL() << "the rule did not refuse";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/configurations/0/instances/0/type: configuration 'homogeneous': no ml.p4d.24xlarge"),
              std::string::npos)
        << e.what();
  }
}

TEST(LaunchPlan, NodeEntryArgumentsPerRole) {
  const Config config = seed000_native();
  const auto job = launch_plan(config, {}, "test", kAnyType)[0];
  const NodeEntryRole trainer{"skypilot", "j", "trainer", "p4d.24xlarge", 1, "/out/j"};
  const auto t = node_entry_arguments(config, job, trainer, {"data-c5"}, "", 50051, 600, 1680);
  const std::vector<std::string> expected{
      "node-entry", "--platform", "skypilot", "--job", "j", "--group", "trainer", "--instance-type", "p4d.24xlarge",
      "--config", "p4d_vs_hetero.json" /* not shipped: by its file name */, "--config-sha256", config.sha256, "--data-port", "50051", "--max-runtime-s", "1680",
      "--configurations", "homogeneous,heterogeneous", "--data-wait-s", "600", "--out", "/out/j",
      "--data", "heterogeneous=data-c5:2"};
  EXPECT_EQ(t, expected);
  const NodeEntryRole data{"kubernetes", "j", "data-c5", "c5.18xlarge", 72, ""};
  const auto d = node_entry_arguments(config, job, data, {"data-c5"}, "resnet50", 50051, 600, 1680);
  EXPECT_EQ(std::vector<std::string>(d.end() - 4, d.end()), (std::vector<std::string>{"--workload", "resnet50", "--workers", "72"}));
}

TEST(LaunchPlan, ShellLineQuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(shell_line({"pperf", "--only", "cpus=0-1,threads=2", "a b", "it's", ""}),
            R"(pperf --only cpus=0-1,threads=2 'a b' 'it'\''s' '')");
}

TEST(LaunchPlan, CloudInstanceTypeDropsSageMakersPrefix) {
  EXPECT_EQ(cloud_instance_type("ml.p4d.24xlarge"), "p4d.24xlarge");
  EXPECT_EQ(cloud_instance_type("g5.12xlarge"), "g5.12xlarge");
}

TEST(LaunchYaml, BlockStyleStringsQuotedScriptsLiteral) {
  nlohmann::ordered_json task;
  task["name"] = "trainer";
  task["num_nodes"] = 2;
  task["resources"] = {{"use_spot", false}, {"infra", "aws/us-east-1"}};
  task["list"] = {"1", 2};
  task["run"] = "set -e\npperf run\n";
  EXPECT_EQ(yaml_documents({{{"name", "g"}}, task}),
            "---\nname: \"g\"\n---\nname: \"trainer\"\nnum_nodes: 2\nresources:\n  use_spot: false\n  infra: \"aws/us-east-1\"\n"
            "list:\n  - \"1\"\n  - 2\nrun: |\n  set -e\n  pperf run\n");
}

TEST(LaunchFiles, SkyPilotAndKubernetesRefuseWhatTheyCannotName) {
  const Config config = seed000_native();
  SkyPilotLaunchOptions sky;
  sky.output = "/local/dir";
  EXPECT_THROW(skypilot_jobs(config, sky), InputError);
  sky.output = "s3://bucket/p";
  sky.token = "t";
  sky.bundle_torch = "2.11.0+cu130";
  const auto group = skypilot_jobs(config, sky);
  ASSERT_EQ(group.size(), 1u);
  EXPECT_TRUE(group[0].job_group);
  EXPECT_EQ(group[0].documents.size(), 3u);  // header, trainer, data
  // Setup installs a version an index serves: the p4d trainer PyPI's (CUDA) wheel, the c5 data
  // nodes the CPU index's.
  EXPECT_NE(group[0].documents[1]["setup"].get<std::string>().find("pip install --quiet \"torch==2.11.0\"\n"), std::string::npos);
  EXPECT_NE(group[0].documents[2]["setup"].get<std::string>().find("\"torch==2.11.0\" --index-url https://download.pytorch.org/whl/cpu"),
            std::string::npos);
  KubernetesLaunchOptions k8s;
  k8s.image = "pperf:1";
  k8s.results_claim = "Not_A_Name";
  EXPECT_THROW(kubernetes_jobs(config, k8s), InputError);
  k8s.results_claim = "results";
  k8s.token = "t";
  k8s.job_suffix = std::string(30, 'x');
  const auto jobs = kubernetes_jobs(config, k8s);
  ASSERT_EQ(jobs.size(), 1u);
  // The operator's pod name NAME-master-0 and the data pods' NAME-data-I stay within a DNS label.
  EXPECT_LE(jobs[0].name.size() + std::string("-data-0").size(), 63u);
  EXPECT_LE(jobs[0].name.size() + std::string("-master-0").size(), 63u);
}

TEST(KubernetesPlacement, PodAsksForTheInstanceAsPriced) {
  // A pod asks near the node's allocatable: vCPUs less one core, 90 % of memory less 1 GiB.
  InstanceSpec c5;
  c5.type = "c5.18xlarge";
  c5.vcpus = 72;
  c5.memory_gib = 144;
  const PodResources data = pod_resources(c5);
  EXPECT_EQ(data.cpu, "71");
  EXPECT_EQ(data.memory, "131686Mi");  // floor(144 x 1024 x 0.9) - 1024
  EXPECT_EQ(data.gpus, 0);
  InstanceSpec p4d;
  p4d.type = "p4d.24xlarge";
  p4d.vcpus = 96;
  p4d.memory_gib = 1152;
  p4d.accelerators = 8;
  p4d.accelerator_model = "NVIDIA A100 40GB";
  EXPECT_EQ(pod_resources(p4d).gpus, 8);
  p4d.accelerator_model = "AWS Trainium";  // Neuron devices are not nvidia.com/gpu
  EXPECT_EQ(pod_resources(p4d).gpus, 0);
  // Small instances: half a core and half the memory at least, never more than the node has.
  InstanceSpec small;
  small.type = "t3.micro";
  small.vcpus = 1;
  small.memory_gib = 1;
  EXPECT_EQ(pod_resources(small).cpu, "500m");
  EXPECT_EQ(pod_resources(small).memory, "512Mi");
  small.memory_gib = 0;
  EXPECT_THROW(pod_resources(small), InputError);
}

TEST(LaunchNames, WholeWordsThenTheTrainerAndSuffixWhole) {
  // Fits: as before.
  EXPECT_EQ(launch_job_name("p4d_vs_hetero", "p4d.24xlarge", "t1", 50, true, "Kubernetes"), "p4d-vs-hetero-p4d-24xlarge-t1");
  // The default suffix (a UTC time and 4 random hex digits) is kept whole: two launches seconds
  // apart differ; the config's name loses whole words, never part of one.
  EXPECT_EQ(launch_job_name("seed000_ex1_resnet50_cost", "p4d.24xlarge", "20261207T184041-3f9a", 50, true, "Kubernetes"),
            "seed000-ex1-p4d-24xlarge-20261207t184041-3f9a");
  EXPECT_EQ(launch_job_name("averyveryverylongname", "p4d.24xlarge", "20261207T184041-3f9a", 50, true, "Kubernetes"),
            "p4d-24xlarge-20261207t184041-3f9a");
  // Two trainer types of one config never share a name however short the limit.
  EXPECT_NE(launch_job_name("trn1_vs_p4d_bert", "p4d.24xlarge", "x", 20, true, "K"),
            launch_job_name("trn1_vs_p4d_bert", "g5.12xlarge", "x", 20, true, "K"));
  EXPECT_THROW(launch_job_name("c", "p4d.24xlarge", std::string(60, 'x'), 50, true, "Kubernetes"), InputError);
}

TEST(LaunchNames, S3BucketNamesAsS3AllowsThem) {
  for (const char* ok : {"pperf-results", "my.bucket.2026", "abc"}) EXPECT_EQ(s3_bucket_problem(ok), "") << ok;
  EXPECT_NE(s3_bucket_problem("Pperf-Results"), "");  // capitals
  EXPECT_NE(s3_bucket_problem("ab"), "");
  EXPECT_NE(s3_bucket_problem(std::string(64, 'a')), "");
  EXPECT_NE(s3_bucket_problem("my_bucket"), "");
  EXPECT_NE(s3_bucket_problem("-bucket"), "");
  EXPECT_NE(s3_bucket_problem("my..bucket"), "");
  EXPECT_NE(s3_bucket_problem("192.168.5.4"), "");
  EXPECT_NE(s3_bucket_problem("xn--bucket"), "");
  EXPECT_NE(s3_bucket_problem("bucket-s3alias"), "");
  EXPECT_THROW(check_s3_uri("--output", "s3://Results/p"), InputError);
  EXPECT_NO_THROW(check_s3_uri("--output", "s3://results/p"));
}

TEST(LaunchPlan, ConfigurationNamesAShellWouldReadRefused) {
  Config config = seed000_native();
  config.configurations[1].name = "het$(touch x)";
  try {
    launch_plan(config, {}, "test", kAnyType);
    FAIL() << "a name with $( was launched";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/configurations/1/name: configuration name 'het$(touch x)'"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(shell_plain("cpus=0-1,threads=2"));
  EXPECT_FALSE(shell_plain("a`b`"));
}

TEST(LaunchPlan, OnEc2InstancesPricedFromTheEc2Table) {
  const Config config = seed000_native();  // aws-sagemaker-us-east-1, ml.p4d.24xlarge and ml.c5.18xlarge
  const auto jobs = launch_plan(config, {}, "test", kAnyType);
  EXPECT_EQ(ec2_price_table(config, jobs, false, "Kubernetes"), "aws-ec2-us-east-1");
  EXPECT_EQ(ec2_price_table(config, jobs, true, "Kubernetes"), "");  // --sagemaker-rates
  const NodeEntryRole trainer{"kubernetes", "j", "trainer", "p4d.24xlarge", 1, "/out/j", "", "", "aws-ec2-us-east-1"};
  const auto a = node_entry_arguments(config, jobs[0], trainer, {"d"}, "", 50051, 600, 1680);
  EXPECT_NE(std::find(a.begin(), a.end(), "--price-table"), a.end());
  Config other = config;
  other.configurations[1].instances[1].type = "ml.c5.4xlarge";  // priced by SageMaker's table, not EC2's
  other.price_table.instances.emplace("ml.c5.4xlarge", *config.price_table.find("ml.c5.18xlarge"));
  try {
    ec2_price_table(other, jobs, false, "Kubernetes");
    FAIL() << "a type the EC2 table lacks was priced";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/configurations/1/instances/1/type: configuration 'heterogeneous': Kubernetes runs ml.c5.4xlarge as the EC2 instance c5.4xlarge"),
              std::string::npos) << e.what();
  }
}

TEST(LaunchFiles, TorchFromAnIndexThatServesIt) {
  EXPECT_EQ(torch_pip_install("2.11.0+cu130", true), "python3 -m pip install --quiet \"torch==2.11.0\"");
  EXPECT_EQ(torch_pip_install("2.7.1", false), "python3 -m pip install --quiet \"torch==2.7.1\" --index-url https://download.pytorch.org/whl/cpu");
  EXPECT_THROW(torch_pip_install("", true), InputError);
  EXPECT_THROW(torch_pip_install("2.11.0a0+git1234", true), InputError);  // a source build: no index serves it
}

/// The message of the InputError `f` throws ("" when it throws none).
template <typename F>
std::string refusal_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
#define EXPECT_THROW_MESSAGE(call, type, part) EXPECT_NE(refusal_of([&] { call; }).find(part), std::string::npos) << refusal_of([&] { call; })

TEST(FrameworkImages, VersionsComparedAsNumbers) {
  EXPECT_TRUE(version_at_most("2.34", "2.35"));
  EXPECT_TRUE(version_at_most("2.35", "2.35"));
  EXPECT_FALSE(version_at_most("2.35", "2.31"));
  EXPECT_TRUE(version_at_most("3.4.9", "3.4.28"));  // not as text
  EXPECT_FALSE(version_at_most("3.4.30", "3.4.28"));
  EXPECT_TRUE(version_at_most("2", "2.0"));
}

TEST(FrameworkImages, BundleRunsOnlyWhereItsSymbolsAndTorchAre) {
  const BundleNeeds bundle = parse_bundle_needs("2.8.0+cu128\n", "GLIBC 2.35\nGLIBCXX 3.4.30\n", "b/REQUIRES");
  EXPECT_EQ(bundle.torch, "2.8.0+cu128");
  EXPECT_EQ(bundle.glibc, "2.35");
  EXPECT_NO_THROW(check_bundle_runs_on_image("2.8.0", bundle, "b"));
  EXPECT_THROW_MESSAGE(check_bundle_runs_on_image("2.3.0", bundle, "b"), InputError, "--framework: pytorch:2.3.0's image is Ubuntu 20.04 with glibc 2.31");
  EXPECT_THROW_MESSAGE(check_bundle_runs_on_image("2.4.0", bundle, "b"), InputError, "conda's torch");
  EXPECT_THROW_MESSAGE(check_bundle_runs_on_image("2.6.0", bundle, "b"), InputError, "pre-C++11-ABI");
  EXPECT_THROW_MESSAGE(check_bundle_runs_on_image("2.7.1", bundle, "b"), InputError, "--bundle: b is built against torch 2.8.0+cu128");
  const BundleNeeds newer = parse_bundle_needs("2.8.0", "GLIBC 2.35\nGLIBCXX 3.4.32\n", "b/REQUIRES");
  EXPECT_THROW_MESSAGE(check_bundle_runs_on_image("2.8.0", newer, "b"), InputError, "needs GLIBCXX_3.4.32");
  EXPECT_THROW_MESSAGE(parse_bundle_needs("2.8.0", "GLIBC two\n", "b/REQUIRES"), InputError, "b/REQUIRES: 'GLIBC two' is not");
  // Every image pperf names (sagemaker.h) has its row, and the other way round.
  std::vector<std::string> rows;
  for (const auto& i : framework_images()) rows.push_back(i.torch);
  EXPECT_EQ(rows, pytorch_training_versions());
}

TEST(FrameworkImages, ContainerEntrypointWithinSageMakersLimits) {
  const auto entry = sagemaker_framework_entrypoint();
  ASSERT_EQ(entry.size(), 3u);
  for (const auto& item : entry) EXPECT_LE(item.size(), 256u);  // botocore: ContainerEntrypoint items
  EXPECT_NE(entry[2].find("bash start_with_right_hostname.sh train"), std::string::npos);
}

TEST(FrameworkImages, MetricRegexFindsOnlyItsConfigurationsStepTime) {
  const auto defs = sagemaker_metric_definitions({"a.b+c", "abxbc"});
  ASSERT_EQ(defs.size(), 2u);
  EXPECT_EQ(defs[0].first, "pperf:step_ms:a.b+c");
  const std::regex re(defs[0].second);
  std::smatch m;
  const std::string line = "[2026-12-07T22:17:10Z] w/tiny on a.b+c: mean 1.567e+04 ms/step (median 15.16) over 30 steps";
  ASSERT_TRUE(std::regex_search(line, m, re));
  EXPECT_EQ(m[1].str(), "1.567e+04");
  EXPECT_FALSE(std::regex_search(std::string("w/tiny on aXbbc: mean 3 ms/step"), re));  // '.' and '+' escaped
}
