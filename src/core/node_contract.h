#pragma once
// The contract between `pperf launch` and a launched job's hosts, written and read in one place:
// `pperf node-entry`'s arguments (src/launch writes them into every SkyPilot task and Kubernetes
// pod; src/node reads them back), the names the trainer reaches its data hosts by, the files and
// variables a job carries (the data token, the TLS files, the trainer's peer file), and the
// PPERF_* placement variables a host hands `pperf run` (src/env/placement.h records them).
// tests/unit/test_node_contract.cpp round-trips each. Pure: no files, no environment.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/core/result.h"

namespace pperf {

/// The data workers' shared secret, in every platform's job environment (never on a command line).
inline constexpr const char* kDataTokenVariable = "PPERF_DATA_TOKEN";

/// The trainer's group (`--group`), and its file in a job's peers directory: data hosts that
/// find none within their wait stop.
inline constexpr const char* kTrainerGroup = "trainer";
inline constexpr const char* kTrainerPeer = "trainer";

/// The data workers' TLS files in a job's TLS directory (`--tls`): the data hosts serve with the
/// certificate and key; the trainer trusts kTlsCaFile when the directory has one, else the
/// certificate itself (self-signed).
inline constexpr const char* kTlsCertFile = "cert.pem";
inline constexpr const char* kTlsKeyFile = "key.pem";
inline constexpr const char* kTlsCaFile = "ca.pem";

/// The platforms whose hosts start with `pperf node-entry` (SageMaker's start with `pperf
/// sagemaker-entry`, its contract in src/launch/sagemaker.h).
inline constexpr const char* kNodeSkyPilot = "skypilot";
inline constexpr const char* kNodeKubernetes = "kubernetes";

/// The command and its flags (without "--").
inline constexpr const char* kNodeEntryCommand = "node-entry";
namespace node_flags {
inline constexpr const char* kPlatform = "platform";
inline constexpr const char* kJob = "job";
inline constexpr const char* kGroup = "group";
inline constexpr const char* kInstanceType = "instance-type";
inline constexpr const char* kConfig = "config";
inline constexpr const char* kConfigSha256 = "config-sha256";
inline constexpr const char* kConfigurations = "configurations";
inline constexpr const char* kWorkload = "workload";
inline constexpr const char* kData = "data";
inline constexpr const char* kDataPort = "data-port";
inline constexpr const char* kDataWaitS = "data-wait-s";
inline constexpr const char* kWorkers = "workers";
inline constexpr const char* kMaxRuntimeS = "max-runtime-s";
inline constexpr const char* kOut = "out";
inline constexpr const char* kTlsDir = "tls-dir";
inline constexpr const char* kPeers = "peers";
inline constexpr const char* kPriceTable = "price-table";
inline constexpr const char* kMarket = "market";
}  // namespace node_flags

/// One flag of `pperf node-entry`, for its help text.
struct NodeEntryFlag {
  const char* name;
  const char* help;
  const char* default_value = nullptr;  // as the help shows it; nullptr: none
};
/// Every flag, in the order the help lists them.
const std::vector<NodeEntryFlag>& node_entry_flags();

/// `--data CONFIGURATION=GROUP:COUNT`: a configuration streams from the first COUNT hosts of GROUP.
struct NodeDataUse {
  std::string configuration, group;
  int64_t count = 0;
};

/// What one host of a launched job is told on its command line (the platform's own variables
/// say the rest: rank, peers' addresses, ids). Fields a role does not use keep their defaults.
struct NodeEntryArgs {
  std::string platform;       // kNodeSkyPilot or kNodeKubernetes
  std::string job;            // the job's name on the platform
  std::string group;          // kTrainerGroup, or the data group's name on the platform
  std::string instance_type;  // as the platform launches it (e.g. without SageMaker's "ml.")
  std::string config;         // a shipped config's name or a file in the job's directory
  std::string config_sha256;  // of the file `pperf launch` read
  std::string workload;       // "" = the config's only one
  int64_t data_port = 50051;
  int64_t max_runtime_s = 0;  // the job's bound: the host's work is stopped past it
  std::string tls_dir;        // "" = plaintext; else where the job puts kTlsCertFile, kTlsKeyFile (and kTlsCaFile)
  /// "" = the data hosts by the names the platform resolves; else a directory every host of the
  /// job sees: each data host publishes its address there (data_peer_key), the trainer its start
  /// as kTrainerPeer.
  std::string peers_dir;
  /// Trainer, and a data host with peers_dir (its wait for the trainer): how long it waits.
  int64_t data_wait_s = 600;
  // The trainer's:
  std::string configurations;  // measured in turns, comma-separated (`pperf run --only`)
  std::string out_dir;         // results.json, report, checkpoints/
  std::vector<NodeDataUse> data;
  std::string price_table;     // "" = the config's table; else the results are priced from it (ml. types as EC2's)
  bool spot = false;           // the job runs on Spot: its configurations priced as Spot
  // A data host's:
  int64_t workers = 1;         // preprocessing threads

  bool trainer() const { return group == kTrainerGroup; }
};
bool operator==(const NodeDataUse& a, const NodeDataUse& b);
bool operator==(const NodeEntryArgs& a, const NodeEntryArgs& b);

/// `pperf node-entry ...` (argv after the binary, kNodeEntryCommand first) for `args`.
std::vector<std::string> node_entry_argv(const NodeEntryArgs& args);

/// The arguments after kNodeEntryCommand, as node_entry_argv writes them. InputError naming the
/// flag for an unknown or repeated flag, a missing value or required flag, a number out of range,
/// a platform other than SkyPilot's and Kubernetes', a trainer without --configurations or --out.
NodeEntryArgs parse_node_entry_args(const std::vector<std::string>& args);

/// A data host's key: `GROUP-I`, the I-th host of the data group (its file in the peers directory).
std::string data_peer_key(const std::string& group, int64_t i);

/// The name the trainer reaches the i-th host of data group `group` by: with a peers directory
/// its key there (data_peer_key); else the platform's naming: a SkyPilot job group's
/// `TASK-I.JOBGROUP` (SkyPilot's /etc/hosts, on Kubernetes only), an Indexed Job's
/// `JOB-I.SERVICE` (cluster DNS; pperf names the Job and its Service as the group).
std::string data_host_name(const std::string& platform, const std::string& group, int64_t i, bool peers,
                           const std::string& skypilot_job_group);

/// The PPERF_* placement variables: where `pperf run` measured (docs/results.md "placement").
namespace placement_variables {
inline constexpr const char* kPlatform = "PPERF_PLATFORM";
inline constexpr const char* kJobName = "PPERF_JOB_NAME";
inline constexpr const char* kJobId = "PPERF_JOB_ID";
inline constexpr const char* kInstanceType = "PPERF_INSTANCE_TYPE";
inline constexpr const char* kInstanceId = "PPERF_INSTANCE_ID";
inline constexpr const char* kHostGroup = "PPERF_HOST_GROUP";
inline constexpr const char* kHostId = "PPERF_HOST_ID";
}  // namespace placement_variables

/// The variables a launched host sets for `pperf run` from `placement` (its fingerprint is
/// the measuring machine's own): each of platform, job name and id, instance type, host group and
/// host id (an unset one as ""), then the instance id when there is one.
std::vector<std::pair<std::string, std::string>> placement_environment(const Placement& placement);

/// The placement `env` (a variable unset or empty: nullopt) gives a machine of `host_fingerprint`:
/// platform "local" and host id the fingerprint when they are not set.
Placement placement_from_environment(const std::function<std::optional<std::string>(const std::string&)>& env,
                                     const std::string& host_fingerprint);

}  // namespace pperf
