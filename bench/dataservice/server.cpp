// `pperf data-worker`: serves one workload's ready batches over gRPC.
#include <grpcpp/grpcpp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "bench/core/atomic_file.h"
#include "bench/core/input_error.h"
#include "bench/dataservice/data_service.grpc.pb.h"
#include "bench/dataservice/data_service.h"
#include "bench/dataservice/request_check.h"
#include "bench/dataservice/tensor_wire.h"
#include "bench/env/process.h"
#include "workloads/common/local_loader.h"

namespace pperf {

namespace {

std::atomic<bool> g_worker_stop{false};
extern "C" void on_worker_signal(int) { g_worker_stop = true; }

/// How often a stream handler waiting for its next batch checks for cancellation and shutdown.
constexpr int64_t kCancelCheckMs = 100;
/// From SIGTERM (or a Shutdown RPC) to the worker's exit, at most.
constexpr std::chrono::seconds kStopDeadline{4};

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
              "this data worker already serves " + std::to_string(options_.max_streams) + " streams (--max-streams)"};
    // Each stream has its own preprocessing threads; the loader's bound plus gRPC's flow
    // control make a slow trainer slow the worker down instead of queueing without limit.
    LocalLoader loader(pipeline_, options_.workers, options_.prefetch_batches, request->first_index(),
                       request->stride());
    while (!context->IsCancelled() && !g_worker_stop) {
      bool timed_out = false;
      std::optional<Batch> batch = loader.next_within(kCancelCheckMs, timed_out);
      if (timed_out) continue;  // look at cancellation and shutdown again
      if (!batch) break;
      dataservice::BatchMessage message;
      message.set_index(batch->index);
      tensor_to_wire(batch->inputs, message.mutable_inputs());
      tensor_to_wire(batch->targets, message.mutable_targets());
      if (!writer->Write(message)) break;  // the trainer went away
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
  if (!pin_process_to_cpus(options.cpus)) throw InputError("--cpus", "", "cannot pin to those CPUs");
  const WorkloadDescriptor* descriptor = registry.find(spec.name);
  if (!descriptor) throw InputError("--workload", "", "unknown workload '" + spec.name + "'");
  const std::shared_ptr<grpc::ServerCredentials> credentials = server_credentials(options);

  // The service (and the pipeline it owns) outlives the server: Wait() returns only once every
  // handler has returned, and each handler joins its loader threads before it returns.
  DataServiceImpl service(spec, descriptor->make_pipeline(spec),
                          descriptor->batch_layout ? descriptor->batch_layout(spec) : std::vector<TensorDecl>{}, options);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(options.listen, credentials, &port);
  builder.RegisterService(&service);
  builder.SetMaxReceiveMessageSize(kMaxRequestBytes);
  builder.SetMaxSendMessageSize(1 << 30);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 64 << 20);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) throw InputError("--listen", "", "cannot listen on " + options.listen);

  std::signal(SIGTERM, on_worker_signal);
  std::signal(SIGINT, on_worker_signal);
  std::cout << "pperf data-worker listening on " << host << ":" << port << std::endl;
  while (!g_worker_stop) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  // Handlers see the stop flag within kCancelCheckMs; the Shutdown deadline cancels any still
  // writing. A handler can still be inside a long make_batch, which nothing can interrupt, and
  // the process's own teardown (gRPC's and torch's threads, static objects) is not bounded
  // either. The worker holds nothing that needs saving, so one watchdog bounds the whole exit:
  // past kStopDeadline it ends the process at once, and SIGTERM always ends it within seconds.
  // It says which phase was slow (a normal stop says nothing: spawned workers share the
  // user's terminal).
  static std::atomic<bool> streams_done{false};
  std::thread([] {
    std::this_thread::sleep_for(kStopDeadline);
    static const char in_streams[] = "pperf data-worker: a stream still running after the stop deadline; exiting now\n";
    static const char in_teardown[] = "pperf data-worker: streams done, process teardown past the stop deadline; exiting now\n";
    const bool teardown = streams_done;
    [[maybe_unused]] const ssize_t written =
        teardown ? ::write(STDERR_FILENO, in_teardown, sizeof in_teardown - 1)
                 : ::write(STDERR_FILENO, in_streams, sizeof in_streams - 1);
    std::_Exit(0);
  }).detach();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  server->Wait();
  streams_done = true;
  return 0;
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
