#include "src/dataservice/request_check.h"

#include <stdexcept>

#include "src/dataservice/data_service.h"

namespace pperf {

namespace {

/// Constant-time comparison, so a token cannot be guessed byte by byte from timing.
bool same_token(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

/// Parses a handshake's params strictly: valid JSON, nesting at most kMaxParamsDepth.
std::optional<nlohmann::json> parse_params(const std::string& text) {
  try {
    return nlohmann::json::parse(text, [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
      if (depth > kMaxParamsDepth) throw std::runtime_error("params nest too deep");
      return true;
    });
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<Refusal> check_handshake(const dataservice::HandshakeRequest& request, const ServedWorkload& served) {
  auto refuse = [](const std::string& why) {
    return Refusal{RefusalKind::failed_precondition, "handshake refused: " + why};
  };
  const WorkloadSpec& spec = served.spec;
  if (!served.token.empty() && !same_token(request.token(), served.token))
    return Refusal{RefusalKind::unauthenticated, "handshake refused: bad or missing token"};
  if (request.schema_version() != kDataServiceSchemaVersion)
    return refuse("schema version " + std::to_string(request.schema_version()) + ", this worker speaks " +
                  std::to_string(kDataServiceSchemaVersion));
  if (!request.dataset().empty())
    return refuse("dataset '" + truncated_for_echo(request.dataset()) +
                  "' asked for, this worker runs the built-in pipeline of '" + spec.name +
                  "' (a Python dataset needs pperf-data-worker.py)");
  const auto& w = request.workload();
  if (w.name() != spec.name)
    return refuse("workload '" + truncated_for_echo(w.name()) + "', this worker serves '" + spec.name + "'");
  if (w.preset() != spec.preset)
    return refuse("preset '" + truncated_for_echo(w.preset()) + "', this worker serves '" + spec.preset + "'");
  if (w.batch_size() != spec.batch_size)
    return refuse("batch size " + std::to_string(w.batch_size()) + ", this worker serves " +
                  std::to_string(spec.batch_size));
  if (w.seed() != spec.seed) return refuse("seed " + std::to_string(w.seed()) + ", this worker uses " + std::to_string(spec.seed));
  if (const std::string wire = w.wire().empty() ? "float32" : w.wire(); wire != spec.wire)
    return refuse("wire " + truncated_for_echo(wire) + " asked for, this worker sends " + spec.wire +
                  " (start it with --wire " + truncated_for_echo(wire) + ", or set execution.data.wire to " + spec.wire + ")");
  const std::optional<nlohmann::json> params = parse_params(w.params_json());
  if (!params)
    return refuse("params are not JSON nested at most " + std::to_string(kMaxParamsDepth) + " deep: " +
                  truncated_for_echo(w.params_json()));
  if (*params != spec.params)
    return refuse("params " + truncated_for_echo(w.params_json()) + ", this worker uses " + spec.params.dump());
  return std::nullopt;
}

std::optional<Refusal> check_stream_request(const dataservice::StreamRequest& request, const ServedWorkload& served) {
  if (std::optional<Refusal> refused = check_handshake(request.handshake(), served)) return refused;
  if (request.first_index() < 0 || request.first_index() > kMaxBatchIndex || request.stride() < 1 ||
      request.stride() > kMaxBatchIndex)
    return Refusal{RefusalKind::invalid_argument, "first_index must be in [0, 2^40] and stride in [1, 2^40]"};
  return std::nullopt;
}

bool shutdown_authorized(const dataservice::ShutdownRequest& request, const ServedWorkload& served) {
  return served.token.empty() || same_token(request.token(), served.token);
}

std::string truncated_for_echo(const std::string& text, size_t max_chars) {
  if (text.size() <= max_chars) return text;
  return text.substr(0, max_chars) + "... (" + std::to_string(text.size()) + " bytes)";
}

}  // namespace pperf
