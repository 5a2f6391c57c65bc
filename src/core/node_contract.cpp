#include "src/core/node_contract.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "src/core/input_error.h"
#include "src/core/text_values.h"

namespace pperf {

namespace flags = node_flags;
namespace vars = placement_variables;

const std::vector<NodeEntryFlag>& node_entry_flags() {
  static const std::vector<NodeEntryFlag> kFlags = {
      {flags::kPlatform, "skypilot or kubernetes: whose variables say the rank and ids"},
      {flags::kJob, "the job's name on the platform"},
      {flags::kGroup, "trainer, or the data group this host serves in"},
      {flags::kInstanceType, "the instance type the platform placed this host on"},
      {flags::kConfig, "the config (a shipped name or a file in the job's directory)"},
      {flags::kConfigSha256, "the SHA-256 of the file `pperf launch` read"},
      {flags::kConfigurations, "trainer: the configurations measured in turns"},
      {flags::kWorkload, "the one workload the data hosts serve", ""},
      {flags::kData, "trainer: CONFIGURATION=GROUP:COUNT, per configuration with data hosts"},
      {flags::kDataPort, "the data workers' port", "50051"},
      {flags::kDataWaitS, "trainer: how long a data host may take to come up", "600"},
      {flags::kWorkers, "data: preprocessing threads", "1"},
      {flags::kMaxRuntimeS, "the job's bound: this host's work is stopped past it"},
      {flags::kOut, "trainer: the directory of results.json, the report and checkpoints/"},
      {flags::kTlsDir, "the data workers' TLS files (cert.pem, key.pem, ca.pem): serve and dial over TLS"},
      {flags::kPeers, "a directory the job's hosts share: data hosts publish their addresses there, the trainer its start"},
      {flags::kPriceTable, "trainer: price the results from this table, each ml. type as the EC2 instance it ran on"},
      {flags::kMarket, "trainer: spot when the job runs on Spot (its configurations priced as Spot)"},
  };
  return kFlags;
}

bool operator==(const NodeDataUse& a, const NodeDataUse& b) {
  return a.configuration == b.configuration && a.group == b.group && a.count == b.count;
}

bool operator==(const NodeEntryArgs& a, const NodeEntryArgs& b) {
  return a.platform == b.platform && a.job == b.job && a.group == b.group && a.instance_type == b.instance_type &&
         a.config == b.config && a.config_sha256 == b.config_sha256 && a.workload == b.workload && a.data_port == b.data_port &&
         a.max_runtime_s == b.max_runtime_s && a.tls_dir == b.tls_dir && a.peers_dir == b.peers_dir &&
         a.data_wait_s == b.data_wait_s && a.configurations == b.configurations && a.out_dir == b.out_dir && a.data == b.data &&
         a.price_table == b.price_table && a.spot == b.spot && a.workers == b.workers;
}

std::vector<std::string> node_entry_argv(const NodeEntryArgs& n) {
  const auto flag = [](const char* name) { return std::string("--") + name; };
  std::vector<std::string> a{kNodeEntryCommand,
                             flag(flags::kPlatform), n.platform,
                             flag(flags::kJob), n.job,
                             flag(flags::kGroup), n.group,
                             flag(flags::kInstanceType), n.instance_type,
                             flag(flags::kConfig), n.config,
                             flag(flags::kConfigSha256), n.config_sha256,
                             flag(flags::kDataPort), std::to_string(n.data_port),
                             flag(flags::kMaxRuntimeS), std::to_string(n.max_runtime_s)};
  if (!n.workload.empty()) a.insert(a.end(), {flag(flags::kWorkload), n.workload});
  if (!n.tls_dir.empty()) a.insert(a.end(), {flag(flags::kTlsDir), n.tls_dir});
  if (!n.peers_dir.empty()) a.insert(a.end(), {flag(flags::kPeers), n.peers_dir});
  if (n.trainer() && !n.price_table.empty()) a.insert(a.end(), {flag(flags::kPriceTable), n.price_table});
  if (n.trainer() && n.spot) a.insert(a.end(), {flag(flags::kMarket), "spot"});
  if (n.trainer()) {
    a.insert(a.end(), {flag(flags::kConfigurations), n.configurations, flag(flags::kDataWaitS), std::to_string(n.data_wait_s),
                       flag(flags::kOut), n.out_dir});
    for (const auto& use : n.data)
      a.insert(a.end(), {flag(flags::kData), use.configuration + "=" + use.group + ":" + std::to_string(use.count)});
  } else {
    a.insert(a.end(), {flag(flags::kWorkers), std::to_string(n.workers)});
    if (!n.peers_dir.empty()) a.insert(a.end(), {flag(flags::kDataWaitS), std::to_string(n.data_wait_s)});  // its wait for the trainer
  }
  return a;
}

namespace {

/// `--data CONF=GROUP:COUNT` -> (configuration, group, count).
NodeDataUse parse_data_use(const std::string& text) {
  const auto eq = text.find('='), colon = text.rfind(':');
  const auto count = colon == std::string::npos ? std::nullopt : positive_integer(text.substr(colon + 1));
  if (eq == std::string::npos || colon < eq || !count)
    throw InputError(std::string("--") + flags::kData, "", "'" + text + "': expected CONFIGURATION=GROUP:COUNT");
  return {text.substr(0, eq), text.substr(eq + 1, colon - eq - 1), *count};
}

int64_t whole_number(const std::string& name, const std::string& text) {
  size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size()) throw InputError("--" + name, "", "'" + text + "' is not a whole number");
  return value;
}

}  // namespace

NodeEntryArgs parse_node_entry_args(const std::vector<std::string>& args) {
  std::set<std::string> known;
  for (const auto& f : node_entry_flags()) known.insert(f.name);
  std::map<std::string, std::string> given;
  NodeEntryArgs n;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.rfind("--", 0) != 0) throw InputError("pperf node-entry", "", "'" + arg + "' is not a flag");
    std::string name = arg.substr(2), value;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    } else {
      if (i + 1 >= args.size()) throw InputError(arg, "", "needs a value");
      value = args[++i];
    }
    if (!known.count(name)) throw InputError(arg, "", "not a flag of pperf node-entry" + did_you_mean(name, {known.begin(), known.end()}));
    if (name == flags::kData) {
      n.data.push_back(parse_data_use(value));
      continue;
    }
    if (!given.emplace(name, value).second) throw InputError("--" + name, "", "given more than once");
  }
  const auto has = [&](const char* name) { return given.count(name) > 0; };
  const auto text = [&](const char* name) -> std::string {
    if (!has(name)) throw InputError(std::string("--") + name, "", "missing (`pperf launch` writes it)");
    return given.at(name);
  };
  const auto number = [&](const char* name, int64_t fallback) { return has(name) ? whole_number(name, given.at(name)) : fallback; };
  n.platform = text(flags::kPlatform);
  if (n.platform != kNodeSkyPilot && n.platform != kNodeKubernetes)
    throw InputError(std::string("--") + flags::kPlatform, "", "'" + n.platform + "': expected skypilot or kubernetes");
  n.job = text(flags::kJob);
  n.group = text(flags::kGroup);
  n.instance_type = text(flags::kInstanceType);
  n.config = text(flags::kConfig);
  n.config_sha256 = text(flags::kConfigSha256);
  n.max_runtime_s = whole_number(flags::kMaxRuntimeS, text(flags::kMaxRuntimeS));
  if (has(flags::kWorkload)) n.workload = given.at(flags::kWorkload);
  n.data_port = number(flags::kDataPort, n.data_port);
  if (n.data_port < 1 || n.data_port > 65535) throw InputError(std::string("--") + flags::kDataPort, "", "must be in [1, 65535]");
  n.data_wait_s = number(flags::kDataWaitS, n.data_wait_s);
  n.workers = std::max<int64_t>(1, number(flags::kWorkers, n.workers));
  if (has(flags::kTlsDir)) n.tls_dir = given.at(flags::kTlsDir);
  if (has(flags::kPeers)) n.peers_dir = given.at(flags::kPeers);
  if (has(flags::kPriceTable)) n.price_table = given.at(flags::kPriceTable);
  if (has(flags::kMarket)) {
    if (given.at(flags::kMarket) != "spot")
      throw InputError(std::string("--") + flags::kMarket, "", "'" + given.at(flags::kMarket) + "': expected spot");
    n.spot = true;
  }
  if (n.trainer()) {
    if (!has(flags::kConfigurations) || !has(flags::kOut))
      throw InputError(std::string("--") + flags::kConfigurations, "", "the trainer needs --configurations and --out");
    n.configurations = given.at(flags::kConfigurations);
    n.out_dir = given.at(flags::kOut);
  }
  return n;
}

std::string data_peer_key(const std::string& group, int64_t i) { return fmt::format("{}-{}", group, i); }

std::string data_host_name(const std::string& platform, const std::string& group, int64_t i, bool peers,
                           const std::string& skypilot_job_group) {
  if (peers) return data_peer_key(group, i);
  if (platform == kNodeSkyPilot) return fmt::format("{}-{}.{}", group, i, skypilot_job_group);
  return fmt::format("{}-{}.{}", group, i, group);
}

std::vector<std::pair<std::string, std::string>> placement_environment(const Placement& p) {
  std::vector<std::pair<std::string, std::string>> env = {
      {vars::kPlatform, p.platform},
      {vars::kJobName, p.job_name.value_or("")},
      {vars::kJobId, p.job_id.value_or("")},
      {vars::kInstanceType, p.instance_type.value_or("")},
      {vars::kHostGroup, p.group.value_or("")},
      {vars::kHostId, p.host_id}};
  if (p.instance_id && !p.instance_id->empty()) env.emplace_back(vars::kInstanceId, *p.instance_id);
  return env;
}

Placement placement_from_environment(const std::function<std::optional<std::string>(const std::string&)>& env,
                                     const std::string& host_fingerprint) {
  Placement p;
  p.platform = env(vars::kPlatform).value_or("local");
  p.job_name = env(vars::kJobName);
  p.job_id = env(vars::kJobId);
  p.instance_type = env(vars::kInstanceType);
  p.instance_id = env(vars::kInstanceId);
  p.group = env(vars::kHostGroup);
  p.host_fingerprint = host_fingerprint;
  p.host_id = env(vars::kHostId).value_or(p.host_fingerprint);
  return p;
}

}  // namespace pperf
