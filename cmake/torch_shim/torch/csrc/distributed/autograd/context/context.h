#pragma once
// Debian's libtorch-dev 1.13 ships c10d's reducer.hpp (DDP's Reducer, compiled into
// libtorch_cpu) but not this header of distributed autograd, which reducer.hpp includes for two
// type names only. These are libtorch's own definitions of those names (a callback type, and a
// shared_ptr to the opaque context), so the Reducer's layout is libtorch's. CMakeLists.txt adds
// this directory only when the libtorch found lacks the header.
#include <ATen/core/Tensor.h>

#include <functional>
#include <memory>

namespace torch {
namespace distributed {
namespace autograd {

class DistAutogradContext {
 public:
  using GradCallback = std::function<bool(at::Tensor&)>;
};
using ContextPtr = std::shared_ptr<DistAutogradContext>;

}  // namespace autograd
}  // namespace distributed
}  // namespace torch
