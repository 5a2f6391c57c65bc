#include "bench/measure/memory_probe.h"

#include <fmt/format.h>

#include "bench/env/host_info.h"
#include "workloads/workload.h"

namespace pperf {

std::string MemoryEstimate::describe() const {
  constexpr double kGiB = 1024.0 * 1024 * 1024, kMiB = 1024.0 * 1024;
  return fmt::format("needs about {:.1f} GiB at batch {} ({:.1f} MiB per sample, measured at batches 2 and 4); "
                     "{:.1f} GiB available",
                     predicted_peak_bytes / kGiB, batch_size, bytes_per_sample / kMiB, available_bytes / kGiB);
}

MemoryEstimate estimate_step_memory(const WorkloadDescriptor& descriptor, const WorkloadSpec& spec) {
  MemoryEstimate e;
  e.batch_size = spec.batch_size;
  e.available_bytes = available_memory_bytes();
  if (spec.batch_size <= 4) return e;
  auto peak_after_step = [&](int64_t batch) {
    WorkloadSpec small = spec;
    small.batch_size = batch;
    std::unique_ptr<Workload> workload = descriptor.make_workload(small);
    workload->train_step(descriptor.make_pipeline(small)->make_batch(0));
    return peak_rss_bytes();
  };
  const int64_t at2 = peak_after_step(2), at4 = peak_after_step(4);
  e.bytes_per_sample = std::max<int64_t>(0, (at4 - at2) / 2);
  e.predicted_peak_bytes = at4 + e.bytes_per_sample * (spec.batch_size - 4);
  return e;
}

}  // namespace pperf
