#include <gtest/gtest.h>
#include <torch/torch.h>

#include "src/config/config.h"
#include "src/core/input_error.h"
#include "test_helpers.h"
#include "src/core/workload_registry.h"
#include "workloads/workload.h"

using namespace pperf;
using nlohmann::json;

namespace {
const std::string kTinyMlp = pperf::testing::source_dir() + "/tests/data/tiny_mlp.pt";

const WorkloadDescriptor& ts() { return *builtin_workloads().find("torchscript"); }

WorkloadSpec spec(int64_t batch, const std::string& path = kTinyMlp) {
  return make_workload_spec(ts(), "default", batch,
                            {{"path", path}, {"input_shape", json::array({64})}, {"classes", 10}});
}

/// what() of the InputError `make` throws, or "" when it throws none.
std::string input_error(const std::function<void()>& make) {
  try {
    make();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

// tests/data/tiny_mlp.pt comes from scripts/make_torchscript_model.py: Linear(64, 32), ReLU,
// Linear(32, 10) = 64*32 + 32 + 32*10 + 10 parameters.
TEST(TorchScript, LoadsTheFileAndCountsItsParameters) {
  ModelInfo info = ts().make_workload(spec(4))->model_info();
  EXPECT_EQ(info.params, 64 * 32 + 32 + 32 * 10 + 10);
  EXPECT_EQ(info.params, 2410);
  EXPECT_EQ(info.flops_per_sample, 0);  // opaque model: unknown
  EXPECT_EQ(info.precision, "fp32");
}

TEST(TorchScript, StepsOnAFixedBatchReduceTheLoss) {
  for (const std::string optimizer : {"adam", "sgd"}) {
    WorkloadSpec s = spec(32);
    s.params["optimizer"] = optimizer;
    s.params["lr"] = optimizer == "adam" ? 0.01 : 0.1;
    auto w = ts().make_workload(s);
    Batch batch = ts().make_pipeline(s)->make_batch(0);
    double first = w->train_step(batch), last = first;
    for (int i = 0; i < 15; ++i) last = w->train_step(batch);
    EXPECT_LT(last, first * 0.8) << optimizer << ": first " << first << " last " << last;
  }
}

TEST(TorchScript, PipelineIsDeterministicStandardNormalOfTheGivenShape) {
  WorkloadSpec s = spec(256);
  s.params["input_shape"] = {4, 8, 8};
  auto a = ts().make_pipeline(s), b = ts().make_pipeline(s);
  Batch x = a->make_batch(2), y = b->make_batch(2);
  EXPECT_EQ(x.inputs.sizes(), (std::vector<int64_t>{256, 4, 8, 8}));
  EXPECT_TRUE(torch::equal(x.inputs, y.inputs));
  EXPECT_FALSE(torch::equal(x.inputs, a->make_batch(3).inputs));
  EXPECT_EQ(x.targets[7].item<int64_t>(), (2 * 256 + 7) % 10);
  EXPECT_NEAR(x.inputs.mean().item<double>(), 0.0, 0.02);  // 65,536 draws: s.e. 0.004
  EXPECT_NEAR(x.inputs.std().item<double>(), 1.0, 0.02);
  EXPECT_EQ(a->data_info().source, "synthetic");
}

TEST(TorchScript, UnloadableFileIsAnInputErrorNamingIt) {
  const std::string missing = "/nonexistent/model.pt";
  std::string what = input_error([&] { ts().make_workload(spec(4, missing)); });
  EXPECT_EQ(what.rfind(missing + ": ", 0), 0u) << what;

  pperf::testing::TempDir dir;
  const std::string garbage = dir.write("garbage.pt", "not a zip archive");
  what = input_error([&] { ts().make_workload(spec(4, garbage)); });
  EXPECT_EQ(what.rfind(garbage + ": cannot load as a TorchScript model: ", 0), 0u) << what;
  EXPECT_EQ(what.find('\n'), std::string::npos) << "one line: " << what;

  what = input_error([&] { ts().make_workload(spec(4, "")); });
  EXPECT_NE(what.find("params/path: is required"), std::string::npos) << what;
}

TEST(TorchScript, ShapeMismatchesAreInputErrorsNamingTheFile) {
  WorkloadSpec wrong_classes = spec(4);
  wrong_classes.params["classes"] = 7;
  std::string what = input_error([&] { ts().make_workload(wrong_classes); });
  EXPECT_EQ(what, kTinyMlp + ": forward must return logits of shape [batch, 7] (params.classes), got [1, 10]");

  WorkloadSpec wrong_input = spec(4);
  wrong_input.params["input_shape"] = {63};
  what = input_error([&] { ts().make_workload(wrong_input); });
  // torch's own wording of the error: "mat1 and mat2 ..." (1.13), "addmm: mat1 and mat2 ..." (2.15).
  const std::string prefix = kTinyMlp + ": forward on an input of shape [1, 63] failed: RuntimeError: ";
  EXPECT_EQ(what.substr(0, prefix.size()), prefix) << what;
  const std::string cause = "mat1 and mat2 shapes cannot be multiplied (1x63 and 64x32)";
  EXPECT_GE(what.size(), cause.size());
  EXPECT_EQ(what.substr(what.size() - std::min(what.size(), cause.size())), cause) << "one line, the error last";

  WorkloadSpec no_shape = spec(4);
  no_shape.params["input_shape"] = json::array();
  what = input_error([&] { ts().make_pipeline(no_shape); });
  EXPECT_NE(what.find("params/input_shape: needs the per-sample input shape"), std::string::npos) << what;
}

// The "integer_list" ParamSpec type (added for input_shape): checked by config validation.
TEST(ConfigIntegerList, InputShapeIsValidatedAsAListOfIntegers) {
  auto load = [](const json& input_shape) -> std::string {
    json config = json::parse(R"({
      "name": "t",
      "pricing": {"table": "aws-sagemaker-us-east-1"},
      "workloads": [{"name": "torchscript", "batch_size": 8, "params": {"path": "m.pt"}}],
      "configurations": [
        {"name": "a", "baseline": true, "instances": [{"type": "ml.p3.2xlarge", "count": 1, "role": "dnn"}]}
      ]
    })");
    config["workloads"][0]["params"]["input_shape"] = input_shape;
    pperf::testing::TempDir dir;
    const std::string path = dir.write("c.json", config.dump());
    try {
      Config c = load_config(path, builtin_workloads());
      EXPECT_EQ(c.workloads[0].params["input_shape"], input_shape);
      EXPECT_EQ(c.workloads[0].params["classes"], 10);  // default applied
    } catch (const InputError& e) {
      return std::string(e.what()).substr(path.size() + 2);
    }
    return "";
  };
  EXPECT_EQ(load(json::array({3, 32, 32})), "");
  EXPECT_EQ(load(json::array()), "");  // emptiness is the workload's to reject, with its own message
  EXPECT_EQ(load(json("3x32x32")), "/workloads/0/params/input_shape: expected an array, got string");
  EXPECT_EQ(load(json::array({3, 2.5})), "/workloads/0/params/input_shape/1: expected an integer, got 2.5");
}
