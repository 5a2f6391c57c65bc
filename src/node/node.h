#pragma once
// A launched job's host at work (`pperf sagemaker-entry`, `pperf node-entry`): what the host is,
// settled from its platform's contract (platforms.h), then done: a data host serves batches
// until the trainer stops it; the trainer waits for every data host, measures with --native,
// writes the results and report, and stops the data hosts so the job ends.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace pperf::node {

/// What one host of a launched job does, settled from its platform's contract.
struct NodeRun {
  std::string tag;  // the log lines' prefix, e.g. "pperf node-entry"
  bool trainer = false;
  std::string job_name;
  std::string config_ref, config_sha256, configurations, workload;
  std::string config_source;  // where the SHA-256 came from (a refusal names it)
  /// Trainer: per configuration streamed from data hosts, those hosts; and every data host.
  std::map<std::string, std::vector<std::string>> data_hosts;
  std::vector<std::string> all_data_hosts;
  int64_t data_workers = 1, port = 0, wait_s = 600;
  std::optional<int64_t> max_runtime_s;  // the child is stopped past it (a job must not outbill its bound)
  std::string token;
  std::filesystem::path tls_dir;  // "" = plaintext; else kTlsCertFile, kTlsKeyFile (kTlsCaFile) there
  /// "" = the data hosts by the names the platform resolves; else the directory (in the job's
  /// mounted bucket) where each data host publishes its address as a file named by its host key
  /// and the trainer its start as kTrainerPeer (SkyPilot off Kubernetes: no in-group names).
  std::filesystem::path peers_dir;
  std::string peer_key;     // data, with peers_dir: this host's file there
  std::string price_table;  // trainer: "" = the config's; else priced from it, each ml. type as its EC2 type
  bool spot = false;        // trainer: the job runs on Spot: its configurations priced as Spot
  std::string listen_host = "0.0.0.0";                         // data: the address it serves on
  std::vector<std::pair<std::string, std::string>> placement;  // PPERF_* read by `pperf run` (placement_environment)
  std::filesystem::path results_file, report_dir, checkpoints_dir;
  nlohmann::json view;  // what this host made of the contract (logged, never the token)
};

/// Does what `node` says; its exit code (kExitOk), std::exception on failure, InputError on a
/// contract the host cannot follow.
int run_node(NodeRun node);

/// Runs `body` with the platform's stop signals caught; a refusal is exit 2, a failure exit 3,
/// each also written to `failure_file` when there is one (SageMaker shows its first line); stopped
/// by a signal, exit kExitSignalBase + the signal whatever `body` made of it (the training
/// operator's `restartPolicy: ExitCode` restarts a pod only for exit codes of 128 and more).
int as_entry_point(const std::string& tag, const std::filesystem::path& failure_file, const std::function<int()>& body);

}  // namespace pperf::node
