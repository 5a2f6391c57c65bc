#pragma once
// The data-offload service (seed 000's heterogeneous clusters): data workers run a workload's
// input pipeline and stream ready batches to the trainer over gRPC.
//
// Worker side guarantees: it serves exactly the workload it was started for (a handshake with
// any other workload, preset, batch size, params, seed or schema is refused with a reason); each
// stream delivers batches first_index, first_index + stride, ... in order, one message per batch,
// made by its own preprocessing threads and bounded by the prefetch depth (a slow reader slows
// the worker: back-pressure, no unbounded buffering); off loopback every RPC needs the token.
// The trainer's side (a DataSource over the workers' streams) is in src/measure.
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/core/workload_registry.h"

namespace grpc {
class Channel;
}

namespace pperf {

constexpr uint32_t kDataServiceSchemaVersion = 1;

struct DataWorkerOptions {
  std::string listen = "127.0.0.1:0";  // HOST:PORT; port 0: pick a free one and print it
  int64_t workers = 1;                 // preprocessing threads per stream
  int64_t prefetch_batches = 4;
  int64_t max_streams = 8;             // concurrent streams; more are refused (RESOURCE_EXHAUSTED)
  std::string token;                   // required when listening off loopback
  std::vector<int> cpus;               // pin the worker's threads to these CPUs (empty: all)
  std::string tls_cert, tls_key;       // PEM files: serve over TLS
  bool insecure = false;               // allow plaintext off loopback (token still required)
  double stall_timeout_s = 120;        // a stream whose reader's window stays shut this long (or 4x its
                                       // longest wait per batch, if longer) per batch its last opening
                                       // let through is cancelled
};

/// Requests are small: anything larger is refused before it is parsed.
constexpr int kMaxRequestBytes = 64 * 1024;
/// Workload params in a handshake nest at most this deep (deeper is refused, never recursed into).
constexpr int kMaxParamsDepth = 32;

/// HOST and PORT of a --listen value; InputError naming --listen unless it is HOST:PORT with a
/// port in [0, 65535].
std::pair<std::string, int> parse_listen_address(const std::string& listen);

/// Whether every address HOST resolves to is a loopback address (127.0.0.0/8, ::1). A name
/// that does not resolve is not loopback.
bool resolves_to_loopback(const std::string& host);

/// The exit code of a data worker whose stop watchdog had to end it (a stream still running
/// kStopDeadline after the stop began; once every stream has ended the worker exits 0 at once,
/// skipping its teardown): distinct from a clean stop (0),
/// a worker error (1) and bad input (2).
constexpr int kDataWorkerForcedExit = 4;

/// Runs a data worker until a Shutdown RPC, SIGTERM or SIGINT. Prints
/// "pperf data-worker listening on HOST:PORT" on stdout once it accepts connections. Returns the
/// process exit code (0, or kDataWorkerForcedExit from its watchdog). Workers (plaintext and
/// TLS) cap their connections below the descriptor limit (raised to the hard one), close those
/// that do not start HTTP/2 (or TLS) within 5 s and those that carry no call with the token
/// within 10 s; call threads and calls per connection are bounded; streams whose reader's
/// flow-control window stays shut for max(stall_timeout_s, 4x its longest wait per batch before)
/// per batch the window let through when it last opened are cancelled.
/// Throws InputError for bad options (e.g. no token off loopback).
int run_data_worker(const WorkloadSpec& spec, const WorkloadRegistry& registry,
                    const DataWorkerOptions& options);

/// The trainer's HTTP/2 receive window per stream (no BDP probing): below one batch, so that a
/// worker's write completes only when the trainer takes a batch.
constexpr int kTrainerWindowBytes = 16 * 1024;

/// A channel to a data worker, sized for batch messages (large receive limit; a receive window
/// of kTrainerWindowBytes, so the worker sees each batch the trainer takes). With `tls_ca_pem`
/// non-empty the channel is TLS, trusting that CA; otherwise plaintext.
std::shared_ptr<grpc::Channel> open_data_channel(const std::string& endpoint, const std::string& tls_ca_pem = "");

/// Asks the data worker at `endpoint` to stop: the Shutdown RPC with `token` (TLS trusting
/// `tls_ca_pem` when it is not empty), answered within `deadline_s`. nullopt when the worker
/// answered, else gRPC's reason. The one client of Shutdown: a run's spawned workers and a launched
/// job's data hosts are stopped by it.
std::optional<std::string> request_shutdown(const std::string& endpoint, const std::string& token, const std::string& tls_ca_pem,
                             double deadline_s);

}  // namespace pperf
