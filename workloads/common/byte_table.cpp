#include "workloads/common/byte_table.h"

namespace pperf {

ByteTable::ByteTable(const std::function<float(uint8_t)>& to_float) {
  for (int b = 0; b < 256; ++b) table_[b] = to_float(static_cast<uint8_t>(b));
}

torch::Tensor ByteTable::apply_on_cpu(const torch::Tensor& bytes) const {
  const torch::Tensor in = bytes.contiguous();
  torch::Tensor out = torch::empty(in.sizes(), torch::kFloat);
  const uint8_t* src = in.data_ptr<uint8_t>();
  float* dst = out.data_ptr<float>();
  for (int64_t i = 0, n = in.numel(); i < n; ++i) dst[i] = table_[src[i]];
  return out;
}

torch::Tensor ByteTable::to_model(const torch::Tensor& inputs) {
  if (inputs.scalar_type() != torch::kByte) return inputs;
  if (!on_device_.defined() || on_device_.device() != inputs.device())
    on_device_ = torch::from_blob(table_.data(), {256}, torch::kFloat).clone().to(inputs.device());
  return on_device_.index_select(0, inputs.reshape(-1).to(torch::kLong)).view(inputs.sizes());
}

}  // namespace pperf
