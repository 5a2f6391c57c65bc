// `pperf advise RESULTS.json... [--market on_demand|spot|both] [--steps N] [--json F] [--markdown F]`:
// every priced configuration of the given results ranked by expected USD to train.
#include <iostream>

#include "bench/cli/cli.h"
#include "bench/core/atomic_file.h"
#include "bench/core/input_error.h"
#include "bench/core/results_json.h"
#include "pricing/advise.h"
#include "reports/advise_writers.h"

namespace pperf::cli {

int command_advise(const std::vector<std::string>& args) {
  po::options_description options(
      "pperf advise RESULTS.json... [--market on_demand|spot|both] [--steps N] [--json FILE] [--markdown FILE]");
  options.add_options()("help,h", "show this help")(
      "results", po::value<std::vector<std::string>>()->required(), "results files (pperf run or cost)")(
      "market", po::value<std::string>()->default_value("both"), "on_demand, spot or both (side by side)")(
      "steps", po::value<std::string>(), "steps to train (default: each results file's steps_to_train)")(
      "json", po::value<std::string>(), "also write the ranking as JSON")(
      "markdown", po::value<std::string>(), "also write the ranking as Markdown");
  po::positional_options_description positional;
  positional.add("results", -1);
  Parsed p = parse("advise", options, args, &positional);
  if (p.help) return std::cout << options, kExitOk;
  AdviseOptions advise_options;
  advise_options.market = p.string("market");
  if (advise_options.market != "on_demand" && advise_options.market != "spot" && advise_options.market != "both")
    throw InputError("pperf advise", "--market", "expected on_demand, spot or both, got '" + advise_options.market + "'" +
                                                     did_you_mean(advise_options.market, {"on_demand", "spot", "both"}));
  if (p.has("steps")) {
    const std::string text = p.string("steps");
    advise_options.steps = positive_integer(text);
    if (!advise_options.steps)
      throw InputError("pperf advise", "--steps", "expected a positive whole number of steps, got '" + text + "'");
  }
  std::vector<std::pair<std::string, RunReport>> runs;
  for (const auto& file : p.vars["results"].as<std::vector<std::string>>()) runs.emplace_back(file, read_results_file(file));
  const Advice advice = advise(runs, advise_options);
  if (p.has("json")) write_file_atomically(p.string("json"), advice_json(advice).dump(2) + "\n");
  if (p.has("markdown")) write_file_atomically(p.string("markdown"), advice_markdown(advice));
  std::cout << advice_console(advice);
  return kExitOk;
}

}  // namespace pperf::cli
