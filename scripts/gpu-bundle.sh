#!/usr/bin/env bash
# Packs pperf for a GPU host that has its own torch and CUDA but no network, no package manager
# and no build dependencies: one folder holding the binary, the shared libraries it needs that
# are not torch's, CUDA's or the C runtime's (gRPC, protobuf, Boost, fmt, SQLite, OpenSSL, ...),
# pperf's data (price tables, configs), its Python workers, the PyTorch peers and
# scripts/gpu-check.sh. The host's own torch must be the version built against: the bundle finds
# it at run time through the python3 that imports it (`run.sh`), never through a path fixed here.
#
# usage: scripts/gpu-bundle.sh [--torch VERSION | --python PYTHON] [--out DIR] [--max-mib N]
#   --torch VERSION  build against PyPI's torch VERSION (default 2.11.0, what the GPU host this
#                    project is checked on has), in the venv scripts/setup-torch2.sh makes
#   --python PYTHON  build against the torch PYTHON imports instead
#   --out DIR        the folder (default gpu-bundle/ in the checkout; replaced)
#   --max-mib N      fail when the folder is larger (default 64: what the GPU host takes)
# On the GPU host:  gpu-bundle/run.sh gpu-check      (or: gpu-bundle/run.sh pperf --version;
#                   gpu-bundle/run.sh compare ROUNDS CASE...: bench/compare_pytorch.sh on cuda:0)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
torch_version=2.11.0 python="" out="$root/gpu-bundle" max_mib=64
while [ $# -gt 0 ]; do
  case "$1" in
    --torch) torch_version="$2"; shift 2 ;;
    --python) python="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --max-mib) max_mib="$2"; shift 2 ;;
    *) echo "gpu-bundle: unknown argument '$1' (usage: see the top of $0)" >&2; exit 2 ;;
  esac
done
"$root/scripts/ensure-packages.sh" "pperf gpu-bundle" patchelf binutils
[ -n "$python" ] || python="$(PPERF_TORCH2_VERSION="$torch_version" "$root/scripts/setup-torch2.sh")"
build="$("$root/scripts/build-with-torch.sh" "$python" pperf)"
torch_lib="$("$python" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')"
built_against="$("$python" -c 'import torch; print(torch.__version__)')"

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
# The binary without its debug sections (the bundle must stay small), its search path the
# bundle's lib/ first; torch's and CUDA's libraries come from the host (run.sh).
objcopy --strip-debug "$build/pperf" "$out/bin/pperf"
patchelf --set-rpath '$ORIGIN/../lib' "$out/bin/pperf"
cp "$build/pperf-data-worker.py" "$build/pperf-step-worker.py" "$build/data_service_pb2.py" "$out/bin/"

# Every library the loader resolves for pperf here, but for torch's own (torch/lib), CUDA's
# wheels (nvidia/*), the driver's, and the C and C++ runtimes the host's torch brings or needs.
host_provided='^(libc|libm|libdl|librt|libpthread|libutil|ld-linux-x86-64|libstdc\+\+|libgcc_s|libgomp|libcuda|libcudart|libcublas(Lt)?|libcudnn[a-z_]*|libcufft|libcurand|libcusparse(Lt)?|libcusolver|libcupti|libcufile|libnccl|libnvrtc|libnvJitLink|libnvToolsExt|libnvshmem[a-z_]*|libnvidia-.*)\.so'
while read -r name _ path _; do
  case "$path" in "$torch_lib"/*|*/nvidia/*|"") continue ;; esac
  [[ "$name" =~ $host_provided ]] && continue
  cp -L "$path" "$out/lib/$name"
done < <(LD_LIBRARY_PATH="$torch_lib" ldd "$build/pperf" | awk '$2 == "=>" {print $1, $2, $3, $4}')
for lib in "$out"/lib/*.so*; do
  objcopy --strip-debug "$lib"
  patchelf --set-rpath '$ORIGIN' "$lib"
done
# What its ELF files need of the host's glibc and libstdc++ (GLIBC_/GLIBCXX_ versions): `pperf
# launch sagemaker --framework --bundle` checks them against the image's.
"$root/scripts/bundle-abi.sh" "$out" > "$out/REQUIRES"

# pperf's data, its entry scripts and run.sh: the layout every bundle shares (scripts/bundle-files.sh).
"$root/scripts/bundle-files.sh" --out "$out" --torch-version "$built_against"

size_mib=$(( $(du -sk "$out" | cut -f1) / 1024 ))
echo "gpu-bundle: $out: $size_mib MiB, pperf built against torch $built_against ($(ls "$out/lib" | wc -l) libraries beside it)" >&2
if [ "$size_mib" -ge "$max_mib" ]; then
  echo "gpu-bundle: $out is $size_mib MiB, over the $max_mib MiB the GPU host takes" >&2
  exit 1
fi
echo "$out"
