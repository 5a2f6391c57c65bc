#include "src/node/node.h"

#include <fmt/format.h>

#include <iostream>
#include <stdexcept>
#include <thread>

#include "src/config/config_override.h"
#include "src/config/config.h"
#include "src/core/atomic_file.h"
#include "src/core/crypto.h"
#include "src/core/exit_codes.h"
#include "src/core/input_error.h"
#include "src/core/json_view.h"
#include "src/core/node_contract.h"
#include "src/core/process.h"
#include "src/dataservice/data_service.h"
#include "src/launch/plan.h"
#include "src/node/peers.h"
#include "src/node/supervise.h"

namespace pperf::node {

namespace fs = std::filesystem;

namespace {

/// Asks each data worker to stop (the Shutdown RPC with the job's token), so the job ends.
void stop_data_hosts(const std::string& tag, const std::vector<std::string>& endpoints, const std::string& token, const fs::path& ca) {
  const std::string ca_pem = ca.empty() ? "" : read_text_file(ca.string());
  for (const auto& endpoint : endpoints) {
    const auto why = request_shutdown(endpoint, token, ca_pem, 10);
    std::cerr << fmt::format("{}: data worker {}: {}\n", tag, endpoint, !why ? "stopped" : "did not answer Shutdown (" + *why + ")");
  }
}

/// The config the job runs: the launched file (same SHA-256), with each configuration's data
/// endpoints the job's data hosts instead of the emulation's spawned workers; written beside the
/// original (its relative paths stay right). Returns its path.
std::string trainer_config(const NodeRun& node, const std::function<std::string(const std::string&)>& address_of_host) {
  const std::string path = find_config(node.config_ref);
  if (sha256_hex(read_text_file(path)) != node.config_sha256)
    throw InputError(node.config_source, "", path + " is not the config `pperf launch` read (its SHA-256 differs)");
  ConfigOverride o;
  o.price_table = node.price_table;
  o.instance_type = cloud_instance_type;
  o.spot = node.spot;
  for (const auto& [configuration, hosts] : node.data_hosts) {
    DataEndpointsOverride& data = o.data[configuration];
    if (!node.tls_dir.empty()) data.tls_ca = fs::absolute(trusted_ca(node.tls_dir)).string();
    for (const auto& h : hosts) data.endpoints.push_back(address_of_host(h) + ":" + std::to_string(node.port));
  }
  const nlohmann::json doc = apply_config_override(read_json_file(path), o);
  const fs::path derived = fs::path(path).parent_path() / ("." + fs::path(path).stem().string() + "." + node.job_name + ".json");
  write_file_atomically(derived.string(), doc.dump(1) + "\n");
  return derived.string();
}

/// A child's environment: the host's placement, and the data token however the platform brought
/// it (SageMaker: an input channel), where the data worker and `pperf run` read it.
std::vector<std::pair<std::string, std::string>> child_environment(const NodeRun& node) {
  auto env = node.placement;
  if (!node.token.empty()) env.emplace_back(kDataTokenVariable, node.token);
  return env;
}

/// The bound and the binary every child of a host shares.
struct Started {
  std::chrono::steady_clock::time_point at;
  std::optional<std::chrono::steady_clock::time_point> deadline;
  std::string self;
};

/// A data host: serves batches (`pperf data-worker --native`) until the trainer stops it, or,
/// with a peers directory, until no trainer has published its start within the wait.
int serve_data(const NodeRun& node, const Started& started) {
  if (node.token.empty()) throw InputError(kDataTokenVariable, "", "not set: the job carries the data workers' token");
  const std::string listen = node.listen_host + ":" + std::to_string(node.port);
  std::vector<std::string> argv{started.self, "data-worker", "--native", "--config", node.config_ref, "--listen", listen,
                                "--workers", std::to_string(node.data_workers)};
  if (node.tls_dir.empty())
    argv.push_back("--insecure");  // the job's own network; the token on every call
  else
    argv.insert(argv.end(), {"--tls-cert", (node.tls_dir / kTlsCertFile).string(), "--tls-key", (node.tls_dir / kTlsKeyFile).string()});
  if (!node.workload.empty()) argv.insert(argv.end(), {"--workload", node.workload});
  std::function<std::string()> no_trainer;
  if (!node.peers_dir.empty()) {
    publish(node.tag, node.peers_dir, node.peer_key, node.listen_host);
    // A data host whose trainer never starts (no capacity for it) stops within its wait: it
    // would bill for nothing until the job's bound.
    const auto wait_until = started.at + std::chrono::seconds(node.wait_s);
    no_trainer = [&node, wait_until]() -> std::string {
      if (std::chrono::steady_clock::now() < wait_until || !published_address(node.peers_dir, kTrainerPeer).empty()) return "";
      return fmt::format("no trainer published its start in {} within {} s (--data-wait-s): this data host stops", node.peers_dir.string(), node.wait_s);
    };
  }
  const int code = run_child(argv, child_environment(node), started.deadline, node.max_runtime_s.value_or(0), no_trainer);
  if (code != 0) throw std::runtime_error(fmt::format("the data worker exited with code {}", code));
  return kExitOk;
}

/// Waits until every data host accepts connections (at its name, or the address it published),
/// filling `reached`; a host that never comes up fails the job now (a hung job bills).
void wait_for_data_hosts(const NodeRun& node, std::map<std::string, std::string>& reached) {
  const auto wait_until = std::chrono::steady_clock::now() + std::chrono::seconds(node.wait_s);
  for (const auto& h : node.all_data_hosts) {
    for (;;) {
      const std::string address = node.peers_dir.empty() ? h : published_address(node.peers_dir, h);
      if (!address.empty() && accepts_connections(address, node.port)) {
        reached[h] = address;
        break;
      }
      if (std::chrono::steady_clock::now() > wait_until)
        throw std::runtime_error(address.empty() ? fmt::format("data host {} did not publish its address in {} within {} s", h,
                                                               node.peers_dir.string(), node.wait_s)
                             : node.peers_dir.empty() ? fmt::format("data host {} did not accept connections on port {} within {} s", h, node.port, node.wait_s)
                                                      : fmt::format("data host {} (at {}) did not accept connections on port {} within {} s", h,
                                                                    address, node.port, node.wait_s));
      if (stop_signal()) throw std::runtime_error("stopped (signal) while waiting for the data hosts");
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    std::cerr << fmt::format("{}: data host {} is up at {}\n", node.tag, h, reached[h]);
  }
}

/// The trainer: every data host up, then `pperf run --native` (unless a restored checkpoint
/// holds the finished results), the results and report written, the data hosts stopped.
int train(const NodeRun& node, const Started& started) {
  // Where each data host is reached: its name (the platform resolves it), or the address it published.
  std::map<std::string, std::string> reached;
  const auto address_of_host = [&](const std::string& h) {
    const auto it = reached.find(h);
    return it != reached.end() ? it->second : h;
  };
  const auto endpoints = [&] {
    std::vector<std::string> out;
    for (const auto& h : node.all_data_hosts)
      if (node.peers_dir.empty() || reached.count(h)) out.push_back(address_of_host(h) + ":" + std::to_string(node.port));
    return out;
  };
  try {
    if (!node.peers_dir.empty()) publish(node.tag, node.peers_dir, kTrainerPeer, node.listen_host);
    wait_for_data_hosts(node, reached);
    const fs::path in_progress = node.checkpoints_dir / "results.json";
    const fs::path done = node.checkpoints_dir / "results.done";
    const std::string marker = node.config_sha256 + " " + node.configurations + "\n";
    int run_code = kExitOk;
    // A Spot restart: the checkpoints are back; a finished run is not measured again.
    if (fs::is_regular_file(done) && fs::is_regular_file(in_progress) && read_text_file(done.string()) == marker) {
      std::cerr << node.tag << ": the results in " << in_progress.string() << " are complete (restored checkpoint); not measured again\n";
    } else {
      const std::string derived = trainer_config(node, address_of_host);
      std::vector<std::string> argv{started.self, "run", "--native", "--config", derived, "--only", node.configurations, "--out",
                                    in_progress.string(), "--markdown", (node.report_dir / "report.md").string(),
                                    "--html", (node.report_dir / "report.html").string()};
      if (!node.workload.empty()) argv.insert(argv.end(), {"--workload", node.workload});
      fs::create_directories(node.checkpoints_dir);
      fs::create_directories(node.report_dir);
      run_code = run_child(argv, child_environment(node), started.deadline, node.max_runtime_s.value_or(0));
      if (stop_signal()) throw std::runtime_error(fmt::format("stopped by signal {} while measuring", stop_signal()));
      if (run_code != kExitOk && run_code != kExitResultFailed) throw std::runtime_error(fmt::format("pperf run exited with code {}", run_code));
      write_file_atomically(done.string(), marker);
    }
    write_file_atomically(node.results_file.string(), read_text_file(in_progress.string()));
    stop_data_hosts(node.tag, endpoints(), node.token, trusted_ca(node.tls_dir));
    if (run_code == kExitResultFailed) throw std::runtime_error("a result failed (results.json says which)");
    return kExitOk;
  } catch (...) {
    // Stopped by the platform (a drained node, a reclaimed Spot instance): the trainer is started
    // again and the data hosts must still serve it; they end with the job's bound otherwise.
    if (!stop_signal()) stop_data_hosts(node.tag, endpoints(), node.token, trusted_ca(node.tls_dir));
    throw;
  }
}

}  // namespace

int run_node(NodeRun node) {
  Started started;
  started.at = std::chrono::steady_clock::now();
  if (node.max_runtime_s) started.deadline = started.at + std::chrono::seconds(*node.max_runtime_s);
  started.self = self_executable();
  node.view["role"] = node.trainer ? "trainer" : "data";
  node.view["data_hosts"] = node.data_hosts;
  node.view["placement"] = nlohmann::json::object();
  for (const auto& [k, v] : node.placement) node.view["placement"][k] = v;
  std::cerr << node.tag << ": view " << node.view.dump() << "\n";
  return node.trainer ? train(node, started) : serve_data(node, started);
}

int as_entry_point(const std::string& tag, const fs::path& failure_file, const std::function<int()>& body) {
  catch_stop_signals();
  auto fail = [&](const std::string& reason, int code) {
    std::cerr << tag << ": " << reason << "\n";
    if (failure_file.empty()) return code;
    try {
      write_file_atomically(failure_file.string(), reason + "\n");
    } catch (const std::exception& e) {
      std::cerr << tag << ": cannot write " << failure_file.string() << ": " << e.what() << "\n";
    }
    return code;
  };
  const auto stopped = [&](int code) { return stop_signal() ? fail(fmt::format("stopped by signal {}", stop_signal()), kExitSignalBase + stop_signal()) : code; };
  try {
    return stopped(body());
  } catch (const InputError& e) {
    return stop_signal() ? stopped(0) : fail(e.what(), kExitBadInput);
  } catch (const std::exception& e) {
    return stop_signal() ? (std::cerr << tag << ": " << e.what() << "\n", stopped(0)) : fail(e.what(), kExitRuntime);
  }
}

}  // namespace pperf::node
