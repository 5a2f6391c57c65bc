#include "src/launch/skypilot.h"

#include <fmt/format.h>

#include <filesystem>
#include <regex>
#include <sstream>

#include "src/core/atomic_file.h"
#include "src/core/input_error.h"
#include "src/launch/yaml.h"

namespace pperf {

std::string torch_pip_install(const std::string& built_against, bool cuda) {
  static const std::regex kRelease("[0-9]+(\\.[0-9]+)*");
  const std::string version = built_against.substr(0, built_against.find('+'));
  if (!std::regex_match(version, kRelease))
    throw InputError("--bundle", "", "TORCH_VERSION '" + built_against + "' is not a torch release version");
  return "python3 -m pip install --quiet \"torch==" + version + "\"" +
         (cuda ? "" : " --index-url https://download.pytorch.org/whl/cpu");
}


namespace {
/// A bucket SkyPilot mounts (sky/data/storage.py's stores).
const std::regex kBucketUri("(s3|gs|r2|cos|oci|nebius|azure)://[^/]+(/.*)?|https://[^/]+\\.blob\\.core\\.windows\\.net/.+");

nlohmann::ordered_json task(const Config& config, const SkyPilotLaunchOptions& o, const std::string& name, const std::string& type,
                            bool spot, int64_t nodes, bool with_data, const std::vector<std::string>& entry) {
  nlohmann::ordered_json t;
  t["name"] = name;
  nlohmann::ordered_json resources;
  resources["infra"] = config.price_table.provider + "/" + config.price_table.region;
  resources["instance_type"] = cloud_instance_type(type);
  resources["use_spot"] = spot;
  if (!o.image.empty()) resources["image_id"] = "docker:" + o.image;
  t["resources"] = resources;
  t["num_nodes"] = nodes;
  if (o.image.empty()) t["workdir"] = o.bundle_dir;
  if (with_data) t["secrets"] = {{kDataTokenVariable, o.token}};  // kept out of SkyPilot's logs and dashboard
  t["file_mounts"] = {{kSkyPilotOutputDir, {{"source", o.output}, {"mode", "MOUNT_CACHED"}}}};
  if (with_data && !o.tls_dir.empty()) t["file_mounts"][kSkyPilotTlsDir] = o.tls_dir;  // SkyPilot uploads the local directory
  std::vector<std::string> argv{o.image.empty() ? "./run.sh" : "pperf"};
  if (o.image.empty()) argv.push_back("pperf");
  argv.insert(argv.end(), entry.begin(), entry.end());
  if (o.image.empty()) {
    // The bundle brings pperf and its libraries; the instance's python3 brings the torch it was
    // built against (run.sh checks the version).
    const InstanceSpec* spec = config.price_table.find(type);
    t["setup"] = "set -e\npython3 -c 'import torch' 2>/dev/null || " + torch_pip_install(o.bundle_torch, spec && is_cuda_accelerator(*spec)) + "\n";
  }
  t["run"] = "set -e\n" + shell_line(argv) + "\n";
  return t;
}
}  // namespace

void check_skypilot_output(const std::string& output) {
  if (!std::regex_match(output, kBucketUri))
    throw InputError("--output", "", "'" + output + "' is not a bucket SkyPilot mounts (s3://BUCKET/PREFIX, gs://..., r2://...)");
  if (output.rfind("s3://", 0) == 0) check_s3_uri("--output", output);
}

LaunchRules skypilot_rules() {
  LaunchRules r;
  r.title = "SkyPilot";
  r.type_rule = [](const Config& config, const std::string&) {
    const std::string provider = config.price_table.provider;
    return provider == "aws" || provider == "gcp" || provider == "azure"
               ? std::string()
               : "the price table " + config.price_table.name + " prices provider '" + provider + "', which pperf does not launch on SkyPilot";
  };
  r.max_name_length = 60;
  r.lower_case_names = true;
  r.cloud_type_names = true;
  r.group_name = [](const std::string&, const LaunchDataGroup& g, size_t, size_t) {
    return launch_name("data-" + cloud_instance_type(g.type), 40, true);
  };
  r.ec2_priced = true;
  r.node_platform = kNodeSkyPilot;
  r.output_dir = kSkyPilotOutputDir;
  r.tls_dir = kSkyPilotTlsDir;
  r.peers = true;
  return r;
}

std::vector<SkyPilotJob> skypilot_jobs(const Config& config, const SkyPilotLaunchOptions& o) {
  check_skypilot_output(o.output);
  std::vector<SkyPilotJob> out;
  for (const LaunchJob& j : launch_jobs(config, o, skypilot_rules(), !o.tls_dir.empty())) {
    SkyPilotJob job{j, false, {}};
    job.job_group = j.with_data;
    if (job.job_group) {
      nlohmann::ordered_json header;
      header["name"] = job.name;
      header["execution"] = "parallel";
      header["primary_tasks"] = {kTrainerGroup};  // the data tasks end when the trainer does
      // In-group host names exist on Kubernetes only (SkyPilot's optimizer turns them off for a
      // group placed on a cloud); the hosts find each other through the bucket instead.
      header["inter_connection"] = false;
      job.documents.push_back(header);
    }
    job.documents.push_back(task(config, o, job.job_group ? kTrainerGroup : job.name, j.plan.trainer_type, j.plan.spot, 1,
                                 job.job_group, j.trainer_entry));
    for (size_t g = 0; g < j.plan.data_groups.size(); ++g) {
      const LaunchDataGroup& d = j.plan.data_groups[g];
      job.documents.push_back(task(config, o, j.group_names[g], d.type, j.plan.spot, d.count, true, j.data_entries[g]));
    }
    out.push_back(std::move(job));
  }
  return out;
}

std::string skypilot_summary(const LaunchJob& job) {
  const auto nodes_of = [&](int64_t count, const std::string& type, const std::string& task) {
    return fmt::format("{} x {} ({}){}", count, cloud_instance_type(type), task, job.plan.spot ? " Spot" : "");
  };
  std::string nodes = nodes_of(1, job.plan.trainer_type, job.with_data ? kTrainerGroup : job.name);
  for (size_t g = 0; g < job.plan.data_groups.size(); ++g)
    nodes += ", " + nodes_of(job.plan.data_groups[g].count, job.plan.data_groups[g].type, job.group_names[g]);
  return fmt::format("measures {} on {}{}", measures_text(job.plan.configurations), nodes,
                     job.with_data ? " (a job group: the tasks start together, the data tasks end with the trainer)" : "");
}

SkyPilotLaunchOptions skypilot_options(const LaunchFlagValues& f, const LaunchCommon& common) {
  namespace fs = std::filesystem;
  SkyPilotLaunchOptions o;
  static_cast<LaunchCommon&>(o) = common;
  o.output = f.string("output");
  if (f.has("image")) o.image = f.string("image");
  o.bundle_dir = f.string("bundle");
  if (f.has("tls")) {
    read_tls_files(f.string("tls"));  // refused here, not on the instances
    o.tls_dir = fs::absolute(f.string("tls")).string();
  }
  check_skypilot_output(o.output);  // before the bundle: the first thing wrong is named
  if (o.image.empty()) {
    for (const char* file : {"run.sh", "TORCH_VERSION"})
      if (!fs::is_regular_file(fs::path(o.bundle_dir) / file))
        throw InputError("--bundle", "", fmt::format("'{}' is not a GPU bundle (no {} there; scripts/gpu-bundle.sh makes one): "
                                                     "give its folder as `sky jobs launch` will see it, or --image",
                                                     o.bundle_dir, file));
    std::istringstream version(read_text_file((fs::path(o.bundle_dir) / "TORCH_VERSION").string()));
    version >> o.bundle_torch;
  }
  return o;
}

/// The command that copies a bucket object (s3://, gs://; others by their own tool) to `local`.
std::string copy_command(const std::string& uri, const std::string& local) {
  if (uri.rfind("s3://", 0) == 0) return "aws s3 cp " + uri + " " + local;
  if (uri.rfind("gs://", 0) == 0) return "gcloud storage cp " + uri + " " + local;
  return "copy " + uri + " to " + local + " with the store's own tool";
}

LaunchPlatform skypilot_platform() {
  LaunchPlatform p;
  p.name = "skypilot";
  p.usage =
      "pperf launch skypilot --config C --output BUCKET_URI\n"
      "         [--image IMAGE | --bundle DIR] [--tls DIR] [COMMON]\n";
  p.flags = {
      {"output", "a bucket (s3://BUCKET/PREFIX, gs://..., r2://...) mounted at /pperf-output: results, report, checkpoints", false, true},
      {"image", "a Docker image with pperf on PATH (default: the GPU bundle as the task's workdir)"},
      {"bundle", "the workdir: scripts/gpu-bundle.sh's folder, relative to where sky runs", false, false, std::string("gpu-bundle")},
      {"tls", "a directory of cert.pem, key.pem (ca.pem): the data workers serve TLS (uploaded to /pperf-tls)"}};
  p.rules = skypilot_rules();
  p.launch = [](const Config& config, const LaunchCommon& common, const LaunchFlagValues& flags) {
    const SkyPilotLaunchOptions o = skypilot_options(flags, common);
    std::vector<LaunchedJob> out;
    for (const SkyPilotJob& job : skypilot_jobs(config, o)) {
      const std::string results = bucket_path(o.output, job.name + "/results.json");
      out.push_back({job.name, job.name + ".yaml", yaml_documents(job.documents), skypilot_summary(job), results,
                     copy_command(results, job.name + ".json")});
    }
    return out;
  };
  p.start_command = [](const std::string& job, const std::string& path) { return "sky jobs launch -y -n " + job + " " + path; };
  return p;
}

}  // namespace pperf
