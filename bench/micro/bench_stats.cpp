// Cost of the median's CI over n samples (the stop rule asks for it at most once per n/50 steps).
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>

#include "src/stats/change_points.h"
#include "src/stats/stats.h"

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

// What the stop rule cost per step before issue 13 (median + median_ci95: two copies and sorts
// of every sample), for comparison with BM_RunnerOverhead_* (bench_runner.cpp).
void BM_StopCheckBeforeIssue13(benchmark::State& state) {
  std::mt19937_64 rng(3);
  std::lognormal_distribution<double> d(4, 0.2);
  std::vector<double> samples(state.range(0));
  for (auto& s : samples) s = d(rng);
  for (auto _ : state) {
    benchmark::DoNotOptimize(pperf::median(samples));
    benchmark::DoNotOptimize(pperf::median_ci95(samples));
  }
}
BENCHMARK(BM_StopCheckBeforeIssue13)->Arg(100)->Arg(100000);
}  // namespace

// Change detection over a pair's history of n runs (a 10 % step half-way, 1 % noise): what
// `pperf history changes` and `compare --against-history` pay per pair. O(n^2 log n).
static void BM_FitSegments(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  std::mt19937_64 rng(n);
  std::normal_distribution<double> z(0, 0.01);
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) v.push_back((i < n / 2 ? 100 : 110) * std::exp(z(rng)));
  for (auto _ : state) benchmark::DoNotOptimize(pperf::fit_segments(v));
}
BENCHMARK(BM_FitSegments)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
