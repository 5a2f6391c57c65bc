#include "reports/writers.h"

#include <fmt/format.h>

#include <algorithm>

namespace pperf {

namespace {
using nlohmann::json;

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json instances_json(const std::vector<PricedGroup>& groups) {
  json out = json::array();
  for (const auto& g : groups)
    out.push_back({{"type", g.type}, {"count", g.count}, {"role", g.role},
                   {"market", to_string(g.market)}, {"usd_per_hour", g.usd_per_hour_each},
                   {"price_basis", g.price_basis}});
  return out;
}

json step_time_json(const Result& r) {
  if (r.measurement) {
    const Summary s = r.measurement->summary();
    return {{"median", s.median}, {"mean", s.mean}, {"stdev", s.stdev}, {"cv", s.cv}, {"p5", s.p5},
            {"p95", s.p95}, {"ci95", {s.ci95[0], s.ci95[1]}}, {"n", s.n},
            {"samples", r.measurement->step_ms}};
  }
  if (r.step)  // given, not measured: a point value with no spread
    return {{"median", r.step->median_ms}, {"mean", nullptr}, {"stdev", nullptr}, {"cv", nullptr},
            {"p5", nullptr}, {"p95", nullptr}, {"ci95", {r.step->ci95_ms[0], r.step->ci95_ms[1]}},
            {"n", 0}, {"samples", json::array()}};
  return nullptr;
}

json result_json(const Result& r) {
  json j;
  j["workload"] = r.workload;
  j["preset"] = r.preset;
  j["batch_size"] = r.batch_size;
  j["configuration"] = r.configuration;
  j["baseline"] = r.baseline;
  j["measured"] = r.measured;
  j["status"] = r.status;
  j["reason"] = r.reason.empty() ? json(nullptr) : json(r.reason);
  j["instances"] = instances_json(r.instances);
  j["step_time_ms"] = step_time_json(r);
  j["throughput"] = r.measurement ? json{{"samples_per_s", r.measurement->samples_per_s()}}
                    : r.step ? json{{"samples_per_s", r.batch_size / (r.step->median_ms / 1000)}}
                             : json(nullptr);
  j["data_wait_fraction"] = r.measurement ? json(r.measurement->data_wait_fraction()) : json(nullptr);
  if (r.cost) {
    const Cost& c = *r.cost;
    j["cost"] = {{"usd_per_hour", c.usd_per_hour}, {"usd_per_step", c.usd_per_step},
                 {"usd_per_1m_samples", c.usd_per_1m_samples}, {"samples_per_usd", c.samples_per_usd},
                 {"usd_per_step_ci95", {c.usd_per_step_ci95[0], c.usd_per_step_ci95[1]}}};
    if (c.to_train)
      j["to_train"] = {{"steps", c.to_train->steps ? json(*c.to_train->steps) : json(nullptr)},
                       {"hours", c.to_train->hours}, {"usd", c.to_train->usd}};
  } else {
    j["cost"] = nullptr;
  }
  j["improvement_pct"] = optional_number(r.comparison.improvement_pct);
  j["improvement_pct_ci95"] =
      r.comparison.improvement_pct_ci95
          ? json{(*r.comparison.improvement_pct_ci95)[0], (*r.comparison.improvement_pct_ci95)[1]}
          : json(nullptr);
  j["speedup"] = r.step ? json(r.comparison.speedup) : json(nullptr);
  if (r.model)
    j["model"] = {{"params", r.model->params}, {"flops_per_sample", r.model->flops_per_sample},
                  {"precision", r.model->precision}};
  if (r.data) j["data"] = {{"source", r.data->source}, {"path", r.data->path}, {"samples", r.data->samples}};
  if (r.execution)
    j["execution"] = {
        {"threads", {{"requested", r.execution->threads_requested}, {"effective", r.execution->threads_effective}}},
        {"interop_threads",
         {{"requested", r.execution->interop_threads_requested},
          {"effective", r.execution->interop_threads_effective}}},
        {"data", {{"mode", r.execution->data_mode}, {"workers", r.execution->data_workers},
                  {"endpoints", r.execution->data_endpoints}, {"cpus", r.execution->data_cpus}}},
        {"cpus", r.execution->cpus},
        {"emulated", r.execution->emulated}};
  if (r.measurement)
    j["measurement"] = {{"warmup_steps", r.measurement->warmup_steps},
                        {"stop_reason", r.measurement->stop_reason},
                        {"elapsed_s", r.measurement->elapsed_s},
                        {"interrupted", r.measurement->interrupted},
                        {"data_wait_ms", r.measurement->data_wait_ms},
                        {"first_loss", r.measurement->first_loss},
                        {"last_loss", r.measurement->last_loss}};
  j["events"] = r.events;
  return j;
}

std::string instances_label(const std::vector<PricedGroup>& groups) {
  std::string out;
  for (const auto& g : groups)
    out += fmt::format("{}{}x {}{}", out.empty() ? "" : " + ", g.count, g.type,
                       g.market == Market::spot ? " (spot)" : "");
  return out;
}

std::string fixed(const std::optional<double>& v, int digits) {
  return v ? fmt::format("{:.{}f}", *v, digits) : "-";
}
}  // namespace

json to_json(const RunReport& report) {
  json j;
  j["schema_version"] = kResultsSchemaVersion;
  j["tool"] = {{"name", "pperf"}, {"version", report.tool_version}, {"git_sha", report.git_sha}};
  j["command"] = report.command;
  j["config"] = {{"name", report.config_name}, {"path", report.config_path}, {"sha256", report.config_sha256}};
  j["host"] = report.host;
  j["started_at"] = report.started_at;
  j["finished_at"] = report.finished_at.empty() ? json(nullptr) : json(report.finished_at);
  j["status"] = report.status;
  j["pricing"] = {{"table", report.pricing_table}, {"source", report.pricing_source},
                  {"retrieved", report.pricing_retrieved}, {"region", report.pricing_region},
                  {"currency", report.pricing_currency}, {"market", report.pricing_market},
                  {"discount_pct", report.discount_pct}};
  j["results"] = json::array();
  for (const auto& r : report.results) j["results"].push_back(result_json(r));
  return j;
}

std::string to_csv(const RunReport& report) {
  std::string out =
      "workload,preset,batch_size,configuration,baseline,measured,status,instances,"
      "step_ms_median,step_ms_ci95_lo,step_ms_ci95_hi,step_n,samples_per_s,data_wait_fraction,"
      "usd_per_hour,usd_per_step,usd_per_step_ci95_lo,usd_per_step_ci95_hi,usd_per_1m_samples,"
      "improvement_pct,improvement_pct_ci95_lo,improvement_pct_ci95_hi,speedup,reason\n";
  auto quoted = [](std::string s) {
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  auto num = [](const std::optional<double>& v) { return v ? fmt::format("{:.10g}", *v) : std::string(); };
  for (const auto& r : report.results) {
    std::optional<double> median, lo, hi, n, rate, wait, uph, ups, ulo, uhi, u1m, imp, ilo, ihi, speed;
    if (r.step) median = r.step->median_ms, lo = r.step->ci95_ms[0], hi = r.step->ci95_ms[1], speed = r.comparison.speedup;
    if (r.measurement) {
      n = static_cast<double>(r.measurement->step_ms.size());
      rate = r.measurement->samples_per_s();
      wait = r.measurement->data_wait_fraction();
    }
    if (r.cost)
      uph = r.cost->usd_per_hour, ups = r.cost->usd_per_step, ulo = r.cost->usd_per_step_ci95[0],
      uhi = r.cost->usd_per_step_ci95[1], u1m = r.cost->usd_per_1m_samples;
    imp = r.comparison.improvement_pct;
    if (r.comparison.improvement_pct_ci95)
      ilo = (*r.comparison.improvement_pct_ci95)[0], ihi = (*r.comparison.improvement_pct_ci95)[1];
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                       quoted(r.workload), quoted(r.preset), r.batch_size, quoted(r.configuration),
                       r.baseline, r.measured, r.status, quoted(instances_label(r.instances)),
                       num(median), num(lo), num(hi), num(n), num(rate), num(wait), num(uph), num(ups),
                       num(ulo), num(uhi), num(u1m), num(imp), num(ilo), num(ihi), num(speed),
                       quoted(r.reason));
  }
  return out;
}

std::string to_console_table(const RunReport& report) {
  const std::vector<std::string> header = {
      "workload",      "configuration",  "instances",      "step ms (median)", "step ms 95% CI",
      "samples/s",     "data wait %",    "USD/h",          "USD/100 steps",    "USD/100 steps 95% CI",
      "improvement %", "improvement % 95% CI", "speedup x"};
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : report.results) {
    std::vector<std::string> row = {r.workload + (r.preset.empty() ? "" : "/" + r.preset),
                                    r.configuration + (r.baseline ? " *" : ""),
                                    instances_label(r.instances)};
    if (r.status != "ok") {
      row.push_back(r.status + ": " + r.reason);
      rows.push_back(row);
      continue;
    }
    row.push_back(fixed(r.step->median_ms, 2));
    row.push_back(fmt::format("{:.2f}..{:.2f}", r.step->ci95_ms[0], r.step->ci95_ms[1]));
    row.push_back(r.measurement ? fixed(r.measurement->samples_per_s(), 1)
                                : fixed(r.batch_size / (r.step->median_ms / 1000), 1));
    row.push_back(r.measurement ? fixed(r.measurement->data_wait_fraction() * 100, 1) : "-");
    row.push_back(fixed(r.cost->usd_per_hour, 3));
    row.push_back(fmt::format("{:.4f}", r.cost->usd_per_step * 100));
    row.push_back(fmt::format("{:.4f}..{:.4f}", r.cost->usd_per_step_ci95[0] * 100,
                              r.cost->usd_per_step_ci95[1] * 100));
    row.push_back(r.baseline ? "baseline" : fixed(r.comparison.improvement_pct, 1));
    const auto& ci = r.comparison.improvement_pct_ci95;
    row.push_back(ci ? fmt::format("{:.1f}..{:.1f}", (*ci)[0], (*ci)[1]) : "-");
    row.push_back(fixed(r.comparison.speedup, 2));
    rows.push_back(row);
  }
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size() && c < width.size(); ++c)
      if (c + 1 < row.size() || row.size() == header.size()) width[c] = std::max(width[c], row[c].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c)
      out += (c ? "  " : "") + (c + 1 == cells.size() ? cells[c] : fmt::format("{:<{}}", cells[c], width[c]));
    return out + "\n";
  };
  std::string out = line(header);
  size_t total = 0;
  for (auto w : width) total += w + 2;
  out += std::string(total - 2, '-') + "\n";
  for (const auto& row : rows) out += line(row);
  std::vector<std::string> to_train;
  for (const auto& r : report.results)
    if (r.cost && r.cost->to_train)
      to_train.push_back(fmt::format("  {}: {:.4g} h, {:.4g} {} to train{}", r.configuration,
                                     r.cost->to_train->hours, r.cost->to_train->usd,
                                     report.pricing_currency,
                                     r.cost->to_train->steps ? fmt::format(" ({} steps)", *r.cost->to_train->steps) : ""));
  if (!to_train.empty()) {
    out += "time and cost to train:\n";
    for (const auto& t : to_train) out += t + "\n";
  }
  out += fmt::format("* baseline. Prices: {} ({}, retrieved {}), market {}{}.\n", report.pricing_table,
                     report.pricing_region, report.pricing_retrieved, report.pricing_market,
                     report.discount_pct > 0 ? fmt::format(", discount {:g} %", report.discount_pct) : "");
  return out;
}

}  // namespace pperf
