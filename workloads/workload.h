#pragma once
// The workload plugin interface (the trainer side and the data side), in the spirit of
// LoadGen's SUT/QSL split: pperf's runner owns warmup, timing and stopping; a workload only
// builds its model, optimizer and input pipeline and runs one step on a batch it is given.
#include <torch/torch.h>

#include <optional>

#include "src/core/workload_registry.h"

namespace pperf {

/// Position in a data set of `size` samples of sample `i` of batch `index` (batches cycle over
/// the data set): (index x batch_size + i) mod size, computed without overflow for any index
/// in [0, kMaxBatchIndex] and any batch size.
inline int64_t sample_position(int64_t index, int64_t batch_size, int64_t i, int64_t size) {
  const unsigned __int128 linear = static_cast<unsigned __int128>(index) * static_cast<uint64_t>(batch_size) +
                                   static_cast<uint64_t>(i);
  return static_cast<int64_t>(linear % static_cast<uint64_t>(size));
}

/// The seed of batch `index`'s random stream, the determinism contract of every built-in
/// pipeline: the same (seed, batch index) draws the same random numbers on any thread, process
/// or host, so a batch is the same whoever prepares it.
inline uint64_t batch_seed(uint64_t seed, int64_t index) {
  return seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(index);
}

/// One ready batch. `index` is the batch's position in the deterministic batch sequence.
struct Batch {
  int64_t index = 0;
  torch::Tensor inputs;
  torch::Tensor targets;
  int64_t samples() const { return inputs.defined() ? inputs.size(0) : 0; }
};

/// `batch` with its tensors in page-locked host memory (copies), so a copy to a GPU can run
/// asynchronously; an undefined tensor (a step that makes its own data) stays undefined.
inline Batch pin_batch(Batch batch) {
  if (batch.inputs.defined()) batch.inputs = batch.inputs.pin_memory();
  if (batch.targets.defined()) batch.targets = batch.targets.pin_memory();
  return batch;
}

/// A workload's CPU input pipeline: load + preprocess one batch.
/// The caller guarantees 0 <= index <= kMaxBatchIndex.
/// The implementer guarantees make_batch is thread-safe (loader threads call it concurrently)
/// and deterministic: batch `index` has the same content whichever thread or process makes it,
/// so local and remote data sources feed identical batches.
class InputPipeline {
 public:
  virtual ~InputPipeline() = default;
  virtual Batch make_batch(int64_t index) const = 0;
  virtual DataInfo data_info() const = 0;
};

/// A model with its optimizer and loss.
/// The harness guarantees train_step is called from one thread, with batches of the workload's
/// own pipeline, and times it from outside. The implementer runs exactly one full training
/// step (forward, loss, backward, optimizer update), complete when it returns, and never times
/// itself.
class Workload {
 public:
  virtual ~Workload() = default;
  virtual ModelInfo model_info() const = 0;
  /// The trainable parameters, in a fixed order. The harness may read and overwrite their
  /// values and gradients between steps and from autograd hooks (data-parallel ranks broadcast
  /// and average them); the workload keeps owning them. Empty: it cannot be trained data-parallel.
  virtual std::vector<torch::Tensor> parameters() const { return {}; }
  /// The module's buffers (state that is not trained, e.g. BatchNorm's running statistics), in
  /// a fixed order. Data-parallel ranks overwrite them with rank 0's at start and before every
  /// step, as DDP's broadcast_buffers does; the workload keeps owning them. Empty: none.
  virtual std::vector<torch::Tensor> buffers() const { return {}; }
  /// Returns the step's loss (so a run can show the model is learning).
  virtual double train_step(const Batch& batch) = 0;
  /// The same step as device work alone, for CUDA graph capture (capabilities.static_shapes:
  /// every batch has the same shapes): the loss returned as a tensor on the device, never read
  /// on the host, and no host decision on a tensor's value inside (a replayed graph repeats the
  /// kernels, not the host code). The harness calls it only for workloads declaring
  /// static_shapes; the default throws std::logic_error.
  virtual torch::Tensor graphable_step(const Batch& batch);
  /// The full training state (model parameters and buffers + optimizer state) for a Spot
  /// checkpoint. The harness guarantees load_state reads what save_state of a workload built
  /// from the same spec wrote; the implementer makes training continue exactly as if never
  /// stopped. False: this workload cannot checkpoint (the default).
  virtual bool save_state(torch::serialize::OutputArchive& archive) { return (void)archive, false; }
  virtual void load_state(torch::serialize::InputArchive& archive) { (void)archive; }
};

/// save_state / load_state for a torch module and a libtorch optimizer (under "optimizer").
void save_module_and_optimizer(torch::serialize::OutputArchive& archive, const torch::nn::Module& module,
                               const torch::optim::Optimizer& optimizer);
void load_module_and_optimizer(torch::serialize::InputArchive& archive, torch::nn::Module& module,
                               torch::optim::Optimizer& optimizer);

/// Where the runner gets batches from: the local loader, or data workers over the data service.
/// next() blocks until the next batch is ready; nullopt means no more batches will come.
/// Errors in producing batches are rethrown from next().
class DataSource {
 public:
  virtual ~DataSource() = default;
  virtual std::optional<Batch> next() = 0;
  /// What happened along the way that a result should mention (e.g. a data worker dropped).
  virtual std::vector<std::string> events() const { return {}; }
  /// Where the samples come from, when the source knows (a data worker says so in its handshake).
  virtual std::optional<DataInfo> data_info() const { return std::nullopt; }
  /// Taking turns: the runner calls pause() when its round ends and resume() before its next
  /// round. A source that can hold its pipeline stops preparing new batches while paused
  /// (batches already in preparation finish), so it neither takes CPU from the configuration
  /// measuring meanwhile nor fills its queue beyond its steady state. resume() returns the
  /// head start: how many more batches are ready now than at pause(), i.e. the steps that would
  /// be timed faster than they run in steady state; nullopt when the source cannot tell.
  virtual void pause() {}
  virtual std::optional<int64_t> resume() { return std::nullopt; }
};

/// The device `spec` trains on.
torch::Device device_of(const WorkloadSpec& spec);

/// `module` moved to `spec`'s device. Call it before building the optimizer, so the optimizer's
/// state is allocated there too.
template <typename ModuleHolder>
ModuleHolder on_device(ModuleHolder module, const WorkloadSpec& spec) {
  module->to(device_of(spec));
  return module;
}

/// Total trainable parameters of a module.
int64_t count_parameters(const torch::nn::Module& module);

}  // namespace pperf
