#include <gtest/gtest.h>

#include "src/core/mfu.h"

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

namespace {
/// One A100's result: 30,000 GFLOP/s of fp32 model work on one GPU, its GEMM peaks measured as
/// fp32 19,000, TF32 120,000 and bf16 250,000 GFLOP/s.
Result a100_result() {
  Result r;
  r.model = ModelInfo{1000, 3e9, "fp32", {}};
  r.batch_size = 32;
  r.samples_per_step = 32;
  r.samples_per_s = 10000;
  r.execution = ExecutionReport{};
  r.execution->device = "cuda:0";
  r.execution->device_peak = DevicePeak{19000, 250000, "8192x8192x8192"};
  r.execution->device_peak->tf32_gflops = 120000;
  r.execution->device_peak->model = "NVIDIA A100-SXM4-40GB";
  const GpuDatasheet sheet = *gpu_datasheet("NVIDIA A100-SXM4-40GB");
  r.execution->device_peak->datasheet_fp32_gflops = sheet.fp32;
  r.execution->device_peak->datasheet_tf32_gflops = sheet.tf32;
  r.execution->device_peak->datasheet_bf16_gflops = sheet.bf16;
  return r;
}
}  // namespace

TEST(Mfu, TheMeasuredPeakIsThatOfTheMathTheModelRanIn) {
  Result r = a100_result();
  EXPECT_EQ(mfu_precision(r), "fp32");  // TF32 off for matmuls and convolutions
  EXPECT_DOUBLE_EQ(*model_flops_utilization(r, {}), 30000.0 / 19000);
  EXPECT_DOUBLE_EQ(*datasheet_flops_utilization(r), 30000.0 / 19500);
  r.execution->device_peak->cudnn_tf32 = true;  // torch's default: convolutions in TF32
  EXPECT_EQ(mfu_precision(r), "tf32");
  EXPECT_DOUBLE_EQ(*model_flops_utilization(r, {}), 30000.0 / 120000);
  EXPECT_DOUBLE_EQ(*datasheet_flops_utilization(r), 30000.0 / 156000);
  r.execution->device_peak->cudnn_tf32 = false;
  r.execution->device_peak->matmul_tf32 = true;  // torch.backends.cuda.matmul.allow_tf32
  EXPECT_EQ(mfu_precision(r), "tf32");
  r.model->precision = "bf16-autocast";  // bf16 whatever the TF32 settings
  EXPECT_EQ(mfu_precision(r), "bf16");
  EXPECT_DOUBLE_EQ(*model_flops_utilization(r, {}), 30000.0 / 250000);
  EXPECT_DOUBLE_EQ(*datasheet_flops_utilization(r), 30000.0 / 312000);
}

TEST(Mfu, DatasheetUtilizationNeedsTheModelsFigureOfThatPrecision) {
  Result r = a100_result();
  r.execution->device_peak->cudnn_tf32 = true;
  r.execution->device_peak->datasheet_tf32_gflops.reset();  // a V100: no TF32 units
  EXPECT_FALSE(datasheet_flops_utilization(r));
  r.execution->device_peak.reset();  // the CPU: no datasheet
  EXPECT_FALSE(datasheet_flops_utilization(r));
  EXPECT_EQ(mfu_precision(r), "fp32");
}

TEST(Mfu, AnOldFileWithoutATf32PeakDividesByItsFp32One) {
  Result r = a100_result();
  r.execution->device_peak->tf32_gflops.reset();
  r.execution->device_peak->cudnn_tf32 = true;
  EXPECT_DOUBLE_EQ(*model_flops_utilization(r, {}), 30000.0 / 19000);
}

TEST(Mfu, AboveOneHundredPercentIsFlaggedWithTheLikelyCause) {
  Result r = a100_result();
  r.execution->device_peak->tf32_gflops.reset();  // a file from before TF32 was measured apart
  r.execution->device_peak->cudnn_tf32 = true;
  set_mfu(r, nlohmann::json::object());
  EXPECT_DOUBLE_EQ(*r.mfu, 30000.0 / 19000);
  EXPECT_DOUBLE_EQ(*r.mfu_datasheet, 30000.0 / 156000);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0], "MFU 158 % is impossible: the peak it divides by is below what the model's kernels reached "
                         "(this result's fp32 peak was measured with TF32 off while its convolutions or matmuls ran "
                         "in TF32)");
  set_mfu(r, nlohmann::json::object());  // `pperf cost` of the same file again
  EXPECT_EQ(r.events.size(), 1u);
  Result now = a100_result();  // measured today: against the TF32 peak
  now.execution->device_peak->cudnn_tf32 = true;
  set_mfu(now, nlohmann::json::object());
  EXPECT_DOUBLE_EQ(*now.mfu, 30000.0 / 120000);
  EXPECT_TRUE(now.events.empty());
  now.samples_per_s = 50000;  // 150,000 of a 120,000 TF32 GEMM peak
  set_mfu(now, nlohmann::json::object());
  ASSERT_EQ(now.events.size(), 1u);
  EXPECT_EQ(now.events[0], "MFU 125 % is impossible: the peak it divides by is below what the model's kernels reached "
                           "(the tf32 GEMM peak; convolutions or fused kernels can outrun a plain GEMM)");
}

TEST(Mfu, DatasheetPeaksByTheDriversFullModelName) {
  const auto a100 = gpu_datasheet("NVIDIA A100-SXM4-40GB");
  ASSERT_TRUE(a100);
  EXPECT_DOUBLE_EQ(a100->fp32, 19500);
  EXPECT_DOUBLE_EQ(*a100->tf32, 156000);
  EXPECT_DOUBLE_EQ(*a100->bf16, 312000);
  for (const char* name : {"NVIDIA A100-SXM4-80GB", "NVIDIA A100-PCIE-40GB", "NVIDIA A100 80GB PCIe"})
    EXPECT_DOUBLE_EQ(*gpu_datasheet(name)->tf32, 156000) << name;
  const auto h100_sxm = gpu_datasheet("NVIDIA H100 80GB HBM3");
  EXPECT_DOUBLE_EQ(h100_sxm->fp32, 66900);
  EXPECT_DOUBLE_EQ(*h100_sxm->tf32, 494700);
  EXPECT_DOUBLE_EQ(*h100_sxm->bf16, 989400);
  const auto h100_pcie = gpu_datasheet("NVIDIA H100 PCIe");
  EXPECT_DOUBLE_EQ(h100_pcie->fp32, 51200);
  EXPECT_DOUBLE_EQ(*h100_pcie->tf32, 378000);
  EXPECT_DOUBLE_EQ(*h100_pcie->bf16, 756000);
  EXPECT_FALSE(gpu_datasheet("NVIDIA H100 NVL")) << "not an SXM H100: no datasheet row checked";
  const auto h200 = gpu_datasheet("NVIDIA H200");  // the name nvidia-smi gave on an H200 SXM
  ASSERT_TRUE(h200);
  EXPECT_DOUBLE_EQ(*h200->bf16, 989400);
  EXPECT_FALSE(gpu_datasheet("NVIDIA H200 NVL")) << "the NVL board runs at a lower power: not the SXM's row";
  const auto a10 = gpu_datasheet("NVIDIA A10");
  EXPECT_DOUBLE_EQ(a10->fp32, 31200);
  EXPECT_DOUBLE_EQ(*a10->tf32, 62500);
  EXPECT_DOUBLE_EQ(*a10->bf16, 125000);
  EXPECT_FALSE(gpu_datasheet("NVIDIA A10G")) << "AWS's A10G is not an A10";
  const auto l40s = gpu_datasheet("NVIDIA L40S");
  EXPECT_DOUBLE_EQ(l40s->fp32, 91600);
  EXPECT_DOUBLE_EQ(*l40s->tf32, 183000);
  EXPECT_DOUBLE_EQ(*l40s->bf16, 362050);
  const auto l4 = gpu_datasheet("NVIDIA L4");
  EXPECT_DOUBLE_EQ(l4->fp32, 30300);
  EXPECT_DOUBLE_EQ(*l4->tf32, 60000);
  EXPECT_DOUBLE_EQ(*l4->bf16, 121000);
  const auto v100_sxm = gpu_datasheet("Tesla V100-SXM2-16GB");
  EXPECT_DOUBLE_EQ(v100_sxm->fp32, 15700);
  EXPECT_FALSE(v100_sxm->tf32);
  EXPECT_FALSE(v100_sxm->bf16);
  EXPECT_DOUBLE_EQ(gpu_datasheet("Tesla V100-PCIE-32GB")->fp32, 14000);
  EXPECT_DOUBLE_EQ(gpu_datasheet("A100-SXM4-40GB")->fp32, 19500) << "older drivers' names lack \"NVIDIA \"";
  EXPECT_FALSE(gpu_datasheet("NVIDIA A100-SXM4-40GB MIG 1g.5gb"));
  EXPECT_FALSE(gpu_datasheet("Radeon Instinct MI250X"));
  EXPECT_FALSE(gpu_datasheet(""));
}
