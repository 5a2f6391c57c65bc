#pragma once
// Adadelta (Zeiler 2012), as torch.optim.Adadelta computes it; libtorch 1.13's C++ API has no
// Adadelta and the seed's MNIST job trains with it.
#include <torch/torch.h>

#include <vector>

namespace pperf {

struct AdadeltaOptions {
  double lr = 1.0;
  double rho = 0.9;
  double eps = 1e-6;
  double weight_decay = 0;
};

class Adadelta {
 public:
  Adadelta(std::vector<torch::Tensor> params, AdadeltaOptions options = {});
  void zero_grad();
  /// One update from the gradients currently in the parameters' .grad().
  void step();
  /// The running averages (the optimizer's whole state), for checkpoints.
  void save(torch::serialize::OutputArchive& archive) const;
  void load(torch::serialize::InputArchive& archive);

 private:
  std::vector<torch::Tensor> params_;
  std::vector<torch::Tensor> square_avg_, acc_delta_;
  AdadeltaOptions options_;
};

}  // namespace pperf
