#pragma once
// Per-sample image augmentation on raw buffers, torch-free so loader threads and data workers
// never touch libtorch. The chain of seed 000 ex.1 (Keras/TF on 32x32x3 uint8 images):
//   3x3 dilation -> 11x11 Gaussian blur (sigma 0.8) -> rescale 1/255 -> random horizontal flip
//   -> random rotation (+-0.1 turn) -> random zoom (factor in [0.9, 1.1]).
//
// Layouts: HWC = interleaved uint8 pixels as images are decoded; CHW = float planes as tensors
// hold them. Coordinates are pixel centres: pixel (x, y) sits at (x, y); the image centre is
// ((w - 1) / 2, (h - 1) / 2), as in Keras' image transforms.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace pperf {

/// Grey-scale morphological dilation with a flat 3x3 structuring element (all zeros): each
/// output pixel is the max of its 3x3 neighbourhood, per channel. Border rule: only pixels
/// inside the image count (the window is clipped), the same as padding with -inf (TF
/// dilation2d "SAME") or torch max_pool2d(kernel 3, stride 1, padding 1).
/// `in` and `out` are h x w x c (HWC) and must not alias; `scratch` is reused between calls.
void dilate3x3(const uint8_t* in, uint8_t* out, int h, int w, int c, std::vector<uint8_t>& scratch);

/// HWC uint8 -> CHW float, out = in * scale (scale 1/255 is the chain's "rescale").
void hwc_u8_to_chw_f32(const uint8_t* in, float* out, int h, int w, int c, float scale);

/// Gaussian blur of each of the c planes of a CHW image with reflect padding (without edge
/// repeat: -1 -> 1, torchvision's GaussianBlur border), via gaussian_blur.h. in/out must not alias.
void blur_planes(const float* in, float* out, int c, int h, int w, const std::vector<float>& kernel,
                 std::vector<float>& scratch);

/// data[i] *= scale, in place.
void rescale(float* data, int64_t n, float scale);

/// Mirror each row of a CHW image left-right. `in` may equal `out` (in place).
void flip_horizontal(const float* in, float* out, int c, int h, int w);

/// Keras' fill_mode "reflect" (d c b a | a b c d | d c b a) on a continuous pixel coordinate:
/// reflect about the image border, which lies half a pixel outside the outer pixel centres
/// (-0.5 and n - 0.5), periodically, then clamp to [0, n - 1]. This is TF's
/// ImageProjectiveTransform REFLECT mapping and torch grid_sample(padding_mode="reflection",
/// align_corners=False).
inline double reflect_coordinate(double x, int n) {
  if (x >= 0 && x <= n - 1) return x;
  const double period = 2.0 * n;
  double t = std::fmod(x + 0.5, period);  // border-relative, in (-period, period)
  if (t < 0) t += period;
  if (t > n) t = period - t;
  t -= 0.5;
  return t < 0 ? 0 : (t > n - 1 ? n - 1 : t);
}

/// Output pixel (x, y) of each plane = the input sampled bilinearly at
///   (m[0] x + m[1] y + m[2],  m[3] x + m[4] y + m[5]),
/// that point first mapped into the image by reflect_coordinate on each axis. in/out must not alias.
void warp_affine_bilinear_reflect(const float* in, float* out, int c, int h, int w, const double m[6]);

/// Rotate each plane by `radians` counter-clockwise as displayed (y axis pointing down), about
/// the image centre, bilinear, reflect fill (warp_affine_bilinear_reflect).
void rotate_bilinear(const float* in, float* out, int c, int h, int w, double radians);

/// Zoom about the image centre: output (x, y) samples the input at centre + factor * (p - centre),
/// so factor > 1 zooms out (shows more of the scene, Keras' convention) and < 1 zooms in.
/// Bilinear, reflect fill. Factor 1 is the identity.
void zoom_bilinear(const float* in, float* out, int c, int h, int w, double factor);

/// The random draws of one sample, in the order they are drawn.
struct AugmentDraw {
  bool flip = false;    // p = 0.5
  double radians = 0;   // uniform in +-0.1 turn (+-36 degrees)
  double zoom = 1;      // uniform in [0.9, 1.1]
};
AugmentDraw draw_augment(std::mt19937_64& rng);

/// Buffers one thread reuses across samples.
struct AugmentScratch {
  std::vector<uint8_t> dilated, dilate_tmp;
  std::vector<float> a, b, blur_tmp, pixels;
  std::vector<float> kernel;  // 11 taps, sigma 0.8
};

/// The whole chain on one h x w x c uint8 image, written as c x h x w floats to `out`.
void augment_sample(const uint8_t* hwc, int h, int w, int c, const AugmentDraw& draw, float* out,
                    AugmentScratch& scratch);

/// The chain without its rescale, in pixel values, each rounded to the nearest byte: c x h x w
/// bytes to `out` (an image pipeline's output before its last conversion). Every op after the
/// dilation is a convex combination of pixels, so the values stay in [0, 255]; rescaling these
/// bytes by 1/255 differs from augment_sample by at most the rounding, 0.5 / 255.
void augment_sample_bytes(const uint8_t* hwc, int h, int w, int c, const AugmentDraw& draw, uint8_t* out,
                          AugmentScratch& scratch);

}  // namespace pperf
