// Where a training step's time goes, operator by operator: for a step below 50 % MFU, is it
// the GEMMs that are slow, or the time around them? The workload is built through the registry
// as pperf builds it; batches are made before any step, so only train_step is observed. Warm-up
// steps run unprofiled, then STEPS steps under libtorch's legacy autograd profiler (CPU
// ranges); each operator's self time (src/core/op_profile.h) is summed into categories.
//
// usage: pperf_profile WORKLOAD PRESET BATCH_SIZE [STEPS] [key=value ...] [--warmup N]
//                      [--threads N] [--json FILE] [--dump FILE]
//   e.g. build/pperf_profile bert_classification base 16 3
//        build/pperf_profile vit_synthetic small 32 2 precision=bf16
// STEPS defaults to 3, --warmup to 2, --threads to every logical CPU (as the peak GEMM rate is
// measured). The host's peak comes from pperf's per-host cache (~/.cache/pperf/peak_gflops.json),
// measured here first if absent. --json writes the tables as JSON; --dump every profiled range
// (thread, start and duration in µs from the first step's start, self µs, parent index, name) as
// tab-separated lines, to look at the timeline itself.
//
// Besides the tables it prints what the profile cannot show: page faults per step, the CPU time
// other processes took meanwhile, and a 1024^3 GEMM's rate measured right after the steps at the
// same thread count (the GEMM rate to expect on this host at that moment). The profiler costs a
// few microseconds per operator: ops called by the ten thousand (CPU bmm's per-matrix select and
// resolve_conj) show mostly that cost; compare the profiled steps' wall time with the warm-up's.
#include <ATen/record_function.h>
#include <fmt/format.h>
#include <malloc.h>
#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/torch.h>

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <thread>

#include "src/core/op_profile.h"
#include "src/env/cpu_usage.h"
#include "src/env/host_info.h"
#include "src/history/history.h"
#include "src/measure/peak_flops.h"
#include "src/measure/torch_info.h"
#include "workloads/workload.h"

using namespace pperf;

namespace {
constexpr const char* kStepRange = "pperf::train_step";
constexpr const char* kBackwardPrefix = "autograd::engine::evaluate_function: ";

struct Options {
  std::string workload, preset;
  int64_t batch_size = 0, steps = 3, warmup = 2, threads = 0;
  nlohmann::json params = nlohmann::json::object();
  std::string json_path, dump_path;
};

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "pperf_profile: " << why
            << "\nusage: pperf_profile WORKLOAD PRESET BATCH_SIZE [STEPS] [key=value ...] [--warmup N] "
               "[--threads N] [--json FILE] [--dump FILE]\n";
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  o.threads = static_cast<int64_t>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--json") o.json_path = value();
    else if (a == "--dump") o.dump_path = value();
    else if (a == "--warmup") o.warmup = std::stoll(value());
    else if (a == "--threads") o.threads = std::stoll(value());
    else if (a.find('=') != std::string::npos) o.params[a.substr(0, a.find('='))] = a.substr(a.find('=') + 1);
    else positional.push_back(a);
  }
  if (positional.size() < 3 || positional.size() > 4) usage("expected WORKLOAD PRESET BATCH_SIZE [STEPS]");
  o.workload = positional[0];
  o.preset = positional[1];
  o.batch_size = std::stoll(positional[2]);
  if (positional.size() == 4) o.steps = std::stoll(positional[3]);
  if (o.batch_size < 1 || o.steps < 1 || o.warmup < 0 || o.threads < 1) usage("BATCH_SIZE, STEPS and --threads must be >= 1");
  return o;
}

/// key=value strings as the params' declared types (strings and paths verbatim, the rest JSON),
/// checked against the param's type and choices as config validation checks them.
nlohmann::json typed_params(const WorkloadDescriptor& d, const nlohmann::json& raw) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, text] : raw.items()) {
    const ParamSpec* p = d.find_param(key);
    if (!p) usage("workload " + d.name + " has no param '" + key + "'");
    nlohmann::json v;
    if (p->type == "string" || p->type == "path") v = text;
    else v = nlohmann::json::parse(text.get<std::string>(), nullptr, false);
    if (!param_value_has_type(v, p->type)) usage("param '" + key + "' must be of type " + p->type);
    if (!p->choices.empty() && std::find(p->choices.begin(), p->choices.end(), v) == p->choices.end())
      usage("param '" + key + "' must be one of " + nlohmann::json(p->choices).dump());
    out[key] = v;
  }
  return out;
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

/// "bf16" when the model ran under bf16 autocast, else "fp32" (as mfu.h picks the peak).
std::string model_precision_of(const Workload& w) {
  return w.model_info().precision.rfind("bf16", 0) == 0 ? "bf16" : "fp32";
}

double own_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + t.tv_nsec / 1e9;
}

/// Minor + major page faults of this process so far.
int64_t page_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt + u.ru_majflt;
}

/// Appends the legacy profiler's push/pop events, every thread's list, to `out`.
void append_range_events(const torch::autograd::profiler::thread_event_lists& lists, std::vector<RangeEvent>& out) {
  using torch::autograd::profiler::EventKind;
  for (const auto& list : lists)
    for (const auto& e : list) {
      if (e.kind() != EventKind::PushRange && e.kind() != EventKind::PopRange) continue;
      RangeEvent r;
      r.push = e.kind() == EventKind::PushRange;
      r.thread = e.threadId();
      r.handle = e.handle();
      if (r.push) r.name = e.name();
      r.ns = std::llround(e.cpuUs() * 1000.0);
      out.push_back(std::move(r));
    }
}
}  // namespace

static int profile(int argc, char** argv) {
  // As pperf's own process does (src/cli/main.cpp): freed buffers stay mapped for reuse.
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  const Options o = parse(argc, argv);
  const WorkloadDescriptor* descriptor = builtin_workloads().find(o.workload);
  if (!descriptor) usage("no workload '" + o.workload + "'");
  if (!descriptor->find_preset(o.preset)) usage("workload " + o.workload + " has no preset '" + o.preset + "'");
  const WorkloadSpec spec = make_workload_spec(*descriptor, o.preset, o.batch_size, typed_params(*descriptor, o.params));
  const AppliedThreads threads = apply_threads(o.threads, 1);

  // MFU's denominator, as `pperf run` gets it.
  nlohmann::json host = capture_host(std::vector<std::string>(argv, argv + argc));
  host["torch"] = torch_facts();
  const nlohmann::json peak = cached_peak_gflops(host_fingerprint(host), default_peak_cache_path());

  std::unique_ptr<Workload> workload = descriptor->make_workload(spec);
  const std::shared_ptr<InputPipeline> pipeline = descriptor->make_pipeline(spec);
  std::vector<Batch> batches;
  for (int64_t i = 0; i < o.warmup + o.steps; ++i) batches.push_back(pipeline->make_batch(i));

  // Per step: wall time, page faults (a step that maps fresh memory pays for it here), and, for
  // the profiled steps, this process's and the host's CPU time (a neighbour's load slows the
  // steps without showing in the profile).
  std::vector<double> warmup_ms, step_ms;
  std::vector<int64_t> warmup_faults, step_faults;
  double profiled_s = 0, own_s = 0, host_s = 0;
  for (int64_t i = 0; i < o.warmup; ++i) {
    const int64_t faults = page_faults();
    const auto start = std::chrono::steady_clock::now();
    workload->train_step(batches[static_cast<size_t>(i)]);
    warmup_ms.push_back(ms_since(start));
    warmup_faults.push_back(page_faults() - faults);
  }
  // The profiler is switched on for one step at a time and its events taken after each: left to
  // pile up over steps, they made each step slower than the one before and raised the peak memory
  // (ViT-S/16 bf16, batch 64: 3.6, 5.1, 6.3 s per step and 8.5 GiB, against 3.3-4.5 s and 4.9 GiB).
  using namespace torch::autograd::profiler;
  std::vector<RangeEvent> events;
  for (int64_t i = o.warmup; i < o.warmup + o.steps; ++i) {
    enableProfilerLegacy(torch::profiler::impl::ProfilerConfig(torch::profiler::impl::ProfilerState::CPU));
    const double host_before = host_busy_cpu_s(), own_before = own_cpu_s();
    const int64_t faults = page_faults();
    const auto start = std::chrono::steady_clock::now();
    {
      RECORD_USER_SCOPE(kStepRange);
      workload->train_step(batches[static_cast<size_t>(i)]);
    }
    step_ms.push_back(ms_since(start));
    step_faults.push_back(page_faults() - faults);
    profiled_s += step_ms.back() / 1e3;
    own_s += own_cpu_s() - own_before;
    host_s += host_busy_cpu_s() - host_before;
    append_range_events(disableProfilerLegacy(), events);
  }
  const double others_s = std::max(0.0, host_s - own_s);
  const double logical_cpus = std::max(1u, std::thread::hardware_concurrency());
  // The GEMM rate this host gives right now at this run's thread count: under a neighbour's load
  // the cached peak is out of reach, and this says how far.
  const std::string precision = model_precision_of(*workload);
  const double ref_host_before = host_busy_cpu_s(), ref_own_before = own_cpu_s();
  const auto ref_start = std::chrono::steady_clock::now();
  double reference_gflops = 0;
  try {
    reference_gflops = gemm_gflops(precision, 1024, 1.0);
  } catch (const c10::Error&) {
    // bf16 does not work here: the workload fell back to fp32 too (its events say so).
  }
  const double ref_s = ms_since(ref_start) / 1e3;
  const double ref_others = std::max(0.0, host_busy_cpu_s() - ref_host_before - (own_cpu_s() - ref_own_before));
  const std::vector<Range> ranges = nest_ranges(events);
  const StepProfile p = summarize_steps(ranges, kStepRange, kBackwardPrefix);
  if (!o.dump_path.empty()) {
    int64_t t0 = INT64_MAX;
    for (const auto& r : ranges)
      if (r.name == kStepRange) t0 = std::min(t0, r.start_ns);
    std::ofstream dump(o.dump_path);
    dump << "index\tthread\tstart_us\tduration_us\tself_us\tparent\tname\n";
    for (size_t i = 0; i < ranges.size(); ++i)
      dump << fmt::format("{}\t{}\t{:.1f}\t{:.1f}\t{:.1f}\t{}\t{}\n", i, ranges[i].thread, (ranges[i].start_ns - t0) / 1e3,
                          ranges[i].inclusive_ns() / 1e3, ranges[i].self_ns / 1e3, ranges[i].parent, ranges[i].name);
  }
  if (p.steps != o.steps) {
    std::cerr << "pperf_profile: the profiler recorded " << p.steps << " step ranges, expected " << o.steps << "\n";
    return 1;
  }

  const ModelInfo model = workload->model_info();
  const double n = static_cast<double>(p.steps);
  const double mean_step_ms = p.step_ns / n / 1e6, op_ms = p.op_ns / n / 1e6;
  const auto pct = [&](int64_t ns) { return p.op_ns > 0 ? 100.0 * ns / p.op_ns : 0.0; };
  fmt::print("{} {} batch {}: {} profiled step(s) after {} unprofiled warm-up step(s); {} intra-op thread(s)\n",
             o.workload, o.preset, o.batch_size, o.steps, o.warmup, threads.threads);
  fmt::print("model: {} params, {:.2f} GFLOP per sample (training, 3 x analytic forward), precision {}\n",
             model.params, model.flops_per_sample / 1e9, model.precision);
  for (const auto& e : model.events) fmt::print("event: {}\n", e);
  std::string w;
  for (double ms : warmup_ms) w += fmt::format("{}{:.0f} ms", w.empty() ? "" : ", ", ms);
  fmt::print("warm-up steps (unprofiled): {}\n", w.empty() ? "none" : w);
  std::string s;
  for (double ms : step_ms) s += fmt::format("{}{:.0f} ms", s.empty() ? "" : ", ", ms);
  fmt::print("profiled steps: {}; step range mean {:.0f} ms per step\n", s, mean_step_ms);
  std::string f;
  for (int64_t x : warmup_faults) f += fmt::format("{}{}", f.empty() ? "" : ", ", x);
  f += " | profiled ";
  for (size_t i = 0; i < step_faults.size(); ++i) f += fmt::format("{}{}", i ? ", " : "", step_faults[i]);
  fmt::print("page faults per step: warm-up {}\n", f);
  fmt::print("CPU during the profiled steps: this process {:.2f} CPUs busy; other processes {:.0f} % of the host's {:.0f} "
             "logical CPUs{}\n",
             own_s / profiled_s, 100 * others_s / (profiled_s * logical_cpus), logical_cpus,
             others_s / (profiled_s * logical_cpus) >= 0.25 ? " (a busy host: step times include contention)" : "");
  fmt::print("peak resident memory of this process: {:.1f} GiB\n",
             peak_rss_bytes() / (1024.0 * 1024 * 1024));
  fmt::print("profiled op time (self time summed over threads): {:.0f} ms per step ({:.1f} % of the step's wall time); "
             "host code between ops {:.0f} ms per step\n",
             op_ms, 100.0 * p.op_ns / std::max<int64_t>(p.step_ns, 1), p.outside_ns / n / 1e6);
  fmt::print("phases (op self time per step): forward {:.0f} ms ({:.1f} %), backward {:.0f} ms ({:.1f} %), "
             "after backward (optimizer update, loss read) {:.0f} ms ({:.1f} %)\n\n",
             p.phase_ns[0] / n / 1e6, pct(p.phase_ns[0]), p.phase_ns[1] / n / 1e6, pct(p.phase_ns[1]),
             p.phase_ns[2] / n / 1e6, pct(p.phase_ns[2]));

  // Steps differ (page faults, a neighbour): each one's GEMM and non-GEMM time on its own.
  const auto gemm_of = [](const std::vector<CategoryTotal>& categories) {
    int64_t ns = 0;
    for (const auto& c : categories)
      if (c.category == "GEMM" || c.category == "convolution") ns += c.self_ns;
    return ns;
  };
  const double flops_per_step = model.flops_per_sample * static_cast<double>(o.batch_size);
  fmt::print("{:<8} {:>9} {:>12} {:>16} {:>16} {:>14}\n", "step", "wall ms", "page faults", "GEMM+conv ms",
             "other ops ms", "GEMM GFLOP/s");
  for (size_t i = 0; i < p.per_step.size(); ++i) {
    int64_t all_ns = 0;
    for (const auto& c : p.per_step[i].categories) all_ns += c.self_ns;
    const int64_t gemm_ns = gemm_of(p.per_step[i].categories);
    fmt::print("{:<8} {:>9.0f} {:>12} {:>16.0f} {:>16.0f} {:>14.1f}\n", i + 1, p.per_step[i].step_ns / 1e6,
               i < step_faults.size() ? step_faults[i] : 0, gemm_ns / 1e6, (all_ns - gemm_ns) / 1e6,
               gemm_ns > 0 ? flops_per_step / (gemm_ns / 1e9) / 1e9 : 0.0);
  }
  fmt::print("\n{:<24} {:>14} {:>8}\n", "category", "self ms/step", "share");
  for (const auto& c : p.categories)
    fmt::print("{:<24} {:>14.1f} {:>6.1f} %\n", c.category, c.self_ns / n / 1e6, pct(c.self_ns));
  fmt::print("\ntop 15 operators by self time\n{:<26} {:<24} {:>12} {:>8} {:>10}  {}\n", "operator", "category",
             "self ms/step", "share", "calls/step", "mostly under");
  for (size_t i = 0; i < std::min<size_t>(15, p.ops.size()); ++i) {
    const OpTotal& op = p.ops[i];
    fmt::print("{:<26} {:<24} {:>12.1f} {:>6.1f} % {:>10.0f}  {}\n", op.name, op.category, op.self_ns / n / 1e6,
               pct(op.self_ns), op.calls / n, op.parent.empty() ? "(step)" : op.parent);
  }

  // The workloads count GEMM and convolution FLOPs only (descriptor's flops_per_sample), so
  // their total over the time spent in those ops is the rate the GEMMs themselves reached.
  const int64_t gemm_ns = gemm_of(p.categories);
  double peak_gflops = 0;  // bf16 is null where CPU autocast failed
  if (const auto it = peak.find(precision); it != peak.end() && it->is_number()) peak_gflops = it->get<double>();
  const double achieved_gflops = gemm_ns > 0 ? flops_per_step / (gemm_ns / n / 1e9) / 1e9 : 0;
  const double step_gflops = flops_per_step / (mean_step_ms / 1e3) / 1e9;
  fmt::print("\nmodel FLOPs per step: {:.1f} GFLOP; GEMM + convolution self time {:.0f} ms per step ({:.1f} % of op time)\n",
             flops_per_step / 1e9, gemm_ns / n / 1e6, pct(gemm_ns));
  if (peak_gflops > 0) {
    fmt::print("achieved GEMM rate: {:.1f} GFLOP/s = {:.1f} % of this host's measured {} peak {:.1f} GFLOP/s ({} GEMM, {} threads)\n",
               achieved_gflops, 100 * achieved_gflops / peak_gflops, precision, peak_gflops, peak.value("gemm", "?"),
               peak.value("threads", 0));
    fmt::print("MFU under the profiler (mean profiled step, {:.0f} ms): {:.1f} GFLOP/s = {:.1f} % of that peak\n",
               mean_step_ms, step_gflops, 100 * step_gflops / peak_gflops);
    // The profiler's own cost (per op, and the memory its events take) is not in these steps.
    if (!warmup_ms.empty()) {
      const double unprofiled_gflops = flops_per_step / (warmup_ms.back() / 1e3) / 1e9;
      fmt::print("MFU without the profiler (last warm-up step, {:.0f} ms): {:.1f} GFLOP/s = {:.1f} % of that peak\n",
                 warmup_ms.back(), unprofiled_gflops, 100 * unprofiled_gflops / peak_gflops);
    }
  } else {
    fmt::print("achieved GEMM rate: {:.1f} GFLOP/s; no {} peak known for this host\n", achieved_gflops, precision);
  }
  if (reference_gflops > 0)
    fmt::print("reference: 1024x1024x1024 {} GEMMs right after the steps, {} thread(s): {:.1f} GFLOP/s (other processes "
               "{:.0f} % of the CPUs meanwhile); the step's GEMMs reached {:.1f} % of it\n",
               precision, threads.threads, reference_gflops, 100 * ref_others / (ref_s * logical_cpus),
               100 * achieved_gflops / reference_gflops);

  if (!o.json_path.empty()) {
    nlohmann::json j = {{"workload", o.workload}, {"preset", o.preset}, {"batch_size", o.batch_size},
                        {"params", spec.params}, {"intra_op_threads", threads.threads},
                        {"precision", model.precision}, {"warmup_step_ms", warmup_ms}, {"profiled_step_ms", step_ms},
                        {"warmup_page_faults", warmup_faults}, {"profiled_page_faults", step_faults},
                        {"own_cpus_busy", own_s / profiled_s}, {"peak_rss_bytes", peak_rss_bytes()}, {"others_cpu_pct", 100 * others_s / (profiled_s * logical_cpus)},
                        {"op_ms_per_step", op_ms}, {"outside_ops_ms_per_step", p.outside_ns / n / 1e6},
                        {"phase_ms_per_step", {{"forward", p.phase_ns[0] / n / 1e6}, {"backward", p.phase_ns[1] / n / 1e6},
                                               {"after_backward", p.phase_ns[2] / n / 1e6}}},
                        {"model_gflop_per_step", flops_per_step / 1e9}, {"gemm_gflops", achieved_gflops},
                        {"reference_gemm_gflops", reference_gflops},
                        {"peak_gflops", peak}, {"categories", nlohmann::json::array()}, {"ops", nlohmann::json::array()}};
    for (const auto& c : p.categories)
      j["categories"].push_back({{"category", c.category}, {"self_ms_per_step", c.self_ns / n / 1e6}, {"share_pct", pct(c.self_ns)}});
    for (const auto& op : p.ops)
      j["ops"].push_back({{"name", op.name}, {"category", op.category}, {"self_ms_per_step", op.self_ns / n / 1e6},
                          {"share_pct", pct(op.self_ns)}, {"calls_per_step", op.calls / n}, {"mostly_under", op.parent}});
    std::ofstream(o.json_path) << j.dump(2) << "\n";
  }
  return 0;
}

int main(int argc, char** argv) {
  try {
    return profile(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "pperf_profile: " << e.what() << "\n";
    return 1;
  }
}
