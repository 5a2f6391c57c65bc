#include "src/dataservice/connection_gate.h"

#include <dirent.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <linux/tcp.h>  // struct tcp_info with tcpi_bytes_received (and TCP_NODELAY)
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "src/core/input_error.h"

namespace pperf {

namespace {

using Clock = std::chrono::steady_clock;

/// What every HTTP/2 client sends first (RFC 9113, 3.4).
constexpr char kPreface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
constexpr size_t kPrefaceBytes = sizeof kPreface - 1;
/// How often the gate looks at deadlines, at connections gRPC closed, and at its stop flag.
constexpr int kTickMs = 100;
/// Accepts per tick at most, so that a flood cannot starve the pending connections' checks.
constexpr int kAcceptsPerTick = 256;

/// Shut-down connections gRPC has not closed yet may exceed the cap by this many descriptors.
constexpr int64_t kClosingSlack = 32;

/// Bytes the peer of a TCP socket has sent so far (0 if the kernel does not say).
uint64_t bytes_received(int fd) {
  tcp_info info{};
  socklen_t length = sizeof info;
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0 ||
      length < offsetof(tcp_info, tcpi_bytes_received) + sizeof info.tcpi_bytes_received)
    return 0;
  return info.tcpi_bytes_received;
}

ino_t inode_of(int fd) {
  struct stat st {};
  return fstat(fd, &st) == 0 ? st.st_ino : 0;
}

/// "ADDRESS:PORT" of a socket's peer, as peer_key writes gRPC's peer strings.
std::string peer_of(int fd) {
  sockaddr_storage peer{};
  socklen_t length = sizeof peer;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &length) != 0) return "";
  char text[INET6_ADDRSTRLEN] = "";
  int port = 0;
  if (peer.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&peer);
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    port = ntohs(v4->sin_port);
  } else if (peer.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&peer);
    if (IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr))  // gRPC names these as IPv4
      inet_ntop(AF_INET, &v6->sin6_addr.s6_addr[12], text, sizeof text);
    else
      inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
    port = ntohs(v6->sin6_port);
  }
  return std::string(text) + ":" + std::to_string(port);
}

/// gRPC's "ipv4:1.2.3.4:5" or "ipv6:%5B::1%5D:5" as "1.2.3.4:5" or "::1:5".
std::string peer_key(const std::string& grpc_peer) {
  std::string rest = grpc_peer.substr(grpc_peer.find(':') + 1), key;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest.compare(i, 3, "%5B") == 0 || rest.compare(i, 3, "%5D") == 0) {
      i += 2;
    } else if (rest[i] != '[' && rest[i] != ']') {
      key += rest[i];
    }
  }
  return key;
}

}  // namespace

std::pair<int, int> listen_tcp(const std::string& host, int port) {
  std::string name = host;
  if (name.size() > 2 && name.front() == '[' && name.back() == ']') name = name.substr(1, name.size() - 2);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const std::string where = host + ":" + std::to_string(port);
  if (getaddrinfo(name.c_str(), std::to_string(port).c_str(), &hints, &found) != 0 || !found)
    throw InputError("--listen", "", "cannot resolve " + host);
  std::string why = "no address";
  for (addrinfo* a = found; a; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    const int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    sockaddr_storage bound{};
    socklen_t length = sizeof bound;
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 512) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length) == 0) {
      freeaddrinfo(found);
      const int bound_port = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                                         : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
      return {fd, bound_port};
    }
    why = std::strerror(errno);
    ::close(fd);
  }
  freeaddrinfo(found);
  throw InputError("--listen", "", "cannot listen on " + where + ": " + why);
}

int64_t raise_descriptor_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return limit.rlim_cur == RLIM_INFINITY ? int64_t{1} << 20 : static_cast<int64_t>(limit.rlim_cur);
}

int64_t open_descriptors() {
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return 0;
  int64_t n = 0;
  while (const dirent* e = readdir(dir))
    if (e->d_name[0] != '.') ++n;
  closedir(dir);
  return n - 1;  // the directory's own descriptor
}

int shut_down_connections_on_port(int port) {
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return 0;
  const int own = dirfd(dir);
  int count = 0;
  while (const dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    const int fd = std::atoi(e->d_name);
    struct stat st {};
    if (fd == own || fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    int type = 0, listening = 1;
    socklen_t length = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 || type != SOCK_STREAM) continue;
    length = sizeof listening;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) != 0 || listening) continue;
    sockaddr_storage local{}, peer{};
    socklen_t local_length = sizeof local, peer_length = sizeof peer;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_length) != 0 ||
        getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_length) != 0)
      continue;
    const int local_port = local.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&local)->sin6_port)
                           : local.ss_family == AF_INET ? ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port)
                                                        : -1;
    if (local_port == port && ::shutdown(fd, SHUT_RDWR) == 0) ++count;
  }
  closedir(dir);
  return count;
}

struct ConnectionGate::State {
  struct Silent {
    int fd;
    Clock::time_point since;
    bool partial = false;  // part of the preface came: looked at every tick, not polled
  };
  struct Held {
    int fd;
    ino_t inode;  // gRPC may close the descriptor and the number be reused: the inode tells
    std::string peer;
    Clock::time_point since;
    bool trusted = false;  // vouched for
    bool shut = false;     // shut down by the gate; gRPC closes it
    bool stranger = false;  // a call had a wrong token: shut down at the next tick, once its reply is out
  };
  enum class Verdict { trusted, stranger };
  int listen_fd;
  int reserve_fd;  // given up for a moment to accept and close when descriptors run out
  GateOptions options;
  std::function<void(int)> hand_over;
  std::deque<Silent> silent;  // oldest first
  std::vector<Held> held;  // oldest first
  mutable std::mutex counts_mutex;  // guards counts and verdicts
  GateCounts counts;
  std::unordered_map<std::string, Verdict> verdicts;  // from the handlers, by peer; read each tick
  std::atomic<bool> stop{false};
  std::thread thread;

  void run() {
    std::vector<pollfd> fds;
    while (!stop) {
      forget_closed();
      judge_held(Clock::now());
      fds.clear();
      fds.push_back({listen_fd, POLLIN, 0});
      for (const auto& s : silent) fds.push_back({s.fd, static_cast<short>(s.partial ? 0 : POLLIN), 0});
      if (::poll(fds.data(), fds.size(), kTickMs) < 0 && errno != EINTR) break;
      const auto now = Clock::now();
      std::deque<Silent> still;
      for (size_t i = 0; i < silent.size(); ++i) {
        Silent s = silent[i];
        if ((fds[i + 1].revents != 0 || s.partial) && !examine(s)) continue;
        if (now - s.since > options.handshake_deadline) {
          ::close(s.fd);
          count(&GateCounts::timed_out);
          continue;
        }
        still.push_back(s);
      }
      silent.swap(still);
      if (fds[0].revents & POLLIN) accept_some();
    }
  }

  /// Whether `s` stays silent (waiting for the rest of its preface); otherwise it was handed
  /// over or closed.
  bool examine(Silent& s) {
    char bytes[kPrefaceBytes];
    const ssize_t n = ::recv(s.fd, bytes, sizeof bytes, MSG_PEEK);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return true;
    if (n <= 0) {  // the peer left
      ::close(s.fd);
      return false;
    }
    const bool opens = options.tls ? bytes[0] == 0x16 : std::memcmp(bytes, kPreface, static_cast<size_t>(n)) == 0;
    if (!opens) {
      ::close(s.fd);
      count(&GateCounts::not_http2);
      return false;
    }
    if (!options.tls && static_cast<size_t>(n) < kPrefaceBytes) return s.partial = true;
    held.push_back({s.fd, inode_of(s.fd), peer_of(s.fd), Clock::now()});
    count(&GateCounts::handed_over);
    hand_over(s.fd);
    return false;
  }

  void accept_some() {
    for (int i = 0; i < kAcceptsPerTick; ++i) {
      const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if (errno == EMFILE || errno == ENFILE) refuse_without_descriptors();
        return;  // EAGAIN: none left waiting
      }
      // At the cap the oldest silent connection makes room (looked at once more: it may have
      // just sent its preface), so silent ones never lock a trainer out.
      while (full() && !silent.empty()) {
        Silent oldest = silent.front();
        silent.pop_front();
        if (examine(oldest)) {
          ::close(oldest.fd);
          count(&GateCounts::displaced);
        }
      }
      // Then the oldest handed-over connection no call has vouched for yet.
      for (auto h = held.begin(); full() && h != held.end(); ++h)
        if (!h->trusted && !h->shut) shut(*h, &GateCounts::evicted);
      if (full() || closing_over_slack()) {  // every held connection is vouched for: say no at once
        ::close(fd);
        count(&GateCounts::refused);
        continue;
      }
      const int on = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
      silent.push_back({fd, Clock::now()});
    }
  }

  /// Something else in the process used the headroom: close one waiting connection rather
  /// than leave it in the backlog, where poll would report it again at once.
  void refuse_without_descriptors() {
    if (reserve_fd >= 0) ::close(reserve_fd);
    const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) ::close(fd), count(&GateCounts::refused);
    reserve_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  }

  /// Live connections (silent and handed over, not shut down) at the cap.
  bool full() const {
    int64_t live = static_cast<int64_t>(silent.size());
    for (const auto& h : held) live += !h.shut;
    return live >= options.max_connections;
  }

  bool closing_over_slack() const {
    return static_cast<int64_t>(silent.size() + held.size()) >= options.max_connections + kClosingSlack;
  }

  /// Shuts a handed-over connection down (gRPC sees it end and closes the descriptor).
  void shut(Held& h, int64_t GateCounts::*why) {
    ::shutdown(h.fd, SHUT_RDWR);
    h.shut = true;
    count(why);
  }

  /// Takes the handlers' verdicts, and shuts down strangers and connections still unvouched for
  /// past the trust deadline.
  void judge_held(Clock::time_point now) {
    std::unique_lock<std::mutex> lock(counts_mutex);
    for (auto& h : held) {
      if (h.trusted || h.shut) continue;
      const auto verdict = verdicts.find(h.peer);
      if (verdict != verdicts.end() && verdict->second == Verdict::trusted) {
        h.trusted = true;
      } else if (verdict != verdicts.end() && !h.stranger) {
        h.stranger = true;
      } else if (h.stranger || now - h.since > options.trust_deadline ||
                 bytes_received(h.fd) > static_cast<uint64_t>(options.untrusted_bytes)) {
        ::shutdown(h.fd, SHUT_RDWR);
        h.shut = true;
        ++(counts.*(h.stranger ? &GateCounts::strangers : &GateCounts::untrusted));
      }
    }
  }

  void forget_closed() {
    std::vector<Held> open;
    std::lock_guard<std::mutex> lock(counts_mutex);
    for (auto& h : held) {
      if (inode_of(h.fd) == h.inode)
        open.push_back(std::move(h));
      else
        verdicts.erase(h.peer);
    }
    held.swap(open);
  }

  void judge(const std::string& grpc_peer, Verdict verdict) {
    std::lock_guard<std::mutex> lock(counts_mutex);
    auto [it, added] = verdicts.emplace(peer_key(grpc_peer), verdict);
    if (!added && verdict == Verdict::trusted) it->second = verdict;  // one good call is enough
    if (added && verdicts.size() > 4 * static_cast<size_t>(options.max_connections)) verdicts.erase(it);  // bounded
  }

  void count(int64_t GateCounts::*field) {
    std::lock_guard<std::mutex> lock(counts_mutex);
    ++(counts.*field);
  }
};

ConnectionGate::ConnectionGate(int listen_fd, GateOptions options, std::function<void(int)> hand_over)
    : state_(std::make_unique<State>()) {
  state_->listen_fd = listen_fd;
  state_->reserve_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  state_->options = options;
  state_->hand_over = std::move(hand_over);
  state_->thread = std::thread([s = state_.get()] { s->run(); });
}

ConnectionGate::~ConnectionGate() {
  state_->stop = true;
  state_->thread.join();
  for (const auto& s : state_->silent) ::close(s.fd);
  ::close(state_->listen_fd);
  if (state_->reserve_fd >= 0) ::close(state_->reserve_fd);
}

void ConnectionGate::vouch(const std::string& peer) { state_->judge(peer, State::Verdict::trusted); }

void ConnectionGate::distrust(const std::string& peer) { state_->judge(peer, State::Verdict::stranger); }

GateCounts ConnectionGate::counts() const {
  std::lock_guard<std::mutex> lock(state_->counts_mutex);
  return state_->counts;
}

}  // namespace pperf
