// The contract between `pperf launch` and a launched job's hosts (src/core/node_contract.h):
// what one side writes, the other reads back equal.
#include <gtest/gtest.h>

#include <map>

#include "src/core/input_error.h"
#include "src/core/node_contract.h"

using namespace pperf;

namespace {

/// The arguments after the command, as `pperf node-entry` receives them.
NodeEntryArgs round_trip(const NodeEntryArgs& written) {
  const std::vector<std::string> argv = node_entry_argv(written);
  EXPECT_EQ(argv.at(0), kNodeEntryCommand);
  return parse_node_entry_args(std::vector<std::string>(argv.begin() + 1, argv.end()));
}

NodeEntryArgs trainer() {
  NodeEntryArgs a;
  a.platform = kNodeSkyPilot;
  a.job = "p4d-vs-hetero-p4d-24xlarge-t1";
  a.group = kTrainerGroup;
  a.instance_type = "p4d.24xlarge";
  a.config = "p4d_vs_hetero";
  a.config_sha256 = "0123abcd";
  a.workload = "resnet50";
  a.data_port = 6000;
  a.max_runtime_s = 1680;
  a.tls_dir = "/pperf-tls";
  a.peers_dir = "/pperf-output/j/peers";
  a.data_wait_s = 30;
  a.configurations = "homogeneous,heterogeneous";
  a.out_dir = "/pperf-output/j";
  a.data = {{"heterogeneous", "data-c5-18xlarge", 2}, {"three", "data-m5", 3}};
  a.price_table = "aws-ec2-us-east-1";
  a.spot = true;
  return a;
}

std::string refusal(const std::vector<std::string>& args) {
  try {
    parse_node_entry_args(args);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST(NodeContract, TrainerArgumentsReadBackAsWritten) {
  EXPECT_EQ(round_trip(trainer()), trainer());
  NodeEntryArgs plain = trainer();  // no optional flag at all
  plain.workload = plain.tls_dir = plain.peers_dir = plain.price_table = "";
  plain.spot = false;
  plain.data.clear();
  EXPECT_EQ(round_trip(plain), plain);
  // A field that reaches the argv but not the reader (or the reverse) breaks equality.
  NodeEntryArgs other = trainer();
  other.data[1].count = 4;
  EXPECT_FALSE(round_trip(other) == trainer());
}

TEST(NodeContract, DataHostArgumentsReadBackAsWritten) {
  NodeEntryArgs d = trainer();
  d.platform = kNodeKubernetes;
  d.group = "job-data";
  d.configurations = d.out_dir = d.price_table = "";
  d.data.clear();
  d.spot = false;
  d.workers = 72;
  EXPECT_EQ(round_trip(d), d);  // with a peers directory: its wait for the trainer travels
  d.peers_dir = "";
  d.data_wait_s = NodeEntryArgs{}.data_wait_s;  // without one a data host does not wait
  EXPECT_EQ(round_trip(d), d);
}

TEST(NodeContract, RefusalsNameTheFlag) {
  std::vector<std::string> args = node_entry_argv(trainer());
  args.erase(args.begin());
  auto without = [&](const std::string& flag) {
    std::vector<std::string> out;
    for (size_t i = 0; i < args.size(); ++i)
      if (args[i] == flag) ++i;
      else out.push_back(args[i]);
    return out;
  };
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> out = args;
    out.insert(out.end(), extra.begin(), extra.end());
    return out;
  };
  EXPECT_EQ(refusal(without("--platform")), "--platform: missing (`pperf launch` writes it)");
  EXPECT_EQ(refusal(without("--out")), "--configurations: the trainer needs --configurations and --out");
  EXPECT_EQ(refusal(with({"--data", "x=y"})), "--data: 'x=y': expected CONFIGURATION=GROUP:COUNT");
  std::vector<std::string> market = without("--market");
  market.insert(market.end(), {"--market", "ondemand"});
  EXPECT_EQ(refusal(market), "--market: 'ondemand': expected spot");
  EXPECT_EQ(refusal(with({"--job", "again"})), "--job: given more than once");
  EXPECT_EQ(refusal(with({"--worker", "3"})), "--worker: not a flag of pperf node-entry (did you mean 'workers'?)");
  EXPECT_EQ(refusal(with({"--workers"})), "--workers: needs a value");
  EXPECT_EQ(refusal(with({"--workers=x"})), "--workers: 'x' is not a whole number");
  std::vector<std::string> port = without("--data-port");
  port.insert(port.end(), {"--data-port", "70000"});
  EXPECT_EQ(refusal(port), "--data-port: must be in [1, 65535]");
  std::vector<std::string> platform = without("--platform");
  platform.insert(platform.end(), {"--platform", "sagemaker"});
  EXPECT_EQ(refusal(platform), "--platform: 'sagemaker': expected skypilot or kubernetes");
}

TEST(NodeContract, DataHostNamesAsEachPlatformResolvesThem) {
  EXPECT_EQ(data_host_name(kNodeSkyPilot, "data-c5", 1, true, "ignored"), data_peer_key("data-c5", 1));
  EXPECT_EQ(data_peer_key("data-c5", 1), "data-c5-1");
  EXPECT_EQ(data_host_name(kNodeSkyPilot, "data-c5", 0, false, "grp"), "data-c5-0.grp");
  EXPECT_EQ(data_host_name(kNodeKubernetes, "j-data", 2, false, ""), "j-data-2.j-data");
}

TEST(NodeContract, PlacementReadBackAsWritten) {
  Placement p;
  p.platform = "kubernetes";
  p.job_name = "j";
  p.job_id = "uid-1";
  p.instance_type = "c5.9xlarge";
  p.instance_id = "node-7";
  p.group = "trainer";
  p.host_id = "j-master-0";
  p.host_fingerprint = "00ff";
  const auto env = placement_environment(p);
  const std::map<std::string, std::string> vars(env.begin(), env.end());
  const auto lookup = [&](const std::string& name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    return it == vars.end() || it->second.empty() ? std::nullopt : std::optional<std::string>(it->second);
  };
  const Placement back = placement_from_environment(lookup, "00ff");
  EXPECT_EQ(back.platform, p.platform);
  EXPECT_EQ(back.job_name, p.job_name);
  EXPECT_EQ(back.job_id, p.job_id);
  EXPECT_EQ(back.instance_type, p.instance_type);
  EXPECT_EQ(back.instance_id, p.instance_id);
  EXPECT_EQ(back.group, p.group);
  EXPECT_EQ(back.host_id, p.host_id);
  EXPECT_EQ(back.host_fingerprint, p.host_fingerprint);
  EXPECT_EQ(vars.size(), 7u);  // every variable the reader reads is written
  // Nothing set: a local run, told apart by its fingerprint.
  const Placement local = placement_from_environment([](const std::string&) { return std::nullopt; }, "00ff");
  EXPECT_EQ(local.platform, "local");
  EXPECT_EQ(local.host_id, "00ff");
  EXPECT_FALSE(local.group);
}
