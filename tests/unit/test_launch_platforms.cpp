// `pperf launch`'s platform registry and its one job loop (src/launch/platform.h): every platform
// by name, the loop's refusals said once for all of them, and each job's summary from the plan
// agreeing with the file the platform writes. And the trainer's config override (src/config).
#include <gtest/gtest.h>

#include <filesystem>

#include "src/config/config.h"
#include "src/config/config_override.h"
#include "src/core/atomic_file.h"
#include "src/core/input_error.h"
#include "src/launch/kubernetes.h"
#include "src/launch/platform.h"
#include "src/launch/sagemaker.h"
#include "src/launch/skypilot.h"
#include "test_helpers.h"
#include "unit_registry.h"

using namespace pperf;

namespace {

/// Seed 000's shape: a p4d trainer measuring alone and with 2 c5 data instances, in one job.
Config seed000_config() {
  const std::string dir = ::testing::TempDir() + "launch-platforms";
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

LaunchCommon common(const std::string& token = "t0k3n") {
  LaunchCommon c;
  c.job_suffix = "t1";
  c.token = token;
  return c;
}

/// Each platform's required flags, as `pperf launch` would hand them over.
LaunchFlagValues flags_of(const std::string& platform) {
  LaunchFlagValues f;
  if (platform == "sagemaker") f.text = {{"role", "arn:aws:iam::123456789012:role/x"}, {"output", "s3://pperf-test/out"}, {"image", "pperf:1"}};
  if (platform == "skypilot") f.text = {{"output", "s3://pperf-test/results"}, {"image", "pperf:1"}, {"bundle", "gpu-bundle"}};
  if (platform == "kubernetes")
    f.text = {{"image", "pperf:1"}, {"results-claim", "res"}, {"namespace", "default"}, {"capacity-labels", "eks"}};
  return f;
}

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST(LaunchPlatforms, EveryPlatformByNameInOnePlace) {
  std::vector<std::string> names;
  for (const auto& p : launch_platforms()) {
    names.push_back(p.name);
    EXPECT_EQ(find_launch_platform(p.name), &p);
    EXPECT_EQ(p.usage.rfind("pperf launch " + p.name + " ", 0), 0u) << p.usage;
    EXPECT_EQ(p.usage.back(), '\n');
    EXPECT_TRUE(p.launch && p.start_command && p.rules.type_rule && p.rules.group_name) << p.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"sagemaker", "skypilot", "kubernetes"}));
  EXPECT_EQ(find_launch_platform("nomad"), nullptr);
}

TEST(LaunchPlatforms, TheLoopRefusesOnceForEveryPlatform) {
  const Config config = seed000_config();
  for (const auto& p : launch_platforms()) {
    EXPECT_EQ(refusal([&] { p.launch(config, common(""), flags_of(p.name)); }),
              "--token-file: a job with data instances needs the data workers' token")
        << p.name;
    LaunchCommon runtime = common();
    runtime.max_runtime_s = 0;
    EXPECT_EQ(refusal([&] { p.launch(config, runtime, flags_of(p.name)); }), "--max-runtime-s: must be at least 1 s") << p.name;
  }
}

TEST(LaunchPlatforms, JobsNamedWithinEachPlatformsLimits) {
  const Config config = seed000_config();
  LaunchCommon c = common();
  c.job_suffix = std::string(30, 'x');  // Kubernetes: room for a word of the config's name at most
  for (const auto& p : launch_platforms()) {
    const auto jobs = launch_jobs(config, c, p.rules, false);
    ASSERT_EQ(jobs.size(), 1u);
    EXPECT_LE(jobs[0].name.size(), p.rules.max_name_length) << p.name;
    EXPECT_EQ(jobs[0].group_names.size(), 1u);
    // Hosts started by `pperf node-entry` get their arguments from the loop, one per data group.
    EXPECT_EQ(jobs[0].data_entries.size(), p.rules.node_platform.empty() ? 0u : 1u) << p.name;
    EXPECT_EQ(jobs[0].trainer_entry.empty(), p.rules.node_platform.empty()) << p.name;
  }
}

TEST(LaunchPlatforms, SageMakersTokenBesideTheRequestNeverInIt) {
  LaunchFlagValues f = flags_of("sagemaker");
  f.switches.insert("encrypt-inter-container");  // an on/off flag reaches the options
  const auto jobs = find_launch_platform("sagemaker")->launch(seed000_config(), common(), f);
  ASSERT_EQ(jobs.size(), 1u);
  ASSERT_EQ(jobs[0].side_files.size(), 1u);
  const LaunchedSideFile& token = jobs[0].side_files[0];
  EXPECT_EQ(token.file_name, jobs[0].name + ".token");
  EXPECT_EQ(token.text, "t0k3n\n");
  EXPECT_EQ(token.before_start("/o/x.token"), "aws s3 cp /o/x.token s3://pperf-test/out/" + jobs[0].name + "/pperf-token/token");
  EXPECT_EQ(jobs[0].text.find("t0k3n"), std::string::npos);  // DescribeTrainingJob returns the request's fields
  EXPECT_NE(jobs[0].text.find("\"EnableInterContainerTrafficEncryption\": true"), std::string::npos);
  // A job without data instances carries no token.
  LaunchCommon c = common();
  c.selection.only = {"homogeneous"};
  EXPECT_TRUE(find_launch_platform("sagemaker")->launch(seed000_config(), c, flags_of("sagemaker")).at(0).side_files.empty());
}

TEST(LaunchPlatforms, SummaryFromThePlanSaysWhatTheFileHolds) {
  const Config config = seed000_config();
  SageMakerLaunchOptions sm = sagemaker_options(flags_of("sagemaker"), common());
  const auto sm_job = sagemaker_jobs(config, sm).at(0);
  // The request's instance groups, read back as the summary names them.
  std::string groups;
  for (const auto& g : sm_job.request["ResourceConfig"]["InstanceGroups"])
    groups += (groups.empty() ? "" : ", ") + std::to_string(g["InstanceCount"].get<int64_t>()) + " x " +
              g["InstanceType"].get<std::string>() + " (" + g["InstanceGroupName"].get<std::string>() + ")";
  EXPECT_EQ(sagemaker_summary(sm_job), "measures in turns: homogeneous, heterogeneous on " + groups + "; at most " +
                                           std::to_string(sm_job.request["StoppingCondition"]["MaxRuntimeInSeconds"].get<int64_t>()) + " s");
  EXPECT_EQ(groups, "1 x ml.p4d.24xlarge (trainer), 2 x ml.c5.18xlarge (data-ml.c5.18xlarge)");

  SkyPilotLaunchOptions sky = skypilot_options(flags_of("skypilot"), common());
  const auto sky_job = skypilot_jobs(config, sky).at(0);
  std::string nodes;
  for (size_t d = 1; d < sky_job.documents.size(); ++d)
    nodes += (nodes.empty() ? "" : ", ") + std::to_string(sky_job.documents[d]["num_nodes"].get<int64_t>()) + " x " +
             sky_job.documents[d]["resources"]["instance_type"].get<std::string>() + " (" + sky_job.documents[d]["name"].get<std::string>() + ")";
  EXPECT_EQ(skypilot_summary(sky_job), "measures in turns: homogeneous, heterogeneous on " + nodes +
                                           " (a job group: the tasks start together, the data tasks end with the trainer)");

  KubernetesLaunchOptions k8s = kubernetes_options(flags_of("kubernetes"), common());
  const auto k8s_job = kubernetes_jobs(config, k8s).at(0);
  std::string objects;
  for (const auto& d : k8s_job.documents)
    objects += (objects.empty() ? "" : ", ") + d["kind"].get<std::string>() + " " + d["metadata"]["name"].get<std::string>();
  EXPECT_EQ(kubernetes_summary(k8s_job), "measures in turns: homogeneous, heterogeneous (" + objects + ")");
  EXPECT_EQ(objects, "Secret p4d-vs-hetero-p4d-24xlarge-t1-token, Service p4d-vs-hetero-p4d-24xlarge-t1-data, "
                     "Job p4d-vs-hetero-p4d-24xlarge-t1-data, PyTorchJob p4d-vs-hetero-p4d-24xlarge-t1");
}

TEST(ConfigOverride, TrainerConfigTakesTheJobsDataHostsAndPrices) {
  nlohmann::json doc = nlohmann::json::parse(R"({"name": "x", "pricing": {"table": "aws-sagemaker-us-east-1"},
    "configurations": [
      {"name": "a", "instances": [{"type": "ml.p4d.24xlarge", "count": 1, "role": "dnn"}]},
      {"name": "b", "instances": [{"type": "ml.p4d.24xlarge", "count": 1, "role": "dnn"}, {"type": "ml.c5.9xlarge", "count": 2, "role": "data"}],
       "execution": {"data": {"mode": "service", "spawn_local": {"processes": 2}, "tls_ca": "emulated.pem"}}}]})");
  ConfigOverride o;
  o.price_table = "aws-ec2-us-east-1";
  o.instance_type = [](const std::string& t) { return t.substr(3); };
  o.spot = true;
  o.data["b"] = {{"10.0.0.1:50051", "10.0.0.2:50051"}, "/pperf-tls/cert.pem"};
  const nlohmann::json out = apply_config_override(doc, o);
  EXPECT_EQ(out["pricing"]["table"], "aws-ec2-us-east-1");
  EXPECT_EQ(out["configurations"][1]["instances"][1]["type"], "c5.9xlarge");
  EXPECT_EQ(out["configurations"][0]["instances"][0]["market"], "spot");
  EXPECT_EQ(out["configurations"][1]["execution"]["data"],
            nlohmann::json::parse(R"({"mode": "service", "tls_ca": "/pperf-tls/cert.pem", "endpoints": ["10.0.0.1:50051", "10.0.0.2:50051"]})"));
  EXPECT_FALSE(out["configurations"][0].contains("execution"));  // a configuration without data hosts is left as it was
  // Nothing asked: the config as launched.
  EXPECT_EQ(apply_config_override(doc, ConfigOverride{}), doc);
}
