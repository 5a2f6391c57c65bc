#pragma once
// Writers: each turns the one RunReport record into an output format. They format only;
// nothing here measures or prices.
#include <nlohmann/json.hpp>

#include <string>

#include "reports/result.h"

namespace pperf {

constexpr int kResultsSchemaVersion = 1;

/// The results JSON of DESIGN.md §4 (schema_version 1).
nlohmann::json to_json(const RunReport& report);
/// One row per result, a header naming each column's unit.
std::string to_csv(const RunReport& report);
/// A fixed-width table for the terminal; every numeric header carries its unit.
std::string to_console_table(const RunReport& report);

}  // namespace pperf
