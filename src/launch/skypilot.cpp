#include "src/launch/skypilot.h"

#include <fmt/format.h>

#include <regex>

#include "src/core/input_error.h"

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

std::vector<SkyPilotJob> skypilot_jobs(const Config& config, const SkyPilotLaunchOptions& o) {
  check_skypilot_output(o.output);
  const std::string provider = config.price_table.provider;
  const auto jobs = launch_plan(config, o.selection, "SkyPilot", [&](const std::string&) {
    return provider == "aws" || provider == "gcp" || provider == "azure"
               ? std::string()
               : "the price table " + config.price_table.name + " prices provider '" + provider + "', which pperf does not launch on SkyPilot";
  });
  const std::string price_table = ec2_price_table(config, jobs, o.sagemaker_rates, "SkyPilot");
  std::vector<SkyPilotJob> out;
  for (const LaunchJobPlan& j : jobs) {
    SkyPilotJob job;
    job.name = launch_job_name(config.name, cloud_instance_type(j.key), o.job_suffix, 60, true, "SkyPilot");
    job.configurations = j.configurations;
    job.job_group = !j.data_groups.empty();
    const int64_t runtime = job_runtime_s(o, config, j);
    std::vector<std::string> group_names;
    for (const auto& g : j.data_groups) group_names.push_back(launch_name("data-" + cloud_instance_type(g.type), 40, true));
    if (job.job_group) {
      if (o.token.empty()) throw InputError("--token-file", "", "a job with data instances needs the data workers' token");
      nlohmann::ordered_json header;
      header["name"] = job.name;
      header["execution"] = "parallel";
      header["primary_tasks"] = {"trainer"};  // the data tasks end when the trainer does
      // In-group host names exist on Kubernetes only (SkyPilot's optimizer turns them off for a
      // group placed on a cloud); the hosts find each other through the bucket instead.
      header["inter_connection"] = false;
      job.documents.push_back(header);
    }
    const std::string tls = job.job_group && !o.tls_dir.empty() ? kSkyPilotTlsDir : "";
    // Each data node publishes its address (SKYPILOT_NODE_IPS) under the mounted bucket.
    const std::string peers = job.job_group ? std::string(kSkyPilotOutputDir) + "/" + job.name + "/peers" : "";
    NodeEntryRole trainer{"skypilot", job.name, "trainer", cloud_instance_type(j.trainer_type), 1,
                          std::string(kSkyPilotOutputDir) + "/" + job.name, tls, peers, price_table};
    job.documents.push_back(task(config, o, job.job_group ? "trainer" : job.name, j.trainer_type, j.spot, 1, job.job_group,
                                 node_entry_arguments(config, j, trainer, group_names, o.selection.workload, o.data_port,
                                                      o.data_wait_s, runtime)));
    if (job.job_group) job.documents.back()["name"] = "trainer";
    for (size_t g = 0; g < j.data_groups.size(); ++g) {
      const LaunchDataGroup& d = j.data_groups[g];
      NodeEntryRole data{"skypilot", job.name, group_names[g], cloud_instance_type(d.type), d.workers, "", tls, peers};
      job.documents.push_back(task(config, o, group_names[g], d.type, j.spot, d.count, true,
                                   node_entry_arguments(config, j, data, group_names, o.selection.workload, o.data_port,
                                                        o.data_wait_s, runtime)));
    }
    out.push_back(std::move(job));
  }
  return out;
}

}  // namespace pperf
