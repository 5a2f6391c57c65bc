#pragma once
// Facts fixed when pperf was built, so a tree changed after the build cannot misreport them.
#include <string>

namespace pperf {
/// The git commit pperf was built from, with "-dirty" when tracked files had uncommitted
/// changes at build time; "unknown" when built outside a git checkout.
const std::string& build_git_sha();
/// pperf's version (the CMake project version).
const std::string& build_version();
}  // namespace pperf
