#include <gtest/gtest.h>
#include <signal.h>

#include "bench/config/config.h"
#include "bench/dataservice/data_service.h"
#include "bench/measure/data_sources.h"
#include "test_helpers.h"
#include "workloads/workload.h"

using namespace pperf;

namespace {
const std::string kPperf = std::string(PPERF_BINARY_DIR) + "/pperf";

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
