#!/usr/bin/env bash
# scripts/gpu-bundle.sh packs pperf for a GPU host without a network: checked here on the torch
# 2.15 build as the stand-in for the 2.11 one the GPU host takes. The folder must be under the
# 64 MiB the host accepts, and its binary must start (`--version`) against the venv's torch
# through the bundle's own run.sh, with no path of this build left in it; its REQUIRES (the
# GLIBC_/GLIBCXX_ versions `launch sagemaker --framework` checks) must be what its ELF files import.
# usage: gpu_bundle_test.sh PPERF   (skips, 77, for a pperf built against a CPU-only libtorch)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
pperf="$1"
"$pperf" --version | grep -q CUDA || { echo "skip: $pperf is not a CUDA build (the torch 2.x build runs this)"; exit 77; }
python="$("$root/scripts/setup-torch2.sh")"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
bundle="$("$root/scripts/gpu-bundle.sh" --python "$python" --out "$out/bundle")"
fail() { echo "FAIL: $*"; exit 1; }
size_kib=$(du -sk "$bundle" | cut -f1)
[ "$size_kib" -lt $((64 * 1024)) ] || fail "the bundle is $((size_kib / 1024)) MiB, over 64 MiB"
echo "bundle: $((size_kib / 1024)) MiB, $(ls "$bundle/lib" | wc -l) libraries"
# No build-tree path may remain in the binary's search path: on the GPU host none exists.
rpath="$(readelf -d "$bundle/bin/pperf" | grep -E 'RPATH|RUNPATH')"
grep -q 'lib]' <<<"$rpath" && ! grep -q "$root\|/var/cache" <<<"$rpath" || fail "search path: $rpath"
# REQUIRES holds the highest GLIBC_ and GLIBCXX_ versions the bundle's ELF files import (read
# here a second way, with readelf's version-needs section), and this host's glibc has them.
highest() { for f in "$bundle/bin/pperf" "$bundle"/lib/*.so*; do readelf -V -W "$f"; done | grep -o "Name: $1_[0-9.]*" | sed "s/Name: $1_//" | sort -V | tail -1; }
for n in GLIBC GLIBCXX; do
  [ "$(sed -n "s/^$n //p" "$bundle/REQUIRES")" = "$(highest $n)" ] || fail "REQUIRES says $n $(sed -n "s/^$n //p" "$bundle/REQUIRES"), readelf $(highest $n)"
done
[ "$(printf '%s\n' "$(sed -n 's/^GLIBC //p' "$bundle/REQUIRES")" "$(getconf GNU_LIBC_VERSION | cut -d' ' -f2)" | sort -V | tail -1)" = "$(getconf GNU_LIBC_VERSION | cut -d' ' -f2)" ] ||
  fail "the bundle needs GLIBC_$(sed -n 's/^GLIBC //p' "$bundle/REQUIRES"), this host has $(getconf GNU_LIBC_VERSION)"
echo "requires: $(tr '\n' ' ' < "$bundle/REQUIRES")"
# It starts against the venv's torch through run.sh alone, whatever this shell's library path.
version="$(env -u LD_LIBRARY_PATH PPERF_PYTHON="$python" "$bundle/run.sh" pperf --version)" || fail "run.sh pperf --version"
grep -q "libtorch $("$python" -c 'import torch; print(torch.__version__.split("+")[0])')" <<<"$version" ||
  fail "version: $version"
echo "$version"
# Every library the binary needs resolves, and none of torch's or CUDA's came from the bundle.
missing="$(env -u LD_LIBRARY_PATH bash -c "export LD_LIBRARY_PATH=\"$bundle/lib:\$($python -c 'import os, torch; print(os.path.dirname(torch.__file__))')/lib\"; ldd \"$bundle/bin/pperf\"" | grep 'not found' || true)"
[ -z "$missing" ] || fail "unresolved: $missing"
! ls "$bundle/lib" | grep -E '^lib(torch|c10|cudart|nccl|cudnn|stdc\+\+|c\.so)' || fail "torch's, CUDA's or the C runtime's library packed"
# The comparison with the PyTorch peers is packed and reaches pperf, which says why it cannot train.
set +e
message="$(PPERF_PYTHON="$python" "$bundle/run.sh" compare 1 vit_synthetic:tiny:8:1:1 2>&1)"
code=$?
set -e
[ "$code" -ne 0 ] && grep -q "pperf run failed" <<<"$message" && grep -q "cuda:0" <<<"$message" ||
  fail "run.sh compare on a host without a GPU: exit $code: $message"
# A torch of another version is refused with one line, exit 2.
set +e
message="$(PPERF_PYTHON="$python" bash -c "echo 9.9.9 > '$bundle/TORCH_VERSION'; '$bundle/run.sh' pperf --version" 2>&1)"
code=$?
set -e
[ "$code" -eq 2 ] && grep -q "built against torch 9.9.9" <<<"$message" || fail "another torch: exit $code: $message"
echo "ok"
