#include <gtest/gtest.h>
#include <torch/torch.h>

#include <random>

#include "workloads/common/gaussian_blur.h"

using namespace pperf;

TEST(GaussianKernel, MatchesClosedForm) {
  // size 3, sigma 1: exp(-1/2) / (1 + 2 exp(-1/2)) at the sides.
  auto k = gaussian_kernel1d(3, 1.0);
  const double side = std::exp(-0.5) / (1 + 2 * std::exp(-0.5));
  EXPECT_NEAR(k[0], side, 1e-7);
  EXPECT_NEAR(k[1], 1 - 2 * side, 1e-7);
  EXPECT_NEAR(k[2], side, 1e-7);
  // torchvision's 11-tap kernel at sigma 0.8 (values computed independently in double precision):
  auto k11 = gaussian_kernel1d(11, 0.8);
  double sum = 0;
  for (float v : k11) sum += v;
  EXPECT_NEAR(sum, 1.0, 1e-6);
  EXPECT_NEAR(k11[5], 0.49867, 5e-5);
  EXPECT_NEAR(k11[4], 0.22831, 5e-5);
  EXPECT_NEAR(k11[0], 1.642e-9, 1e-11);
}

// An independent route to the same answer: reflect-pad with libtorch and convolve with the
// full 2-D outer-product kernel. The production code is separable and pads by index arithmetic.
TEST(GaussianBlur, MatchesTorchReflectPaddedConv2d) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-2, 3);
  for (double sigma : {0.1, 0.8, 1.37, 2.0}) {
    for (auto [h, w] : {std::pair{28, 28}, std::pair{13, 17}}) {
      std::vector<float> image(h * w), out(h * w), scratch;
      for (auto& p : image) p = u(rng);
      auto kernel = gaussian_kernel1d(11, sigma);
      gaussian_blur(image.data(), out.data(), h, w, kernel, scratch);

      auto k1 = torch::tensor(std::vector<float>(kernel.begin(), kernel.end()));
      auto k2 = torch::outer(k1, k1).view({1, 1, 11, 11});
      auto x = torch::from_blob(image.data(), {1, 1, h, w}).clone();
      auto padded = torch::nn::functional::pad(
          x, torch::nn::functional::PadFuncOptions({5, 5, 5, 5}).mode(torch::kReflect));
      auto expected = torch::conv2d(padded, k2).view({h, w});
      auto got = torch::from_blob(out.data(), {h, w});
      EXPECT_TRUE(torch::allclose(got, expected, 1e-5, 1e-5))
          << "sigma " << sigma << " size " << h << "x" << w << " max diff "
          << (got - expected).abs().max().item<float>();
    }
  }
}

TEST(GaussianBlur, ConstantImageStaysConstantAndPeakSpreads) {
  std::vector<float> flat(28 * 28, 0.5f), out(28 * 28), scratch;
  gaussian_blur(flat.data(), out.data(), 28, 28, gaussian_kernel1d(11, 2.0), scratch);
  for (float v : out) EXPECT_NEAR(v, 0.5f, 1e-6);

  std::vector<float> dot(28 * 28, 0.f);
  dot[14 * 28 + 14] = 1.f;
  auto k = gaussian_kernel1d(11, 1.0);
  gaussian_blur(dot.data(), out.data(), 28, 28, k, scratch);
  EXPECT_NEAR(out[14 * 28 + 14], k[5] * k[5], 1e-7);
  EXPECT_NEAR(out[14 * 28 + 16], k[5] * k[7], 1e-7);
}
