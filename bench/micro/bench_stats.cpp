// The stop rule recomputes the median's CI after every step: it must stay negligible next to
// a training step even after thousands of steps.
#include <benchmark/benchmark.h>

#include <random>

#include "bench/stats/stats.h"

namespace {
void BM_MedianCi95(benchmark::State& state) {
  std::mt19937_64 rng(3);
  std::lognormal_distribution<double> d(4, 0.2);
  std::vector<double> samples(state.range(0));
  for (auto& s : samples) s = d(rng);
  for (auto _ : state) benchmark::DoNotOptimize(pperf::median_ci95(samples));
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_MedianCi95)->RangeMultiplier(10)->Range(10, 10000)->Complexity();
}  // namespace
