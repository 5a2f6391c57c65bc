#pragma once
// The device a step runs on, as the runner sees it. On an asynchronous device (CUDA) a step's
// kernels are still queued when train_step returns; a clock read then would time the launch,
// not the work. The runner owns the clock, so it also owns the synchronisation.
#include <memory>
#include <optional>
#include <string>

#include "src/core/result.h"
#include "workloads/workload.h"

namespace pperf {

/// The runner guarantees: place() is called once per step on the batch it got, inside the timed
/// step and after the wait for data (so host-to-device copies count as the step's, not as data
/// wait); synchronize() exactly once per step, after train_step returns and before the clock
/// is read for the step's end.
/// The implementer guarantees: place() returns the batch on the device (copies may still be in
/// flight, ordered before the step's kernels); when synchronize() returns, all work queued on
/// the device has finished.
class Device {
 public:
  virtual ~Device() = default;
  virtual Batch place(Batch batch) const = 0;
  virtual void synchronize() const = 0;
  /// "cpu", "cuda:0", ...
  virtual std::string name() const = 0;
  /// Peak memory allocated and reserved on the device since it was opened, by its allocator's
  /// own counters; nullopt on the host CPU (its memory is the process's resident memory).
  virtual std::optional<DeviceMemory> memory_peaks() const { return std::nullopt; }
  /// The device's whole memory, bytes; nullopt on the host CPU.
  virtual std::optional<int64_t> capacity_bytes() const { return std::nullopt; }
};

/// The host CPU: batches stay where they are; nothing to wait for.
const Device& cpu_device();

/// "cpu" or "cuda:N". Throws std::runtime_error saying why when CUDA is asked for and this
/// libtorch or this host has none (the plan refuses such configurations earlier; this is the
/// measuring process's own check).
std::unique_ptr<Device> open_device(const std::string& name);

}  // namespace pperf
