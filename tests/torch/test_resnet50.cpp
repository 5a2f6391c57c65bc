#include <gtest/gtest.h>
#include <torch/torch.h>

#include <random>
#include <thread>

#include "workloads/common/augment.h"
#include "workloads/common/gaussian_blur.h"
#include "src/core/workload_registry.h"
#include "workloads/workload.h"

using namespace pperf;
namespace F = torch::nn::functional;

namespace {

const WorkloadDescriptor& resnet() { return *builtin_workloads().find("resnet50_augment"); }

WorkloadSpec spec(const std::string& preset, int64_t batch, int64_t images = 2048) {
  return make_workload_spec(resnet(), preset, batch, {{"images", images}});
}

/// Trainable parameters of a torchvision-style ResNet, written out from the layer list:
/// stem conv 7x7 (no bias) + BN, bottlenecks (1x1, 3x3, 1x1 convs without bias, each + BN,
/// a 1x1 conv + BN projection where the shape changes), fc with bias. BN has 2 per channel.
int64_t resnet_params(int64_t stem, std::array<int64_t, 4> widths, std::array<int64_t, 4> blocks,
                      int64_t classes) {
  int64_t n = 3 * 7 * 7 * stem + 2 * stem;
  int64_t in = stem;
  for (int s = 0; s < 4; ++s) {
    const int64_t w = widths[s], out = 4 * w;
    for (int64_t b = 0; b < blocks[s]; ++b) {
      n += in * w + 2 * w;           // 1x1 reduce + BN
      n += 9 * w * w + 2 * w;        // 3x3 + BN
      n += w * out + 2 * out;        // 1x1 expand + BN
      if (b == 0) n += in * out + 2 * out;  // first block of every stage projects (stride or width)
      in = out;
    }
  }
  return n + in * classes + classes;
}

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0, 1);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

torch::Tensor chw(std::vector<float>& v, int c, int h, int w) { return torch::from_blob(v.data(), {c, h, w}); }

/// Independent bilinear + reflect reference: torch grid_sample with padding "reflection" and
/// align_corners=False reflects about the half-pixel border and clamps, like Keras' "reflect".
torch::Tensor grid_sample_affine(const torch::Tensor& img, const double m[6]) {
  const int64_t h = img.size(1), w = img.size(2);
  auto ys = torch::arange(h, torch::kDouble).view({h, 1}).expand({h, w});
  auto xs = torch::arange(w, torch::kDouble).view({1, w}).expand({h, w});
  auto sx = m[0] * xs + m[1] * ys + m[2], sy = m[3] * xs + m[4] * ys + m[5];
  auto grid = torch::stack({(2 * sx + 1) / w - 1, (2 * sy + 1) / h - 1}, -1).unsqueeze(0).to(torch::kFloat);
  return F::grid_sample(img.unsqueeze(0), grid,
                        F::GridSampleFuncOptions().mode(torch::kBilinear).padding_mode(torch::kReflection).align_corners(false))
      .squeeze(0);
}

void rotation_matrix(double t, int h, int w, double m[6]) {
  // Counter-clockwise on screen: output offset (dx, dy) shows input offset R(t) (dx, dy), y down.
  const double cx = (w - 1) / 2.0, cy = (h - 1) / 2.0;
  m[0] = std::cos(t), m[1] = -std::sin(t), m[2] = cx - std::cos(t) * cx + std::sin(t) * cy;
  m[3] = std::sin(t), m[4] = std::cos(t), m[5] = cy - std::sin(t) * cx - std::cos(t) * cy;
}

torch::Tensor torch_blur(const torch::Tensor& img) {  // c x h x w, reflect pad, 2-D kernel per channel
  auto k = gaussian_kernel1d(11, 0.8);
  auto k1 = torch::tensor(std::vector<float>(k.begin(), k.end()));
  const int64_t c = img.size(0);
  auto k2 = torch::outer(k1, k1).view({1, 1, 11, 11}).repeat({c, 1, 1, 1});
  auto padded = F::pad(img.unsqueeze(0), F::PadFuncOptions({5, 5, 5, 5}).mode(torch::kReflect));
  const std::vector<int64_t> one = {1, 1}, zero = {0, 0};
  return torch::conv2d(padded, k2, torch::Tensor(), at::IntArrayRef(one), at::IntArrayRef(zero),
                       at::IntArrayRef(one), c)
      .squeeze(0);
}

}  // namespace

// --- model -----------------------------------------------------------------------------

TEST(ResNet50, ParamCountsAreExact) {
  EXPECT_EQ(resnet_params(64, {64, 128, 256, 512}, {3, 4, 6, 3}, 1000), 25557032);  // the formula itself
  EXPECT_EQ(resnet().make_workload(spec("full", 2))->model_info().params, 25557032);
  EXPECT_EQ(resnet().make_workload(spec("cifar", 2))->model_info().params, 23528522);
  EXPECT_EQ(resnet().make_workload(spec("tiny", 2))->model_info().params,
            resnet_params(8, {8, 16, 32, 64}, {1, 1, 1, 1}, 10));
}

TEST(ResNet50, FlopsMatchThePublishedCount) {
  // torchvision lists ResNet50 at 4.09 G multiply-adds per 224x224 image.
  ModelInfo info = resnet().make_workload(spec("full", 2))->model_info();
  const double macs = info.flops_per_sample / 3 / 2;
  EXPECT_NEAR(macs, 4.09e9, 0.01e9);
  EXPECT_EQ(info.precision, "fp32");
  // At 32x32 every feature map is 1/49 the area of 224x224's (16 vs 112 after the stem, ...),
  // down to 1x1 vs 7x7; only the fc layer differs (10 vs 1000 classes).
  const double cifar = resnet().make_workload(spec("cifar", 2))->model_info().flops_per_sample / 6;
  EXPECT_NEAR(cifar, (macs - 2048.0 * 1000) / 49 + 2048.0 * 10, 1.0);
}

TEST(ResNet50, StepsOnAFixedBatchReduceTheLoss) {
  auto w = resnet().make_workload(spec("tiny", 32));
  Batch batch = resnet().make_pipeline(spec("tiny", 32))->make_batch(0);
  double first = w->train_step(batch), last = first;
  for (int i = 0; i < 15; ++i) last = w->train_step(batch);
  EXPECT_LT(last, first * 0.5) << "first " << first << " last " << last;
}

TEST(ResNet50, LongFullStep) {
  auto w = resnet().make_workload(spec("full", 2));
  Batch batch = resnet().make_pipeline(spec("full", 2, 4))->make_batch(0);
  EXPECT_EQ(batch.inputs.sizes(), (std::vector<int64_t>{2, 3, 224, 224}));
  const double loss = w->train_step(batch);
  EXPECT_TRUE(std::isfinite(loss));
  EXPECT_GT(loss, 0);
}

// --- pipeline --------------------------------------------------------------------------

TEST(ResNet50, BatchesAreDeterministicAndInRange) {
  auto a = resnet().make_pipeline(spec("cifar", 16));
  auto b = resnet().make_pipeline(spec("cifar", 16));
  Batch x = a->make_batch(5), y = b->make_batch(5), z = a->make_batch(6);
  EXPECT_EQ(x.inputs.sizes(), (std::vector<int64_t>{16, 3, 32, 32}));
  EXPECT_EQ(x.targets.dtype(), torch::kLong);
  EXPECT_TRUE(torch::equal(x.inputs, y.inputs));
  EXPECT_TRUE(torch::equal(x.targets, y.targets));
  EXPECT_FALSE(torch::equal(x.inputs, z.inputs));
  // Every op is a convex combination of pixels, so rescaled values stay in [0, 1].
  EXPECT_GE(x.inputs.min().item<float>(), -1e-6f);
  EXPECT_LE(x.inputs.max().item<float>(), 1 + 1e-6f);
  EXPECT_GE(x.targets.min().item<int64_t>(), 0);
  EXPECT_LE(x.targets.max().item<int64_t>(), 9);
  EXPECT_EQ(a->data_info().source, "synthetic");
  EXPECT_EQ(a->data_info().samples, 2048);
  // Same batch from another thread: no shared mutable state.
  Batch t;
  std::thread([&] { t = b->make_batch(5); }).join();
  EXPECT_TRUE(torch::equal(x.inputs, t.inputs));
}

TEST(ResNet50, AugmentSampleMatchesATorchReferenceChain) {
  const int h = 32, w = 32, c = 3;
  std::mt19937 rng(11);
  std::vector<uint8_t> img(h * w * c);
  for (auto& p : img) p = static_cast<uint8_t>(rng());
  std::mt19937_64 draw_rng(3);
  for (int trial = 0; trial < 4; ++trial) {
    AugmentDraw d = draw_augment(draw_rng);
    if (trial == 0) d.flip = true;
    std::vector<float> out(c * h * w);
    AugmentScratch scratch;
    augment_sample(img.data(), h, w, c, d, out.data(), scratch);

    auto x = torch::from_blob(img.data(), {h, w, c}, torch::kUInt8).permute({2, 0, 1}).to(torch::kFloat);
    x = torch::max_pool2d(x.unsqueeze(0), 3, 1, 1).squeeze(0);
    x = torch_blur(x) / 255;
    if (d.flip) x = x.flip({2});
    double m[6];
    rotation_matrix(d.radians, h, w, m);
    x = grid_sample_affine(x, m);
    const double cx = (w - 1) / 2.0, cy = (h - 1) / 2.0, z = d.zoom;
    const double zm[6] = {z, 0, cx - z * cx, 0, z, cy - z * cy};
    x = grid_sample_affine(x, zm);
    auto got = chw(out, c, h, w);
    EXPECT_TRUE(torch::allclose(got, x, 1e-4, 1e-4)) << "trial " << trial << " max diff "
                                                     << (got - x).abs().max().item<float>();
  }
}

// --- augmentation ops ------------------------------------------------------------------

TEST(Augment, DilationOfAHandMadeImage) {
  // Two channels, 5x5, HWC. Channel 0 has peaks 9, 5, 7; channel 1 is 3 with one 200.
  const uint8_t ch0[25] = {9, 0, 0, 0, 0,
                           0, 0, 0, 0, 0,
                           0, 0, 0, 5, 0,
                           0, 0, 0, 0, 0,
                           0, 0, 0, 0, 7};
  const uint8_t ch1[25] = {3, 3, 3, 3, 3,
                           3, 3, 3, 3, 3,
                           3, 3, 3, 3, 3,
                           3, 3, 3, 3, 3,
                           200, 3, 3, 3, 3};
  // Max over the 3x3 window clipped to the image.
  const uint8_t want0[25] = {9, 9, 0, 0, 0,
                             9, 9, 5, 5, 5,
                             0, 0, 5, 5, 5,
                             0, 0, 5, 7, 7,
                             0, 0, 0, 7, 7};
  const uint8_t want1[25] = {3, 3, 3, 3, 3,
                             3, 3, 3, 3, 3,
                             3, 3, 3, 3, 3,
                             200, 200, 3, 3, 3,
                             200, 200, 3, 3, 3};
  std::vector<uint8_t> in(50), out(50), scratch;
  for (int i = 0; i < 25; ++i) in[2 * i] = ch0[i], in[2 * i + 1] = ch1[i];
  dilate3x3(in.data(), out.data(), 5, 5, 2, scratch);
  for (int i = 0; i < 25; ++i) {
    EXPECT_EQ(out[2 * i], want0[i]) << "channel 0 pixel " << i;
    EXPECT_EQ(out[2 * i + 1], want1[i]) << "channel 1 pixel " << i;
  }
}

TEST(Augment, DilationMatchesTorchMaxPool) {
  std::mt19937 rng(5);
  for (auto [h, w] : {std::pair{32, 32}, std::pair{7, 13}, std::pair{1, 4}}) {
    std::vector<uint8_t> in(h * w * 3), out(h * w * 3), scratch;
    for (auto& p : in) p = static_cast<uint8_t>(rng());
    dilate3x3(in.data(), out.data(), h, w, 3, scratch);
    auto x = torch::from_blob(in.data(), {h, w, 3}, torch::kUInt8).permute({2, 0, 1}).to(torch::kFloat);
    auto want = torch::max_pool2d(x.unsqueeze(0), 3, 1, 1).squeeze(0).permute({1, 2, 0}).to(torch::kUInt8);
    EXPECT_TRUE(torch::equal(torch::from_blob(out.data(), {h, w, 3}, torch::kUInt8), want)) << h << "x" << w;
  }
}

TEST(Augment, HwcToChwRescalesExactly) {
  const uint8_t in[12] = {0, 255, 51, 1, 2, 3, 4, 5, 6, 7, 8, 9};  // 2x2x3
  float out[12];
  hwc_u8_to_chw_f32(in, out, 2, 2, 3, 1.0f / 255);
  EXPECT_EQ(out[0], 0.f);
  EXPECT_EQ(out[4], 1.f);      // channel 1, pixel 0
  EXPECT_FLOAT_EQ(out[8], 0.2f);  // channel 2, pixel 0: 51/255 (within 4 ulp: 1/255 is inexact)
  EXPECT_EQ(out[1], 1.f / 255);  // channel 0, pixel 1
  EXPECT_EQ(out[11], 9.f / 255);
  float v[3] = {255, 51, 0};
  rescale(v, 3, 1.0f / 255);
  EXPECT_EQ(v[0], 1.f);
  EXPECT_FLOAT_EQ(v[1], 0.2f);
}

TEST(Augment, BlurMatchesTorchConvPerChannel) {
  for (auto [h, w] : {std::pair{32, 32}, std::pair{12, 17}}) {
    auto img = random_floats(3 * h * w, 9);
    std::vector<float> out(3 * h * w), scratch;
    blur_planes(img.data(), out.data(), 3, h, w, gaussian_kernel1d(11, 0.8), scratch);
    auto want = torch_blur(chw(img, 3, h, w));
    auto got = chw(out, 3, h, w);
    EXPECT_TRUE(torch::allclose(got, want, 1e-5, 1e-5)) << (got - want).abs().max().item<float>();
  }
}

TEST(Augment, FlipIsExact) {
  std::vector<float> in = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};  // 2 channels x 2 rows x 3
  std::vector<float> out(12);
  flip_horizontal(in.data(), out.data(), 2, 2, 3);
  EXPECT_EQ(out, (std::vector<float>{3, 2, 1, 6, 5, 4, 9, 8, 7, 12, 11, 10}));
  flip_horizontal(in.data(), in.data(), 2, 2, 3);  // in place
  EXPECT_EQ(in, out);
}

TEST(Augment, ReflectCoordinateRepeatsTheEdge) {
  // n = 4: pixels 0..3, border at -0.5 and 3.5; d c b a | a b c d | d c b a.
  EXPECT_DOUBLE_EQ(reflect_coordinate(2.25, 4), 2.25);
  EXPECT_DOUBLE_EQ(reflect_coordinate(-1.0, 4), 0.0);   // mirror of pixel 0 is pixel 0
  EXPECT_DOUBLE_EQ(reflect_coordinate(-2.0, 4), 1.0);
  EXPECT_DOUBLE_EQ(reflect_coordinate(-1.5, 4), 0.5);
  EXPECT_DOUBLE_EQ(reflect_coordinate(-0.25, 4), 0.0);  // inside the border half-pixel: clamped
  EXPECT_DOUBLE_EQ(reflect_coordinate(4.0, 4), 3.0);
  EXPECT_DOUBLE_EQ(reflect_coordinate(5.0, 4), 2.0);
  EXPECT_DOUBLE_EQ(reflect_coordinate(8.0, 4), 0.0);    // one period on: 4 5 6 7 mirror 3 2 1 0
  EXPECT_DOUBLE_EQ(reflect_coordinate(9.0, 4), 1.0);
}

TEST(Augment, RotationByZeroIsIdentity) {
  auto img = random_floats(3 * 9 * 11, 2);
  std::vector<float> out(img.size());
  rotate_bilinear(img.data(), out.data(), 3, 9, 11, 0.0);
  EXPECT_EQ(out, img);
}

TEST(Augment, RotationBy90DegreesIsTransposeThenVerticalFlip) {
  const int n = 8, c = 3;
  auto img = random_floats(c * n * n, 4);
  std::vector<float> out(img.size());
  rotate_bilinear(img.data(), out.data(), c, n, n, M_PI / 2);
  // Counter-clockwise quarter turn on screen: out[y][x] = in[x][n - 1 - y] (numpy's rot90).
  for (int ch = 0; ch < c; ++ch)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const float transposed_then_flipped = img[(ch * n + x) * n + (n - 1 - y)];
        EXPECT_NEAR(out[(ch * n + y) * n + x], transposed_then_flipped, 1e-6) << ch << " " << y << " " << x;
      }
}

TEST(Augment, RotationMatchesTorchGridSample) {
  const int c = 3, h = 9, w = 13;
  auto img = random_floats(c * h * w, 6);
  for (double t : {0.3, -0.62, 2.5}) {
    std::vector<float> out(img.size());
    rotate_bilinear(img.data(), out.data(), c, h, w, t);
    double m[6];
    rotation_matrix(t, h, w, m);
    auto want = grid_sample_affine(chw(img, c, h, w), m);
    auto got = chw(out, c, h, w);
    EXPECT_TRUE(torch::allclose(got, want, 1e-5, 1e-5)) << t << ": " << (got - want).abs().max().item<float>();
  }
}

TEST(Augment, ZoomOneIsIdentityAndBilinearValuesByHand) {
  std::vector<float> img = {0, 4, 8, 2,
                            6, 1, 3, 7,
                            5, 9, 2, 0,
                            1, 1, 1, 1};
  std::vector<float> out(16);
  zoom_bilinear(img.data(), out.data(), 1, 4, 4, 1.0);
  EXPECT_EQ(out, img);
  // Factor 0.5 about the centre (1.5, 1.5): output (0, 0) samples (0.75, 0.75):
  // 0.25*0.25*0 + 0.75*0.25*4 + 0.25*0.75*6 + 0.75*0.75*1 = 2.4375.
  zoom_bilinear(img.data(), out.data(), 1, 4, 4, 0.5);
  EXPECT_FLOAT_EQ(out[0], 2.4375f);
  // Factor 2: output (0, 0) samples (-1.5, -1.5), which reflects about -0.5 to (0.5, 0.5):
  // (0 + 4 + 6 + 1) / 4. Output (x 3, y 0) samples (4.5, -1.5) -> (2.5, 0.5): (8 + 2 + 3 + 7) / 4.
  zoom_bilinear(img.data(), out.data(), 1, 4, 4, 2.0);
  EXPECT_FLOAT_EQ(out[0], 2.75f);
  EXPECT_FLOAT_EQ(out[3], 5.0f);
}

TEST(Augment, ZoomMatchesTorchGridSample) {
  const int c = 2, h = 10, w = 7;
  auto img = random_floats(c * h * w, 8);
  for (double z : {0.9, 1.07, 1.6}) {
    std::vector<float> out(img.size());
    zoom_bilinear(img.data(), out.data(), c, h, w, z);
    const double cx = (w - 1) / 2.0, cy = (h - 1) / 2.0;
    const double m[6] = {z, 0, cx - z * cx, 0, z, cy - z * cy};
    auto want = grid_sample_affine(chw(img, c, h, w), m);
    auto got = chw(out, c, h, w);
    EXPECT_TRUE(torch::allclose(got, want, 1e-5, 1e-5)) << z << ": " << (got - want).abs().max().item<float>();
  }
}

TEST(Augment, DrawsStayInTheirRanges) {
  std::mt19937_64 rng(1);
  int flips = 0;
  double min_angle = 1, max_angle = -1, min_zoom = 2, max_zoom = 0;
  for (int i = 0; i < 4000; ++i) {
    AugmentDraw d = draw_augment(rng);
    flips += d.flip;
    min_angle = std::min(min_angle, d.radians), max_angle = std::max(max_angle, d.radians);
    min_zoom = std::min(min_zoom, d.zoom), max_zoom = std::max(max_zoom, d.zoom);
  }
  EXPECT_NEAR(flips, 2000, 150);
  const double turn = 0.1 * 2 * M_PI;
  EXPECT_GE(min_angle, -turn);
  EXPECT_LE(max_angle, turn);
  EXPECT_LT(min_angle, -0.95 * turn);
  EXPECT_GT(max_angle, 0.95 * turn);
  EXPECT_GE(min_zoom, 0.9);
  EXPECT_LE(max_zoom, 1.1);
  EXPECT_LT(min_zoom, 0.905);
  EXPECT_GT(max_zoom, 1.095);
}
