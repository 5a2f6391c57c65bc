#include "workloads/resnet50_augment/resnet50_augment.h"

#include <array>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <tuple>

#include "src/core/input_error.h"
#include "workloads/common/augment.h"
#include "workloads/common/byte_table.h"
#include "workloads/common/image_pipeline.h"
#include "workloads/workload.h"
#include "workloads/common/foreach_optim.h"

namespace pperf {

namespace {

constexpr int kChannels = 3;

/// The network's shape. torchvision's resnet50 is {64, {64,128,256,512}, {3,4,6,3}}.
struct Arch {
  int64_t side;      // input images are kChannels x side x side
  int64_t classes;
  int64_t stem;      // channels of the 7x7 stem convolution
  std::array<int64_t, 4> widths;  // bottleneck widths per stage (outputs are 4x these)
  std::array<int64_t, 4> blocks;  // bottleneck blocks per stage
};
constexpr int64_t kExpansion = 4;

Arch preset_arch(const std::string& preset) {
  if (preset == "full") return {224, 1000, 64, {64, 128, 256, 512}, {3, 4, 6, 3}};
  if (preset == "cifar") return {32, 10, 64, {64, 128, 256, 512}, {3, 4, 6, 3}};
  return {32, 10, 8, {8, 16, 32, 64}, {1, 1, 1, 1}};  // tiny
}

int64_t conv_out(int64_t in, int64_t kernel, int64_t stride, int64_t pad) {
  return (in + 2 * pad - kernel) / stride + 1;
}

torch::nn::Conv2d conv(int64_t in, int64_t out, int64_t kernel, int64_t stride) {
  return torch::nn::Conv2d(
      torch::nn::Conv2dOptions(in, out, kernel).stride(stride).padding(kernel / 2).bias(false));
}

/// torchvision v1.5 bottleneck: 1x1 reduce, 3x3 (carries the stride), 1x1 expand, each
/// followed by batch norm; a 1x1 conv + BN projection on the shortcut where the shape changes.
struct BottleneckImpl : torch::nn::Module {
  BottleneckImpl(int64_t in, int64_t width, int64_t stride)
      : conv1(register_module("conv1", conv(in, width, 1, 1))),
        bn1(register_module("bn1", torch::nn::BatchNorm2d(width))),
        conv2(register_module("conv2", conv(width, width, 3, stride))),
        bn2(register_module("bn2", torch::nn::BatchNorm2d(width))),
        conv3(register_module("conv3", conv(width, width * kExpansion, 1, 1))),
        bn3(register_module("bn3", torch::nn::BatchNorm2d(width * kExpansion))) {
    if (stride != 1 || in != width * kExpansion) {
      downsample = register_module(
          "downsample", torch::nn::Sequential(conv(in, width * kExpansion, 1, stride),
                                              torch::nn::BatchNorm2d(width * kExpansion)));
    }
  }

  torch::Tensor forward(torch::Tensor x) {
    torch::Tensor out = torch::relu(bn1(conv1(x)));
    out = torch::relu(bn2(conv2(out)));
    out = bn3(conv3(out));
    out += downsample ? downsample->forward(x) : x;
    return torch::relu(out);
  }

  torch::nn::Conv2d conv1, conv2, conv3;
  torch::nn::BatchNorm2d bn1, bn2, bn3;
  torch::nn::Sequential downsample{nullptr};
};
TORCH_MODULE(Bottleneck);

struct ResNetImpl : torch::nn::Module {
  explicit ResNetImpl(const Arch& a)
      : conv1(register_module("conv1", conv(kChannels, a.stem, 7, 2))),
        bn1(register_module("bn1", torch::nn::BatchNorm2d(a.stem))),
        fc(register_module("fc", torch::nn::Linear(a.widths[3] * kExpansion, a.classes))) {
    // Forward FLOPs = 2 x multiply-adds of every convolution and the fc layer; batch norm,
    // ReLU, pooling and the residual additions are not counted.
    int64_t side = conv_out(a.side, 7, 2, 3);
    flops_ += 2.0 * kChannels * 49 * a.stem * side * side;
    side = conv_out(side, 3, 2, 1);  // max pool
    int64_t in = a.stem;
    for (int stage = 0; stage < 4; ++stage) {
      torch::nn::Sequential layer;
      const int64_t width = a.widths[stage];
      for (int64_t b = 0; b < a.blocks[stage]; ++b) {
        const int64_t stride = (stage > 0 && b == 0) ? 2 : 1;
        const int64_t out_side = conv_out(side, 3, stride, 1);
        flops_ += 2.0 * in * width * side * side;                        // conv1 1x1
        flops_ += 2.0 * 9 * width * width * out_side * out_side;         // conv2 3x3
        flops_ += 2.0 * width * width * kExpansion * out_side * out_side;  // conv3 1x1
        if (stride != 1 || in != width * kExpansion)
          flops_ += 2.0 * in * width * kExpansion * out_side * out_side;  // projection
        layer->push_back(Bottleneck(in, width, stride));
        in = width * kExpansion;
        side = out_side;
      }
      layers.push_back(register_module("layer" + std::to_string(stage + 1), layer));
    }
    flops_ += 2.0 * in * a.classes;
    // torchvision's initialisation: He-normal (fan_out) convolutions, BN weight 1 / bias 0.
    for (auto& m : modules(/*include_self=*/false)) {
      if (auto* c = m->as<torch::nn::Conv2d>())
        torch::nn::init::kaiming_normal_(c->weight, 0, torch::kFanOut, torch::kReLU);
    }
  }

  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(bn1(conv1(x)));
    x = torch::max_pool2d(x, 3, 2, 1);
    for (auto& layer : layers) x = layer->forward(x);
    x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
    return fc(x);
  }

  double forward_flops() const { return flops_; }

  torch::nn::Conv2d conv1;
  torch::nn::BatchNorm2d bn1;
  std::vector<torch::nn::Sequential> layers;
  torch::nn::Linear fc;
  double flops_ = 0;
};
TORCH_MODULE(ResNet);

/// `count` random uint8 images and random labels in [0, classes), from the seed (as the seed's
/// job, which trains on random data). Shared between the pipelines of one process.
std::shared_ptr<const ImageSet> make_synthetic(uint64_t seed, int64_t count, int64_t side, int64_t classes) {
  static std::mutex mutex;
  static std::map<std::tuple<uint64_t, int64_t, int64_t, int64_t>, std::weak_ptr<const ImageSet>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = cache[{seed, count, side, classes}];
  if (auto cached = slot.lock()) return cached;
  auto set = std::make_shared<ImageSet>();
  set->side = side;
  set->channels = kChannels;
  set->images.resize(static_cast<size_t>(count) * side * side * kChannels);
  std::mt19937_64 rng(seed);
  // Eight pixels per 64-bit draw: 224x224 sets are 150 KB an image.
  size_t i = 0;
  for (; i + 8 <= set->images.size(); i += 8) {
    uint64_t bits = rng();
    for (int b = 0; b < 8; ++b, bits >>= 8) set->images[i + b] = static_cast<uint8_t>(bits);
  }
  for (; i < set->images.size(); ++i) set->images[i] = static_cast<uint8_t>(rng());
  std::uniform_int_distribution<int64_t> label(0, classes - 1);
  set->labels.resize(count);
  for (auto& l : set->labels) l = label(rng);
  set->info = {"synthetic", "", count};
  slot = set;
  return set;
}

/// The pipeline's last conversion: the chain's rescale 1/255, applied to its rounded bytes.
ByteTable rescale_table() {
  return ByteTable([](uint8_t b) { return b * (1.0f / 255.0f); });
}

/// The chain runs in pixel values and its result is rounded to bytes (augment_sample_bytes); the
/// rescale is the last conversion (rescale_table).
class AugmentPipeline : public ImagePipeline<AugmentScratch> {
 public:
  AugmentPipeline(std::shared_ptr<const ImageSet> data, int64_t batch_size, uint64_t seed, std::string wire)
      : ImagePipeline(std::move(data), batch_size, seed, std::move(wire), rescale_table()) {}

 protected:
  void make_sample(const ImageSet& set, const uint8_t* image, uint8_t* out, std::mt19937_64& rng,
                   AugmentScratch& scratch) const override {
    const int side = static_cast<int>(set.side);
    augment_sample_bytes(image, side, side, kChannels, draw_augment(rng), out, scratch);  // flips, angles, zooms: from rng
  }
};

class ResNet50Augment : public Workload {
 public:
  explicit ResNet50Augment(const WorkloadSpec& spec)
      : net_(on_device((torch::manual_seed(spec.seed), ResNet(preset_arch(spec.preset))), spec)),
        optimizer_(net_->parameters(),
                   torch::optim::SGDOptions(spec.number_param("lr"))
                       .momentum(spec.number_param("momentum"))
                       .weight_decay(spec.number_param("weight_decay"))) {
    net_->train();
  }

  std::vector<torch::Tensor> parameters() const override { return net_->parameters(); }
  std::vector<torch::Tensor> buffers() const override { return net_->buffers(); }

  ModelInfo model_info() const override {
    return {count_parameters(*net_), 3 * net_->forward_flops(), "fp32"};
  }

  bool save_state(torch::serialize::OutputArchive& archive) override {
    save_module_and_optimizer(archive, *net_, optimizer_);
    return true;
  }
  void load_state(torch::serialize::InputArchive& archive) override { load_module_and_optimizer(archive, *net_, optimizer_); }
  double train_step(const Batch& batch) override { return graphable_step(batch).item<double>(); }
  /// Every batch has the same shapes (the augmentation keeps the image size).
  torch::Tensor graphable_step(const Batch& batch) override {
    optimizer_.zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(net_->forward(table_.to_model(batch.inputs)), batch.targets);
    loss.backward();
    optimizer_.step();
    return loss.detach();
  }

 private:
  ResNet net_;
  ForeachSGD optimizer_;
  ByteTable table_ = rescale_table();  // the uint8 wire's last conversion, on the step's device
};

}  // namespace

WorkloadDescriptor resnet50_augment_descriptor() {
  WorkloadDescriptor d;
  d.name = "resnet50_augment";
  d.description =
      "Seed 000 ex.1: ResNet50 (torchvision v1.5 layout), SGD with momentum, cross-entropy; per-sample "
      "CPU augmentation of uint8 images in C++: 3x3 dilation, 11x11 Gaussian blur sigma 0.8, rescale "
      "1/255, random horizontal flip, random rotation +-36 deg, random zoom [0.9, 1.1] (bilinear, "
      "reflect fill), computed in pixel values and rounded to bytes, the rescale last (on the trainer's device on the "
      "uint8 wire); random images and labels generated from the seed";
  d.capabilities = {/*data_parallel=*/true, /*checkpoint=*/true, /*data_workers=*/true, /*model_flops=*/true};
  d.capabilities.wires = {"uint8"};
  d.capabilities.static_shapes = true;
  d.presets = {
      {"full", "ResNet50 on 3x224x224, 1000 classes (25,557,032 params)", 32},
      {"cifar", "the seed's job: ResNet50 on 3x32x32, 10 classes (23,528,522 params); the seed ran batch 1024 per GPU", 64},
      {"tiny", "widths /8 (stem 8, stages 8/16/32/64 x4 out), one bottleneck per stage, 3x32x32, 10 classes, for CI", 32},
  };
  d.params = {
      {"images", "integer", 2048, "how many random uint8 images (and random labels) the batches cycle over; 224x224 images take 150 KB each", {}},
      {"lr", "number", 0.1, "SGD learning rate", {}},
      {"momentum", "number", 0.9, "SGD momentum", {}},
      {"weight_decay", "number", 0.0, "SGD weight decay (L2)", {}},
  };
  d.make_workload = [](const WorkloadSpec& spec) -> std::unique_ptr<Workload> {
    return std::make_unique<ResNet50Augment>(spec);
  };
  d.make_pipeline = [](const WorkloadSpec& spec) -> std::shared_ptr<InputPipeline> {
    const Arch arch = preset_arch(spec.preset);
    const int64_t images = spec.int_param("images");
    if (images < 1) throw InputError("resnet50_augment", "/params/images", "must be at least 1");
    return std::make_shared<AugmentPipeline>(make_synthetic(spec.seed, images, arch.side, arch.classes),
                                             spec.batch_size, spec.seed, spec.wire);
  };
  d.batch_layout = [](const WorkloadSpec& spec) {
    const Arch arch = preset_arch(spec.preset);
    return std::vector<TensorDecl>{{"inputs", "float32", {kChannels, arch.side, arch.side}}, {"targets", "int64", {}}};
  };
  return d;
}

}  // namespace pperf
