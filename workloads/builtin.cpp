#include "workloads/bert_classification/bert_classification.h"
#include "workloads/mnist_heavy/mnist_heavy.h"
#include "workloads/python_step/python_step.h"
#include "workloads/resnet50_augment/resnet50_augment.h"
#include "workloads/torchscript/torchscript.h"
#include "workloads/vit_synthetic/vit_synthetic.h"
#include "src/core/workload_registry.h"
#include "workloads/workload.h"

namespace pperf {

torch::Device device_of(const WorkloadSpec& spec) { return torch::Device(spec.device); }

torch::Tensor Workload::graphable_step(const Batch&) {
  throw std::logic_error("this workload does not declare static_shapes: its step cannot be captured");
}

int64_t count_parameters(const torch::nn::Module& module) {
  int64_t n = 0;
  for (const auto& p : module.parameters())
    if (p.requires_grad()) n += p.numel();
  return n;
}

void save_module_and_optimizer(torch::serialize::OutputArchive& archive, const torch::nn::Module& module,
                               const torch::optim::Optimizer& optimizer) {
  module.save(archive);
  torch::serialize::OutputArchive state;
  optimizer.save(state);
  archive.write("optimizer", state);
}

void load_module_and_optimizer(torch::serialize::InputArchive& archive, torch::nn::Module& module,
                               torch::optim::Optimizer& optimizer) {
  module.load(archive);
  torch::serialize::InputArchive state;
  archive.read("optimizer", state);
  optimizer.load(state);
}

// Explicit list, not static self-registration: objects in a static library that nothing
// references are dropped by the linker, and their registrations with them.
const WorkloadRegistry& builtin_workloads() {
  static const WorkloadRegistry registry = [] {
    WorkloadRegistry r;
    r.add(mnist_heavy_descriptor());
    r.add(resnet50_augment_descriptor());
    r.add(vit_synthetic_descriptor());
    r.add(bert_classification_descriptor());
    r.add(torchscript_descriptor());
    r.add(python_step_descriptor());
    return r;
  }();
  return registry;
}

}  // namespace pperf
