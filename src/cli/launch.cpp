// `pperf launch sagemaker`: a config as CreateTrainingJob requests (src/launch/sagemaker.h), and
// `pperf sagemaker-entry`: pperf as such a job's entry point on every host of the job.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <grpcpp/grpcpp.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "src/cli/cli.h"
#include "src/core/crypto.h"
#include "src/core/input_error.h"
#include "src/core/json_view.h"
#include "src/core/process.h"
#include "src/core/utc_time.h"
#include "src/dataservice/data_service.grpc.pb.h"
#include "src/dataservice/data_service.h"
#include "src/launch/sagemaker.h"

namespace pperf::cli {

namespace fs = std::filesystem;

namespace {
constexpr const char* kLaunchUsage =
    "usage: pperf launch sagemaker --config C --role ARN --output s3://BUCKET/PREFIX\n"
    "                              (--image URI | --framework pytorch:VERSION --source s3://.../sourcedir.tar.gz)\n"
    "                              [--only A,B] [--workload W] [--spot] [--max-runtime-s N] [--max-wait-s N]\n"
    "                              [--job-suffix S] [--token-file F] --out DIR\n"
    "Writes one CreateTrainingJob request per job into DIR (docs/launch.md); start each with\n"
    "  aws sagemaker create-training-job --cli-input-json file://DIR/JOB.json\n";

std::string read_token_file(const std::string& path) {
  std::ifstream in(path);
  std::string token;
  if (!in || !std::getline(in, token) || token.empty()) throw InputError("--token-file", "", "cannot read a token from " + path);
  return token;
}

int launch_sagemaker(const std::vector<std::string>& args) {
  auto options = config_options("launch sagemaker");
  options.add_options()("only", po::value<std::string>(), "comma-separated configuration names (default: all)")(
      "workload", po::value<std::string>(), "the one workload the data instances serve (when the config has several)")(
      "role", po::value<std::string>()->required(), "the job's IAM execution role ARN")(
      "output", po::value<std::string>()->required(), "s3://BUCKET/PREFIX: the jobs' results (model.tar.gz), report, checkpoints")(
      "image", po::value<std::string>(), "a container image holding pperf (its entry point: pperf sagemaker-entry)")(
      "framework", po::value<std::string>(), "pytorch:VERSION: AWS's PyTorch training image of that torch, with --source")(
      "source", po::value<std::string>(), "s3://.../sourcedir.tar.gz: the GPU bundle (scripts/gpu-bundle.sh --torch VERSION), packed")(
      "spot", "managed Spot training for every job (a Spot configuration gets it anyway)")(
      "max-runtime-s", po::value<int64_t>(), "StoppingCondition.MaxRuntimeInSeconds (default: from the config's measure budget)")(
      "max-wait-s", po::value<int64_t>(), "Spot: MaxWaitTimeInSeconds, at least the runtime (default: 2 x the runtime)")(
      "job-suffix", po::value<std::string>(), "appended to each job's name (default: the UTC time, YYYYMMDDTHHMMSS)")(
      "token-file", po::value<std::string>(), "the data workers' token (default: a new random one)")(
      "data-port", po::value<int64_t>()->default_value(50051), "the data workers' port")(
      "out", po::value<std::string>()->required(), "directory the requests are written to");
  Parsed p = parse("launch sagemaker", options, args);
  if (p.help) return std::cout << kLaunchUsage << options, kExitOk;
  const Config config = load_config(p.string("config"), builtin_workloads(), true);
  SageMakerLaunchOptions o;
  if (p.has("only")) o.only = split_commas(p.string("only"));
  if (p.has("workload")) o.workload = p.string("workload");
  o.role_arn = p.string("role");
  o.output_s3 = p.string("output");
  if (p.has("image")) o.image = p.string("image");
  if (p.has("framework")) {
    const std::string f = p.string("framework");
    if (f.rfind("pytorch:", 0) != 0) throw InputError("--framework", "", "'" + f + "': expected pytorch:VERSION");
    o.framework_version = f.substr(8);
  }
  if (p.has("source")) o.source_s3 = p.string("source");
  o.spot = p.has("spot");
  if (p.has("max-runtime-s")) o.max_runtime_s = p.vars["max-runtime-s"].as<int64_t>();
  if (p.has("max-wait-s")) o.max_wait_s = p.vars["max-wait-s"].as<int64_t>();
  if (p.has("job-suffix")) {
    o.job_suffix = p.string("job-suffix");
  } else {
    std::string t = utc_timestamp();  // 2026-11-29T03:58:32Z
    t.erase(std::remove_if(t.begin(), t.end(), [](char c) { return c == '-' || c == ':' || c == 'Z'; }), t.end());
    o.job_suffix = t;
  }
  o.token = p.has("token-file") ? read_token_file(p.string("token-file")) : random_token_hex(32);
  o.data_port = p.vars["data-port"].as<int64_t>();
  if (o.data_port < 1 || o.data_port > 65535) throw InputError("--data-port", "", "must be in [1, 65535]");

  // Every refusal happens here, before anything is written.
  const std::vector<SageMakerJob> jobs = sagemaker_jobs(config, o);
  const fs::path out = p.string("out");
  // The requests carry the data workers' token: readable by this user only.
  const mode_t old_mask = ::umask(077);
  for (const auto& job : jobs) write_file_atomically((out / (job.name + ".json")).string(), job.request.dump(2) + "\n");
  ::umask(old_mask);
  for (const auto& job : jobs) {
    std::string groups;
    for (const auto& g : job.request["ResourceConfig"].value("InstanceGroups", nlohmann::json::array()))
      groups += fmt::format("{}{} x {} ({})", groups.empty() ? "" : ", ", g["InstanceCount"].get<int64_t>(),
                            g["InstanceType"].get<std::string>(), g["InstanceGroupName"].get<std::string>());
    if (groups.empty())
      groups = fmt::format("1 x {}", job.request["ResourceConfig"]["InstanceType"].get<std::string>());
    std::cout << fmt::format("{}: measures {} on {}{}; at most {} s\n", job.name,
                             job.configurations.size() == 1 ? job.configurations[0] : "in turns: " + fmt::format("{}", fmt::join(job.configurations, ", ")),
                             groups, job.request.value("EnableManagedSpotTraining", false) ? " (managed Spot)" : "",
                             job.request["StoppingCondition"]["MaxRuntimeInSeconds"].get<int64_t>());
    std::cout << fmt::format("  aws sagemaker create-training-job --cli-input-json file://{}\n",
                             (out / (job.name + ".json")).string());
  }
  return kExitOk;
}

// ---- The entry point ----

std::atomic<int> g_stop_signal{0};
void on_entry_stop_signal(int sig) { g_stop_signal = sig; }

/// Where the job's host names reach: "algo-1=127.0.0.2,..." from PPERF_SAGEMAKER_HOSTS (a
/// one-host harness's loopback addresses), else the names themselves (SageMaker's DNS).
std::map<std::string, std::string> host_addresses() {
  std::map<std::string, std::string> out;
  if (const char* v = std::getenv("PPERF_SAGEMAKER_HOSTS"))
    for (const auto& pair : split_commas(v)) {
      const auto eq = pair.find('=');
      if (eq == std::string::npos) throw InputError("PPERF_SAGEMAKER_HOSTS", "", "'" + pair + "' is not HOST=ADDRESS");
      out[pair.substr(0, eq)] = pair.substr(eq + 1);
    }
  return out;
}

std::string address_of(const std::map<std::string, std::string>& addresses, const std::string& host) {
  const auto it = addresses.find(host);
  return it == addresses.end() ? host : it->second;
}

/// Whether `host:port` accepts a TCP connection now (resolving the name anew each time: a
/// SageMaker host's name may not resolve yet when the job starts).
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

/// Runs `argv` to its end, forwarding SIGTERM/SIGINT (SageMaker's stop) to it. The wait status.
int run_child(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env) {
  SpawnOptions spawn;
  spawn.argv = argv;
  spawn.set_env = env;
  ChildProcess child(spawn);
  bool forwarded = false;
  for (;;) {
    if (const auto status = child.wait(0.5)) return *status;
    if (g_stop_signal && !forwarded) child.signal(SIGTERM), forwarded = true;
  }
}

int exit_code_of(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0); }

/// Asks each data worker to stop (the Shutdown RPC with the job's token), so the job ends.
void stop_data_hosts(const std::vector<std::string>& endpoints, const std::string& token) {
  for (const auto& endpoint : endpoints) {
    auto stub = dataservice::DataService::NewStub(open_data_channel(endpoint));
    dataservice::ShutdownRequest request;
    request.set_token(token);
    dataservice::ShutdownReply reply;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    const grpc::Status status = stub->Shutdown(&context, request, &reply);
    std::cerr << fmt::format("pperf sagemaker-entry: data worker {}: {}\n", endpoint,
                             status.ok() ? "stopped" : "did not answer Shutdown (" + status.error_message() + ")");
  }
}

struct EntryPaths {
  fs::path root, resource_config, hyperparameters, model, output_data, failure, checkpoints;
};

EntryPaths entry_paths() {
  const char* root = std::getenv("PPERF_SAGEMAKER_ROOT");
  EntryPaths p;
  p.root = root && *root ? root : "/opt/ml";
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

/// The config the job runs: the launched file (same SHA-256), with each configuration's data
/// endpoints the job's data hosts instead of the emulation's spawned workers; written beside the
/// original (its relative paths stay right). Returns its path.
std::string trainer_config(const std::string& config_ref, const std::string& sha256, const SageMakerRole& role,
                           const std::map<std::string, std::string>& addresses, int64_t port, const std::string& job_name,
                           const std::string& hyper_file) {
  const std::string path = find_config(config_ref);
  if (sha256_hex(read_text_file(path)) != sha256)
    throw InputError(hyper_file, std::string("/") + sagemaker_keys::kConfigSha256,
                     path + " is not the config `pperf launch` read (its SHA-256 differs)");
  nlohmann::json doc = read_json_file(path);
  for (auto& c : doc["configurations"]) {
    const auto hosts = role.data_hosts.find(c.value("name", ""));
    if (hosts == role.data_hosts.end()) continue;
    auto& data = c["execution"]["data"];
    data.erase("spawn_local");
    data.erase("tls_ca");  // inside the job: the job's network, the token on every call
    data["endpoints"] = nlohmann::json::array();
    for (const auto& h : hosts->second) data["endpoints"].push_back(address_of(addresses, h) + ":" + std::to_string(port));
  }
  const fs::path derived = fs::path(path).parent_path() / ("." + fs::path(path).stem().string() + "." + job_name + ".json");
  write_file_atomically(derived.string(), doc.dump(1) + "\n");
  return derived.string();
}

int sagemaker_entry(const EntryPaths& paths) {
  const SageMakerResourceConfig rc = parse_resource_config(read_contract_file(paths.resource_config), paths.resource_config.string());
  const auto hyper = parse_hyperparameters(read_contract_file(paths.hyperparameters), paths.hyperparameters.string());
  const SageMakerRole role = sagemaker_role(rc, hyper, paths.resource_config.string(), paths.hyperparameters.string());
  const char* job_name = std::getenv("TRAINING_JOB_NAME");
  if (!job_name || !*job_name) throw InputError("TRAINING_JOB_NAME", "", "not set (SageMaker sets it in every job's container)");
  const char* job_arn = std::getenv("TRAINING_JOB_ARN");
  const char* token_env = std::getenv(kDataTokenVariable);
  const std::string token = token_env ? token_env : "";
  auto hyper_of = [&](const char* key) {
    const auto it = hyper.find(key);
    if (it == hyper.end()) throw InputError(paths.hyperparameters.string(), std::string("/") + key, "missing (a job `pperf launch` wrote has it)");
    return it->second;
  };
  const auto port = positive_integer(hyper_of(sagemaker_keys::kDataPort));
  const auto wait_s = positive_integer(hyper_of(sagemaker_keys::kDataWaitS));
  if (!port || *port > 65535) throw InputError(paths.hyperparameters.string(), std::string("/") + sagemaker_keys::kDataPort, "not a port");
  if (!wait_s) throw InputError(paths.hyperparameters.string(), std::string("/") + sagemaker_keys::kDataWaitS, "not a number of seconds");
  const auto addresses = host_addresses();
  const std::string group = rc.current_group.empty() ? "(one group)" : rc.current_group;
  // Where the results say they ran (the placement record of `pperf run`).
  const std::vector<std::pair<std::string, std::string>> placement{
      {"PPERF_PLATFORM", "sagemaker"},
      {"PPERF_JOB_NAME", job_name},
      {"PPERF_JOB_ID", job_arn && *job_arn ? job_arn : job_name},
      {"PPERF_INSTANCE_TYPE", rc.current_instance_type},
      {"PPERF_HOST_GROUP", rc.current_group},
      {"PPERF_HOST_ID", rc.current_host}};
  const std::string self = self_executable();
  std::cerr << fmt::format("pperf sagemaker-entry: job {}, host {} of group {} ({}): {}\n", job_name, rc.current_host, group,
                           rc.current_instance_type, role.trainer ? "the trainer" : "a data worker");
  // What this host made of the contract, one JSON line (the one-host harness holds it against
  // the SageMaker toolkit's reading of the same files). Never the token.
  nlohmann::json view{{"host", rc.current_host}, {"group", rc.current_group}, {"role", role.trainer ? "trainer" : "data"},
                      {"hosts", rc.hosts}, {"group_hosts", rc.group_hosts}, {"data_hosts", role.data_hosts},
                      {"placement", nlohmann::json::object()}};
  for (const auto& [k, v] : placement) view["placement"][k] = v;
  std::cerr << "pperf sagemaker-entry: view " << view.dump() << "\n";
  if (!role.trainer) {
    if (token.empty()) throw InputError(kDataTokenVariable, "", "not set: the job's Environment carries the data workers' token");
    const std::string listen = (addresses.count(rc.current_host) ? addresses.at(rc.current_host) : std::string("0.0.0.0")) + ":" +
                               std::to_string(*port);
    std::vector<std::string> argv{self, "data-worker", "--native", "--config", hyper_of(sagemaker_keys::kConfig), "--listen", listen,
                                  "--workers", std::to_string(role.data_workers), "--insecure"};
    if (const std::string w = hyper_of(sagemaker_keys::kWorkload); !w.empty()) argv.insert(argv.end(), {"--workload", w});
    const int code = exit_code_of(run_child(argv, placement));
    if (code != 0) throw std::runtime_error(fmt::format("the data worker on {} exited with code {}", rc.current_host, code));
    return kExitOk;
  }

  std::vector<std::string> data_endpoints;
  for (const auto& h : role.all_data_hosts) data_endpoints.push_back(address_of(addresses, h) + ":" + std::to_string(*port));
  try {
    // Every data host up before measuring: a host that never comes up fails the job now (a hung job bills).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(*wait_s);
    for (const auto& h : role.all_data_hosts) {
      while (!accepts_connections(address_of(addresses, h), *port)) {
        if (std::chrono::steady_clock::now() > deadline)
          throw std::runtime_error(fmt::format("data host {} did not accept connections on port {} within {} s", h, *port, *wait_s));
        if (g_stop_signal) throw std::runtime_error("stopped (signal) while waiting for the data hosts");
        std::this_thread::sleep_for(std::chrono::seconds(1));
      }
      std::cerr << fmt::format("pperf sagemaker-entry: data host {} is up\n", h);
    }
    const fs::path in_progress = paths.checkpoints / "results.json";
    const fs::path done = paths.checkpoints / "results.done";
    const std::string configurations = hyper_of(sagemaker_keys::kConfigurations);
    const std::string config_sha = hyper_of(sagemaker_keys::kConfigSha256);
    int run_code = kExitOk;
    // A Spot restart: SageMaker restored /opt/ml/checkpoints; a finished run is not measured again.
    const bool finished = fs::is_regular_file(done) && fs::is_regular_file(in_progress) &&
                          read_text_file(done.string()) == config_sha + " " + configurations + "\n";
    if (finished) {
      std::cerr << "pperf sagemaker-entry: the results in " << in_progress.string() << " are complete (restored checkpoint); not measured again\n";
    } else {
      const std::string derived = trainer_config(hyper_of(sagemaker_keys::kConfig), config_sha, role, addresses, *port, job_name,
                                                 paths.hyperparameters.string());
      std::vector<std::string> argv{self, "run", "--native", "--config", derived, "--only", configurations, "--out",
                                    in_progress.string(), "--markdown", (paths.output_data / "report.md").string(),
                                    "--html", (paths.output_data / "report.html").string()};
      if (const std::string w = hyper_of(sagemaker_keys::kWorkload); !w.empty()) argv.insert(argv.end(), {"--workload", w});
      fs::create_directories(paths.checkpoints);
      fs::create_directories(paths.output_data);
      run_code = exit_code_of(run_child(argv, placement));
      if (run_code != kExitOk && run_code != kExitResultFailed)
        throw std::runtime_error(fmt::format("pperf run exited with code {}", run_code));
      write_file_atomically(done.string(), config_sha + " " + configurations + "\n");
    }
    write_file_atomically((paths.model / "results.json").string(), read_text_file(in_progress.string()));
    stop_data_hosts(data_endpoints, token);
    if (run_code == kExitResultFailed) throw std::runtime_error("a result failed (results.json says which)");
    return kExitOk;
  } catch (...) {
    stop_data_hosts(data_endpoints, token);
    throw;
  }
}
}  // namespace

int command_launch(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << kLaunchUsage;
    return args.empty() ? kExitBadInput : kExitOk;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "sagemaker") return launch_sagemaker(rest);
  throw InputError("pperf launch", "", "unknown platform '" + args[0] + "': expected sagemaker" + did_you_mean(args[0], {"sagemaker"}));
}

int command_sagemaker_entry(const std::vector<std::string>& args) {
  po::options_description options("pperf sagemaker-entry options (a SageMaker job's entry point; docs/launch.md)");
  options.add_options()("help,h", "show this help");
  // The SageMaker toolkit passes every hyperparameter as --KEY VALUE: read from hyperparameters.json instead.
  if (std::find(args.begin(), args.end(), "--help") != args.end() || std::find(args.begin(), args.end(), "-h") != args.end())
    return std::cout << options, kExitOk;
  const EntryPaths paths = entry_paths();
  std::signal(SIGTERM, on_entry_stop_signal);
  std::signal(SIGINT, on_entry_stop_signal);
  // What SageMaker shows as the job's FailureReason: the first line of /opt/ml/output/failure.
  auto fail = [&](const std::string& reason, int code) {
    std::cerr << "pperf sagemaker-entry: " << reason << "\n";
    try {
      write_file_atomically(paths.failure.string(), reason + "\n");
    } catch (const std::exception& e) {
      std::cerr << "pperf sagemaker-entry: cannot write " << paths.failure.string() << ": " << e.what() << "\n";
    }
    return code;
  };
  try {
    return sagemaker_entry(paths);
  } catch (const InputError& e) {
    return fail(e.what(), kExitBadInput);
  } catch (const std::exception& e) {
    return fail(e.what(), kExitRuntime);
  }
}

}  // namespace pperf::cli
