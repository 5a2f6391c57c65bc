// `pperf launch sagemaker|skypilot|kubernetes`: a config as the jobs that measure it on the real
// instances (src/launch/): CreateTrainingJob requests, SkyPilot task YAMLs, Kubernetes manifests.
// Every refusal comes before anything is written; each file is written whole (atomically), and
// readable by this user only (they carry the data workers' token). The hosts' side is
// src/cli/node_entry.cpp.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "src/cli/cli.h"
#include "src/core/crypto.h"
#include "src/core/input_error.h"
#include "src/core/utc_time.h"
#include "src/launch/framework_images.h"
#include "src/launch/kubernetes.h"
#include "src/launch/sagemaker.h"
#include "src/launch/skypilot.h"
#include "src/launch/yaml.h"

namespace pperf::cli {

namespace fs = std::filesystem;

namespace {
constexpr const char* kLaunchUsage =
    "usage: pperf launch sagemaker --config C --role ARN --output s3://BUCKET/PREFIX\n"
    "         (--image URI | --framework pytorch:VERSION --source s3://.../X.tar.gz\n"
    "          --bundle DIR)\n"
    "         [--max-wait-s N] [--tls s3://BUCKET/PREFIX/] [--max-retries N]\n"
    "         [--subnets S,... --security-groups G,...] [--volume-kms-key K]\n"
    "         [--output-kms-key K] [--encrypt-inter-container] [COMMON]\n"
    "       pperf launch skypilot --config C --output BUCKET_URI\n"
    "         [--image IMAGE | --bundle DIR] [--tls DIR] [COMMON]\n"
    "       pperf launch kubernetes --config C --image IMAGE --results-claim PVC\n"
    "         [--namespace NS] [--capacity-labels eks|karpenter] [--tls DIR]\n"
    "         [COMMON]\n"
    "COMMON: --out DIR [--only A,B] [--workload W] [--spot] [--max-runtime-s N]\n"
    "        [--job-suffix S] [--token-file F] [--data-port P] [--data-wait-s N]\n"
    "        [--sagemaker-rates]\n"
    "Writes the jobs into DIR and prints how to start each (docs/launch.md).\n";

std::string read_token_file(const std::string& path) {
  std::ifstream in(path);
  std::string token;
  if (!in || !std::getline(in, token) || token.empty()) throw InputError("--token-file", "", "cannot read a token from " + path);
  return token;
}

/// The options every platform takes.
po::options_description launch_options(const std::string& platform) {
  auto options = config_options("launch " + platform);
  options.add_options()("only", po::value<std::string>(), "comma-separated configuration names (default: all)")(
      "workload", po::value<std::string>(), "the one workload the data instances serve (when the config has several)")(
      "spot", "Spot instances for every job (a Spot configuration gets them anyway)")(
      "max-runtime-s", po::value<int64_t>(), "each job's time bound (default: from the config's measure budget)")(
      "job-suffix", po::value<std::string>(), "appended to each job's name (default: the UTC time YYYYMMDDTHHMMSS and 4 random hex digits)")(
      "token-file", po::value<std::string>(), "the data workers' token (default: a new random one)")(
      "data-port", po::value<int64_t>()->default_value(50051), "the data workers' port")(
      "data-wait-s", po::value<int64_t>()->default_value(600), "how long the trainer waits for a data host to come up")(
      "sagemaker-rates", "SkyPilot, Kubernetes: price a config priced from SageMaker's table at SageMaker's rates (default: EC2's)")(
      "out", po::value<std::string>()->required(), "directory the jobs are written to");
  return options;
}

/// The common flags (launch_options) as every platform's options take them.
LaunchCommon common_launch(const Parsed& p) {
  LaunchCommon c;
  if (p.has("only")) c.selection.only = split_commas(p.string("only"));
  if (p.has("workload")) c.selection.workload = p.string("workload");
  c.selection.spot = p.has("spot");
  c.sagemaker_rates = p.has("sagemaker-rates");
  if (p.has("max-runtime-s")) c.max_runtime_s = p.vars["max-runtime-s"].as<int64_t>();
  if (p.has("job-suffix")) {
    c.job_suffix = p.string("job-suffix");
  } else {
    std::string t = utc_timestamp();  // 2026-11-29T03:58:32Z
    t.erase(std::remove_if(t.begin(), t.end(), [](char ch) { return ch == '-' || ch == ':' || ch == 'Z'; }), t.end());
    c.job_suffix = t + "-" + random_token_hex(2);  // launches in the same second differ
  }
  c.token = p.has("token-file") ? read_token_file(p.string("token-file")) : random_token_hex(32);
  c.data_port = p.vars["data-port"].as<int64_t>();
  if (c.data_port < 1 || c.data_port > 65535) throw InputError("--data-port", "", "must be in [1, 65535]");
  c.data_wait_s = p.vars["data-wait-s"].as<int64_t>();
  if (c.data_wait_s < 1) throw InputError("--data-wait-s", "", "must be at least 1 s");
  return c;
}

/// Writes each (file name, text) into `out`, readable by this user only; refused (nothing
/// written) when one is there already: a job file is never replaced.
void write_private(const fs::path& out, const std::vector<std::pair<std::string, std::string>>& files) {
  for (const auto& [name, text] : files)
    if (fs::exists(out / name))
      throw InputError("--out", "", (out / name).string() + " exists; pperf launch never replaces a job file (another --out or --job-suffix)");
  const mode_t old_mask = ::umask(077);
  try {
    for (const auto& [name, text] : files) write_file_atomically((out / name).string(), text);
  } catch (...) {
    ::umask(old_mask);
    throw;
  }
  ::umask(old_mask);
}

/// `--tls DIR`'s files (name -> PEM text): kTlsCertFile and kTlsKeyFile, kTlsCaFile when present.
std::map<std::string, std::string> read_tls_dir(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const char* name : {kTlsCertFile, kTlsKeyFile, kTlsCaFile}) {
    const fs::path path = fs::path(dir) / name;
    if (!fs::is_regular_file(path)) {
      if (name == kTlsCaFile) continue;
      throw InputError("--tls", "", path.string() + " is missing (the directory holds cert.pem and key.pem, and ca.pem when a CA signed them)");
    }
    files[name] = read_text_file(path.string());
    if (files[name].find("-----BEGIN ") == std::string::npos) throw InputError("--tls", "", path.string() + " is not PEM");
  }
  return files;
}

/// What every platform prints after writing: per job where its results land and how to fetch
/// them (per job the place and the command, saving it as JOB.json), and, when the
/// config takes several jobs, the `pperf decide` that makes one decision of them.
void print_results_and_decision(const std::vector<std::string>& where, const std::vector<std::string>& fetch,
                                const std::vector<std::string>& jobs) {
  for (size_t i = 0; i < jobs.size(); ++i) {
    std::cout << fmt::format("{}: results land in {}\n", jobs[i], where[i]);
    std::cout << fmt::format("  fetch them when it has ended: {}\n", fetch[i]);
  }
  if (jobs.size() < 2) return;
  std::vector<std::string> files;
  for (const auto& j : jobs) files.push_back(j + ".json");
  std::cout << fmt::format("The config takes {} jobs (one per trainer instance type); with every results file fetched, one decision:\n"
                           "  pperf decide {} --out decided.json --markdown decided.md\n",
                           jobs.size(), fmt::join(files, " "));
}

/// `prefix` (a bucket URI) and `rest` joined by one '/'.
std::string under(const std::string& prefix, const std::string& rest) {
  return prefix.empty() || prefix.back() == '/' ? prefix + rest : prefix + "/" + rest;
}

/// The command that copies a bucket object (s3://, gs://; others by their own tool) to `local`.
std::string copy_command(const std::string& uri, const std::string& local) {
  if (uri.rfind("s3://", 0) == 0) return "aws s3 cp " + uri + " " + local;
  if (uri.rfind("gs://", 0) == 0) return "gcloud storage cp " + uri + " " + local;
  return "copy " + uri + " to " + local + " with the store's own tool";
}

std::string measures(const std::vector<std::string>& configurations) {
  return configurations.size() == 1 ? configurations[0] : "in turns: " + fmt::format("{}", fmt::join(configurations, ", "));
}

/// --framework: the bundle in `bundle_dir` (before packing) runs on AWS's image of torch `version`
/// (its TORCH_VERSION and REQUIRES against the image table), and no configuration of `jobs`
/// reads a dataset from this host's disk (no bundle carries an absolute path). InputError naming
/// the flag, or the config file and the dataset's JSON path.
void check_framework_bundle(const std::string& bundle_dir, const std::string& version, const Config& config,
                            const std::vector<SageMakerJob>& jobs) {
  for (const char* f : {"TORCH_VERSION", "REQUIRES"})
    if (!fs::is_regular_file(fs::path(bundle_dir) / f))
      throw InputError("--bundle", "", fmt::format("'{}' is not a GPU bundle (no {} there; scripts/gpu-bundle.sh makes one)", bundle_dir, f));
  const std::string requires_file = (fs::path(bundle_dir) / "REQUIRES").string();
  check_bundle_runs_on_image(version, parse_bundle_needs(read_text_file((fs::path(bundle_dir) / "TORCH_VERSION").string()),
                                                         read_text_file(requires_file), requires_file),
                             bundle_dir);
  for (const auto& job : jobs)
    for (const auto& [pointer, path] : host_dataset_paths(config, job.configurations))
      throw InputError(config.path, pointer, "'" + path + "' is read from the host's disk, and no bundle or AWS image carries it: "
                                             "make it a file the config's step fetches, or give --image with it inside");
}

int launch_sagemaker(const std::vector<std::string>& args) {
  auto options = launch_options("sagemaker");
  options.add_options()("role", po::value<std::string>()->required(), "the job's IAM execution role ARN")(
      "output", po::value<std::string>()->required(), "s3://BUCKET/PREFIX: the jobs' results (model.tar.gz), report, checkpoints")(
      "image", po::value<std::string>(), "a container image holding pperf (its entry point: pperf sagemaker-entry)")(
      "framework", po::value<std::string>(), "pytorch:VERSION: AWS's PyTorch training image of that torch, with --source")(
      "source", po::value<std::string>(), "s3://.../sourcedir.tar.gz: the GPU bundle (scripts/gpu-bundle.sh --torch VERSION), packed")(
      "bundle", po::value<std::string>(), "--framework: that bundle's folder, checked against the image (torch, GLIBC/GLIBCXX)")(
      "subnets", po::value<std::string>(), "VpcConfig: the VPC subnets (comma-separated), with --security-groups")(
      "security-groups", po::value<std::string>(), "VpcConfig: the security groups (comma-separated), with --subnets")(
      "volume-kms-key", po::value<std::string>(), "the KMS key that encrypts the instances' storage volumes")(
      "output-kms-key", po::value<std::string>(), "the KMS key that encrypts the job's output in S3")(
      "encrypt-inter-container", po::bool_switch(), "encrypt traffic between the job's instances (EnableInterContainerTrafficEncryption)")(
      "max-retries", po::value<int64_t>(), "RetryStrategy: retry the job on an internal SageMaker error, up to N times (1-30)")(
      "max-wait-s", po::value<int64_t>(), "Spot: MaxWaitTimeInSeconds, at least the runtime (default: 2 x the runtime)")(
      "tls", po::value<std::string>(), "s3://BUCKET/PREFIX/ holding cert.pem, key.pem (ca.pem): the data workers serve TLS (input channel pperf-tls)");
  Parsed p = parse("launch sagemaker", options, args);
  if (p.help) return std::cout << kLaunchUsage << options, kExitOk;
  const Config config = load_config(p.string("config"), builtin_workloads(), true);
  SageMakerLaunchOptions o;
  static_cast<LaunchCommon&>(o) = common_launch(p);
  o.role_arn = p.string("role");
  o.output_s3 = p.string("output");
  if (p.has("image")) o.image = p.string("image");
  if (p.has("framework")) {
    const std::string f = p.string("framework");
    if (f.rfind("pytorch:", 0) != 0) throw InputError("--framework", "", "'" + f + "': expected pytorch:VERSION");
    o.framework_version = f.substr(8);
  }
  if (p.has("source")) o.source_s3 = p.string("source");
  if (p.has("max-wait-s")) o.max_wait_s = p.vars["max-wait-s"].as<int64_t>();
  if (p.has("tls")) o.tls_s3 = p.string("tls");
  if (p.has("subnets")) o.subnets = split_commas(p.string("subnets"));
  if (p.has("security-groups")) o.security_groups = split_commas(p.string("security-groups"));
  if (p.has("volume-kms-key")) o.volume_kms_key = p.string("volume-kms-key");
  if (p.has("output-kms-key")) o.output_kms_key = p.string("output-kms-key");
  o.encrypt_inter_container = p.vars["encrypt-inter-container"].as<bool>();
  if (p.has("max-retries")) o.max_retries = p.vars["max-retries"].as<int64_t>();

  const std::vector<SageMakerJob> jobs = sagemaker_jobs(config, o);
  if (!o.framework_version.empty()) {
    if (!p.has("bundle")) throw InputError("--bundle", "", "--framework needs the bundle's folder (scripts/gpu-bundle.sh --out DIR) to check it runs on the image");
    check_framework_bundle(p.string("bundle"), o.framework_version, config, jobs);
  }
  const fs::path out = p.string("out");
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& job : jobs) files.emplace_back(job.name + ".json", job.request.dump(2) + "\n");
  for (const auto& job : jobs)
    if (!job.token_s3.empty()) files.emplace_back(job.name + ".token", o.token + "\n");
  write_private(out, files);
  for (const auto& job : jobs) {
    std::string groups;
    for (const auto& g : job.request["ResourceConfig"].value("InstanceGroups", nlohmann::json::array()))
      groups += fmt::format("{}{} x {} ({})", groups.empty() ? "" : ", ", g["InstanceCount"].get<int64_t>(),
                            g["InstanceType"].get<std::string>(), g["InstanceGroupName"].get<std::string>());
    if (groups.empty()) groups = fmt::format("1 x {}", job.request["ResourceConfig"]["InstanceType"].get<std::string>());
    std::cout << fmt::format("{}: measures {} on {}{}; at most {} s\n", job.name, measures(job.configurations), groups,
                             job.request.value("EnableManagedSpotTraining", false) ? " (managed Spot)" : "",
                             job.request["StoppingCondition"]["MaxRuntimeInSeconds"].get<int64_t>());
    if (!job.token_s3.empty())  // the data token as the job's input channel, kept out of DescribeTrainingJob
      std::cout << fmt::format("  aws s3 cp {} {}\n", (out / (job.name + ".token")).string(), job.token_s3);
    std::cout << fmt::format("  aws sagemaker create-training-job --cli-input-json file://{}\n", (out / (job.name + ".json")).string());
  }
  std::vector<std::string> where, fetch, names;
  for (const auto& job : jobs) {
    // SageMaker uploads /opt/ml/model as S3OutputPath/JOB/output/model.tar.gz when the job ends.
    const std::string model = under(o.output_s3, job.name + "/output/model.tar.gz");
    where.push_back(model + " (results.json inside)");
    fetch.push_back(fmt::format("aws s3 cp {} {}.tar.gz && tar -xzf {}.tar.gz results.json && mv results.json {}.json", model,
                                job.name, job.name, job.name));
    names.push_back(job.name);
  }
  print_results_and_decision(where, fetch, names);
  return kExitOk;
}

/// "2 x c5.18xlarge (data-c5-18xlarge)" for a task document.
std::string nodes_of(const nlohmann::ordered_json& task) {
  return fmt::format("{} x {} ({}){}", task["num_nodes"].get<int64_t>(), task["resources"]["instance_type"].get<std::string>(),
                     task["name"].get<std::string>(), task["resources"]["use_spot"].get<bool>() ? " Spot" : "");
}

int launch_skypilot(const std::vector<std::string>& args) {
  auto options = launch_options("skypilot");
  options.add_options()("output", po::value<std::string>()->required(),
                        "a bucket (s3://BUCKET/PREFIX, gs://..., r2://...) mounted at /pperf-output: results, report, checkpoints")(
      "image", po::value<std::string>(), "a Docker image with pperf on PATH (default: the GPU bundle as the task's workdir)")(
      "bundle", po::value<std::string>()->default_value("gpu-bundle"), "the workdir: scripts/gpu-bundle.sh's folder, relative to where sky runs")(
      "tls", po::value<std::string>(), "a directory of cert.pem, key.pem (ca.pem): the data workers serve TLS (uploaded to /pperf-tls)");
  Parsed p = parse("launch skypilot", options, args);
  if (p.help) return std::cout << kLaunchUsage << options, kExitOk;
  const Config config = load_config(p.string("config"), builtin_workloads(), true);
  SkyPilotLaunchOptions o;
  static_cast<LaunchCommon&>(o) = common_launch(p);
  o.output = p.string("output");
  if (p.has("image")) o.image = p.string("image");
  o.bundle_dir = p.string("bundle");
  if (p.has("tls")) {
    read_tls_dir(p.string("tls"));  // refused here, not on the instances
    o.tls_dir = fs::absolute(p.string("tls")).string();
  }
  check_skypilot_output(o.output);  // before the bundle: the first thing wrong is named
  if (o.image.empty()) {
    for (const char* f : {"run.sh", "TORCH_VERSION"})
      if (!fs::is_regular_file(fs::path(o.bundle_dir) / f))
        throw InputError("--bundle", "", fmt::format("'{}' is not a GPU bundle (no {} there; scripts/gpu-bundle.sh makes one): "
                                                     "give its folder as `sky jobs launch` will see it, or --image",
                                                     o.bundle_dir, f));
    std::istringstream version(read_text_file((fs::path(o.bundle_dir) / "TORCH_VERSION").string()));
    version >> o.bundle_torch;
  }
  const auto jobs = skypilot_jobs(config, o);
  const fs::path out = p.string("out");
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& job : jobs) files.emplace_back(job.name + ".yaml", yaml_documents(job.documents));
  write_private(out, files);
  for (const auto& job : jobs) {
    std::string nodes;
    for (size_t d = job.job_group ? 1 : 0; d < job.documents.size(); ++d) nodes += (nodes.empty() ? "" : ", ") + nodes_of(job.documents[d]);
    std::cout << fmt::format("{}: measures {} on {}{}\n", job.name, measures(job.configurations), nodes,
                             job.job_group ? " (a job group: the tasks start together, the data tasks end with the trainer)" : "");
    std::cout << fmt::format("  sky jobs launch -y -n {} {}\n", job.name, (out / (job.name + ".yaml")).string());
  }
  std::vector<std::string> where, fetch, names;
  for (const auto& job : jobs) {
    const std::string results = under(o.output, job.name + "/results.json");
    where.push_back(results);
    fetch.push_back(copy_command(results, job.name + ".json"));
    names.push_back(job.name);
  }
  print_results_and_decision(where, fetch, names);
  return kExitOk;
}

int launch_kubernetes(const std::vector<std::string>& args) {
  auto options = launch_options("kubernetes");
  options.add_options()("image", po::value<std::string>()->required(), "the pods' container image, pperf on its PATH")(
      "results-claim", po::value<std::string>()->required(), "a PersistentVolumeClaim mounted at /pperf-output: results, report, checkpoints")(
      "namespace", po::value<std::string>()->default_value("default"), "the namespace of every object")(
      "capacity-labels", po::value<std::string>()->default_value("eks"),
      "the labels that say a node is Spot or on-demand: eks (managed node groups) or karpenter (Karpenter, EKS Auto Mode)")(
      "tls", po::value<std::string>(), "a directory of cert.pem, key.pem (ca.pem): the data workers serve TLS (a Secret mounted at /pperf-tls)");
  Parsed p = parse("launch kubernetes", options, args);
  if (p.help) return std::cout << kLaunchUsage << options, kExitOk;
  const Config config = load_config(p.string("config"), builtin_workloads(), true);
  KubernetesLaunchOptions o;
  static_cast<LaunchCommon&>(o) = common_launch(p);
  o.image = p.string("image");
  o.results_claim = p.string("results-claim");
  o.name_space = p.string("namespace");
  if (const std::string labels = p.string("capacity-labels"); labels == "karpenter")
    o.capacity_labels = CapacityLabels::karpenter;
  else if (labels != "eks")
    throw InputError("--capacity-labels", "", "'" + labels + "': expected eks or karpenter");
  if (p.has("tls")) o.tls_files = read_tls_dir(p.string("tls"));
  const auto jobs = kubernetes_jobs(config, o);
  const fs::path out = p.string("out");
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& job : jobs) files.emplace_back(job.name + ".yaml", yaml_documents(job.documents));
  write_private(out, files);
  for (const auto& job : jobs) {
    std::string objects;
    for (const auto& d : job.documents)
      objects += (objects.empty() ? "" : ", ") + d["kind"].get<std::string>() + " " + d["metadata"]["name"].get<std::string>();
    std::cout << fmt::format("{}: measures {} ({})\n", job.name, measures(job.configurations), objects);
    std::cout << fmt::format("  kubectl apply -f {}\n", (out / (job.name + ".yaml")).string());
  }
  std::vector<std::string> where, fetch, names;
  for (const auto& job : jobs) {
    where.push_back(fmt::format("{}/results.json on the claim {} (namespace {})", job.name, o.results_claim, o.name_space));
    fetch.push_back(fmt::format("from a pod that mounts the claim at /pperf-output (docs/launch.md): kubectl -n {} cp POD:/pperf-output/{}/results.json {}.json",
                                o.name_space, job.name, job.name));
    names.push_back(job.name);
  }
  print_results_and_decision(where, fetch, names);
  return kExitOk;
}

}  // namespace

int command_launch(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << kLaunchUsage;
    return args.empty() ? kExitBadInput : kExitOk;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "sagemaker") return launch_sagemaker(rest);
  if (args[0] == "skypilot") return launch_skypilot(rest);
  if (args[0] == "kubernetes") return launch_kubernetes(rest);
  throw InputError("pperf launch", "", "unknown platform '" + args[0] + "': expected sagemaker, skypilot or kubernetes" +
                                           did_you_mean(args[0], {"sagemaker", "skypilot", "kubernetes"}));
}

}  // namespace pperf::cli
