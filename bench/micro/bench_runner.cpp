// The runner's own cost per measured step (issue 13): a null workload, batches that are ready
// at once, and the standard stop rules, at n = 100 and n = 100,000 measured steps.
//   build/pperf_micro --benchmark_filter=Runner
// "per_step" is the CPU time of the whole measured phase divided by its steps: clock reads,
// sample bookkeeping and every stop-rule check. Steps alternate 1 and 2 ms of synthetic time
// (the data source adds it to the real clock). Two cases:
// - NeverPrecise: the precision target (1e-12) is never met (the usual case until a run is near it);
// - MedianChecks: the mean's CI meets the 2 % target after ~1,000 steps but the median's never
//   does (its CI spans both modes), so the rule also recomputes the median's CI, O(n), once per
//   n/50 steps: the worst case of the incremental check.
#include <benchmark/benchmark.h>

#include "src/measure/runner.h"

namespace {
using namespace pperf;

/// The steady clock plus synthetic time the data source adds (so the real clock is still read).
class OffsetClock : public Clock {
 public:
  double now_ms() const override { return steady_clock().now_ms() + offset_ms; }
  double offset_ms = 0;
};

/// A ready batch every time, each "waiting" 1 or 2 ms of synthetic time in turn.
class ReadySource : public DataSource {
 public:
  explicit ReadySource(OffsetClock& clock) : clock_(clock) { batch_.inputs = torch::zeros({1, 1}); }
  std::optional<Batch> next() override {
    clock_.offset_ms += (++served_ % 2) ? 1.0 : 2.0;
    return batch_;
  }

 private:
  OffsetClock& clock_;
  int64_t served_ = 0;
  Batch batch_;
};

class NullWorkload : public Workload {
 public:
  ModelInfo model_info() const override { return {}; }
  double train_step(const Batch&) override { return 0; }
};

void run(benchmark::State& state, bool median_checks) {
  const int64_t n = state.range(0);
  MeasureSettings settings;
  settings.warmup_steps = 0;
  settings.min_steps = 6;
  settings.max_steps = n;
  settings.max_seconds = 1e9;
  settings.target_rel_ci = median_checks ? 0.02 : 1e-12;
  const std::atomic<bool> stop{false};
  NullWorkload workload;
  for (auto _ : state) {
    OffsetClock clock;
    ReadySource source(clock);
    const Measurement m = measure(workload, source, settings, stop, clock);
    if (static_cast<int64_t>(m.step_ms.size()) != n) state.SkipWithError(("stopped early: " + m.stop.text).c_str());
  }
  state.counters["per_step"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_RunnerOverhead_NeverPrecise(benchmark::State& state) { run(state, false); }
void BM_RunnerOverhead_MedianChecks(benchmark::State& state) { run(state, true); }
BENCHMARK(BM_RunnerOverhead_NeverPrecise)->Arg(100)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RunnerOverhead_MedianChecks)->Arg(100)->Arg(100000)->Unit(benchmark::kMillisecond);
}  // namespace
