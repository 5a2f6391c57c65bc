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

TEST(Mfu, AboveOneHundredPercentIsFlaggedWithTheLikelyCause) {
  Result r;
  r.model = ModelInfo{1000, 3e9, "fp32", {}};
  r.batch_size = 32;
  r.samples_per_step = 32;
  r.samples_per_s = 10000;  // 30,000 GFLOP/s of model work
  r.execution = ExecutionReport{};
  r.execution->device = "cuda:0";
  r.execution->device_peak = DevicePeak{19500, 300000, "8192x8192x8192"};
  r.execution->device_peak->cudnn_tf32 = true;  // torch's defaults: convolutions in TF32, matmuls not
  set_mfu(r, nlohmann::json::object());
  EXPECT_DOUBLE_EQ(*r.mfu, 30000.0 / 19500);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0], "MFU 154 % is impossible: the peak it divides by is below what the model's kernels reached "
                         "(the fp32 peak is measured with TF32 off, as torch's matmuls run, while cuDNN's convolutions "
                         "use TF32)");
  Result fine = r;
  fine.events.clear();
  fine.samples_per_s = 5000;  // 15,000 of 19,500
  set_mfu(fine, nlohmann::json::object());
  EXPECT_DOUBLE_EQ(*fine.mfu, 15000.0 / 19500);
  EXPECT_TRUE(fine.events.empty());
}

TEST(Mfu, DatasheetPeaksByTheDriversModelName) {
  const auto a100 = gpu_datasheet("NVIDIA A100-SXM4-40GB");
  ASSERT_TRUE(a100);
  EXPECT_DOUBLE_EQ(a100->fp32, 19500);
  EXPECT_DOUBLE_EQ(a100->tf32, 156000);
  EXPECT_DOUBLE_EQ(*a100->bf16, 312000);
  EXPECT_DOUBLE_EQ(gpu_datasheet("NVIDIA A10G")->fp32, 31200);  // not the A100's
  EXPECT_DOUBLE_EQ(gpu_datasheet("NVIDIA H100 80GB HBM3")->bf16.value(), 989400);
  EXPECT_DOUBLE_EQ(gpu_datasheet("NVIDIA H100 PCIe")->bf16.value(), 756000);
  EXPECT_DOUBLE_EQ(gpu_datasheet("NVIDIA L40S")->fp32, 91600);  // not the L4's
  EXPECT_FALSE(gpu_datasheet("Tesla V100-SXM2-16GB")->bf16);
  EXPECT_FALSE(gpu_datasheet("Radeon Instinct MI250X"));
  EXPECT_FALSE(gpu_datasheet(""));
}
