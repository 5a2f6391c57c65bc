// pperf as a launched job's entry point on each of its hosts: `pperf sagemaker-entry` (SageMaker's
// container contract, src/launch/sagemaker.h) and `pperf node-entry` (a SkyPilot task's or a
// Kubernetes pod's command, written by `pperf launch skypilot|kubernetes`; its arguments are
// src/core/node_contract.h's). The host's runtime is src/node: it settles what this host is from
// the platform's own files and variables and does it; here, the flags and the help.
#include <algorithm>
#include <iostream>

#include "src/cli/cli.h"
#include "src/core/node_contract.h"
#include "src/node/node.h"
#include "src/node/platforms.h"

namespace pperf::cli {

namespace {

bool asks_for_help(const std::vector<std::string>& args) {
  return std::find(args.begin(), args.end(), "--help") != args.end() || std::find(args.begin(), args.end(), "-h") != args.end();
}

/// `pperf node-entry --help`: the contract's flags.
po::options_description node_entry_options() {
  po::options_description options("pperf node-entry options (a SkyPilot task's or Kubernetes pod's command; docs/launch.md)");
  options.add_options()("help,h", "show this help");
  for (const auto& f : node_entry_flags()) {
    auto* value = po::value<std::string>();
    if (f.default_value) value->default_value(f.default_value);
    options.add_options()(f.name, value, f.help);
  }
  return options;
}

}  // namespace

int command_sagemaker_entry(const std::vector<std::string>& args) {
  po::options_description options("pperf sagemaker-entry options (a SageMaker job's entry point; docs/launch.md)");
  options.add_options()("help,h", "show this help");
  // The SageMaker toolkit passes every hyperparameter as --KEY VALUE: read from hyperparameters.json instead.
  if (asks_for_help(args)) return std::cout << options, kExitOk;
  const node::SageMakerPaths paths = node::sagemaker_paths();
  // What SageMaker shows as the job's FailureReason: the first line of /opt/ml/output/failure.
  return node::as_entry_point("pperf sagemaker-entry", paths.failure, [&] { return node::run_node(node::sagemaker_node(paths)); });
}

int command_node_entry(const std::vector<std::string>& args) {
  if (asks_for_help(args)) return std::cout << node_entry_options(), kExitOk;
  return node::as_entry_point("pperf node-entry", "", [&] { return node::run_node(node::entry_node(parse_node_entry_args(args))); });
}

}  // namespace pperf::cli
