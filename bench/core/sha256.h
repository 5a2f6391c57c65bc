#pragma once
#include <string>

namespace pperf {
/// Lower-case hex SHA-256 of `bytes` (libcrypto), so results can name the exact config.
std::string sha256_hex(const std::string& bytes);
}  // namespace pperf
