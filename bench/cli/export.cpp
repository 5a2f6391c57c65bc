// `pperf export RESULTS.json --format gbench|csv [--out FILE]`: a run in other tools' formats.
#include <iostream>

#include "bench/cli/cli.h"
#include "bench/core/atomic_file.h"
#include "bench/core/input_error.h"
#include "bench/core/results_json.h"
#include "reports/export.h"
#include "reports/writers.h"

namespace pperf::cli {

int command_export(const std::vector<std::string>& args) {
  po::options_description options("pperf export RESULTS.json --format gbench|csv [--out FILE]");
  options.add_options()("help,h", "show this help")("results", po::value<std::string>()->required(), "RESULTS.json")(
      "format", po::value<std::string>()->required(),
      "gbench: Google Benchmark JSON (compare.py reads it); csv: one row per result")(
      "out", po::value<std::string>(), "write to FILE (default stdout)");
  po::positional_options_description positional;
  positional.add("results", 1);
  Parsed p = parse("export", options, args, &positional);
  if (p.help) return std::cout << options, kExitOk;
  const std::string format = p.string("format");
  if (format != "gbench" && format != "csv")
    throw InputError("pperf export", "--format", "expected gbench or csv, got '" + format + "'" + did_you_mean(format, {"gbench", "csv"}));
  const RunReport report = read_results_file(p.string("results"));
  const std::string text = format == "gbench" ? to_gbench_json(report).dump(2) + "\n" : to_csv(report);
  if (p.has("out"))
    write_file_atomically(p.string("out"), text);
  else
    std::cout << text;
  return kExitOk;
}

}  // namespace pperf::cli
