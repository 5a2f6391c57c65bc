#include "workloads/python_step/python_step.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "src/core/data_dir.h"
#include "src/core/input_error.h"
#include "src/core/process.h"
#include "workloads/workload.h"

namespace pperf {

namespace {

namespace fs = std::filesystem;

/// `name` as execve needs it: unchanged when it has a '/', else its first match on PATH.
std::string resolve_interpreter(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  throw InputError("python_step", "params/python", "'" + name + "' is not on PATH");
}

std::string step_param(const WorkloadSpec& spec) {
  const std::string step = spec.string_param("step");
  const auto colon = step.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == step.size() || step.find(':', colon + 1) != std::string::npos)
    throw InputError("python_step", "params/step",
                     "needs \"module:factory\" (a factory returning an object with train_step(batch_index)), got \"" +
                         step + "\"");
  return step;
}

std::vector<std::string> worker_argv(const WorkloadSpec& spec, bool check) {
  std::vector<std::string> argv = {resolve_interpreter(spec.string_param("python")),
                                   find_shipped_script(self_executable(), "pperf-step-worker.py"),
                                   "--step", step_param(spec),
                                   "--kwargs", spec.param("kwargs").dump(),
                                   "--module-dir", spec.config_dir};
  if (check) argv.push_back("--check");
  return argv;
}

SpawnOptions worker_spawn(const WorkloadSpec& spec, bool check) {
  SpawnOptions spawn;
  spawn.argv = worker_argv(spec, check);
  spawn.capture_stdout = true;
  spawn.pipe_stdin = true;
  // If pperf (the measuring process) dies, so does the worker and the step it runs.
  spawn.death_signal = SIGKILL;
  spawn.set_env = {{"PYTHONUNBUFFERED", "1"}};
  // A rank's step forms its own group (DDP, FSDP, XLA) from the launcher's variables.
  for (const auto& [name, value] : spec.rank_env) spawn.set_env.emplace_back(name, value);
  return spawn;
}

/// The worker's answer to one request, as an exception when it is not `expected`. A worker that
/// does not answer within `timeout_s` is killed (a hung step must not outlive its item).
std::string await_answer(ChildProcess& worker, const std::string& expected, const std::string& what, double timeout_s) {
  const std::optional<std::string> line = worker.read_line(timeout_s);
  if (!line) {
    if (const auto status = worker.wait(1))
      throw std::runtime_error(fmt::format("{}: the Python step worker {} (its stderr is above)", what, describe_wait_status(*status)));
    worker.signal(SIGKILL);
    worker.wait(5);
    throw std::runtime_error(
        fmt::format("{} did not finish within {:g} s (params.step_timeout_s): the Python step worker was killed", what, timeout_s));
  }
  if (line->rfind(expected, 0) == 0) return line->substr(std::min(line->size(), expected.size() + 1));
  if (line->rfind("error ", 0) == 0) throw std::runtime_error(fmt::format("{} raised {}", what, line->substr(6)));
  throw std::runtime_error(fmt::format("{}: unexpected answer from the Python step worker: {}", what, *line));
}

class PythonStepWorkload : public Workload {
 public:
  explicit PythonStepWorkload(const WorkloadSpec& spec)
      : step_(step_param(spec)),
        timeout_s_(spec.number_param("step_timeout_s")),
        worker_(worker_spawn(spec, false)) {
    // A worker that died between steps must be an error of the next request (EPIPE), not a
    // SIGPIPE that kills the measuring process with it.
    std::signal(SIGPIPE, SIG_IGN);
    // Building the object may compile, load data or reach a device: the start timeout is generous.
    const std::optional<std::string> line = worker_.read_line(spec.number_param("start_timeout_s"));
    if (!line || line->rfind("ready ", 0) != 0) {
      std::string why = line && line->rfind("error ", 0) == 0 ? line->substr(6) : line ? *line : "";
      if (why.empty()) {
        const auto status = worker_.wait(1);
        why = step_ + ": the Python step worker " +
              (status ? describe_wait_status(*status) : fmt::format("was not ready within {:g} s (params.start_timeout_s)",
                                                                     spec.number_param("start_timeout_s")));
      }
      throw std::runtime_error(why);
    }
    const nlohmann::json ready = nlohmann::json::parse(line->substr(6));
    if (const auto& info = ready.at("model_info"); info.is_object())
      info_ = {info.value("params", int64_t{0}), info.value("flops_per_sample", 0.0), info.value("precision", "fp32")};
    checkpoint_ = ready.value("checkpoint", false);
    // Throughput is samples per step x steps / time, with the config's batch size: the step's
    // own must be the same number, or samples/s would be silently wrong.
    if (const auto& batch = ready.at("batch_size"); batch.is_number_integer() && batch.get<int64_t>() != spec.batch_size)
      throw std::runtime_error(fmt::format("{}: the step's batch_size is {}, the config's workload batch_size is {}: set "
                                           "batch_size to {} (samples/s is computed from it)",
                                           step_, batch.get<int64_t>(), spec.batch_size, batch.get<int64_t>()));
  }

  ~PythonStepWorkload() override {
    worker_.close_stdin();  // end of input: the worker returns
    if (!worker_.wait(5)) worker_.stop(2);
  }

  ModelInfo model_info() const override { return info_; }

  double train_step(const Batch& batch) override {
    const std::string what = fmt::format("{} step {}", step_, batch.index);
    if (!worker_.write_line(fmt::format("step {}", batch.index))) await_answer(worker_, "done", what, 1);
    const std::string loss = await_answer(worker_, "done", what, timeout_s_);
    return std::strtod(loss.c_str(), nullptr);
  }

  /// The object's own save_state(path) bytes, carried in the archive as one uint8 tensor.
  bool save_state(torch::serialize::OutputArchive& archive) override {
    if (!checkpoint_) return false;
    const fs::path path = scratch_path();
    worker_.write_line("save " + path.string());
    await_answer(worker_, "saved", step_ + " save_state", timeout_s_);
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::error_code ec;
    fs::remove(path, ec);
    archive.write("python_state", torch::from_blob(const_cast<char*>(bytes.data()), {static_cast<int64_t>(bytes.size())},
                                                   torch::kUInt8)
                                      .clone());
    return true;
  }

  void load_state(torch::serialize::InputArchive& archive) override {
    torch::Tensor state;
    archive.read("python_state", state);
    const fs::path path = scratch_path();
    {
      std::ofstream out(path, std::ios::binary);
      out.write(reinterpret_cast<const char*>(state.data_ptr<uint8_t>()), state.numel());
    }
    worker_.write_line("load " + path.string());
    await_answer(worker_, "loaded", step_ + " load_state", timeout_s_);
    std::error_code ec;
    fs::remove(path, ec);
  }

 private:
  static fs::path scratch_path() {
    static int sequence = 0;
    return fs::temp_directory_path() / fmt::format("pperf-python-step-{}-{}.state", ::getpid(), sequence++);
  }

  std::string step_;
  double timeout_s_;
  ChildProcess worker_;
  ModelInfo info_;
  bool checkpoint_ = false;
};

/// The step owns its data: a batch is its index alone (the worker passes it to train_step).
class IndexOnlyPipeline : public InputPipeline {
 public:
  Batch make_batch(int64_t index) const override {
    Batch batch;
    batch.index = index;
    return batch;
  }
  DataInfo data_info() const override { return {"python_step", "", 0}; }
};

/// Imports `spec`'s module and finds its factory without building anything (the worker's
/// --check); an InputError at params/step naming the module and the error when it cannot.
void check_python_step(const WorkloadSpec& spec) {
  ChildProcess child(worker_spawn(spec, true));
  child.close_stdin();
  const std::optional<std::string> line = child.read_line(120);
  const std::optional<int> status = child.wait(10);
  if (line && *line == "check: ok" && status && *status == 0) return;
  const std::string marker = "not started: ";
  throw InputError("python_step", "params/step",
                   line && line->rfind(marker, 0) == 0
                       ? line->substr(marker.size())
                       : "pperf-step-worker.py --check " +
                             (status ? describe_wait_status(*status) : std::string("did not finish")) +
                             (line && !line->empty() ? ": " + *line : ""));
}

}  // namespace

WorkloadDescriptor python_step_descriptor() {
  WorkloadDescriptor d;
  d.name = "python_step";
  d.description =
      "Your own training step in Python (any framework, any device Python reaches): params.step "
      "\"module:factory\" returns an object with train_step(batch_index) and optionally model_info(), "
      "synchronize(), batch_size, save_state(path)/load_state(path); run by a worker process, timed by "
      "pperf's runner from request to done (docs/python_step.md)";
  // Checkpoints are forwarded when the object has save_state/load_state (else save_state says no).
  d.capabilities = {/*data_parallel=*/false, /*checkpoint=*/true, /*data_workers=*/false, /*model_flops=*/false,
                    /*steps_as_own_ranks=*/true, /*owns_device=*/true};
  d.presets = {{"default", "whatever the step does; batch_size must equal the step's own", 1}};
  d.params = {
      {"step", "string", "", "\"module:factory\": the module on PYTHONPATH or beside the config file (required)", {}},
      {"kwargs", "object", nlohmann::json::object(), "keyword arguments of the factory", {}},
      {"python", "string", "python3", "the interpreter (a path, or a name looked up on PATH)", {}},
      {"step_timeout_s", "number", 600, "a step (or checkpoint) not done within this is killed: the item fails", {}},
      {"start_timeout_s", "number", 600, "the factory must return within this", {}},
  };
  d.make_workload = [](const WorkloadSpec& spec) -> std::unique_ptr<Workload> {
    return std::make_unique<PythonStepWorkload>(spec);
  };
  d.make_pipeline = [](const WorkloadSpec&) -> std::shared_ptr<InputPipeline> { return std::make_shared<IndexOnlyPipeline>(); };
  d.preflight = check_python_step;
  return d;
}

}  // namespace pperf
