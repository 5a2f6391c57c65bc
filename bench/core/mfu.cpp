#include "bench/core/mfu.h"

namespace pperf {

std::optional<double> model_flops_utilization(const Result& r, const nlohmann::json& host) {
  if (!r.model || r.model->flops_per_sample <= 0 || !r.samples_per_s || *r.samples_per_s <= 0) return std::nullopt;
  const auto peak = host.find("peak_gflops");
  if (peak == host.end() || !peak->is_object()) return std::nullopt;
  const bool bf16 = r.model->precision.rfind("bf16", 0) == 0;  // "bf16", "bf16-autocast"
  const auto rate = peak->find(bf16 ? "bf16" : "fp32");
  if (rate == peak->end() || !rate->is_number() || rate->get<double>() <= 0) return std::nullopt;
  return r.model->flops_per_sample * *r.samples_per_s / (rate->get<double>() * 1e9);
}

}  // namespace pperf
