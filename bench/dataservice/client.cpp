// The trainer's side of the data service: a DataSource over one stream per data worker.
#include <grpcpp/grpcpp.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "bench/dataservice/data_service.grpc.pb.h"
#include "bench/dataservice/data_service.h"
#include "bench/dataservice/tensor_wire.h"
#include "workloads/workload.h"

namespace pperf {

namespace {

using Clock = std::chrono::steady_clock;

std::chrono::system_clock::time_point deadline_in(double seconds) {
  return std::chrono::system_clock::now() +
         std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

std::shared_ptr<grpc::Channel> open_channel(const std::string& endpoint) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(1 << 30);
  // Batches are large: a wide HTTP/2 window lets a worker stay several batches ahead instead
  // of waiting a round trip for window updates every 64 KiB.
  args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 64 << 20);
  return grpc::CreateCustomChannel(endpoint, grpc::InsecureChannelCredentials(), args);
}

dataservice::HandshakeRequest handshake_for(const WorkloadSpec& spec, const std::string& token) {
  dataservice::HandshakeRequest h;
  h.set_schema_version(kDataServiceSchemaVersion);
  h.set_token(token);
  auto* w = h.mutable_workload();
  w->set_name(spec.name);
  w->set_preset(spec.preset);
  w->set_batch_size(spec.batch_size);
  w->set_params_json(spec.params.dump());
  w->set_seed(spec.seed);
  return h;
}

class ServiceSource : public DataSource {
 public:
  ServiceSource(const WorkloadSpec& spec, ServiceSourceOptions options) : options_(std::move(options)) {
    const auto handshake = handshake_for(spec, options_.token);
    const int64_t streams = static_cast<int64_t>(options_.endpoints.size());
    for (int64_t k = 0; k < streams; ++k) {
      auto stream = std::make_unique<Stream>();
      stream->endpoint = options_.endpoints[k];
      stream->stub = dataservice::DataService::NewStub(open_channel(stream->endpoint));
      grpc::ClientContext context;
      context.set_deadline(deadline_in(options_.rpc_deadline_s));
      context.set_wait_for_ready(true);  // a just-started worker may still be binding
      dataservice::HandshakeReply reply;
      grpc::Status status = stream->stub->Handshake(&context, handshake, &reply);
      if (!status.ok())
        throw std::runtime_error(fmt::format("data worker {}: {}", stream->endpoint, status.error_message()));
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

 private:
  struct Stream {
    std::string endpoint;
    std::unique_ptr<dataservice::DataService::Stub> stub;
    dataservice::StreamRequest request;
    grpc::ClientContext context;
    std::thread reader;
    Clock::time_point last_batch;
    int64_t batches = 0;
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
        batch.inputs = tensor_from_wire(*message.mutable_inputs());
        batch.targets = tensor_from_wire(*message.mutable_targets());
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
      if (failure.empty()) failure = status.ok() ? "stream ended" : status.error_message();
      events_.push_back(fmt::format("data worker {} dropped after {} batches: {}", s.endpoint, s.batches, failure));
    }
    ready_.notify_all();
  }

  /// Called with the lock held: cancels streams silent for longer than the stall deadline.
  void drop_stalled_streams() {
    const auto now = Clock::now();
    for (auto& s : streams_)
      if (std::chrono::duration<double>(now - s->last_batch).count() > options_.batch_stall_deadline_s) {
        s->context.TryCancel();
        s->last_batch = now;  // cancel once; the reader reports the drop
      }
  }

  ServiceSourceOptions options_;
  std::vector<std::unique_ptr<Stream>> streams_;
  mutable std::mutex mutex_;
  std::condition_variable ready_, space_;
  std::deque<Batch> queue_;
  int64_t alive_ = 0;
  bool stopping_ = false;
  std::vector<std::string> events_;
};

bool wait_for_exit(int pid, double seconds) {
  const auto until = Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  while (Clock::now() < until) {
    int status;
    if (waitpid(pid, &status, WNOHANG) == pid) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

}  // namespace

std::unique_ptr<DataSource> connect_service(const WorkloadSpec& spec, const ServiceSourceOptions& options) {
  if (options.endpoints.empty()) throw std::runtime_error("data mode 'service' without endpoints");
  return std::make_unique<ServiceSource>(spec, options);
}

LocalDataGroup::LocalDataGroup(const std::string& pperf_binary, const std::string& config_path,
                               const std::string& workload, int64_t processes, int64_t workers_each,
                               const std::vector<int>& cpus, const std::string& token)
    : token_(token) {
  std::string cpu_list;
  for (int c : cpus) cpu_list += (cpu_list.empty() ? "" : ",") + std::to_string(c);
  for (int64_t i = 0; i < processes; ++i) {
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("cannot create a pipe for a data worker");
    std::vector<std::string> args = {pperf_binary, "data-worker", "--config", config_path, "--workload", workload,
                                     "--listen", "127.0.0.1:0", "--workers", std::to_string(workers_each)};
    if (!cpu_list.empty()) args.insert(args.end(), {"--cpus", cpu_list});
    // Everything the child needs is built before fork: between fork and exec only
    // async-signal-safe calls are allowed in a multi-threaded parent. The token travels in the
    // environment, not argv, so `ps` does not show it.
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e)
      if (std::string(*e).rfind("PPERF_DATA_TOKEN=", 0) != 0) env.emplace_back(*e);
    if (!token.empty()) env.push_back("PPERF_DATA_TOKEN=" + token);
    std::vector<char*> argv, envp;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    const int pid = fork();
    if (pid == 0) {
      dup2(out[1], STDOUT_FILENO);
      close(out[0]);
      close(out[1]);
      execve(pperf_binary.c_str(), argv.data(), envp.data());
      _exit(127);
    }
    close(out[1]);
    if (pid < 0) {
      close(out[0]);
      throw std::runtime_error("cannot start a data worker");
    }
    pids_.push_back(pid);
    // The worker prints its address once it listens; give it time to load its data set.
    std::string line;
    pollfd fd{out[0], POLLIN, 0};
    const auto until = Clock::now() + std::chrono::seconds(60);
    while (line.find('\n') == std::string::npos && Clock::now() < until) {
      if (poll(&fd, 1, 200) > 0) {
        char buf[256];
        ssize_t n = ::read(out[0], buf, sizeof buf);
        if (n <= 0) break;
        line.append(buf, n);
      }
    }
    close(out[0]);
    const std::string marker = "listening on ";
    const auto at = line.find(marker);
    if (at == std::string::npos) {
      throw std::runtime_error("data worker " + std::to_string(pid) + " did not start" +
                               (line.empty() ? "" : ": " + line.substr(0, line.find('\n'))));
    }
    endpoints_.push_back(line.substr(at + marker.size(), line.find('\n', at) - at - marker.size()));
  }
}

LocalDataGroup::~LocalDataGroup() {
  // Ask politely (Shutdown RPC), then SIGTERM; the worker shuts down cleanly on either.
  for (size_t i = 0; i < endpoints_.size(); ++i) {
    auto stub = dataservice::DataService::NewStub(open_channel(endpoints_[i]));
    grpc::ClientContext context;
    context.set_deadline(deadline_in(2));
    dataservice::ShutdownRequest request;
    request.set_token(token_);
    dataservice::ShutdownReply reply;
    stub->Shutdown(&context, request, &reply);
  }
  for (int pid : pids_) {
    if (wait_for_exit(pid, 5)) continue;
    kill(pid, SIGTERM);
    if (!wait_for_exit(pid, 5)) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
}

}  // namespace pperf
