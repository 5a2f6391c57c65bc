#include "workloads/vit_synthetic/vit_synthetic.h"

#include <ATen/autocast_mode.h>
#include <fmt/format.h>

#include "workloads/common/synthetic_normal.h"
#include "workloads/common/torch_compat.h"
#include "workloads/workload.h"
#include "workloads/common/foreach_optim.h"

namespace pperf {

namespace {

// Seed 001's FakeDataset: 1,000,000 samples, label = index % classes.
constexpr int64_t kDatasetSamples = 1000000;

struct VitShape {
  int64_t image, patch, channels, dim, depth, heads, mlp, classes;
  int64_t patches() const { return (image / patch) * (image / patch); }
  int64_t tokens() const { return patches() + 1; }  // + class token
};

VitShape preset_shape(const std::string& preset) {
  if (preset == "small") return {224, 16, 3, 384, 12, 6, 1536, 1000};
  if (preset == "tiny") return {32, 8, 3, 64, 2, 2, 128, 10};
  return {224, 16, 3, 768, 12, 12, 3072, 1000};  // base: timm VisionTransformer() defaults
}

// --- model -------------------------------------------------------------------------------

/// timm-style init: truncated normal (std 0.02, cut at +-2 std) for linear weights and the
/// position embedding, zero biases.
void trunc_normal_(torch::Tensor t, double std) {
  torch::NoGradGuard no_grad;
  t.normal_(0, std).clamp_(-2 * std, 2 * std);
}

torch::nn::Linear make_linear(int64_t in, int64_t out) {
  torch::nn::Linear l(torch::nn::LinearOptions(in, out).bias(true));
  trunc_normal_(l->weight, 0.02);
  torch::NoGradGuard no_grad;
  l->bias.zero_();
  return l;
}

torch::nn::LayerNorm make_norm(int64_t dim) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim}).eps(1e-6));
}

struct AttentionImpl : torch::nn::Module {
  AttentionImpl(int64_t dim, int64_t heads)
      : heads(heads),
        scale(1.0 / std::sqrt(static_cast<double>(dim / heads))),
        qkv(register_module("qkv", make_linear(dim, 3 * dim))),
        proj(register_module("proj", make_linear(dim, dim))) {}

  torch::Tensor forward(const torch::Tensor& x) {
    const int64_t b = x.size(0), t = x.size(1), d = x.size(2);
    // [B, T, 3D] -> [3, B, heads, T, head_dim]
    torch::Tensor parts = qkv(x).reshape({b, t, 3, heads, d / heads}).permute({2, 0, 3, 1, 4});
    torch::Tensor q = parts[0] * scale, k = parts[1], v = parts[2];
    torch::Tensor attn = torch::matmul(q, k.transpose(-2, -1)).softmax(-1);
    return proj(torch::matmul(attn, v).transpose(1, 2).reshape({b, t, d}));
  }

  int64_t heads;
  double scale;
  torch::nn::Linear qkv, proj;
};
TORCH_MODULE(Attention);

/// Pre-norm transformer block: x + attn(norm1(x)), then x + mlp(norm2(x)).
struct BlockImpl : torch::nn::Module {
  BlockImpl(int64_t dim, int64_t heads, int64_t mlp)
      : norm1(register_module("norm1", make_norm(dim))),
        attn(register_module("attn", Attention(dim, heads))),
        norm2(register_module("norm2", make_norm(dim))),
        fc1(register_module("fc1", make_linear(dim, mlp))),
        fc2(register_module("fc2", make_linear(mlp, dim))) {}

  torch::Tensor forward(torch::Tensor x) {
    x = x + attn(norm1(x));
    return x + fc2(torch::gelu(fc1(norm2(x))));
  }

  torch::nn::LayerNorm norm1;
  Attention attn;
  torch::nn::LayerNorm norm2;
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Block);

struct VisionTransformerImpl : torch::nn::Module {
  explicit VisionTransformerImpl(const VitShape& s)
      : shape(s),
        patch_embed(register_module(
            "patch_embed", torch::nn::Conv2d(torch::nn::Conv2dOptions(s.channels, s.dim, s.patch)
                                                 .stride(s.patch)
                                                 .bias(true)))),
        cls_token(register_parameter("cls_token", torch::zeros({1, 1, s.dim}))),
        pos_embed(register_parameter("pos_embed", torch::zeros({1, s.tokens(), s.dim}))),
        blocks(register_module("blocks", torch::nn::ModuleList())),
        norm(register_module("norm", make_norm(s.dim))),
        head(register_module("head", make_linear(s.dim, s.classes))) {
    for (int64_t i = 0; i < s.depth; ++i) {
      block_list.push_back(Block(s.dim, s.heads, s.mlp));
      blocks->push_back(block_list.back());
    }
    trunc_normal_(pos_embed, 0.02);
    torch::NoGradGuard no_grad;
    cls_token.normal_(0, 1e-6);
  }

  torch::Tensor forward(const torch::Tensor& images) {
    const int64_t b = images.size(0);
    torch::Tensor x = patch_embed(images).flatten(2).transpose(1, 2);  // [B, patches, D]
    x = torch::cat({cls_token.expand({b, -1, -1}), x}, 1) + pos_embed;
    for (auto& block : block_list) x = block(x);
    return head(norm(x).select(1, 0));  // classify from the class token
  }

  /// Forward FLOPs per sample = 2 x multiply-adds of: patch-embedding conv, and per block the
  /// qkv projection, attention scores Q K^T, attention-weighted values A V, output projection
  /// and the two MLP linears; plus the head (class token only). LayerNorm, softmax, GELU, the
  /// residual adds and the position embedding are not counted.
  double forward_flops() const {
    const double t = shape.tokens(), d = shape.dim;
    const double patch_embed_macs = shape.patches() * d * shape.channels * shape.patch * shape.patch;
    const double block_macs = t * d * 3 * d   // qkv
                              + t * t * d     // Q K^T over all heads
                              + t * t * d     // A V over all heads
                              + t * d * d     // proj
                              + 2 * t * d * shape.mlp;  // fc1 + fc2
    const double head_macs = d * shape.classes;
    return 2 * (patch_embed_macs + shape.depth * block_macs + head_macs);
  }

  VitShape shape;
  torch::nn::Conv2d patch_embed;
  torch::Tensor cls_token, pos_embed;
  torch::nn::ModuleList blocks;
  std::vector<Block> block_list;
  torch::nn::LayerNorm norm;
  torch::nn::Linear head;
};
TORCH_MODULE(VisionTransformer);

// --- bf16 autocast ----------------------------------------------------------------------------

/// Enables autocast to `dtype` for `device`'s type (CPU or CUDA) on this thread for its lifetime
/// (autocast state is thread-local), then restores the previous state and, like torch.autocast's
/// exit, drops the cache of casted weights when the outermost region ends (the weights change
/// every step).
class AutocastScope {
 public:
  AutocastScope(const torch::Device& device, at::ScalarType dtype)
      : type_(device.type()),
        was_enabled_(torch_compat::autocast_enabled(type_)),
        previous_dtype_(torch_compat::autocast_dtype(type_)) {
    torch_compat::set_autocast(type_, true, dtype);
    at::autocast::increment_nesting();
  }
  ~AutocastScope() {
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    torch_compat::set_autocast(type_, was_enabled_, previous_dtype_);
  }
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  c10::DeviceType type_;
  bool was_enabled_;
  at::ScalarType previous_dtype_;
};

/// "" if a matmul under bf16 autocast on `device` really yields bf16 there, else why not.
std::string bf16_autocast_problem(const torch::Device& device) {
  const std::string where = device.is_cuda() ? "CUDA" : "CPU";
  try {
    AutocastScope autocast(device, at::kBFloat16);
    const auto ones = torch::ones({8, 8}, torch::TensorOptions().device(device));
    const torch::Tensor out = torch::mm(ones, ones);
    if (out.scalar_type() != at::kBFloat16)
      return fmt::format("a matmul under bf16 {} autocast produced {}, not BFloat16", where,
                         c10::toString(out.scalar_type()));
    if (out[0][0].item<float>() != 8.0f) return "a bf16 matmul under " + where + " autocast gave a wrong result";
  } catch (const c10::Error& e) {
    return "bf16 " + where + " autocast failed: " + e.what_without_backtrace();
  }
  return "";
}

// --- workload ------------------------------------------------------------------------------

class VitSynthetic : public Workload {
 public:
  explicit VitSynthetic(const WorkloadSpec& spec)
      : net_(on_device((torch::manual_seed(spec.seed), VisionTransformer(preset_shape(spec.preset))), spec)),
        optimizer_(net_->parameters(), torch::optim::AdamOptions(spec.number_param("lr"))) {
    net_->train();
    if (spec.string_param("precision") == "bf16") {
      const std::string problem = bf16_autocast_problem(device_of(spec));
      if (problem.empty()) bf16_ = true;
      else fall_back_to_fp32(problem);
    }
  }

  std::vector<torch::Tensor> parameters() const override { return net_->parameters(); }
  std::vector<torch::Tensor> buffers() const override { return net_->buffers(); }

  ModelInfo model_info() const override {
    ModelInfo info{count_parameters(*net_), 3 * net_->forward_flops(), bf16_ ? "bf16-autocast" : "fp32"};
    info.events = events_;
    return info;
  }

  bool save_state(torch::serialize::OutputArchive& archive) override {
    save_module_and_optimizer(archive, *net_, optimizer_);
    return true;
  }
  void load_state(torch::serialize::InputArchive& archive) override { load_module_and_optimizer(archive, *net_, optimizer_); }
  double train_step(const Batch& batch) override {
    if (bf16_) {
      try {
        return step(true, batch);
      } catch (const c10::Error& e) {
        fall_back_to_fp32(fmt::format("bf16 autocast step failed on batch {}: {}", batch.index,
                                      e.what_without_backtrace()));
      }
    }
    return step(false, batch);
  }

  /// Every batch has the same shapes, and the step has no host decision on a value.
  torch::Tensor graphable_step(const Batch& batch) override { return step_loss(bf16_, batch); }

 private:
  double step(bool autocast, const Batch& batch) { return step_loss(autocast, batch).item<double>(); }
  torch::Tensor step_loss(bool autocast, const Batch& batch) {
    optimizer_.zero_grad();
    torch::Tensor loss;
    {
      std::optional<AutocastScope> scope;  // forward + loss only; backward runs outside
      if (autocast) scope.emplace(batch.inputs.device(), at::kBFloat16);
      loss = torch::nn::functional::cross_entropy(net_->forward(batch.inputs), batch.targets);
    }
    loss.backward();
    optimizer_.step();
    return loss.detach();
  }

  void fall_back_to_fp32(const std::string& why) {
    bf16_ = false;
    events_.push_back("precision bf16 requested but running fp32: " + why);
  }

  VisionTransformer net_;
  ForeachAdam optimizer_;
  bool bf16_ = false;
  std::vector<std::string> events_;
};

// --- input pipeline ------------------------------------------------------------------------

/// N(0, 1) images made per sample in the pipeline (seed 001's torch.randn per __getitem__),
/// one RNG stream per (seed, batch index); label = sample index % classes.
class SyntheticImagePipeline : public InputPipeline {
 public:
  SyntheticImagePipeline(const VitShape& shape, int64_t batch_size, uint64_t seed)
      : shape_(shape), batch_size_(batch_size), seed_(seed) {}

  Batch make_batch(int64_t index) const override {
    const int64_t per_sample = shape_.channels * shape_.image * shape_.image;
    Batch batch;
    batch.index = index;
    batch.inputs = torch::empty({batch_size_, shape_.channels, shape_.image, shape_.image});
    batch.targets = torch::empty({batch_size_}, torch::kLong);
    float* images = batch.inputs.data_ptr<float>();
    int64_t* targets = batch.targets.data_ptr<int64_t>();
    Xoshiro256pp rng(stream_seed(seed_, static_cast<uint64_t>(index)));
    for (int64_t i = 0; i < batch_size_; ++i) {
      fill_standard_normal(images + i * per_sample, per_sample, rng.next());
      const int64_t sample = sample_position(index, batch_size_, i, kDatasetSamples);
      targets[i] = sample % shape_.classes;
    }
    return batch;
  }

  DataInfo data_info() const override { return {"synthetic", "", kDatasetSamples}; }

 private:
  VitShape shape_;
  int64_t batch_size_;
  uint64_t seed_;
};

}  // namespace

WorkloadDescriptor vit_synthetic_descriptor() {
  WorkloadDescriptor d;
  d.name = "vit_synthetic";
  d.description =
      "Seed 001: Vision Transformer as timm's VisionTransformer (patch conv, class token, learned "
      "position embedding, pre-norm blocks with LayerNorm eps 1e-6, MHSA with qkv bias, GELU MLP, "
      "final LayerNorm, linear head), Adam, cross-entropy; N(0,1) images generated per sample in "
      "the input pipeline, label = sample index % classes";
  d.capabilities = {/*data_parallel=*/true, /*checkpoint=*/true, /*data_workers=*/true, /*model_flops=*/true};
  d.capabilities.static_shapes = true;
  d.presets = {
      {"base", "ViT-B/16 (timm defaults): 224x224, patch 16, dim 768, depth 12, 12 heads, MLP 3072, "
               "1000 classes, 86,567,656 params; the seed's batch 128",
       128},
      {"small", "ViT-S/16: 224x224, patch 16, dim 384, depth 12, 6 heads, MLP 1536, 1000 classes, "
                "22,050,664 params",
       128},
      {"tiny", "32x32, patch 8, dim 64, depth 2, 2 heads, MLP 128, 10 classes (81,226 params), for CI", 64},
  };
  d.params = {
      {"precision", "string", "fp32",
       "fp32, or bf16 = bf16 CPU autocast around forward + loss as in the seed (falls back to fp32, "
       "with an event, if bf16 does not work here)",
       {"fp32", "bf16"}},
      {"lr", "number", 1e-3, "Adam learning rate (the seed uses Adam's default, 1e-3)", {}},
  };
  d.make_workload = [](const WorkloadSpec& spec) -> std::unique_ptr<Workload> {
    return std::make_unique<VitSynthetic>(spec);
  };
  d.make_pipeline = [](const WorkloadSpec& spec) -> std::shared_ptr<InputPipeline> {
    return std::make_shared<SyntheticImagePipeline>(preset_shape(spec.preset), spec.batch_size, spec.seed);
  };
  d.batch_layout = [](const WorkloadSpec& spec) {
    const VitShape s = preset_shape(spec.preset);
    return std::vector<TensorDecl>{{"inputs", "float32", {s.channels, s.image, s.image}}, {"targets", "int64", {}}};
  };
  return d;
}

}  // namespace pperf
