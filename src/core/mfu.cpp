#include "src/core/mfu.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace pperf {

namespace {
bool is_bf16(const Result& r) { return r.model->precision.rfind("bf16", 0) == 0; }  // "bf16", "bf16-autocast"

/// The group's GPUs: one rank per GPU, samples_per_step / batch_size of them.
double group_gpus(const Result& r) {
  return r.batch_size > 0 && r.samples_per_step > 0 ? double(r.samples_per_step) / r.batch_size : 1;
}

/// model FLOP/s over `peak_gflops`; nullopt when either is unknown or zero.
std::optional<double> utilization(const Result& r, double peak_gflops) {
  if (!r.model || r.model->flops_per_sample <= 0 || !r.samples_per_s || *r.samples_per_s <= 0 || peak_gflops <= 0)
    return std::nullopt;
  return r.model->flops_per_sample * *r.samples_per_s / (peak_gflops * 1e9);
}
}  // namespace

std::string mfu_precision(const Result& r) {
  if (r.model && is_bf16(r)) return "bf16";
  const DevicePeak* gpu = r.execution && r.execution->device_peak ? &*r.execution->device_peak : nullptr;
  return gpu && (gpu->matmul_tf32 || gpu->cudnn_tf32) ? "tf32" : "fp32";
}

std::optional<double> model_flops_utilization(const Result& r, const nlohmann::json& host) {
  if (!r.model) return std::nullopt;
  const std::string precision = mfu_precision(r);
  if (r.execution && r.execution->device_peak) {
    const DevicePeak& p = *r.execution->device_peak;
    // A file from before the TF32 peak was measured apart: its fp32 peak, as it was divided by then.
    const double peak = precision == "bf16"   ? p.bf16_gflops.value_or(0)
                        : precision == "tf32" ? p.tf32_gflops.value_or(p.fp32_gflops)
                                              : p.fp32_gflops;
    return utilization(r, group_gpus(r) * peak);
  }
  const auto peak = host.find("peak_gflops");
  if (peak == host.end() || !peak->is_object()) return std::nullopt;
  const auto rate = peak->find(precision);
  if (rate == peak->end() || !rate->is_number()) return std::nullopt;
  return utilization(r, rate->get<double>());
}

std::optional<double> datasheet_flops_utilization(const Result& r) {
  if (!r.model || !r.execution || !r.execution->device_peak) return std::nullopt;
  const DevicePeak& p = *r.execution->device_peak;
  const std::string precision = mfu_precision(r);
  const std::optional<double> peak = precision == "bf16"   ? p.datasheet_bf16_gflops
                                     : precision == "tf32" ? p.datasheet_tf32_gflops
                                                           : p.datasheet_fp32_gflops;
  return peak ? utilization(r, group_gpus(r) * *peak) : std::nullopt;
}

void set_mfu(Result& r, const nlohmann::json& host) {
  r.mfu = model_flops_utilization(r, host);
  r.mfu_datasheet = datasheet_flops_utilization(r);
  if (!r.mfu || *r.mfu <= 1) return;
  const DevicePeak* gpu = r.execution && r.execution->device_peak ? &*r.execution->device_peak : nullptr;
  std::string why = "the peak it divides by is below what the model's kernels reached";
  if (gpu && mfu_precision(r) == "tf32" && !gpu->tf32_gflops)
    why += " (this result's fp32 peak was measured with TF32 off while its convolutions or matmuls ran in TF32)";
  else if (!gpu)
    why += " (a busy host lowers the measured peak; delete the peak cache to measure it again)";
  else
    why += fmt::format(" (the {} GEMM peak; convolutions or fused kernels can outrun a plain GEMM)", mfu_precision(r));
  const std::string event = fmt::format("MFU {:.0f} % is impossible: {}", *r.mfu * 100, why);
  // The pricing stage sets it again on every `pperf cost` of the same file.
  if (std::find(r.events.begin(), r.events.end(), event) == r.events.end()) r.events.push_back(event);
}

std::optional<GpuDatasheet> gpu_datasheet(const std::string& model) {
  // NVIDIA's datasheets (whitepapers for the H100's exact figures), dense: no structured
  // sparsity. TFLOP/s. Keyed by the full name the driver gives (nvidia-smi's `name`, without
  // "NVIDIA "): a name that merely contains another (H100 NVL, A10G) is not that GPU.
  // Left out for want of a datasheet to check against: A10G (AWS's own variant of the A10, with
  // other tensor rates), H100 NVL and H200 NVL.
  struct Row {
    const char* name;
    double fp32;
    std::optional<double> tf32, bf16;
  };
  static const Row rows[] = {
      {"H100 80GB HBM3", 66.9, 494.7, 989.4},  // H100 SXM5
      {"H200", 66.9, 494.7, 989.4},            // SXM: the H100 SXM5's GH100 at its clocks, more memory
      {"H100 PCIe", 51.2, 378, 756},
      {"A100-SXM4-40GB", 19.5, 156, 312},
      {"A100-SXM4-80GB", 19.5, 156, 312},
      {"A100-PCIE-40GB", 19.5, 156, 312},
      {"A100 80GB PCIe", 19.5, 156, 312},
      {"A10", 31.2, 62.5, 125},
      {"L40S", 91.6, 183, 362.05},
      {"L4", 30.3, 60, 121},
      {"Tesla V100-SXM2-16GB", 15.7, std::nullopt, std::nullopt},  // no TF32 or bf16 units
      {"Tesla V100-SXM2-32GB", 15.7, std::nullopt, std::nullopt},
      {"Tesla V100-PCIE-16GB", 14, std::nullopt, std::nullopt},
      {"Tesla V100-PCIE-32GB", 14, std::nullopt, std::nullopt},
  };
  std::string name = model;
  while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) name.pop_back();
  if (name.rfind("NVIDIA ", 0) == 0) name.erase(0, 7);
  const auto tflops = [](std::optional<double> v) { return v ? std::optional(*v * 1000) : std::nullopt; };
  for (const Row& row : rows)
    if (name == row.name) return GpuDatasheet{row.fp32 * 1000, tflops(row.tf32), tflops(row.bf16)};
  return std::nullopt;
}

}  // namespace pperf
