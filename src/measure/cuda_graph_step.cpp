#include "src/measure/cuda_graph_step.h"

#include <stdexcept>

#if PPERF_WITH_CUDA
#include <ATen/autocast_mode.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace pperf {

std::string cuda_graph_event() {
  return "CUDA graphs: the step was captured once during warmup and replayed for every step after; libtorch's "
         "optimizers keep their step count on the host, so an Adam step's bias correction stays that of the "
         "captured step (the kernels and their cost are the same)";
}

#if PPERF_WITH_CUDA
namespace {
/// `waiter`'s later work starts once the work queued on `on` so far is done.
void wait_for(const c10::cuda::CUDAStream& waiter, const c10::cuda::CUDAStream& on) {
  at::cuda::CUDAEvent done;
  done.record(on);
  done.block(waiter);
}

class CudaGraphStep : public Workload {
 public:
  CudaGraphStep(std::unique_ptr<Workload> inner, torch::Device device) : inner_(std::move(inner)), device_(device) {}

  ModelInfo model_info() const override { return inner_->model_info(); }
  std::vector<torch::Tensor> parameters() const override { return inner_->parameters(); }
  std::vector<torch::Tensor> buffers() const override { return inner_->buffers(); }
  bool save_state(torch::serialize::OutputArchive& archive) override { return inner_->save_state(archive); }
  void load_state(torch::serialize::InputArchive& archive) override { inner_->load_state(archive); }
  torch::Tensor graphable_step(const Batch& batch) override { return inner_->graphable_step(batch); }

  double train_step(const Batch& batch) override {
    if (!graph_) capture(batch);
    copy_into(static_.inputs, batch.inputs, "inputs");
    copy_into(static_.targets, batch.targets, "targets");
    graph_->replay();
    return loss_.item<double>();
  }

 private:
  static void copy_into(torch::Tensor& to, const torch::Tensor& from, const char* what) {
    if (!from.defined()) return;
    if (from.sizes() != to.sizes() || from.scalar_type() != to.scalar_type())
      throw std::runtime_error(std::string("CUDA graphs: the batch's ") + what + " differ in shape or type from the captured step's");
    to.copy_(from, /*non_blocking=*/true);
  }

  /// torch.cuda.graphs' recipe: warm up on a side stream, capture there (autocast's weight
  /// cache off: cached casts must not outlive the capture), then join the current stream.
  void capture(const Batch& batch) {
    static_ = batch;
    static_.inputs = batch.inputs.defined() ? batch.inputs.clone() : batch.inputs;
    static_.targets = batch.targets.defined() ? batch.targets.clone() : batch.targets;
    const bool cache = at::autocast::is_autocast_cache_enabled();
    at::autocast::set_autocast_cache_enabled(false);
    try {
      c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(false, device_.index());
      const c10::cuda::CUDAStream current = c10::cuda::getCurrentCUDAStream(device_.index());
      wait_for(side, current);
      {
        c10::cuda::CUDAStreamGuard on_side(side);
        for (int i = 0; i < kStepsBeforeCapture; ++i) inner_->graphable_step(static_);
        auto graph = std::make_unique<at::cuda::CUDAGraph>();
        graph->capture_begin();
        loss_ = inner_->graphable_step(static_);
        graph->capture_end();
        graph_ = std::move(graph);
      }
      wait_for(current, side);
    } catch (...) {
      at::autocast::set_autocast_cache_enabled(cache);
      throw;
    }
    at::autocast::set_autocast_cache_enabled(cache);
  }

  std::unique_ptr<Workload> inner_;
  torch::Device device_;
  Batch static_;
  torch::Tensor loss_;
  std::unique_ptr<at::cuda::CUDAGraph> graph_;
};
}  // namespace

std::unique_ptr<Workload> capture_cuda_graph(std::unique_ptr<Workload> workload, const Device& device) {
  const torch::Device d(device.name());
  if (!d.is_cuda()) throw std::runtime_error("CUDA graphs: the step runs on " + device.name() + ", not a CUDA device");
  return std::make_unique<CudaGraphStep>(std::move(workload), d);
}
#else
std::unique_ptr<Workload> capture_cuda_graph(std::unique_ptr<Workload>, const Device&) {
  throw std::runtime_error("CUDA graphs: this pperf is built against a CPU-only libtorch (docs/gpu.md)");
}
#endif

}  // namespace pperf
