#!/usr/bin/env bash
# The entry point of a SageMaker job `pperf launch sagemaker --framework pytorch:VERSION` writes:
# the SageMaker training toolkit in AWS's PyTorch image unpacks the GPU bundle into /opt/ml/code
# and starts this script there (with the hyperparameters as --KEY VALUE arguments, which pperf
# reads from /opt/ml/input/config/hyperparameters.json instead). The image's python3 has the
# torch the bundle was built against (run.sh checks).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/share/pperf/configs"
exec "$here/run.sh" pperf sagemaker-entry
