#include "bench/core/mfu.h"

namespace pperf {

std::optional<double> model_flops_utilization(const Result& r, const nlohmann::json& host) {
  if (!r.model || r.model->flops_per_sample <= 0 || !r.samples_per_s || *r.samples_per_s <= 0) return std::nullopt;
  const bool bf16 = r.model->precision.rfind("bf16", 0) == 0;  // "bf16", "bf16-autocast"
  double peak_gflops = 0;
  if (r.execution && r.execution->device_peak) {
    // One GPU per rank: the group's work against all of its GPUs' peak.
    const DevicePeak& p = *r.execution->device_peak;
    const double gpus = r.batch_size > 0 && r.samples_per_step > 0 ? double(r.samples_per_step) / r.batch_size : 1;
    peak_gflops = gpus * (bf16 ? p.bf16_gflops.value_or(0) : p.fp32_gflops);
  } else {
    const auto peak = host.find("peak_gflops");
    if (peak == host.end() || !peak->is_object()) return std::nullopt;
    const auto rate = peak->find(bf16 ? "bf16" : "fp32");
    if (rate == peak->end() || !rate->is_number()) return std::nullopt;
    peak_gflops = rate->get<double>();
  }
  if (peak_gflops <= 0) return std::nullopt;
  return r.model->flops_per_sample * *r.samples_per_s / (peak_gflops * 1e9);
}

}  // namespace pperf
