#pragma once
// Every output format by name, one registry per page: a run's (`pperf run|cost --csv/--html/...`,
// `pperf report`, `pperf export --format`), a comparison's (`pperf compare --out/--markdown/...`)
// the advice's (`pperf advise --json/--markdown`) and the projection's (`pperf project --out/--html`),
// with their file flags, usage text and
// did-you-mean. Adding a format is a function in its format's file (reports/formats.h) and one
// entry here. Every writer formats only.
#include <functional>
#include <string>
#include <vector>

#include "src/core/advice.h"
#include "src/compare/compare.h"
#include "reports/page.h"

namespace pperf {

/// One format of one page.
template <class Page>
struct Writer {
  std::string name;         // --format's value
  std::string flag;         // the flag that writes it to a file ("--" + flag); "" where a command has none
  std::string extension;    // of its files and golden outputs: "csv", "md", ...
  std::string description;  // one line for usage text
  /// Draws trend charts from the history when the page has them (HTML, Markdown).
  bool shows_trends = false;
  std::function<std::string(const Page&)> write;
};
using RunWriter = Writer<RunReportPage>;
using CompareWriter = Writer<CompareReport>;
using AdviceWriter = Writer<Advice>;
using ProjectionWriter = Writer<ProjectionPage>;

/// Each page's formats, in the order usage text lists them.
const std::vector<RunWriter>& run_writers();
const std::vector<CompareWriter>& compare_writers();
const std::vector<AdviceWriter>& advice_writers();
const std::vector<ProjectionWriter>& projection_writers();

/// The format named `name`; nullptr when there is none.
template <class Page>
const Writer<Page>* find_writer(const std::vector<Writer<Page>>& writers, const std::string& name) {
  for (const auto& w : writers)
    if (w.name == name) return &w;
  return nullptr;
}
/// Every format's name, for usage and did-you-mean.
template <class Page>
std::vector<std::string> writer_names(const std::vector<Writer<Page>>& writers) {
  std::vector<std::string> names;
  for (const auto& w : writers) names.push_back(w.name);
  return names;
}

}  // namespace pperf
