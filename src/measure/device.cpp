#include "src/measure/device.h"

#include <torch/cuda.h>
#if PPERF_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include "workloads/common/torch_compat.h"

#include <stdexcept>

namespace pperf {

namespace {
class CpuDevice : public Device {
 public:
  Batch place(Batch batch) const override { return batch; }
  void synchronize() const override {}
  std::string name() const override { return "cpu"; }
};

/// Written to libtorch's device API only, so it builds against a CPU-only libtorch (Debian's)
/// and runs against a CUDA one.
class CudaDevice : public Device {
 public:
  explicit CudaDevice(torch::Device device) : device_(device) {}

  Batch place(Batch batch) const override {
    // Page-locked host memory lets the copy run asynchronously (non_blocking): the loader and
    // the data service pin batches in their own threads; any other batch is pinned here.
    auto to_device = [&](const torch::Tensor& t) {
      if (!t.defined()) return t;  // a step that makes its own data
      return (t.is_pinned() ? t : t.pin_memory()).to(device_, /*non_blocking=*/true);
    };
    batch.inputs = to_device(batch.inputs);
    batch.targets = to_device(batch.targets);
    return batch;
  }
  void synchronize() const override { torch::cuda::synchronize(device_.index()); }
  std::string name() const override { return device_.str(); }
  std::optional<DeviceMemory> memory_peaks() const override {
#if PPERF_WITH_CUDA
    // Index 0 of each statistic is the aggregate over pool kinds (StatType::AGGREGATE).
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device_.index());
    return DeviceMemory{device_.str(), stats.allocated_bytes[0].peak, stats.reserved_bytes[0].peak};
#else
    return std::nullopt;
#endif
  }
  std::optional<int64_t> capacity_bytes() const override {
#if PPERF_WITH_CUDA
    return static_cast<int64_t>(at::cuda::getDeviceProperties(device_.index())->totalGlobalMem);
#else
    return std::nullopt;
#endif
  }

 private:
  torch::Device device_;
};
}  // namespace

const Device& cpu_device() {
  static const CpuDevice device;
  return device;
}

std::unique_ptr<Device> open_device(const std::string& name) {
  if (name == "cpu") return std::make_unique<CpuDevice>();
  const torch::Device device(name);  // throws c10::Error on a malformed name
  if (!device.is_cuda()) throw std::runtime_error("device '" + name + "': only cpu and cuda:N are supported");
  if (!torch::cuda::is_available())
    throw std::runtime_error("device '" + name + "': this libtorch has no CUDA, or this host no GPU");
  const auto count = static_cast<int64_t>(torch::cuda::device_count());
  if (!device.has_index() || device.index() >= count)
    throw std::runtime_error("device '" + name + "': this host has " + std::to_string(count) + " GPU(s)");
  // Before the model, cuBLAS handles, the caching allocator or NCCL touch the GPU: each uses
  // the current device (torch.cuda.set_device).
  torch_compat::set_current_device(device);
  return std::make_unique<CudaDevice>(device);
}

}  // namespace pperf
