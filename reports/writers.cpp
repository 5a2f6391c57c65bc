#include "reports/writers.h"

#include <fmt/format.h>

#include <algorithm>

namespace pperf {

std::string instances_label(const std::vector<PricedGroup>& groups) {
  std::string out;
  for (const auto& g : groups)
    out += fmt::format("{}{}x {}{}", out.empty() ? "" : " + ", g.count, g.type,
                       g.market == Market::spot ? " (spot)" : "");
  return out;
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
    if (r.step) median = r.step->median_ms;
    if (r.step && r.step->ci95_ms) lo = (*r.step->ci95_ms)[0], hi = (*r.step->ci95_ms)[1];
    speed = r.comparison.speedup;
    if (r.measurement) n = static_cast<double>(r.measurement->step_ms.size());
    rate = r.samples_per_s;
    wait = r.data_wait_fraction;
    if (r.cost)
      uph = r.cost->usd_per_hour, ups = r.cost->usd_per_step, u1m = r.cost->usd_per_1m_samples;
    if (r.cost && r.cost->usd_per_step_ci95) ulo = (*r.cost->usd_per_step_ci95)[0], uhi = (*r.cost->usd_per_step_ci95)[1];
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

}  // namespace pperf
