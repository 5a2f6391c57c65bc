#pragma once
// The trainer's data sources beyond local loader threads: data workers over gRPC, and data
// workers pperf starts on this host.
// ServiceSource guarantees: batches from all endpoints feed one bounded queue, batch indices
// interleaved across workers; a worker that fails or stalls is dropped with an event and the
// others go on; when none is left next() throws with the reasons.
#include <memory>
#include <string>
#include <vector>

#include "src/config/config.h"
#include "src/core/workload_registry.h"
#include "src/core/process.h"
#include "workloads/workload.h"

namespace pperf {

struct ServiceSourceOptions {
  std::vector<std::string> endpoints;
  std::string token;
  std::string tls_ca_pem;               // non-empty: TLS channels trusting this CA
  int64_t prefetch_batches = 4;         // bound of the shared ready-batch queue
  double rpc_deadline_s = 10;           // handshake / shutdown
  double batch_stall_deadline_s = 120;  // a stream silent this long is dropped
  bool pin_memory = false;              // pin each batch in its stream's thread (a CUDA trainer)
  std::string dataset;                  // Python workers: the "module:factory" they must serve
  std::string dataset_kwargs;           // ... built with these keyword arguments (JSON; "" is {})
  /// What the model takes per sample; when non-empty, a worker declaring anything else is
  /// refused at the handshake, and a batch not shaped [B] + shape drops its worker.
  std::vector<TensorDecl> expected_layout;
};

/// A DataSource pulling from data workers concurrently (one stream per endpoint). Throws
/// std::runtime_error when a handshake is refused or a worker cannot be reached.
std::unique_ptr<DataSource> connect_service(const WorkloadSpec& spec, const ServiceSourceOptions& options);

/// `/usr/bin/python3 pperf-data-worker.py --dataset ...` serving `data`'s dataset for `spec`
/// (without --listen, --workers, --cpus: a LocalDataGroup adds those).
std::vector<std::string> python_worker_command(const std::string& pperf_binary, const WorkloadSpec& spec,
                                               const DataSettings& data);

/// Runs the Python worker's --check for `data` (imports the module, builds the dataset, compares
/// sample 0 with `expected`): "" when it fits, else the worker's one-line reason.
std::string check_python_dataset(const std::string& pperf_binary, const WorkloadSpec& spec, const DataSettings& data,
                                 const std::vector<TensorDecl>& expected);

/// Data workers started by pperf on this host (the single-machine emulation of a data group).
/// Started at construction; stopped (Shutdown RPC, then SIGTERM, then SIGKILL) on destruction.
/// If a worker fails to start, the ones already started are stopped before the constructor
/// throws, and every worker dies with its parent: nothing is left running.
class LocalDataGroup {
 public:
  /// Starts `processes` x `pperf_binary data-worker --config config_path --workload workload`
  /// on loopback, each with `workers_each` preprocessing threads, pinned to `cpus` if given.
  /// Throws std::runtime_error if a worker does not come up within `start_timeout_s`.
  LocalDataGroup(const std::string& pperf_binary, const std::string& config_path,
                 const std::string& workload, int64_t processes, int64_t workers_each,
                 const std::vector<int>& cpus, const std::string& token, double start_timeout_s = 60);
  /// The same with any worker command that takes --listen, --workers and --cpus (e.g.
  /// `python3 pperf-data-worker.py --dataset m:f ...`) and prints "listening on HOST:PORT".
  /// `listen_host`: where the workers listen (an address of a ShapedLink's namespace when the
  /// command runs inside it; the command then says --insecure itself).
  LocalDataGroup(const std::vector<std::string>& command, int64_t processes, int64_t workers_each,
                 const std::vector<int>& cpus, const std::string& token, double start_timeout_s = 60,
                 const std::string& listen_host = "127.0.0.1");
  ~LocalDataGroup();  // stop(), its events dropped
  /// Stops every worker (Shutdown RPC, up to 5 s each to exit, then SIGTERM and SIGKILL) and
  /// returns one event per worker that did not end cleanly, saying how it ended: e.g. exit
  /// code kDataWorkerForcedExit, its own stop watchdog having forced the exit. Later calls
  /// return nothing.
  std::vector<std::string> stop();
  const std::vector<std::string>& endpoints() const { return endpoints_; }
  std::vector<int> pids() const;

 private:
  std::vector<ChildProcess> workers_;  // destroyed (stopped) even when the constructor throws
  std::vector<std::string> endpoints_;
  std::string token_;
  bool stopped_ = false;
};

}  // namespace pperf
