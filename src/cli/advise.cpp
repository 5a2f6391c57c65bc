// `pperf advise RESULTS.json... [--market on_demand|spot|both] [--steps N] [--json F] [--markdown F]`:
// every priced configuration of the given results ranked by expected USD to train.
#include <iostream>

#include "src/cli/cli.h"
#include "src/core/atomic_file.h"
#include "src/core/input_error.h"
#include "src/core/results_json.h"
#include "pricing/advise.h"
#include "reports/formats.h"
#include "reports/writer.h"

namespace pperf::cli {

int command_advise(const std::vector<std::string>& args) {
  po::options_description options(
      "pperf advise RESULTS.json... [--market on_demand|spot|both] [--steps N]\n"
      "             [--json FILE] [--markdown FILE]");
  options.add_options()("help,h", "show this help")(
      "results", po::value<std::vector<std::string>>()->required(), "results files (pperf run or cost)")(
      "market", po::value<std::string>()->default_value("both"), "on_demand, spot or both (side by side)")(
      "steps", po::value<std::string>(), "steps to train (default: each results file's steps_to_train)");
  add_file_flags(options, advice_writers());
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
  write_file_outputs(advice, file_outputs(p, advice_writers()));
  std::cout << advice_console(advice);
  return kExitOk;
}

}  // namespace pperf::cli
