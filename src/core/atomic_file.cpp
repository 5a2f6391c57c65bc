#include "src/core/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

namespace pperf {

void write_file_atomically(const std::string& path, const std::string& contents) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path());
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  auto fail = [&](const std::string& what) {
    std::string reason = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw std::runtime_error(path + ": " + what + ": " + reason);
  };
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create temporary file");
  size_t written = 0;
  while (written < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      fail("write failed");
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) { ::close(fd); fail("fsync failed"); }
  if (::close(fd) != 0) fail("close failed");
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail("rename failed");
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  // Read a regular file into a string of its size: a stringstream would hold the bytes two or
  // three times over (a 164 MB price catalog peaked at ~0.5 GB); a pipe reads to its end.
  std::error_code ec;
  const bool regular = std::filesystem::is_regular_file(path, ec);
  const auto size = regular ? std::filesystem::file_size(path, ec) : 0;
  std::string text;
  if (regular && !ec) {
    text.resize(size);
    in.read(text.data(), static_cast<std::streamsize>(size));
    text.resize(static_cast<size_t>(in.gcount()));
  } else {
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (in.bad()) throw std::runtime_error("cannot read " + path);
  return text;
}

}  // namespace pperf
