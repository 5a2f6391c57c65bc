#pragma once
// Reader for the IDX format of (Fashion-)MNIST, gzip-compressed or not.
#include <cstdint>
#include <string>
#include <vector>

namespace pperf {

struct IdxArray {
  std::vector<int64_t> dims;  // e.g. {60000, 28, 28}
  std::vector<uint8_t> data;  // row-major, dims' product bytes
};

/// Reads an unsigned-byte IDX file (magic 0x00000801..0x00000803 for 1..3 dims). A missing,
/// truncated or non-IDX file is an InputError naming the path.
IdxArray read_idx(const std::string& path);

}  // namespace pperf
