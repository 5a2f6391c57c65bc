#include "reports/writers.h"

#include <fmt/format.h>

#include <algorithm>

namespace pperf {

namespace {
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
    if (r.step) median = r.step->median_ms, lo = r.step->ci95_ms[0], hi = r.step->ci95_ms[1];
    speed = r.comparison.speedup;
    if (r.measurement) n = static_cast<double>(r.measurement->step_ms.size());
    rate = r.samples_per_s;
    wait = r.data_wait_fraction;
    if (r.cost)
      uph = r.cost->usd_per_hour, ups = r.cost->usd_per_step, ulo = r.cost->usd_per_step_ci95[0],
      uhi = r.cost->usd_per_step_ci95[1], u1m = r.cost->usd_per_1m_samples;
    imp = r.comparison.improvement_pct;
    if (r.comparison.improvement_pct_ci95)
      ilo = (*r.comparison.improvement_pct_ci95)[0], ihi = (*r.comparison.improvement_pct_ci95)[1];
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                       quoted(r.workload), quoted(r.preset), r.batch_size, quoted(r.configuration),
                       r.baseline, r.measured, to_string(r.status), quoted(instances_label(r.instances)),
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
    if (r.status != ResultStatus::ok) {
      row.push_back(to_string(r.status) + ": " + r.reason);
      rows.push_back(row);
      continue;
    }
    row.push_back(fixed(r.step->median_ms, 2));
    row.push_back(fmt::format("{:.2f}..{:.2f}", r.step->ci95_ms[0], r.step->ci95_ms[1]));
    row.push_back(fixed(r.samples_per_s, 1));
    row.push_back(r.data_wait_fraction ? fixed(*r.data_wait_fraction * 100, 1) : "-");
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
