// The comparison page as HTML (formats.h: compare_report_html).
#include "reports/formats.h"
#include "reports/html.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "src/core/axis_ticks.h"
#include "src/core/svg_chart.h"
#include "src/stats/stats.h"
#include "reports/page_text.h"
#include "reports/markup.h"
#include "reports/columns.h"

namespace pperf {

using namespace html;

namespace {
/// The pairs, most severe first: each one's step time, change with its interval, q value and cost.
std::string pairs_table(const CompareReport& r) {
  std::string out;
  out += "<h2>Pairs</h2>\n<table id=\"pairs\"><thead><tr><th>verdict</th><th>workload</th><th>configuration</th><th>mean ms</th>"
         "<th>change %</th><th>95% CI</th><th>q</th><th>" + markup_escape(r.currency) + "/100 steps</th><th>cost change % (time, price)</th></tr></thead><tbody>\n";
  for (const auto* p : pairs_by_severity(r)) {
    auto fig = [](const std::optional<PairFigures>& f, bool money) {
      if (!f) return std::string("-");
      const auto& v = money ? f->usd_per_step : f->mean_ms;
      return v ? sig(*v * (money ? 100 : 1)) : std::string("-");
    };
    out += fmt::format("<tr><td class=\"verdict-{0}\">{0}</td><td>{1}</td><td>{2}</td><td>{3} → {4}</td><td>{5}</td><td>{6}</td><td>{7}</td>"
                       "<td>{8} → {9}</td><td>{10}</td></tr>\n",
                       to_string(p->verdict), markup_escape(pair_workload_label(*p)), markup_escape(p->configuration), fig(p->baseline, false),
                       fig(p->candidate, false), p->change_pct ? fmt::format("{:+.1f}", *p->change_pct) : "-",
                       p->change_pct_ci95 ? fmt::format("{:+.1f}..{:+.1f}", (*p->change_pct_ci95)[0], (*p->change_pct_ci95)[1]) : "-",
                       p->q_value ? sig(*p->q_value, 3) : "-", fig(p->baseline, true), fig(p->candidate, true),
                       p->cost_change_pct ? fmt::format("{:+.1f} ({:+.1f}, {:+.1f})", *p->cost_change_pct, *p->cost_time_part_pct,
                                                        *p->cost_price_part_pct)
                                          : "-");
  }
  out += "</tbody></table>\n";
  return out;
}

/// Forest plot of the step-time change with its CI, the slowdown threshold shaded ("" when no
/// pair has a change).
std::string change_chart(const CompareReport& r) {
  std::string out;
  std::vector<const PairComparison*> rows;
  for (const auto* p : pairs_by_severity(r))
    if (p->change_pct) rows.push_back(p);
  if (!rows.empty()) {
    double lo = -r.options.max_slowdown_pct, hi = r.options.max_slowdown_pct;
    for (const auto* p : rows) {
      const auto ci = p->change_pct_ci95.value_or(std::array<double, 2>{*p->change_pct, *p->change_pct});
      lo = std::min({lo, ci[0], *p->change_pct});
      hi = std::max({hi, ci[1], *p->change_pct});
    }
    const double pad = (hi - lo) * 0.08 + 0.5;
    const auto marks = axis_ticks(lo - pad, hi + pad);
    const Scale x{lo - pad, hi + pad, kLabel + 60, kWidth - kRight};
    const double height = 12 + kRow * static_cast<double>(rows.size()) + 36, axis_y = 12 + kRow * static_cast<double>(rows.size());
    out += "<h2>Mean step-time change with its 95 % interval</h2>\n";
    out += fmt::format("<svg class=\"chart\" data-chart=\"change\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" "
                       "aria-label=\"step-time change per pair\">\n", kWidth, px(height), kWidth, px(height));
    out += fmt::format("<rect class=\"threshold\" x=\"{}\" y=\"4\" width=\"{}\" height=\"{}\"><title>slower than the {:g} % threshold</title></rect>\n",
                       px(x(r.options.max_slowdown_pct)), px(std::max(0.0, x.b - x(r.options.max_slowdown_pct))), px(axis_y - 4),
                       r.options.max_slowdown_pct);
    out += labelled_x_axis(x, axis_y, marks, "mean step-time change, % (95 % interval; shaded: over the slowdown threshold)", 4);
    out += fmt::format("<line class=\"zero\" x1=\"{0}\" y1=\"4\" x2=\"{0}\" y2=\"{1}\"/>\n", px(x(0)), px(axis_y));
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto& p = *rows[i];
      const double y = 12 + kRow * static_cast<double>(i) + kRow / 2, v = *p.change_pct;
      const auto ci = p.change_pct_ci95.value_or(std::array<double, 2>{v, v});
      out += fmt::format("<g class=\"pair\" data-verdict=\"{}\" data-change-pct=\"{}\"><title>{} {}: {:+.2f} % ({})</title>", to_string(p.verdict),
                         sig(v, 6), markup_escape(pair_workload_label(p)), markup_escape(p.configuration), v, to_string(p.verdict));
      out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", px(kLabel + 52), px(y + 4),
                         markup_escape(pair_workload_label(p) + " " + p.configuration));
      out += fmt::format("<line class=\"whisker\" x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\"/>", px(x(ci[0])), px(x(ci[1])), px(y));
      out += fmt::format("<circle class=\"dot {}\" cx=\"{}\" cy=\"{}\" r=\"5\"/></g>\n", to_string(p.verdict), px(x(v)), px(y));
    }
    out += "</svg>\n";
  }
  return out;
}

/// Why each alarm, undecided pair or moved price is what it is ("" when none is).
std::string details_list(const CompareReport& r) {
  std::string out;
  bool details = false;
  for (const auto* p : pairs_by_severity(r)) {
    if (!is_alarm(p->verdict) && p->verdict != Verdict::undecided && !p->price_moved) continue;
    if (!details) out += "<h2>Details</h2>\n<ul>\n", details = true;
    std::string reasons;
    for (const auto& s : p->reasons) reasons += (reasons.empty() ? "" : "; ") + s;
    out += "<li><b class=\"verdict-" + to_string(p->verdict) + "\">" + to_string(p->verdict) + "</b> " + markup_escape(pair_workload_label(*p) + " " + p->configuration) +
           ": " + markup_escape(reasons) + "</li>\n";
  }
  if (details) out += "</ul>\n";
  return out;
}
}  // namespace

std::string compare_report_html(const CompareReport& r) {
  std::string out = page_start("pperf compare: " + r.candidate.report.config_name);
  const size_t alarms = r.count(Verdict::regressed) + r.count(Verdict::missing) + r.count(Verdict::failed);
  out += "<h1>pperf compare: " + markup_escape(r.candidate.report.config_name) + "</h1>\n";
  out += fmt::format("<p class=\"subtitle\"><span class=\"{}\">{}</span> — {}.</p>\n",
                     alarms ? "verdict-regressed" : "verdict-improved", alarms ? fmt::format("{} alarm(s)", alarms) : "no regression",
                     markup_escape(compare_summary_sentence(r)));
  out += "<dl class=\"prov\" id=\"provenance\">\n";
  for (const auto* s : {&r.baseline, &r.candidate}) {
    const std::string which = s == &r.baseline ? "baseline" : "candidate";
    out += "<dt>" + which + "</dt><dd>" + markup_escape(s->file + (s->description.empty() ? "" : " (" + s->description + ")")) + "</dd>\n";
    out += "<dt>" + which + " run</dt><dd>" + markup_escape(s->report.config_name + ", git " + short_sha(s->report.git_sha) + ", started " +
                                                 s->report.started_at) + "</dd>\n";
  }
  out += "</dl>\n";
  for (const auto& w : r.warnings) out += "<p class=\"warning\">Not like for like: " + markup_escape(w.message()) + "</p>\n";
  for (const auto& n : r.notes) out += "<p class=\"note\">" + markup_escape(n) + "</p>\n";
  out += pairs_table(r);
  out += change_chart(r);
  out += details_list(r);
  return out + page_end(fmt::format("Generated by pperf compare. alpha {:g} (Benjamini–Hochberg over {} pair(s)), thresholds {:g} % "
                                    "slowdown, {:g} % cost from step time. Self-contained: no script, no network.",
                                    r.options.alpha, r.tested_pairs, r.options.max_slowdown_pct, r.options.max_cost_increase_pct));
}

}  // namespace pperf
