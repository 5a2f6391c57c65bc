// The data worker's checks of what a peer sends (src/dataservice/request_check.h).
#include <gtest/gtest.h>

#include "src/dataservice/data_service.h"
#include "src/dataservice/request_check.h"

namespace pperf {
namespace {

ServedWorkload served(const std::string& token = "") {
  WorkloadSpec spec;
  spec.name = "mnist_heavy";
  spec.preset = "tiny";
  spec.batch_size = 64;
  spec.seed = 7;
  spec.params = {{"data", "synthetic"}};
  return {spec, token};
}

dataservice::HandshakeRequest matching(const ServedWorkload& s) {
  dataservice::HandshakeRequest h;
  h.set_schema_version(kDataServiceSchemaVersion);
  h.set_token(s.token);
  auto* w = h.mutable_workload();
  w->set_name(s.spec.name);
  w->set_preset(s.spec.preset);
  w->set_batch_size(s.spec.batch_size);
  w->set_seed(s.spec.seed);
  w->set_params_json(s.spec.params.dump());
  return h;
}

TEST(RequestCheck, TheServedWorkloadIsAccepted) {
  const ServedWorkload s = served("secret");
  EXPECT_FALSE(check_handshake(matching(s), s));
  dataservice::HandshakeRequest spaced = matching(s);
  spaced.mutable_workload()->set_params_json("{ \"data\" : \"synthetic\" }");  // compared as JSON, not text
  EXPECT_FALSE(check_handshake(spaced, s));
}

TEST(RequestCheck, EachMismatchIsRefusedNamingIt) {
  const ServedWorkload s = served("secret");
  auto refused = [&](auto&& change) {
    dataservice::HandshakeRequest h = matching(s);
    change(h);
    const std::optional<Refusal> r = check_handshake(h, s);
    return r ? r->message : std::string("accepted");
  };
  EXPECT_EQ(refused([](auto& h) { h.set_token("secreT"); }), "handshake refused: bad or missing token");
  EXPECT_EQ(refused([](auto& h) { h.set_schema_version(9); }), "handshake refused: schema version 9, this worker speaks 1");
  EXPECT_EQ(refused([](auto& h) { h.mutable_workload()->set_preset("base"); }),
            "handshake refused: preset 'base', this worker serves 'tiny'");
  EXPECT_EQ(refused([](auto& h) { h.mutable_workload()->set_batch_size(32); }),
            "handshake refused: batch size 32, this worker serves 64");
  EXPECT_EQ(refused([](auto& h) { h.mutable_workload()->set_seed(8); }), "handshake refused: seed 8, this worker uses 7");
  EXPECT_EQ(refused([](auto& h) { h.set_dataset("mymod:make"); }).rfind("handshake refused: dataset 'mymod:make'", 0), 0u);
  EXPECT_EQ(refused([](auto& h) { h.mutable_workload()->set_params_json("{\"data\": \"idx\"}"); }),
            "handshake refused: params {\"data\": \"idx\"}, this worker uses {\"data\":\"synthetic\"}");
  EXPECT_EQ(check_handshake([&] { auto h = matching(s); h.set_token(""); return h; }(), s)->kind,
            RefusalKind::unauthenticated);
}

// A trainer and a worker that disagree on the wire would feed the model bytes it takes for
// floats (or the reverse): refused naming both and the fix; a trainer from before wire formats
// ("" ) asks for float32.
TEST(RequestCheck, AnotherWireIsRefusedNamingBoth) {
  ServedWorkload s = served();
  s.spec.wire = "uint8";
  dataservice::HandshakeRequest h = matching(s);
  h.mutable_workload()->set_wire("uint8");
  EXPECT_FALSE(check_handshake(h, s));
  h.mutable_workload()->set_wire("float32");
  EXPECT_EQ(check_handshake(h, s)->message,
            "handshake refused: wire float32 asked for, this worker sends uint8 (start it with --wire float32, or set "
            "execution.data.wire to uint8)");
  h.mutable_workload()->clear_wire();
  EXPECT_EQ(check_handshake(h, s)->kind, RefusalKind::failed_precondition);
  s.spec.wire = "float32";
  EXPECT_FALSE(check_handshake(h, s)) << "an old trainer's empty wire is float32";
}

TEST(RequestCheck, ParamsNestedTooDeepAreRefusedUnparsed) {
  const ServedWorkload s = served();
  dataservice::HandshakeRequest h = matching(s);
  h.mutable_workload()->set_params_json(std::string(100000, '[') + std::string(100000, ']'));
  const std::optional<Refusal> r = check_handshake(h, s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, RefusalKind::failed_precondition);
  EXPECT_NE(r->message.find("not JSON nested at most 32 deep: [[[["), std::string::npos);
  EXPECT_LT(r->message.size(), 400u) << "client text is echoed cut to 200 characters";
}

TEST(RequestCheck, StreamRangeIsCheckedAfterTheHandshake) {
  const ServedWorkload s = served();
  dataservice::StreamRequest r;
  *r.mutable_handshake() = matching(s);
  r.set_first_index(0);
  r.set_stride(1);
  EXPECT_FALSE(check_stream_request(r, s));
  r.set_first_index(kMaxBatchIndex);
  r.set_stride(kMaxBatchIndex);
  EXPECT_FALSE(check_stream_request(r, s));
  for (auto [first, stride] : {std::pair<int64_t, int64_t>{-1, 1}, {0, 0}, {kMaxBatchIndex + 1, 1}, {0, kMaxBatchIndex + 1}}) {
    r.set_first_index(first);
    r.set_stride(stride);
    const std::optional<Refusal> refused = check_stream_request(r, s);
    ASSERT_TRUE(refused) << first << " " << stride;
    EXPECT_EQ(refused->kind, RefusalKind::invalid_argument);
  }
  r.mutable_handshake()->mutable_workload()->set_name("bert_classification");
  EXPECT_EQ(check_stream_request(r, s)->kind, RefusalKind::failed_precondition);
}

TEST(RequestCheck, ShutdownNeedsTheTokenWhenThereIsOne) {
  dataservice::ShutdownRequest d;
  EXPECT_TRUE(shutdown_authorized(d, served()));
  EXPECT_FALSE(shutdown_authorized(d, served("secret")));
  d.set_token("secret");
  EXPECT_TRUE(shutdown_authorized(d, served("secret")));
}

TEST(RequestCheck, EchoesAreCut) {
  EXPECT_EQ(truncated_for_echo("short"), "short");
  EXPECT_EQ(truncated_for_echo(std::string(250, 'x'), 10), "xxxxxxxxxx... (250 bytes)");
}

}  // namespace
}  // namespace pperf
