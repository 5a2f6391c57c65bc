#include "bench/measure/peak_flops.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "bench/core/atomic_file.h"

namespace pperf {

double gemm_gflops(const std::string& precision, int64_t n, double seconds) {
  const torch::ScalarType dtype = precision == "bf16" ? torch::kBFloat16 : torch::kFloat32;
  const auto a = torch::randn({n, n}).to(dtype), b = torch::randn({n, n}).to(dtype);
  (void)torch::mm(a, b);  // first call: allocation and kernel selection
  // The rate over all repetitions (total FLOPs / total time): a single short GEMM's time is too
  // noisy to take the best of.
  double spent = 0;
  int reps = 0;
  torch::Tensor c;
  while (spent < seconds || reps < 3) {
    const auto start = std::chrono::steady_clock::now();
    c = torch::mm(a, b);
    spent += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ++reps;
  }
  return 2.0 * n * n * n * reps / spent / 1e9;
}

nlohmann::json measure_peak_gflops(double seconds_each) {
  const int before = at::get_num_threads();
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  at::set_num_threads(threads);
  constexpr int64_t n = 1024;
  nlohmann::json out = {{"gemm", fmt::format("{0}x{0}x{0}", n)}, {"threads", threads}, {"seconds", seconds_each}};
  out["fp32"] = gemm_gflops("fp32", n, seconds_each);
  try {
    out["bf16"] = gemm_gflops("bf16", n, seconds_each);
  } catch (const std::exception&) {
    out["bf16"] = nullptr;
  }
  at::set_num_threads(before);
  return out;
}

nlohmann::json cached_peak_gflops(const std::string& fingerprint, const std::string& cache_path) {
  nlohmann::json cache = nlohmann::json::object();
  try {
    std::ifstream in(cache_path);
    if (in) cache = nlohmann::json::parse(in);
    if (!cache.is_object()) cache = nlohmann::json::object();
  } catch (const std::exception&) {
    cache = nlohmann::json::object();
  }
  if (cache.contains(fingerprint) && cache[fingerprint].is_object() && cache[fingerprint].value("fp32", 0.0) > 0)
    return cache[fingerprint];
  nlohmann::json peak = measure_peak_gflops();
  cache[fingerprint] = peak;
  try {
    std::filesystem::create_directories(std::filesystem::path(cache_path).parent_path());
    write_file_atomically(cache_path, cache.dump(2) + "\n");
  } catch (const std::exception&) {
    // An unwritable cache costs a re-measure next time, nothing else.
  }
  return peak;
}

std::string default_peak_cache_path() {
  if (const char* dir = std::getenv("PPERF_CACHE_DIR"); dir && *dir) return std::string(dir) + "/peak_gflops.json";
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/pperf/peak_gflops.json";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/pperf/peak_gflops.json";
}

}  // namespace pperf
