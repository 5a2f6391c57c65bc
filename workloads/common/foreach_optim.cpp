#include "workloads/common/foreach_optim.h"

#include "workloads/common/torch_compat.h"

#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

namespace pperf {

bool steps_foreach(const torch::optim::Optimizer& optimizer) {
  bool any = false;
  for (const auto& group : optimizer.param_groups())
    for (const auto& p : group.params()) {
      if (!p.is_cuda()) return false;
      any = true;
    }
  return any;
}

namespace foreach_detail {

namespace {
template <class StateMap>
auto state_key(const StateMap&, const torch::Tensor& parameter) {
  return torch_compat::optimizer_state_key<StateMap>(parameter);
}

/// Adam's and AdamW's step: the same but for where weight decay goes. Options and State are
/// AdamOptions/AdamParamState or AdamWOptions/AdamWParamState (the same fields, other types).
template <class Options, class State>
void adam_like_step(torch::optim::Optimizer& optimizer, bool decoupled_weight_decay) {
  torch::NoGradGuard no_grad;
  auto& state = optimizer.state();
  for (auto& group : optimizer.param_groups()) {
    const auto& o = static_cast<const Options&>(group.options());
    if (o.amsgrad()) throw std::invalid_argument("the multi-tensor Adam step does not support amsgrad");
    const auto [beta1, beta2] = o.betas();
    // Parameters with a gradient, grouped by their step count (all equal unless some parameter
    // had no gradient at some step): one set of kernels per count.
    std::map<int64_t, std::vector<torch::Tensor>> params, grads, exp_avgs, exp_avg_sqs;
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      if (p.grad().is_sparse()) throw std::invalid_argument("Adam does not support sparse gradients");
      const auto key = state_key(state, p);
      if (state.find(key) == state.end()) {
        auto fresh = std::make_unique<State>();
        fresh->step(0);
        fresh->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        fresh->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        state[key] = std::move(fresh);
      }
      auto& s = static_cast<State&>(*state[key]);
      s.step(s.step() + 1);
      params[s.step()].push_back(p);
      grads[s.step()].push_back(p.grad());
      exp_avgs[s.step()].push_back(s.exp_avg());
      exp_avg_sqs[s.step()].push_back(s.exp_avg_sq());
    }
    for (auto& [step, ps] : params) {
      std::vector<torch::Tensor>& gs = grads[step];
      std::vector<torch::Tensor>& m = exp_avgs[step];
      std::vector<torch::Tensor>& v = exp_avg_sqs[step];
      const double bias_correction1 = 1 - std::pow(beta1, static_cast<double>(step));
      const double bias_correction2 = 1 - std::pow(beta2, static_cast<double>(step));
      if (o.weight_decay() != 0) {
        if (decoupled_weight_decay) at::_foreach_mul_(ps, 1 - o.lr() * o.weight_decay());
        else gs = at::_foreach_add(gs, ps, o.weight_decay());
      }
      at::_foreach_mul_(m, beta1);
      at::_foreach_add_(m, gs, 1 - beta1);
      at::_foreach_mul_(v, beta2);
      at::_foreach_addcmul_(v, gs, gs, 1 - beta2);
      std::vector<torch::Tensor> denom = at::_foreach_sqrt(v);
      at::_foreach_div_(denom, std::sqrt(bias_correction2));
      at::_foreach_add_(denom, o.eps());
      at::_foreach_addcdiv_(ps, m, denom, -o.lr() / bias_correction1);
    }
  }
}
}  // namespace

void adam_step(torch::optim::Adam& optimizer) {
  adam_like_step<torch::optim::AdamOptions, torch::optim::AdamParamState>(optimizer, false);
}

void adamw_step(torch::optim::AdamW& optimizer) {
  adam_like_step<torch::optim::AdamWOptions, torch::optim::AdamWParamState>(optimizer, true);
}

void sgd_step(torch::optim::SGD& optimizer) {
  torch::NoGradGuard no_grad;
  auto& state = optimizer.state();
  for (auto& group : optimizer.param_groups()) {
    const auto& o = static_cast<const torch::optim::SGDOptions&>(group.options());
    std::vector<torch::Tensor> params, grads, buffers;
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      params.push_back(p);
      grads.push_back(p.grad());
    }
    if (params.empty()) continue;
    if (o.weight_decay() != 0) grads = at::_foreach_add(grads, params, o.weight_decay());
    if (o.momentum() != 0) {
      std::vector<torch::Tensor> existing, existing_grads;
      for (size_t i = 0; i < params.size(); ++i) {
        const auto key = state_key(state, params[i]);
        if (state.find(key) == state.end()) {  // the first step: the buffer is the gradient
          auto s = std::make_unique<torch::optim::SGDParamState>();
          s->momentum_buffer(torch::clone(grads[i]).detach());
          buffers.push_back(s->momentum_buffer());
          state[key] = std::move(s);
        } else {
          auto& s = static_cast<torch::optim::SGDParamState&>(*state[key]);
          existing.push_back(s.momentum_buffer());
          existing_grads.push_back(grads[i]);
          buffers.push_back(s.momentum_buffer());
        }
      }
      if (!existing.empty()) {
        at::_foreach_mul_(existing, o.momentum());
        at::_foreach_add_(existing, existing_grads, 1 - o.dampening());
      }
      if (o.nesterov()) grads = at::_foreach_add(grads, buffers, o.momentum());
      else grads = buffers;
    }
    at::_foreach_add_(params, grads, -o.lr());
  }
}

}  // namespace foreach_detail

namespace {
/// torch.optim's default step: the closure's loss, then the multi-tensor step on CUDA
/// parameters, libtorch's own loop (Base::step) elsewhere.
template <class Base, class Derived>
torch::Tensor step_as_torch_optim(Derived& optimizer, torch::optim::Optimizer::LossClosure closure,
                                  void (*foreach_step)(Base&)) {
  if (!steps_foreach(optimizer)) return optimizer.Base::step(std::move(closure));
  torch::Tensor loss;
  if (closure) {
    torch::AutoGradMode enable_grad(true);
    loss = closure();
  }
  foreach_step(optimizer);
  return loss;
}
}  // namespace

torch::Tensor ForeachAdam::step(LossClosure closure) {
  return step_as_torch_optim<torch::optim::Adam>(*this, std::move(closure), foreach_detail::adam_step);
}

torch::Tensor ForeachAdamW::step(LossClosure closure) {
  return step_as_torch_optim<torch::optim::AdamW>(*this, std::move(closure), foreach_detail::adamw_step);
}

torch::Tensor ForeachSGD::step(LossClosure closure) {
  return step_as_torch_optim<torch::optim::SGD>(*this, std::move(closure), foreach_detail::sgd_step);
}

}  // namespace pperf
