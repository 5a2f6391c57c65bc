#include "bench/core/results_json.h"

#include <set>

#include "bench/core/json_view.h"

namespace pperf {

namespace {
using nlohmann::json;

const std::vector<std::string> kRunKeys = {"schema_version", "tool",     "command", "config", "host",
                                           "started_at",     "finished_at", "status", "pricing", "results"};
const std::vector<std::string> kResultKeys = {
    "workload", "preset",         "batch_size", "samples_per_step", "configuration", "baseline", "measured",
    "status",   "reason",         "instances",  "step_time_ms",     "throughput",    "data_wait_fraction",
    "cost",     "to_train",       "improvement_pct", "improvement_pct_ci95", "speedup", "model", "data",
    "execution", "measurement",   "events", "converged", "partial", "stop_reason", "speedup_ci95", "mfu", "bottleneck",
    "distributed", "checkpoint", "spot", "spot_drill"};

json or_null(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
json pair(const std::array<double, 2>& v) { return json::array({v[0], v[1]}); }
json pair_or_null(const std::optional<std::array<double, 2>>& v) { return v ? pair(*v) : json(nullptr); }

/// Members of `object` whose keys are not in `known`.
json unknown_members(const json& object, const std::vector<std::string>& known) {
  json out = json::object();
  const std::set<std::string> k(known.begin(), known.end());
  for (const auto& [key, value] : object.items())
    if (!k.count(key)) out[key] = value;
  return out;
}

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
          {"ci95", pair_or_null(r.step->ci95_ms)},
          {"mean_ci95", pair_or_null(r.step->mean_ci95_ms)},
          {"ci_nominal_level", r.step->ci_nominal_level},
          {"lag1_autocorrelation", or_null(r.step->lag1_autocorrelation)},
          {"n", r.measurement ? static_cast<int64_t>(r.measurement->step_ms.size()) : int64_t{0}},
          {"samples", r.measurement ? json(r.measurement->step_ms) : json::array()}};
}

json result_json(const Result& r) {
  json j = r.unknown_fields;
  j["workload"] = r.workload;
  j["preset"] = r.preset;
  j["batch_size"] = r.batch_size;
  j["samples_per_step"] = r.samples_per_step;
  j["configuration"] = r.configuration;
  j["baseline"] = r.baseline;
  j["measured"] = r.measured;
  j["status"] = to_string(r.status);
  j["reason"] = r.reason.empty() ? json(nullptr) : json(r.reason);
  j["instances"] = json::array();
  for (const auto& g : r.instances) {
    json group = {{"type", g.type}, {"count", g.count}, {"role", g.role}, {"market", to_string(g.market)},
                  {"usd_per_hour", g.usd_per_hour_each}, {"price_basis", g.price_basis}};
    if (g.usd_per_hour_range) group["usd_per_hour_range"] = *g.usd_per_hour_range;
    if (!g.cheapest_zone.empty()) group["zones"] = {{"cheapest", g.cheapest_zone}, {"dearest", g.dearest_zone}};
    j["instances"].push_back(group);
  }
  j["step_time_ms"] = step_time_json(r);
  j["throughput"] = r.samples_per_s ? json{{"samples_per_s", *r.samples_per_s}} : json(nullptr);
  j["data_wait_fraction"] = or_null(r.data_wait_fraction);
  j["converged"] = r.converged ? json(*r.converged) : json(nullptr);
  j["partial"] = r.partial;
  j["stop_reason"] = r.stop_reason ? json(*r.stop_reason) : json(nullptr);
  j["mfu"] = or_null(r.mfu);
  if (r.bottleneck) {
    const Bottleneck& b = *r.bottleneck;
    j["bottleneck"] = {{"verdict", b.verdict},
                       {"evidence", b.evidence},
                       {"trainer_cpu_pct", b.trainer_cpu_pct},
                       {"data_cpu_pct", or_null(b.data_cpu_pct)},
                       {"load_average_before", b.load_average_before},
                       {"load_average_during", b.load_average_during},
                       {"others_cpu_pct", b.others_cpu_pct}};
  }
  if (r.cost) {
    const Cost& c = *r.cost;
    j["cost"] = {{"usd_per_hour", c.usd_per_hour}, {"usd_per_step", c.usd_per_step},
                 {"usd_per_1m_samples", c.usd_per_1m_samples}, {"samples_per_usd", c.samples_per_usd},
                 {"usd_per_step_ci95", pair_or_null(c.usd_per_step_ci95)}};
    if (c.usd_per_hour_range) j["cost"]["usd_per_hour_range"] = *c.usd_per_hour_range;
    if (c.to_train)
      j["to_train"] = {{"steps", c.to_train->steps ? json(*c.to_train->steps) : json(nullptr)},
                       {"hours", c.to_train->hours}, {"usd", c.to_train->usd}};
  } else {
    j["cost"] = nullptr;
  }
  j["improvement_pct"] = or_null(r.comparison.improvement_pct);
  j["improvement_pct_ci95"] = r.comparison.improvement_pct_ci95 ? pair(*r.comparison.improvement_pct_ci95) : json(nullptr);
  j["speedup"] = or_null(r.comparison.speedup);
  j["speedup_ci95"] = pair_or_null(r.comparison.speedup_ci95);
  if (r.model)
    j["model"] = {{"params", r.model->params}, {"flops_per_sample", r.model->flops_per_sample},
                  {"precision", r.model->precision}};
  if (r.data) j["data"] = {{"source", r.data->source}, {"path", r.data->path}, {"samples", r.data->samples}};
  if (r.execution) {
    const ExecutionReport& e = *r.execution;
    j["execution"] = {
        {"threads", {{"requested", e.threads_requested}, {"effective", e.threads_effective}}},
        {"interop_threads", {{"requested", e.interop_threads_requested}, {"effective", e.interop_threads_effective}}},
        {"data", {{"mode", e.data_mode}, {"workers", e.data_workers}, {"endpoints", e.data_endpoints}, {"cpus", e.data_cpus}}},
        {"cpus", e.cpus},
        {"emulated", e.emulated},
        {"device", e.device},
        {"gpu_utilization", e.gpu ? json{{"gpu", e.gpu->gpu},
                                         {"samples", e.gpu->samples},
                                         {"mean_pct", e.gpu->mean_pct},
                                         {"max_pct", e.gpu->max_pct},
                                         {"max_memory_used_mib", e.gpu->max_memory_used_mib}}
                                  : json(nullptr)}};
    if (e.device_peak)  // GPU results only: CPU results use host.peak_gflops
      j["execution"]["device_peak_gflops"] = {
          {"fp32", e.device_peak->fp32_gflops},
          {"bf16", e.device_peak->bf16_gflops ? json(*e.device_peak->bf16_gflops) : json(nullptr)},
          {"gemm", e.device_peak->gemm},
          {"model", e.device_peak->model},
          {"tf32", {{"matmul", e.device_peak->matmul_tf32}, {"cudnn", e.device_peak->cudnn_tf32}}},
          {"datasheet", {{"fp32", e.device_peak->datasheet_fp32_gflops ? json(*e.device_peak->datasheet_fp32_gflops) : json(nullptr)},
                         {"bf16", e.device_peak->datasheet_bf16_gflops ? json(*e.device_peak->datasheet_bf16_gflops) : json(nullptr)}}}};
  }
  if (r.measurement) {
    const Measurement& m = *r.measurement;
    j["measurement"] = {{"warmup_steps", m.warmup_steps}, {"stop_reason", m.stop_reason},
                        {"elapsed_s", m.elapsed_s},       {"interrupted", m.interrupted},
                        {"data_wait_ms", m.data_wait_ms}, {"first_loss", m.first_loss},
                        {"last_loss", m.last_loss},       {"executor", m.executor}};
  }
  j["events"] = r.events;
  if (r.distributed) j["distributed"] = distributed_json(*r.distributed);
  if (r.checkpoint) j["checkpoint"] = to_json(*r.checkpoint);
  if (r.spot) j["spot"] = to_json(*r.spot);
  if (r.spot_drill) j["spot_drill"] = to_json(*r.spot_drill);
  return j;
}

// --- reading ---------------------------------------------------------------------------

std::array<double, 2> read_pair(const JsonView& v) {
  const auto items = v.items();
  if (items.size() != 2) v.fail("expected [lo, hi]");
  return {items[0].as_number(), items[1].as_number()};
}

std::vector<double> read_numbers(const JsonView& v) {
  std::vector<double> out;
  for (const auto& item : v.items()) out.push_back(item.as_number());
  return out;
}

std::vector<int> read_ints(const JsonView& v) {
  std::vector<int> out;
  for (const auto& item : v.items()) out.push_back(static_cast<int>(item.as_int()));
  return out;
}

std::vector<std::string> read_strings(const JsonView& v) {
  std::vector<std::string> out;
  for (const auto& item : v.items()) out.push_back(item.as_string());
  return out;
}

std::optional<double> optional_number(const JsonView& v, const std::string& key) {
  auto m = v.find_value(key);
  return m ? std::optional<double>(m->as_number()) : std::nullopt;
}

template <typename Enum>
Enum read_enum(const JsonView& v, std::optional<Enum> (*parse)(const std::string&), const std::vector<std::string>& names) {
  const auto parsed = parse(v.as_string());
  if (!parsed) v.as_choice(names);  // fails with the names allowed
  return *parsed;
}

PricedGroup read_group(const JsonView& v) {
  PricedGroup g;
  g.type = v.at("type").as_string();
  g.count = static_cast<int>(v.at("count").as_positive_int());
  g.role = v.at("role").as_choice({"dnn", "data"});
  g.market = read_enum<Market>(v.at("market"), parse_market, {"on_demand", "spot"});
  g.usd_per_hour_each = v.at("usd_per_hour").as_number();
  g.price_basis = v.string_or("price_basis", "");
  if (auto range = v.find_value("usd_per_hour_range")) {
    const auto ends = range->items();
    if (ends.size() != 2 || ends[0].as_number() > ends[1].as_number()) range->fail("expected [lo, hi] with lo <= hi");
    g.usd_per_hour_range = std::array<double, 2>{ends[0].as_number(), ends[1].as_number()};
  }
  if (auto zones = v.find("zones")) {
    g.cheapest_zone = zones->at("cheapest").as_string();
    g.dearest_zone = zones->at("dearest").as_string();
  }
  return g;
}

void read_step_time(const JsonView& v, Result& r) {
  StepTimeEstimate e;
  e.median_ms = v.at("median").as_number();
  if (auto ci = v.find_value("ci95")) e.ci95_ms = read_pair(*ci);
  const auto mean = v.find_value("mean");  // null in files from before issue 13 for given times
  e.mean_ms = mean ? mean->as_number() : e.median_ms;
  if (auto ci = v.find_value("mean_ci95")) e.mean_ci95_ms = read_pair(*ci);
  if (auto level = v.find_value("ci_nominal_level")) e.ci_nominal_level = level->as_number();
  if (auto r1 = v.find_value("lag1_autocorrelation")) e.lag1_autocorrelation = r1->as_number();
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

Measurement read_measurement(const JsonView& v, const JsonView& step_time) {
  Measurement m;
  m.step_ms = read_numbers(step_time.at("samples"));
  if (static_cast<int64_t>(m.step_ms.size()) != step_time.at("n").as_non_negative_int())
    step_time.at("n").fail("n differs from the number of samples");
  m.data_wait_ms = read_numbers(v.at("data_wait_ms"));
  m.warmup_steps = v.at("warmup_steps").as_non_negative_int();
  m.stop_reason = v.at("stop_reason").as_string();
  m.elapsed_s = v.at("elapsed_s").as_number();
  m.interrupted = v.at("interrupted").as_bool();
  m.first_loss = v.at("first_loss").as_number();
  m.last_loss = v.at("last_loss").as_number();
  m.executor = v.string_or("executor", "in_process");
  return m;
}

ExecutionReport read_execution(const JsonView& v) {
  ExecutionReport e;
  e.threads_requested = v.at("threads").at("requested").as_int();
  e.threads_effective = v.at("threads").at("effective").as_int();
  e.interop_threads_requested = v.at("interop_threads").at("requested").as_int();
  e.interop_threads_effective = v.at("interop_threads").at("effective").as_int();
  const JsonView data = v.at("data");
  e.data_mode = data.at("mode").as_string();
  e.data_workers = data.at("workers").as_int();
  e.data_endpoints = read_strings(data.at("endpoints"));
  e.data_cpus = read_ints(data.at("cpus"));
  e.cpus = read_ints(v.at("cpus"));
  e.emulated = v.at("emulated").as_bool();
  e.device = v.string_or("device", "cpu");  // files from before GPUs were supported: CPU
  if (auto g = v.find("gpu_utilization"); g && !g->raw().is_null())
    e.gpu = GpuUtilization{g->string_or("gpu", "all"), g->at("samples").as_int(), g->at("mean_pct").as_number(),
                           g->at("max_pct").as_number(), g->at("max_memory_used_mib").as_number()};
  if (auto p = v.find("device_peak_gflops"); p && !p->raw().is_null()) {
    e.device_peak = DevicePeak{p->at("fp32").as_positive_number(),
                               p->find_value("bf16") ? std::optional(p->at("bf16").as_positive_number()) : std::nullopt,
                               p->at("gemm").as_string()};
    // Files from before the GPU's model, TF32 policy and datasheet were recorded: unknown.
    e.device_peak->model = p->string_or("model", "");
    if (auto tf32 = p->find("tf32")) {
      e.device_peak->matmul_tf32 = tf32->at("matmul").as_bool();
      e.device_peak->cudnn_tf32 = tf32->at("cudnn").as_bool();
    }
    if (auto sheet = p->find("datasheet")) {
      if (sheet->find_value("fp32")) e.device_peak->datasheet_fp32_gflops = sheet->at("fp32").as_positive_number();
      if (sheet->find_value("bf16")) e.device_peak->datasheet_bf16_gflops = sheet->at("bf16").as_positive_number();
    }
  }
  return e;
}

Result read_result(const JsonView& v) {
  if (!v.raw().is_object()) v.fail("expected an object");
  Result r;
  r.unknown_fields = unknown_members(v.raw(), kResultKeys);
  r.workload = v.at("workload").as_string();
  r.preset = v.string_or("preset", "");
  r.batch_size = v.at("batch_size").as_positive_int();
  r.samples_per_step = v.has("samples_per_step") ? v.at("samples_per_step").as_positive_int() : r.batch_size;
  r.configuration = v.at("configuration").as_string();
  r.baseline = v.at("baseline").as_bool();
  r.measured = v.at("measured").as_bool();
  r.status = read_enum<ResultStatus>(v.at("status"), parse_result_status, {"ok", "failed", "not_run"});
  if (auto reason = v.find_value("reason")) r.reason = reason->as_string();
  for (const auto& g : v.at("instances").items()) r.instances.push_back(read_group(g));
  const auto step_time = v.find_value("step_time_ms");
  if (step_time) read_step_time(*step_time, r);
  if (auto m = v.find_value("measurement")) {
    if (!step_time) v.at("step_time_ms").fail("a measurement needs step_time_ms");
    r.measurement = read_measurement(*m, *step_time);
  }
  if (auto t = v.find_value("throughput")) r.samples_per_s = t->at("samples_per_s").as_number();
  r.data_wait_fraction = optional_number(v, "data_wait_fraction");
  if (auto c = v.find_value("converged")) r.converged = c->as_bool();
  if (auto p = v.find_value("partial")) r.partial = p->as_bool();
  if (auto s = v.find_value("stop_reason")) r.stop_reason = s->as_string();
  r.mfu = optional_number(v, "mfu");
  if (auto b = v.find_value("bottleneck")) {
    Bottleneck bn;
    bn.verdict = b->at("verdict").as_string();
    bn.evidence = b->at("evidence").as_string();
    bn.trainer_cpu_pct = b->at("trainer_cpu_pct").as_number();
    bn.data_cpu_pct = optional_number(*b, "data_cpu_pct");
    bn.load_average_before = b->at("load_average_before").as_number();
    bn.load_average_during = b->at("load_average_during").as_number();
    bn.others_cpu_pct = b->at("others_cpu_pct").as_number();
    r.bottleneck = bn;
  }
  if (auto c = v.find_value("cost")) {
    Cost cost;
    cost.usd_per_hour = c->at("usd_per_hour").as_number();
    cost.usd_per_step = c->at("usd_per_step").as_number();
    if (auto ci = c->find_value("usd_per_step_ci95")) cost.usd_per_step_ci95 = read_pair(*ci);
    if (auto range = c->find_value("usd_per_hour_range")) cost.usd_per_hour_range = read_pair(*range);
    cost.usd_per_1m_samples = c->at("usd_per_1m_samples").as_number();
    cost.samples_per_usd = c->at("samples_per_usd").as_number();
    if (auto t = v.find_value("to_train")) {
      ToTrain train;
      if (auto steps = t->find_value("steps")) train.steps = steps->as_positive_int();
      train.hours = t->at("hours").as_number();
      train.usd = t->at("usd").as_number();
      cost.to_train = train;
    }
    r.cost = cost;
  }
  r.comparison.improvement_pct = optional_number(v, "improvement_pct");
  if (auto ci = v.find_value("improvement_pct_ci95")) r.comparison.improvement_pct_ci95 = read_pair(*ci);
  r.comparison.speedup = optional_number(v, "speedup");
  if (auto ci = v.find_value("speedup_ci95")) r.comparison.speedup_ci95 = read_pair(*ci);
  if (auto m = v.find_value("model"))
    r.model = ModelInfo{m->at("params").as_non_negative_int(), m->at("flops_per_sample").as_number(),
                        m->at("precision").as_string(), {}};
  if (auto d = v.find_value("data"))
    r.data = DataInfo{d->at("source").as_string(), d->at("path").as_string(), d->at("samples").as_non_negative_int()};
  if (auto e = v.find_value("execution")) r.execution = read_execution(*e);
  if (auto events = v.find_value("events")) r.events = read_strings(*events);
  if (auto d = v.find_value("distributed")) r.distributed = read_distributed(*d);
  if (auto c = v.find_value("checkpoint")) r.checkpoint = read_checkpoint_cost(*c);
  if (auto s = v.find_value("spot")) r.spot = read_spot_estimate(*s);
  if (auto d = v.find_value("spot_drill")) r.spot_drill = read_spot_drill(*d);
  if (r.status == ResultStatus::ok && !r.step) v.fail("status ok without step_time_ms");
  return r;
}
}  // namespace

json to_json(const RunReport& report) {
  json j = report.unknown_fields;
  j["schema_version"] = kResultsSchemaVersion;
  j["tool"] = {{"name", "pperf"}, {"version", report.tool_version}, {"git_sha", report.git_sha}};
  j["command"] = report.command;
  j["config"] = {{"name", report.config_name}, {"path", report.config_path}, {"sha256", report.config_sha256}};
  j["host"] = report.host;
  j["started_at"] = report.started_at;
  j["finished_at"] = report.finished_at.empty() ? json(nullptr) : json(report.finished_at);
  j["status"] = to_string(report.status);
  j["pricing"] = {{"table", report.pricing_table}, {"source", report.pricing_source},
                  {"retrieved", report.pricing_retrieved}, {"region", report.pricing_region},
                  {"currency", report.pricing_currency}, {"market", report.pricing_market},
                  {"discount_pct", report.discount_pct}};
  if (!report.pricing_sha256.empty()) {  // the table's identity (files before it lack both keys)
    j["pricing"]["published"] = report.pricing_published.empty() ? json(nullptr) : json(report.pricing_published);
    j["pricing"]["sha256"] = report.pricing_sha256;
  }
  j["results"] = json::array();
  for (const auto& r : report.results) j["results"].push_back(result_json(r));
  return j;
}

std::string results_file_text(const RunReport& report) { return to_json(report).dump(2) + "\n"; }

RunReport results_from_json(const json& doc, const std::string& file) {
  const JsonView root(doc, file);
  if (!doc.is_object()) root.fail("expected a pperf results object");
  const JsonView version = root.at("schema_version");
  if (version.as_int() != kResultsSchemaVersion)
    version.fail("schema_version " + doc["schema_version"].dump() + " is not supported (this pperf reads " +
                 std::to_string(kResultsSchemaVersion) + ")");
  RunReport report;
  report.unknown_fields = unknown_members(doc, kRunKeys);
  const JsonView tool = root.at("tool");
  report.tool_version = tool.at("version").as_string();
  report.git_sha = tool.at("git_sha").as_string();
  report.command = root.at("command").as_choice({"run", "cost"});
  const JsonView config = root.at("config");
  report.config_name = config.at("name").as_string();
  report.config_path = config.at("path").as_string();
  report.config_sha256 = config.at("sha256").as_string();
  report.host = root.at("host").raw();
  report.started_at = root.at("started_at").as_string();
  if (auto f = root.find_value("finished_at")) report.finished_at = f->as_string();
  report.status = read_enum<RunStatus>(root.at("status"), parse_run_status, {"complete", "interrupted", "failed"});
  const JsonView pricing = root.at("pricing");
  report.pricing_table = pricing.at("table").as_string();
  report.pricing_source = pricing.at("source").as_string();
  report.pricing_retrieved = pricing.at("retrieved").as_string();
  report.pricing_region = pricing.at("region").as_string();
  report.pricing_currency = pricing.at("currency").as_string();
  report.pricing_market = pricing.at("market").as_string();
  report.discount_pct = pricing.number_or("discount_pct", 0);
  if (auto published = pricing.find_value("published")) report.pricing_published = published->as_string();
  report.pricing_sha256 = pricing.string_or("sha256", "");
  for (const auto& item : root.at("results").items()) report.results.push_back(read_result(item));
  return report;
}

RunReport read_results_file(const std::string& path) { return results_from_json(read_json_file(path), path); }

}  // namespace pperf
