#!/usr/bin/env bash
# The launch platforms' own code, for the tests of `pperf launch` and the entry points: botocore
# (SageMaker's API model), moto (a local SageMaker API), sagemaker (image_uris.retrieve names AWS's
# PyTorch training images offline), sagemaker-training (the toolkit that reads the container
# contract), skypilot (sky.Task.from_yaml, the job-group loader), kubernetes (the client's models of
# Job, Service, Secret) and jsonschema (the PyTorchJob
# CRD's schema). PyPI's, in a virtual environment of its own made once and kept across clones.
# Prints the venv's python.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/ensure-packages.sh" "pperf test set-up" python3-venv
venv="${PPERF_LAUNCH_VENV:-/var/cache/pperf/launch-venv-1}"
# skypilot at the version whose schemas ../shared/real-data/launchers/skypilot/ holds; sagemaker 2.x
# (its image_uris module; 3.x moved it).
packages=(botocore "moto[sagemaker]" "sagemaker>=2.200,<3" sagemaker-training "skypilot==0.14.1" kubernetes jsonschema pyyaml)
check='import botocore, moto, sagemaker.image_uris, sagemaker_training.environment, sky, kubernetes.client, jsonschema, yaml'
if ! "$venv/bin/python" -c "$check" >/dev/null 2>&1; then
  echo "pperf setup: installing the launch platforms' packages (${packages[*]}) into $venv" >&2
  mkdir -p "$(dirname "$venv")"
  # pyenv's python3 (PyPI), never Debian's /usr/bin/python3 (its modules are Debian's).
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --progress-bar off "${packages[@]}" >&2
  "$venv/bin/python" -c "$check" >&2 2>&1
fi
echo "$venv/bin/python"
