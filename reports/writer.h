#pragma once
// A run's output formats by name: what `pperf run|cost --csv/--html/...`, `pperf report` and
// `pperf export --format` write, their usage text and did-you-mean. Adding a format is a function
// (a file under reports/) and one entry in run_writers(). Every writer formats only.
#include <functional>
#include <string>
#include <vector>

#include "reports/html_report.h"

namespace pperf {

struct RunWriter {
  std::string name;         // --format's value; the flag of run/cost/report is "--" + name
  std::string extension;    // of its files and golden outputs: "csv", "md", ...
  std::string description;  // one line for usage text
  /// Draws trend charts from the history when the page has them (HTML, Markdown).
  bool shows_trends = false;
  /// Offered as a file flag by run/cost (all but console, and json, which is --out).
  bool file_flag = true;
  std::function<std::string(const RunReportPage&)> write;
};

/// Every format, in the order usage text lists them.
const std::vector<RunWriter>& run_writers();
/// The format named `name`; nullptr when there is none.
const RunWriter* find_run_writer(const std::string& name);
/// Every format's name, for usage and did-you-mean.
std::vector<std::string> run_writer_names();

}  // namespace pperf
