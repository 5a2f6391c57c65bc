#include "workloads/common/adadelta.h"

namespace pperf {

Adadelta::Adadelta(std::vector<torch::Tensor> params, AdadeltaOptions options)
    : params_(std::move(params)), options_(options) {
  for (const auto& p : params_) {
    square_avg_.push_back(torch::zeros_like(p));
    acc_delta_.push_back(torch::zeros_like(p));
  }
}

void Adadelta::zero_grad() {
  for (auto& p : params_)
    if (p.grad().defined()) p.mutable_grad().zero_();
}

void Adadelta::step() {
  torch::NoGradGuard no_grad;
  const double rho = options_.rho, eps = options_.eps;
  for (size_t i = 0; i < params_.size(); ++i) {
    auto& p = params_[i];
    if (!p.grad().defined()) continue;
    torch::Tensor grad = p.grad();
    if (options_.weight_decay != 0) grad = grad.add(p, options_.weight_decay);
    square_avg_[i].mul_(rho).addcmul_(grad, grad, 1 - rho);
    torch::Tensor std = square_avg_[i].add(eps).sqrt_();
    torch::Tensor delta = acc_delta_[i].add(eps).sqrt_().div_(std).mul_(grad);
    acc_delta_[i].mul_(rho).addcmul_(delta, delta, 1 - rho);
    p.add_(delta, -options_.lr);
  }
}

void Adadelta::save(torch::serialize::OutputArchive& archive) const {
  for (size_t i = 0; i < params_.size(); ++i) {
    archive.write("square_avg." + std::to_string(i), square_avg_[i], /*is_buffer=*/true);
    archive.write("acc_delta." + std::to_string(i), acc_delta_[i], /*is_buffer=*/true);
  }
}

void Adadelta::load(torch::serialize::InputArchive& archive) {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < params_.size(); ++i) {
    archive.read("square_avg." + std::to_string(i), square_avg_[i], /*is_buffer=*/true);
    archive.read("acc_delta." + std::to_string(i), acc_delta_[i], /*is_buffer=*/true);
  }
}

}  // namespace pperf
