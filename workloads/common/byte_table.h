#pragma once
// The last conversion of an image pipeline: each uint8 pixel through a 256-entry float table
// (the rescale, and the normalization where the workload has one). On the float32 wire the
// pipeline applies it on the worker's CPU; on the uint8 wire the step applies the same table on
// its device, inside the timed step. A lookup, not arithmetic a device might round otherwise
// (CUDA divides by a scalar as a multiplication by its reciprocal), so the model sees bit for
// bit the same values on either wire.
#include <torch/torch.h>

#include <array>
#include <cstdint>
#include <functional>

namespace pperf {

class ByteTable {
 public:
  /// table[b] = to_float(b) for every byte b.
  explicit ByteTable(const std::function<float(uint8_t)>& to_float);
  /// A uint8 batch as float32 on the CPU (the float32 wire's last step on the worker).
  torch::Tensor apply_on_cpu(const torch::Tensor& bytes) const;
  /// What the step takes: a uint8 batch (the uint8 wire) through the table on its own device;
  /// anything else as it is. The harness calls the step from one thread: not thread-safe.
  torch::Tensor to_model(const torch::Tensor& inputs);
  float operator[](uint8_t b) const { return table_[b]; }

 private:
  std::array<float, 256> table_{};
  torch::Tensor on_device_;  // the table, copied to the device the step last ran on
};

}  // namespace pperf
