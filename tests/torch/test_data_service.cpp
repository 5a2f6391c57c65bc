#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>

#include "src/config/config.h"
#include <grpcpp/grpcpp.h>

#include <limits>
#include <map>
#include <random>
#include <mutex>
#include <thread>

#include "src/dataservice/connection_gate.h"
#include "src/dataservice/data_service.grpc.pb.h"
#include "src/dataservice/data_service.h"
#include "src/dataservice/tensor_wire.h"
#include "src/core/process.h"
#include "src/measure/data_sources.h"
#include "test_helpers.h"
#include "workloads/common/augment.h"
#include "workloads/workload.h"

using namespace pperf;

namespace {
const std::string kPperf = pperf::testing::binary_dir() + "/pperf";

// A config serving the tiny MNIST pipeline on synthetic data (fast to start).
struct ServiceFixture {
  pperf::testing::TempDir dir;
  std::string config_path;
  Config config;
  ServiceFixture() {
    config_path = dir.write("c.json", R"({
      "name": "svc", "pricing": {"table": "aws-ec2-us-east-1"},
      "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 8, "params": {"data": "synthetic"}}],
      "configurations": [{"name": "a", "baseline": true, "instances": [{"type": "p3.2xlarge"}]}]})");
    config = load_config(config_path, builtin_workloads());
    // A worker started without --wire sends the workload's default wire (uint8 for MNIST).
    config.workloads.front().wire = default_wire(builtin_workloads().find("mnist_heavy")->capabilities);
  }
  const WorkloadSpec& spec() const { return config.workloads.front(); }
};

ServiceSourceOptions to(const std::vector<std::string>& endpoints, double stall_s = 120) {
  ServiceSourceOptions o;
  o.endpoints = endpoints;
  o.batch_stall_deadline_s = stall_s;
  return o;
}
}  // namespace

TEST(DataService, StreamsTheSameBatchesAsTheLocalPipeline) {
  ServiceFixture f;
  LocalDataGroup group(kPperf, f.config_path, "mnist_heavy", 2, 1, {}, "");
  ASSERT_EQ(group.endpoints().size(), 2u);
  auto source = connect_service(f.spec(), to(group.endpoints()));
  auto local = builtin_workloads().find("mnist_heavy")->make_pipeline(f.spec());
  std::set<int64_t> seen;
  for (int i = 0; i < 40; ++i) {
    std::optional<Batch> b = source->next();
    ASSERT_TRUE(b);
    Batch expected = local->make_batch(b->index);
    EXPECT_TRUE(torch::equal(b->inputs, expected.inputs)) << "batch " << b->index;
    EXPECT_TRUE(torch::equal(b->targets, expected.targets)) << "batch " << b->index;
    EXPECT_TRUE(seen.insert(b->index).second) << "batch " << b->index << " delivered twice";
  }
  // Two workers interleave (worker 0 serves even indices, worker 1 odd ones): both delivered.
  int odd = 0;
  for (int64_t i : seen) odd += i % 2;
  EXPECT_GT(odd, 0);
  EXPECT_LT(odd, 40);
  EXPECT_TRUE(source->events().empty());
}

TEST(DataService, HandshakeRefusesAnotherWorkloadShape) {
  ServiceFixture f;
  LocalDataGroup group(kPperf, f.config_path, "mnist_heavy", 1, 1, {}, "");
  WorkloadSpec other = f.spec();
  other.batch_size = 16;
  try {
    connect_service(other, to(group.endpoints()));
    FAIL() << "mismatch accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("handshake refused: batch size 16, this worker serves 8"), std::string::npos)
        << e.what();
  }
  other = f.spec();
  other.wire = "float32";
  try {
    connect_service(other, to(group.endpoints()));
    FAIL() << "a float32 trainer accepted by a uint8 worker";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("handshake refused: wire float32 asked for, this worker sends uint8"), std::string::npos)
        << e.what();
  }
  other = f.spec();
  other.preset = "full";
  EXPECT_THROW(connect_service(other, to(group.endpoints())), std::runtime_error);
  // The worker survived both refusals.
  EXPECT_NO_THROW(connect_service(f.spec(), to(group.endpoints()))->next());
}

TEST(DataService, AKilledWorkerIsDroppedAndTheOthersGoOn) {
  ServiceFixture f;
  LocalDataGroup group(kPperf, f.config_path, "mnist_heavy", 2, 1, {}, "");
  auto source = connect_service(f.spec(), to(group.endpoints()));
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(source->next());
  kill(group.pids()[0], SIGKILL);
  // Batches the dead worker left in socket buffers still arrive first; then the drop shows.
  for (int i = 0; i < 2000 && source->events().empty(); ++i) ASSERT_TRUE(source->next());
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(source->next()) << "the surviving worker must keep the trainer fed";
  auto events = source->events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_NE(events[0].find("data worker " + group.endpoints()[0] + " dropped"), std::string::npos) << events[0];

  kill(group.pids()[1], SIGKILL);
  try {
    // Batches already in socket buffers still arrive; then the source must give up.
    for (int i = 0; i < 2000; ++i) source->next();
    FAIL() << "no worker left, yet batches kept coming";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("every data worker failed"), std::string::npos) << e.what();
  }
}

TEST(DataService, TokenIsCheckedWhenSet) {
  ServiceFixture f;
  LocalDataGroup group(kPperf, f.config_path, "mnist_heavy", 1, 1, {}, "s3cret");
  try {
    connect_service(f.spec(), to(group.endpoints()));
    FAIL() << "no token accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad or missing token"), std::string::npos) << e.what();
  }
  ServiceSourceOptions with_token = to(group.endpoints());
  with_token.token = "s3cret";
  EXPECT_TRUE(connect_service(f.spec(), with_token)->next());
}

TEST(DataService, OversizedRequestsAreRejectedAndTheWorkerSurvives) {
  ServiceFixture f;
  LocalDataGroup group(kPperf, f.config_path, "mnist_heavy", 1, 1, {}, "");
  WorkloadSpec huge = f.spec();
  huge.params["padding"] = std::string(100 * 1024, 'x');  // requests over 64 KiB are refused
  EXPECT_THROW(connect_service(huge, to(group.endpoints())), std::runtime_error);
  EXPECT_TRUE(connect_service(f.spec(), to(group.endpoints()))->next());
}

// --- probes from outside: a raw gRPC client against a running worker ---------------------

namespace {
/// A worker started with extra flags, and a raw stub to probe it with.
struct RawWorker {
  ServiceFixture f;
  std::unique_ptr<ChildProcess> process;
  std::string endpoint;
  std::unique_ptr<dataservice::DataService::Stub> stub;

  explicit RawWorker(const std::vector<std::string>& extra = {}) {
    SpawnOptions spawn;
    // PPERF_PROBE_BINARY runs the probes against another build (e.g. an older one, to see them fail).
    const char* binary = std::getenv("PPERF_PROBE_BINARY");
    spawn.argv = {binary ? binary : kPperf, "data-worker", "--config", f.config_path};
    spawn.argv.insert(spawn.argv.end(), extra.begin(), extra.end());
    spawn.capture_stdout = true;
    spawn.unset_env = {"PPERF_DATA_TOKEN"};
    process = std::make_unique<ChildProcess>(spawn);
    const auto line = process->read_line(60);
    if (!line || line->find("listening on ") == std::string::npos) throw std::runtime_error("worker did not start");
    endpoint = line->substr(line->find("listening on ") + 13);
    stub = dataservice::DataService::NewStub(open_data_channel(endpoint));
  }

  dataservice::StreamRequest request(int64_t first_index, int64_t stride) const {
    dataservice::StreamRequest r;
    auto* h = r.mutable_handshake();
    h->set_schema_version(kDataServiceSchemaVersion);
    h->mutable_workload()->set_name(f.spec().name);
    h->mutable_workload()->set_preset(f.spec().preset);
    h->mutable_workload()->set_batch_size(f.spec().batch_size);
    h->mutable_workload()->set_params_json(f.spec().params.dump());
    h->mutable_workload()->set_seed(f.spec().seed);
    h->mutable_workload()->set_wire(f.spec().wire);
    r.set_first_index(first_index);
    r.set_stride(stride);
    return r;
  }

  /// Reads up to `max` batches of one stream; its final status (OK when all `max` came and the
  /// client cancelled the rest).
  grpc::Status stream(const dataservice::StreamRequest& r, int max, int* received = nullptr) const {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    auto reader = stub->StreamBatches(&context, r);
    dataservice::BatchMessage m;
    int n = 0;
    while (n < max && reader->Read(&m)) ++n;
    if (received) *received = n;
    if (n < max) return reader->Finish();
    context.TryCancel();
    reader->Finish();
    return grpc::Status::OK;
  }

  bool alive() { return !process->wait(0); }
};
}  // namespace

TEST(DataServiceProbe, IndexArithmeticThatWouldOverflowIsRefused) {
  RawWorker w;
  for (auto [first, stride] : {std::pair<int64_t, int64_t>{int64_t{1} << 55, 1}, {0, int64_t{1} << 54},
                               {0, std::numeric_limits<int64_t>::max()}, {std::numeric_limits<int64_t>::max(), 1}}) {
    const grpc::Status s = w.stream(w.request(first, stride), 5);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << first << " " << stride << ": " << s.error_message();
  }
  // The last valid index is served, then the sequence ends cleanly.
  int received = 0;
  EXPECT_TRUE(w.stream(w.request(kMaxBatchIndex, 1), 5, &received).ok());
  EXPECT_EQ(received, 1);
  EXPECT_TRUE(w.stream(w.request(kMaxBatchIndex - 3, 2), 5, &received).ok());
  EXPECT_EQ(received, 2);
  EXPECT_TRUE(w.alive());
}

TEST(DataServiceProbe, ParamsThatAreNotJsonOrNestTooDeepAreRefused) {
  RawWorker w;
  for (const std::string params : {std::string("{not json"), std::string(""), std::string(5000, '[') + std::string(5000, ']'),
                                   "{\"data\": \"synthetic\", \"x\": \"" + std::string(50000, 'y') + "\"}"}) {
    dataservice::StreamRequest r = w.request(0, 1);
    r.mutable_handshake()->mutable_workload()->set_params_json(params);
    const grpc::Status s = w.stream(r, 1);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << params.substr(0, 20);
    EXPECT_LT(s.error_message().size(), 2000u) << "client input echoed back untruncated";
  }
  EXPECT_TRUE(w.alive());
  EXPECT_TRUE(w.stream(w.request(0, 1), 2).ok());
}

TEST(DataServiceProbe, ConcurrentStreamsAreCapped) {
  RawWorker w({"--max-streams", "2"});
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<grpc::ClientReader<dataservice::BatchMessage>>> open;
  dataservice::BatchMessage m;
  for (int i = 0; i < 2; ++i) {  // two streams that never read past their first batch
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    open.push_back(w.stub->StreamBatches(contexts.back().get(), w.request(i, 2)));
    ASSERT_TRUE(open.back()->Read(&m));
  }
  const grpc::Status third = w.stream(w.request(0, 1), 1);
  EXPECT_EQ(third.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << third.error_message();
  for (auto& c : contexts) c->TryCancel();
  for (auto& r : open) r->Finish();
  // Slots are given back when streams end.
  bool freed = false;
  for (int i = 0; i < 50 && !freed; ++i) {
    freed = w.stream(w.request(0, 1), 1).ok();
    if (!freed) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(freed);
}

TEST(DataServiceProbe, SigtermEndsAWorkerWithStreamsThatNeverRead) {
  RawWorker w;
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<grpc::ClientReader<dataservice::BatchMessage>>> open;
  dataservice::BatchMessage m;
  for (int i = 0; i < 3; ++i) {
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    open.push_back(w.stub->StreamBatches(contexts.back().get(), w.request(i, 3)));
    ASSERT_TRUE(open.back()->Read(&m));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // let the worker fill its buffers
  const auto start = std::chrono::steady_clock::now();
  w.process->signal(SIGTERM);
  const std::optional<int> status = w.process->wait(10);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(status) << "worker ignored SIGTERM for 10 s";
  EXPECT_EQ(describe_wait_status(*status), "exited with code 0");
  EXPECT_LT(seconds, 8);  // the stop deadline is 4 s; the old worker took 10 s and more
  for (auto& c : contexts) c->TryCancel();
}

TEST(DataServiceProbe, AStreamThatStopsReadingIsCancelledAndFreesItsSlot) {
  RawWorker w({"--max-streams", "1", "--stall-timeout-s", "2"});
  // One stream takes the only slot and reads one batch and no more, over the trainer's channel
  // (open_data_channel: a receive window below a few batches), so the worker's writes soon block
  // and it is cut after S per batch that window let through. (A reader with gRPC's default window,
  // which reads dozens of small batches ahead, is cut later: docs/cli.md, --stall-timeout-s.)
  auto stub = dataservice::DataService::NewStub(open_data_channel(w.endpoint));
  grpc::ClientContext stalled;
  stalled.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(300));
  auto reader = stub->StreamBatches(&stalled, w.request(0, 1));
  dataservice::BatchMessage m;
  ASSERT_TRUE(reader->Read(&m));
  // Another trainer is refused (naming the bound) until the worker cancels the stalled stream.
  grpc::Status trainer = w.stream(w.request(0, 1), 2);
  if (trainer.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED)
    EXPECT_NE(trainer.error_message().find("--stall-timeout-s"), std::string::npos) << trainer.error_message();
  for (int i = 0; i < 240 && trainer.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    trainer = w.stream(w.request(0, 1), 2);
  }
  EXPECT_TRUE(trainer.ok()) << trainer.error_message();
  // The stalled reader learns why its stream ended.
  while (reader->Read(&m)) {
  }
  const grpc::Status status = reader->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::ABORTED) << status.error_message();
  // The worker sees writes, not reads: it waits S for each batch the reader's window last let
  // through (docs/cli.md, --stall-timeout-s), so the message names S and the batches waited for.
  EXPECT_NE(status.error_message().find("no batch read for "), std::string::npos) << status.error_message();
  EXPECT_NE(status.error_message().find("--stall-timeout-s 2 s"), std::string::npos) << status.error_message();
  EXPECT_TRUE(w.alive());
}

TEST(DataService, AWorkerEndedByItsStopWatchdogIsRecorded) {
  // A stand-in worker that ends as one whose stop watchdog fired: exit code kDataWorkerForcedExit.
  const std::string script = "echo 'pperf data-worker listening on 127.0.0.1:9'; sleep 0.5; exit " +
                             std::to_string(kDataWorkerForcedExit);
  LocalDataGroup group({"/bin/bash", "-c", script}, 1, 1, {}, "");
  const std::vector<std::string> events = group.stop();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_NE(events[0].find("exited with code 4: its stop watchdog forced the exit"), std::string::npos) << events[0];
  EXPECT_TRUE(group.stop().empty());  // once
}

TEST(TensorWire, ShapesWhoseProductOverflowsAreRefused) {
  dataservice::TensorData data;
  data.set_dtype("float32");
  for (int i = 0; i < 3; ++i) data.add_shape(int64_t{1} << 31);  // 2^93 elements
  data.set_data(std::string(16, '\0'));
  EXPECT_THROW(tensor_from_wire(data), std::runtime_error);
  // 2^32 x 2^32 elements wrap a 64-bit count to 0, which an empty payload would "match".
  dataservice::TensorData wraps;
  wraps.set_dtype("float32");
  wraps.add_shape(int64_t{1} << 32);
  wraps.add_shape(int64_t{1} << 32);
  EXPECT_THROW(tensor_from_wire(wraps), std::runtime_error);
  dataservice::TensorData negative;
  negative.set_dtype("float32");
  negative.add_shape(-4);
  negative.add_shape(-4);  // a product of 16 elements would pass a check of the product alone
  negative.set_data(std::string(64, '\0'));
  EXPECT_THROW(tensor_from_wire(negative), std::runtime_error);
}

TEST(Workloads, TheLastBatchIndexIsServedWithoutOverflow) {
  EXPECT_EQ(sample_position(kMaxBatchIndex, 256, 255, 60000),
            static_cast<int64_t>((static_cast<unsigned __int128>(kMaxBatchIndex) * 256 + 255) % 60000));
  EXPECT_EQ(sample_position(0, 8, 3, 5), 3);
  EXPECT_EQ(sample_position(2, 8, 3, 5), (2 * 8 + 3) % 5);
  ServiceFixture f;
  for (const auto& d : builtin_workloads().all()) {
    if (d.name != "mnist_heavy") continue;
    const Batch b = d.make_pipeline(f.spec())->make_batch(kMaxBatchIndex);
    EXPECT_EQ(b.index, kMaxBatchIndex);
    EXPECT_EQ(b.inputs.size(0), 8);
  }
}

// A worker in any language is checked against batch_layout, so a layout that drifts from the
// workload's own pipeline would refuse correct workers or admit wrong ones.
TEST(Workloads, EveryWorkloadDeclaresTheBatchItsPipelineMakes) {
  const std::map<std::string, nlohmann::json> cheap = {
      {"mnist_heavy", {{"data", "synthetic"}}},
      {"resnet50_augment", {{"images", 4}}},
      {"torchscript", {{"input_shape", {3, 5, 7}}}},
      {"bert_classification", {{"seq_len", 12}}},
  };
  for (const auto& d : builtin_workloads().all()) {
    SCOPED_TRACE(d.name);
    if (!d.capabilities.data_workers) continue;  // python_step: the step owns its data, no worker serves it
    ASSERT_TRUE(d.batch_layout) << "a worker serving " << d.name << " could not be checked";
    const auto presets = d.preset_names();
    const std::string preset = std::count(presets.begin(), presets.end(), "tiny") ? "tiny" : presets.front();
    const auto overrides = cheap.count(d.name) ? cheap.at(d.name) : nlohmann::json::object();
    const WorkloadSpec spec = make_workload_spec(d, preset, 3, overrides);
    const Batch b = d.make_pipeline(spec)->make_batch(0);
    dataservice::TensorData inputs, targets;
    tensor_to_wire(b.inputs, &inputs);
    tensor_to_wire(b.targets, &targets);
    auto decl = [](const std::string& name, const dataservice::TensorData& t) {
      return TensorDecl{name, t.dtype(), std::vector<int64_t>(t.shape().begin() + 1, t.shape().end())};
    };
    EXPECT_EQ(layout_mismatch(d.batch_layout(spec), {decl("inputs", inputs), decl("targets", targets)}), "");
    EXPECT_EQ(inputs.shape(0), 3);
  }
}

// Every wire a workload declares exact hands the step the very floats of the float32 wire: the
// pipeline's bytes before its last conversion, which the step makes through the same 256-entry
// table (a lookup, so no device can round it otherwise). So a step's loss is the same exactly,
// not to a tolerance: the model's inputs are bit-identical.
TEST(WireFormats, AStepOnEachDeclaredWireHasTheFloat32LossExactly) {
  const std::map<std::string, nlohmann::json> cheap = {{"mnist_heavy", {{"data", "synthetic"}}},
                                                       {"resnet50_augment", {{"images", 8}}}};
  int checked = 0;
  for (const auto& d : builtin_workloads().all()) {
    for (const std::string& wire : d.capabilities.wires) {
      SCOPED_TRACE(d.name + " on " + wire);
      const WorkloadSpec f32 = make_workload_spec(d, "tiny", 4, cheap.count(d.name) ? cheap.at(d.name) : nlohmann::json::object(), 3);
      WorkloadSpec other = f32;
      other.wire = wire;
      const auto a_pipeline = d.make_pipeline(f32), b_pipeline = d.make_pipeline(other);
      const auto a = d.make_workload(f32), b = d.make_workload(other);
      for (int64_t index : {0, 5}) {
        const Batch x = a_pipeline->make_batch(index), y = b_pipeline->make_batch(index);
        EXPECT_EQ(y.inputs.scalar_type(), torch::kByte);
        EXPECT_EQ(bytes_per_sample(layout_on_wire(d.batch_layout(other), wire)) * 4,
                  bytes_per_sample(d.batch_layout(f32)) + 3 * 8)  // inputs a quarter; int64 targets as they were
            << "declared bytes per sample";
        EXPECT_EQ(x.inputs.nbytes(), 4 * y.inputs.nbytes());
        EXPECT_TRUE(torch::equal(x.targets, y.targets));
        torch::manual_seed(11);  // dropout draws the same masks for both steps
        const double loss_f32 = a->train_step(x);
        torch::manual_seed(11);
        const double loss_wire = b->train_step(y);
        EXPECT_EQ(loss_f32, loss_wire) << "batch " << index;
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2) << "mnist_heavy and resnet50_augment declare uint8";
}

// The byte images are the float chain rounded: the uint8 wire changed the chain's output by at
// most half a grey level (0.5 / 255) from the unrounded chain.
TEST(WireFormats, TheRoundedChainIsTheFloatChainToHalfAGreyLevel) {
  const int h = 24, w = 20, c = 3;
  std::mt19937 rng(5);
  std::vector<uint8_t> img(h * w * c);
  for (auto& p : img) p = static_cast<uint8_t>(rng());
  std::mt19937_64 draw_rng(9);
  AugmentScratch s1, s2;
  for (int trial = 0; trial < 3; ++trial) {
    const AugmentDraw d = draw_augment(draw_rng);
    std::vector<float> exact(c * h * w);
    std::vector<uint8_t> bytes(c * h * w);
    augment_sample(img.data(), h, w, c, d, exact.data(), s1);
    augment_sample_bytes(img.data(), h, w, c, d, bytes.data(), s2);
    float worst = 0;
    for (size_t i = 0; i < exact.size(); ++i) worst = std::max(worst, std::abs(bytes[i] / 255.0f - exact[i]));
    EXPECT_LE(worst, 0.5f / 255 + 1e-5f) << "trial " << trial;
  }
}

// What a worker streams (a BatchMessage written by hand around its tensors' own bytes) must
// parse as the BatchMessage protoc's code writes, for every wire dtype, a scalar-per-sample
// target, an empty batch and a non-contiguous tensor.
TEST(TensorWire, ABatchWrittenWithoutCopiesParsesAsTheMessage) {
  const std::vector<std::pair<torch::Tensor, torch::Tensor>> batches = {
      {torch::randn({3, 1, 4, 5}), torch::arange(3, torch::kLong)},
      {torch::randint(0, 255, {2, 7}, torch::kByte), torch::randint(0, 9, {2, 3}, torch::kInt)},
      {torch::randn({4, 6}).to(torch::kBFloat16).t(), torch::zeros({6}, torch::kLong)},
      {torch::zeros({0, 3}), torch::zeros({0}, torch::kLong)},
  };
  int64_t index = (int64_t{1} << 40) - 1;
  for (const auto& [inputs, targets] : batches) {
    const WireBatch wire = batch_to_wire(index, inputs, targets);
    std::vector<grpc::Slice> slices;
    ASSERT_TRUE(wire.bytes.Dump(&slices).ok());
    std::string bytes;
    for (const auto& s : slices) bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
    dataservice::BatchMessage parsed;
    ASSERT_TRUE(parsed.ParseFromString(bytes));
    EXPECT_EQ(parsed.index(), index);
    dataservice::BatchMessage expected;
    expected.set_index(index);
    tensor_to_wire(inputs, expected.mutable_inputs());
    tensor_to_wire(targets, expected.mutable_targets());
    EXPECT_EQ(parsed.SerializeAsString(), expected.SerializeAsString());
    EXPECT_TRUE(torch::equal(tensor_from_wire(*parsed.mutable_inputs()), inputs.contiguous()));
    EXPECT_TRUE(torch::equal(tensor_from_wire(*parsed.mutable_targets()), targets));
    index = 0;
  }
}

namespace {
/// A client socket connected to 127.0.0.1:port that has sent `opening`.
int client_sending(int port, const std::string& opening) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to), 0);
  EXPECT_EQ(::send(fd, opening.data(), opening.size(), MSG_NOSIGNAL), static_cast<ssize_t>(opening.size()));
  return fd;
}

/// gRPC's name for the peer of the worker's end of `client`: "ipv4:127.0.0.1:PORT".
std::string grpc_peer_of(int client) {
  sockaddr_in own{};
  socklen_t length = sizeof own;
  getsockname(client, reinterpret_cast<sockaddr*>(&own), &length);
  return "ipv4:127.0.0.1:" + std::to_string(ntohs(own.sin_port));
}

/// Whether the worker ended `client` (EOF or reset), without waiting.
bool ended(int client) {
  char byte;
  const ssize_t n = ::recv(client, &byte, 1, MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}
}  // namespace

// Connections that only open HTTP/2 (or TLS), and those whose calls carry a wrong token, must
// not hold the worker's connections: only a vouched-for connection outlives the trust deadline.
TEST(ConnectionGate, OnlyConnectionsAVouchedCallCameOnOutliveTheTrustDeadline) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(tls ? "TLS" : "plaintext");
    const auto [listen_fd, port] = listen_tcp("127.0.0.1", 0);
    std::mutex mutex;
    std::vector<int> handed;
    GateOptions options;
    options.max_connections = 8;
    options.trust_deadline = std::chrono::milliseconds(700);
    options.tls = tls;
    ConnectionGate gate(listen_fd, options, [&](int fd) {
      std::lock_guard<std::mutex> lock(mutex);
      handed.push_back(fd);
    });
    const std::string opening = tls ? std::string("\x16\x03\x01", 3) : std::string("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
    const int silent_stranger = client_sending(port, opening);
    const int trainer = client_sending(port, opening);
    const int wrong_token = client_sending(port, opening);
    const int not_speaking = client_sending(port, tls ? "GET / HTTP/1.1\r\n" : "\x16\x03\x01");
    for (int i = 0; i < 50 && gate.counts().handed_over < 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_EQ(gate.counts().handed_over, 3);
    gate.vouch(grpc_peer_of(trainer));
    gate.distrust(grpc_peer_of(wrong_token));
    std::this_thread::sleep_for(std::chrono::milliseconds(350));  // a few ticks, inside the deadline
    EXPECT_TRUE(ended(wrong_token));
    EXPECT_TRUE(ended(not_speaking));
    EXPECT_FALSE(ended(silent_stranger));
    std::this_thread::sleep_for(std::chrono::milliseconds(600));  // past the trust deadline
    EXPECT_TRUE(ended(silent_stranger));
    EXPECT_FALSE(ended(trainer));
    const GateCounts counts = gate.counts();
    EXPECT_EQ(counts.strangers, 1);
    EXPECT_EQ(counts.untrusted, 1);
    EXPECT_EQ(counts.not_http2, 1);
    for (int fd : {silent_stranger, trainer, wrong_token, not_speaking}) ::close(fd);
    for (int fd : handed) ::close(fd);
  }
}
