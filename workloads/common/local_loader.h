#pragma once
// The local data source: N loader threads run the workload's input pipeline ahead of the
// trainer, bounded by a prefetch depth. Batches come out in index order, so a run is the same
// whatever the thread count; memory is bounded by max(prefetch_batches, workers) batches in
// flight (made or in preparation), so every thread can work.
#include <condition_variable>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "workloads/workload.h"

namespace pperf {

/// What loader threads are called (/proc/self/task/*/comm), so their CPU time can be told
/// from the trainer's.
constexpr const char* kLoaderThreadName = "pperf-loader";

class LocalLoader : public DataSource {
 public:
  /// Starts `workers` threads at once. Delivers batch indices first_index, first_index + stride,
  /// ... (a data worker serving one of P streams uses stride P) up to kMaxBatchIndex, then ends.
  /// Throws std::invalid_argument unless 0 <= first_index <= kMaxBatchIndex and
  /// 1 <= stride <= kMaxBatchIndex. With `pin_memory` (a CUDA trainer) each batch is copied to
  /// page-locked memory in its loader thread, as DataLoader(pin_memory=True) does off the
  /// training thread, so the step's host-to-device copy is asynchronous and unpinned.
  LocalLoader(std::shared_ptr<const InputPipeline> pipeline, int64_t workers, int64_t prefetch_batches,
              int64_t first_index = 0, int64_t stride = 1, bool pin_memory = false);
  /// Stops the threads and joins them; batches in flight are dropped.
  ~LocalLoader() override;

  std::optional<Batch> next() override;
  /// Like next(), but gives up after `timeout_ms` and returns nullopt with `timed_out` set, so a
  /// caller can check for cancellation between waits.
  std::optional<Batch> next_within(int64_t timeout_ms, bool& timed_out);
  /// Paused, no thread starts a new batch; resume() returns the batches finished meanwhile
  /// (at most one per thread: the ones in preparation at the pause).
  void pause() override;
  std::optional<int64_t> resume() override;

 private:
  void work();

  std::shared_ptr<const InputPipeline> pipeline_;
  const int64_t capacity_;
  std::mutex mutex_;
  std::condition_variable batch_ready_;
  std::condition_variable slot_free_;
  const int64_t first_index_, stride_;
  const bool pin_memory_;
  const int64_t positions_;  // how many indices the sequence holds before kMaxBatchIndex
  // Positions in the delivered sequence (batch index = first_index_ + position * stride_).
  std::map<int64_t, Batch> ready_;
  int64_t next_to_claim_ = 0;
  int64_t next_to_deliver_ = 0;
  bool stopping_ = false;
  bool paused_ = false;
  size_t ready_at_pause_ = 0;
  std::exception_ptr error_;  // of the earliest failing batch, rethrown when it is due
  int64_t error_position_ = 0;
  std::vector<std::thread> threads_;
};

}  // namespace pperf
