#include "src/launch/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include "src/config/plan.h"
#include "src/core/input_error.h"

namespace pperf {

namespace {

std::string at(const Configuration& c, const std::string& rest) { return c.pointer + rest; }

/// The trainer group of `c`, refusing what one job's one trainer cannot measure.
const InstanceGroup& trainer_of(const Config& config, const Configuration& c, const std::string& platform,
                                const InstanceTypeRule& rule) {
  const InstanceGroup* trainer = nullptr;
  for (size_t i = 0; i < c.instances.size(); ++i) {
    const InstanceGroup& g = c.instances[i];
    const std::string where = at(c, "/instances/" + std::to_string(i));
    if (const std::string why = rule(g.type); !why.empty())
      throw InputError(config.path, where + "/type", "configuration '" + c.name + "': " + why);
    if (!config.price_table.find(g.type))
      throw InputError(config.path, where + "/type",
                       "configuration '" + c.name + "': '" + g.type + "' is not in the price table " + config.price_table.name);
    if (g.role != "dnn") continue;
    if (trainer)
      throw InputError(config.path, where,
                       "configuration '" + c.name + "': a second trainer group; one " + platform + " job measures one trainer group");
    trainer = &g;
  }
  if (!trainer) throw InputError(config.path, at(c, "/instances"), "configuration '" + c.name + "': no trainer (role dnn) group");
  if (trainer->count != 1)
    throw InputError(config.path, at(c, "/instances"),
                     fmt::format("configuration '{}': a trainer group of {} instances; pperf launches a job whose one "
                                 "trainer measures (multi-instance data-parallel trainers: not yet, docs/launch.md)",
                                 c.name, trainer->count));
  if (const auto& d = c.execution.distributed; d && !d->spawn_local)
    throw InputError(config.path, at(c, "/execution/distributed"),
                     "configuration '" + c.name + "': ranks started by a launcher; in a launched job pperf starts them on the "
                     "trainer instance (\"spawn_local\")");
  return *trainer;
}

/// What `pperf run --native` would refuse on the trainer instance (its vCPUs and GPUs from the
/// price table), refused now rather than in a job that bills. Spawned data workers and their
/// TLS CA are replaced in the job (the data instances serve there).
void refuse_what_fails_there(const Config& config, const Configuration& c, const InstanceGroup& trainer) {
  const InstanceSpec* spec = config.price_table.find(trainer.type);
  if (spec && spec->accelerators > 0 && !is_cuda_accelerator(*spec))
    throw InputError(config.path, at(c, "/instances"),
                     fmt::format("configuration '{}': {} carries {} {} accelerator(s), which a launched pperf does not train on "
                                 "(it trains on NVIDIA GPUs and CPUs); launching it needs a Neuron image and a step that runs there "
                                 "(not yet, docs/launch.md)",
                                 c.name, trainer.type, spec->accelerators, spec->accelerator_model));
  HostCapacity host;
  host.logical_cpus = spec && spec->vcpus > 0 ? spec->vcpus : 1;
  host.cuda_devices = spec ? static_cast<int64_t>(std::ceil(spec->accelerators)) : 0;
  host.no_cuda_reason = trainer.type + " has no GPU";
  host.native = true;
  const size_t index = static_cast<size_t>(&c - config.configurations.data());
  for (size_t w = 0; w < config.workloads.size(); ++w) {
    for (const Obstacle& o : plan_item(config, w, index, host).not_runnable_here) {
      if (o.pointer == at(c, "/execution/data/spawn_local") || o.pointer == at(c, "/execution/data/tls_ca")) continue;
      throw InputError(config.path, o.pointer,
                       fmt::format("configuration '{}': `pperf run --native` would refuse it on {} ({} vCPUs, {} GPU(s)): {}",
                                   c.name, trainer.type, host.logical_cpus, host.cuda_devices, o.reason));
    }
  }
}

/// The data instances `c` streams from: (type, count), or count 0 when it preprocesses itself.
std::pair<std::string, int64_t> data_instances_of(const Config& config, const Configuration& c, const LaunchSelection& s) {
  int64_t count = 0;
  std::string type;
  for (const auto& g : c.instances) {
    if (g.role != "data") continue;
    if (!type.empty() && type != g.type)
      throw InputError(config.path, at(c, "/instances"),
                       "configuration '" + c.name + "': data groups of two instance types; one data group per configuration");
    type = g.type;
    count += g.count;
  }
  if (count == 0) return {type, 0};
  if (c.execution.data.mode != DataMode::service)
    throw InputError(config.path, at(c, "/execution/data/mode"),
                     "configuration '" + c.name + "': data instances but \"mode\": \"local\"; they would idle (\"service\")");
  if (c.execution.data.worker == DataWorker::python)
    throw InputError(config.path, at(c, "/execution/data/worker"),
                     "configuration '" + c.name + "': Python data workers on the data instances are not launched yet (the C++ pipeline's are)");
  if (config.sweep)
    throw InputError(config.path, "/sweep", "a sweep's points share the emulated data group; launch measures configurations written out");
  if (config.workloads.size() > 1 && s.workload.empty())
    throw InputError("--workload", "", "the data instances serve one workload; " + config.path + " has " +
                                           std::to_string(config.workloads.size()) + " (name one)");
  return {type, count};
}

}  // namespace

std::vector<LaunchJobPlan> launch_plan(const Config& config, const LaunchSelection& s, const std::string& platform,
                                       const InstanceTypeRule& rule) {
  if (config.priced_only)
    throw InputError(config.path, "/configurations",
                     "priced only (every configuration gives step_time_ms): nothing to measure on the instances; `pperf cost` prices it");
  if (!s.workload.empty() &&
      std::none_of(config.workloads.begin(), config.workloads.end(), [&](const auto& w) { return w.name == s.workload; }))
    throw InputError("--workload", "", "'" + s.workload + "' is not a workload of " + config.path);
  if (!s.workload.empty() && !shell_plain(s.workload))
    throw InputError("--workload", "", "'" + s.workload + "' holds a character a shell on the instances would read");
  if (!shell_plain(launch_config_reference(config)))
    throw InputError(config.path, "", "the config's file name holds a character a shell on the instances would read; rename it "
                                      "(letters, digits and -_./:=,@%+ only)");
  const std::vector<std::string> only = only_names(config, s.only);
  const int64_t workloads = s.workload.empty() ? static_cast<int64_t>(config.workloads.size()) : 1;
  std::vector<LaunchJobPlan> jobs;
  for (const Configuration& c : config.configurations) {
    if (!only.empty() && std::find(only.begin(), only.end(), c.name) == only.end()) continue;
    // The names reach shells the job's platform writes (SageMaker's toolkit runs its entry point
    // as /bin/sh -c "./ENTRY ARGS", the arguments re-quoted inside double quotes: `$(` runs there).
    if (!shell_plain(c.name))
      throw InputError(config.path, at(c, "/name"),
                       "configuration name '" + c.name + "' holds a character a shell on the instances would read; a launched "
                       "configuration's name is letters, digits and -_./:=,@%+ only");
    const InstanceGroup& trainer = trainer_of(config, c, platform, rule);
    refuse_what_fails_there(config, c, trainer);
    bool spot = s.spot;
    for (const auto& g : c.instances) spot = spot || g.market == Market::spot;
    const std::string key = trainer.type + (spot ? "-spot" : "");
    auto job = std::find_if(jobs.begin(), jobs.end(), [&](const LaunchJobPlan& j) { return j.key == key; });
    if (job == jobs.end()) {
      job = jobs.insert(jobs.end(), LaunchJobPlan{});
      job->key = key;
      job->trainer_type = trainer.type;
      job->spot = spot;
    }
    job->configurations.push_back(c.name);
    job->items += workloads;
    const auto data = data_instances_of(config, c, s);
    const std::string& data_type = data.first;  // a structured binding cannot be captured in C++17
    const int64_t data_count = data.second;
    if (data_count == 0) continue;
    auto g = std::find_if(job->data_groups.begin(), job->data_groups.end(), [&](const auto& d) { return d.type == data_type; });
    if (g == job->data_groups.end()) {
      const InstanceSpec* spec = config.price_table.find(data_type);
      g = job->data_groups.insert(job->data_groups.end(), LaunchDataGroup{data_type, 0, spec && spec->vcpus > 0 ? spec->vcpus : 1});
    }
    g->count = std::max(g->count, data_count);
    job->data_of[c.name] = {static_cast<size_t>(g - job->data_groups.begin()), data_count};
  }
  if (jobs.empty()) throw InputError("--only", "", "no configuration selected");
  return jobs;
}

bool is_cuda_accelerator(const InstanceSpec& spec) {
  if (spec.accelerators <= 0) return false;
  for (const char* other : {"Trainium", "Inferentia", "Gaudi", "TPU"})
    if (spec.accelerator_model.find(other) != std::string::npos) return false;
  return true;
}

std::string cloud_instance_type(const std::string& type) { return type.rfind("ml.", 0) == 0 ? type.substr(3) : type; }

std::string ec2_price_table(const Config& config, const std::vector<LaunchJobPlan>& jobs, bool accept_sagemaker_rates,
                            const std::string& platform) {
  const std::string prefix = "aws-sagemaker-";
  if (accept_sagemaker_rates || config.price_table.name.rfind(prefix, 0) != 0) return "";
  const std::string name = "aws-ec2-" + config.price_table.name.substr(prefix.size());
  PriceTable ec2;
  try {
    ec2 = load_price_table(name, config.price_table.region);
  } catch (const std::exception& e) {
    throw InputError("--sagemaker-rates", "", fmt::format("{} runs EC2 instances, but there is no EC2 table {} to price them ({}); "
                                                          "--sagemaker-rates prices them at SageMaker's rates", platform, name, e.what()));
  }
  for (const Configuration& c : config.configurations)
    for (const auto& job : jobs)
      if (std::find(job.configurations.begin(), job.configurations.end(), c.name) != job.configurations.end())
        for (size_t i = 0; i < c.instances.size(); ++i) {
          const std::string& type = c.instances[i].type;
          const std::string ec2_type = cloud_instance_type(type);
          if (!ec2.find(ec2_type))
            throw InputError(config.path, c.pointer + "/instances/" + std::to_string(i) + "/type",
                             fmt::format("configuration '{}': {} runs {} as the EC2 instance {}, which {} does not price "
                                         "(--sagemaker-rates prices it at SageMaker's rates)", c.name, platform, type, ec2_type, name));
        }
  return name;
}

std::string launch_config_reference(const Config& config) {
  namespace fs = std::filesystem;
  const fs::path path = fs::absolute(config.path).lexically_normal();
  try {
    if (path.parent_path() == fs::absolute(shipped_configs_dir()).lexically_normal()) return path.stem().string();
  } catch (const std::exception&) {
  }
  return path.filename().string();
}

int64_t job_runtime_s(const LaunchCommon& common, const Config& config, const LaunchJobPlan& job) {
  const int64_t runtime = common.max_runtime_s ? *common.max_runtime_s : launch_max_runtime_s(config.measure, job.items);
  if (runtime < 1) throw InputError("--max-runtime-s", "", "must be at least 1 s");
  return runtime;
}

int64_t launch_max_runtime_s(const MeasureSettings& measure, int64_t items) {
  return kJobStartAllowanceS + items * (static_cast<int64_t>(std::ceil(measure.max_seconds)) + kItemAllowanceS);
}

std::string launch_name(const std::string& text, size_t max_length, bool lower) {
  std::string out;
  for (char ch : text) {
    if (std::isalnum(static_cast<unsigned char>(ch)))
      out += lower ? static_cast<char>(std::tolower(static_cast<unsigned char>(ch))) : ch;
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  if (out.size() > max_length) out.resize(max_length);
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string launch_job_name(const std::string& config_name, const std::string& key, const std::string& suffix,
                            size_t max_length, bool lower, const std::string& platform) {
  std::string tail = "-" + launch_name(key, max_length, lower);
  if (!suffix.empty()) tail += "-" + launch_name(suffix, max_length, lower);
  if (tail.size() + 1 > max_length)
    throw InputError("--job-suffix", "", fmt::format("'{}' makes the job name '{}' longer than {} allows ({} characters)", suffix,
                                                     tail.substr(1), platform, max_length));
  // The config's name in whole words, as many as fit before the trainer's type and the suffix.
  std::string head = launch_name(config_name, std::string::npos, lower);
  if (head.size() > max_length - tail.size()) {
    head.resize(max_length - tail.size() + 1);  // one past: a '-' there ends a whole word
    const auto cut = head.rfind('-');
    head.resize(cut == std::string::npos ? 0 : cut);
  }
  return head.empty() ? tail.substr(1) : head + tail;
}

std::string s3_bucket_problem(const std::string& b) {
  if (b.size() < 3 || b.size() > 63) return fmt::format("{} characters (S3 allows 3 to 63)", b.size());
  for (char ch : b)
    if (!(std::islower(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-'))
      return fmt::format("'{}' is not allowed (lower-case letters, digits, '.' and '-' only)", ch);
  if (!std::isalnum(static_cast<unsigned char>(b.front())) || !std::isalnum(static_cast<unsigned char>(b.back())))
    return "it must begin and end with a letter or digit";
  if (b.find("..") != std::string::npos) return "two adjacent periods";
  if (std::all_of(b.begin(), b.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) || ch == '.'; }) &&
      std::count(b.begin(), b.end(), '.') == 3)
    return "an IP address";
  for (const char* prefix : {"xn--", "sthree-", "amzn-s3-demo-"})
    if (b.rfind(prefix, 0) == 0) return std::string("S3 reserves the prefix ") + prefix;
  for (const std::string suffix : {"-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"})
    if (b.size() > suffix.size() && b.compare(b.size() - suffix.size(), suffix.size(), suffix) == 0)
      return "S3 reserves the suffix " + suffix;
  return "";
}

void check_s3_uri(const std::string& flag, const std::string& uri) {
  if (uri.rfind("s3://", 0) != 0 || uri.size() <= 5)
    throw InputError(flag, "", "'" + uri + "' is not an S3 URI (s3://BUCKET/PREFIX)");
  const std::string bucket = uri.substr(5, uri.find('/', 5) == std::string::npos ? std::string::npos : uri.find('/', 5) - 5);
  if (const std::string why = s3_bucket_problem(bucket); !why.empty())
    throw InputError(flag, "", "'" + bucket + "' is not an S3 bucket name: " + why);
}

std::string join_names(const std::vector<std::string>& names, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? sep : "") + names[i];
  return out;
}

}  // namespace pperf

namespace pperf {

std::vector<std::string> node_entry_arguments(const Config& config, const LaunchJobPlan& job, const NodeEntryRole& role,
                                              const std::vector<std::string>& group_names, const std::string& workload,
                                              int64_t data_port, int64_t data_wait_s, int64_t max_runtime_s) {
  NodeEntryArgs a;
  a.platform = role.platform;
  a.job = role.job;
  a.group = role.group;
  a.instance_type = role.instance_type;
  a.config = launch_config_reference(config);
  a.config_sha256 = config.sha256;
  a.workload = workload;
  a.data_port = data_port;
  a.max_runtime_s = max_runtime_s;
  a.tls_dir = role.tls_dir;
  a.peers_dir = role.peers_dir;
  if (a.trainer() || !a.peers_dir.empty()) a.data_wait_s = data_wait_s;  // a data host without peers does not wait
  if (a.trainer()) {
    a.price_table = role.price_table;
    a.spot = job.spot;
    a.configurations = join_names(job.configurations, ",");
    a.out_dir = role.out_dir;
    for (const auto& [configuration, use] : job.data_of) a.data.push_back({configuration, group_names.at(use.first), use.second});
  } else {
    a.workers = role.data_workers;
  }
  return node_entry_argv(a);
}

bool shell_plain(const std::string& word) {
  return !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string("-_./:=,@%+").find(c) != std::string::npos;
  });
}

std::string shell_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& word : argv) {
    const bool plain = shell_plain(word);
    std::string quoted = "'";
    for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += (out.empty() ? "" : " ") + (plain ? word : quoted + "'");
  }
  return out;
}

}  // namespace pperf
