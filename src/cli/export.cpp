// `pperf export RESULTS.json --format NAME [--out FILE]`: a run in any of reports/writer.h's
// formats (Google Benchmark JSON, CSV, Markdown, HTML, the console's table, the results JSON).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>

#include "src/cli/cli.h"
#include "src/core/atomic_file.h"
#include "src/core/input_error.h"
#include "src/core/results_json.h"

namespace pperf::cli {

int command_export(const std::vector<std::string>& args) {
  const std::vector<std::string> names = writer_names(run_writers());
  std::string formats;
  for (const RunWriter& w : run_writers()) formats += (formats.empty() ? "" : "; ") + w.name + ": " + w.description;
  po::options_description options(fmt::format("pperf export RESULTS.json --format {}\n             [--out FILE]", fmt::join(names, "|")));
  options.add_options()("help,h", "show this help")("results", po::value<std::string>()->required(), "RESULTS.json")(
      "format", po::value<std::string>()->required(), formats.c_str())("out", po::value<std::string>(), "write to FILE (default stdout)");
  po::positional_options_description positional;
  positional.add("results", 1);
  Parsed p = parse("export", options, args, &positional);
  if (p.help) return std::cout << options, kExitOk;
  const std::string format = p.string("format");
  const RunWriter* writer = find_writer(run_writers(), format);
  if (!writer)
    throw InputError("pperf export", "--format",
                     fmt::format("expected {}, got '{}'{}", fmt::join(names, ", "), format, did_you_mean(format, names)));
  const RunReport report = read_results_file(p.string("results"));
  RunReportPage page;
  page.run = &report;
  page.source = p.string("results");
  page.console = {p.has("out") ? 0 : terminal_columns(), false};
  const std::string text = writer->write(page);
  if (p.has("out"))
    write_file_atomically(p.string("out"), text);
  else
    std::cout << text;
  return kExitOk;
}

}  // namespace pperf::cli
