#include "src/launch/sagemaker.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <regex>
#include <set>

#include "src/core/input_error.h"
#include "src/core/atomic_file.h"
#include "src/core/json_view.h"
#include "src/core/text_values.h"
#include "src/launch/framework_images.h"
#include "src/launch/sagemaker_container.h"

namespace pperf {

namespace {
namespace keys = sagemaker_keys;

/// TrainingJobName, RoleArn and S3Uri as botocore's SageMaker model constrains them.
const std::regex kJobName("[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}");
const std::regex kRoleArn(R"(arn:aws[a-z\-]*:iam::\d{12}:role/?[a-zA-Z_0-9+=,.@\-_/]+)");
const std::regex kS3Uri("s3://([^/]+)/?(.*)");

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

/// The request options users expect of a SageMaker job, as botocore's model constrains them:
/// VpcConfig (1-16 subnets, 1-5 security groups, ids of letters, digits, '-'), KMS keys for the
/// volume and the output, inter-container traffic encryption, RetryStrategy (1-30 attempts).
void add_request_options(nlohmann::json& r, const SageMakerLaunchOptions& o) {
  const std::regex id("[-0-9a-zA-Z]{1,32}");
  const auto check_ids = [&](const char* flag, const std::vector<std::string>& ids, size_t most) {
    if (ids.size() > most) throw InputError(flag, "", fmt::format("{} given; SageMaker takes at most {}", ids.size(), most));
    for (const auto& i : ids)
      if (!std::regex_match(i, id)) throw InputError(flag, "", "'" + i + "' is not an id (letters, digits, '-'; at most 32)");
  };
  if (o.subnets.empty() != o.security_groups.empty())
    throw InputError(o.subnets.empty() ? "--subnets" : "--security-groups", "", "a VpcConfig needs both --subnets and --security-groups");
  if (!o.subnets.empty()) {
    check_ids("--subnets", o.subnets, 16);
    check_ids("--security-groups", o.security_groups, 5);
    r["VpcConfig"] = {{"Subnets", o.subnets}, {"SecurityGroupIds", o.security_groups}};
  }
  for (const auto& [flag, key] : {std::pair{"--volume-kms-key", &o.volume_kms_key}, std::pair{"--output-kms-key", &o.output_kms_key}})
    if (key->size() > 2048) throw InputError(flag, "", "longer than SageMaker's 2048 characters");
  if (!o.volume_kms_key.empty()) r["ResourceConfig"]["VolumeKmsKeyId"] = o.volume_kms_key;
  if (!o.output_kms_key.empty()) r["OutputDataConfig"]["KmsKeyId"] = o.output_kms_key;
  if (o.encrypt_inter_container) r["EnableInterContainerTrafficEncryption"] = true;
  if (o.max_retries) {
    if (*o.max_retries < 1 || *o.max_retries > 30) throw InputError("--max-retries", "", "must be in [1, 30] (SageMaker's RetryStrategy)");
    r["RetryStrategy"] = {{"MaximumRetryAttempts", *o.max_retries}};
  }
}

}  // namespace

std::string sagemaker_region(const Config& config) { return config.price_table.region; }

LaunchRules sagemaker_rules() {
  LaunchRules r;
  r.title = "SageMaker";
  r.type_rule = [](const Config&, const std::string& type) {
    return starts_with(type, "ml.") ? std::string()
                                    : "SageMaker launches only ml. instance types, not '" + type + "' (price the config from an aws-sagemaker table)";
  };
  r.max_name_length = 63;
  r.group_name = [](const std::string&, const LaunchDataGroup& g, size_t, size_t) { return "data-" + g.type; };
  return r;
}

namespace {

/// The pointer of configuration `name` in `config` (a refusal names it).
std::string configuration_pointer(const Config& config, const std::string& name) {
  return std::find_if(config.configurations.begin(), config.configurations.end(), [&](const Configuration& c) { return c.name == name; })
      ->pointer;
}

/// `rest` under --output (trailing '/' of --output dropped).
std::string under_output(const SageMakerLaunchOptions& o, const std::string& rest) {
  std::string base = o.output_s3;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + "/" + rest;
}

/// An InputDataConfig channel: every object under `s3_uri`, copied to each host.
nlohmann::json input_channel(const std::string& name, const std::string& s3_uri) {
  return {{"ChannelName", name},
          {"DataSource", {{"S3DataSource", {{"S3DataType", "S3Prefix"}, {"S3Uri", s3_uri}, {"S3DataDistributionType", "FullyReplicated"}}}}},
          {"InputMode", "File"}};
}

/// The data token as an input channel (its one object under --output, uploaded before the job
/// starts), never in the request: DescribeTrainingJob returns HyperParameters and Environment.
void add_token_channel(nlohmann::json& request, const SageMakerLaunchOptions& o, SageMakerJob& job) {
  job.token_s3 = under_output(o, job.name + "/" + kSageMakerTokenChannel + "/token");
  request["InputDataConfig"].push_back(input_channel(kSageMakerTokenChannel, job.token_s3));
}

/// HyperParameters: what the entry point reads (sagemaker_keys); InputError naming the job's
/// first configuration for a value over SageMaker's 2500 characters.
nlohmann::json job_hyperparameters(const Config& config, const SageMakerLaunchOptions& o, const LaunchJob& launch) {
  const LaunchJobPlan& j = launch.plan;
  nlohmann::json hyper = nlohmann::json::object();
  hyper[keys::kConfig] = launch_config_reference(config);
  hyper[keys::kConfigSha256] = config.sha256;
  hyper[keys::kConfigurations] = join_names(j.configurations, ",");
  hyper[keys::kWorkload] = o.selection.workload;
  hyper[keys::kTrainerGroup] = j.data_groups.empty() ? "" : kTrainerGroup;
  nlohmann::json data_of = nlohmann::json::object(), data_workers = nlohmann::json::object();
  for (const auto& [name, use] : j.data_of) data_of[name] = {launch.group_names[use.first], use.second};
  for (size_t g = 0; g < j.data_groups.size(); ++g) data_workers[launch.group_names[g]] = j.data_groups[g].workers;
  hyper[keys::kDataGroups] = data_of.dump();
  hyper[keys::kDataWorkers] = data_workers.dump();
  hyper[keys::kDataPort] = std::to_string(o.data_port);
  hyper[keys::kDataWaitS] = std::to_string(o.data_wait_s);
  hyper[keys::kTlsChannel] = launch.tls ? kSageMakerTlsChannel : "";
  hyper[keys::kTokenChannel] = launch.with_data ? kSageMakerTokenChannel : "";
  for (const auto& [k, v] : hyper.items())
    if (v.get<std::string>().size() > 2500)
      throw InputError(config.path, configuration_pointer(config, j.configurations.front()),
                       "hyperparameter " + k + " is over SageMaker's 2500 characters");
  return hyper;
}

/// AlgorithmSpecification: pperf's image and its entry point, or AWS's PyTorch image running the
/// bundle (the toolkit's hyperparameters added to `hyper`) under an entry point that passes
/// SageMaker's stop to pperf; each configuration's step time as a CloudWatch metric.
nlohmann::json algorithm_specification(const Config& config, const SageMakerLaunchOptions& o, const LaunchJobPlan& j,
                                       nlohmann::json& hyper) {
  nlohmann::json algorithm{{"TrainingInputMode", "File"}};
  if (!o.image.empty()) {
    algorithm["TrainingImage"] = o.image;
    algorithm["ContainerEntrypoint"] = {"pperf", "sagemaker-entry"};
  } else {
    const std::string region = sagemaker_region(config);
    algorithm["TrainingImage"] = pytorch_training_image(o.framework_version, region, true);
    // The SageMaker training toolkit in AWS's image fetches the source directory and starts
    // the entry point from these (the values the SageMaker SDK's estimators send).
    hyper["sagemaker_program"] = o.entry_point;
    hyper["sagemaker_submit_directory"] = o.source_s3;
    hyper["sagemaker_region"] = region;
    algorithm["ContainerEntrypoint"] = sagemaker_framework_entrypoint();  // SageMaker's stop reaches pperf
  }
  for (const auto& [name, regex] : sagemaker_metric_definitions(j.configurations))  // step time in CloudWatch
    algorithm["MetricDefinitions"].push_back({{"Name", name}, {"Regex", regex}});
  return algorithm;
}

/// ResourceConfig: the trainer alone, or its group beside the data groups.
nlohmann::json resource_config(const SageMakerLaunchOptions& o, const LaunchJob& launch) {
  const LaunchJobPlan& j = launch.plan;
  nlohmann::json resources{{"VolumeSizeInGB", o.volume_gb}};
  if (j.data_groups.empty()) {
    resources["InstanceType"] = j.trainer_type;
    resources["InstanceCount"] = 1;
    return resources;
  }
  resources["InstanceGroups"] = nlohmann::json::array();
  resources["InstanceGroups"].push_back({{"InstanceGroupName", kTrainerGroup}, {"InstanceType", j.trainer_type}, {"InstanceCount", 1}});
  for (size_t g = 0; g < j.data_groups.size(); ++g)
    resources["InstanceGroups"].push_back({{"InstanceGroupName", launch.group_names[g]}, {"InstanceType", j.data_groups[g].type},
                                           {"InstanceCount", j.data_groups[g].count}});
  return resources;
}

/// StoppingCondition; on Spot, managed Spot training with its checkpoints under --output.
void add_stopping(nlohmann::json& r, const SageMakerLaunchOptions& o, const LaunchJob& launch) {
  const int64_t runtime = launch.runtime_s;
  nlohmann::json stopping{{"MaxRuntimeInSeconds", runtime}};
  if (launch.plan.spot) {
    const int64_t wait = o.max_wait_s ? *o.max_wait_s : 2 * runtime;
    if (wait < runtime)
      throw InputError("--max-wait-s", "", fmt::format("{} s is below the job's MaxRuntimeInSeconds {} s (SageMaker refuses MaxWait < MaxRuntime)",
                                                      wait, runtime));
    stopping["MaxWaitTimeInSeconds"] = wait;
    r["EnableManagedSpotTraining"] = true;
    r["CheckpointConfig"] = {{"S3Uri", under_output(o, launch.name + "/checkpoints")}, {"LocalPath", "/opt/ml/checkpoints"}};
  }
  r["StoppingCondition"] = stopping;
}

/// One job's CreateTrainingJob request.
SageMakerJob sagemaker_job(const Config& config, const SageMakerLaunchOptions& o, const LaunchJob& launch) {
  const LaunchJobPlan& j = launch.plan;
  if (1 + j.data_groups.size() > 5)
    throw InputError(config.path, configuration_pointer(config, j.configurations.front()),
                     fmt::format("configurations {} on {}: {} instance groups (the trainer's and {} data groups); a "
                                 "SageMaker job has at most 5",
                                 join_names(j.configurations, ", "), j.trainer_type, 1 + j.data_groups.size(), j.data_groups.size()));
  SageMakerJob job{launch, {}, {}};
  if (!std::regex_match(job.name, kJobName))
    throw InputError(config.path, "/name", "'" + job.name + "' is not a SageMaker job name (letters, digits, '-'; at most 63)");
  nlohmann::json r;
  r["TrainingJobName"] = job.name;
  r["RoleArn"] = o.role_arn;
  if (launch.tls) {
    check_s3_uri("--tls", o.tls_s3);
    r["InputDataConfig"] = {input_channel(kSageMakerTlsChannel, o.tls_s3)};
  }
  nlohmann::json hyper = job_hyperparameters(config, o, launch);
  r["AlgorithmSpecification"] = algorithm_specification(config, o, j, hyper);
  r["HyperParameters"] = hyper;
  r["OutputDataConfig"] = {{"S3OutputPath", o.output_s3}};
  r["ResourceConfig"] = resource_config(o, launch);
  add_stopping(r, o, launch);
  if (launch.with_data) add_token_channel(r, o, job);
  add_request_options(r, o);
  job.request = std::move(r);
  return job;
}

}  // namespace

std::vector<SageMakerJob> sagemaker_jobs(const Config& config, const SageMakerLaunchOptions& o) {
  if (o.image.empty() == o.framework_version.empty())
    throw InputError("--image", "", "give the job's image: --image URI (pperf inside) or --framework pytorch:VERSION (AWS's image, the GPU bundle as source)");
  if (!o.framework_version.empty() && !std::regex_match(o.source_s3, kS3Uri))
    throw InputError("--source", "", "--framework needs --source s3://BUCKET/KEY.tar.gz: the GPU bundle (scripts/gpu-bundle.sh) packed and uploaded");
  if (!o.framework_version.empty()) check_s3_uri("--source", o.source_s3);
  if (!std::regex_match(o.role_arn, kRoleArn))
    throw InputError("--role", "", "'" + o.role_arn + "' is not an IAM role ARN (arn:aws:iam::ACCOUNT:role/NAME)");
  if (!std::regex_match(o.output_s3, kS3Uri) || o.output_s3.size() > 900)
    throw InputError("--output", "", "'" + o.output_s3 + "' is not an S3 URI (s3://BUCKET/PREFIX)");
  check_s3_uri("--output", o.output_s3);
  if (o.image.size() > 255) throw InputError("--image", "", "longer than SageMaker's 255 characters");
  std::vector<SageMakerJob> out;
  for (const LaunchJob& job : launch_jobs(config, o, sagemaker_rules(), !o.tls_s3.empty())) out.push_back(sagemaker_job(config, o, job));
  return out;
}

void check_framework_bundle(const Config& config, const SageMakerLaunchOptions& o, const std::vector<SageMakerJob>& jobs) {
  namespace fs = std::filesystem;
  if (o.framework_version.empty()) return;
  if (o.bundle_dir.empty())
    throw InputError("--bundle", "", "--framework needs the bundle's folder (scripts/gpu-bundle.sh --out DIR) to check it runs on the image");
  const fs::path dir = o.bundle_dir;
  for (const char* f : {"TORCH_VERSION", "REQUIRES"})
    if (!fs::is_regular_file(dir / f))
      throw InputError("--bundle", "", fmt::format("'{}' is not a GPU bundle (no {} there; scripts/gpu-bundle.sh makes one)", o.bundle_dir, f));
  const std::string requires_file = (dir / "REQUIRES").string();
  check_bundle_runs_on_image(o.framework_version,
                             parse_bundle_needs(read_text_file((dir / "TORCH_VERSION").string()), read_text_file(requires_file), requires_file),
                             o.bundle_dir);
  for (const auto& job : jobs)
    for (const auto& [pointer, path] : host_dataset_paths(config, job.plan.configurations))
      throw InputError(config.path, pointer, "'" + path + "' is read from the host's disk, and no bundle or AWS image carries it: "
                                             "make it a file the config's step fetches, or give --image with it inside");
}

std::string sagemaker_summary(const LaunchJob& job) {
  std::string groups = fmt::format("1 x {}", job.plan.trainer_type);
  if (job.with_data) groups += fmt::format(" ({})", kTrainerGroup);
  for (size_t g = 0; g < job.plan.data_groups.size(); ++g)
    groups += fmt::format(", {} x {} ({})", job.plan.data_groups[g].count, job.plan.data_groups[g].type, job.group_names[g]);
  return fmt::format("measures {} on {}{}; at most {} s", measures_text(job.plan.configurations), groups,
                     job.plan.spot ? " (managed Spot)" : "", job.runtime_s);
}

SageMakerLaunchOptions sagemaker_options(const LaunchFlagValues& f, const LaunchCommon& common) {
  SageMakerLaunchOptions o;
  static_cast<LaunchCommon&>(o) = common;
  o.role_arn = f.string("role");
  o.output_s3 = f.string("output");
  if (f.has("image")) o.image = f.string("image");
  if (f.has("framework")) {
    const std::string framework = f.string("framework");
    if (framework.rfind("pytorch:", 0) != 0) throw InputError("--framework", "", "'" + framework + "': expected pytorch:VERSION");
    o.framework_version = framework.substr(8);
  }
  if (f.has("source")) o.source_s3 = f.string("source");
  if (f.has("bundle")) o.bundle_dir = f.string("bundle");
  if (f.has("max-wait-s")) o.max_wait_s = f.integer("max-wait-s");
  if (f.has("tls")) o.tls_s3 = f.string("tls");
  if (f.has("subnets")) o.subnets = split_commas(f.string("subnets"));
  if (f.has("security-groups")) o.security_groups = split_commas(f.string("security-groups"));
  if (f.has("volume-kms-key")) o.volume_kms_key = f.string("volume-kms-key");
  if (f.has("output-kms-key")) o.output_kms_key = f.string("output-kms-key");
  o.encrypt_inter_container = f.has("encrypt-inter-container");
  if (f.has("max-retries")) o.max_retries = f.integer("max-retries");
  return o;
}

LaunchPlatform sagemaker_platform() {
  LaunchPlatform p;
  p.name = "sagemaker";
  p.usage =
      "pperf launch sagemaker --config C --role ARN --output s3://BUCKET/PREFIX\n"
      "         (--image URI | --framework pytorch:VERSION --source s3://.../X.tar.gz\n"
      "          --bundle DIR)\n"
      "         [--max-wait-s N] [--tls s3://BUCKET/PREFIX/] [--max-retries N]\n"
      "         [--subnets S,... --security-groups G,...] [--volume-kms-key K]\n"
      "         [--output-kms-key K] [--encrypt-inter-container] [COMMON]\n";
  p.flags = {
      {"role", "the job's IAM execution role ARN", false, true},
      {"output", "s3://BUCKET/PREFIX: the jobs' results (model.tar.gz), report, checkpoints", false, true},
      {"image", "a container image holding pperf (its entry point: pperf sagemaker-entry)"},
      {"framework", "pytorch:VERSION: AWS's PyTorch training image of that torch, with --source"},
      {"source", "s3://.../sourcedir.tar.gz: the GPU bundle (scripts/gpu-bundle.sh --torch VERSION), packed"},
      {"bundle", "--framework: that bundle's folder, checked against the image (torch, GLIBC/GLIBCXX)"},
      {"subnets", "VpcConfig: the VPC subnets (comma-separated), with --security-groups"},
      {"security-groups", "VpcConfig: the security groups (comma-separated), with --subnets"},
      {"volume-kms-key", "the KMS key that encrypts the instances' storage volumes"},
      {"output-kms-key", "the KMS key that encrypts the job's output in S3"},
      {"encrypt-inter-container", "encrypt traffic between the job's instances (EnableInterContainerTrafficEncryption)", false, false,
       std::nullopt, true},
      {"max-retries", "RetryStrategy: retry the job on an internal SageMaker error, up to N times (1-30)", true},
      {"max-wait-s", "Spot: MaxWaitTimeInSeconds, at least the runtime (default: 2 x the runtime)", true},
      {"tls", "s3://BUCKET/PREFIX/ holding cert.pem, key.pem (ca.pem): the data workers serve TLS (input channel pperf-tls)"}};
  p.rules = sagemaker_rules();
  p.launch = [](const Config& config, const LaunchCommon& common, const LaunchFlagValues& flags) {
    const SageMakerLaunchOptions o = sagemaker_options(flags, common);
    const std::vector<SageMakerJob> jobs = sagemaker_jobs(config, o);
    check_framework_bundle(config, o, jobs);
    std::vector<LaunchedJob> out;
    for (const SageMakerJob& job : jobs) {
      // SageMaker uploads /opt/ml/model as S3OutputPath/JOB/output/model.tar.gz when the job ends.
      const std::string model = bucket_path(o.output_s3, job.name + "/output/model.tar.gz");
      LaunchedJob launched{job.name, job.name + ".json", job.request.dump(2) + "\n", sagemaker_summary(job), model + " (results.json inside)",
                           fmt::format("aws s3 cp {} {}.tar.gz && tar -xzf {}.tar.gz results.json && mv results.json {}.json", model,
                                       job.name, job.name, job.name)};
      if (!job.token_s3.empty())  // the data token as the job's input channel, kept out of DescribeTrainingJob
        launched.side_files.push_back(
            {job.name + ".token", o.token + "\n", [to = job.token_s3](const std::string& path) { return "aws s3 cp " + path + " " + to; }});
      out.push_back(std::move(launched));
    }
    return out;
  };
  p.start_command = [](const std::string&, const std::string& path) {
    return "aws sagemaker create-training-job --cli-input-json file://" + path;
  };
  return p;
}

namespace {
struct ImageVersion {
  const char* version;
  const char* python;
};
// AWS's PyTorch training images (the SageMaker SDK's image_uri_config/pytorch.json, "training"):
// the torch version and the Python its image carries. tests/launch/test_sagemaker_requests.py
// holds every URI made from these against the SDK's image_uris.retrieve.
constexpr ImageVersion kPyTorchImages[] = {
    {"2.0.0", "py310"}, {"2.0.1", "py310"}, {"2.1.0", "py310"}, {"2.2.0", "py310"}, {"2.3.0", "py311"},
    {"2.4.0", "py311"}, {"2.5.1", "py311"}, {"2.6.0", "py312"}, {"2.7.1", "py312"}, {"2.8.0", "py312"},
};
// The regions whose images live in AWS's account 763104351884 (others: give --image).
constexpr const char* kImageRegions[] = {
    "ap-northeast-1", "ap-northeast-2", "ap-south-1", "ap-southeast-1", "ap-southeast-2", "ca-central-1",
    "eu-central-1",   "eu-north-1",     "eu-west-1",  "eu-west-2",      "eu-west-3",      "sa-east-1",
    "us-east-1",      "us-east-2",      "us-west-1",  "us-west-2",
};
}  // namespace

std::vector<std::string> pytorch_training_versions() {
  std::vector<std::string> out;
  for (const auto& v : kPyTorchImages) out.push_back(v.version);
  return out;
}

std::string pytorch_training_image(const std::string& version, const std::string& region, bool gpu) {
  const ImageVersion* found = nullptr;
  for (const auto& v : kPyTorchImages)
    if (version == v.version) found = &v;
  if (!found)
    throw InputError("--framework", "", "no AWS PyTorch training image of torch " + version + " known to pperf; known: " +
                                            join_names(pytorch_training_versions(), ", ") + " (or give --image)");
  if (std::find(std::begin(kImageRegions), std::end(kImageRegions), region) == std::end(kImageRegions))
    throw InputError("--framework", "", "region '" + region + "': pperf does not know where AWS keeps its PyTorch images there (give --image)");
  return fmt::format("763104351884.dkr.ecr.{}.amazonaws.com/pytorch-training:{}-{}-{}", region, found->version,
                     gpu ? "gpu" : "cpu", found->python);
}

// ---- The container contract ----

SageMakerResourceConfig parse_resource_config(const std::string& text, const std::string& file) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) throw InputError(file, "", "not a JSON object");
  JsonView v(doc, file);
  SageMakerResourceConfig rc;
  rc.current_host = v.at("current_host").as_string();
  rc.current_group = v.string_or("current_group_name", "");
  rc.current_instance_type = v.string_or("current_instance_type", "");
  rc.hosts = v.at("hosts").as_strings();
  rc.network_interface = v.string_or("network_interface_name", "");
  if (auto groups = v.find("instance_groups")) {
    for (const auto& g : groups->items()) {
      const std::string name = g.at("instance_group_name").as_string();
      rc.group_hosts[name] = g.at("hosts").as_strings();
      rc.group_types[name] = g.string_or("instance_type", "");
    }
  }
  if (std::find(rc.hosts.begin(), rc.hosts.end(), rc.current_host) == rc.hosts.end())
    throw InputError(file, "/current_host", "'" + rc.current_host + "' is not one of /hosts");
  if (!rc.current_group.empty() && !rc.group_hosts.count(rc.current_group))
    throw InputError(file, "/current_group_name", "'" + rc.current_group + "' is not one of /instance_groups");
  return rc;
}

std::map<std::string, std::string> parse_hyperparameters(const std::string& text, const std::string& file) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) throw InputError(file, "", "not a JSON object");
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : doc.items()) {
    if (!value.is_string()) throw InputError(file, "/" + key, "must be a string (SageMaker passes hyperparameters as strings)");
    std::string s = value.get<std::string>();
    // The SDK JSON-encodes its values ("\"train.py\""); SageMaker's own are plain.
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') {
      const nlohmann::json decoded = nlohmann::json::parse(s, nullptr, false);
      if (decoded.is_string()) s = decoded.get<std::string>();
    }
    out[key] = s;
  }
  return out;
}

SageMakerRole sagemaker_role(const SageMakerResourceConfig& rc, const std::map<std::string, std::string>& hyper,
                             const std::string& resource_file, const std::string& hyperparameters_file) {
  auto get = [&](const char* key) -> std::string {
    auto it = hyper.find(key);
    if (it == hyper.end()) throw InputError(hyperparameters_file, std::string("/") + key, "missing (a job `pperf launch` wrote has it)");
    return it->second;
  };
  auto json_of = [&](const char* key) {
    const nlohmann::json j = nlohmann::json::parse(get(key), nullptr, false);
    if (!j.is_object()) throw InputError(hyperparameters_file, std::string("/") + key, "must hold a JSON object");
    return j;
  };
  SageMakerRole role;
  role.group = rc.current_group;
  const std::string trainer_group = get(keys::kTrainerGroup);
  const nlohmann::json data_of = json_of(keys::kDataGroups), workers = json_of(keys::kDataWorkers);
  // A job without data groups has one group (SageMaker names it itself): every host trains.
  role.trainer = trainer_group.empty() ? true : rc.current_group == trainer_group;
  if (!trainer_group.empty() && !rc.group_hosts.count(trainer_group))
    throw InputError(resource_file, "/instance_groups", "no group '" + trainer_group + "' (" + hyperparameters_file + " names it the trainer's)");
  std::set<std::string> listed;
  for (const auto& [group, hosts] : rc.group_hosts) {
    if (group == trainer_group || !workers.contains(group)) continue;
    for (const auto& h : hosts)
      if (listed.insert(h).second) role.all_data_hosts.push_back(h);
  }
  for (const auto& [configuration, use] : data_of.items()) {
    if (!use.is_array() || use.size() != 2 || !use[0].is_string() || !use[1].is_number_integer())
      throw InputError(hyperparameters_file, std::string("/") + keys::kDataGroups + "/" + configuration, "must be [GROUP, COUNT]");
    const std::string group = use[0];
    const auto it = rc.group_hosts.find(group);
    if (it == rc.group_hosts.end())
      throw InputError(resource_file, "/instance_groups", "no group '" + group + "' (configuration '" + configuration + "' needs it)");
    const size_t count = use[1].get<size_t>();
    if (count > it->second.size())
      throw InputError(resource_file, "/instance_groups",
                       fmt::format("group '{}' has {} hosts, configuration '{}' needs {}", group, it->second.size(), configuration, count));
    role.data_hosts[configuration] = std::vector<std::string>(it->second.begin(), it->second.begin() + static_cast<long>(count));
  }
  if (!role.trainer) {
    if (!workers.contains(rc.current_group))
      throw InputError(resource_file, "/current_group_name",
                       "'" + rc.current_group + "' is neither the trainer's group nor a data group of " + hyperparameters_file);
    const auto& w = workers[rc.current_group];
    role.data_workers = w.is_number_integer() && w.get<int64_t>() > 0 ? w.get<int64_t>() : 1;
  }
  return role;
}

}  // namespace pperf
