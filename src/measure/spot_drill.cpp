#include "src/measure/spot_drill.h"

#include <fmt/format.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <stdexcept>

#include "src/core/process.h"
#include "src/measure/device.h"
#include "src/measure/executor.h"
#include "src/measure/runner.h"
#include "src/measure/torch_info.h"
#include "src/stats/stats.h"
#include "workloads/workload.h"

namespace pperf {

std::string checkpoint_path(const std::string& dir, const std::string& configuration) {
  namespace fs = std::filesystem;
  const fs::path base = dir.empty() ? fs::temp_directory_path() : fs::path(dir);
  std::string name = configuration;
  for (char& c : name)
    if (c == '/' || c == ' ') c = '_';
  return (base / fmt::format("pperf-checkpoint-{}-{}.pt", name, getpid())).string();
}

int64_t write_checkpoint(Workload& workload, const std::string& path, int64_t step) {
  torch::serialize::OutputArchive archive;
  if (!workload.save_state(archive)) throw std::runtime_error("this workload cannot save its training state");
  archive.write("pperf_step", torch::tensor(step));
  // Dropout and other random ops draw from the default generator: without its state a restored
  // run would train on, but not as the uninterrupted one would have.
  at::Generator generator = at::detail::getDefaultCPUGenerator();
  {
    std::lock_guard<std::mutex> lock(generator.mutex());
    archive.write("pperf_rng_cpu", generator.get_state(), /*is_buffer=*/true);
  }
  // Written aside, then renamed: a reclaim during the write leaves the last checkpoint whole.
  const std::string partial = path + ".partial";
  archive.save_to(partial);
  std::filesystem::rename(partial, path);
  return static_cast<int64_t>(std::filesystem::file_size(path));
}

int64_t read_checkpoint(Workload& workload, const std::string& path) {
  torch::serialize::InputArchive archive;
  archive.load_from(path);
  workload.load_state(archive);
  torch::Tensor step, rng;
  archive.read("pperf_step", step);
  archive.read("pperf_rng_cpu", rng, /*is_buffer=*/true);
  at::Generator generator = at::detail::getDefaultCPUGenerator();
  {
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_state(rng);
  }
  return step.item<int64_t>();
}

CheckpointCost measure_checkpoint(Workload& workload, const std::string& path, int64_t repetitions) {
  const Clock& clock = steady_clock();
  std::vector<double> save_ms, restore_ms;
  CheckpointCost cost;
  cost.path = path;
  cost.repetitions = repetitions;
  try {
    for (int64_t i = 0; i < repetitions; ++i) {
      double t0 = clock.now_ms();
      cost.bytes = write_checkpoint(workload, path, 0);
      save_ms.push_back(clock.now_ms() - t0);
      t0 = clock.now_ms();
      read_checkpoint(workload, path);
      restore_ms.push_back(clock.now_ms() - t0);
    }
  } catch (...) {
    std::filesystem::remove(path);
    throw;
  }
  std::filesystem::remove(path);
  cost.save_ms = median(save_ms);
  cost.restore_ms = median(restore_ms);
  return cost;
}

void drill_train(const PlanItem& item, const WorkloadRegistry& registry, const std::string& checkpoint, int64_t steps,
                 int64_t every, bool resume) {
  const ExecutionSettings& exec = item.configuration->execution;
  WorkloadSpec spec = *item.workload;
  spec.device = exec.device.torch_device(0);
  const std::unique_ptr<Device> device = open_device(spec.device);
  const WorkloadDescriptor* descriptor = registry.find(spec.name);
  if (!descriptor) throw std::runtime_error("workload '" + spec.name + "' is not compiled into this pperf");
  if (!pin_process_to_cpus(exec.cpus)) throw std::runtime_error("cannot pin the trainer to its CPUs");
  apply_threads(exec.threads, exec.interop_threads);
  const Clock& clock = steady_clock();
  // Batches are made here, on the trainer's thread, by index: a resumed process trains on
  // exactly the batches the killed one would have.
  std::shared_ptr<InputPipeline> pipeline = descriptor->make_pipeline(spec);
  std::unique_ptr<Workload> workload = descriptor->make_workload(spec);
  std::cout << fmt::format("ready {:.3f}", clock.now_ms()) << std::endl;
  int64_t step = 0;
  if (resume) {
    step = read_checkpoint(*workload, checkpoint);
    std::cout << fmt::format("restored {} {:.3f}", step, clock.now_ms()) << std::endl;
  }
  while (step < steps) {
    workload->train_step(device->place(pipeline->make_batch(step)));
    device->synchronize();  // the line's time is the step's work done, not its launch
    ++step;
    if (step % every == 0) write_checkpoint(*workload, checkpoint, step);
    std::cout << fmt::format("step {} {:.3f}", step, clock.now_ms()) << std::endl;
  }
}

namespace {

struct Line {
  std::string kind;
  int64_t step = 0;
  double t_ms = 0;
};

/// The child's next progress line; throws when it ends or stalls.
/// (Other output on its stdout, e.g. a library's notice, is skipped.)
Line next_line(ChildProcess& child, double timeout_s) {
  for (;;) {
    const auto text = child.read_line(timeout_s);
    if (!text) {
      const auto status = child.wait(1);
      throw std::runtime_error("the drill's training process " +
                               (status ? describe_wait_status(*status) : std::string("stalled")) + " before the drill ended");
    }
    long long step = 0;
    double t = 0;
    int end = 0;
    // Whole lines only ("%n" = all of it read): "ready T" must not pass for "KIND STEP T".
    const char* line = text->c_str();
    if (std::sscanf(line, "ready %lf%n", &t, &end) == 1 && line[end] == '\0') return {"ready", 0, t};
    if (std::sscanf(line, "restored %lld %lf%n", &step, &t, &end) == 2 && line[end] == '\0') return {"restored", step, t};
    if (std::sscanf(line, "step %lld %lf%n", &step, &t, &end) == 2 && line[end] == '\0') return {"step", step, t};
  }
}

}  // namespace

SpotDrill run_spot_drill(const Config& config, const PlanItem& item, const Result& r, const DrillOptions& options) {
  const SpotSettings& spot = *item.configuration->spot;
  const std::string checkpoint = checkpoint_path(spot.checkpoint_dir, item.configuration->name);
  auto argv = [&](bool resume) {
    std::vector<std::string> a = item_argv(options.pperf_binary, "spot-drill-worker", config, item);
    a.insert(a.end(), {"--checkpoint", checkpoint,
                       // The first process would go on well past the kill; the resumed one
                       // stops once it is back where the kill struck.
                       "--steps", std::to_string(resume ? options.kill_at_step : options.kill_at_step + 10 * options.every),
                       "--every", std::to_string(options.every)});
    if (resume) a.push_back("--resume");
    return a;
  };
  SpawnOptions spawn;
  spawn.capture_stdout = true;
  spawn.death_signal = SIGKILL;
  SpotDrill d;
  d.killed_at_step = options.kill_at_step;
  try {
    double t_kill = 0;
    {
      spawn.argv = argv(false);
      ChildProcess child(spawn);
      for (;;) {
        const Line line = next_line(child, options.timeout_s);
        if (line.kind == "step" && line.step >= options.kill_at_step) {
          d.killed_at_step = line.step;
          break;
        }
      }
      // As a reclaim would: no warning the process could act on.
      child.signal(SIGKILL);
      t_kill = steady_clock().now_ms();
      child.wait(-1);
    }
    spawn.argv = argv(true);
    ChildProcess child(spawn);
    const Line ready = next_line(child, options.timeout_s);
    const Line restored = next_line(child, options.timeout_s);
    if (ready.kind != "ready" || restored.kind != "restored")
      throw std::runtime_error("the resumed training process did not restore its checkpoint");
    d.resumed_from_step = restored.step;
    Line back = restored;
    while (back.step < d.killed_at_step) back = next_line(child, options.timeout_s);
    child.wait(options.timeout_s);
    d.restart_s = (ready.t_ms - t_kill) / 1000;
    d.restore_s = (restored.t_ms - ready.t_ms) / 1000;
    d.rework_s = (back.t_ms - restored.t_ms) / 1000;
    d.measured_lost_s = (back.t_ms - t_kill) / 1000;
  } catch (...) {
    std::filesystem::remove(checkpoint);
    throw;
  }
  std::filesystem::remove(checkpoint);
  const double restore_s = spot.checkpoint_restore_s ? *spot.checkpoint_restore_s
                           : r.checkpoint             ? r.checkpoint->restore_ms / 1000
                                                      : 0;
  // What the model charges an interruption at this point, from the measurements before the
  // drill: rework + restore. The restart overhead (waiting for capacity) has no counterpart
  // on one host, and the process restart is what the drill adds to the model's R.
  d.predicted_lost_s = static_cast<double>(d.killed_at_step - d.resumed_from_step) * r.step->mean_ms / 1000 + restore_s;
  return d;
}

}  // namespace pperf
