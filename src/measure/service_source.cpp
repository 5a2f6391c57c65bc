// The trainer's side of the data service: a DataSource over one stream per data worker.
#include <grpcpp/grpcpp.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/dataservice/data_service.grpc.pb.h"
#include "src/dataservice/data_service.h"
#include "src/dataservice/tensor_wire.h"
#include "src/measure/data_sources.h"
#include "workloads/workload.h"

namespace pperf {

namespace {

using Clock = std::chrono::steady_clock;

std::chrono::system_clock::time_point deadline_in(double seconds) {
  return std::chrono::system_clock::now() +
         std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

/// What a worker that accepted a TCP connection does with an HTTP/2 preface (and settings)
/// within a few seconds: "http2" (it sent its settings: a plaintext worker), "tls" (a TLS
/// alert or record: a TLS worker), "closed", or "" (nothing at all).
std::string answer_to_preface(int fd) {
  static const char kPrefaceAndSettings[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0";
  if (::send(fd, kPrefaceAndSettings, sizeof kPrefaceAndSettings - 1, MSG_NOSIGNAL) < 0) return "closed";
  unsigned char head[9];
  const ssize_t n = ::recv(fd, head, sizeof head, MSG_WAITALL);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) return "closed";
  if (n < 0) return "";
  if (head[0] == 0x15 || head[0] == 0x16) return "tls";
  return n >= 4 && head[3] == 0x04 ? "http2" : "closed";
}

/// gRPC says "Deadline Exceeded" for a worker that is not there: ask the network what is wrong.
std::string describe_failure(const std::string& endpoint, const grpc::Status& status, bool tls) {
  if (status.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED && status.error_code() != grpc::StatusCode::UNAVAILABLE)
    return status.error_message();
  const auto colon = endpoint.rfind(':');
  std::string host = endpoint.substr(0, colon);
  if (host.size() > 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), endpoint.substr(colon + 1).c_str(), &hints, &found) != 0 || !found)
    return "cannot resolve " + host + " (" + status.error_message() + ")";
  std::string reason = status.error_message();
  const int fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0) {
    timeval timeout{3, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    if (::connect(fd, found->ai_addr, found->ai_addrlen) != 0) {
      reason = (errno == ECONNREFUSED ? "connection refused" : std::string(std::strerror(errno))) + " at " + endpoint;
    } else {
      const std::string answer = answer_to_preface(fd);
      const std::string prefix = "reachable at " + endpoint + " but not answering the data-service handshake (" +
                                 status.error_message() + "): ";
      if (answer == "http2" && tls)
        reason = prefix + "it speaks plaintext HTTP/2, so it is not a TLS worker (remove tls_ca)";
      else if (answer == "tls" && !tls)
        reason = prefix + "it is a TLS worker (the config needs execution.data.tls_ca)";
      else if (answer == "closed")
        reason = prefix + "it closes new connections (stopping, or strangers' connections fill its cap)";
      else
        reason = prefix + "it accepts connections but answers nothing within 3 s (stopped, e.g. SIGSTOP, or overloaded)";
    }
    ::close(fd);
  }
  freeaddrinfo(found);
  return reason;
}

dataservice::HandshakeRequest handshake_for(const WorkloadSpec& spec, const ServiceSourceOptions& options) {
  dataservice::HandshakeRequest h;
  h.set_schema_version(kDataServiceSchemaVersion);
  h.set_token(options.token);
  h.set_dataset(options.dataset);
  h.set_dataset_kwargs(options.dataset_kwargs);
  auto* w = h.mutable_workload();
  w->set_name(spec.name);
  w->set_preset(spec.preset);
  w->set_batch_size(spec.batch_size);
  w->set_params_json(spec.params.dump());
  w->set_seed(spec.seed);
  w->set_wire(spec.wire);
  return h;
}

class ServiceSource : public DataSource {
 public:
  ServiceSource(const WorkloadSpec& spec, ServiceSourceOptions options) : options_(std::move(options)) {
    const auto handshake = handshake_for(spec, options_);
    const int64_t streams = static_cast<int64_t>(options_.endpoints.size());
    for (int64_t k = 0; k < streams; ++k) {
      auto stream = std::make_unique<Stream>();
      stream->endpoint = options_.endpoints[k];
      stream->stub = dataservice::DataService::NewStub(open_data_channel(stream->endpoint, options_.tls_ca_pem));
      dataservice::HandshakeReply reply;
      const grpc::Status status = handshake_with(*stream->stub, handshake, &reply);
      if (!status.ok())
        throw std::runtime_error(fmt::format("data worker {}: {}", stream->endpoint,
                                             describe_failure(stream->endpoint, status, !options_.tls_ca_pem.empty())));
      std::vector<TensorDecl> served;
      for (const auto& t : reply.tensors()) served.push_back({t.name(), t.dtype(), {t.shape().begin(), t.shape().end()}});
      if (!options_.expected_layout.empty()) {
        if (served.empty() && !options_.dataset.empty())
          throw std::runtime_error(fmt::format("data worker {}: declares no tensors in its handshake (a Python worker must)",
                                               stream->endpoint));
        if (const std::string why = layout_mismatch(options_.expected_layout, served); !served.empty() && !why.empty())
          throw std::runtime_error(fmt::format("data worker {} does not fit workload {}: {}", stream->endpoint, spec.name, why));
      }
      if (layout_.empty()) layout_ = served;
      if (!data_info_) data_info_ = DataInfo{reply.data_source(), reply.data_path(), reply.data_samples()};
      stream->request.mutable_handshake()->CopyFrom(handshake);
      stream->request.set_first_index(k);  // batches interleave: worker k serves k, k+P, ...
      stream->request.set_stride(streams);
      stream->last_batch = Clock::now();
      streams_.push_back(std::move(stream));
    }
    alive_ = streams;
    for (auto& s : streams_) s->reader = std::thread([this, s = s.get()] { read(*s); });
  }

  ~ServiceSource() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    for (auto& s : streams_) s->context.TryCancel();
    space_.notify_all();
    for (auto& s : streams_) s->reader.join();
  }

  std::optional<Batch> next() override {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (ready_.wait_for(lock, std::chrono::milliseconds(200), [&] { return !queue_.empty() || alive_ == 0; })) break;
      drop_stalled_streams();
    }
    if (queue_.empty())
      throw std::runtime_error("every data worker failed: " + fmt::format("{}", fmt::join(events_, "; ")));
    Batch batch = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    space_.notify_one();
    return batch;
  }

  std::vector<std::string> events() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return events_;
  }

  std::optional<DataInfo> data_info() const override { return data_info_; }

  // The workers' own read-ahead (their prefetch per stream, the transport's window) cannot be
  // held from here nor seen: the head start is known only when the queue was already full at
  // the pause (the trainer outpaces none of it then: no step waits in steady state either).
  void pause() override {
    std::lock_guard<std::mutex> lock(mutex_);
    full_at_pause_ = static_cast<int64_t>(queue_.size()) >= options_.prefetch_batches;
  }
  std::optional<int64_t> resume() override {
    std::lock_guard<std::mutex> lock(mutex_);
    return full_at_pause_ ? std::optional<int64_t>(0) : std::nullopt;
  }

 private:
  /// The handshake, retried within the RPC deadline while the worker's call threads are all
  /// busy (RESOURCE_EXHAUSTED from gRPC's thread quota, e.g. during a flood of calls).
  grpc::Status handshake_with(dataservice::DataService::Stub& stub, const dataservice::HandshakeRequest& handshake,
                              dataservice::HandshakeReply* reply) const {
    const auto deadline = deadline_in(options_.rpc_deadline_s);
    for (;;) {
      grpc::ClientContext context;
      context.set_deadline(deadline);
      context.set_wait_for_ready(true);  // a just-started worker may still be binding
      grpc::Status status = stub.Handshake(&context, handshake, reply);
      if (status.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED || std::chrono::system_clock::now() > deadline)
        return status;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  struct Stream {
    std::string endpoint;
    std::unique_ptr<dataservice::DataService::Stub> stub;
    dataservice::StreamRequest request;
    grpc::ClientContext context;
    std::thread reader;
    Clock::time_point last_batch;
    int64_t batches = 0;
    bool stalled = false;  // cancelled by the trainer's own stall deadline
  };

  void read(Stream& s) {
    // A stream lives as long as the measurement; the stall watchdog in next() bounds silence.
    s.context.set_deadline(deadline_in(7 * 24 * 3600.0));
    auto reader = s.stub->StreamBatches(&s.context, s.request);
    dataservice::BatchMessage message;
    std::string failure;
    while (reader->Read(&message)) {
      Batch batch;
      try {
        batch.index = message.index();
        for (const auto& decl : layout_) {
          const std::string& dtype = decl.name == "inputs" ? message.inputs().dtype() : message.targets().dtype();
          if (dtype != decl.dtype)
            throw std::runtime_error(fmt::format("batch {}: {} is {}, its handshake declared {}", batch.index, decl.name,
                                                 dtype, decl.dtype));
        }
        batch.inputs = tensor_from_wire(*message.mutable_inputs());
        batch.targets = tensor_from_wire(*message.mutable_targets());
        if (options_.pin_memory) batch = pin_batch(std::move(batch));  // off the training thread
        check_batch_shape(batch);
      } catch (const std::exception& e) {
        failure = e.what();
        s.context.TryCancel();
        break;
      }
      std::unique_lock<std::mutex> lock(mutex_);
      space_.wait(lock, [&] { return stopping_ || static_cast<int64_t>(queue_.size()) < options_.prefetch_batches; });
      if (stopping_) break;
      queue_.push_back(std::move(batch));
      s.last_batch = Clock::now();
      ++s.batches;
      lock.unlock();
      ready_.notify_one();
    }
    grpc::Status status = reader->Finish();
    std::lock_guard<std::mutex> lock(mutex_);
    --alive_;
    if (!stopping_) {
      if (s.stalled)
        failure = fmt::format("no batch for {} s (batch_stall_deadline_s): the worker sent nothing (stopped, e.g. SIGSTOP, or overloaded)",
                              options_.batch_stall_deadline_s);
      else if (failure.empty())
        failure = status.ok() ? "stream ended" : status.error_message();
      events_.push_back(fmt::format("data worker {} dropped after {} batches: {}", s.endpoint, s.batches, failure));
    }
    ready_.notify_all();
  }

  /// A batch must be [B] + the declared per-sample shape of each tensor (B >= 1, the same for both).
  void check_batch_shape(const Batch& batch) const {
    for (const auto& decl : layout_) {
      const torch::Tensor& t = decl.name == "inputs" ? batch.inputs : batch.targets;
      std::vector<int64_t> want = {batch.inputs.dim() > 0 ? batch.inputs.size(0) : 0};
      want.insert(want.end(), decl.shape.begin(), decl.shape.end());
      if (want[0] < 1 || t.sizes().vec() != want)
        throw std::runtime_error(fmt::format("batch {}: {} has shape [{}], its handshake declared [B,{}] per batch",
                                             batch.index, decl.name, fmt::join(t.sizes().vec(), ","),
                                             fmt::join(decl.shape, ",")));
    }
  }

  /// Called with the lock held: cancels streams silent for longer than the stall deadline.
  void drop_stalled_streams() {
    const auto now = Clock::now();
    for (auto& s : streams_)
      if (std::chrono::duration<double>(now - s->last_batch).count() > options_.batch_stall_deadline_s) {
        s->context.TryCancel();
        s->stalled = true;
        s->last_batch = now;  // cancel once; the reader reports the drop
      }
  }

  ServiceSourceOptions options_;
  std::optional<DataInfo> data_info_;
  std::vector<TensorDecl> layout_;  // as the first worker declared it (all are checked against the model)
  std::vector<std::unique_ptr<Stream>> streams_;
  mutable std::mutex mutex_;
  std::condition_variable ready_, space_;
  std::deque<Batch> queue_;
  int64_t alive_ = 0;
  bool stopping_ = false;
  bool full_at_pause_ = false;
  std::vector<std::string> events_;
};

}  // namespace

std::unique_ptr<DataSource> connect_service(const WorkloadSpec& spec, const ServiceSourceOptions& options) {
  if (options.endpoints.empty()) throw std::runtime_error("data mode 'service' without endpoints");
  return std::make_unique<ServiceSource>(spec, options);
}

}  // namespace pperf
