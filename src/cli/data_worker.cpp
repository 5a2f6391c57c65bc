// `pperf data-worker`: serve a config's preprocessed batches over gRPC (the data role).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <thread>

#include "src/cli/cli.h"
#include "src/core/input_error.h"
#include "src/dataservice/data_service.h"

namespace pperf::cli {

namespace {
/// The workload the worker serves: --workload of the config (the first by default), with
/// --batch-size, --params and --wire over the config's (a sweep point's; the wire pperf's data
/// workers send it on by default: Config::default_wires).
WorkloadSpec served_spec(const Parsed& p, const Config& config) {
  size_t index = 0;
  if (p.has("workload")) {
    index = config.workloads.size();
    for (size_t w = 0; w < config.workloads.size(); ++w)
      if (config.workloads[w].name == p.string("workload")) index = w;  // the last entry of that name
    if (index == config.workloads.size())
      throw InputError("--workload", "", "no workload '" + p.string("workload") + "' in " + config.path);
  }
  WorkloadSpec served = config.workloads[index];
  if (p.has("batch-size")) {
    served.batch_size = p.vars["batch-size"].as<int64_t>();
    if (served.batch_size < 1) throw InputError("--batch-size", "", "must be >= 1");
  }
  if (p.has("params")) {
    const nlohmann::json params = nlohmann::json::parse(p.string("params"), nullptr, false);
    if (!params.is_object()) throw InputError("--params", "", "must be a JSON object, got " + p.string("params"));
    for (const auto& [key, value] : params.items()) {
      if (!served.params.contains(key)) throw InputError("--params", "", "workload '" + served.name + "' has no param '" + key + "'");
      served.params[key] = value;
    }
  }
  served.wire = config.default_wires[index];
  if (p.has("wire")) {
    served.wire = p.string("wire");
    const std::vector<std::string>& formats = wire_formats();
    if (std::find(formats.begin(), formats.end(), served.wire) == formats.end())
      throw InputError("--wire", "", fmt::format("'{}' is not a wire format ({})", served.wire, fmt::join(formats, ", ")));
  }
  return served;
}

/// How the worker serves: its listen address, threads, streams, token, TLS and CPUs.
DataWorkerOptions worker_options(const Parsed& p) {
  DataWorkerOptions o;
  o.listen = p.vars["listen"].as<std::string>();
  o.workers = p.vars["workers"].as<int64_t>();
  o.prefetch_batches = p.vars["prefetch"].as<int64_t>();
  if (o.workers < 1) throw InputError("--workers", "", "must be >= 1");
  if (o.prefetch_batches < 1) throw InputError("--prefetch", "", "must be >= 1");
  o.max_streams = p.vars["max-streams"].as<int64_t>();
  o.stall_timeout_s = p.vars["stall-timeout-s"].as<double>();
  if (p.has("token") && p.has("token-file")) throw InputError("--token", "", "give --token or --token-file, not both");
  if (p.has("token-file")) {
    std::ifstream in(p.string("token-file"));
    if (!in || !std::getline(in, o.token) || o.token.empty())
      throw InputError("--token-file", "", "cannot read a token from " + p.string("token-file"));
  } else if (p.has("token")) {
    o.token = p.string("token");
    std::cerr << "pperf data-worker: warning: --token is visible to every local user (ps); use --token-file or PPERF_DATA_TOKEN\n";
  } else if (const char* t = std::getenv("PPERF_DATA_TOKEN")) {
    o.token = t;
  }
  if (p.has("tls-cert")) o.tls_cert = p.string("tls-cert");
  if (p.has("tls-key")) o.tls_key = p.string("tls-key");
  o.insecure = p.has("insecure");
  if (p.has("cpus")) {
    for (const auto& c : split_commas(p.string("cpus"))) {
      char* end = nullptr;
      long cpu = std::strtol(c.c_str(), &end, 10);
      if (*end || cpu < 0 || cpu >= static_cast<long>(std::thread::hardware_concurrency()))
        throw InputError("--cpus", "", "'" + c + "' is not a CPU of this host");
      o.cpus.push_back(static_cast<int>(cpu));
    }
  }
  return o;
}
}  // namespace

int command_data_worker(const std::vector<std::string>& args) {
  const std::string wire_help =
      fmt::format("how batches travel: {} (default: the smallest the workload makes exactly)", fmt::join(wire_formats(), ", "));
  po::options_description options("pperf data-worker options");
  options.add_options()("help,h", "show this help")(
      "config", po::value<std::string>()->required(), "config whose workload to serve (a file, or a shipped config's name)")(
      "workload", po::value<std::string>(), "which workload of the config (default: the first)")(
      "native", "serve the workload's native size (on the real data instances, as the trainer's --native)")(
      "listen", po::value<std::string>()->default_value("127.0.0.1:0"), "HOST:PORT (port 0: any free port)")(
      "workers", po::value<int64_t>()->default_value(1), "preprocessing threads per stream")(
      "prefetch", po::value<int64_t>()->default_value(4), "batches made ahead per stream (at least --workers)")(
      "max-streams", po::value<int64_t>()->default_value(8), "concurrent streams served; more are refused")(
      "stall-timeout-s", po::value<double>()->default_value(120),
      "cancel a stream whose reader takes no batch for this long (s), or for 4x its longest wait before if longer")(
      "token-file", po::value<std::string>(), "file holding the shared secret every RPC must carry (or env PPERF_DATA_TOKEN)")(
      "token", po::value<std::string>(), "the secret itself (visible in ps: prefer --token-file)")(
      "tls-cert", po::value<std::string>(), "PEM certificate: serve over TLS")(
      "tls-key", po::value<std::string>(), "PEM private key of --tls-cert")(
      "insecure", "allow plaintext off loopback (a token is still required)")(
      "cpus", po::value<std::string>(), "comma-separated CPUs to pin to")(
      "batch-size", po::value<int64_t>(), "serve this batch size instead of the config's (a sweep point's)")(
      "params", po::value<std::string>(), "the workload's params as a JSON object, instead of the config's (a sweep point's)")(
      "wire", po::value<std::string>(), wire_help.c_str());
  Parsed p = parse("data-worker", options, args);
  if (p.help) return std::cout << options, kExitOk;
  const Config config = load_config(p.string("config"), builtin_workloads(), p.has("native"));
  return run_data_worker(served_spec(p, config), builtin_workloads(), worker_options(p));
}

}  // namespace pperf::cli
