#pragma once
// Tensors on the wire: raw little-endian bytes with dtype and shape, one message per batch.
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/impl/serialization_traits.h>
#include <grpcpp/support/slice.h>
#include <torch/torch.h>

#include "src/dataservice/data_service.pb.h"

namespace pperf {

/// A BatchMessage already in protobuf's wire format, its tensors' bytes referenced, not copied:
/// gRPC writes the slices to the socket and releases the tensors once they are out. What a
/// worker streams instead of a BatchMessage (which would copy each batch twice: into the
/// message, then into gRPC's buffer); readers parse it as a BatchMessage.
struct WireBatch {
  grpc::ByteBuffer bytes;
};

/// Batch `index` as a WireBatch (tensors made contiguous first if they are not). Throws
/// std::runtime_error for a dtype the wire does not carry.
WireBatch batch_to_wire(int64_t index, const torch::Tensor& inputs, const torch::Tensor& targets);

void tensor_to_wire(const torch::Tensor& tensor, dataservice::TensorData* out);
/// Takes the bytes out of `data` without copying them (the tensor owns them afterwards).
/// Throws std::runtime_error on an unknown dtype or a size that does not match the shape
/// (a malformed message never becomes a tensor).
torch::Tensor tensor_from_wire(dataservice::TensorData& data);

}  // namespace pperf

/// gRPC sends a WireBatch as it is (its slices shared, not copied); a worker never receives one.
template <>
class grpc::SerializationTraits<pperf::WireBatch, void> {
 public:
  static grpc::Status Serialize(const pperf::WireBatch& message, grpc::ByteBuffer* buffer, bool* own_buffer) {
    *buffer = message.bytes;
    *own_buffer = true;
    return grpc::Status::OK;
  }
  static grpc::Status Deserialize(grpc::ByteBuffer*, pperf::WireBatch*) {
    return {grpc::StatusCode::UNIMPLEMENTED, "a WireBatch is only ever sent"};
  }
};
