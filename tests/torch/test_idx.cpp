#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>

#include "src/core/input_error.h"
#include "test_helpers.h"
#include "workloads/common/idx.h"

using namespace pperf;

namespace {
void write_gz(const std::string& path, const std::vector<uint8_t>& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(f);
}
}  // namespace

TEST(Idx, ReadsGzippedAndPlainFiles) {
  pperf::testing::TempDir dir;
  // magic 0x00000803, dims 2 x 2 x 3, then 12 bytes
  std::vector<uint8_t> bytes = {0, 0, 8, 3, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 3};
  for (uint8_t i = 0; i < 12; ++i) bytes.push_back(i * 10);
  write_gz(dir.path() + "/a.gz", bytes);
  IdxArray a = read_idx(dir.path() + "/a.gz");
  EXPECT_EQ(a.dims, (std::vector<int64_t>{2, 2, 3}));
  ASSERT_EQ(a.data.size(), 12u);
  EXPECT_EQ(a.data[11], 110);
  dir.write("plain", std::string(bytes.begin(), bytes.end()));
  EXPECT_EQ(read_idx(dir.path() + "/plain").data, a.data);
}

TEST(Idx, RejectsBadFilesWithTheirPath) {
  pperf::testing::TempDir dir;
  write_gz(dir.path() + "/short.gz", {0, 0, 8, 1, 0, 0, 0, 9, 1, 2});
  EXPECT_THROW(read_idx(dir.path() + "/short.gz"), InputError);
  write_gz(dir.path() + "/magic.gz", {1, 2, 3, 4});
  try {
    read_idx(dir.path() + "/magic.gz");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), dir.path() + "/magic.gz: not an IDX file (bad magic number)");
  }
  EXPECT_THROW(read_idx(dir.path() + "/none.gz"), InputError);
}

TEST(Idx, DebianFashionMnistIsTheRealDataset) {
  const std::string dir = "/usr/share/datasets/fashion-mnist";
  ASSERT_TRUE(std::filesystem::exists(dir)) << "scripts/setup.sh installs dataset-fashion-mnist";
  IdxArray images = read_idx(dir + "/t10k-images-idx3-ubyte.gz");
  IdxArray labels = read_idx(dir + "/t10k-labels-idx1-ubyte.gz");
  EXPECT_EQ(images.dims, (std::vector<int64_t>{10000, 28, 28}));
  EXPECT_EQ(labels.dims, (std::vector<int64_t>{10000}));
  std::vector<int> per_class(10);
  for (uint8_t l : labels.data) ++per_class.at(l);
  for (int n : per_class) EXPECT_EQ(n, 1000);  // the test split is balanced
}
