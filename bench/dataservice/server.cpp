// `pperf data-worker`: serves one workload's ready batches over gRPC.
#include <grpcpp/grpcpp.h>
#include <sched.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <thread>

#include "bench/core/input_error.h"
#include "bench/dataservice/data_service.grpc.pb.h"
#include "bench/dataservice/data_service.h"
#include "bench/dataservice/tensor_wire.h"
#include "bench/env/process.h"
#include "workloads/common/local_loader.h"

namespace pperf {

namespace {

std::atomic<bool> g_worker_stop{false};
extern "C" void on_worker_signal(int) { g_worker_stop = true; }

bool is_loopback(const std::string& listen) {
  const std::string host = listen.substr(0, listen.rfind(':'));
  return host.rfind("127.", 0) == 0 || host == "localhost" || host == "[::1]";
}

/// Constant-time comparison, so a token cannot be guessed byte by byte from timing.
bool same_token(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

class DataServiceImpl final : public dataservice::DataService::Service {
 public:
  DataServiceImpl(WorkloadSpec spec, std::shared_ptr<const InputPipeline> pipeline,
                  DataWorkerOptions options)
      : spec_(std::move(spec)), pipeline_(std::move(pipeline)), options_(std::move(options)) {}

  grpc::Status Handshake(grpc::ServerContext*, const dataservice::HandshakeRequest* request,
                         dataservice::HandshakeReply* reply) override {
    grpc::Status refused = check(*request);
    if (!refused.ok()) return refused;
    reply->set_schema_version(kDataServiceSchemaVersion);
    reply->set_preprocessing_threads(static_cast<int32_t>(options_.workers));
    const DataInfo info = pipeline_->data_info();
    reply->set_data_source(info.source);
    reply->set_data_path(info.path);
    reply->set_data_samples(info.samples);
    return grpc::Status::OK;
  }

  grpc::Status StreamBatches(grpc::ServerContext* context, const dataservice::StreamRequest* request,
                             grpc::ServerWriter<dataservice::BatchMessage>* writer) override {
    grpc::Status refused = check(request->handshake());
    if (!refused.ok()) return refused;
    if (request->first_index() < 0 || request->stride() < 1)
      return {grpc::StatusCode::INVALID_ARGUMENT, "first_index must be >= 0 and stride >= 1"};
    // Each stream has its own preprocessing threads; the loader's bound plus gRPC's flow
    // control make a slow trainer slow the worker down instead of queueing without limit.
    LocalLoader loader(pipeline_, options_.workers, options_.prefetch_batches, request->first_index(),
                       request->stride());
    while (!context->IsCancelled() && !g_worker_stop) {
      std::optional<Batch> batch = loader.next();
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
    if (!options_.token.empty() && !same_token(request->token(), options_.token))
      return {grpc::StatusCode::UNAUTHENTICATED, "bad token"};
    g_worker_stop = true;
    return grpc::Status::OK;
  }

 private:
  grpc::Status check(const dataservice::HandshakeRequest& request) const {
    auto refuse = [](const std::string& why) {
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "handshake refused: " + why);
    };
    if (!options_.token.empty() && !same_token(request.token(), options_.token))
      return {grpc::StatusCode::UNAUTHENTICATED, "handshake refused: bad or missing token"};
    if (request.schema_version() != kDataServiceSchemaVersion)
      return refuse("schema version " + std::to_string(request.schema_version()) + ", this worker speaks " +
                    std::to_string(kDataServiceSchemaVersion));
    const auto& w = request.workload();
    if (w.name() != spec_.name) return refuse("workload '" + w.name() + "', this worker serves '" + spec_.name + "'");
    if (w.preset() != spec_.preset)
      return refuse("preset '" + w.preset() + "', this worker serves '" + spec_.preset + "'");
    if (w.batch_size() != spec_.batch_size)
      return refuse("batch size " + std::to_string(w.batch_size()) + ", this worker serves " +
                    std::to_string(spec_.batch_size));
    if (w.seed() != spec_.seed) return refuse("seed " + std::to_string(w.seed()) + ", this worker uses " + std::to_string(spec_.seed));
    const auto params = nlohmann::json::parse(w.params_json(), nullptr, /*allow_exceptions=*/false);
    if (params != spec_.params) return refuse("params " + w.params_json() + ", this worker uses " + spec_.params.dump());
    return grpc::Status::OK;
  }

  WorkloadSpec spec_;
  std::shared_ptr<const InputPipeline> pipeline_;
  DataWorkerOptions options_;
};

}  // namespace

int run_data_worker(const WorkloadSpec& spec, const WorkloadRegistry& registry, const DataWorkerOptions& options) {
  if (!is_loopback(options.listen) && options.token.empty())
    throw InputError("--listen", "", options.listen + " is not loopback: a token is required (--token or PPERF_DATA_TOKEN)");
  if (!pin_process_to_cpus(options.cpus)) throw InputError("--cpus", "", "cannot pin to those CPUs");
  const WorkloadDescriptor* descriptor = registry.find(spec.name);
  if (!descriptor) throw InputError("--workload", "", "unknown workload '" + spec.name + "'");
  DataServiceImpl service(spec, descriptor->make_pipeline(spec), options);

  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(options.listen, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  builder.SetMaxReceiveMessageSize(64 * 1024);  // requests are small; refuse anything larger
  builder.SetMaxSendMessageSize(1 << 30);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 64 << 20);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) throw InputError("--listen", "", "cannot listen on " + options.listen);

  std::signal(SIGTERM, on_worker_signal);
  std::signal(SIGINT, on_worker_signal);
  const std::string host = options.listen.substr(0, options.listen.rfind(':'));
  std::cout << "pperf data-worker listening on " << host << ":" << port << std::endl;
  while (!g_worker_stop) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  server->Wait();
  return 0;
}


std::shared_ptr<grpc::Channel> open_data_channel(const std::string& endpoint) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(1 << 30);
  // Batches are large: a wide HTTP/2 window lets a worker stay several batches ahead instead
  // of waiting a round trip for window updates every 64 KiB.
  args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 64 << 20);
  return grpc::CreateCustomChannel(endpoint, grpc::InsecureChannelCredentials(), args);
}

}  // namespace pperf
