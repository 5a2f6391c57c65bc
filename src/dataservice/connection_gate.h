#pragma once
// The door of a data worker: it accepts TCP connections itself and hands gRPC only those that
// start HTTP/2 (or TLS), and it closes handed-over connections that never make an authenticated
// call. gRPC 1.51 (Debian 12) has no cap on connections, keeps a connection with a call that
// never finishes for ever, and its listener stops for good on the first EMFILE (the "Failed
// accept4: Too many open files" a flood of idle sockets causes), so descriptors must never run
// out in the first place, plaintext or TLS.
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
  /// A handed-over connection that has carried no authenticated call (vouch) within this is
  /// shut down: preface-only connections and calls that never finish cannot hold the cap.
  std::chrono::milliseconds trust_deadline{10000};
  /// ... and one that has sent more than this before any vouched-for call (a trainer's first
  /// call takes well under 1 KiB; a flood of calls reset at once, far more) likewise.
  int64_t untrusted_bytes = 64 * 1024;
  bool tls = false;  // the first byte must open a TLS record (0x16), not the HTTP/2 preface
};

struct GateCounts {
  int64_t handed_over = 0;     // spoke HTTP/2: given to gRPC
  int64_t timed_out = 0;       // silent (or an unfinished preface) past the handshake deadline
  int64_t displaced = 0;       // silent, closed to make room for a newcomer at the cap
  int64_t refused = 0;         // closed on arrival: the cap was held by HTTP/2 connections
  int64_t not_http2 = 0;       // sent something other than the preface (or a TLS record)
  int64_t untrusted = 0;       // handed over, no authenticated call within trust_deadline (or
                               // untrusted_bytes): shut down
  int64_t evicted = 0;         // handed over, not yet vouched for, shut down to make room at the cap
  int64_t strangers = 0;       // shut down at once: a call on it had a wrong token
};

/// Accepts on `listen_fd` (which it owns and closes) on a thread of its own.
/// Guarantees: at most max_connections accepted sockets are open at once, counting those
/// handed over until gRPC closes them; a connection that has not sent the whole HTTP/2 preface
/// within handshake_deadline is closed, as is one that sends anything else; a handed-over
/// connection that carries no vouched-for call within trust_deadline, or before it has sent
/// untrusted_bytes, is shut down (both directions; gRPC then closes it). At the cap a newcomer displaces the oldest silent
/// connection, else the oldest handed-over one not yet vouched for, so strangers can never lock
/// a trainer out; only when every held connection is vouched for is a newcomer closed at once
/// (those end by gRPC's idle and keepalive policy). An accept that fails for want of descriptors
/// never stops the gate. `hand_over` receives each connection that spoke first (non-blocking,
/// TCP_NODELAY, nothing read) and owns it from then on.
class ConnectionGate {
 public:
  ConnectionGate(int listen_fd, GateOptions options, std::function<void(int fd)> hand_over);
  ~ConnectionGate();  // stops accepting, closes the listening socket and every silent connection
  ConnectionGate(const ConnectionGate&) = delete;
  ConnectionGate& operator=(const ConnectionGate&) = delete;
  GateCounts counts() const;
  /// A call on the connection from `peer` (gRPC's ServerContext::peer(), e.g. "ipv4:1.2.3.4:5")
  /// passed the token check: the connection is kept. Thread-safe; unknown peers are ignored.
  void vouch(const std::string& peer);
  /// A call on that connection had a wrong token: unless vouched for, it is shut down at once.
  void distrust(const std::string& peer);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace pperf
