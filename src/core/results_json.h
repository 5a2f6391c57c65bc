#pragma once
// The results file (schema_version 1, fields in docs/results.md): written and read back here,
// one place, so compare, history and reports never re-implement it.
// Guarantees: results_from_json(to_json(r)) writes back byte-identical JSON; a file this
// version did not write is read field by field, every mistake an InputError naming the file
// and the JSON pointer; fields it does not know are kept and written back, never a crash.
#include <nlohmann/json.hpp>

#include <string>

#include "src/core/result.h"

namespace pperf {

constexpr int kResultsSchemaVersion = 1;

nlohmann::json to_json(const RunReport& report);
/// The text pperf writes to a results file: to_json indented by 2, newline-terminated.
std::string results_file_text(const RunReport& report);

/// `file` names the source in errors. Throws InputError.
RunReport results_from_json(const nlohmann::json& doc, const std::string& file);
RunReport read_results_file(const std::string& path);

}  // namespace pperf
