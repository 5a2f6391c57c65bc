#!/usr/bin/env bash
# Tools only the tests need (not the main command's set-up): openssl for the TLS test's
# throwaway CA, procps (pgrep) and bsdutils (script: a pseudo-terminal) for the CLI tests.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
packages=(openssl python3 procps bsdutils iproute2)
"$root/scripts/ensure-packages.sh" "pperf test set-up" "${packages[@]}"
