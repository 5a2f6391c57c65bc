#include "workloads/common/gaussian_blur.h"

#include <cmath>

namespace pperf {

std::vector<float> gaussian_kernel1d(int size, double sigma) {
  std::vector<double> taps(size);
  const double half = (size - 1) / 2.0;
  double sum = 0;
  for (int i = 0; i < size; ++i) {
    const double x = (i - half) / sigma;
    taps[i] = std::exp(-0.5 * x * x);
    sum += taps[i];
  }
  std::vector<float> kernel(size);
  for (int i = 0; i < size; ++i) kernel[i] = static_cast<float>(taps[i] / sum);
  return kernel;
}

namespace {
// Reflect without repeating the edge: -1 -> 1, n -> n - 2.
inline int reflect(int i, int n) { return i < 0 ? -i : (i >= n ? 2 * n - 2 - i : i); }
}  // namespace

void gaussian_blur(const float* in, float* out, int h, int w, const std::vector<float>& kernel,
                   std::vector<float>& scratch) {
  const int radius = static_cast<int>(kernel.size()) / 2;
  scratch.resize(static_cast<size_t>(h) * w);
  // Horizontal pass into scratch; interior columns skip the reflect arithmetic.
  for (int y = 0; y < h; ++y) {
    const float* row = in + static_cast<size_t>(y) * w;
    float* dst = scratch.data() + static_cast<size_t>(y) * w;
    for (int x = 0; x < w; ++x) {
      float acc = 0;
      if (x >= radius && x + radius < w) {
        const float* src = row + x - radius;
        for (size_t k = 0; k < kernel.size(); ++k) acc += kernel[k] * src[k];
      } else {
        for (int k = -radius; k <= radius; ++k) acc += kernel[k + radius] * row[reflect(x + k, w)];
      }
      dst[x] = acc;
    }
  }
  // Vertical pass: accumulate whole rows so the inner loop runs along contiguous memory.
  for (int y = 0; y < h; ++y) {
    float* dst = out + static_cast<size_t>(y) * w;
    for (int x = 0; x < w; ++x) dst[x] = 0;
    for (int k = -radius; k <= radius; ++k) {
      const float weight = kernel[k + radius];
      const float* src = scratch.data() + static_cast<size_t>(reflect(y + k, h)) * w;
      for (int x = 0; x < w; ++x) dst[x] += weight * src[x];
    }
  }
}

}  // namespace pperf
