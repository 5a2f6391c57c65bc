#pragma once
// What runs as a SageMaker job's container process in `--framework` mode (AWS's PyTorch training
// image, the GPU bundle as the toolkit's source directory). Pure: text only.
#include <string>
#include <utility>
#include <vector>

namespace pperf {

/// AlgorithmSpecification.ContainerEntrypoint for AWS's PyTorch training images. SageMaker stops
/// a job (StopTrainingJob, a Spot interruption) with SIGTERM to the container's PID 1, SIGKILL
/// 120 s later; the image's own ENTRYPOINT makes PID 1 `bash -m start_with_right_hostname.sh`,
/// which installs no handler (a PID 1 without one never receives the signal) and runs the
/// toolkit's `train` as a child, whose process runner starts `/bin/sh -c "./ENTRY ARGS"`: the stop
/// never reaches pperf. This PID 1 (bash) starts the image's own entry script as the image does
/// (`start_with_right_hostname.sh train`, found on PATH) with SIGTERM ignored, which every process
/// down to pperf inherits (the toolkit's python, /bin/sh, sagemaker-entry.sh and run.sh, which
/// exec); on the stop it passes SIGTERM to its process group, where pperf alone has a handler,
/// then waits for the entry script and exits with its status.
std::vector<std::string> sagemaker_framework_entrypoint();

/// AlgorithmSpecification.MetricDefinitions: per configuration the mean step time pperf prints
/// when a (workload x configuration) ends (reports/text.cpp: "W/P on CONF: mean X ms/step (median
/// Y) over N steps ..."), as the CloudWatch metric `pperf:step_ms:CONF` (milliseconds). A name's
/// regex characters are escaped.
std::vector<std::pair<std::string, std::string>> sagemaker_metric_definitions(const std::vector<std::string>& configurations);

}  // namespace pperf
