#pragma once
// Golden files: a text checked in under tests/data/golden, so a change of output is a reviewed
// diff. PPERF_UPDATE_GOLDEN=1 rewrites them (docs/results.md, "Golden outputs").
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "test_helpers.h"
#include "src/core/atomic_file.h"

namespace pperf::testing {

inline const std::string kGolden = pperf::testing::source_dir() + "/tests/data/golden/";

/// The file's text, or "(missing: PATH)".
inline std::string read_golden(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "(missing: " + path + ")";
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Compares `text` with the golden file `name`, or rewrites it under PPERF_UPDATE_GOLDEN=1; a
/// difference names its first differing line.
inline void expect_golden(const std::string& name, const std::string& text) {
  const std::string path = kGolden + name;
  if (const char* update = std::getenv("PPERF_UPDATE_GOLDEN"); update && std::string(update) == "1") {
    write_file_atomically(path, text);
    return;
  }
  const std::string want = read_golden(path);
  if (text == want) return;
  std::stringstream a(text), b(want);
  std::string got_line, want_line;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, got_line)), more_b = static_cast<bool>(std::getline(b, want_line));
    if (!more_a && !more_b) break;
    if (got_line != want_line || more_a != more_b) {
      ADD_FAILURE() << name << " differs from its golden file at line " << line << "\n  got:    " << got_line
                    << "\n  golden: " << want_line << "\n(PPERF_UPDATE_GOLDEN=1 rewrites it; review the diff)";
      return;
    }
  }
  ADD_FAILURE() << name << " differs from its golden file (line endings)";
}

}  // namespace pperf::testing
