#pragma once
// The door of a plaintext data worker: it accepts TCP connections itself and hands gRPC only
// those that speak HTTP/2. gRPC 1.51 (Debian 12) has no cap on connections, waits for a silent
// one up to its handshake timeout, and its listener stops for good on the first EMFILE (the
// "Failed accept4: Too many open files" a flood of idle sockets causes), so descriptors must
// never run out in the first place.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace pperf {

/// Binds HOST:PORT (port 0: a free one) and listens; returns the socket and its port.
/// Throws InputError naming --listen when it cannot.
std::pair<int, int> listen_tcp(const std::string& host, int port);

/// Raises this process's soft descriptor limit to its hard limit; returns the soft limit now.
int64_t raise_descriptor_limit();

/// How many descriptors this process has open now.
int64_t open_descriptors();

/// Shuts down, in both directions, every connected TCP socket of this process whose local port
/// is `port` (the connections accepted there, by the gate or by gRPC itself); returns how many.
/// A write waiting for a peer that does not read its socket then fails at once, and with it
/// whatever waits on that write. The descriptors stay open: their owner still closes them.
int shut_down_connections_on_port(int port);

struct GateOptions {
  int64_t max_connections = 64;  // sockets held at once, silent and handed over together
  std::chrono::milliseconds handshake_deadline{5000};  // to send the 24-byte HTTP/2 preface
};

struct GateCounts {
  int64_t handed_over = 0;     // spoke HTTP/2: given to gRPC
  int64_t timed_out = 0;       // silent (or an unfinished preface) past the handshake deadline
  int64_t displaced = 0;       // silent, closed to make room for a newcomer at the cap
  int64_t refused = 0;         // closed on arrival: the cap was held by HTTP/2 connections
  int64_t not_http2 = 0;       // sent something other than the preface
};

/// Accepts on `listen_fd` (which it owns and closes) on a thread of its own.
/// Guarantees: at most max_connections accepted sockets are open at once, counting those
/// handed over until gRPC closes them; a connection that has not sent the whole HTTP/2 preface
/// within handshake_deadline is closed, as is one that sends anything else; at the cap a
/// newcomer displaces the oldest silent connection, so silent ones can never lock a trainer
/// out; only when every held connection speaks HTTP/2 is a newcomer closed at once (those end
/// by gRPC's idle and keepalive policy). An accept that fails for want of descriptors never
/// stops the gate. `hand_over` receives each connection that spoke HTTP/2 (non-blocking,
/// TCP_NODELAY, the preface still unread) and owns it from then on.
class ConnectionGate {
 public:
  ConnectionGate(int listen_fd, GateOptions options, std::function<void(int fd)> hand_over);
  ~ConnectionGate();  // stops accepting, closes the listening socket and every silent connection
  ConnectionGate(const ConnectionGate&) = delete;
  ConnectionGate& operator=(const ConnectionGate&) = delete;
  GateCounts counts() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace pperf
