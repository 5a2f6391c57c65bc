#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>

#include "src/core/data_dir.h"
#include "src/dataservice/data_service.h"
#include "src/measure/data_sources.h"

namespace pperf {

LocalDataGroup::LocalDataGroup(const std::string& pperf_binary, const std::string& config_path,
                               const std::string& workload, int64_t processes, int64_t workers_each,
                               const std::vector<int>& cpus, const std::string& token, double start_timeout_s)
    : LocalDataGroup(std::vector<std::string>{pperf_binary, "data-worker", "--config", config_path, "--workload", workload},
                     processes, workers_each, cpus, token, start_timeout_s) {}

std::vector<std::string> python_worker_command(const std::string& pperf_binary, const WorkloadSpec& spec,
                                               const DataSettings& data) {
  std::string python_path;
  for (const auto& p : data.python_path) python_path += (python_path.empty() ? "" : ":") + p;
  return {"/usr/bin/python3", find_shipped_script(pperf_binary, "pperf-data-worker.py"), "--wire", spec.wire,
          data.dataset_is_dataloader ? "--dataloader" : "--dataset",
          data.dataset,
          "--dataset-kwargs", data.dataset_kwargs.dump(), "--python-path", python_path,
          "--batch-size", std::to_string(spec.batch_size), "--seed", std::to_string(spec.seed),
          "--prefetch-batches", std::to_string(data.prefetch_batches)};
}

std::string check_python_dataset(const std::string& pperf_binary, const WorkloadSpec& spec, const DataSettings& data,
                                 const std::vector<TensorDecl>& expected) {
  nlohmann::json tensors = nlohmann::json::array();
  for (const auto& t : expected) tensors.push_back({{"name", t.name}, {"dtype", t.dtype}, {"shape", t.shape}});
  SpawnOptions spawn;
  spawn.argv = python_worker_command(pperf_binary, spec, data);
  spawn.argv.insert(spawn.argv.end(), {"--check", "--expect-tensors", tensors.dump()});
  spawn.capture_stdout = true;
  ChildProcess child(spawn);
  const std::optional<std::string> line = child.read_line(300);
  const std::optional<int> status = child.wait(10);
  if (line && line->find("check: ok") != std::string::npos && status && *status == 0) return "";
  const std::string marker = "not started: ";
  if (line && line->find(marker) != std::string::npos) return line->substr(line->find(marker) + marker.size());
  return "pperf-data-worker.py --check " + (status ? describe_wait_status(*status) : std::string("did not finish")) +
         (line && !line->empty() ? ": " + *line : "");
}

LocalDataGroup::LocalDataGroup(const std::vector<std::string>& command, int64_t processes, int64_t workers_each,
                               const std::vector<int>& cpus, const std::string& token, double start_timeout_s,
                               const std::string& listen_host)
    : token_(token) {
  const std::string cpu_list = fmt::to_string(fmt::join(cpus, ","));
  for (int64_t i = 0; i < processes; ++i) {
    SpawnOptions spawn;
    spawn.argv = command;
    spawn.argv.insert(spawn.argv.end(), {"--listen", listen_host + ":0", "--workers", std::to_string(workers_each)});
    if (!cpu_list.empty()) spawn.argv.insert(spawn.argv.end(), {"--cpus", cpu_list});
    // The token travels in the environment, not argv, so `ps` does not show it.
    if (token.empty()) spawn.unset_env = {"PPERF_DATA_TOKEN"};
    else spawn.set_env = {{"PPERF_DATA_TOKEN", token}};
    spawn.capture_stdout = true;
    workers_.emplace_back(spawn);
    ChildProcess& worker = workers_.back();
    // The worker prints its address once it listens; give it time to load its data set.
    const std::string marker = "listening on ";
    std::optional<std::string> line = worker.read_line(start_timeout_s);
    if (!line || line->find(marker) == std::string::npos) {
      const auto status = worker.wait(1);
      throw std::runtime_error("data worker " + std::to_string(worker.pid()) + " did not start" +
                               (status ? ": " + describe_wait_status(*status) : "") +
                               (line && !line->empty() ? ": " + *line : ""));
    }
    endpoints_.push_back(line->substr(line->find(marker) + marker.size()));
  }
}

LocalDataGroup::~LocalDataGroup() { stop(); }

std::vector<std::string> LocalDataGroup::stop() {
  if (stopped_) return {};
  stopped_ = true;
  // Ask politely (Shutdown RPC), then wait; one that does not exit is stopped (SIGTERM, SIGKILL).
  for (const auto& endpoint : endpoints_) request_shutdown(endpoint, token_, "", 2);
  std::vector<std::string> events;
  for (size_t i = 0; i < workers_.size(); ++i) {
    ChildProcess& w = workers_[i];
    const std::string who =
        "data worker " + (i < endpoints_.size() ? endpoints_[i] + " " : std::string()) + "(pid " + std::to_string(w.pid()) + ")";
    const std::optional<int> status = w.wait(5);
    if (!status) {
      events.push_back(who + " did not exit within 5 s of its Shutdown: stopped, " + describe_wait_status(w.stop(2)));
    } else if (WIFEXITED(*status) && WEXITSTATUS(*status) == kDataWorkerForcedExit) {
      events.push_back(who + " exited with code " + std::to_string(kDataWorkerForcedExit) +
                       ": its stop watchdog forced the exit (a stream or its teardown outlived the stop deadline)");
    } else if (*status != 0) {
      events.push_back(who + " " + describe_wait_status(*status) + " when stopped");
    }
  }
  return events;
}

std::vector<int> LocalDataGroup::pids() const {
  std::vector<int> out;
  for (const auto& w : workers_) out.push_back(w.pid());
  return out;
}

}  // namespace pperf
