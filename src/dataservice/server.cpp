// `pperf data-worker`: serves one workload's ready batches over gRPC.
#include <grpc/grpc.h>
#include <grpc/support/log.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/server_posix.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <fstream>
#include <iostream>
#include <sstream>
#include <optional>
#include <thread>
#include <tuple>

#include "src/core/atomic_file.h"
#include "src/core/input_error.h"
#include "src/dataservice/connection_gate.h"
#include "src/dataservice/data_service.grpc.pb.h"
#include "src/dataservice/data_service.h"
#include "src/dataservice/request_check.h"
#include "src/dataservice/tensor_wire.h"
#include "src/core/process.h"
#include "workloads/common/local_loader.h"

namespace pperf {

namespace {

std::atomic<bool> g_worker_stop{false};
extern "C" void on_worker_signal(int) { g_worker_stop = true; }

/// How often a stream handler waiting for its next batch checks for cancellation and shutdown.
constexpr int64_t kCancelCheckMs = 100;
/// From SIGTERM (or a Shutdown RPC) to the worker's exit, at most.
constexpr std::chrono::seconds kStopDeadline{4};
/// At a stop, how long calls may end by themselves before their connections are shut down.
constexpr std::chrono::seconds kStopGrace{2};
/// A connection must start HTTP/2 (or TLS) within this; a trainer does so at once.
constexpr std::chrono::milliseconds kHandshakeDeadline{5000};
/// A connection with no RPC for this long is closed (GOAWAY: a client just reconnects).
constexpr int kMaxConnectionIdleMs = 30000;
/// Pings on connections with streams find peers that vanished without a FIN.
constexpr int kKeepaliveTimeMs = 60000, kKeepaliveTimeoutMs = 20000;
/// Descriptors kept free beyond those open when the worker starts serving (gRPC's, torch's,
/// files a pipeline opens later): the connection cap is the limit minus both.
constexpr int64_t kDescriptorMargin = 32;
/// Handshake failures (e.g. plaintext clients of a TLS worker) are printed once per interval,
/// then counted: spawned workers share the user's terminal.
constexpr std::chrono::seconds kLogSummaryInterval{60};

/// gRPC's log lines, except that handshake failures are summarized: the first of each interval
/// is printed, the rest counted and reported in one line when the interval is over.
class HandshakeLogSummary {
 public:
  static void install() { gpr_set_log_function(&HandshakeLogSummary::log); }

  /// Prints the count of failures not yet reported, if the interval is over (or `now_anyway`).
  static void flush(bool now_anyway) {
    std::lock_guard<std::mutex> lock(mutex_);
    flush_locked(std::chrono::steady_clock::now(), now_anyway);
  }

 private:
  static void log(gpr_log_func_args* args) {
    const char* message = args->message ? args->message : "";
    const char* file = args->file ? args->file : "";
    const char* base = std::strrchr(file, '/');
    base = base ? base + 1 : file;
    const char severity = args->severity == GPR_LOG_SEVERITY_ERROR ? 'E' : args->severity == GPR_LOG_SEVERITY_INFO ? 'I' : 'D';
    if (!is_handshake_failure(message)) {
      std::fprintf(stderr, "%c %s:%d] %s\n", severity, base, args->line, message);
      return;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    flush_locked(now, false);
    if (printed_in_interval_) {
      ++suppressed_;
      return;
    }
    printed_in_interval_ = true;
    interval_start_ = now;
    std::fprintf(stderr, "%c %s:%d] %s (further handshake failures in the next %lld s are counted, not printed)\n",
                 severity, base, args->line, message, static_cast<long long>(kLogSummaryInterval.count()));
  }

  static bool is_handshake_failure(const char* message) {
    return std::strstr(message, "SSL_ERROR") || std::strstr(message, "andshake failed") ||
           std::strstr(message, "andshaking failed");
  }

  static void flush_locked(std::chrono::steady_clock::time_point now, bool now_anyway) {
    if (!printed_in_interval_ || (!now_anyway && now - interval_start_ < kLogSummaryInterval)) return;
    if (suppressed_ > 0)
      std::fprintf(stderr, "pperf data-worker: %lld more connections failed their handshake in the last %lld s (e.g. plaintext clients of a TLS worker)\n",
                   static_cast<long long>(suppressed_),
                   static_cast<long long>(std::chrono::duration_cast<std::chrono::seconds>(now - interval_start_).count()));
    suppressed_ = 0;
    printed_in_interval_ = false;
  }

  static inline std::mutex mutex_;
  static inline std::chrono::steady_clock::time_point interval_start_;
  static inline bool printed_in_interval_ = false;
  static inline int64_t suppressed_ = 0;
};

/// Ends a stream whose Write is blocked (flow control full) when the worker cannot wait for
/// its reader: once the reader has not read for longer than the bound (the status names the
/// cause, and the slot is free for another trainer; a worker without a token cannot tell a
/// trainer from anyone else), and at once when the worker is stopping. Cancelling the call
/// fails the pending send unless the socket itself is full; then the send ends when the
/// connection does (at a stop, see run_data_worker).
class StreamGuard {
 public:
  StreamGuard(grpc::ServerContext* context, std::chrono::milliseconds stall_bound)
      : context_(context), stall_bound_(stall_bound), thread_([this] { watch(); }) {}
  ~StreamGuard() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  /// Brackets each Write.
  void writing(bool now_writing) {
    std::lock_guard<std::mutex> lock(mutex_);
    writing_ = now_writing;
    since_ = std::chrono::steady_clock::now();
  }

 private:
  void watch() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!done_ && !cancelled_) {
      wake_.wait_for(lock, std::chrono::milliseconds(kCancelCheckMs));
      // A handler that is not writing sees the stop flag itself within kCancelCheckMs.
      if (done_ || !writing_) continue;
      if (g_worker_stop) {
        cancel(GRPC_STATUS_UNAVAILABLE, "data worker shutting down");
      } else if (std::chrono::steady_clock::now() - since_ > stall_bound_) {
        std::ostringstream why;
        why << "stream cancelled by the data worker: no batch read for " << stall_bound_.count() / 1000.0
            << " s (--stall-timeout-s); its slot is free for another trainer";
        cancel(GRPC_STATUS_ABORTED, why.str());
      }
    }
  }

  /// The status goes out ahead of the batches the reader left unread (HTTP/2 trailers and
  /// RST_STREAM are not flow-controlled), so even a reader that never reads learns why.
  void cancel(grpc_status_code code, const std::string& why) {
    cancelled_ = true;
    grpc_call_cancel_with_status(context_->c_call(), code, why.c_str(), nullptr);
  }

  grpc::ServerContext* context_;
  const std::chrono::milliseconds stall_bound_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false, writing_ = false, cancelled_ = false;
  std::chrono::steady_clock::time_point since_;
  std::thread thread_;  // last: starts once the fields above exist
};

/// The gRPC answer to a refused request.
grpc::Status to_status(const Refusal& refusal) {
  switch (refusal.kind) {
    case RefusalKind::unauthenticated: return {grpc::StatusCode::UNAUTHENTICATED, refusal.message};
    case RefusalKind::invalid_argument: return {grpc::StatusCode::INVALID_ARGUMENT, refusal.message};
    case RefusalKind::failed_precondition: break;
  }
  return {grpc::StatusCode::FAILED_PRECONDITION, refusal.message};
}

std::string read_pem(const std::string& path, const std::string& flag) {
  try {
    return read_text_file(path);
  } catch (const std::exception& e) {
    throw InputError(flag, "", e.what());
  }
}

/// Counts a stream in for as long as it lives; refuses one beyond the cap.
class StreamSlot {
 public:
  StreamSlot(std::atomic<int64_t>& active, int64_t cap) : active_(active), held_(++active_ <= cap) {}
  ~StreamSlot() { --active_; }
  bool held() const { return held_; }

 private:
  std::atomic<int64_t>& active_;
  bool held_;
};

class DataServiceImpl final : public dataservice::DataService::Service {
 public:
  DataServiceImpl(WorkloadSpec spec, std::shared_ptr<const InputPipeline> pipeline, std::vector<TensorDecl> layout,
                  DataWorkerOptions options)
      : served_{std::move(spec), options.token},
        pipeline_(std::move(pipeline)),
        layout_(std::move(layout)),
        options_(std::move(options)) {}

  grpc::Status Handshake(grpc::ServerContext*, const dataservice::HandshakeRequest* request,
                         dataservice::HandshakeReply* reply) override {
    if (const std::optional<Refusal> refused = check_handshake(*request, served_)) return to_status(*refused);
    reply->set_schema_version(kDataServiceSchemaVersion);
    reply->set_preprocessing_threads(static_cast<int32_t>(options_.workers));
    const DataInfo info = pipeline_->data_info();
    reply->set_data_source(info.source);
    reply->set_data_path(info.path);
    reply->set_data_samples(info.samples);
    reply->set_worker("pperf");
    for (const auto& t : layout_) {
      auto* spec = reply->add_tensors();
      spec->set_name(t.name);
      spec->set_dtype(t.dtype);
      for (int64_t d : t.shape) spec->add_shape(d);
    }
    return grpc::Status::OK;
  }

  grpc::Status StreamBatches(grpc::ServerContext* context, const dataservice::StreamRequest* request,
                             grpc::ServerWriter<dataservice::BatchMessage>* writer) override {
    if (const std::optional<Refusal> refused = check_stream_request(*request, served_)) return to_status(*refused);
    const StreamSlot slot(active_streams_, options_.max_streams);
    if (!slot.held())
      return {grpc::StatusCode::RESOURCE_EXHAUSTED,
              "this data worker already serves " + std::to_string(options_.max_streams) +
                  " streams (--max-streams); a stream that reads nothing for " +
                  std::to_string(static_cast<int64_t>(options_.stall_timeout_s)) + " s is cancelled (--stall-timeout-s)"};
    // Each stream has its own preprocessing threads; the loader's bound plus gRPC's flow
    // control make a slow trainer slow the worker down instead of queueing without limit.
    LocalLoader loader(pipeline_, options_.workers, options_.prefetch_batches, request->first_index(),
                       request->stride());
    StreamGuard guard(context, std::chrono::milliseconds(static_cast<int64_t>(options_.stall_timeout_s * 1000)));
    while (!context->IsCancelled() && !g_worker_stop) {
      bool timed_out = false;
      std::optional<Batch> batch = loader.next_within(kCancelCheckMs, timed_out);
      if (timed_out) continue;  // look at cancellation and shutdown again
      if (!batch) break;
      dataservice::BatchMessage message;
      message.set_index(batch->index);
      tensor_to_wire(batch->inputs, message.mutable_inputs());
      tensor_to_wire(batch->targets, message.mutable_targets());
      guard.writing(true);
      const bool written = writer->Write(message);
      guard.writing(false);
      if (!written) break;  // the trainer went away, or the guard ended the stream (and said why)
    }
    if (g_worker_stop) return {grpc::StatusCode::UNAVAILABLE, "data worker shutting down"};
    return grpc::Status::OK;
  }

  grpc::Status Shutdown(grpc::ServerContext*, const dataservice::ShutdownRequest* request,
                        dataservice::ShutdownReply*) override {
    if (!shutdown_authorized(*request, served_)) return {grpc::StatusCode::UNAUTHENTICATED, "bad token"};
    g_worker_stop = true;
    return grpc::Status::OK;
  }

 private:
  ServedWorkload served_;
  std::shared_ptr<const InputPipeline> pipeline_;
  std::vector<TensorDecl> layout_;
  DataWorkerOptions options_;
  std::atomic<int64_t> active_streams_{0};
};

std::shared_ptr<grpc::ServerCredentials> server_credentials(const DataWorkerOptions& options) {
  if (options.tls_cert.empty()) return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions ssl;
  ssl.pem_key_cert_pairs.push_back({read_pem(options.tls_key, "--tls-key"), read_pem(options.tls_cert, "--tls-cert")});
  return grpc::SslServerCredentials(ssl);
}

}  // namespace

std::pair<std::string, int> parse_listen_address(const std::string& listen) {
  const auto colon = listen.rfind(':');
  const std::string port = colon == std::string::npos ? "" : listen.substr(colon + 1);
  const bool digits = !port.empty() && port.size() <= 5 && port.find_first_not_of("0123456789") == std::string::npos;
  if (colon == std::string::npos || colon == 0 || !digits || std::stoi(port) > 65535)
    throw InputError("--listen", "", "expected HOST:PORT (port 0 picks a free one), got '" + truncated_for_echo(listen) + "'");
  return {listen.substr(0, colon), std::stoi(port)};
}

bool resolves_to_loopback(const std::string& host) {
  std::string name = host;
  if (name.size() > 2 && name.front() == '[' && name.back() == ']') name = name.substr(1, name.size() - 2);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(name.c_str(), nullptr, &hints, &found) != 0 || !found) return false;
  bool all_loopback = true;
  for (addrinfo* a = found; a; a = a->ai_next) {
    if (a->ai_family == AF_INET) {
      const auto* v4 = reinterpret_cast<const sockaddr_in*>(a->ai_addr);
      all_loopback = all_loopback && (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
    } else if (a->ai_family == AF_INET6) {
      const auto* v6 = reinterpret_cast<const sockaddr_in6*>(a->ai_addr);
      all_loopback = all_loopback && IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
    } else {
      all_loopback = false;
    }
  }
  freeaddrinfo(found);
  return all_loopback;
}

int run_data_worker(const WorkloadSpec& spec, const WorkloadRegistry& registry, const DataWorkerOptions& options) {
  const auto [host, requested_port] = parse_listen_address(options.listen);
  const bool loopback = resolves_to_loopback(host);
  if (!loopback && options.token.empty())
    throw InputError("--listen", "", options.listen +
                                         " is not loopback: a token is required (--token-file, or PPERF_DATA_TOKEN)");
  if (!loopback && options.tls_cert.empty() && !options.insecure)
    throw InputError("--listen", "", options.listen +
                                         " is not loopback: serve over TLS (--tls-cert, --tls-key) or say --insecure");
  if (options.tls_cert.empty() != options.tls_key.empty())
    throw InputError(options.tls_cert.empty() ? "--tls-cert" : "--tls-key", "", "TLS needs both --tls-cert and --tls-key");
  if (options.max_streams < 1) throw InputError("--max-streams", "", "must be >= 1");
  if (!(options.stall_timeout_s > 0) || options.stall_timeout_s > 7 * 24 * 3600)
    throw InputError("--stall-timeout-s", "", "must be > 0 and at most a week");
  if (!pin_process_to_cpus(options.cpus)) throw InputError("--cpus", "", "cannot pin to those CPUs");
  const WorkloadDescriptor* descriptor = registry.find(spec.name);
  if (!descriptor) throw InputError("--workload", "", "unknown workload '" + spec.name + "'");
  const std::shared_ptr<grpc::ServerCredentials> credentials = server_credentials(options);
  const int64_t descriptor_limit = raise_descriptor_limit();
  HandshakeLogSummary::install();

  // The service (and the pipeline it owns) outlives the server: Wait() returns only once every
  // handler has returned, and each handler joins its loader threads before it returns.
  DataServiceImpl service(spec, descriptor->make_pipeline(spec),
                          descriptor->batch_layout ? descriptor->batch_layout(spec) : std::vector<TensorDecl>{}, options);
  // Plaintext: the gate accepts connections and hands gRPC those that speak HTTP/2 (see
  // connection_gate.h). TLS: gRPC listens itself (it takes only plaintext connections from
  // outside), bounded by the handshake deadline and the idle policy, without a cap.
  const bool gated = options.tls_cert.empty();
  int listen_fd = -1, port = 0;
  if (gated) std::tie(listen_fd, port) = listen_tcp(host, requested_port);
  grpc::ServerBuilder builder;
  if (!gated) builder.AddListeningPort(options.listen, credentials, &port);
  builder.RegisterService(&service);
  builder.SetMaxReceiveMessageSize(kMaxRequestBytes);
  builder.SetMaxSendMessageSize(1 << 30);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 64 << 20);
  builder.AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS, static_cast<int>(kHandshakeDeadline.count()));
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, kMaxConnectionIdleMs);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, kKeepaliveTimeMs);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, kKeepaliveTimeoutMs);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    if (listen_fd >= 0) ::close(listen_fd);
    throw InputError("--listen", "", "cannot listen on " + options.listen);
  }
  std::optional<ConnectionGate> gate;
  if (gated) {
    GateOptions gate_options;
    gate_options.max_connections = std::max<int64_t>(2, descriptor_limit - open_descriptors() - kDescriptorMargin);
    gate_options.handshake_deadline = kHandshakeDeadline;
    gate.emplace(listen_fd, gate_options, [s = server.get()](int fd) { grpc::AddInsecureChannelFromFd(s, fd); });
  }

  std::signal(SIGTERM, on_worker_signal);
  std::signal(SIGINT, on_worker_signal);
  std::cout << "pperf data-worker listening on " << host << ":" << port << std::endl;
  while (!g_worker_stop) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    HandshakeLogSummary::flush(false);
  }
  gate.reset();  // no new connections while the streams end
  HandshakeLogSummary::flush(true);
  // Handlers see the stop flag within kCancelCheckMs, and each stream's guard cancels a Write
  // that waits for its reader (StreamGuard). A Write can still wait on the socket itself: a
  // peer that does not read fills the TCP buffers, the transport's write to the socket never
  // completes, and gRPC 1.51 completes a cancelled send only when that write does; neither
  // cancelling the call nor Server::Shutdown's cancel-all-calls (a GOAWAY queued behind the
  // same write) ends it. So past kStopGrace the connections' sockets are shut down: the write
  // fails, the transport closes and every call on it ends.
  //
  // A handler can still be inside a long make_batch, which nothing can interrupt, and the
  // process's own teardown (gRPC's and torch's threads, static objects) is not bounded either.
  // The worker holds nothing that needs saving, so one watchdog bounds the whole exit: past
  // kStopDeadline it ends the process at once, and SIGTERM always ends it within seconds. It
  // says which phase was slow (a normal stop says nothing: spawned workers share the user's
  // terminal).
  std::thread([] {
    std::this_thread::sleep_for(kStopDeadline);
    static const char message[] = "pperf data-worker: a stream still running after the stop deadline; exiting now\n";
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, message, sizeof message - 1);
    std::_Exit(kDataWorkerForcedExit);  // not 0: the parent must not mistake this for a clean stop
  }).detach();
  std::mutex stop_mutex;
  std::condition_variable stopped_cv;
  bool stopped = false;
  std::thread closer([&] {
    std::unique_lock<std::mutex> lock(stop_mutex);
    if (!stopped_cv.wait_for(lock, kStopGrace, [&] { return stopped; })) shut_down_connections_on_port(port);
  });
  server->Shutdown(std::chrono::system_clock::now() + kStopGrace);
  server->Wait();
  {
    std::lock_guard<std::mutex> lock(stop_mutex);
    stopped = true;
  }
  stopped_cv.notify_all();
  closer.join();
  // Every stream has ended and the worker holds nothing that needs saving: the process ends
  // here, not through its teardown (the producers' current make_batch, gRPC's and torch's
  // threads and statics), which is slow and unbounded (seconds under AddressSanitizer). So a
  // stop that ended every stream is exit 0 well inside the deadline, and the watchdog's exit 4
  // always means a stream that would not end.
  std::fflush(nullptr);
  std::_Exit(0);
}

std::shared_ptr<grpc::Channel> open_data_channel(const std::string& endpoint, const std::string& tls_ca_pem) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(1 << 30);
  // Batches are large: a wide HTTP/2 window lets a worker stay several batches ahead instead
  // of waiting a round trip for window updates every 64 KiB.
  args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 64 << 20);
  std::shared_ptr<grpc::ChannelCredentials> credentials =
      tls_ca_pem.empty() ? grpc::InsecureChannelCredentials()
                         : grpc::SslCredentials(grpc::SslCredentialsOptions{tls_ca_pem, "", ""});
  return grpc::CreateCustomChannel(endpoint, credentials, args);
}

}  // namespace pperf
