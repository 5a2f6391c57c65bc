#include "workloads/common/augment.h"

#include <algorithm>
#include <cmath>

#include "workloads/common/gaussian_blur.h"
#include "workloads/common/image_set.h"

namespace pperf {

namespace {
constexpr double kPi = 3.14159265358979323846;
constexpr int kBlurTaps = 11;
constexpr double kBlurSigma = 0.8;
constexpr double kMaxTurn = 0.1;             // rotation: +-0.1 of a full turn
constexpr double kZoomMin = 0.9, kZoomMax = 1.1;
}  // namespace

void dilate3x3(const uint8_t* in, uint8_t* out, int h, int w, int c, std::vector<uint8_t>& scratch) {
  // A flat 3x3 max is separable: a 3-max along each row, then a 3-max down the columns. Both
  // passes run over contiguous bytes (neighbours along a row are c bytes apart in HWC), so the
  // compiler vectorises them.
  const int row_len = w * c;
  scratch.resize(static_cast<size_t>(h) * row_len);
  for (int y = 0; y < h; ++y) {
    const uint8_t* src = in + static_cast<size_t>(y) * row_len;
    uint8_t* dst = scratch.data() + static_cast<size_t>(y) * row_len;
    if (w == 1) {
      std::copy(src, src + c, dst);
      continue;
    }
    for (int j = 0; j < c; ++j) dst[j] = std::max(src[j], src[j + c]);
    for (int j = c; j < row_len - c; ++j) dst[j] = std::max(std::max(src[j - c], src[j]), src[j + c]);
    for (int j = row_len - c; j < row_len; ++j) dst[j] = std::max(src[j - c], src[j]);
  }
  for (int y = 0; y < h; ++y) {
    const uint8_t* mid = scratch.data() + static_cast<size_t>(y) * row_len;
    const uint8_t* up = y > 0 ? mid - row_len : mid;          // clipped window: reuse the row itself
    const uint8_t* down = y + 1 < h ? mid + row_len : mid;
    uint8_t* dst = out + static_cast<size_t>(y) * row_len;
    for (int j = 0; j < row_len; ++j) dst[j] = std::max(std::max(up[j], mid[j]), down[j]);
  }
}

void hwc_u8_to_chw_f32(const uint8_t* in, float* out, int h, int w, int c, float scale) {
  const size_t plane = static_cast<size_t>(h) * w;
  if (c == 1) {
    for (size_t i = 0; i < plane; ++i) out[i] = in[i] * scale;
    return;
  }
  for (size_t i = 0; i < plane; ++i)
    for (int ch = 0; ch < c; ++ch) out[ch * plane + i] = in[i * c + ch] * scale;
}

void blur_planes(const float* in, float* out, int c, int h, int w, const std::vector<float>& kernel,
                 std::vector<float>& scratch) {
  const size_t plane = static_cast<size_t>(h) * w;
  for (int ch = 0; ch < c; ++ch) gaussian_blur(in + ch * plane, out + ch * plane, h, w, kernel, scratch);
}

void rescale(float* data, int64_t n, float scale) {
  for (int64_t i = 0; i < n; ++i) data[i] *= scale;
}

void flip_horizontal(const float* in, float* out, int c, int h, int w) {
  for (int64_t r = 0; r < static_cast<int64_t>(c) * h; ++r) {
    const float* src = in + r * w;
    float* dst = out + r * w;
    if (src == dst) {
      std::reverse(dst, dst + w);
    } else {
      for (int x = 0; x < w; ++x) dst[x] = src[w - 1 - x];
    }
  }
}

void warp_affine_bilinear_reflect(const float* in, float* out, int c, int h, int w, const double m[6]) {
  const size_t plane = static_cast<size_t>(h) * w;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const double sx = m[0] * x + m[1] * y + m[2];
      const double sy = m[3] * x + m[4] * y + m[5];
      const double rx = reflect_coordinate(sx, w), ry = reflect_coordinate(sy, h);
      const int x0 = static_cast<int>(rx), y0 = static_cast<int>(ry);  // rx, ry >= 0: truncation is floor
      const float fx = static_cast<float>(rx - x0), fy = static_cast<float>(ry - y0);
      const int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
      const size_t p00 = static_cast<size_t>(y0) * w + x0, p01 = static_cast<size_t>(y0) * w + x1;
      const size_t p10 = static_cast<size_t>(y1) * w + x0, p11 = static_cast<size_t>(y1) * w + x1;
      const float w00 = (1 - fx) * (1 - fy), w01 = fx * (1 - fy), w10 = (1 - fx) * fy, w11 = fx * fy;
      const size_t o = static_cast<size_t>(y) * w + x;
      for (int ch = 0; ch < c; ++ch) {
        const float* p = in + ch * plane;
        out[ch * plane + o] = w00 * p[p00] + w01 * p[p01] + w10 * p[p10] + w11 * p[p11];
      }
    }
  }
}

void rotate_bilinear(const float* in, float* out, int c, int h, int w, double radians) {
  // Counter-clockwise on screen by t: the output at offset (dx, dy) from the centre shows the
  // input at (cos t dx - sin t dy, sin t dx + cos t dy) from the centre (y pointing down).
  const double cx = (w - 1) / 2.0, cy = (h - 1) / 2.0;
  const double cs = std::cos(radians), sn = std::sin(radians);
  const double m[6] = {cs, -sn, cx - cs * cx + sn * cy,
                       sn, cs, cy - sn * cx - cs * cy};
  warp_affine_bilinear_reflect(in, out, c, h, w, m);
}

void zoom_bilinear(const float* in, float* out, int c, int h, int w, double factor) {
  const double cx = (w - 1) / 2.0, cy = (h - 1) / 2.0;
  const double m[6] = {factor, 0, cx - factor * cx, 0, factor, cy - factor * cy};
  warp_affine_bilinear_reflect(in, out, c, h, w, m);
}

AugmentDraw draw_augment(std::mt19937_64& rng) {
  AugmentDraw d;
  d.flip = std::uniform_int_distribution<int>(0, 1)(rng) == 1;
  d.radians = std::uniform_real_distribution<double>(-kMaxTurn, kMaxTurn)(rng) * 2 * kPi;
  d.zoom = std::uniform_real_distribution<double>(kZoomMin, kZoomMax)(rng);
  return d;
}

namespace {
/// The chain, with the rescale by `scale` (1: none) after the blur.
void augment_chain(const uint8_t* hwc, int h, int w, int c, const AugmentDraw& draw, float scale, float* out,
                   AugmentScratch& s) {
  const size_t n = static_cast<size_t>(h) * w * c;
  if (s.kernel.empty()) s.kernel = gaussian_kernel1d(kBlurTaps, kBlurSigma);
  s.dilated.resize(n);
  s.a.resize(n);
  s.b.resize(n);
  dilate3x3(hwc, s.dilated.data(), h, w, c, s.dilate_tmp);
  hwc_u8_to_chw_f32(s.dilated.data(), s.a.data(), h, w, c, 1.0f);
  blur_planes(s.a.data(), s.b.data(), c, h, w, s.kernel, s.blur_tmp);
  if (scale != 1.0f) rescale(s.b.data(), static_cast<int64_t>(n), scale);
  if (draw.flip) flip_horizontal(s.b.data(), s.b.data(), c, h, w);
  rotate_bilinear(s.b.data(), s.a.data(), c, h, w, draw.radians);
  zoom_bilinear(s.a.data(), out, c, h, w, draw.zoom);
}
}  // namespace

void augment_sample(const uint8_t* hwc, int h, int w, int c, const AugmentDraw& draw, float* out,
                    AugmentScratch& s) {
  augment_chain(hwc, h, w, c, draw, 1.0f / 255.0f, out, s);
}

void augment_sample_bytes(const uint8_t* hwc, int h, int w, int c, const AugmentDraw& draw, uint8_t* out,
                          AugmentScratch& s) {
  const size_t n = static_cast<size_t>(h) * w * c;
  s.pixels.resize(n);
  augment_chain(hwc, h, w, c, draw, 1.0f, s.pixels.data(), s);
  for (size_t i = 0; i < n; ++i) out[i] = round_to_byte(s.pixels[i]);
}

}  // namespace pperf
