#include "src/measure/pipeline_probe.h"

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cmath>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "workloads/workload.h"

namespace pperf {

namespace {
double thread_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

/// This process's CPU time: the probe's threads and any pool (torch's intra-op) they hand work to.
double process_cpu_s() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  const auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return s(u.ru_utime) + s(u.ru_stime);
}
}  // namespace

PipelineProbe probe_pipeline(const WorkloadDescriptor& descriptor, const WorkloadSpec& spec, int threads, double seconds,
                             int64_t min_batches) {
  const std::shared_ptr<InputPipeline> pipeline = descriptor.make_pipeline(spec);
  threads = std::max(1, threads);
  std::vector<std::vector<double>> per_thread(static_cast<size_t>(threads));  // CPU-s per batch
  std::atomic<int64_t> next_index{0};
  int64_t warm = 0;  // threads past their warm-up batch (under warm_mutex)
  std::mutex warm_mutex;
  std::condition_variable all_warm;
  double cpu_start = 0;
  std::exception_ptr failure;
  std::mutex failure_mutex;
  const auto start = std::chrono::steady_clock::now();
  const auto until = start + std::chrono::duration<double>(seconds);
  const auto work = [&](size_t t) {
    try {
      (void)pipeline->make_batch(next_index++);  // warm-up
      {  // Counting starts when the last thread is warm; none counts a batch before (the CPU
         // time of its start would fall before cpu_start).
        std::unique_lock<std::mutex> lock(warm_mutex);
        if (++warm == threads) {
          cpu_start = process_cpu_s();
          all_warm.notify_all();
        } else {
          all_warm.wait(lock, [&] { return warm >= threads; });
        }
      }
      while (static_cast<int64_t>(per_thread[t].size()) < min_batches || std::chrono::steady_clock::now() < until) {
        const double before = thread_cpu_s();
        (void)pipeline->make_batch(next_index++);
        per_thread[t].push_back(thread_cpu_s() - before);
      }
    } catch (...) {
      {
        const std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
      const std::lock_guard<std::mutex> lock(warm_mutex);  // a warm-up that failed holds no one back
      warm = threads;
      all_warm.notify_all();
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < per_thread.size(); ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  const double cpu_s = process_cpu_s() - cpu_start;
  if (failure) std::rethrow_exception(failure);
  PipelineProbe p;
  p.threads = threads;
  p.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<double> all;
  for (const auto& v : per_thread) all.insert(all.end(), v.begin(), v.end());
  p.batches = static_cast<int64_t>(all.size());
  double sum = 0, sq = 0;
  for (double v : all) sum += v;
  const double mean = sum / static_cast<double>(all.size());
  for (double v : all) sq += (v - mean) * (v - mean);
  const double sd = all.size() > 1 ? std::sqrt(sq / static_cast<double>(all.size() - 1)) : 0;
  // The value from the process's CPU time (pools included); its spread from the per-batch clocks.
  p.cpu_s_per_sample = cpu_s / static_cast<double>(p.batches * std::max<int64_t>(1, spec.batch_size));
  p.rel_ci95 = mean > 0 ? 1.96 * sd / std::sqrt(static_cast<double>(all.size())) / mean : 0;
  return p;
}

}  // namespace pperf
