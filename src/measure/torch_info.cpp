#include "src/measure/torch_info.h"

#include <torch/cuda.h>

#include <dlfcn.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <ATen/detail/CUDAHooksInterface.h>

#include "src/measure/data_parallel.h"

namespace pperf {

namespace {
// OpenBLAS keeps its own pool; Debian's libtorch does not size it, so GEMMs would otherwise use
// every core whatever `threads` says. Looked up at run time: the reference BLAS has no pool.
void set_openblas_threads(int64_t threads) {
  using SetFn = void (*)(int);
  if (auto fn = reinterpret_cast<SetFn>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads")))
    fn(static_cast<int>(threads));
}

/// "13.2" from the CUDART_VERSION (13020) libtorch_cuda was compiled with, as torch.version.cuda
/// prints it; null for a CPU-only libtorch. Needs no GPU (at::hasCUDA() would: it asks the driver).
nlohmann::json cuda_version() {
  try {
    const long v = at::detail::getCUDAHooks().versionCUDART();
    return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
  } catch (const c10::Error&) {
    return nullptr;  // the CPU-only hooks: no CUDA runtime built in
  }
}

nlohmann::json nccl_version_fact() {
  const std::string v = nccl_version();
  return v.empty() ? nlohmann::json(nullptr) : nlohmann::json(v);
}

int64_t openblas_threads() {
  using GetFn = int (*)();
  if (auto fn = reinterpret_cast<GetFn>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"))) return fn();
  return 0;
}
}  // namespace

AppliedThreads apply_threads(int64_t threads, int64_t interop_threads) {
  at::set_num_threads(static_cast<int>(threads));
  set_openblas_threads(threads);
  if (at::get_num_interop_threads() != interop_threads) {
    try {
      at::set_num_interop_threads(static_cast<int>(interop_threads));
    } catch (const c10::Error&) {
      // Already fixed for this process; the effective value below tells what ran.
    }
  }
  return {at::get_num_threads(), static_cast<int64_t>(at::get_num_interop_threads())};
}

nlohmann::json torch_facts() {
  const nlohmann::json cuda = cuda_version();
  return {{"libtorch_version", TORCH_VERSION},
          {"intra_op_threads", at::get_num_threads()},
          {"interop_threads", at::get_num_interop_threads()},
          {"openblas_threads", openblas_threads()},
          {"built_with_cuda", !cuda.is_null()},
          {"cuda_version", cuda},
          {"nccl_version", nccl_version_fact()},
          {"cuda_devices", torch_cuda_devices()}};
}

std::string torch_build_summary() {
  const nlohmann::json cuda = cuda_version(), nccl = nccl_version_fact();
  std::string s = std::string("libtorch ") + TORCH_VERSION;
  if (cuda.is_null()) return s + ", CPU only";
  s += ", CUDA " + cuda.get<std::string>();
  return s + (nccl.is_null() ? ", no NCCL" : ", NCCL " + nccl.get<std::string>());
}

int64_t torch_cuda_devices() {
  return torch::cuda::is_available() ? static_cast<int64_t>(torch::cuda::device_count()) : 0;
}

}  // namespace pperf
