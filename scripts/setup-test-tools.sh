#!/usr/bin/env bash
# Tools only the tests need (not the main command's set-up): openssl for the TLS test's
# throwaway CA, python3 for the test scripts, chromium to render the HTML report, jsonschema to
# validate files against schemas/, google/benchmark's compare.py (libbenchmark-tools, with scipy)
# to read `pperf export --format gbench`, PIL to look at the rendered PNG, sqlite3 to query the history database as a dashboard
# would. Installs what is missing, first use only.
set -euo pipefail
packages=(openssl python3 procps iproute2 chromium python3-jsonschema libbenchmark-tools python3-scipy python3-pil sqlite3)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "pperf test set-up: installing ${missing[*]}" >&2
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >&2
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
