#include "src/measure/trace.h"

#include <ATen/record_function.h>
#include <fmt/format.h>

#include <cctype>
#include <cstdio>
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
    write_file_atomically(path_, read_text_file(partial));
    std::remove(partial.c_str());
#else
    legacy_.reset();  // writes the Chrome trace (an array of complete events) to legacy_out_
    write_file_atomically(path_, legacy_out_.str());
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
