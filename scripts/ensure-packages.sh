#!/usr/bin/env bash
# Installs the Debian packages given that are not installed yet (apt, as root or via sudo);
# silent when all are there; says how long the installation took.
# usage: scripts/ensure-packages.sh WHO PACKAGE...   (WHO prefixes the one line it prints)
set -euo pipefail
who="$1"; shift
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "$who: installing ${missing[*]}" >&2
  start=$SECONDS
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >&2
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  echo "$who: installed ${#missing[@]} packages in $((SECONDS - start)) s" >&2
fi
