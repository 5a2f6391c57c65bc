#include "workloads/common/idx.h"

#include <zlib.h>

#include <memory>

#include "src/core/input_error.h"

namespace pperf {

IdxArray read_idx(const std::string& path) {
  // gzread reads plain files transparently too.
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose);
  if (!file) throw InputError(path, "", "cannot open IDX file");
  auto read_exact = [&](void* buf, size_t n) {
    return gzread(file.get(), buf, static_cast<unsigned>(n)) == static_cast<int>(n);
  };
  unsigned char magic[4];
  if (!read_exact(magic, 4) || magic[0] != 0 || magic[1] != 0)
    throw InputError(path, "", "not an IDX file (bad magic number)");
  if (magic[2] != 0x08) throw InputError(path, "", "IDX element type is not unsigned byte");
  const int rank = magic[3];
  if (rank < 1 || rank > 4) throw InputError(path, "", "IDX rank " + std::to_string(rank) + " unsupported");

  IdxArray array;
  size_t total = 1;
  for (int i = 0; i < rank; ++i) {
    unsigned char be[4];
    if (!read_exact(be, 4)) throw InputError(path, "", "truncated IDX header");
    const int64_t d = (int64_t{be[0]} << 24) | (be[1] << 16) | (be[2] << 8) | be[3];
    array.dims.push_back(d);
    total *= static_cast<size_t>(d);
  }
  if (total > (size_t{1} << 32)) throw InputError(path, "", "IDX dimensions implausibly large");
  array.data.resize(total);
  size_t done = 0;
  while (done < total) {  // gzread takes an unsigned count: read in chunks
    const size_t chunk = std::min<size_t>(total - done, 1 << 24);
    if (!read_exact(array.data.data() + done, chunk))
      throw InputError(path, "", "truncated IDX data (expected " + std::to_string(total) + " bytes)");
    done += chunk;
  }
  return array;
}

}  // namespace pperf
