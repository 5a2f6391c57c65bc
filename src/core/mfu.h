#pragma once
// Model FLOPs utilization: how much of the measured peak matrix-multiply rate of the hardware a
// result ran on, in the precision its math ran in, its model work reaches. A pure function of
// the record (model FLOPs, throughput, the GPU peaks it carries) and the host
// (host.peak_gflops, written by `pperf run`).
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "src/core/result.h"

namespace pperf {

/// The peak a result's math is measured against: "bf16" when the model's precision starts with
/// "bf16" (e.g. "bf16-autocast"); on a GPU, "tf32" when the run let matmuls or cuDNN
/// convolutions use TF32 (execution.device_peak's tf32 flags; cuDNN's is torch's default);
/// else "fp32".
std::string mfu_precision(const Result& r);

/// model.flops_per_sample x samples_per_s / (peak[mfu_precision(r)] x 1e9). The peak is, for a
/// result on GPUs (execution.device_peak), that GPU's measured GEMM peak x the group's GPUs
/// (samples_per_step / batch_size, one rank per GPU; a file without a tf32 peak uses its fp32
/// one); otherwise host.peak_gflops (this host's CPUs). nullopt when any of them is unknown or zero.
std::optional<double> model_flops_utilization(const Result& r, const nlohmann::json& host);

/// The same against the datasheet's peak of that precision (execution.device_peak's datasheet
/// figures) x the group's GPUs; nullopt on the CPU and for GPUs pperf's table lacks.
std::optional<double> datasheet_flops_utilization(const Result& r);

/// Sets r.mfu = model_flops_utilization(r, host) and r.mfu_datasheet. Above 100 % the measured
/// figure cannot be true (the model cannot run faster than the hardware): r gets an event
/// saying so and why it may be (once), so no writer prints it unflagged.
void set_mfu(Result& r, const nlohmann::json& host);

/// A GPU model's dense peak rates from its vendor's datasheet, GFLOP/s per GPU.
struct GpuDatasheet {
  double fp32 = 0;
  std::optional<double> tf32, bf16;  // none on GPUs without them (V100)
};

/// The datasheet of the GPU the driver names `model`, by its full name ("NVIDIA A100-SXM4-40GB",
/// "NVIDIA H100 80GB HBM3"; the "NVIDIA " prefix optional); nullopt for a model pperf's table
/// does not hold.
std::optional<GpuDatasheet> gpu_datasheet(const std::string& model);

}  // namespace pperf
