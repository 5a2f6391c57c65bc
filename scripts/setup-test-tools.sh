#!/usr/bin/env bash
# Tools only the tests need (not the main command's set-up): openssl for the TLS test's
# throwaway CA, procps (pgrep) and bsdutils (script: a pseudo-terminal) for the CLI tests,
# chromium to render the HTML report, jsonschema to validate files against schemas/,
# google/benchmark's compare.py (libbenchmark-tools, with scipy) to read `pperf export --format
# gbench`, PIL to look at the rendered PNG, sqlite3 to query the history database as a dashboard
# would, Debian's postgresql (server and psql) for the PostgreSQL history tests' own server, Slurm (slurmctld, slurmd, slurm-client, munge) for the private one-node cluster the
# data-parallel Slurm test starts, clang (libFuzzer and its sanitizer runtimes) for the fuzz
# targets, ccache for the four builds, patchelf and binutils (objcopy) for the GPU bundle's packer test,
# and what the main job installs only when a configuration asks (Fashion-MNIST, the Python side). Installs what is missing, first use only.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
packages=(openssl python3 procps bsdutils iproute2 chromium python3-jsonschema libbenchmark-tools python3-scipy
          python3-pil sqlite3 postgresql slurmctld slurmd slurm-client munge clang ccache patchelf binutils
          dataset-fashion-mnist python3-grpcio python3-protobuf python3-torch python3-torchvision)
"$root/scripts/ensure-packages.sh" "pperf test set-up" "${packages[@]}"
