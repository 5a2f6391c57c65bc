// `pperf cost`: price step times a config gives (measured elsewhere); nothing runs.
#include <iostream>

#include "src/cli/cli.h"
#include "src/core/input_error.h"

namespace pperf::cli {

int command_cost(const std::vector<std::string>& args, const std::vector<std::string>& argv) {
  auto options = config_options("cost");
  add_output_options(options);
  add_history_option(options);
  Parsed p = parse("cost", options, join_optional_value(args, "--history"));
  if (p.help) return std::cout << options, kExitOk;
  const RunSession session(session_request(p));
  const Config& config = session.config();
  if (!config.priced_only)
    throw InputError(config.path, "/configurations", "`pperf cost` needs step_time_ms on every configuration");
  RunReport report = report_header(config, "cost", argv);
  report.results = given_results(session.plan());
  report.status = overall_status(report.results, false);
  const Outputs out = outputs_from(p, config);
  warn_if_prices_stale(config, out.quiet);  // after every input is known good: a mistake stays one line
  const std::string history = history_path_from(p);
  const Finished finished = finish(report, session, out);
  if (!history.empty() && finished.written) return record_and_trend(history, report, out, finished);
  if (finished.written) write_trend_reports(report, out, history);
  return finished.code;
}

}  // namespace pperf::cli
