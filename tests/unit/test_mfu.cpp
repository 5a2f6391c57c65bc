#include <gtest/gtest.h>

#include "bench/core/mfu.h"

using namespace pperf;

TEST(Mfu, ModelFlopsTimesThroughputOverThePeakOfItsPrecision) {
  Result r;
  r.model = ModelInfo{1000, 3e9, "fp32", {}};  // 3 GFLOP per sample
  r.samples_per_s = 10;                         // 30 GFLOP/s
  const nlohmann::json host = {{"peak_gflops", {{"fp32", 120.0}, {"bf16", 300.0}}}};
  EXPECT_DOUBLE_EQ(*model_flops_utilization(r, host), 0.25);
  r.model->precision = "bf16";
  EXPECT_DOUBLE_EQ(*model_flops_utilization(r, host), 0.1);
  r.model->precision = "bf16-autocast";  // what vit_synthetic reports under CPU autocast
  EXPECT_DOUBLE_EQ(*model_flops_utilization(r, host), 0.1);
}

TEST(Mfu, UnknownWhenAnyFactorIs) {
  Result r;
  r.model = ModelInfo{1000, 3e9, "bf16", {}};
  r.samples_per_s = 10;
  EXPECT_FALSE(model_flops_utilization(r, nlohmann::json::object())) << "no peak measured (pperf cost)";
  EXPECT_FALSE(model_flops_utilization(r, {{"peak_gflops", {{"fp32", 100.0}, {"bf16", nullptr}}}})) << "no bf16 peak";
  r.model->flops_per_sample = 0;  // an opaque TorchScript model
  EXPECT_FALSE(model_flops_utilization(r, {{"peak_gflops", {{"fp32", 100.0}, {"bf16", 100.0}}}}));
}

TEST(Mfu, GpuResultsUseTheirGpusPeakTimesTheGroupsGpus) {
  Result r;
  r.model = ModelInfo{1000, 3e9, "fp32", {}};
  r.batch_size = 32;
  r.samples_per_step = 128;  // 4 ranks, one per GPU
  r.samples_per_s = 1000;    // 3,000 GFLOP/s of model work
  r.execution = ExecutionReport{};
  r.execution->device = "cuda:0";
  r.execution->device_peak = DevicePeak{15000, 60000, "8192x8192x8192"};
  const nlohmann::json host = {{"peak_gflops", {{"fp32", 100.0}, {"bf16", 200.0}}}};  // the CPUs': not used
  EXPECT_DOUBLE_EQ(*model_flops_utilization(r, host), 3000.0 / (4 * 15000));
  r.model->precision = "bf16-autocast";
  EXPECT_DOUBLE_EQ(*model_flops_utilization(r, host), 3000.0 / (4 * 60000));
  r.execution->device_peak->bf16_gflops.reset();
  EXPECT_FALSE(model_flops_utilization(r, host)) << "no bf16 peak on this GPU";
}
