// `pperf data-worker`: serves one workload's ready batches over gRPC.
#include <grpc/grpc.h>
#include <grpc/support/log.h>
#include <google/protobuf/stubs/logging.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/resource_quota.h>
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
/// A connection must start HTTP/2 (or TLS) within this, and finish its TLS handshake and send
/// its HTTP/2 settings within as long again; a trainer does so at once.
constexpr std::chrono::milliseconds kHandshakeDeadline{5000};
/// A connection must carry a call with the right token (any well-formed call on a worker
/// without one) within this, or it is shut down; a trainer's first call comes at once.
constexpr std::chrono::milliseconds kTrustDeadline{10000};
/// Calls open at once on one connection (SETTINGS_MAX_CONCURRENT_STREAMS; more are refused by
/// gRPC's transport). A trainer has at most two: its handshake, then its stream.
constexpr int kMaxCallsPerConnection = 4;
/// gRPC's threads for calls, beyond one per stream: every call needs one while it runs; past
/// the bound a call is answered RESOURCE_EXHAUSTED at once (the trainer retries).
constexpr int kCallThreadsBeyondStreams = 8;
/// A blocked write is a stall only past this many times the longest wait per batch its reader
/// needed before (and past --stall-timeout-s per batch): a reader that keeps its pace is never dropped.
constexpr int64_t kStallScale = 4;
/// A write pending this long waited for the reader's flow-control window to open (a write
/// into an open window completes in well under a millisecond on loopback, a few on a network).
constexpr std::chrono::milliseconds kWindowShut{50};
/// At most this many batches are counted as let through by one opening of a reader's window:
/// bounds the wait for a reader that read ahead into a large window and then stopped.
constexpr int64_t kMaxBatchesPerOpening = 64;
/// A connection with no RPC for this long is closed (GOAWAY: a client just reconnects).
constexpr int kMaxConnectionIdleMs = 30000;
/// Pings on connections with streams find peers that vanished without a FIN.
constexpr int kKeepaliveTimeMs = 60000, kKeepaliveTimeoutMs = 20000;
/// Descriptors kept free beyond those open when the worker starts serving (gRPC's, torch's,
/// files a pipeline opens later, and connections the gate shut down that gRPC has not closed
/// yet): the connection cap is the limit minus both.
constexpr int64_t kDescriptorMargin = 64;
/// Lines about bad peers (failed handshakes, e.g. plaintext clients of a TLS worker; requests
/// protobuf cannot parse) are printed once per interval, then counted: spawned workers share
/// the user's terminal.
constexpr std::chrono::seconds kLogSummaryInterval{60};

/// gRPC's and protobuf's log lines, except that those about bad peers (failed handshakes,
/// requests protobuf cannot parse) are summarized: the first of each interval is printed, the
/// rest counted and reported in one line when the interval is over.
class HandshakeLogSummary {
 public:
  static void install() {
    gpr_set_log_function(&HandshakeLogSummary::log);
    google::protobuf::SetLogHandler(&HandshakeLogSummary::log_protobuf);
  }

  /// Prints the count of failures not yet reported, if the interval is over (or `now_anyway`).
  static void flush(bool now_anyway) {
    std::lock_guard<std::mutex> lock(mutex_);
    flush_locked(std::chrono::steady_clock::now(), now_anyway);
  }

 private:
  /// Protobuf logs only what it meets parsing requests from the network: all of it is summarized.
  static void log_protobuf(google::protobuf::LogLevel, const char* file, int line, const std::string& message) {
    print('E', file, line, message.c_str(), true);
  }

  static void log(gpr_log_func_args* args) {
    const char severity = args->severity == GPR_LOG_SEVERITY_ERROR ? 'E' : args->severity == GPR_LOG_SEVERITY_INFO ? 'I' : 'D';
    const char* message = args->message ? args->message : "";
    print(severity, args->file, args->line, message, is_handshake_failure(message));
  }

  static void print(char severity, const char* file_path, int line, const char* message, bool about_a_peer) {
    const char* file = file_path ? file_path : "";
    const char* base = std::strrchr(file, '/');
    base = base ? base + 1 : file;
    if (!about_a_peer) {
      std::fprintf(stderr, "%c %s:%d] %s\n", severity, base, line, message);
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
    std::fprintf(stderr, "%c %s:%d] %s (further failed handshakes and malformed requests in the next %lld s are counted, not printed)\n",
                 severity, base, line, message, static_cast<long long>(kLogSummaryInterval.count()));
  }

  static bool is_handshake_failure(const char* message) {
    return std::strstr(message, "SSL_ERROR") || std::strstr(message, "andshake failed") ||
           std::strstr(message, "andshaking failed") || std::strstr(message, "Compression algorithm");
  }

  static void flush_locked(std::chrono::steady_clock::time_point now, bool now_anyway) {
    if (!printed_in_interval_ || (!now_anyway && now - interval_start_ < kLogSummaryInterval)) return;
    if (suppressed_ > 0)
      std::fprintf(stderr, "pperf data-worker: %lld more connections failed their handshake or sent malformed requests in the last %lld s (e.g. plaintext clients of a TLS worker)\n",
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

/// Ends a stream whose Write is blocked (the reader's flow-control window shut) when the worker
/// cannot wait for its reader, and at once when the worker is stopping. The worker sees write
/// completions, not reads: a reader that reads ahead (a window of several batches) opens its
/// window only every few batches, after taking them from its own buffer. So a blocked write
/// waits max(stall_bound, kStallScale x the longest wait per batch before) for each batch the
/// window let through when it last opened (the blocked write that opened it and those that then
/// went straight through; at the stream's start, those the first window held): a reader that
/// takes a batch every stall_bound or sooner is never cut. The status names the cause, and the
/// slot is free for another trainer. Cancelling the call
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
    const auto now = std::chrono::steady_clock::now();
    if (now_writing) {
      batches_per_opening_ = std::max<int64_t>(1, let_through_);
    } else if (const auto wait = now - since_; wait >= kWindowShut) {
      longest_wait_per_batch_ = std::max(longest_wait_per_batch_, wait / batches_per_opening_);
      let_through_ = 1;  // the window opened: this batch is the first it lets through
    } else {
      let_through_ = std::min(let_through_ + 1, kMaxBatchesPerOpening);
    }
    writing_ = now_writing;
    since_ = now;
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
      } else if (const auto bound = batches_per_opening_ * std::max<std::chrono::steady_clock::duration>(
                                                                stall_bound_, kStallScale * longest_wait_per_batch_);
                 std::chrono::steady_clock::now() - since_ > bound) {
        std::ostringstream why;
        const auto seconds = [](std::chrono::steady_clock::duration d) {
          return std::chrono::duration_cast<std::chrono::milliseconds>(d).count() / 1000.0;
        };
        why << "stream cancelled by the data worker: no batch read for " << seconds(bound) << " s (its flow-control window shut for "
            << batches_per_opening_ << " x " << seconds(bound / batches_per_opening_)
            << " s, per batch it last let through: --stall-timeout-s " << seconds(stall_bound_) << " s, or " << kStallScale
            << "x the longest wait per batch before); its slot is free for another trainer";
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
  std::chrono::steady_clock::duration longest_wait_per_batch_{};  // of a write the window held up
  int64_t let_through_ = 0;          // writes since the window last opened, that one included
  int64_t batches_per_opening_ = 1;  // let_through_ when the pending write began
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

/// The DataService, registered by hand as protoc's generated Service would be, except that
/// StreamBatches writes WireBatch (a BatchMessage's wire bytes, its tensors not copied).
class DataServiceImpl final : public grpc::Service {
 public:
  DataServiceImpl(WorkloadSpec spec, std::shared_ptr<const InputPipeline> pipeline, std::vector<TensorDecl> layout,
                  DataWorkerOptions options)
      : served_{std::move(spec), options.token},
        pipeline_(std::move(pipeline)),
        layout_(std::move(layout)),
        options_(std::move(options)) {
    using grpc::internal::RpcMethod;
    using grpc::internal::RpcServiceMethod;
    using Message = grpc::protobuf::MessageLite;
    AddMethod(new RpcServiceMethod(
        kHandshakeMethod.c_str(), RpcMethod::NORMAL_RPC,
        new grpc::internal::RpcMethodHandler<DataServiceImpl, dataservice::HandshakeRequest, dataservice::HandshakeReply,
                                             Message, Message>(&DataServiceImpl::Handshake, this)));
    AddMethod(new RpcServiceMethod(
        kStreamBatchesMethod.c_str(), RpcMethod::SERVER_STREAMING,
        new grpc::internal::ServerStreamingHandler<DataServiceImpl, dataservice::StreamRequest, WireBatch>(
            &DataServiceImpl::StreamBatches, this)));
    AddMethod(new RpcServiceMethod(
        kShutdownMethod.c_str(), RpcMethod::NORMAL_RPC,
        new grpc::internal::RpcMethodHandler<DataServiceImpl, dataservice::ShutdownRequest, dataservice::ShutdownReply,
                                             Message, Message>(&DataServiceImpl::Shutdown, this)));
  }

  /// The gate that keeps connections whose calls pass the token check and shuts the others.
  void set_gate(ConnectionGate* gate) { gate_ = gate; }
  int64_t active_streams() const { return active_streams_; }

  grpc::Status Handshake(grpc::ServerContext* context, const dataservice::HandshakeRequest* request,
                         dataservice::HandshakeReply* reply) {
    const std::optional<Refusal> refused = check_handshake(*request, served_);
    judge(context, refused);
    if (refused) return to_status(*refused);
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
                             grpc::ServerWriter<WireBatch>* writer) {
    const std::optional<Refusal> refused = check_stream_request(*request, served_);
    judge(context, refused);
    if (refused) return to_status(*refused);
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
      const WireBatch message = batch_to_wire(batch->index, batch->inputs, batch->targets);
      guard.writing(true);
      const bool written = writer->Write(message);
      guard.writing(false);
      if (!written) break;  // the trainer went away, or the guard ended the stream (and said why)
    }
    if (g_worker_stop) return {grpc::StatusCode::UNAVAILABLE, "data worker shutting down"};
    return grpc::Status::OK;
  }

  grpc::Status Shutdown(grpc::ServerContext* context, const dataservice::ShutdownRequest* request,
                        dataservice::ShutdownReply*) {
    if (!shutdown_authorized(*request, served_)) {
      judge(context, Refusal{RefusalKind::unauthenticated, ""});
      return {grpc::StatusCode::UNAUTHENTICATED, "bad token"};
    }
    g_worker_stop = true;
    return grpc::Status::OK;
  }

 private:
  static inline const std::string kService = "/" + std::string(dataservice::DataService::service_full_name()) + "/";
  static inline const std::string kHandshakeMethod = kService + "Handshake";
  static inline const std::string kStreamBatchesMethod = kService + "StreamBatches";
  static inline const std::string kShutdownMethod = kService + "Shutdown";

  /// A call with a wrong token marks its connection a stranger's (the gate shuts it down);
  /// any other keeps its connection.
  void judge(grpc::ServerContext* context, const std::optional<Refusal>& refused) {
    ConnectionGate* gate = gate_;
    if (!gate) return;
    if (refused && refused->kind == RefusalKind::unauthenticated)
      gate->distrust(context->peer());
    else
      gate->vouch(context->peer());
  }

  ServedWorkload served_;
  std::shared_ptr<const InputPipeline> pipeline_;
  std::vector<TensorDecl> layout_;
  DataWorkerOptions options_;
  std::atomic<int64_t> active_streams_{0};
  std::atomic<ConnectionGate*> gate_{nullptr};
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
  const std::vector<std::string> wires = exact_wires(descriptor->capabilities);
  if (std::find(wires.begin(), wires.end(), spec.wire) == wires.end())
    throw InputError("--wire", "", "workload '" + spec.name + "' cannot send its batches as " + spec.wire + " exactly");
  DataServiceImpl service(spec, descriptor->make_pipeline(spec),
                          descriptor->batch_layout ? layout_on_wire(descriptor->batch_layout(spec), spec.wire) : std::vector<TensorDecl>{},
                          options);
  // The gate accepts connections, plaintext and TLS, and hands gRPC those that start HTTP/2 or
  // TLS (see connection_gate.h); gRPC's external-connection acceptor then runs the TLS
  // handshake and waits for the client's HTTP/2 settings, both within kHandshakeDeadline.
  const auto [listen_fd, port] = listen_tcp(host, requested_port);
  grpc::ServerBuilder builder;
  std::shared_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor = builder.experimental().AddExternalConnectionAcceptor(
      grpc::ServerBuilder::experimental_type::ExternalConnectionType::FROM_FD, credentials);
  builder.RegisterService(&service);
  builder.SetMaxReceiveMessageSize(kMaxRequestBytes);
  builder.SetMaxSendMessageSize(1 << 30);
  // Compressed requests would be inflated before the size limit sees them.
  builder.SetCompressionAlgorithmSupportStatus(GRPC_COMPRESS_DEFLATE, false);
  builder.SetCompressionAlgorithmSupportStatus(GRPC_COMPRESS_GZIP, false);
  // One completion queue and a thread quota: the sync server's threads are bounded.
  grpc::ResourceQuota quota("pperf-data-worker");
  quota.SetMaxThreads(static_cast<int>(options.max_streams) + kCallThreadsBeyondStreams);
  builder.SetResourceQuota(quota);
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::NUM_CQS, 1);
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MIN_POLLERS, 1);
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS, 2);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, kMaxCallsPerConnection);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 64 << 20);
  builder.AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS, static_cast<int>(kHandshakeDeadline.count()));
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, kMaxConnectionIdleMs);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, kKeepaliveTimeMs);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, kKeepaliveTimeoutMs);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server) {
    ::close(listen_fd);
    throw InputError("--listen", "", "cannot listen on " + options.listen);
  }
  GateOptions gate_options;
  gate_options.max_connections = std::max<int64_t>(2, descriptor_limit - open_descriptors() - kDescriptorMargin);
  gate_options.handshake_deadline = kHandshakeDeadline;
  gate_options.trust_deadline = kTrustDeadline;
  gate_options.tls = !options.tls_cert.empty();
  std::optional<ConnectionGate> gate;
  gate.emplace(listen_fd, gate_options, [acceptor, listen_fd = listen_fd](int fd) {
    grpc::experimental::ExternalConnectionAcceptor::NewConnectionParameters connection;
    connection.listener_fd = listen_fd;
    connection.fd = fd;
    acceptor->HandleNewConnection(&connection);
  });
  service.set_gate(&*gate);

  std::signal(SIGTERM, on_worker_signal);
  std::signal(SIGINT, on_worker_signal);
  std::cout << "pperf data-worker listening on " << host << ":" << port << std::endl;
  while (!g_worker_stop) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    HandshakeLogSummary::flush(false);
  }
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
  // Streams end by themselves within kCancelCheckMs (with "shutting down"); then the server
  // stops at once: idle connections held by clients do not delay the exit.
  const auto grace_end = std::chrono::steady_clock::now() + kStopGrace;
  while (service.active_streams() > 0 && std::chrono::steady_clock::now() < grace_end)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  server->Shutdown(std::chrono::system_clock::now());
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
  // A receive window below one batch: the worker's write of a batch then completes when the
  // trainer takes the one before, which is how the worker tells a slow reader from one that
  // stopped (its stall timeout). The trainer's own queue holds the batches read ahead; each
  // read opens the window for the whole next message at once.
  args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, kTrainerWindowBytes);
  args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  std::shared_ptr<grpc::ChannelCredentials> credentials =
      tls_ca_pem.empty() ? grpc::InsecureChannelCredentials()
                         : grpc::SslCredentials(grpc::SslCredentialsOptions{tls_ca_pem, "", ""});
  return grpc::CreateCustomChannel(endpoint, credentials, args);
}

}  // namespace pperf
