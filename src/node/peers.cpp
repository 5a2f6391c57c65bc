#include "src/node/peers.h"

#include <fmt/format.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <iostream>

#include "src/core/atomic_file.h"
#include "src/core/input_error.h"
#include "src/core/node_contract.h"

namespace pperf::node {

namespace fs = std::filesystem;

bool accepts_connections(const std::string& host, int64_t port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return false;
  bool ok = false;
  for (addrinfo* a = found; a && !ok; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    ok = ::connect(fd, a->ai_addr, a->ai_addrlen) == 0;
    ::close(fd);
  }
  ::freeaddrinfo(found);
  return ok;
}

std::string published_address(const fs::path& peers_dir, const std::string& host) {
  std::error_code ec;
  if (!fs::is_regular_file(peers_dir / host, ec)) return "";
  std::string text = read_text_file((peers_dir / host).string());
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

void publish(const std::string& tag, const fs::path& peers_dir, const std::string& key, const std::string& address) {
  fs::create_directories(peers_dir);
  write_file_atomically((peers_dir / key).string(), address + "\n");
  std::cerr << fmt::format("{}: published {} as {}\n", tag, address, (peers_dir / key).string());
}

fs::path trusted_ca(const fs::path& tls_dir) {
  if (tls_dir.empty()) return {};
  return fs::is_regular_file(tls_dir / kTlsCaFile) ? tls_dir / kTlsCaFile : tls_dir / kTlsCertFile;
}

void check_tls_dir(const fs::path& tls_dir, const std::string& origin) {
  if (tls_dir.empty()) return;
  for (const char* f : {kTlsCertFile, kTlsKeyFile})
    if (!fs::is_regular_file(tls_dir / f)) throw InputError((tls_dir / f).string(), "", "missing (" + origin + " brings the TLS files)");
}

}  // namespace pperf::node
