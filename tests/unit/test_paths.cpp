// The only test file compiled with this checkout's absolute paths: every other test file compiles
// the same in every clone, so a compiler cache serves a fresh clone's build.
#include "test_helpers.h"

namespace pperf::testing {

std::string source_dir() { return PPERF_TEST_SOURCE_DIR; }
std::string binary_dir() { return PPERF_TEST_BINARY_DIR; }

}  // namespace pperf::testing
