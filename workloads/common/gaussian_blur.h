#pragma once
// Gaussian blur of single-channel float images, separable, with reflect padding (the border
// mode of torchvision's GaussianBlur). Pure C++ so preprocessing threads never touch libtorch.
#include <cstdint>
#include <vector>

namespace pperf {

/// Normalised 1-D Gaussian taps at offsets -(size-1)/2 .. (size-1)/2. size odd, sigma > 0.
std::vector<float> gaussian_kernel1d(int size, double sigma);

/// out = blur(in) for an h x w image; `in` and `out` may not alias. Requires
/// kernel.size() / 2 < min(h, w) (reflect padding needs that many interior pixels).
/// `scratch` is resized to h x w and reused across calls to avoid allocation per sample.
void gaussian_blur(const float* in, float* out, int h, int w, const std::vector<float>& kernel,
                   std::vector<float>& scratch);

}  // namespace pperf
