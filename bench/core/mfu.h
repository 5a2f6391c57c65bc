#pragma once
// Model FLOPs utilization: how much of the measured peak matrix-multiply rate of the hardware a
// result ran on its model work reaches. A pure function of the record (model FLOPs, throughput,
// the GPU peak it carries) and the host (host.peak_gflops, written by `pperf run`).
#include <nlohmann/json.hpp>

#include <optional>

#include "bench/core/result.h"

namespace pperf {

/// model.flops_per_sample x samples_per_s / (peak[p] x 1e9), p = "bf16" when the model's
/// precision starts with "bf16" (e.g. "bf16-autocast"), else "fp32". The peak is, for a result
/// on GPUs (execution.device_peak), that GPU's peak x the group's GPUs (samples_per_step /
/// batch_size, one rank per GPU); otherwise host.peak_gflops (this host's CPUs). nullopt when
/// any of them is unknown or zero.
std::optional<double> model_flops_utilization(const Result& r, const nlohmann::json& host);

/// Sets r.mfu = model_flops_utilization(r, host). Above 100 % the figure cannot be true (the
/// model cannot run faster than the hardware): r gets an event saying so and why it may be, so
/// no writer prints it unflagged.
void set_mfu(Result& r, const nlohmann::json& host);

/// A GPU model's dense peak rates from its vendor's datasheet, GFLOP/s per GPU.
struct GpuDatasheet {
  double fp32 = 0, tf32 = 0;
  std::optional<double> bf16;  // none on GPUs without bf16 (V100)
};

/// The datasheet of the GPU the driver names `model` ("NVIDIA A100-SXM4-40GB"); nullopt for a
/// model pperf's table does not hold.
std::optional<GpuDatasheet> gpu_datasheet(const std::string& model);

}  // namespace pperf
