#include "src/measure/trace.h"

#include <ATen/record_function.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "src/core/atomic_file.h"
#include "src/measure/runner.h"
#include "workloads/common/torch_compat.h"

#if PPERF_TORCH_2
#include <torch/csrc/autograd/profiler_kineto.h>
#else
#include <torch/csrc/autograd/profiler_legacy.h>
#endif

namespace pperf {

namespace {
/// The profiler on from start() to finish(), each marked step a USER_SCOPE range.
class ProfiledSteps : public StepMarks {
 public:
  ProfiledSteps(bool cuda, std::string path) : cuda_(cuda), path_(std::move(path)) {}
  ~ProfiledSteps() override {
    step_.reset();
    if (started_) try {
        stop();
      } catch (...) {  // unwinding: the profiler is off either way
      }
  }
  void start() override {
#if PPERF_TORCH_2
    namespace prof = torch::profiler::impl;
    const torch::profiler::impl::ProfilerConfig config(prof::ProfilerState::KINETO);
    std::set<prof::ActivityType> activities{prof::ActivityType::CPU};
    if (cuda_) activities.insert(prof::ActivityType::CUDA);
    torch::autograd::profiler::prepareProfiler(config, activities);
    torch::autograd::profiler::enableProfiler(config, activities);
#else
    legacy_ = std::make_unique<torch::autograd::profiler::RecordProfile>(legacy_out_);
#endif
    started_ = true;
  }
  void begin(int64_t step_index) override {
    step_.emplace(at::RecordScope::USER_SCOPE);
    if (step_->isActive()) step_->before(fmt::format("ProfilerStep#{}", step_index));
  }
  void end() override { step_.reset(); }
  /// Stops the profiler and writes the trace.
  void finish() {
    step_.reset();
    stop();
  }

 private:
  void stop() {
    started_ = false;
#if PPERF_TORCH_2
    // Kineto writes the file itself: written beside and renamed, as atomic_file does.
    const std::string partial = path_ + ".partial";
    torch::autograd::profiler::disableProfiler()->save(partial);
    write_file_atomically(path_, chrome_trace_object(read_text_file(partial), ::getpid()));
    std::remove(partial.c_str());
#else
    legacy_.reset();  // writes the Chrome trace (an array of complete events) to legacy_out_
    write_file_atomically(path_, chrome_trace_object(legacy_out_.str(), ::getpid()));
#endif
  }

  bool cuda_;
  std::string path_;
  bool started_ = false;
  std::optional<at::RecordFunction> step_;
#if !PPERF_TORCH_2
  std::ostringstream legacy_out_;
  std::unique_ptr<torch::autograd::profiler::RecordProfile> legacy_;
#endif
};
}  // namespace

std::string chrome_trace_object(const std::string& text, int64_t pid) {
  nlohmann::json doc = nlohmann::json::parse(text);
  nlohmann::json out = doc.is_object() ? doc : nlohmann::json::object();
  nlohmann::json events = doc.is_array() ? doc : doc.value("traceEvents", nlohmann::json::array());
  // Names given as ids get numbers no numeric id of the same kind already uses.
  std::set<int64_t> pids_used;
  std::map<int64_t, std::set<int64_t>> tids_used;
  for (const auto& e : events) {
    if (e.contains("pid") && e["pid"].is_number_integer()) pids_used.insert(e["pid"].get<int64_t>());
    if (e.contains("pid") && e["pid"].is_number_integer() && e.contains("tid") && e["tid"].is_number_integer())
      tids_used[e["pid"].get<int64_t>()].insert(e["tid"].get<int64_t>());
  }
  std::map<std::string, int64_t> pid_of;
  std::map<std::pair<int64_t, std::string>, int64_t> tid_of;
  nlohmann::json names = nlohmann::json::array();
  const auto fresh = [](std::set<int64_t>& used, int64_t from) {
    while (used.count(from)) ++from;
    used.insert(from);
    return from;
  };
  for (auto& e : events) {
    if (!e.is_object()) continue;
    if (e.contains("pid") && e["pid"].is_string()) {
      const std::string name = e["pid"].get<std::string>();
      auto [at, added] = pid_of.emplace(name, 0);
      if (added) {
        at->second = fresh(pids_used, pid);
        names.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", at->second}, {"tid", 0}, {"args", {{"name", name}}}});
      }
      e["pid"] = at->second;
    }
    if (e.contains("tid") && e["tid"].is_string()) {
      const int64_t p = e.contains("pid") && e["pid"].is_number_integer() ? e["pid"].get<int64_t>() : 0;
      const std::string name = e["tid"].get<std::string>();
      auto [at, added] = tid_of.emplace(std::make_pair(p, name), 0);
      if (added) {
        at->second = fresh(tids_used[p], 1);
        names.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", p}, {"tid", at->second}, {"args", {{"name", name}}}});
      }
      e["tid"] = at->second;
    }
  }
  for (auto& n : names) events.push_back(std::move(n));
  out["traceEvents"] = std::move(events);
  if (!out.contains("displayTimeUnit")) out["displayTimeUnit"] = "ms";
  return out.dump() + "\n";
}

std::string trace_profiler() { return PPERF_TORCH_2 ? "kineto" : "autograd-legacy"; }

std::string trace_file_name(const std::string& workload, const std::string& configuration) {
  std::string name = workload + "." + configuration + ".json";
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  return name;
}

TraceReport trace_steps(Workload& workload, DataSource& data, const Device& device, int64_t steps_before,
                        const std::string& path) {
  const int64_t first_index = steps_before + kStepsBeforeTrace + 1;
  const bool cuda = device.name() != "cpu";
  ProfiledSteps profiled(cuda && PPERF_TORCH_2, path);
  TraceReport t;
  t.path = path;
  t.profiler = trace_profiler();
  t.activities = {"cpu"};
  if (cuda && PPERF_TORCH_2) t.activities.push_back("cuda");
  t.first_step = first_index;
  t.step_ms = marked_steps(workload, data, device, kStepsBeforeTrace, kTracedSteps, first_index, profiled);
  profiled.finish();
  return t;
}

}  // namespace pperf
