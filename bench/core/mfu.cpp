#include "bench/core/mfu.h"

#include <fmt/format.h>

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

void set_mfu(Result& r, const nlohmann::json& host) {
  r.mfu = model_flops_utilization(r, host);
  if (!r.mfu || *r.mfu <= 1) return;
  const DevicePeak* gpu = r.execution && r.execution->device_peak ? &*r.execution->device_peak : nullptr;
  std::string why = "the peak it divides by is below what the model's kernels reached";
  if (gpu && !gpu->matmul_tf32 && gpu->cudnn_tf32 && r.model->precision.rfind("bf16", 0) != 0)
    why += " (the fp32 peak is measured with TF32 off, as torch's matmuls run, while cuDNN's convolutions use TF32)";
  else if (!gpu)
    why += " (a busy host lowers the measured peak; delete the peak cache to measure it again)";
  r.events.push_back(fmt::format("MFU {:.0f} % is impossible: {}", *r.mfu * 100, why));
}

std::optional<GpuDatasheet> gpu_datasheet(const std::string& model) {
  // NVIDIA's datasheets, dense (no structured sparsity), SXM boards unless named: TFLOP/s.
  struct Row {
    const char* name_part;
    double fp32, tf32;
    std::optional<double> bf16;
  };
  static const Row rows[] = {
      {"H100 PCIe", 51.2, 378, 756},
      {"H100", 66.9, 494.7, 989.4},  // H100 SXM5 ("NVIDIA H100 80GB HBM3")
      {"A100", 19.5, 156, 312},      // A100 SXM4 and PCIe, 40 and 80 GB
      {"A10G", 31.2, 62.5, 125},     // AWS's A10 (g5): the A10 datasheet's figures
      {"A10", 31.2, 62.5, 125},
      {"L40S", 91.6, 183, 366},
      {"L4", 30.3, 60, 121},
      {"V100", 15.7, 15.7, std::nullopt},  // no TF32 or bf16 units
  };
  for (const Row& row : rows)
    if (model.find(row.name_part) != std::string::npos)
      return GpuDatasheet{row.fp32 * 1000, row.tf32 * 1000, row.bf16 ? std::optional(*row.bf16 * 1000) : std::nullopt};
  return std::nullopt;
}

}  // namespace pperf
