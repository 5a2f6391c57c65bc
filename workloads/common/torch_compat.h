#pragma once
// Every difference between the libtorch versions pperf builds against — Debian 12's 1.13 (CPU)
// and a current 2.x (PyPI's wheel, CUDA and NCCL) — lives here, so the rest of the code is
// written once. The c10d helpers are templates over c10d's types so that this header needs no
// c10d include: only src/measure/data_parallel.cpp instantiates them.
#include <ATen/autocast_mode.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/version.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <sstream>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#define PPERF_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))
// c10d's Backend split and the Reducer's 2.x arguments.
#define PPERF_TORCH_2 PPERF_TORCH_AT_LEAST(2, 0)
// Device-generic autocast; the *_gpu_* / *_cpu_* calls deprecated.
#define PPERF_TORCH_DEVICE_AUTOCAST PPERF_TORCH_AT_LEAST(2, 4)
// Work::getDuration and Backend::enableCollectivesTiming (CUDA-event timing of NCCL
// collectives). CMakeLists.txt requires it for NCCL builds.
#define PPERF_TORCH_COLLECTIVE_TIMING PPERF_TORCH_AT_LEAST(2, 4)
// torch's NCCL engine on torchcomms (c10d::nccl2::ProcessGroupNCCL, backend name "nccl2"): where
// it exists, init_process_group("nccl") creates it unless TORCH_DIST_USE_NCCL2=0.
#if defined(__has_include)
#if __has_include(<torch/csrc/distributed/c10d/nccl2/ProcessGroupNCCL.hpp>)
#define PPERF_TORCH_NCCL2 1
#endif
#endif
#ifndef PPERF_TORCH_NCCL2
#define PPERF_TORCH_NCCL2 0
#endif

namespace pperf::torch_compat {

/// "2.15.0": the libtorch this pperf is compiled against.
inline std::string torch_version() { return TORCH_VERSION; }

// --- autocast: 2.4 made it device-generic and deprecated the *_gpu_* / *_cpu_* calls, each of
// which then prints a warning (inside the timed step).
inline bool autocast_enabled(c10::DeviceType type) {
#if PPERF_TORCH_DEVICE_AUTOCAST
  return at::autocast::is_autocast_enabled(type);
#else
  return type == c10::DeviceType::CUDA ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
#endif
}

inline at::ScalarType autocast_dtype(c10::DeviceType type) {
#if PPERF_TORCH_DEVICE_AUTOCAST
  return at::autocast::get_autocast_dtype(type);
#else
  return type == c10::DeviceType::CUDA ? at::autocast::get_autocast_gpu_dtype() : at::autocast::get_autocast_cpu_dtype();
#endif
}

inline void set_autocast(c10::DeviceType type, bool enabled, at::ScalarType dtype) {
#if PPERF_TORCH_DEVICE_AUTOCAST
  at::autocast::set_autocast_dtype(type, dtype);
  at::autocast::set_autocast_enabled(type, enabled);
#else
  if (type == c10::DeviceType::CUDA) {
    at::autocast::set_autocast_gpu_dtype(dtype);
    at::autocast::set_enabled(enabled);
  } else {
    at::autocast::set_autocast_cpu_dtype(dtype);
    at::autocast::set_cpu_enabled(enabled);
  }
#endif
}

/// Makes `device` this thread's current device, as torch.cuda.set_device does, through the
/// device-generic guard (so it compiles against a CPU-only libtorch; CUDA's guard is registered
/// by libtorch_cuda at load time). NCCL, cuBLAS handles and the caching allocator all use the
/// current device: set it before any of them.
inline void set_current_device(const c10::Device& device) {
  c10::impl::getDeviceGuardImpl(device.type())->setDevice(device);
}

// --- optimizers ----------------------------------------------------------------------------

/// The key libtorch's optimizers keep a parameter's state under (Optimizer::state()): the
/// parameter's TensorImpl address, printed as a string before 2.x. `StateMap` is the type
/// Optimizer::state() returns.
template <class StateMap>
typename StateMap::key_type optimizer_state_key(const at::Tensor& parameter) {
  if constexpr (std::is_same_v<typename StateMap::key_type, std::string>) {
    std::ostringstream key;  // as c10::guts::to_string did
    key << parameter.unsafeGetTensorImpl();
    return key.str();
  } else {
    return parameter.unsafeGetTensorImpl();
  }
}

// --- c10d ------------------------------------------------------------------------------------

/// Whether backend "nccl" is torch's nccl2 engine here, decided as init_process_group("nccl")
/// decides it (torch.distributed's _register_builtin_nccl_backend): on a torch that has it,
/// unless TORCH_DIST_USE_NCCL2 (`use_nccl2`) is "0"; else the legacy ProcessGroupNCCL.
inline bool nccl_is_nccl2(const char* use_nccl2 = std::getenv("TORCH_DIST_USE_NCCL2")) {
  return PPERF_TORCH_NCCL2 && !(use_nccl2 && std::string(use_nccl2) == "0");
}

/// The c10d process group DDP's Reducer and the collectives take, over one backend (Gloo or
/// NCCL) serving the tensors of `device_types`. Before 2.0 the backend was the process group;
/// since 2.0 a ProcessGroup holds a backend per device type.
template <class ProcessGroup, class Backend, class Store>
c10::intrusive_ptr<ProcessGroup> process_group_of(const c10::intrusive_ptr<Backend>& backend,
                                                  const c10::intrusive_ptr<Store>& store, int rank, int size,
                                                  const std::vector<c10::DeviceType>& device_types,
                                                  const std::string& backend_name) {
#if PPERF_TORCH_2
  auto group = c10::make_intrusive<ProcessGroup>(store, rank, size);
  const auto type = ProcessGroup::strToBackendType(backend_name);
  for (const c10::DeviceType device_type : device_types) group->setBackend(device_type, type, backend);
  group->setDefaultBackend(type);
  return group;
#else
  (void)store, (void)rank, (void)size, (void)device_types, (void)backend_name;
  return backend;
#endif
}

/// A finished collective's time on the device, ms, from the CUDA events its backend recorded
/// (timing enabled, the device synchronized since). Throws where libtorch cannot tell.
template <class Work>
double collective_device_ms(const Work& work) {
#if PPERF_TORCH_COLLECTIVE_TIMING
  return work.getDuration();
#else
  (void)work;
  throw std::runtime_error("timing a collective on the GPU needs libtorch 2.4 or later");
#endif
}

/// Asks `backend` to time its collectives with device events (NCCL); see collective_device_ms.
template <class Backend>
void enable_collective_timing(Backend& backend) {
#if PPERF_TORCH_COLLECTIVE_TIMING
  backend.enableCollectivesTiming();
#else
  (void)backend;
#endif
}

namespace detail {
template <class T, class = void>
struct has_shutdown : std::false_type {};
template <class T>
struct has_shutdown<T, std::void_t<decltype(std::declval<T&>().shutdown())>> : std::true_type {};
template <class T, class = void>
struct has_abort : std::false_type {};
template <class T>
struct has_abort<T, std::void_t<decltype(std::declval<T&>().abort())>> : std::true_type {};
}  // namespace detail

/// Ends `group`'s backends normally, as destroy_process_group does (NCCL destroys its
/// communicators, and libtorch 2.x then does not warn that destroy_process_group() was not
/// called). Nothing where the version's process group has no shutdown (1.13).
template <class ProcessGroup>
void shutdown_group(ProcessGroup& group) {
  if constexpr (detail::has_shutdown<ProcessGroup>::value) group.shutdown();
}

/// Aborts `group`'s backends (NCCL: its communicators, so collectives still queued or blocked
/// on a lost peer return); nothing where the version's process group has no abort (1.13).
template <class ProcessGroup>
void abort_group(ProcessGroup& group) {
  if constexpr (detail::has_abort<ProcessGroup>::value) group.abort();
}

/// The engine that runs `group`'s collectives, by its own name (Backend::getBackendName:
/// "gloo", "nccl", "nccl2"...): since 2.0 the group's default backend, before it the group.
template <class ProcessGroup>
std::string engine_name(const ProcessGroup& group) {
#if PPERF_TORCH_2
  return group.getDefaultBackend()->getBackendName();
#else
  return group.getBackendName();
#endif
}

/// DDP's Reducer over `buckets` (per-bucket size limits `limits`), with DDP's defaults; the
/// argument list changed in 2.x (limits dropped, the Python reducer and per-bucket caps added).
template <class Reducer, class ProcessGroup>
std::unique_ptr<Reducer> make_reducer(std::vector<at::Tensor> params, std::vector<std::vector<size_t>> buckets,
                                      std::vector<size_t> limits, const c10::intrusive_ptr<ProcessGroup>& group,
                                      int64_t bucket_bytes, int64_t first_bucket_bytes) {
  std::vector<bool> sparse(params.size(), false);
#if PPERF_TORCH_2
  (void)limits;  // 2.x takes per-bucket caps only as an explicit list; empty = DDP's uniform cap
  return std::make_unique<Reducer>(std::move(params), std::move(buckets), group, std::move(sparse), bucket_bytes,
                                   /*find_unused_parameters=*/false, /*gradient_as_bucket_view=*/false,
                                   std::unordered_map<size_t, std::string>{}, first_bucket_bytes,
                                   /*skip_all_reduce_unused_params=*/false, /*use_python_reducer=*/false,
                                   std::vector<int64_t>{});
#else
  return std::make_unique<Reducer>(std::move(params), std::move(buckets), std::move(limits), group, std::move(sparse),
                                   bucket_bytes, /*find_unused_parameters=*/false, /*gradient_as_bucket_view=*/false,
                                   std::unordered_map<size_t, std::string>{}, first_bucket_bytes);
#endif
}

}  // namespace pperf::torch_compat
