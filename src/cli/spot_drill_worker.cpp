// `pperf spot-drill-worker` (internal): the training process `pperf run --spot-drill` kills
// and restarts. Trains an item's steps, checkpointing every N steps, printing progress lines
// the parent reads (src/measure/spot_drill.h). Not for people.
#include <iostream>

#include "src/cli/cli.h"
#include "src/config/plan.h"
#include "src/core/input_error.h"
#include "src/measure/spot_drill.h"

namespace pperf::cli {

int command_spot_drill_worker(const std::vector<std::string>& args) {
  auto options = item_options("spot-drill-worker");
  options.add_options()(
      "checkpoint", po::value<std::string>()->required(), "the checkpoint file")(
      "steps", po::value<int64_t>()->required(), "train until this step")(
      "every", po::value<int64_t>()->required(), "checkpoint every this many steps")(
      "resume", "load the checkpoint first and continue from its step");
  Parsed p = parse("spot-drill-worker", options, args);
  if (p.help) return std::cout << options, kExitOk;
  const Config config = load_config(p.string("config"), builtin_workloads(), p.has("native"));
  const PlanItem item = item_from(p, config);
  const int64_t steps = p.vars["steps"].as<int64_t>(), every = p.vars["every"].as<int64_t>();
  if (steps <= 0 || every <= 0) throw InputError("--steps", "", "--steps and --every must be positive");
  drill_train(item, builtin_workloads(), p.string("checkpoint"), steps, every, p.has("resume"));
  return kExitOk;
}

}  // namespace pperf::cli
