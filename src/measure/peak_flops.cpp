#include "src/measure/peak_flops.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "src/core/data_dir.h"
#include "src/measure/device.h"

namespace pperf {

namespace {
/// The best rate of rounds of GEMMs, each round ending with a synchronize (so on an asynchronous
/// device the clock times the work, not the launches). Rounds double until one takes a tenth of
/// the budget, and only such rounds count: long enough that a synchronization or a clock read
/// is nothing beside them. The best, because a peak is what the hardware reaches, and a
/// neighbour's burst on a shared host slows some rounds, not the hardware.
double device_gemm_gflops(const Device& device, torch::ScalarType dtype, int64_t n, double seconds) {
  const auto on = torch::TensorOptions().device(torch::Device(device.name()));
  const auto a = torch::randn({n, n}, on).to(dtype), b = torch::randn({n, n}, on).to(dtype);
  torch::Tensor c = torch::mm(a, b);  // first call: allocation and kernel selection
  device.synchronize();
  const double flops = 2.0 * n * n * n;
  double spent = 0, best = 0;
  int64_t round = 1;
  while (spent < seconds || best == 0) {
    const auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < round; ++i) c = torch::mm(a, b);
    device.synchronize();
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    spent += took;
    if (took >= seconds / 10) best = std::max(best, flops * round / took / 1e9);
    else round *= 2;
  }
  return best;
}
}  // namespace

double gemm_gflops(const std::string& precision, int64_t n, double seconds) {
  return device_gemm_gflops(cpu_device(), precision == "bf16" ? torch::kBFloat16 : torch::kFloat32, n, seconds);
}

nlohmann::json measure_peak_gflops(const std::string& device_name, double seconds_each) {
  const std::unique_ptr<Device> device = open_device(device_name);
  const bool cpu = device->name() == "cpu";
  const int before = at::get_num_threads();
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (cpu) at::set_num_threads(threads);
  // A GPU needs larger GEMMs than a CPU to reach its peak (and runs them in milliseconds).
  const int64_t n = cpu ? 1024 : 8192;
  nlohmann::json out = {{"device", device->name()}, {"gemm", fmt::format("{0}x{0}x{0}", n)}, {"seconds", seconds_each}};
  if (cpu) out["threads"] = threads;
  if (cpu) {
    out["fp32"] = device_gemm_gflops(*device, torch::kFloat32, n, seconds_each);
  } else {
    // float32 GEMMs both ways, whatever the run's setting (restored after): fp32 in full
    // precision, tf32 on the tensor cores (on GPUs without TF32 the two are the same).
    struct RestoreTf32 {
      at::Context& context;
      const bool allowed = context.allowTF32CuBLAS();
      ~RestoreTf32() { context.setAllowTF32CuBLAS(allowed); }
    } restore{at::globalContext()};
    restore.context.setAllowTF32CuBLAS(false);
    out["fp32"] = device_gemm_gflops(*device, torch::kFloat32, n, seconds_each);
    restore.context.setAllowTF32CuBLAS(true);
    out["tf32"] = device_gemm_gflops(*device, torch::kFloat32, n, seconds_each);
  }
  try {
    out["bf16"] = device_gemm_gflops(*device, torch::kBFloat16, n, seconds_each);
  } catch (const std::exception&) {
    out["bf16"] = nullptr;
  }
  if (cpu) at::set_num_threads(before);
  return out;
}

nlohmann::json cached_peak_gflops(const std::string& fingerprint, const std::string& cache_path,
                                  const std::string& device) {
  nlohmann::json cache = read_json_cache(cache_path);
  // A GPU's entry from before its TF32 peak was measured apart is measured again.
  if (cache.contains(fingerprint) && cache[fingerprint].is_object() && cache[fingerprint].value("fp32", 0.0) > 0 &&
      (device == "cpu" || cache[fingerprint].value("tf32", 0.0) > 0))
    return cache[fingerprint];
  nlohmann::json peak = measure_peak_gflops(device);
  cache[fingerprint] = peak;
  write_json_cache(cache_path, cache);
  return peak;
}

std::string default_peak_cache_path() { return cache_dir() + "/peak_gflops.json"; }

}  // namespace pperf
