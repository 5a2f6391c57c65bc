#pragma once
// libFuzzer targets read pperf's files by path, as pperf does: each input is written to one
// temporary file per process (in /dev/shm when there is one) and loaded from there.
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>

namespace pperf::fuzz {
inline const std::string& input_path(const char* name) {
  static const std::string path =
      std::string(access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") + "/pperf_fuzz_" + name + "_" +
      std::to_string(getpid()) + ".json";
  return path;
}
inline const std::string& write_input(const char* name, const uint8_t* data, size_t size) {
  const std::string& path = input_path(name);
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}
}  // namespace pperf::fuzz
