#include "workloads/torchscript/torchscript.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/script.h>

#include <sstream>

#include "src/core/input_error.h"
#include "workloads/common/synthetic_normal.h"
#include "workloads/workload.h"
#include "workloads/common/foreach_optim.h"

namespace pperf {

namespace {

/// The per-sample input shape from params, checked: a non-empty list of positive sizes.
std::vector<int64_t> input_shape(const WorkloadSpec& spec) {
  std::vector<int64_t> shape;
  const nlohmann::json& value = spec.param("input_shape");
  if (value.is_array())
    for (const auto& size : value) shape.push_back(size.is_number_integer() ? size.get<int64_t>() : 0);
  const bool valid = !shape.empty() && std::all_of(shape.begin(), shape.end(), [](int64_t s) { return s > 0; });
  if (!valid)
    throw InputError("torchscript", "params/input_shape",
                     "needs the per-sample input shape as a non-empty list of positive integers, got " +
                         value.dump());
  return shape;
}

int64_t classes(const WorkloadSpec& spec) {
  const int64_t n = spec.int_param("classes");
  if (n < 2) throw InputError("torchscript", "params/classes", fmt::format("must be at least 2, got {}", n));
  return n;
}

/// TorchScript errors span many lines (interpreter tracebacks); an InputError is one line: the
/// last line that states the error. libtorch 2.x appends the C++ backtrace to some of them
/// ("Exception raised from ...", "frame #N: ..."): those lines are passed over.
std::string last_line(const std::string& message) {
  std::vector<std::string> lines;
  std::stringstream in(message);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    const size_t first = it->find_first_not_of(" \r\t");
    if (first == std::string::npos) continue;
    const std::string text = it->substr(first, it->find_last_not_of(" \r\t") + 1 - first);
    if (text.rfind("frame #", 0) == 0 || text.rfind("Exception raised from ", 0) == 0 || text == "<unknown function>")
      continue;
    return text;
  }
  return message;
}

torch::jit::Module load_module(const std::string& path) {
  if (path.empty())
    throw InputError("torchscript", "params/path", "is required: the TorchScript file (torch.jit.save) to train");
  try {
    return torch::jit::load(path, torch::kCPU);
  } catch (const c10::Error& e) {
    throw InputError(path, "", "cannot load as a TorchScript model: " + last_line(e.what_without_backtrace()));
  } catch (const std::exception& e) {
    throw InputError(path, "", "cannot load as a TorchScript model: " + last_line(e.what()));
  }
}

class TorchScriptWorkload : public Workload {
 public:
  explicit TorchScriptWorkload(const WorkloadSpec& spec)
      : path_(spec.string_param("path")), module_(load_module(path_)) {
    module_.to(device_of(spec));  // before its parameters are collected for the optimizer
    for (const auto& p : module_.parameters())
      if (p.requires_grad()) params_.push_back(p);
    check_output(input_shape(spec), classes(spec), device_of(spec));
    const double lr = spec.number_param("lr");
    if (spec.string_param("optimizer") == "sgd")
      optimizer_ = std::make_unique<ForeachSGD>(params_, torch::optim::SGDOptions(lr).momentum(0.9));
    else
      optimizer_ = std::make_unique<ForeachAdam>(params_, torch::optim::AdamOptions(lr));
    module_.train();
  }

  /// The model is opaque: no analytic FLOPs (0 = unknown), and it runs in the dtype it was saved in.
  std::vector<torch::Tensor> parameters() const override { return params_; }
  std::vector<torch::Tensor> buffers() const override {
    std::vector<torch::Tensor> out;
    for (const auto& b : module_.buffers()) out.push_back(b);
    return out;
  }

  ModelInfo model_info() const override {
    int64_t n = 0;
    for (const auto& p : params_) n += p.numel();
    return {n, 0, "fp32"};
  }

  double train_step(const Batch& batch) override {
    optimizer_->zero_grad();
    torch::Tensor logits = module_.forward({batch.inputs}).toTensor();
    torch::Tensor loss = torch::nn::functional::cross_entropy(logits, batch.targets);
    loss.backward();
    optimizer_->step();
    return loss.item<double>();
  }

 private:
  /// One forward on a zero sample, so a shape mismatch is a clear error naming the file
  /// rather than a failure deep in the first timed step. Eval mode: batch-norm stats untouched.
  void check_output(const std::vector<int64_t>& shape, int64_t classes, const torch::Device& device) {
    std::vector<int64_t> sizes{1};
    sizes.insert(sizes.end(), shape.begin(), shape.end());
    torch::NoGradGuard no_grad;
    module_.eval();
    c10::IValue out;
    try {
      out = module_.forward({torch::zeros(sizes, torch::TensorOptions().device(device))});
    } catch (const std::exception& e) {  // interpreter errors are not all c10::Error
      throw InputError(path_, "", fmt::format("forward on an input of shape [{}] failed: {}",
                                              fmt::join(sizes, ", "), last_line(e.what())));
    }
    if (!out.isTensor() || out.toTensor().dim() != 2 || out.toTensor().size(1) != classes)
      throw InputError(path_, "",
                       fmt::format("forward must return logits of shape [batch, {}] (params.classes){}",
                                   classes,
                                   out.isTensor() ? fmt::format(", got [{}]", fmt::join(out.toTensor().sizes(), ", "))
                                                  : ", got a non-tensor"));
  }

  std::string path_;
  torch::jit::Module module_;
  std::vector<torch::Tensor> params_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
};

/// N(0, 1) inputs of [batch, input_shape...], one RNG stream per (seed, batch index);
/// label = sample index % classes.
class SyntheticTensorPipeline : public InputPipeline {
 public:
  SyntheticTensorPipeline(std::vector<int64_t> shape, int64_t classes, int64_t batch_size, uint64_t seed)
      : shape_(std::move(shape)), classes_(classes), batch_size_(batch_size), seed_(seed) {}

  Batch make_batch(int64_t index) const override {
    std::vector<int64_t> sizes{batch_size_};
    sizes.insert(sizes.end(), shape_.begin(), shape_.end());
    Batch batch;
    batch.index = index;
    batch.inputs = torch::empty(sizes);
    batch.targets = torch::empty({batch_size_}, torch::kLong);
    const int64_t per_sample = batch.inputs.numel() / batch_size_;
    float* inputs = batch.inputs.data_ptr<float>();
    int64_t* targets = batch.targets.data_ptr<int64_t>();
    Xoshiro256pp rng(stream_seed(seed_, static_cast<uint64_t>(index)));
    for (int64_t i = 0; i < batch_size_; ++i) {
      fill_standard_normal(inputs + i * per_sample, per_sample, rng.next());
      targets[i] = sample_position(index, batch_size_, i, classes_);
    }
    return batch;
  }

  /// Generated on the fly: no finite dataset to cycle over (samples 0).
  DataInfo data_info() const override { return {"synthetic", "", 0}; }

 private:
  std::vector<int64_t> shape_;
  int64_t classes_;
  int64_t batch_size_;
  uint64_t seed_;
};

}  // namespace

WorkloadDescriptor torchscript_descriptor() {
  WorkloadDescriptor d;
  d.name = "torchscript";
  d.description =
      "Your own model: a TorchScript file (torch.jit.save) trained on N(0,1) inputs of a given "
      "per-sample shape generated in the input pipeline, label = sample index % classes, "
      "cross-entropy on its [batch, classes] output; Adam or SGD (momentum 0.9) over its "
      "parameters. FLOPs unknown (reported as 0); runs in the dtype it was saved in (fp32)";
  d.capabilities = {/*data_parallel=*/true, /*checkpoint=*/false, /*data_workers=*/true, /*model_flops=*/false};
  d.presets = {{"default", "whatever model `path` holds", 32}};
  d.params = {
      {"path", "path", "", "the TorchScript file to train (required)", {}},
      {"input_shape", "integer_list", nlohmann::json::array(),
       "per-sample input shape, without the batch dimension, e.g. [3, 32, 32] (required)", {}},
      {"dtype", "string", "float32", "input dtype (only float32 for now)", {"float32"}},
      {"classes", "integer", 10, "number of classes: the model must output [batch, classes] logits", {}},
      {"optimizer", "string", "adam", "adam, or sgd (momentum 0.9)", {"adam", "sgd"}},
      {"lr", "number", 1e-3, "learning rate", {}},
  };
  d.make_workload = [](const WorkloadSpec& spec) -> std::unique_ptr<Workload> {
    return std::make_unique<TorchScriptWorkload>(spec);
  };
  d.make_pipeline = [](const WorkloadSpec& spec) -> std::shared_ptr<InputPipeline> {
    return std::make_shared<SyntheticTensorPipeline>(input_shape(spec), classes(spec), spec.batch_size, spec.seed);
  };
  d.batch_layout = [](const WorkloadSpec& spec) {
    return std::vector<TensorDecl>{{"inputs", "float32", input_shape(spec)}, {"targets", "int64", {}}};
  };
  return d;
}

}  // namespace pperf
