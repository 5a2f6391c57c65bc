#include "workloads/common/local_loader.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

namespace pperf {

LocalLoader::LocalLoader(std::shared_ptr<const InputPipeline> pipeline, int64_t workers, int64_t prefetch_batches,
                         int64_t first_index, int64_t stride, bool pin_memory)
    : pipeline_(std::move(pipeline)),
      // Every thread can have a batch in preparation, whatever the prefetch depth: a bound below
      // the thread count would leave threads idle while the trainer waits.
      capacity_(std::max<int64_t>({prefetch_batches, workers, 1})),
      first_index_(first_index),
      stride_(stride),
      pin_memory_(pin_memory),
      positions_(first_index >= 0 && first_index <= kMaxBatchIndex && stride >= 1 && stride <= kMaxBatchIndex
                     ? (kMaxBatchIndex - first_index) / stride + 1
                     : 0) {
  if (positions_ == 0)
    throw std::invalid_argument("batch indices need 0 <= first_index <= 2^40 and 1 <= stride <= 2^40, got first_index " +
                                std::to_string(first_index) + ", stride " + std::to_string(stride));
  for (int64_t i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
}

LocalLoader::~LocalLoader() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  slot_free_.notify_all();
  batch_ready_.notify_all();
  for (auto& t : threads_) t.join();
}

void LocalLoader::work() {
  pthread_setname_np(pthread_self(), kLoaderThreadName);
  // Preprocessing is plain C++ on raw buffers: keep libtorch from spawning its own pool here.
  at::set_num_threads(1);
  for (;;) {
    int64_t position;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // A batch may be claimed only while fewer than `capacity_` are ahead of the trainer.
      slot_free_.wait(lock, [&] { return stopping_ || (!paused_ && next_to_claim_ < next_to_deliver_ + capacity_); });
      if (stopping_ || next_to_claim_ >= positions_) return;
      position = next_to_claim_++;
    }
    try {
      Batch batch = pipeline_->make_batch(first_index_ + position * stride_);
      if (pin_memory_) batch = pin_batch(std::move(batch));
      std::lock_guard<std::mutex> lock(mutex_);
      ready_.emplace(position, std::move(batch));
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      // Keep the earliest failing batch: the batches before it are still delivered.
      if (!error_ || position < error_position_) error_ = std::current_exception(), error_position_ = position;
      stopping_ = true;
    }
    batch_ready_.notify_all();
    if (stopping_) slot_free_.notify_all();
  }
}

std::optional<Batch> LocalLoader::next() {
  bool timed_out = false;
  return next_within(-1, timed_out);
}

std::optional<Batch> LocalLoader::next_within(int64_t timeout_ms, bool& timed_out) {
  std::unique_lock<std::mutex> lock(mutex_);
  // Batches claimed before a failure are still finished by their threads, so wait for those.
  const auto due = [&] {
    return ready_.count(next_to_deliver_) || (error_ && next_to_deliver_ >= error_position_) ||
           (stopping_ && !error_) || next_to_deliver_ >= positions_;
  };
  timed_out = false;
  if (timeout_ms < 0) {
    batch_ready_.wait(lock, due);
  } else if (!batch_ready_.wait_for(lock, std::chrono::milliseconds(timeout_ms), due)) {
    timed_out = true;
    return std::nullopt;
  }
  auto it = ready_.find(next_to_deliver_);
  if (it == ready_.end()) {
    if (error_) std::rethrow_exception(error_);
    return std::nullopt;
  }
  Batch batch = std::move(it->second);
  ready_.erase(it);
  ++next_to_deliver_;
  lock.unlock();
  slot_free_.notify_all();
  return batch;
}

void LocalLoader::pause() {
  std::lock_guard<std::mutex> lock(mutex_);
  paused_ = true;
  ready_at_pause_ = ready_.size();
}

std::optional<int64_t> LocalLoader::resume() {
  int64_t head_start = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!paused_) return 0;
    paused_ = false;
    head_start = static_cast<int64_t>(ready_.size()) - static_cast<int64_t>(ready_at_pause_);
  }
  slot_free_.notify_all();
  return std::max<int64_t>(head_start, 0);
}

}  // namespace pperf
