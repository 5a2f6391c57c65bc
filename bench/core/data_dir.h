#pragma once
// Where pperf's read-only data (price tables, schemas) lives, so an installed binary works
// from any directory.
#include <string>

namespace pperf {

/// The first of: `<dir of the binary>/../share/pperf` (an installed pperf), `$PPERF_DATA_DIR`,
/// the source tree pperf was built from; each only if it holds `pricing/tables`.
/// Throws std::runtime_error naming every place looked at when none does.
std::string data_dir();

}  // namespace pperf
