#pragma once
// Tensors on the wire: raw little-endian bytes with dtype and shape, one message per batch.
#include <torch/torch.h>

#include "src/dataservice/data_service.pb.h"

namespace pperf {

void tensor_to_wire(const torch::Tensor& tensor, dataservice::TensorData* out);
/// Takes the bytes out of `data` without copying them (the tensor owns them afterwards).
/// Throws std::runtime_error on an unknown dtype or a size that does not match the shape
/// (a malformed message never becomes a tensor).
torch::Tensor tensor_from_wire(dataservice::TensorData& data);

}  // namespace pperf
