#pragma once
// Hashing and secrets from libcrypto (OpenSSL, linked already through gRPC): nothing hand-written.
#include <cstddef>
#include <string>

namespace pperf {
/// Lower-case hex SHA-256 of `bytes`, so results can name the exact config.
std::string sha256_hex(const std::string& bytes);
/// `bytes` random bytes from libcrypto's CSPRNG, as lower-case hex (2 x bytes characters).
std::string random_token_hex(size_t bytes);
}  // namespace pperf
