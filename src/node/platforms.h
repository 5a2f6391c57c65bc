#pragma once
// The platforms' contracts as a launched host reads them: SageMaker's container files
// (resourceconfig.json, hyperparameters.json, src/launch/sagemaker.h) and variables, and the
// `pperf node-entry` arguments (src/core/node_contract.h) with SkyPilot's or Kubernetes' own
// variables (rank, node addresses, pod and node names). Each makes the NodeRun the host does.
#include <filesystem>

#include "src/core/node_contract.h"
#include "src/node/node.h"

namespace pperf::node {

/// Where SageMaker's container contract lives ($PPERF_SAGEMAKER_ROOT, else /opt/ml).
struct SageMakerPaths {
  std::filesystem::path root, resource_config, hyperparameters, model, output_data, failure, checkpoints;
};
SageMakerPaths sagemaker_paths();

/// This SageMaker host's part: InputError naming the contract's file and key, or the variable.
NodeRun sagemaker_node(const SageMakerPaths& paths);

/// This SkyPilot node's or Kubernetes pod's part from its arguments and its platform's
/// variables: InputError naming the variable the platform did not set as pperf's job needs it.
NodeRun entry_node(const NodeEntryArgs& args);

}  // namespace pperf::node
