// pperf as a launched job's entry point on each of its hosts: `pperf sagemaker-entry` (SageMaker's
// container contract, src/launch/sagemaker.h) and `pperf node-entry` (a SkyPilot task's or a
// Kubernetes pod's command, written by `pperf launch skypilot|kubernetes`). Both settle what this
// host is from the platform's own files and variables, then run_node() does it: a data host serves
// batches until the trainer stops it; the trainer waits for every data host, measures with
// --native, writes the results and report, and stops the data hosts so the job ends.
#include <fmt/format.h>
#include <grpcpp/grpcpp.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <sstream>
#include <thread>

#include "src/cli/cli.h"
#include "src/core/crypto.h"
#include "src/core/input_error.h"
#include "src/core/process.h"
#include "src/dataservice/data_service.grpc.pb.h"
#include "src/dataservice/data_service.h"
#include "src/launch/plan.h"
#include "src/launch/sagemaker.h"

namespace pperf::cli {

namespace fs = std::filesystem;

namespace {

std::atomic<int> g_stop_signal{0};
void on_entry_stop_signal(int sig) { g_stop_signal = sig; }

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
  fs::path tls_dir;                     // "" = plaintext; else kTlsCertFile, kTlsKeyFile (kTlsCaFile) there
  /// "" = the data hosts by the names the platform resolves; else the directory (in the job's
  /// mounted bucket) where each data host publishes its address as a file named by its host key
  /// and the trainer its start as kTrainerPeer (SkyPilot off Kubernetes: no in-group names).
  fs::path peers_dir;
  std::string peer_key;  // data, with peers_dir: this host's file there
  std::string price_table;  // trainer: "" = the config's; else priced from it, each ml. type as its EC2 type
  bool spot = false;        // trainer: the job runs on Spot: its configurations priced as Spot
  std::string listen_host = "0.0.0.0";  // data: the address it serves on
  std::vector<std::pair<std::string, std::string>> placement;  // PPERF_* read by `pperf run`
  fs::path results_file, report_dir, checkpoints_dir;
  nlohmann::json view;  // what this host made of the contract (logged, never the token)
};

/// Where the job's host names reach: "NAME=ADDRESS,..." from PPERF_HOSTS (a one-host harness's
/// loopback addresses), else the names themselves (the platform's DNS or /etc/hosts).
std::map<std::string, std::string> host_addresses() {
  std::map<std::string, std::string> out;
  if (const char* v = std::getenv("PPERF_HOSTS"))
    for (const auto& pair : split_commas(v)) {
      if (pair.empty()) continue;
      const auto eq = pair.find('=');
      if (eq == std::string::npos) throw InputError("PPERF_HOSTS", "", "'" + pair + "' is not HOST=ADDRESS");
      out[pair.substr(0, eq)] = pair.substr(eq + 1);
    }
  return out;
}

std::string address_of(const std::map<std::string, std::string>& addresses, const std::string& host) {
  const auto it = addresses.find(host);
  return it == addresses.end() ? host : it->second;
}

std::string env_or(const char* name, const std::string& fallback = "") {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::string required_env(const char* name, const std::string& who) {
  const std::string v = env_or(name);
  if (v.empty()) throw InputError(name, "", "not set (" + who + " sets it in every job)");
  return v;
}

/// Whether `host:port` accepts a TCP connection now (resolving the name anew each time: a host's
/// name may not resolve yet when the job starts).
bool accepts_connections(const std::string& host, int64_t port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return false;
  bool ok = false;
  for (addrinfo* a = found; a && !ok; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    ok = ::connect(fd, a->ai_addr, a->ai_addrlen) == 0;
    ::close(fd);
  }
  ::freeaddrinfo(found);
  return ok;
}

int exit_code_of(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : kExitSignalBase + (WIFSIGNALED(status) ? WTERMSIG(status) : 0); }

/// Runs `argv` to its end, forwarding SIGTERM/SIGINT (the platform's stop) to it and stopping it
/// at `deadline`, or when `give_up` (asked every half second) gives a reason. Its exit code;
/// std::runtime_error when the deadline or `give_up` stopped it.
int run_child(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env,
              std::optional<std::chrono::steady_clock::time_point> deadline, int64_t bound_s,
              const std::function<std::string()>& give_up = {}) {
  SpawnOptions spawn;
  spawn.argv = argv;
  spawn.set_env = env;
  // The launcher's variables describe this host in the job (the training operator's RANK = 0 of a
  // one-pod world), not ranks for pperf to join: a launched job's ranks are pperf's own
  // ("spawn_local"), and `pperf run` would otherwise wait for a store at MASTER_ADDR.
  spawn.unset_env = {"RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"};
  // Its own process group: a stop sent to the entry point's group (SageMaker framework mode's
  // PID 1 passes it so) reaches the child once, from this process, not twice.
  spawn.own_process_group = true;
  ChildProcess child(spawn);
  bool forwarded = false, expired = false;
  std::string gave_up;
  for (;;) {
    if (const auto status = child.wait(0.5)) {
      if (expired) throw std::runtime_error(fmt::format("stopped at the job's bound of {} s (--max-runtime-s)", bound_s));
      if (!gave_up.empty()) throw std::runtime_error(gave_up);
      return exit_code_of(*status);
    }
    if (forwarded) continue;
    if (!g_stop_signal && give_up) gave_up = give_up();
    if (g_stop_signal || !gave_up.empty() || (deadline && std::chrono::steady_clock::now() > *deadline)) {
      expired = !g_stop_signal && gave_up.empty();
      child.signal(SIGTERM);
      forwarded = true;
    }
  }
}

/// What the trainer trusts: the TLS directory's CA, else its (self-signed) certificate; "" = plaintext.
fs::path trusted_ca(const fs::path& tls_dir) {
  if (tls_dir.empty()) return {};
  return fs::is_regular_file(tls_dir / kTlsCaFile) ? tls_dir / kTlsCaFile : tls_dir / kTlsCertFile;
}

/// The TLS directory's files, refused when one is missing (the job's TLS files did not arrive).
void check_tls_dir(const fs::path& tls_dir, const std::string& origin) {
  if (tls_dir.empty()) return;
  for (const char* f : {kTlsCertFile, kTlsKeyFile})
    if (!fs::is_regular_file(tls_dir / f)) throw InputError((tls_dir / f).string(), "", "missing (" + origin + " brings the TLS files)");
}

/// What `host` published in `peers_dir` (its address), "" while it has not.
std::string published_address(const fs::path& peers_dir, const std::string& host) {
  std::error_code ec;
  if (!fs::is_regular_file(peers_dir / host, ec)) return "";
  std::string text = read_text_file((peers_dir / host).string());
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

/// Writes `address` as `key` in `peers_dir` (whole: written beside, then renamed).
void publish(const std::string& tag, const fs::path& peers_dir, const std::string& key, const std::string& address) {
  fs::create_directories(peers_dir);
  write_file_atomically((peers_dir / key).string(), address + "\n");
  std::cerr << fmt::format("{}: published {} as {}\n", tag, address, (peers_dir / key).string());
}

/// Asks each data worker to stop (the Shutdown RPC with the job's token), so the job ends.
void stop_data_hosts(const std::string& tag, const std::vector<std::string>& endpoints, const std::string& token, const fs::path& ca) {
  const std::string ca_pem = ca.empty() ? "" : read_text_file(ca.string());
  for (const auto& endpoint : endpoints) {
    auto stub = dataservice::DataService::NewStub(open_data_channel(endpoint, ca_pem));
    dataservice::ShutdownRequest request;
    request.set_token(token);
    dataservice::ShutdownReply reply;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    const grpc::Status status = stub->Shutdown(&context, request, &reply);
    std::cerr << fmt::format("{}: data worker {}: {}\n", tag, endpoint,
                             status.ok() ? "stopped" : "did not answer Shutdown (" + status.error_message() + ")");
  }
}

/// The config the job runs: the launched file (same SHA-256), with each configuration's data
/// endpoints the job's data hosts instead of the emulation's spawned workers; written beside the
/// original (its relative paths stay right). Returns its path.
std::string trainer_config(const NodeRun& node, const std::function<std::string(const std::string&)>& address_of_host) {
  const std::string path = find_config(node.config_ref);
  if (sha256_hex(read_text_file(path)) != node.config_sha256)
    throw InputError(node.config_source, "", path + " is not the config `pperf launch` read (its SHA-256 differs)");
  nlohmann::json doc = read_json_file(path);
  if (!node.price_table.empty()) {
    // A SageMaker-priced config on EC2 instances: EC2's table, each ml. type as its EC2 type.
    doc["pricing"]["table"] = node.price_table;
    for (auto& c : doc["configurations"])
      for (auto& g : c["instances"]) g["type"] = cloud_instance_type(g.value("type", ""));
  }
  for (auto& c : doc["configurations"]) {
    if (node.spot)
      for (auto& g : c["instances"]) g["market"] = "spot";
    const auto hosts = node.data_hosts.find(c.value("name", ""));
    if (hosts == node.data_hosts.end()) continue;
    auto& data = c["execution"]["data"];
    data.erase("spawn_local");
    data.erase("tls_ca");  // the emulation's; the job's own when it has TLS files
    if (!node.tls_dir.empty()) data["tls_ca"] = fs::absolute(trusted_ca(node.tls_dir)).string();
    data["endpoints"] = nlohmann::json::array();
    for (const auto& h : hosts->second) data["endpoints"].push_back(address_of_host(h) + ":" + std::to_string(node.port));
  }
  const fs::path derived = fs::path(path).parent_path() / ("." + fs::path(path).stem().string() + "." + node.job_name + ".json");
  write_file_atomically(derived.string(), doc.dump(1) + "\n");
  return derived.string();
}

int run_node(NodeRun node) {
  const auto addresses = host_addresses();
  const auto started = std::chrono::steady_clock::now();
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (node.max_runtime_s) deadline = started + std::chrono::seconds(*node.max_runtime_s);
  const std::string self = self_executable();
  node.view["role"] = node.trainer ? "trainer" : "data";
  node.view["data_hosts"] = node.data_hosts;
  node.view["placement"] = nlohmann::json::object();
  for (const auto& [k, v] : node.placement) node.view["placement"][k] = v;
  std::cerr << node.tag << ": view " << node.view.dump() << "\n";
  if (!node.trainer) {
    if (node.token.empty()) throw InputError(kDataTokenVariable, "", "not set: the job carries the data workers' token");
    const std::string listen = node.listen_host + ":" + std::to_string(node.port);
    std::vector<std::string> argv{self, "data-worker", "--native", "--config", node.config_ref, "--listen", listen,
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
      const auto wait_until = started + std::chrono::seconds(node.wait_s);
      no_trainer = [&node, wait_until]() -> std::string {
        if (std::chrono::steady_clock::now() < wait_until || !published_address(node.peers_dir, kTrainerPeer).empty()) return "";
        return fmt::format("no trainer published its start in {} within {} s (--data-wait-s): this data host stops", node.peers_dir.string(), node.wait_s);
      };
    }
    const int code = run_child(argv, node.placement, deadline, node.max_runtime_s.value_or(0), no_trainer);
    if (code != 0) throw std::runtime_error(fmt::format("the data worker exited with code {}", code));
    return kExitOk;
  }

  // Where each data host is reached: its name (the platform resolves it), or the address it published.
  std::map<std::string, std::string> reached;
  const auto address_of_host = [&](const std::string& h) {
    const auto it = reached.find(h);
    return it != reached.end() ? it->second : address_of(addresses, h);
  };
  const auto endpoints = [&] {
    std::vector<std::string> out;
    for (const auto& h : node.all_data_hosts)
      if (node.peers_dir.empty() || reached.count(h)) out.push_back(address_of_host(h) + ":" + std::to_string(node.port));
    return out;
  };
  try {
    if (!node.peers_dir.empty()) publish(node.tag, node.peers_dir, kTrainerPeer, node.listen_host);
    // Every data host up before measuring: a host that never comes up fails the job now (a hung job bills).
    const auto wait_until = std::chrono::steady_clock::now() + std::chrono::seconds(node.wait_s);
    for (const auto& h : node.all_data_hosts) {
      for (;;) {
        const std::string address = node.peers_dir.empty() ? address_of(addresses, h) : published_address(node.peers_dir, h);
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
        if (g_stop_signal) throw std::runtime_error("stopped (signal) while waiting for the data hosts");
        std::this_thread::sleep_for(std::chrono::seconds(1));
      }
      std::cerr << fmt::format("{}: data host {} is up at {}\n", node.tag, h, reached[h]);
    }
    const fs::path in_progress = node.checkpoints_dir / "results.json";
    const fs::path done = node.checkpoints_dir / "results.done";
    const std::string marker = node.config_sha256 + " " + node.configurations + "\n";
    int run_code = kExitOk;
    // A Spot restart: the checkpoints are back; a finished run is not measured again.
    if (fs::is_regular_file(done) && fs::is_regular_file(in_progress) && read_text_file(done.string()) == marker) {
      std::cerr << node.tag << ": the results in " << in_progress.string() << " are complete (restored checkpoint); not measured again\n";
    } else {
      const std::string derived = trainer_config(node, address_of_host);
      std::vector<std::string> argv{self, "run", "--native", "--config", derived, "--only", node.configurations, "--out",
                                    in_progress.string(), "--markdown", (node.report_dir / "report.md").string(),
                                    "--html", (node.report_dir / "report.html").string()};
      if (!node.workload.empty()) argv.insert(argv.end(), {"--workload", node.workload});
      fs::create_directories(node.checkpoints_dir);
      fs::create_directories(node.report_dir);
      run_code = run_child(argv, node.placement, deadline, node.max_runtime_s.value_or(0));
      if (g_stop_signal) throw std::runtime_error(fmt::format("stopped by signal {} while measuring", g_stop_signal.load()));
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
    if (!g_stop_signal) stop_data_hosts(node.tag, endpoints(), node.token, trusted_ca(node.tls_dir));
    throw;
  }
}

/// Runs `body` with the platform's stop signals caught; a refusal is exit 2, a failure exit 3,
/// each also written to `failure_file` when there is one (SageMaker shows its first line); stopped
/// by a signal, exit kExitSignalBase + the signal whatever `body` made of it (the training
/// operator's `restartPolicy: ExitCode` restarts a pod only for exit codes of 128 and more).
int as_entry_point(const std::string& tag, const fs::path& failure_file, const std::function<int()>& body) {
  std::signal(SIGTERM, on_entry_stop_signal);
  std::signal(SIGINT, on_entry_stop_signal);
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
  const auto stopped = [&](int code) { return g_stop_signal ? fail(fmt::format("stopped by signal {}", g_stop_signal.load()), kExitSignalBase + g_stop_signal) : code; };
  try {
    return stopped(body());
  } catch (const InputError& e) {
    return g_stop_signal ? stopped(0) : fail(e.what(), kExitBadInput);
  } catch (const std::exception& e) {
    return g_stop_signal ? (std::cerr << tag << ": " << e.what() << "\n", stopped(0)) : fail(e.what(), kExitRuntime);
  }
}

// ---- SageMaker ----

struct SageMakerPaths {
  fs::path root, resource_config, hyperparameters, model, output_data, failure, checkpoints;
};

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

std::string read_contract_file(const fs::path& path) {
  if (!fs::is_regular_file(path)) throw InputError(path.string(), "", "missing (SageMaker's container contract writes it)");
  return read_text_file(path.string());
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
    ::setenv(kDataTokenVariable, node.token.c_str(), 1);  // as the environment would give it: the data worker and `pperf run` read it there
  }
  if (const std::string channel = hyper_of(sagemaker_keys::kTlsChannel); !channel.empty()) {
    node.tls_dir = paths.root / "input/data" / channel;
    check_tls_dir(node.tls_dir, "the job's input channel " + channel);
  }
  // Every interface of the host, or the harness's loopback address for it.
  if (const auto addresses = host_addresses(); addresses.count(rc.current_host)) node.listen_host = addresses.at(rc.current_host);
  node.placement = {{"PPERF_PLATFORM", "sagemaker"},
                    {"PPERF_JOB_NAME", job_name},
                    {"PPERF_JOB_ID", env_or("TRAINING_JOB_ARN", job_name)},
                    {"PPERF_INSTANCE_TYPE", rc.current_instance_type},
                    {"PPERF_HOST_GROUP", rc.current_group},
                    {"PPERF_HOST_ID", rc.current_host}};
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

/// `--data CONF=GROUP:COUNT` -> (configuration, group, count).
std::tuple<std::string, std::string, int64_t> parse_data_use(const std::string& text) {
  const auto eq = text.find('='), colon = text.rfind(':');
  const auto count = colon == std::string::npos ? std::nullopt : positive_integer(text.substr(colon + 1));
  if (eq == std::string::npos || colon < eq || !count) throw InputError("--data", "", "'" + text + "': expected CONFIGURATION=GROUP:COUNT");
  return {text.substr(0, eq), text.substr(eq + 1, colon - eq - 1), *count};
}

/// The i-th host of data group `group`: with `peers` (SkyPilot off Kubernetes) its key `TASK-I`
/// in the peers directory; else by the platform's naming: a SkyPilot job group's `TASK-I.GROUP`
/// (SkyPilot's /etc/hosts, on Kubernetes only), an Indexed Job's `JOB-I.SERVICE` (cluster DNS).
std::string data_host_name(const std::string& platform, const std::string& group, int64_t i, bool peers) {
  if (peers) return fmt::format("{}-{}", group, i);
  if (platform == "skypilot") return fmt::format("{}-{}.{}", group, i, required_env("SKYPILOT_JOBGROUP_NAME", "SkyPilot's job group"));
  return fmt::format("{}-{}.{}", group, i, group);
}

int64_t rank_variable(const char* name, const std::string& who) {
  const std::string v = required_env(name, who);
  if (v == "0") return 0;
  const auto n = positive_integer(v);
  if (!n) throw InputError(name, "", "'" + v + "' is not a rank");
  return *n;
}

int node_entry(const std::vector<std::string>& args) {
  po::options_description options("pperf node-entry options (a SkyPilot task's or Kubernetes pod's command; docs/launch.md)");
  options.add_options()("help,h", "show this help")(
      "platform", po::value<std::string>()->required(), "skypilot or kubernetes: whose variables say the rank and ids")(
      "job", po::value<std::string>()->required(), "the job's name on the platform")(
      "group", po::value<std::string>()->required(), "trainer, or the data group this host serves in")(
      "instance-type", po::value<std::string>()->required(), "the instance type the platform placed this host on")(
      "config", po::value<std::string>()->required(), "the config (a shipped name or a file in the job's directory)")(
      "config-sha256", po::value<std::string>()->required(), "the SHA-256 of the file `pperf launch` read")(
      "configurations", po::value<std::string>(), "trainer: the configurations measured in turns")(
      "workload", po::value<std::string>()->default_value(""), "the one workload the data hosts serve")(
      "data", po::value<std::vector<std::string>>()->composing(), "trainer: CONFIGURATION=GROUP:COUNT, per configuration with data hosts")(
      "data-port", po::value<int64_t>()->default_value(50051), "the data workers' port")(
      "data-wait-s", po::value<int64_t>()->default_value(600), "trainer: how long a data host may take to come up")(
      "workers", po::value<int64_t>()->default_value(1), "data: preprocessing threads")(
      "max-runtime-s", po::value<int64_t>()->required(), "the job's bound: this host's work is stopped past it")(
      "out", po::value<std::string>(), "trainer: the directory of results.json, the report and checkpoints/")(
      "tls-dir", po::value<std::string>(), "the data workers' TLS files (cert.pem, key.pem, ca.pem): serve and dial over TLS")(
      "peers", po::value<std::string>(), "a directory the job's hosts share: data hosts publish their addresses there, the trainer its start")(
      "price-table", po::value<std::string>(), "trainer: price the results from this table, each ml. type as the EC2 instance it ran on")(
      "market", po::value<std::string>(), "trainer: spot when the job runs on Spot (its configurations priced as Spot)");
  Parsed p = parse("node-entry", options, args);
  if (p.help) return std::cout << options, kExitOk;
  const std::string platform = p.string("platform");
  if (platform != "skypilot" && platform != "kubernetes")
    throw InputError("--platform", "", "'" + platform + "': expected skypilot or kubernetes");
  NodeRun node;
  node.tag = "pperf node-entry";
  node.job_name = p.string("job");
  const std::string group = p.string("group");
  node.trainer = group == "trainer";
  node.config_ref = p.string("config");
  node.config_sha256 = p.string("config-sha256");
  node.config_source = "--config-sha256";
  node.workload = p.string("workload");
  node.port = p.vars["data-port"].as<int64_t>();
  if (node.port < 1 || node.port > 65535) throw InputError("--data-port", "", "must be in [1, 65535]");
  node.wait_s = p.vars["data-wait-s"].as<int64_t>();
  node.data_workers = std::max<int64_t>(1, p.vars["workers"].as<int64_t>());
  node.max_runtime_s = p.vars["max-runtime-s"].as<int64_t>();
  node.token = env_or(kDataTokenVariable);
  if (p.has("tls-dir")) {
    node.tls_dir = p.string("tls-dir");
    check_tls_dir(node.tls_dir, "the job");
  }
  const bool peers = p.has("peers");
  if (p.has("price-table")) node.price_table = p.string("price-table");
  if (p.has("market")) {
    if (p.string("market") != "spot") throw InputError("--market", "", "'" + p.string("market") + "': expected spot");
    node.spot = true;
  }
  if (peers) node.peers_dir = p.string("peers");
  if (node.trainer) {
    if (!p.has("configurations") || !p.has("out")) throw InputError("--configurations", "", "the trainer needs --configurations and --out");
    node.configurations = p.string("configurations");
    std::map<std::string, int64_t> group_sizes;
    if (p.has("data"))
      for (const auto& use : p.vars["data"].as<std::vector<std::string>>()) {
        const auto [configuration, data_group, count] = parse_data_use(use);
        for (int64_t i = 0; i < count; ++i) node.data_hosts[configuration].push_back(data_host_name(platform, data_group, i, peers));
        group_sizes[data_group] = std::max(group_sizes[data_group], count);
      }
    for (const auto& [data_group, count] : group_sizes)
      for (int64_t i = 0; i < count; ++i) node.all_data_hosts.push_back(data_host_name(platform, data_group, i, peers));
    const fs::path out = p.string("out");
    node.results_file = out / "results.json";
    node.report_dir = out;
    node.checkpoints_dir = out / "checkpoints";
  }
  std::string job_id, host_id, instance_id;
  if (platform == "skypilot") {
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
    node.peer_key = fmt::format("{}-{}", group, rank);
    job_id = env_or("SKYPILOT_TASK_ID", node.job_name);
    host_id = fmt::format("{}-{}", group, rank);
    node.view = {{"rank", rank}, {"node_ips", ips}, {"job_group", env_or("SKYPILOT_JOBGROUP_NAME")}};
  } else {
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
    job_id = env_or("POD_UID", node.job_name);
    instance_id = env_or("NODE_NAME");
    host_id = env_or("POD_NAME", env_or("HOSTNAME"));
  }
  node.view["group"] = group;
  node.view["host"] = host_id;
  node.placement = {{"PPERF_PLATFORM", platform},          {"PPERF_JOB_NAME", node.job_name},
                    {"PPERF_JOB_ID", job_id},              {"PPERF_INSTANCE_TYPE", p.string("instance-type")},
                    {"PPERF_HOST_GROUP", group},           {"PPERF_HOST_ID", host_id}};
  if (!instance_id.empty()) node.placement.emplace_back("PPERF_INSTANCE_ID", instance_id);
  std::cerr << fmt::format("{}: {} job {}, host {} of group {} ({}): {}\n", node.tag, platform, node.job_name, host_id, group,
                           p.string("instance-type"), node.trainer ? "the trainer" : "a data worker");
  return run_node(std::move(node));
}

}  // namespace

int command_sagemaker_entry(const std::vector<std::string>& args) {
  po::options_description options("pperf sagemaker-entry options (a SageMaker job's entry point; docs/launch.md)");
  options.add_options()("help,h", "show this help");
  // The SageMaker toolkit passes every hyperparameter as --KEY VALUE: read from hyperparameters.json instead.
  if (std::find(args.begin(), args.end(), "--help") != args.end() || std::find(args.begin(), args.end(), "-h") != args.end())
    return std::cout << options, kExitOk;
  const SageMakerPaths paths = sagemaker_paths();
  // What SageMaker shows as the job's FailureReason: the first line of /opt/ml/output/failure.
  return as_entry_point("pperf sagemaker-entry", paths.failure, [&] { return run_node(sagemaker_node(paths)); });
}

int command_node_entry(const std::vector<std::string>& args) {
  return as_entry_point("pperf node-entry", "", [&] { return node_entry(args); });
}

}  // namespace pperf::cli
