#include "src/core/result.h"

#include <algorithm>

#include "src/core/json_view.h"

namespace pperf {

std::string to_string(ResultStatus status) {
  switch (status) {
    case ResultStatus::ok: return "ok";
    case ResultStatus::failed: return "failed";
    case ResultStatus::not_run: return "not_run";
  }
  return "failed";
}

std::string to_string(RunStatus status) {
  switch (status) {
    case RunStatus::complete: return "complete";
    case RunStatus::interrupted: return "interrupted";
    case RunStatus::failed: return "failed";
  }
  return "failed";
}

std::string to_string(Market market) { return market == Market::spot ? "spot" : "on_demand"; }

std::optional<ResultStatus> parse_result_status(const std::string& name) {
  for (auto s : {ResultStatus::ok, ResultStatus::failed, ResultStatus::not_run})
    if (to_string(s) == name) return s;
  return std::nullopt;
}

std::optional<RunStatus> parse_run_status(const std::string& name) {
  for (auto s : {RunStatus::complete, RunStatus::interrupted, RunStatus::failed})
    if (to_string(s) == name) return s;
  return std::nullopt;
}

std::optional<Market> parse_market(const std::string& name) {
  for (auto m : {Market::on_demand, Market::spot})
    if (to_string(m) == name) return m;
  return std::nullopt;
}

std::string host_fact(const nlohmann::json& host, std::initializer_list<const char*> path) {
  const nlohmann::json* v = &host;
  for (const char* p : path) {
    if (!v->is_object() || !v->contains(p)) return "unknown";
    v = &(*v)[p];
  }
  return v->is_string() ? v->get<std::string>() : v->dump();
}

RunStatus overall_status(const std::vector<Result>& results, bool interrupted) {
  if (interrupted) return RunStatus::interrupted;
  const bool all_failed = !results.empty() && std::all_of(results.begin(), results.end(), [](const Result& r) {
    return r.status == ResultStatus::failed;
  });
  return all_failed ? RunStatus::failed : RunStatus::complete;
}

// --- JSON, record by record (docs/results.md) ------------------------------------------

using nlohmann::json;

namespace {
template <typename Enum>
Enum read_enum(const JsonView& v, std::optional<Enum> (*parse)(const std::string&), const std::vector<std::string>& names) {
  const auto parsed = parse(v.as_string());
  if (!parsed) v.as_choice(names);  // fails with the names allowed
  return *parsed;
}

/// [lo, hi] that contains `estimate`; otherwise fails naming the interval's pointer.
std::array<double, 2> interval_around(const JsonView& v, double estimate, const char* name) {
  const std::array<double, 2> ci = v.as_pair();
  if (!(ci[0] <= estimate && estimate <= ci[1])) v.fail(std::string("expected [lo, hi] with lo <= ") + name + " (" + json(estimate).dump() + ") <= hi");
  return ci;
}

/// The `step_time_ms` object: the estimate, the spread and the measured samples together.
json step_time_json(const Result& r) {
  if (!r.step) return nullptr;
  const auto spread = [&](double StepTimeSpread::*field) {
    return r.spread ? json((*r.spread).*field) : json(nullptr);
  };
  return {{"median", r.step->median_ms},
          {"mean", r.step->mean_ms},
          {"stdev", spread(&StepTimeSpread::stdev_ms)},
          {"cv", spread(&StepTimeSpread::cv)},
          {"p5", spread(&StepTimeSpread::p5_ms)},
          {"p95", spread(&StepTimeSpread::p95_ms)},
          {"ci95", value_or_null(r.step->ci95_ms)},
          {"mean_ci95", value_or_null(r.step->mean_ci95_ms)},
          {"ci_nominal_level", r.step->ci_nominal_level},
          {"lag1_autocorrelation", value_or_null(r.step->lag1_autocorrelation)},
          {"n", r.measurement ? static_cast<int64_t>(r.measurement->step_ms.size()) : int64_t{0}},
          {"samples", r.measurement ? json(r.measurement->step_ms) : json::array()}};
}

void read_step_time(const JsonView& v, Result& r) {
  StepTimeEstimate e;
  e.median_ms = v.at("median").as_number();
  const auto mean = v.find_value("mean");  // null in files from before issue 13 for given times
  e.mean_ms = mean ? mean->as_number() : e.median_ms;
  // An interval must hold its estimate (and so have lo <= hi): one that does not was edited or swapped.
  if (auto ci = v.find_value("ci95")) e.ci95_ms = interval_around(*ci, e.median_ms, "median");
  if (auto ci = v.find_value("mean_ci95")) e.mean_ci95_ms = interval_around(*ci, e.mean_ms, "mean");
  if (auto level = v.find_value("ci_nominal_level")) e.ci_nominal_level = level->as_number();
  e.lag1_autocorrelation = v.find_number("lag1_autocorrelation");
  r.step = e;
  if (v.find_value("stdev")) {
    StepTimeSpread s;
    s.mean_ms = e.mean_ms;
    s.stdev_ms = v.at("stdev").as_number();
    s.cv = v.at("cv").as_number();
    s.p5_ms = v.at("p5").as_number();
    s.p95_ms = v.at("p95").as_number();
    r.spread = s;
  }
}
}  // namespace

json to_json(const PricedGroup& g) {
  json j = {{"type", g.type}, {"count", g.count}, {"role", g.role}, {"market", to_string(g.market)},
            {"usd_per_hour", g.usd_per_hour_each}, {"price_basis", g.price_basis}};
  if (g.usd_per_hour_range) j["usd_per_hour_range"] = *g.usd_per_hour_range;
  if (!g.cheapest_zone.empty()) j["zones"] = {{"cheapest", g.cheapest_zone}, {"dearest", g.dearest_zone}};
  return j;
}

PricedGroup read_priced_group(const JsonView& v) {
  PricedGroup g;
  g.type = v.at("type").as_string();
  g.count = static_cast<int>(v.at("count").as_positive_int());
  g.role = v.at("role").as_choice({"dnn", "data"});
  g.market = read_enum<Market>(v.at("market"), parse_market, {"on_demand", "spot"});
  g.usd_per_hour_each = v.at("usd_per_hour").as_number();
  g.price_basis = v.string_or("price_basis", "");
  if (auto range = v.find_value("usd_per_hour_range")) {
    g.usd_per_hour_range = range->as_pair();
    if ((*g.usd_per_hour_range)[0] > (*g.usd_per_hour_range)[1]) range->fail("expected [lo, hi] with lo <= hi");
  }
  if (auto zones = v.find("zones")) {
    g.cheapest_zone = zones->at("cheapest").as_string();
    g.dearest_zone = zones->at("dearest").as_string();
  }
  return g;
}

json to_json(const Cost& c) {
  json j = json::object();
  write_fields(j, c, kCostFields);
  if (c.usd_per_hour_range) j["usd_per_hour_range"] = *c.usd_per_hour_range;
  return j;
}

Cost read_cost(const JsonView& v) {
  Cost c;
  read_fields(v, c, kCostFields);
  if (auto range = v.find_value("usd_per_hour_range")) {
    c.usd_per_hour_range = range->as_pair();
    if ((*c.usd_per_hour_range)[0] > (*c.usd_per_hour_range)[1]) range->fail("expected [lo, hi] with lo <= hi");
  }
  return c;
}

json to_json(const GpuUtilization& g) {
  json j = {{"gpu", g.gpu}};
  write_fields(j, g, kGpuUtilizationFields);
  return j;
}

GpuUtilization read_gpu_utilization(const JsonView& v) {
  GpuUtilization g;
  g.gpu = v.string_or("gpu", "all");
  read_fields(v, g, kGpuUtilizationFields);
  return g;
}

json to_json(const DevicePeak& p) {
  return {{"fp32", p.fp32_gflops},
          {"fp32_tf32", value_or_null(p.tf32_gflops)},
          {"bf16", value_or_null(p.bf16_gflops)},
          {"gemm", p.gemm},
          {"model", p.model},
          {"tf32", {{"matmul", p.matmul_tf32}, {"cudnn", p.cudnn_tf32}}},
          {"datasheet",
           {{"fp32", value_or_null(p.datasheet_fp32_gflops)},
            {"fp32_tf32", value_or_null(p.datasheet_tf32_gflops)},
            {"bf16", value_or_null(p.datasheet_bf16_gflops)}}}};
}

DevicePeak read_device_peak(const JsonView& v) {
  DevicePeak p;
  p.fp32_gflops = v.at("fp32").as_positive_number();
  if (v.find_value("fp32_tf32")) p.tf32_gflops = v.at("fp32_tf32").as_positive_number();
  if (v.find_value("bf16")) p.bf16_gflops = v.at("bf16").as_positive_number();
  p.gemm = v.at("gemm").as_string();
  // Files from before the GPU's model, TF32 policy and datasheet were recorded: unknown.
  p.model = v.string_or("model", "");
  if (auto tf32 = v.find("tf32")) {
    p.matmul_tf32 = tf32->at("matmul").as_bool();
    p.cudnn_tf32 = tf32->at("cudnn").as_bool();
  }
  if (auto sheet = v.find("datasheet")) {
    if (sheet->find_value("fp32")) p.datasheet_fp32_gflops = sheet->at("fp32").as_positive_number();
    if (sheet->find_value("fp32_tf32")) p.datasheet_tf32_gflops = sheet->at("fp32_tf32").as_positive_number();
    if (sheet->find_value("bf16")) p.datasheet_bf16_gflops = sheet->at("bf16").as_positive_number();
    // Before TF32's figure had a key of its own, `fp32` held it whenever the run used TF32.
    if (!sheet->find("fp32_tf32") && (p.matmul_tf32 || p.cudnn_tf32)) {
      p.datasheet_tf32_gflops = p.datasheet_fp32_gflops;
      p.datasheet_fp32_gflops.reset();
    }
  }
  return p;
}

int64_t MemoryReport::peak_bytes() const {
  int64_t sum = 0;
  for (const ProcessMemory& p : processes) sum += p.peak_rss_bytes;
  return sum > 0 ? sum : group_peak_bytes.value_or(0);
}

json to_json(const MemoryReport& m) {
  json processes = json::array(), devices = json::array();
  for (const ProcessMemory& p : m.processes)
    processes.push_back({{"process", p.process}, {"pid", p.pid}, {"peak_rss_bytes", p.peak_rss_bytes}});
  for (const DeviceMemory& d : m.devices)
    devices.push_back({{"device", d.device},
                       {"peak_allocated_bytes", d.peak_allocated_bytes},
                       {"peak_reserved_bytes", d.peak_reserved_bytes}});
  return {{"limit_bytes", value_or_null(m.limit_bytes)},
          {"bound", m.bound},
          {"group_peak_bytes", value_or_null(m.group_peak_bytes)},
          {"processes", processes},
          {"devices", devices}};
}

MemoryReport read_memory(const JsonView& v) {
  MemoryReport m;
  if (v.find_value("limit_bytes")) m.limit_bytes = v.at("limit_bytes").as_non_negative_int();
  m.bound = v.at("bound").as_string();
  if (v.find_value("group_peak_bytes")) m.group_peak_bytes = v.at("group_peak_bytes").as_non_negative_int();
  for (const JsonView& p : v.at("processes").items())
    m.processes.push_back({p.at("process").as_string(), p.at("pid").as_non_negative_int(), p.at("peak_rss_bytes").as_non_negative_int()});
  for (const JsonView& d : v.at("devices").items())
    m.devices.push_back({d.at("device").as_string(), d.at("peak_allocated_bytes").as_non_negative_int(),
                         d.at("peak_reserved_bytes").as_non_negative_int()});
  return m;
}

json to_json(const ExecutionReport& e) {
  json j = {{"threads", {{"requested", e.threads_requested}, {"effective", e.threads_effective}}},
            {"interop_threads", {{"requested", e.interop_threads_requested}, {"effective", e.interop_threads_effective}}},
            {"data", {{"mode", to_string(e.data_mode)}, {"workers", e.data_workers}, {"endpoints", e.data_endpoints}, {"cpus", e.data_cpus}}},
            {"cpus", e.cpus},
            {"emulated", e.emulated},
            {"device", e.device},
            {"gpu_utilization", e.gpu ? to_json(*e.gpu) : json(nullptr)}};
  if (!e.data_wire.empty()) {
    j["data"]["wire"] = {{"format", e.data_wire}};
    if (e.data_wire_bytes_per_sample > 0) j["data"]["wire"]["bytes_per_sample"] = e.data_wire_bytes_per_sample;
  }
  if (const auto& l = e.data_link)
    j["data"]["link"] = {{"gbps", l->gbps}, {"source", l->source}, {"scale", l->scale}, {"emulated_gbps", l->emulated_gbps}, {"how", l->how}};
  if (e.device_peak) j["device_peak_gflops"] = to_json(*e.device_peak);  // GPU results only: CPU ones use host.peak_gflops
  if (e.math) write_fields(j["math"], *e.math, kMathSettingsFields);       // GPU results only
  return j;
}

ExecutionReport read_execution(const JsonView& v) {
  ExecutionReport e;
  e.threads_requested = v.at("threads").at("requested").as_int();
  e.threads_effective = v.at("threads").at("effective").as_int();
  e.interop_threads_requested = v.at("interop_threads").at("requested").as_int();
  e.interop_threads_effective = v.at("interop_threads").at("effective").as_int();
  const JsonView data = v.at("data");
  e.data_mode = read_enum<DataMode>(data.at("mode"));
  e.data_workers = data.at("workers").as_int();
  e.data_endpoints = data.at("endpoints").as_strings();
  e.data_cpus = data.at("cpus").as_ints();
  if (auto wire = data.find_value("wire")) {
    e.data_wire = wire->at("format").as_string();
    if (wire->find_value("bytes_per_sample")) e.data_wire_bytes_per_sample = wire->at("bytes_per_sample").as_non_negative_int();
  }
  if (auto link = data.find_value("link"))
    e.data_link = DataLinkReport{link->at("gbps").as_number(), link->at("source").as_string(), link->at("scale").as_number(),
                                 link->at("emulated_gbps").as_number(), link->at("how").as_string()};
  e.cpus = v.at("cpus").as_ints();
  e.emulated = v.at("emulated").as_bool();
  e.device = v.string_or("device", "cpu");  // files from before GPUs were supported: CPU
  if (auto g = v.find_value("gpu_utilization")) e.gpu = read_gpu_utilization(*g);
  if (auto p = v.find_value("device_peak_gflops")) e.device_peak = read_device_peak(*p);
  if (auto m = v.find_value("math")) read_fields(*m, e.math.emplace(), kMathSettingsFields);
  return e;
}

json to_json(const Decision& d) {
  json j = {{"verdict", to_string(d.verdict)}, {"looks", d.looks}};
  write_fields(j, d, kDecisionFields);
  return j;
}

Decision read_decision(const JsonView& v) {
  Decision d;
  d.verdict = read_enum<CostVerdict>(v.at("verdict"));
  d.looks = v.at("looks").as_non_negative_int();
  read_fields(v, d, kDecisionFields);
  return d;
}

json to_json(const Placement& p) {
  json j = json::object();
  write_fields(j, p, kPlacementFields);
  return j;
}

Placement read_placement(const JsonView& v) {
  if (!v.raw().is_object()) v.fail("expected the placement object");
  Placement p;
  read_fields(v, p, kPlacementFields);
  return p;
}

json to_json(const Result& r) {
  json j = r.unknown_fields;
  write_fields(j, r, kResultFields);
  j["preset"] = r.preset;
  j["batch_size"] = r.batch_size;
  if (r.params.is_object()) j["params"] = r.params;
  if (r.hosts) write_fields(j["hosts"], *r.hosts, kHostPoolingFields);
  j["samples_per_step"] = r.samples_per_step;
  j["status"] = to_string(r.status);
  j["reason"] = r.reason.empty() ? json(nullptr) : json(r.reason);
  j["instances"] = json::array();
  for (const auto& g : r.instances) j["instances"].push_back(to_json(g));
  j["step_time_ms"] = step_time_json(r);
  j["throughput"] = r.samples_per_s ? json{{"samples_per_s", *r.samples_per_s}} : json(nullptr);
  j["partial"] = r.partial;
  j["stop_reason"] = r.measurement ? json(to_string(r.measurement->stop.code)) : json(nullptr);
  if (r.bottleneck) j["bottleneck"] = to_json(*r.bottleneck);
  j["cost"] = r.cost ? to_json(*r.cost) : json(nullptr);
  if (r.cost && r.cost->to_train)
    j["to_train"] = {{"steps", value_or_null(r.cost->to_train->steps)}, {"hours", r.cost->to_train->hours},
                     {"usd", r.cost->to_train->usd}};
  j["improvement_pct"] = value_or_null(r.comparison.improvement_pct);
  j["improvement_pct_ci95"] = value_or_null(r.comparison.improvement_pct_ci95);
  j["speedup"] = value_or_null(r.comparison.speedup);
  j["speedup_ci95"] = value_or_null(r.comparison.speedup_ci95);
  if (r.decision) j["decision"] = to_json(*r.decision);
  if (r.model) j["model"] = to_json(*r.model);
  if (r.data) j["data"] = to_json(*r.data);
  if (r.execution) j["execution"] = to_json(*r.execution);
  if (r.memory) j["memory"] = to_json(*r.memory);
  if (r.measurement) j["measurement"] = to_json(*r.measurement);
  j["events"] = r.events;
  if (r.distributed) j["distributed"] = to_json(*r.distributed);
  if (r.checkpoint) j["checkpoint"] = to_json(*r.checkpoint);
  if (r.spot) j["spot"] = to_json(*r.spot);
  if (r.spot_drill) j["spot_drill"] = to_json(*r.spot_drill);
  if (r.trace) j["trace"] = to_json(*r.trace);
  return j;
}

nlohmann::json to_json(const TraceReport& t) {
  return {{"path", t.path}, {"profiler", t.profiler}, {"activities", t.activities}, {"first_step", t.first_step},
          {"steps", t.step_ms.size()}, {"step_ms", t.step_ms}};
}

TraceReport read_trace_report(const JsonView& v) {
  TraceReport t;
  t.path = v.at("path").as_string();
  t.profiler = v.at("profiler").as_string();
  t.activities = v.at("activities").as_strings();
  t.first_step = v.at("first_step").as_non_negative_int();
  t.step_ms = v.at("step_ms").as_numbers();
  if (static_cast<int64_t>(t.step_ms.size()) != v.at("steps").as_non_negative_int())
    v.at("steps").fail("differs from the number of step_ms");
  return t;
}

Result read_result(const JsonView& v) {
  if (!v.raw().is_object()) v.fail("expected an object");
  Result r;
  read_fields(v, r, kResultFields);
  if (auto params = v.find("params")) {
    if (!params->raw().is_object()) params->fail("expected the workload's params object");
    r.params = params->raw();
  }
  if (auto hosts = v.find("hosts")) read_fields(*hosts, r.hosts.emplace(), kHostPoolingFields);
  r.preset = v.string_or("preset", "");
  r.batch_size = v.at("batch_size").as_positive_int();
  r.samples_per_step = v.has("samples_per_step") ? v.at("samples_per_step").as_positive_int() : r.batch_size;
  r.status = read_enum<ResultStatus>(v.at("status"), parse_result_status, {"ok", "failed", "not_run"});
  if (auto reason = v.find_value("reason")) r.reason = reason->as_string();
  for (const auto& g : v.at("instances").items()) r.instances.push_back(read_priced_group(g));
  const auto step_time = v.find_value("step_time_ms");
  if (step_time) read_step_time(*step_time, r);
  if (auto m = v.find_value("measurement")) {
    if (!step_time) v.at("step_time_ms").fail("a measurement needs step_time_ms");
    r.measurement = read_measurement(*m);
    r.measurement->step_ms = step_time->at("samples").as_numbers();
    if (static_cast<int64_t>(r.measurement->step_ms.size()) != step_time->at("n").as_non_negative_int())
      step_time->at("n").fail("n differs from the number of samples");
  }
  if (auto t = v.find_value("throughput")) r.samples_per_s = t->at("samples_per_s").as_number();
  if (auto p = v.find_value("partial")) r.partial = p->as_bool();
  if (auto s = v.find_value("stop_reason"); s && r.measurement) r.measurement->stop.code = read_enum<StopReason>(*s);
  if (auto b = v.find_value("bottleneck")) r.bottleneck = read_bottleneck(*b);
  if (auto c = v.find_value("cost")) {
    r.cost = read_cost(*c);
    if (auto t = v.find_value("to_train")) {
      ToTrain train;
      if (auto steps = t->find_value("steps")) train.steps = steps->as_positive_int();
      train.hours = t->at("hours").as_number();
      train.usd = t->at("usd").as_number();
      r.cost->to_train = train;
    }
  }
  r.comparison.improvement_pct = v.find_number("improvement_pct");
  if (auto ci = v.find_value("improvement_pct_ci95")) r.comparison.improvement_pct_ci95 = ci->as_pair();
  r.comparison.speedup = v.find_number("speedup");
  if (auto ci = v.find_value("speedup_ci95")) r.comparison.speedup_ci95 = ci->as_pair();
  if (auto d = v.find_value("decision")) r.decision = read_decision(*d);
  if (auto m = v.find_value("model")) r.model = read_model_info(*m);
  if (auto d = v.find_value("data")) r.data = read_data_info(*d);
  if (auto e = v.find_value("execution")) r.execution = read_execution(*e);
  if (auto m = v.find_value("memory")) r.memory = read_memory(*m);
  if (auto events = v.find_value("events")) r.events = events->as_strings();
  if (auto d = v.find_value("distributed")) r.distributed = read_distributed(*d);
  if (auto c = v.find_value("checkpoint")) r.checkpoint = read_checkpoint_cost(*c);
  if (auto s = v.find_value("spot")) r.spot = read_spot_estimate(*s);
  if (auto d = v.find_value("spot_drill")) r.spot_drill = read_spot_drill(*d);
  if (auto t = v.find_value("trace")) r.trace = read_trace_report(*t);
  if (r.status == ResultStatus::ok && !r.step) v.fail("status ok without step_time_ms");
  // What this version does not know is kept and written back unchanged: derived from what the
  // lines above read, so no list of known keys is kept by hand.
  r.unknown_fields = v.unread_members();
  return r;
}

}  // namespace pperf
