#pragma once
// Model FLOPs utilization: how much of this host's peak matrix-multiply rate a result's model
// work reaches. A pure function of the record (model FLOPs, throughput) and the host's
// measured peak (host.peak_gflops, written by `pperf run`).
#include <nlohmann/json.hpp>

#include <optional>

#include "bench/core/result.h"

namespace pperf {

/// model.flops_per_sample x samples_per_s / (host.peak_gflops[p] x 1e9), p = "bf16" when the
/// model's precision starts with "bf16" (e.g. "bf16-autocast"), else "fp32". nullopt when any of them is unknown or zero.
std::optional<double> model_flops_utilization(const Result& r, const nlohmann::json& host);

}  // namespace pperf
