// libFuzzer target: the data worker's checks of what a peer sends (src/dataservice/
// request_check.h) on any bytes. The first byte picks the message (handshake, stream, shutdown)
// and whether the worker needs a token; the rest is the message's wire bytes. Besides crashes it
// traps on a broken promise: an accepted request that is not the served workload, or a refusal
// whose message echoes unbounded client text.
#include <cstdint>
#include <string>

#include "src/dataservice/data_service.h"
#include "src/dataservice/request_check.h"

namespace {

const pperf::ServedWorkload& served(bool with_token) {
  static const pperf::WorkloadSpec spec = [] {
    pperf::WorkloadSpec s;
    s.name = "mnist_heavy";
    s.preset = "tiny";
    s.batch_size = 64;
    s.seed = 7;
    s.params = {{"data", "synthetic"}, {"blur", {{"sigma", 1.5}}}};
    return s;
  }();
  static const pperf::ServedWorkload open{spec, ""}, guarded{spec, "f00dcafe"};
  return with_token ? guarded : open;
}

/// Refusal messages are our text plus client fields cut to 200 characters each (at most two).
constexpr size_t kMaxRefusalChars = 1024;

void expect(bool promise_kept) {
  if (!promise_kept) __builtin_trap();
}

void judge_handshake(const pperf::dataservice::HandshakeRequest& h, const pperf::ServedWorkload& s,
                     const std::optional<pperf::Refusal>& verdict) {
  if (verdict) {
    expect(verdict->message.size() <= kMaxRefusalChars);
    return;
  }
  expect(h.workload().name() == s.spec.name && h.workload().preset() == s.spec.preset &&
         h.workload().batch_size() == s.spec.batch_size && h.workload().seed() == s.spec.seed &&
         h.schema_version() == pperf::kDataServiceSchemaVersion && h.dataset().empty() &&
         (s.token.empty() || h.token() == s.token));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0 || size > static_cast<size_t>(pperf::kMaxRequestBytes)) return 0;  // gRPC refuses larger ones unread
  const uint8_t selector = data[0];
  const pperf::ServedWorkload& s = served(selector & 0x10);
  const void* wire = data + 1;
  const int wire_size = static_cast<int>(size - 1);
  switch ((selector & 0x0f) % 3) {  // low bits: the message; bit 4: a token
    case 0: {
      pperf::dataservice::HandshakeRequest h;
      if (h.ParseFromArray(wire, wire_size)) judge_handshake(h, s, pperf::check_handshake(h, s));
      break;
    }
    case 1: {
      pperf::dataservice::StreamRequest r;
      if (!r.ParseFromArray(wire, wire_size)) break;
      const std::optional<pperf::Refusal> verdict = pperf::check_stream_request(r, s);
      if (!verdict)
        expect(r.first_index() >= 0 && r.first_index() <= pperf::kMaxBatchIndex && r.stride() >= 1 &&
               r.stride() <= pperf::kMaxBatchIndex);
      if (!verdict || verdict->kind != pperf::RefusalKind::invalid_argument)
        judge_handshake(r.handshake(), s, verdict);
      break;
    }
    default: {
      pperf::dataservice::ShutdownRequest d;
      if (d.ParseFromArray(wire, wire_size)) expect(!pperf::shutdown_authorized(d, s) || s.token.empty() || d.token() == s.token);
    }
  }
  return 0;
}
