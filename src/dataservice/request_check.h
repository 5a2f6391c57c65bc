#pragma once
// How a data worker judges what a peer sends it, apart from gRPC and torch so that it can be
// fuzzed and tested alone: every field of a request comes from the network.
#include <optional>
#include <string>

#include "src/core/workload_registry.h"
#include "src/dataservice/data_service.pb.h"

namespace pperf {

/// How a refused request is answered; the server maps each kind to its gRPC status code.
enum class RefusalKind { unauthenticated, failed_precondition, invalid_argument };

struct Refusal {
  RefusalKind kind;
  std::string message;  // names the offending field; client text in it is cut to 200 characters
};

/// What requests are judged against: the workload a worker serves and the token it requires
/// (empty: none, loopback only).
struct ServedWorkload {
  WorkloadSpec spec;
  std::string token;
};

/// A handshake is accepted (nullopt) only with the right token (compared in constant time), this
/// schema version, no Python dataset, and exactly the served workload, preset, batch size, seed,
/// wire format ("" is "float32") and params (JSON nested at most kMaxParamsDepth deep; deeper is refused, never recursed into).
/// Never throws, for any field values.
std::optional<Refusal> check_handshake(const dataservice::HandshakeRequest& request, const ServedWorkload& served);

/// A stream request is accepted when its handshake is, first_index is in [0, kMaxBatchIndex] and
/// stride in [1, kMaxBatchIndex]. Never throws.
std::optional<Refusal> check_stream_request(const dataservice::StreamRequest& request, const ServedWorkload& served);

/// Whether a Shutdown request may stop the worker: always without a token, else only with it.
bool shutdown_authorized(const dataservice::ShutdownRequest& request, const ServedWorkload& served);

/// `text` itself when it has at most `max_chars` characters, else its first `max_chars` and
/// "... (N bytes)": for echoing client input in errors.
std::string truncated_for_echo(const std::string& text, size_t max_chars = 200);

}  // namespace pperf
