#include "src/launch/platform.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>

#include "src/core/atomic_file.h"
#include "src/core/input_error.h"
#include "src/launch/kubernetes.h"
#include "src/launch/sagemaker.h"
#include "src/launch/skypilot.h"

namespace pperf {

const std::vector<LaunchPlatform>& launch_platforms() {
  static const std::vector<LaunchPlatform> kPlatforms = {sagemaker_platform(), skypilot_platform(), kubernetes_platform()};
  return kPlatforms;
}

const LaunchPlatform* find_launch_platform(const std::string& name) {
  for (const auto& p : launch_platforms())
    if (p.name == name) return &p;
  return nullptr;
}

std::vector<LaunchJob> launch_jobs(const Config& config, const LaunchCommon& common, const LaunchRules& rules, bool tls_given) {
  const std::vector<LaunchJobPlan> plans = launch_plan(config, common.selection, rules.title,
                                                       [&](const std::string& type) { return rules.type_rule(config, type); });
  const std::string price_table = rules.ec2_priced ? ec2_price_table(config, plans, common.sagemaker_rates, rules.title) : "";
  std::vector<LaunchJob> jobs;
  for (const LaunchJobPlan& plan : plans) {
    LaunchJob job;
    job.plan = plan;
    job.name = launch_job_name(config.name, rules.cloud_type_names ? cloud_instance_type(plan.key) : plan.key, common.job_suffix,
                               rules.max_name_length, rules.lower_case_names, rules.title);
    job.runtime_s = job_runtime_s(common, config, plan);
    for (size_t g = 0; g < plan.data_groups.size(); ++g)
      job.group_names.push_back(rules.group_name(job.name, plan.data_groups[g], g, plan.data_groups.size()));
    job.with_data = !plan.data_groups.empty();
    if (job.with_data && common.token.empty()) throw InputError("--token-file", "", "a job with data instances needs the data workers' token");
    job.tls = job.with_data && tls_given;
    if (!rules.node_platform.empty()) {
      job.tls_dir = job.tls ? rules.tls_dir : "";
      // Each data node publishes its address under the job's output (SkyPilot: the mounted bucket).
      job.peers_dir = rules.peers && job.with_data ? rules.output_dir + "/" + job.name + "/peers" : "";
      const auto entry = [&](const NodeEntryRole& role) {
        return node_entry_arguments(config, plan, role, job.group_names, common.selection.workload, common.data_port,
                                    common.data_wait_s, job.runtime_s);
      };
      job.trainer_entry = entry({rules.node_platform, job.name, kTrainerGroup, cloud_instance_type(plan.trainer_type), 1,
                                 rules.output_dir + "/" + job.name, job.tls_dir, job.peers_dir, price_table});
      for (size_t g = 0; g < plan.data_groups.size(); ++g) {
        const LaunchDataGroup& d = plan.data_groups[g];
        job.data_entries.push_back(
            entry({rules.node_platform, job.name, job.group_names[g], cloud_instance_type(d.type), d.workers, "", job.tls_dir, job.peers_dir}));
      }
    }
    jobs.push_back(std::move(job));
  }
  return jobs;
}

std::string measures_text(const std::vector<std::string>& configurations) {
  return configurations.size() == 1 ? configurations[0] : "in turns: " + fmt::format("{}", fmt::join(configurations, ", "));
}

std::string bucket_path(const std::string& prefix, const std::string& rest) {
  return prefix.empty() || prefix.back() == '/' ? prefix + rest : prefix + "/" + rest;
}

std::map<std::string, std::string> read_tls_files(const std::string& dir) {
  namespace fs = std::filesystem;
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

}  // namespace pperf
