#include "src/node/platforms.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "src/core/atomic_file.h"
#include "src/core/input_error.h"
#include "src/core/text_values.h"
#include "src/launch/sagemaker.h"
#include "src/node/peers.h"

namespace pperf::node {

namespace fs = std::filesystem;

namespace {

std::string env_or(const char* name, const std::string& fallback = "") {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::string required_env(const char* name, const std::string& who) {
  const std::string v = env_or(name);
  if (v.empty()) throw InputError(name, "", "not set (" + who + " sets it in every job)");
  return v;
}

std::string read_contract_file(const fs::path& path) {
  if (!fs::is_regular_file(path)) throw InputError(path.string(), "", "missing (SageMaker's container contract writes it)");
  return read_text_file(path.string());
}

int64_t rank_variable(const char* name, const std::string& who) {
  const std::string v = required_env(name, who);
  if (v == "0") return 0;
  const auto n = positive_integer(v);
  if (!n) throw InputError(name, "", "'" + v + "' is not a rank");
  return *n;
}

/// Who a host is in its job, as its platform's variables say.
struct HostIdentity {
  std::string job_id, host_id, instance_id;
};

/// A SkyPilot node: its rank and address among its task's nodes (SKYPILOT_NODE_RANK, _NUM_NODES, _NODE_IPS).
HostIdentity skypilot_host(NodeRun& node, const std::string& group) {
  HostIdentity host;
  // The task is the group (as SageMaker's current_group_name); the rank only numbers its nodes.
  const int64_t rank = rank_variable("SKYPILOT_NODE_RANK", "SkyPilot");
  const std::string nodes = required_env("SKYPILOT_NUM_NODES", "SkyPilot");
  std::vector<std::string> ips;
  std::istringstream lines(required_env("SKYPILOT_NODE_IPS", "SkyPilot"));
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) ips.push_back(line);
  if (static_cast<int64_t>(ips.size()) != positive_integer(nodes).value_or(0) || rank >= static_cast<int64_t>(ips.size()))
    throw InputError("SKYPILOT_NODE_IPS", "", fmt::format("{} addresses for SKYPILOT_NUM_NODES={} and SKYPILOT_NODE_RANK={}", ips.size(), nodes, rank));
  if (node.trainer && ips.size() != 1)
    throw InputError("SKYPILOT_NUM_NODES", "", nodes + ": the trainer task pperf writes has one node");
  node.listen_host = ips[static_cast<size_t>(rank)];
  node.peer_key = data_peer_key(group, rank);
  host.job_id = env_or("SKYPILOT_TASK_ID", node.job_name);
  host.host_id = data_peer_key(group, rank);
  node.view = {{"rank", rank}, {"node_ips", ips}, {"job_group", env_or("SKYPILOT_JOBGROUP_NAME")}};
  return host;
}

/// A Kubernetes pod: the trainer as the training operator's one Master, a data pod as its
/// Indexed Job's index; the pod and node names from the downward API.
HostIdentity kubernetes_host(NodeRun& node) {
  HostIdentity host;
  if (node.trainer) {
    // The operator's variables as they are: v1 sets RANK (the pod's index) and WORLD_SIZE
    // (processes); Trainer v2 only PET_NODE_RANK and PET_NNODES.
    const bool v1 = !env_or("RANK").empty();
    const char* rank_name = v1 ? "RANK" : "PET_NODE_RANK";
    const int64_t rank = rank_variable(rank_name, "the training operator");
    if (rank != 0) throw InputError(rank_name, "", std::to_string(rank) + ": the PyTorchJob pperf writes has one Master (rank 0)");
    const std::string nnodes = v1 ? env_or("PET_NNODES", "1") : required_env("PET_NNODES", "Trainer v2");
    if (nnodes != "1" && nnodes != "1:1")
      throw InputError("PET_NNODES", "", nnodes + ": the PyTorchJob pperf writes has one node");
    node.view = {{"rank", rank}, {"rank_variable", rank_name}, {"world_size", env_or("WORLD_SIZE")}, {"master_addr", env_or(v1 ? "MASTER_ADDR" : "PET_MASTER_ADDR")}};
  } else {
    const int64_t index = rank_variable("JOB_COMPLETION_INDEX", "an Indexed Job");
    node.listen_host = env_or("POD_IP", "0.0.0.0");
    node.view = {{"index", index}};
  }
  host.job_id = env_or("POD_UID", node.job_name);
  host.instance_id = env_or("NODE_NAME");
  host.host_id = env_or("POD_NAME", env_or("HOSTNAME"));
  return host;
}

}  // namespace

// ---- SageMaker ----

SageMakerPaths sagemaker_paths() {
  SageMakerPaths p;
  p.root = env_or("PPERF_SAGEMAKER_ROOT", "/opt/ml");
  p.resource_config = p.root / "input/config/resourceconfig.json";
  p.hyperparameters = p.root / "input/config/hyperparameters.json";
  p.model = p.root / "model";
  p.output_data = p.root / "output/data";
  p.failure = p.root / "output/failure";
  p.checkpoints = p.root / "checkpoints";
  return p;
}

NodeRun sagemaker_node(const SageMakerPaths& paths) {
  const SageMakerResourceConfig rc = parse_resource_config(read_contract_file(paths.resource_config), paths.resource_config.string());
  const auto hyper = parse_hyperparameters(read_contract_file(paths.hyperparameters), paths.hyperparameters.string());
  const SageMakerRole role = sagemaker_role(rc, hyper, paths.resource_config.string(), paths.hyperparameters.string());
  const std::string job_name = required_env("TRAINING_JOB_NAME", "SageMaker");
  const std::string hyper_file = paths.hyperparameters.string();
  auto hyper_of = [&](const char* key) {
    const auto it = hyper.find(key);
    if (it == hyper.end()) throw InputError(hyper_file, std::string("/") + key, "missing (a job `pperf launch` wrote has it)");
    return it->second;
  };
  NodeRun node;
  node.tag = "pperf sagemaker-entry";
  node.trainer = role.trainer;
  node.job_name = job_name;
  const auto port = positive_integer(hyper_of(sagemaker_keys::kDataPort));
  const auto wait_s = positive_integer(hyper_of(sagemaker_keys::kDataWaitS));
  if (!port || *port > 65535) throw InputError(hyper_file, std::string("/") + sagemaker_keys::kDataPort, "not a port");
  if (!wait_s) throw InputError(hyper_file, std::string("/") + sagemaker_keys::kDataWaitS, "not a number of seconds");
  node.port = *port;
  node.wait_s = *wait_s;
  node.config_ref = hyper_of(sagemaker_keys::kConfig);
  node.workload = hyper_of(sagemaker_keys::kWorkload);
  node.config_source = hyper_file + ": /" + sagemaker_keys::kConfigSha256;
  if (role.trainer) {
    node.config_sha256 = hyper_of(sagemaker_keys::kConfigSha256);
    node.configurations = hyper_of(sagemaker_keys::kConfigurations);
  }
  node.data_hosts = role.data_hosts;
  node.all_data_hosts = role.all_data_hosts;
  node.data_workers = role.data_workers;
  node.token = env_or(kDataTokenVariable);
  if (const auto channel = hyper.find(sagemaker_keys::kTokenChannel); channel != hyper.end() && !channel->second.empty()) {
    const fs::path file = paths.root / "input/data" / channel->second / "token";
    if (!fs::is_regular_file(file)) throw InputError(file.string(), "", "missing (the job's input channel " + channel->second + " brings the data workers' token)");
    std::istringstream(read_text_file(file.string())) >> node.token;
  }
  if (const std::string channel = hyper_of(sagemaker_keys::kTlsChannel); !channel.empty()) {
    node.tls_dir = paths.root / "input/data" / channel;
    check_tls_dir(node.tls_dir, "the job's input channel " + channel);
  }
  Placement placement;
  placement.platform = "sagemaker";
  placement.job_name = job_name;
  placement.job_id = env_or("TRAINING_JOB_ARN", job_name);
  placement.instance_type = rc.current_instance_type;
  placement.group = rc.current_group;
  placement.host_id = rc.current_host;
  node.placement = placement_environment(placement);
  node.results_file = paths.model / "results.json";
  node.report_dir = paths.output_data;
  node.checkpoints_dir = paths.checkpoints;
  node.view = {{"host", rc.current_host}, {"group", rc.current_group}, {"hosts", rc.hosts}, {"group_hosts", rc.group_hosts}};
  std::cerr << fmt::format("{}: job {}, host {} of group {} ({}): {}\n", node.tag, job_name, rc.current_host,
                           rc.current_group.empty() ? "(one group)" : rc.current_group, rc.current_instance_type,
                           role.trainer ? "the trainer" : "a data worker");
  return node;
}

// ---- SkyPilot and Kubernetes ----

NodeRun entry_node(const NodeEntryArgs& a) {
  const std::string& platform = a.platform;
  const std::string& group = a.group;
  const bool peers = !a.peers_dir.empty();
  NodeRun node;
  node.tag = "pperf node-entry";
  node.job_name = a.job;
  node.trainer = a.trainer();
  node.config_ref = a.config;
  node.config_sha256 = a.config_sha256;
  node.config_source = std::string("--") + node_flags::kConfigSha256;
  node.workload = a.workload;
  node.port = a.data_port;
  node.wait_s = a.data_wait_s;
  node.data_workers = a.workers;
  node.max_runtime_s = a.max_runtime_s;
  node.token = env_or(kDataTokenVariable);
  if (!a.tls_dir.empty()) {
    node.tls_dir = a.tls_dir;
    check_tls_dir(node.tls_dir, "the job");
  }
  node.price_table = a.price_table;
  node.spot = a.spot;
  node.peers_dir = a.peers_dir;
  if (node.trainer) {
    node.configurations = a.configurations;
    const std::string job_group = platform == kNodeSkyPilot && !peers && !a.data.empty()
                                      ? required_env("SKYPILOT_JOBGROUP_NAME", "SkyPilot's job group") : "";
    std::map<std::string, int64_t> group_sizes;
    for (const auto& use : a.data) {
      for (int64_t i = 0; i < use.count; ++i)
        node.data_hosts[use.configuration].push_back(data_host_name(platform, use.group, i, peers, job_group));
      group_sizes[use.group] = std::max(group_sizes[use.group], use.count);
    }
    for (const auto& [data_group, count] : group_sizes)
      for (int64_t i = 0; i < count; ++i) node.all_data_hosts.push_back(data_host_name(platform, data_group, i, peers, job_group));
    const fs::path out = a.out_dir;
    node.results_file = out / "results.json";
    node.report_dir = out;
    node.checkpoints_dir = out / "checkpoints";
  }
  const HostIdentity host = platform == kNodeSkyPilot ? skypilot_host(node, group) : kubernetes_host(node);
  const std::string& host_id = host.host_id;
  node.view["group"] = group;
  node.view["host"] = host_id;
  Placement placement;
  placement.platform = platform;
  placement.job_name = node.job_name;
  placement.job_id = host.job_id;
  placement.instance_type = a.instance_type;
  placement.group = group;
  placement.host_id = host_id;
  if (!host.instance_id.empty()) placement.instance_id = host.instance_id;
  node.placement = placement_environment(placement);
  std::cerr << fmt::format("{}: {} job {}, host {} of group {} ({}): {}\n", node.tag, platform, node.job_name, host_id, group,
                           a.instance_type, node.trainer ? "the trainer" : "a data worker");
  return node;
}

}  // namespace pperf::node
