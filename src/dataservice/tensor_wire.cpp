#include "src/dataservice/tensor_wire.h"

#include <cstring>

namespace pperf {

namespace {
constexpr size_t kMaxWireDims = 8;
constexpr uint64_t kMaxWireBytes = uint64_t{4} << 30;  // one tensor of one batch message

struct DtypeName {
  torch::ScalarType type;
  const char* name;
};
constexpr DtypeName kDtypes[] = {{torch::kFloat, "float32"}, {torch::kLong, "int64"},
                                 {torch::kInt, "int32"},     {torch::kByte, "uint8"},
                                 {torch::kBFloat16, "bfloat16"}};
}  // namespace

namespace {

void put_varint(std::string& out, uint64_t value) {
  for (; value >= 0x80; value >>= 7) out.push_back(static_cast<char>(value | 0x80));
  out.push_back(static_cast<char>(value));
}

const char* wire_dtype(torch::ScalarType type) {
  for (const auto& d : kDtypes)
    if (d.type == type) return d.name;
  throw std::runtime_error("tensor dtype not supported on the wire");
}

/// Appends field `field` (a TensorData) up to the start of its data bytes, and the slices: the
/// header so far, then the tensor's bytes themselves (the slice holds the tensor).
void append_tensor(int field, const torch::Tensor& tensor, std::string& header, std::vector<grpc::Slice>& slices) {
  const std::string dtype = wire_dtype(tensor.scalar_type());
  std::string shape;
  for (int64_t s : tensor.sizes()) put_varint(shape, static_cast<uint64_t>(s));
  const uint64_t nbytes = tensor.nbytes();
  std::string fields;  // TensorData: dtype = 1, shape = 2 (packed), data = 3
  fields.push_back(0x0a), put_varint(fields, dtype.size()), fields += dtype;
  fields.push_back(0x12), put_varint(fields, shape.size()), fields += shape;
  fields.push_back(0x1a), put_varint(fields, nbytes);
  header.push_back(static_cast<char>(field << 3 | 2)), put_varint(header, fields.size() + nbytes), header += fields;
  slices.emplace_back(header);
  header.clear();
  if (nbytes == 0) return;
  auto* held = new torch::Tensor(tensor);
  slices.emplace_back(held->data_ptr(), nbytes, [](void* t) { delete static_cast<torch::Tensor*>(t); }, held);
}

}  // namespace

WireBatch batch_to_wire(int64_t index, const torch::Tensor& inputs, const torch::Tensor& targets) {
  std::string header;
  header.push_back(0x08), put_varint(header, static_cast<uint64_t>(index));  // index = 1
  std::vector<grpc::Slice> slices;
  append_tensor(2, inputs.contiguous(), header, slices);
  append_tensor(3, targets.contiguous(), header, slices);
  return {grpc::ByteBuffer(slices.data(), slices.size())};
}

void tensor_to_wire(const torch::Tensor& tensor, dataservice::TensorData* out) {
  const torch::Tensor t = tensor.contiguous();
  for (const auto& d : kDtypes)
    if (d.type == t.scalar_type()) out->set_dtype(d.name);
  if (out->dtype().empty()) throw std::runtime_error("tensor dtype not supported on the wire");
  for (int64_t s : t.sizes()) out->add_shape(s);
  out->set_data(t.data_ptr(), t.nbytes());
}

torch::Tensor tensor_from_wire(dataservice::TensorData& data) {
  const DtypeName* dtype = nullptr;
  for (const auto& d : kDtypes)
    if (data.dtype() == d.name) dtype = &d;
  if (!dtype) throw std::runtime_error("unknown dtype '" + data.dtype() + "' in batch message");
  std::vector<int64_t> shape(data.shape().begin(), data.shape().end());
  if (shape.size() > kMaxWireDims) throw std::runtime_error("batch message tensor has more than 8 dimensions");
  // The byte count the shape implies, refused before any multiplication can overflow.
  uint64_t needed = c10::elementSize(dtype->type);
  for (int64_t s : shape)
    if (s < 0 || __builtin_mul_overflow(needed, static_cast<uint64_t>(s), &needed) || needed > kMaxWireBytes)
      throw std::runtime_error("bad shape in batch message: more than 4 GiB or a negative dimension");
  if (needed != data.data().size())
    throw std::runtime_error("batch message holds " + std::to_string(data.data().size()) +
                             " bytes, its shape needs " + std::to_string(needed));
  std::string* bytes = data.release_data();
  if (needed == 0 || reinterpret_cast<uintptr_t>(bytes->data()) % alignof(std::max_align_t) != 0) {
    torch::Tensor t = torch::empty(shape, torch::TensorOptions().dtype(dtype->type));
    std::memcpy(t.data_ptr(), bytes->data(), needed);
    delete bytes;
    return t;
  }
  return torch::from_blob(bytes->data(), shape, [bytes](void*) { delete bytes; },
                          torch::TensorOptions().dtype(dtype->type));
}

}  // namespace pperf
