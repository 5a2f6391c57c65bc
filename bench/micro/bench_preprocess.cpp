// Preprocessing throughput per thread: the figure that decides how many loader threads (or
// data workers) a trainer needs. items_per_second = samples/s on one thread.
#include <benchmark/benchmark.h>

#include <random>

#include "workloads/common/gaussian_blur.h"
#include "src/core/workload_registry.h"
#include "workloads/workload.h"

namespace {

void BM_GaussianBlur28x28(benchmark::State& state) {
  const int kernel_size = static_cast<int>(state.range(0));
  std::vector<float> image(28 * 28), out(28 * 28), scratch;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(0, 1);
  for (auto& p : image) p = u(rng);
  for (auto _ : state) {
    pperf::gaussian_blur(image.data(), out.data(), 28, 28, pperf::gaussian_kernel1d(kernel_size, 1.3), scratch);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_GaussianBlur28x28)->Arg(3)->Arg(11);

// One batch of a workload's input pipeline on this thread: items_per_second = samples/s/core.
void run_pipeline(benchmark::State& state, const std::string& workload, const std::string& preset) {
  const auto& d = *pperf::builtin_workloads().find(workload);
  const pperf::WorkloadSpec spec = pperf::make_workload_spec(d, preset, state.range(0));
  auto pipeline = d.make_pipeline(spec);
  int64_t index = 0;
  for (auto _ : state) benchmark::DoNotOptimize(pipeline->make_batch(index++));
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetLabel("samples/s per thread");
}

void BM_MnistHeavyBatch(benchmark::State& state) { run_pipeline(state, "mnist_heavy", "full"); }
BENCHMARK(BM_MnistHeavyBatch)->Arg(256)->Unit(benchmark::kMillisecond);

void BM_ResNet50AugmentBatch32px(benchmark::State& state) { run_pipeline(state, "resnet50_augment", "cifar"); }
BENCHMARK(BM_ResNet50AugmentBatch32px)->Arg(64)->Unit(benchmark::kMillisecond);

void BM_ResNet50AugmentBatch224px(benchmark::State& state) { run_pipeline(state, "resnet50_augment", "full"); }
BENCHMARK(BM_ResNet50AugmentBatch224px)->Arg(8)->Unit(benchmark::kMillisecond);

}  // namespace
