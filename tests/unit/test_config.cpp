#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "src/config/config.h"
#include "src/core/input_error.h"
#include "src/core/atomic_file.h"
#include "src/core/crypto.h"
#include "test_helpers.h"
#include "unit_registry.h"

using namespace pperf;
using nlohmann::json;

namespace {

json valid_config() {
  return json::parse(R"({
    "name": "t",
    "pricing": {"table": "aws-sagemaker-us-east-1"},
    "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 8}],
    "measure": {"warmup_steps": 1, "min_steps": 2, "max_steps": 5},
    "configurations": [
      {"name": "a", "baseline": true, "instances": [{"type": "ml.p3.2xlarge", "count": 1, "role": "dnn"}],
       "execution": {"threads": 1, "data": {"mode": "local", "workers": 1}}},
      {"name": "b", "instances": [{"type": "ml.p3.2xlarge"}, {"type": "ml.c5.9xlarge", "role": "data"}]}
    ]
  })");
}

/// The error line for `config` after `mutate`, without the temp file's path; "" if it loads.
std::string error_of(const std::function<void(json&)>& mutate) {
  pperf::testing::TempDir dir;
  json config = valid_config();
  mutate(config);
  const std::string path = dir.write("c.json", config.dump());
  try {
    load_config(path, pperf::testing::fixture_workloads());
  } catch (const InputError& e) {
    std::string what = e.what();
    EXPECT_EQ(what.rfind(path + ": ", 0), 0u) << "error must start with the file: " << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << "one line";
    return what.substr(path.size() + 2);
  }
  return "";
}

}  // namespace

TEST(Config, ValidConfigLoadsWithDefaults) {
  EXPECT_EQ(error_of([](json&) {}), "");
  pperf::testing::TempDir dir;
  const std::string path = dir.write("c.json", valid_config().dump());
  Config c = load_config(path, pperf::testing::fixture_workloads());
  EXPECT_EQ(c.baseline().name, "a");
  EXPECT_FALSE(c.priced_only);
  EXPECT_EQ(c.workloads[0].params["data"], "fashion-mnist");
  EXPECT_EQ(c.configurations[1].instances[0].count, 1);
  EXPECT_EQ(c.configurations[1].instances[1].role, "data");
  EXPECT_EQ(c.measure.max_seconds, 60);
  EXPECT_EQ(c.sha256.size(), 64u);
  auto groups = price_groups(c.configurations[1].instances, c.price_table);
  EXPECT_DOUBLE_EQ(groups[0].usd_per_hour_each + groups[1].usd_per_hour_each, 5.661);
}

TEST(Config, UsdPerHourOverridesTheTable) {
  pperf::testing::TempDir dir;
  json j = valid_config();
  j["configurations"][0]["instances"][0]["usd_per_hour"] = 2.5;
  Config c = load_config(dir.write("c.json", j.dump()), pperf::testing::fixture_workloads());
  auto groups = price_groups(c.configurations[0].instances, c.price_table);
  EXPECT_DOUBLE_EQ(groups[0].usd_per_hour_each, 2.5);
  EXPECT_EQ(groups[0].price_basis, "override");
}

// Each distinct mistake gives one exact line: the JSON pointer, then what is wrong.
TEST(Config, Mistakes) {
  struct Case {
    const char* what;
    std::function<void(json&)> mutate;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"unknown top-level key", [](json& j) { j["measur"] = json::object(); },
       "/measur: unknown key 'measur' (did you mean 'measure'?)"},
      {"missing name", [](json& j) { j.erase("name"); }, "/name: missing required field"},
      {"wrong type", [](json& j) { j["name"] = 3; }, "/name: expected a string, got integer"},
      {"unknown workload", [](json& j) { j["workloads"][0]["name"] = "mnist_heavvy"; },
       "/workloads/0/name: unknown workload 'mnist_heavvy' (did you mean 'mnist_heavy'?); known: mnist_heavy"},
      {"unknown preset", [](json& j) { j["workloads"][0]["preset"] = "tinny"; },
       "/workloads/0/preset: unknown preset 'tinny' of mnist_heavy (did you mean 'tiny'?); known: full, tiny"},
      {"zero batch", [](json& j) { j["workloads"][0]["batch_size"] = 0; },
       "/workloads/0/batch_size: must be a positive integer, got 0"},
      {"fractional batch", [](json& j) { j["workloads"][0]["batch_size"] = 2.5; },
       "/workloads/0/batch_size: expected an integer, got 2.5"},
      {"unknown param", [](json& j) { j["workloads"][0]["params"] = {{"data_dri", "/x"}}; },
       "/workloads/0/params/data_dri: unknown key 'data_dri' (did you mean 'data_dir'?)"},
      {"param choice", [](json& j) { j["workloads"][0]["params"] = {{"data", "mnist"}}; },
       "/workloads/0/params/data: 'mnist' is not one of fashion-mnist, synthetic"},
      {"param type", [](json& j) { j["workloads"][0]["params"] = {{"lr", "fast"}}; },
       "/workloads/0/params/lr: expected a number, got string"},
      {"no workloads", [](json& j) { j["workloads"] = json::array(); }, "/workloads: needs at least one workload"},
      {"no baseline", [](json& j) { j["configurations"][0]["baseline"] = false; },
       "/configurations: no configuration has \"baseline\": true (exactly one must)"},
      {"two baselines", [](json& j) { j["configurations"][1]["baseline"] = true; },
       "/configurations/1/baseline: a second baseline (exactly one configuration may be the baseline)"},
      {"no configurations", [](json& j) { j["configurations"] = json::array(); },
       "/configurations: needs at least one configuration"},
      {"duplicate configuration", [](json& j) { j["configurations"][1]["name"] = "a"; },
       "/configurations/1/name: duplicate configuration name 'a'"},
      {"unknown instance type", [](json& j) { j["configurations"][0]["instances"][0]["type"] = "ml.p3.2xlarg"; },
       "/configurations/0/instances/0/type: unknown instance type 'ml.p3.2xlarg' in price table "
       "aws-sagemaker-us-east-1 (did you mean 'ml.p3.2xlarge'?)"},
      {"zero count", [](json& j) { j["configurations"][0]["instances"][0]["count"] = 0; },
       "/configurations/0/instances/0/count: must be a positive integer, got 0"},
      {"bad role", [](json& j) { j["configurations"][0]["instances"][0]["role"] = "trainer"; },
       "/configurations/0/instances/0/role: 'trainer' is not one of dnn, data"},
      {"no dnn group", [](json& j) { j["configurations"][0]["instances"][0]["role"] = "data"; },
       "/configurations/0/instances: needs an instance group with role 'dnn' (the trainer)"},
      {"bad market", [](json& j) { j["configurations"][0]["instances"][0]["market"] = "spott"; },
       "/configurations/0/instances/0/market: 'spott' is not one of on_demand, spot (did you mean 'spot'?)"},
      {"spot without a price", [](json& j) { j["configurations"][0]["instances"][0]["market"] = "spot"; },
       "/configurations/0/instances/0: price table aws-sagemaker-us-east-1 has no spot price for "
       "ml.p3.2xlarge; give usd_per_hour"},
      {"negative price override", [](json& j) { j["configurations"][0]["instances"][0]["usd_per_hour"] = -1; },
       "/configurations/0/instances/0/usd_per_hour: must be > 0, got -1"},
      {"zero threads", [](json& j) { j["configurations"][0]["execution"]["threads"] = 0; },
       "/configurations/0/execution/threads: must be a positive integer, got 0"},
      {"bad data mode", [](json& j) { j["configurations"][0]["execution"]["data"]["mode"] = "remote"; },
       "/configurations/0/execution/data/mode: 'remote' is not one of local, service"},
      {"service without endpoints", [](json& j) { j["configurations"][0]["execution"]["data"]["mode"] = "service"; },
       "/configurations/0/execution/data: data mode 'service' needs 'endpoints' or 'spawn_local'"},
      {"bad endpoint", [](json& j) {
         j["configurations"][0]["execution"]["data"] = {{"mode", "service"}, {"endpoints", {"localhost"}}};
       }, "/configurations/0/execution/data/endpoints/0: expected host:port, got 'localhost'"},
      {"min above max steps", [](json& j) { j["measure"]["min_steps"] = 50; },
       "/measure/min_steps: min_steps (50) exceeds max_steps (5)"},
      {"non-positive max_seconds", [](json& j) { j["measure"]["max_seconds"] = 0; },
       "/measure/max_seconds: must be > 0, got 0"},
      {"negative warmup", [](json& j) { j["measure"]["warmup_steps"] = -1; },
       "/measure/warmup_steps: must be >= 0, got -1"},
      {"discount out of range", [](json& j) { j["pricing"]["discount_pct"] = 100; },
       "/pricing/discount_pct: must be in [0, 100)"},
      {"step_time_ms on some only", [](json& j) { j["configurations"][0]["step_time_ms"] = 10; },
       "/configurations/1: missing step_time_ms: give it on every configuration or on none"},
      {"zero step_time_ms", [](json& j) { j["configurations"][0]["step_time_ms"] = 0; },
       "/configurations/0/step_time_ms: must be > 0, got 0"},
      {"configurations not an array", [](json& j) { j["configurations"] = json::object(); },
       "/configurations: expected an array, got object"},
      {"python worker without dataset", [](json& j) { j["configurations"][0]["execution"]["data"]["worker"] = "python"; },
       "/configurations/0/execution/data: \"worker\": \"python\" needs \"dataset\" (or \"dataloader\"): \"module:factory\""},
      {"dataset and dataloader", [](json& j) {
         j["configurations"][0]["execution"]["data"] = {{"worker", "python"}, {"dataset", "m:f"}, {"dataloader", "m:g"}};
       }, "/configurations/0/execution/data/dataloader: give 'dataset' or 'dataloader', not both"},
      {"dataloader without python", [](json& j) { j["configurations"][0]["execution"]["data"]["dataloader"] = "m:f"; },
       "/configurations/0/execution/data/dataloader: 'dataloader' needs \"worker\": \"python\""},
      {"bad worker", [](json& j) { j["configurations"][0]["execution"]["data"]["worker"] = "rust"; },
       "/configurations/0/execution/data/worker: 'rust' is not one of pperf, python"},
      {"dataset without python", [](json& j) { j["configurations"][0]["execution"]["data"]["dataset"] = "m:f"; },
       "/configurations/0/execution/data/dataset: 'dataset' needs \"worker\": \"python\""},
      {"dataset not module:factory", [](json& j) {
         j["configurations"][0]["execution"]["data"] = {{"worker", "python"}, {"dataset", "my-data.py"}};
       }, "/configurations/0/execution/data/dataset: expected \"module:factory\" (a Python module path and a "
          "function in it), got 'my-data.py'"},
      {"dataset_kwargs not an object", [](json& j) {
         j["configurations"][0]["execution"]["data"] = {{"worker", "python"}, {"dataset", "pkg.mod:make"},
                                                        {"dataset_kwargs", json::array()}};
       }, "/configurations/0/execution/data/dataset_kwargs: expected an object (the factory's keyword arguments)"},
      {"unknown device", [](json& j) { j["configurations"][0]["execution"]["device"] = "gpu"; },
       "/configurations/0/execution/device: expected \"cpu\", \"cuda\" (every visible GPU) or \"cuda:N\", got 'gpu'"},
      {"device index not a number", [](json& j) { j["configurations"][0]["execution"]["device"] = "cuda:x"; },
       "/configurations/0/execution/device: expected \"cpu\", \"cuda\" (every visible GPU) or \"cuda:N\", got 'cuda:x'"},
      {"unknown execution key", [](json& j) { j["configurations"][0]["execution"]["thread"] = 2; },
       "/configurations/0/execution/thread: unknown key 'thread' (did you mean 'threads'?)"},
  };
  EXPECT_GE(cases.size(), 15u);
  for (const auto& c : cases) EXPECT_EQ(error_of(c.mutate), c.expected) << c.what;
}

TEST(Config, PythonDataWorkerKeys) {
  pperf::testing::TempDir dir;
  json config = valid_config();
  config["configurations"][0]["execution"]["data"] = {
      {"worker", "python"}, {"dataset", "examples.fashion_mnist_heavy:make"},
      {"dataset_kwargs", {{"split", "t10k"}}}, {"python_path", {"mods", "/abs"}}};
  const std::string path = dir.write("c.json", config.dump());
  const Config c = load_config(path, pperf::testing::fixture_workloads());
  const DataSettings& d = c.configurations[0].execution.data;
  EXPECT_EQ(d.worker, DataWorker::python);
  EXPECT_EQ(d.dataset, "examples.fashion_mnist_heavy:make");
  EXPECT_EQ(d.dataset_kwargs, json({{"split", "t10k"}}));
  const std::string config_dir = std::filesystem::path(path).parent_path().string();
  EXPECT_EQ(d.python_path, (std::vector<std::string>{config_dir + "/mods", "/abs"}));
  EXPECT_EQ(c.configurations[1].execution.data.worker, DataWorker::pperf);
  EXPECT_FALSE(d.dataset_is_dataloader);

  config["configurations"][0]["execution"]["data"] = {{"worker", "python"}, {"dataloader", "loaders:make"}};
  const DataSettings loader = load_config(dir.write("l.json", config.dump()), pperf::testing::fixture_workloads())
                                  .configurations[0].execution.data;
  EXPECT_EQ(loader.dataset, "loaders:make");
  EXPECT_TRUE(loader.dataset_is_dataloader);
}

TEST(Registry, LayoutMismatchSaysWhatDiffers) {
  const std::vector<TensorDecl> model = {{"inputs", "float32", {1, 28, 28}}, {"targets", "int64", {}}};
  EXPECT_EQ(layout_mismatch(model, model), "");
  EXPECT_EQ(layout_mismatch(model, {{"inputs", "float32", {3, 32, 32}}, {"targets", "int64", {}}}),
            "inputs: the worker serves float32[3,32,32] per sample, the model takes float32[1,28,28]");
  EXPECT_EQ(layout_mismatch(model, {{"inputs", "float32", {1, 28, 28}}, {"targets", "int32", {}}}),
            "targets: the worker serves int32[] per sample, the model takes int64[]");
  EXPECT_EQ(layout_mismatch(model, {{"inputs", "float32", {1, 28, 28}}}),
            "targets: the worker does not serve it (the model takes int64[] per sample)");
}

TEST(Config, UnknownPriceTableNamesTheKeyAndTheTableFile) {
  std::string e = error_of([](json& j) { j["pricing"]["table"] = "aws-nowhere"; });
  EXPECT_EQ(e.rfind("/pricing/table: price table 'aws-nowhere': ", 0), 0u) << e;
  EXPECT_NE(e.find("aws-nowhere.json: cannot open file"), std::string::npos) << e;
}

TEST(Config, NotJsonAndMissingFile) {
  pperf::testing::TempDir dir;
  const std::string bad = dir.write("bad.json", "{\"name\": ");
  EXPECT_THROW(load_config(bad, pperf::testing::fixture_workloads()), InputError);
  try {
    load_config(dir.path() + "/missing.json", pperf::testing::fixture_workloads());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), dir.path() + "/missing.json: cannot open file");
  }
}

TEST(Config, PricedOnlyConfigsTakeWorkloadsAsLabels) {
  pperf::testing::TempDir dir;
  json j = valid_config();
  j["workloads"][0]["name"] = "resnet50_augment";  // not runnable here, but a cost config may name it
  for (auto& c : j["configurations"]) c["step_time_ms"] = 100;
  Config c = load_config(dir.write("c.json", j.dump()), pperf::testing::fixture_workloads());
  EXPECT_TRUE(c.priced_only);
  EXPECT_EQ(c.workloads[0].name, "resnet50_augment");
}

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(std::string(1000, 'a')).substr(0, 16), "41edece42d63e8d9");
}

TEST(Config, NumbersThatOverflowNameTheirPointer) {
  pperf::testing::TempDir dir;
  const std::string path = dir.write("c.json", R"({"name": "t", "measure": {"max_seconds": 1e400}})");
  try {
    load_config(path, pperf::testing::fixture_workloads());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": /measure/max_seconds: number overflow parsing '1e400'");
  }
}

TEST(Config, CpusBeyondThisHostAreStillValid) {
  EXPECT_EQ(error_of([](json& j) { j["configurations"][0]["execution"]["cpus"] = {64, 95}; }), "");
  EXPECT_EQ(error_of([](json& j) { j["configurations"][0]["execution"]["cpus"] = {70000}; }),
            "/configurations/0/execution/cpus/0: CPU 70000 is beyond any host's CPU numbers");
}

TEST(Config, AConfigNeedingAHookTheWorkloadLacksIsRefusedNamingIt) {
  WorkloadDescriptor lacking = *pperf::testing::fixture_workloads().find("mnist_heavy");
  lacking.capabilities = {};
  WorkloadRegistry registry;
  registry.add(lacking);
  const auto error = [&](const std::function<void(json&)>& mutate) {
    pperf::testing::TempDir dir;
    json config = valid_config();
    mutate(config);
    const std::string path = dir.write("c.json", config.dump());
    try {
      load_config(path, registry);
    } catch (const InputError& e) {
      return std::string(e.what()).substr(path.size() + 2);
    }
    return std::string();
  };
  EXPECT_EQ(error([](json&) {}), "") << "a config that needs no optional hook loads";
  EXPECT_EQ(error([](json& c) { c["configurations"][0]["execution"]["distributed"] = {{"world_size", 2}}; }),
            "/configurations/0/execution/distributed: workload 'mnist_heavy' lacks the capability data_parallel (it "
            "exposes no parameters to all-reduce): it cannot train as several ranks");
  EXPECT_EQ(error([](json& c) { c["configurations"][1]["execution"]["data"] = {{"mode", "service"}, {"endpoints", {"h:1"}}}; }),
            "/configurations/1/execution/data/mode: workload 'mnist_heavy' lacks the capability data_workers (no input "
            "pipeline a data worker can run): use data.mode \"local\"");
  const auto spot = [](json& c) {
    c["configurations"][1]["instances"][0] = {{"type", "ml.p3.2xlarge"}, {"market", "spot"}, {"usd_per_hour", 1.5}};
    c["configurations"][1]["spot"] = {{"interruptions_per_month", 2}};
  };
  EXPECT_EQ(error(spot), "/configurations/1/spot: workload 'mnist_heavy' lacks the capability checkpoint (it cannot save its "
                         "training state), so Spot's checkpoint cost cannot be measured: give spot.checkpoint_save_s and "
                         "spot.checkpoint_restore_s");
  EXPECT_EQ(error([&](json& c) {
              spot(c);
              c["configurations"][1]["spot"]["checkpoint_save_s"] = 4;
              c["configurations"][1]["spot"]["checkpoint_restore_s"] = 6;
            }),
            "")
      << "a Spot configuration that gives its checkpoint cost needs no checkpoint hook";
  EXPECT_EQ(capability_names(lacking.capabilities), std::vector<std::string>{});
  // A step that forms its own group (python_step) trains as ranks without pperf's all-reduce.
  WorkloadDescriptor own_ranks = lacking;
  own_ranks.name = "own_ranks";
  own_ranks.capabilities.steps_as_own_ranks = true;
  registry.add(own_ranks);
  EXPECT_EQ(error([](json& c) {
              c["workloads"][0]["name"] = "own_ranks";
              c["configurations"][0]["execution"]["distributed"] = {{"world_size", 2}};
            }),
            "");
  EXPECT_EQ(capability_names(own_ranks.capabilities), std::vector<std::string>{"steps_as_own_ranks"});
  own_ranks.capabilities.owns_device = true;
  EXPECT_EQ(capability_names(own_ranks.capabilities), (std::vector<std::string>{"steps_as_own_ranks", "owns_device"}));
  EXPECT_TRUE(make_workload_spec(own_ranks, "", 0).owns_device) << "the plan reads it from the spec";
  EXPECT_EQ(capability_names(pperf::testing::fixture_workloads().find("mnist_heavy")->capabilities),
            (std::vector<std::string>{"data_parallel", "checkpoint", "data_workers", "model_flops", "wire_uint8"}));
}

TEST(Config, AWireTheWorkloadCannotMakeIsRefusedNamingTheKey) {
  const auto service = [](const std::string& wire) {
    return [wire](json& c) {
      c["configurations"][1]["execution"]["data"] = {{"mode", "service"}, {"endpoints", {"h:1"}}, {"wire", wire}};
    };
  };
  EXPECT_EQ(error_of(service("uint8")), "");
  EXPECT_EQ(error_of(service("float32")), "");
  EXPECT_EQ(error_of(service("bf16")),
            "/configurations/1/execution/data/wire: workload 'mnist_heavy' cannot send its batches as bf16 exactly (its "
            "wires: uint8, float32)");
  EXPECT_EQ(error_of(service("int4")).rfind("/configurations/1/execution/data/wire: ", 0), 0u);
  EXPECT_EQ(error_of([](json& c) { c["configurations"][1]["execution"]["data"] = {{"wire", "uint8"}}; }),
            "/configurations/1/execution/data/wire: 'wire' needs data mode 'service' or a Python worker (pperf's local "
            "loader hands the step its batches in memory)");
  // The default wire is the plan's to resolve (test_plan.cpp: Plan.TheDataPathIsResolvedOncePerItem).
  EXPECT_EQ(bytes_per_sample(layout_on_wire({{"inputs", "float32", {1, 28, 28}}, {"targets", "int64", {}}}, "uint8")), 784 + 8);
  EXPECT_EQ(bytes_per_sample({{"inputs", "float32", {3, 224, 224}}, {"targets", "int64", {}}}), 602112 + 8);
}

TEST(Config, CudaGraphsNeedOneGpuNoRanksAndAStaticShapesWorkload) {
  WorkloadDescriptor fixed = *pperf::testing::fixture_workloads().find("mnist_heavy");
  WorkloadRegistry registry;
  registry.add(fixed);
  fixed.name = "fixed_shapes";
  fixed.capabilities.static_shapes = true;
  registry.add(fixed);
  EXPECT_EQ(capability_names(fixed.capabilities),
            (std::vector<std::string>{"data_parallel", "checkpoint", "data_workers", "model_flops", "wire_uint8", "static_shapes"}));
  const auto error = [&](const std::function<void(json&)>& mutate) {
    pperf::testing::TempDir dir;
    json config = valid_config();
    mutate(config);
    const std::string path = dir.write("c.json", config.dump());
    try {
      load_config(path, registry);
    } catch (const InputError& e) {
      return std::string(e.what()).substr(path.size() + 2);
    }
    return std::string();
  };
  EXPECT_EQ(error([](json& c) {
              c["workloads"][0]["name"] = "fixed_shapes";
              c["configurations"][0]["execution"]["device"] = "cuda:0";
              c["configurations"][0]["execution"]["cuda_graphs"] = true;
            }),
            "");
  EXPECT_EQ(error([](json& c) {
              c["workloads"][0]["name"] = "fixed_shapes";
              c["configurations"][0]["execution"]["cuda_graphs"] = true;
            }),
            "/configurations/0/execution/cuda_graphs: CUDA graphs replay a GPU's kernels, and execution.device is cpu: "
            "set \"device\": \"cuda\" or drop cuda_graphs");
  EXPECT_EQ(error([](json& c) { c["configurations"][0]["execution"]["cuda_graphs"] = "yes"; }).rfind("/configurations/0/execution/cuda_graphs: ", 0), 0u);
  EXPECT_EQ(error([](json& c) {
              c["configurations"][0]["execution"]["device"] = "cuda:0";
              c["configurations"][0]["execution"]["cuda_graphs"] = true;
            }),
            "/configurations/0/execution/cuda_graphs: workload 'mnist_heavy' lacks the capability static_shapes (its "
            "batches may change shape, or its step reads values on the host), so its step cannot be captured as a CUDA "
            "graph: drop cuda_graphs");
  EXPECT_EQ(error([](json& c) {
              c["workloads"][0]["name"] = "fixed_shapes";
              c["configurations"][0]["execution"]["device"] = "cuda:0";
              c["configurations"][0]["execution"]["cuda_graphs"] = true;
              c["configurations"][0]["execution"]["distributed"] = {{"world_size", 2}, {"backend", "gloo"}};
            }),
            "/configurations/0/execution/cuda_graphs: CUDA graphs are not captured around data-parallel ranks' "
            "all-reduces: drop execution.distributed or cuda_graphs");
}

TEST(Config, DistributedKeys) {
  auto with = [](const json& distributed) {
    return [distributed](json& c) { c["configurations"][0]["execution"]["distributed"] = distributed; };
  };
  EXPECT_EQ(error_of(with({{"world_size", 4}, {"backend", "gloo"}, {"spawn_local", {{"cpus_per_rank", 1}}}})), "");
  EXPECT_EQ(error_of(with({{"backend", "gloo"}})), "/configurations/0/execution/distributed/world_size: missing required field");
  EXPECT_NE(error_of(with({{"world_size", 0}})).find("/configurations/0/execution/distributed/world_size"), std::string::npos);
  EXPECT_NE(error_of(with({{"world_size", 2}, {"backend", "mpi"}})).find("/execution/distributed/backend"), std::string::npos);
  EXPECT_EQ(error_of(with({{"world_size", 2}, {"backend", "nccl"}})),
            "/configurations/0/execution/distributed/backend: nccl all-reduces on CUDA devices only, and "
            "execution.device is cpu: use \"gloo\" on the CPU");
  EXPECT_EQ(error_of([](json& c) {
              c["configurations"][0]["execution"] = {
                  {"device", "cuda:0"},
                  {"distributed", {{"world_size", 2}, {"backend", "nccl"}, {"spawn_local", json::object()}}}};
            }),
            "/configurations/0/execution/distributed/backend: nccl takes one GPU per rank, and these 2 ranks started "
            "here would all be on cuda:0: use \"device\": \"cuda\" (a GPU each) or \"gloo\"");
  EXPECT_NE(error_of(with({{"world_size", 2}, {"spawn_local", {{"cpus", 1}}}})).find("/execution/distributed/spawn_local"),
            std::string::npos);
  EXPECT_NE(error_of([](json& c) {
              c["configurations"][0]["execution"]["data"] = {{"mode", "service"}, {"endpoints", {"h:1"}}};
              c["configurations"][0]["execution"]["distributed"] = {{"world_size", 2}};
            }).find("/configurations/0/execution/distributed: data-parallel ranks read the local loader"),
            std::string::npos);
  EXPECT_NE(error_of([](json& c) {
              c["configurations"][0]["execution"]["cpus"] = {0};
              c["configurations"][0]["execution"]["distributed"] = {{"world_size", 2}, {"spawn_local", {{"cpus_per_rank", 1}}}};
            }).find("/execution/distributed/spawn_local: give either"),
            std::string::npos);

  pperf::testing::TempDir dir;
  json config = valid_config();
  config["configurations"][0]["execution"]["distributed"] = {{"world_size", 3}, {"timeout_s", 7.5}};
  const Config c = load_config(dir.write("c.json", config.dump()), pperf::testing::fixture_workloads());
  const auto& d = c.configurations[0].execution.distributed;
  ASSERT_TRUE(d);
  EXPECT_EQ(d->world_size, 3);
  EXPECT_EQ(d->backend, "gloo");
  EXPECT_FALSE(d->spawn_local);
  EXPECT_EQ(d->timeout_s, 7.5);
  EXPECT_EQ(d->bucket_mib, 25);
  EXPECT_FALSE(c.configurations[1].execution.distributed);
}

TEST(Config, RanksDoNotTakeTheirBatchesFromDataWorkers) {
  auto service_with = [](json distributed_or_device) {
    return [distributed_or_device](json& j) {
      j["configurations"][1]["execution"] = {
          {"data", {{"mode", "service"}, {"endpoints", {"data-0:50051"}}}}};
      if (distributed_or_device.is_string()) {
        j["configurations"][1]["instances"] = {{{"type", "ml.p4d.24xlarge"}}};  // 8 GPUs: 8 ranks
        j["configurations"][1]["execution"]["device"] = distributed_or_device;
      } else {
        j["configurations"][1]["execution"]["distributed"] = distributed_or_device;
      }
    };
  };
  EXPECT_EQ(error_of(service_with(json{{"world_size", 2}})),
            "/configurations/1/execution/distributed: data-parallel ranks read the local loader: needs data mode "
            "'local' with the pperf worker");
  EXPECT_EQ(error_of(service_with("cuda")),
            "/configurations/1/execution/device: \"cuda\" runs one data-parallel rank per priced GPU (8), and "
            "data-parallel ranks read the local loader: needs data mode 'local' with the pperf worker, or one GPU "
            "(\"cuda:0\")");
  EXPECT_EQ(error_of(service_with("cuda:0")), "") << "one GPU, no ranks: data workers feed it";
}
// --- `--config NAME`: the one lookup (find_config) and its did-you-mean ---------------------

namespace {
/// Runs the test body in `dir` and comes back: find_config reads "the current directory".
struct InDirectory {
  explicit InDirectory(const std::string& dir) : previous(std::filesystem::current_path()) {
    std::filesystem::current_path(dir);
  }
  ~InDirectory() { std::filesystem::current_path(previous); }
  std::filesystem::path previous;
};

std::string lookup_error(const std::string& arg, const std::string& configs_dir, const std::string& reason = "") {
  try {
    return "found " + find_config(arg, configs_dir, reason);
  } catch (const InputError& e) {
    return e.what();
  }
}
}  // namespace

TEST(FindConfig, AnArgumentWithASlashIsAPathReadAsGiven) {
  pperf::testing::TempDir shipped;
  shipped.write("alpha.json", "{}");
  EXPECT_EQ(find_config("sub/alpha.json", shipped.path()), "sub/alpha.json");  // even missing: its read error says so
  EXPECT_EQ(find_config("./alpha", shipped.path()), "./alpha");
  EXPECT_EQ(find_config("/nowhere/alpha.json", shipped.path()), "/nowhere/alpha.json");
}

TEST(FindConfig, ABareNameIsAShippedConfigWithOrWithoutJson) {
  pperf::testing::TempDir shipped, here;
  shipped.write("alpha.json", "{}");
  shipped.write("notes", "{}");
  InDirectory in(here.path());
  EXPECT_EQ(find_config("alpha", shipped.path()), shipped.path() + "/alpha.json");
  EXPECT_EQ(find_config("alpha.json", shipped.path()), shipped.path() + "/alpha.json");
  EXPECT_EQ(find_config("notes", shipped.path()), shipped.path() + "/notes");  // the exact name first
}

TEST(FindConfig, AFileOfThatNameInTheCurrentDirectoryWins) {
  pperf::testing::TempDir shipped, here;
  shipped.write("alpha.json", "{}");
  here.write("alpha.json", "{}");
  std::filesystem::create_directory(here.path() + "/beta");
  InDirectory in(here.path());
  EXPECT_EQ(find_config("alpha.json", shipped.path()), "alpha.json");
  // Only the exact name: "alpha" is no file here, so it is the shipped one.
  EXPECT_EQ(find_config("alpha", shipped.path()), shipped.path() + "/alpha.json");
  // Whatever is here by that name, even a directory: its read error is the one to show.
  EXPECT_EQ(find_config("beta", shipped.path()), "beta");
}

TEST(FindConfig, FoundNowhereNamesWhereItLookedAndTheClosestShippedNames) {
  pperf::testing::TempDir shipped, here;
  for (const char* name : {"p4d_vs_hetero.json", "p3_vs_hetero_mnist.json", "smoke.json", "README"})
    shipped.write(name, "{}");
  InDirectory in(here.path());
  const std::string cwd = std::filesystem::current_path().string();
  EXPECT_EQ(lookup_error("p4d_vs_hetro", shipped.path()),
            "p4d_vs_hetro: no such file in the current directory (" + cwd + ") nor among the shipped configs in " +
                shipped.path() + " (did you mean 'p4d_vs_hetero'?)");
  EXPECT_EQ(lookup_error("p4d_vs_hetro.json", shipped.path()),
            "p4d_vs_hetro.json: no such file in the current directory (" + cwd + ") nor among the shipped configs in " +
                shipped.path() + " (did you mean 'p4d_vs_hetero'?)");
  EXPECT_EQ(lookup_error("smok", shipped.path()),
            "smok: no such file in the current directory (" + cwd + ") nor among the shipped configs in " +
                shipped.path() + " (did you mean 'smoke'?)");
  EXPECT_EQ(lookup_error("resnet", shipped.path()),
            "resnet: no such file in the current directory (" + cwd + ") nor among the shipped configs in " +
                shipped.path() + " (`pperf list configs` lists them)");
  EXPECT_EQ(lookup_error("x", here.path() + "/none"),
            "x: no such file in the current directory (" + cwd + ") and no shipped configs in " + here.path() + "/none");
  EXPECT_EQ(lookup_error("x", "", "pperf's data (pricing/tables) not found in /a, /b"),
            "x: no such file in the current directory (" + cwd +
                ") and no shipped configs to look among (pperf's data (pricing/tables) not found in /a, /b)");
}

TEST(FindConfig, ShippedConfigsAreTheJsonFilesWithTheirDescriptionsFirstSentence) {
  pperf::testing::TempDir dir;
  dir.write("b.json", R"({"description": "Two sentences, e.g. this one vs. that. the second is not shown."})");
  dir.write("a.json", R"j({"description": "Prices 1x ml.p3.2xlarge (e.g. 3.825 USD/h)"})j");
  dir.write("c.json", R"({"name": "no description"})");
  dir.write("d.json", R"({"description": "broken)");
  dir.write("e.json", "{\"description\": \"first line\\nsecond line\"}");
  dir.write("f.json", R"({"description": "Written by devs. Not shown."})");
  dir.write("notes.txt", "not a config");
  const auto configs = shipped_configs(dir.path());
  std::vector<std::string> rows;
  for (const auto& c : configs) rows.push_back(c.name + "|" + c.summary + "|" + c.path);
  EXPECT_EQ(rows, (std::vector<std::string>{"a|Prices 1x ml.p3.2xlarge (e.g. 3.825 USD/h)|" + dir.path() + "/a.json",
                                            "b|Two sentences, e.g. this one vs. that.|" + dir.path() + "/b.json",
                                            "c||" + dir.path() + "/c.json", "d||" + dir.path() + "/d.json",
                                            "e|first line|" + dir.path() + "/e.json",
                                            "f|Written by devs.|" + dir.path() + "/f.json"}));
  EXPECT_TRUE(shipped_configs(dir.path() + "/missing").empty());
}

TEST(FindConfig, EveryShippedConfigHasAOneLineDescription) {
  const auto configs = shipped_configs(pperf::testing::source_dir() + "/configs");
  ASSERT_GE(configs.size(), 10u);
  for (const auto& c : configs) {
    EXPECT_FALSE(c.summary.empty()) << c.name;
    EXPECT_EQ(c.summary.find('\n'), std::string::npos) << c.name;
  }
}

TEST(FindConfig, LoadConfigTakesAShippedNameAndRecordsThePathRead) {
  pperf::testing::TempDir here;
  InDirectory in(here.path());
  const Config c = load_config("seed000_ex1_resnet50_cost", pperf::testing::fixture_workloads());
  const auto expected = std::filesystem::absolute(shipped_configs_dir() + "/seed000_ex1_resnet50_cost.json").lexically_normal();
  EXPECT_EQ(c.path, expected.string());
  EXPECT_EQ(c.name, "seed000-ex1-resnet50-hetero-cost");
  EXPECT_EQ(c.sha256, sha256_hex(read_text_file(c.path)));
}

TEST(DidYouMean, SeveralClosestNamesClosestFirst) {
  EXPECT_EQ(did_you_mean("p4d_vs_hetro", {"p3_vs_hetero_mnist", "p4d_vs_hetero", "smoke"}, 3),
            " (did you mean 'p4d_vs_hetero'?)");
  EXPECT_EQ(did_you_mean("abcd", {"abxy", "abcx", "zzzz", "abce"}, 3), " (did you mean 'abcx', 'abce' or 'abxy'?)");
  EXPECT_EQ(did_you_mean("abcd", {"abxy", "abcx", "abce"}, 2), " (did you mean 'abcx' or 'abce'?)");
  EXPECT_EQ(did_you_mean("abcd", {"abxy", "abcx", "abce"}), " (did you mean 'abcx'?)");
  EXPECT_EQ(did_you_mean("abcd", {"wxyz"}, 3), "");
  EXPECT_EQ(closest_matches("run", {"rn", "runs", "cost"}, 5), (std::vector<std::string>{"rn", "runs"}));
}
