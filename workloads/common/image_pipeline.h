#pragma once
// The image workloads' input pipeline (mnist_heavy, resnet50_augment): what they share, so each
// says only how one sample is made.
#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "workloads/common/byte_table.h"
#include "workloads/common/image_set.h"
#include "workloads/workload.h"

namespace pperf {

/// Batches of an ImageSet's images in the seed's shuffled order: each sample made into
/// channels x side x side bytes by the workload's make_sample (its chain computed in pixel values
/// and rounded to bytes, as a uint8 pipeline hands images over), with its label. On the "uint8"
/// wire the bytes go as they are and the step makes the last conversion; otherwise the pipeline
/// makes it here (`last_conversion`, float32). A batch's random draws come from one generator
/// seeded by (seed, index), so a batch is the same on any thread or host. `Scratch` is the
/// per-batch working memory make_sample reuses across samples.
template <typename Scratch>
class ImagePipeline : public InputPipeline {
 public:
  ImagePipeline(std::shared_ptr<const ImageSet> data, int64_t batch_size, uint64_t seed, std::string wire,
                ByteTable last_conversion)
      : data_(std::move(data)), batch_size_(batch_size), seed_(seed), wire_(std::move(wire)),
        last_conversion_(std::move(last_conversion)), order_(shuffled_order(data_->size(), seed)) {}

  Batch make_batch(int64_t index) const final {
    Batch batch;
    batch.index = index;
    torch::Tensor bytes = torch::empty({batch_size_, data_->channels, data_->side, data_->side}, torch::kByte);
    batch.targets = torch::empty({batch_size_}, torch::kLong);
    uint8_t* out = bytes.data_ptr<uint8_t>();
    int64_t* targets = batch.targets.data_ptr<int64_t>();
    std::mt19937_64 rng(batch_seed(seed_, index));
    Scratch scratch;
    for (int64_t i = 0; i < batch_size_; ++i) {
      const int64_t sample = order_[sample_position(index, batch_size_, i, data_->size())];
      make_sample(*data_, data_->image(sample), out + i * data_->image_bytes(), rng, scratch);
      targets[i] = data_->labels[sample];
    }
    batch.inputs = wire_ == "uint8" ? bytes : last_conversion_.apply_on_cpu(bytes);
    return batch;
  }

  DataInfo data_info() const final { return data_->info; }

 protected:
  /// Writes one sample's bytes (channels x side x side, CHW) made from `image` (the set's HWC
  /// bytes) to `out`, drawing what it randomizes from `rng` in a fixed order.
  virtual void make_sample(const ImageSet& set, const uint8_t* image, uint8_t* out, std::mt19937_64& rng,
                           Scratch& scratch) const = 0;

 private:
  std::shared_ptr<const ImageSet> data_;
  int64_t batch_size_;
  uint64_t seed_;
  std::string wire_;
  ByteTable last_conversion_;
  std::vector<int64_t> order_;
};

}  // namespace pperf
