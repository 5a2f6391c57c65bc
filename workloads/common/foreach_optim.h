#pragma once
// libtorch's Adam, AdamW and SGD, stepping the way torch.optim does by default: on CUDA
// parameters a handful of multi-tensor (_foreach_) kernels per step for all parameters together,
// elsewhere one tensor at a time (torch.optim's for-loop path). The C++ optimizers only have the
// for-loop, which on a GPU launches a few kernels per parameter: a ViT-B's 150 parameters are
// ~1500 launches, milliseconds of a step that PyTorch users do not pay. Same arithmetic in the
// same order as the for-loop, and the same state (checkpoints load either way).
#include <torch/torch.h>

namespace pperf {

/// Whether `optimizer`'s step takes the multi-tensor path: every parameter on a CUDA device,
/// as torch.optim's default (`foreach=None`) decides.
bool steps_foreach(const torch::optim::Optimizer& optimizer);

class ForeachAdam : public torch::optim::Adam {
 public:
  using Adam::Adam;
  /// Throws for amsgrad and sparse gradients on the multi-tensor path (pperf uses neither).
  torch::Tensor step(LossClosure closure = nullptr) override;
};

class ForeachAdamW : public torch::optim::AdamW {
 public:
  using AdamW::AdamW;
  torch::Tensor step(LossClosure closure = nullptr) override;
};

class ForeachSGD : public torch::optim::SGD {
 public:
  using SGD::SGD;
  torch::Tensor step(LossClosure closure = nullptr) override;
};

namespace foreach_detail {
/// The multi-tensor step on any device (the optimizers above take it on CUDA only); exposed so
/// that a test on the CPU can check it against libtorch's own one-tensor-at-a-time step.
void adam_step(torch::optim::Adam& optimizer);
void adamw_step(torch::optim::AdamW& optimizer);
void sgd_step(torch::optim::SGD& optimizer);
}  // namespace foreach_detail

}  // namespace pperf
