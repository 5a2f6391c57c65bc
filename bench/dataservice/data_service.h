#pragma once
// The data-offload service (seed 000's heterogeneous clusters): data workers run a workload's
// input pipeline and stream ready batches to the trainer over gRPC.
//
// Worker side guarantees: it serves exactly the workload it was started for (a handshake with
// any other workload, preset, batch size, params, seed or schema is refused with a reason); each
// stream delivers batches first_index, first_index + stride, ... in order, one message per batch,
// made by its own preprocessing threads and bounded by the prefetch depth (a slow reader slows
// the worker: back-pressure, no unbounded buffering); off loopback every RPC needs the token.
// Trainer side guarantees (ServiceSource): batches from all endpoints feed one bounded queue; a
// worker that fails or stalls is dropped with an event and the others go on; when none is left
// next() throws with the reasons.
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "workloads/registry.h"

namespace pperf {

class DataSource;

constexpr uint32_t kDataServiceSchemaVersion = 1;

struct DataWorkerOptions {
  std::string listen = "127.0.0.1:0";  // port 0: pick a free one and print it
  int64_t workers = 1;                 // preprocessing threads per stream
  int64_t prefetch_batches = 4;
  std::string token;                   // required when listening off loopback
  std::vector<int> cpus;               // pin the worker's threads to these CPUs (empty: all)
};

/// Runs a data worker until a Shutdown RPC, SIGTERM or SIGINT. Prints
/// "pperf data-worker listening on HOST:PORT" on stdout once it accepts connections. Returns the
/// process exit code. Throws InputError for bad options (e.g. no token off loopback).
int run_data_worker(const WorkloadSpec& spec, const WorkloadRegistry& registry,
                    const DataWorkerOptions& options);

struct ServiceSourceOptions {
  std::vector<std::string> endpoints;
  std::string token;
  int64_t prefetch_batches = 4;       // bound of the shared ready-batch queue
  double rpc_deadline_s = 10;         // handshake / shutdown
  double batch_stall_deadline_s = 120;  // a stream silent this long is dropped
};

/// A DataSource pulling from data workers concurrently (one stream per endpoint, batch indices
/// interleaved across them). Throws std::runtime_error when a handshake is refused.
std::unique_ptr<DataSource> connect_service(const WorkloadSpec& spec, const ServiceSourceOptions& options);

/// Data workers started by pperf on this host (the single-machine emulation of a data group):
/// processes are started at construction and stopped (Shutdown RPC, then SIGTERM, then wait) on
/// destruction.
class LocalDataGroup {
 public:
  /// Starts `processes` x `pperf_binary data-worker --config config_path --workload workload`
  /// on loopback, each with `workers_each` preprocessing threads, pinned to `cpus` if given.
  /// Throws std::runtime_error if a worker does not come up within 60 s.
  LocalDataGroup(const std::string& pperf_binary, const std::string& config_path,
                 const std::string& workload, int64_t processes, int64_t workers_each,
                 const std::vector<int>& cpus, const std::string& token);
  ~LocalDataGroup();
  const std::vector<std::string>& endpoints() const { return endpoints_; }
  const std::vector<int>& pids() const { return pids_; }

 private:
  std::vector<int> pids_;
  std::vector<std::string> endpoints_;
  std::string token_;
};

/// Pins every thread of this process to `cpus` (empty: every CPU of this host, undoing an
/// inherited pinning). Threads started later inherit it. Returns false on failure.
bool pin_process_to_cpus(const std::vector<int>& cpus);

}  // namespace pperf
