#include "workloads/mnist_heavy/mnist_heavy.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <numeric>
#include <random>

#include "src/core/input_error.h"
#include "workloads/common/adadelta.h"
#include "workloads/common/byte_table.h"
#include "workloads/common/gaussian_blur.h"
#include "workloads/common/idx.h"
#include "workloads/common/image_pipeline.h"
#include "workloads/workload.h"

namespace pperf {

namespace {

constexpr int kSide = 28;
constexpr int kPixels = kSide * kSide;
constexpr int kClasses = 10;
constexpr int kBlurKernel = 11;
constexpr double kSigmaMin = 0.1, kSigmaMax = 2.0;
constexpr float kMean = 0.1307f, kStd = 0.3081f;

/// The pipeline's last conversion: ToTensor's 1/255, then Normalize(kMean, kStd).
ByteTable normalize_table() {
  return ByteTable([](uint8_t b) { return (b / 255.0f - kMean) / kStd; });
}

struct Shape {
  int64_t conv1, conv2, hidden;
};

Shape preset_shape(const std::string& preset) {
  return preset == "tiny" ? Shape{8, 16, 32} : Shape{32, 64, 128};
}

std::shared_ptr<const ImageSet> load_fashion_mnist(const std::string& dir, const std::string& split) {
  // Decompressing 60k images takes a moment; every configuration of a run shares one copy.
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<const ImageSet>> cache;
  const std::string images_path = (std::filesystem::path(dir) / (split + "-images-idx3-ubyte.gz")).string();
  const std::string labels_path = (std::filesystem::path(dir) / (split + "-labels-idx1-ubyte.gz")).string();
  std::lock_guard<std::mutex> lock(mutex);
  if (auto cached = cache[images_path].lock()) return cached;

  IdxArray images = read_idx(images_path);
  IdxArray labels = read_idx(labels_path);
  if (images.dims.size() != 3 || images.dims[1] != kSide || images.dims[2] != kSide)
    throw InputError(images_path, "", "expected N x 28 x 28 images");
  if (labels.dims.size() != 1 || labels.dims[0] != images.dims[0])
    throw InputError(labels_path, "", "label count does not match the image count");
  auto set = std::make_shared<ImageSet>();
  set->side = kSide;
  set->images = std::move(images.data);
  set->labels.assign(labels.data.begin(), labels.data.end());
  set->info = {"fashion-mnist", images_path, set->size()};
  cache[images_path] = set;
  return set;
}

std::shared_ptr<const ImageSet> make_synthetic(uint64_t seed) {
  auto set = std::make_shared<ImageSet>();
  set->side = kSide;
  const int64_t n = 4096;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pixel(0, 255);
  set->images.resize(n * kPixels);
  for (auto& p : set->images) p = static_cast<uint8_t>(pixel(rng));
  set->labels.resize(n);
  for (int64_t i = 0; i < n; ++i) set->labels[i] = static_cast<uint8_t>(i % kClasses);
  set->info = {"synthetic", "", n};
  return set;
}

/// Per batch: the blur's buffers.
struct BlurScratch {
  std::vector<float> pixels = std::vector<float>(kPixels), blurred = std::vector<float>(kPixels), scratch;
};

/// The blur runs on the pixels (blur and normalization commute: the kernel sums to 1) and its
/// result is rounded to bytes; the normalization is the last conversion (normalize_table).
class MnistPipeline : public ImagePipeline<BlurScratch> {
 public:
  MnistPipeline(std::shared_ptr<const ImageSet> data, int64_t batch_size, uint64_t seed, std::string wire)
      : ImagePipeline(std::move(data), batch_size, seed, std::move(wire), normalize_table()) {}

 protected:
  void make_sample(const ImageSet&, const uint8_t* image, uint8_t* out, std::mt19937_64& rng, BlurScratch& s) const override {
    // The same sigmas for a batch on any thread or host: one draw per sample, in order.
    const double sigma = std::uniform_real_distribution<double>(kSigmaMin, kSigmaMax)(rng);
    for (int p = 0; p < kPixels; ++p) s.pixels[p] = image[p];
    gaussian_blur(s.pixels.data(), s.blurred.data(), kSide, kSide, gaussian_kernel1d(kBlurKernel, sigma), s.scratch);
    for (int p = 0; p < kPixels; ++p) out[p] = round_to_byte(s.blurred[p]);
  }
};

struct MnistNetImpl : torch::nn::Module {
  explicit MnistNetImpl(const Shape& s)
      : shape(s),
        conv1(register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, s.conv1, 3)))),
        conv2(register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(s.conv1, s.conv2, 3)))),
        dropout1(register_module("dropout1", torch::nn::Dropout(0.25))),
        dropout2(register_module("dropout2", torch::nn::Dropout(0.5))),
        fc1(register_module("fc1", torch::nn::Linear(s.conv2 * 12 * 12, s.hidden))),
        fc2(register_module("fc2", torch::nn::Linear(s.hidden, kClasses))) {}

  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(conv1(x));
    x = torch::relu(conv2(x));
    x = dropout1(torch::max_pool2d(x, 2)).flatten(1);
    x = dropout2(torch::relu(fc1(x)));
    return torch::log_softmax(fc2(x), 1);
  }

  /// Multiply-adds x 2 of the convolutions and linear layers (activations, pooling ignored).
  double forward_flops() const {
    const double conv1_flops = 2.0 * shape.conv1 * 26 * 26 * 9;
    const double conv2_flops = 2.0 * shape.conv2 * 24 * 24 * shape.conv1 * 9;
    const double fc_flops = 2.0 * (shape.conv2 * 144 * shape.hidden + shape.hidden * kClasses);
    return conv1_flops + conv2_flops + fc_flops;
  }

  Shape shape;
  torch::nn::Conv2d conv1, conv2;
  torch::nn::Dropout dropout1, dropout2;
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(MnistNet);

class MnistHeavy : public Workload {
 public:
  explicit MnistHeavy(const WorkloadSpec& spec)
      : net_(on_device((torch::manual_seed(spec.seed), MnistNet(preset_shape(spec.preset))), spec)),
        optimizer_(net_->parameters(), AdadeltaOptions{spec.number_param("lr")}) {
    net_->train();
  }

  std::vector<torch::Tensor> parameters() const override { return net_->parameters(); }
  std::vector<torch::Tensor> buffers() const override { return net_->buffers(); }

  ModelInfo model_info() const override {
    return {count_parameters(*net_), 3 * net_->forward_flops(), "fp32"};
  }

  bool save_state(torch::serialize::OutputArchive& archive) override {
    net_->save(archive);
    torch::serialize::OutputArchive optimizer;
    optimizer_.save(optimizer);
    archive.write("optimizer", optimizer);
    return true;
  }
  void load_state(torch::serialize::InputArchive& archive) override {
    net_->load(archive);
    torch::serialize::InputArchive optimizer;
    archive.read("optimizer", optimizer);
    optimizer_.load(optimizer);
  }
  double train_step(const Batch& batch) override {
    optimizer_.zero_grad();
    torch::Tensor loss = torch::nll_loss(net_->forward(table_.to_model(batch.inputs)), batch.targets);
    loss.backward();
    optimizer_.step();
    return loss.item<double>();
  }

 private:
  MnistNet net_;
  Adadelta optimizer_;
  ByteTable table_ = normalize_table();  // the uint8 wire's last conversion, on the step's device
};

}  // namespace

WorkloadDescriptor mnist_heavy_descriptor() {
  WorkloadDescriptor d;
  d.name = "mnist_heavy";
  d.description =
      "Seed 000 ex.2: MNIST CNN (conv 1->32->64, fc 9216->128->10), Adadelta, NLL loss; per-sample "
      "CPU preprocessing: 11x11 Gaussian blur with sigma ~ U(0.1, 2.0) rounded to bytes, then to float and "
      "Normalize(0.1307, 0.3081) (on the trainer's device on the uint8 wire)";
  d.capabilities = {/*data_parallel=*/true, /*checkpoint=*/true, /*data_workers=*/true, /*model_flops=*/true};
  d.capabilities.wires = {"uint8"};
  d.presets = {{"full", "the seed's network, 1,199,882 params", 256},
               {"tiny", "conv 1->8->16, fc 2304->32->10 (75,338 params), for CI", 64}};
  d.params = {
      {"data", "string", "fashion-mnist", "fashion-mnist (real IDX files) or synthetic (random images, labelled so in results)", {"fashion-mnist", "synthetic"}},
      {"data_dir", "path", "/usr/share/datasets/fashion-mnist", "directory of the *-idx?-ubyte.gz files (Debian's dataset-fashion-mnist)", {}},
      {"split", "string", "train", "which IDX split to cycle over", {"train", "t10k"}},
      {"lr", "number", 1.0, "Adadelta learning rate", {}},
  };
  d.make_workload = [](const WorkloadSpec& spec) -> std::unique_ptr<Workload> {
    return std::make_unique<MnistHeavy>(spec);
  };
  d.make_pipeline = [](const WorkloadSpec& spec) -> std::shared_ptr<InputPipeline> {
    auto data = spec.string_param("data") == "synthetic"
                    ? make_synthetic(spec.seed)
                    : load_fashion_mnist(spec.string_param("data_dir"),
                                         spec.string_param("split"));
    return std::make_shared<MnistPipeline>(std::move(data), spec.batch_size, spec.seed, spec.wire);
  };
  d.batch_layout = [](const WorkloadSpec&) {
    return std::vector<TensorDecl>{{"inputs", "float32", {1, kSide, kSide}}, {"targets", "int64", {}}};
  };
  return d;
}

}  // namespace pperf
