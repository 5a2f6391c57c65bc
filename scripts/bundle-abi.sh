#!/usr/bin/env bash
# What a bundle's ELF files need of the host's C and C++ runtimes: the highest GLIBC_ and GLIBCXX_
# symbol versions that bin/pperf and lib/*.so* import (their dynamic symbol tables, read with
# binutils' objdump -T), one `NAME VERSION` line each. scripts/gpu-bundle.sh writes it as the
# bundle's REQUIRES; `pperf launch sagemaker --framework` checks it against the image's.
# usage: scripts/bundle-abi.sh BUNDLE_DIR
set -euo pipefail
dir="$1"
files=("$dir/bin/pperf")
for f in "$dir"/lib/*.so*; do [ -e "$f" ] && files+=("$f"); done
# An imported symbol's line: *UND* then its version (GLIBC_2.34); a name only the library defines is not needed.
objdump -T "${files[@]}" | awk '$0 ~ /\*UND\*/ { for (i = 1; i <= NF; i++) if ($i ~ /^\(?(GLIBC|GLIBCXX)_[0-9.]+\)?$/) { v = $i; gsub(/[()]/, "", v); print v } }' |
  sort -u | /usr/bin/python3 -c '
import sys
best = {}
for line in sys.stdin:
    name, _, version = line.strip().partition("_")
    key = tuple(int(x) for x in version.split("."))
    if key > best.get(name, ((), ""))[0]:
        best[name] = (key, version)
for name in ("GLIBC", "GLIBCXX"):
    if name in best:
        print(name, best[name][1])'
