#include <gtest/gtest.h>

#include <functional>

#include "workloads/common/foreach_optim.h"

using namespace pperf;

namespace {
/// Parameters of a few shapes (one left without a gradient at step 2, so step counts differ),
/// the same values each call.
std::vector<torch::Tensor> make_params() {
  torch::manual_seed(7);
  return {torch::randn({4, 3}).requires_grad_(), torch::randn({5}).requires_grad_(),
          torch::randn({2, 2, 3}).requires_grad_()};
}

/// Gradients for step `k` (the same values for both copies), param 1 skipped at step 1.
void set_grads(std::vector<torch::Tensor>& params, int k) {
  torch::manual_seed(100 + k);
  for (size_t i = 0; i < params.size(); ++i) {
    auto g = torch::randn(params[i].sizes());
    if (k == 1 && i == 1) params[i].mutable_grad() = torch::Tensor();
    else params[i].mutable_grad() = g;
  }
}

/// Four steps of libtorch's own optimizer and of the multi-tensor step on copies of the same
/// parameters: the results must agree to the last bit (same arithmetic, same order).
template <class Reference>
void expect_same_steps(const std::function<std::unique_ptr<Reference>(std::vector<torch::Tensor>)>& make,
                       const std::function<void(Reference&)>& foreach_step) {
  auto ref_params = make_params(), our_params = make_params();
  auto reference = make(ref_params);
  auto ours = make(our_params);
  for (int k = 0; k < 4; ++k) {
    set_grads(ref_params, k);
    set_grads(our_params, k);
    reference->step();
    foreach_step(*ours);
    for (size_t i = 0; i < ref_params.size(); ++i)
      ASSERT_TRUE(torch::equal(ref_params[i], our_params[i])) << "param " << i << " after step " << k;
  }
}
}  // namespace

TEST(ForeachOptim, AdamStepsAsLibtorchDoes) {
  for (double decay : {0.0, 0.01})
    expect_same_steps<torch::optim::Adam>(
        [decay](std::vector<torch::Tensor> p) {
          return std::make_unique<torch::optim::Adam>(p, torch::optim::AdamOptions(1e-2).weight_decay(decay));
        },
        [](torch::optim::Adam& o) { foreach_detail::adam_step(o); });
}

TEST(ForeachOptim, AdamWStepsAsLibtorchDoes) {
  expect_same_steps<torch::optim::AdamW>(
      [](std::vector<torch::Tensor> p) {
        return std::make_unique<torch::optim::AdamW>(p, torch::optim::AdamWOptions(1e-2).weight_decay(0.05));
      },
      [](torch::optim::AdamW& o) { foreach_detail::adamw_step(o); });
}

TEST(ForeachOptim, SgdStepsAsLibtorchDoes) {
  for (bool nesterov : {false, true})
    expect_same_steps<torch::optim::SGD>(
        [nesterov](std::vector<torch::Tensor> p) {
          return std::make_unique<torch::optim::SGD>(
              p, torch::optim::SGDOptions(0.1).momentum(0.9).weight_decay(1e-4).nesterov(nesterov));
        },
        [](torch::optim::SGD& o) { foreach_detail::sgd_step(o); });
  expect_same_steps<torch::optim::SGD>(
      [](std::vector<torch::Tensor> p) { return std::make_unique<torch::optim::SGD>(p, torch::optim::SGDOptions(0.1)); },
      [](torch::optim::SGD& o) { foreach_detail::sgd_step(o); });
}

TEST(ForeachOptim, OnlyCudaParametersStepForeach) {
  auto params = make_params();
  ForeachAdam adam(params, torch::optim::AdamOptions(1e-3));
  EXPECT_FALSE(steps_foreach(adam)) << "CPU parameters keep torch.optim's for-loop path";
  ForeachSGD empty(std::vector<torch::Tensor>{}, torch::optim::SGDOptions(0.1));
  EXPECT_FALSE(steps_foreach(empty));
}
