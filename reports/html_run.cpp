// The run page as HTML (formats.h: run_report_html): decisions, provenance, the results table,
// each workload's charts, a sweep's race and the history's trends.
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
#include "reports/decide_text.h"

namespace pperf {

using namespace html;

namespace {
/// An interval for drawing and tables; a point where there is none (a given step time).
std::array<double, 2> ci_or(const std::optional<std::array<double, 2>>& ci, double point) {
  return ci.value_or(std::array<double, 2>{point, point});
}

std::string provenance(const RunReport& r, const std::string& source) {
  const auto& h = r.host;
  std::vector<std::pair<std::string, std::string>> rows = {
      {"results", source},
      {"config", r.config_name + " (" + r.config_path + ")"},
      {"config sha256", r.config_sha256},
      {"status", to_string(r.status) + " (" + r.command + ")"},
      {"started", r.started_at},
      {"finished", r.finished_at.empty() ? "-" : r.finished_at},
      {"pperf", r.tool_version + ", git " + r.git_sha},
      {!r.decide ? "host" : "decided on", host_fact(h, {"hostname"}) + ", " + host_fact(h, {"os"})},
      {"CPU", host_fact(h, {"cpu_model"}) + " (" + host_fact(h, {"logical_cpus"}) + " logical, " +
                  host_fact(h, {"memory_gib"}) + " GiB)"},
      {"kernel", host_fact(h, {"kernel"})},
      {"BLAS", host_fact(h, {"blas", "library"})},
      {"libtorch", host_fact(h, {"torch", "libtorch_version"})},
      {"prices", r.pricing_table + " (" + r.pricing_region + ", published " +
                     (r.pricing_published.empty() ? std::string("unknown") : r.pricing_published) + ", retrieved " +
                     r.pricing_retrieved + ")"},
      {"price source", r.pricing_source},
      {"market", r.pricing_market + (r.discount_pct > 0 ? fmt::format(", discount {:g} %", r.discount_pct) : "")},
      {"currency", r.pricing_currency}};
  // pperf decide: where and when each input was measured (the host above only decided).
  const auto inputs = decide_input_lines(r);
  for (size_t i = 0; i < inputs.size(); ++i) rows.emplace_back(fmt::format("measured apart ({}/{})", i + 1, inputs.size()), inputs[i]);
  std::string out = "<dl class=\"prov\" id=\"provenance\">\n";
  for (const auto& [k, v] : rows) out += "<dt>" + markup_escape(k) + "</dt><dd>" + markup_escape(v) + "</dd>\n";
  out += "</dl>\n";
  // pperf decide: how it was decided (what was accepted, re-priced, pooled).
  const auto notes = decide_notes(r);
  if (!notes.empty()) {
    out += "<ul class=\"notes\" id=\"decide-notes\">\n";
    for (const auto& note : notes) out += "<li>" + markup_escape(note) + "</li>\n";
    out += "</ul>\n";
  }
  return out;
}




std::string results_table(const RunReport& r) {
  const auto columns = columns_of(kHtml);
  const auto money = money_scale(r.results);
  // Every column of a wide run scrolls inside the page rather than spilling out of it.
  std::string out = "<div class=\"wide-table\"><table id=\"results\">\n<thead><tr>";
  for (const Column* c : columns)
    out += fmt::format("<th{}>{}{}</th>", c->style.kind == Style::text ? " class=\"text\"" : "",
                       markup_escape(header_for_people(*c, r.pricing_currency, money.second)), c->ci_key.empty() ? "" : "<br><small>95% CI</small>");
  out += "</tr></thead>\n<tbody>\n";
  size_t figures = 0;
  for (const Column* c : columns) figures += !c->identity;
  for (const auto& x : r.results) {
    out += "<tr data-configuration=\"" + markup_escape(x.configuration) + "\">";
    bool failure_shown = false;
    for (const Column* c : columns) {
      if (!c->identity && !shows_figures(x)) {  // one cell across the figures says why there are none
        if (!failure_shown) out += fmt::format("<td class=\"failed\" colspan=\"{}\">{}</td>", figures, markup_escape(failure(x)));
        failure_shown = true;
        continue;
      }
      const Figure f = c->read(x);
      std::string cell = markup_escape(cell_for_people(*c, f, money.first) + (c->marks_baseline && x.baseline ? " (baseline)" : ""));
      if (!c->ci_key.empty() && f.ci95) cell += "<br><small>" + ci_for_people(*c, f, money.first) + "</small>";
      out += (c->style.kind == Style::text ? "<td class=\"text\">" : "<td>") + cell + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table></div>\n";
}

/// Money per `money` steps (the results table's scale, money_scale) per configuration: bars with
/// their 95 % CI as whiskers. data-usd-per-100-steps stays per 100 steps, for readers of the page.
std::string cost_bars(const std::vector<const Result*>& rs, const std::string& currency, const std::string& group,
                      const std::pair<double, std::string>& money) {
  const double per = money.first;
  const std::string per_label = currency + " per " + money.second;
  double hi = 0;
  for (const Result* r : rs) hi = std::max(hi, ci_or(r->cost->usd_per_step_ci95, r->cost->usd_per_step)[1] * per);
  const auto marks = axis_ticks(0, hi * 1.05);
  const Scale x{0, std::max(hi * 1.05, marks.back()), kLabel, kWidth - kRight};
  const double height = 12 + kRow * static_cast<double>(rs.size()) + 36;
  std::string out = fmt::format(
      "<svg class=\"chart\" data-chart=\"cost-bars\" data-workload=\"{}\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "role=\"img\" aria-label=\"{} per configuration, {}\">\n",
      markup_escape(group), kWidth, px(height), kWidth, px(height), markup_escape(per_label), markup_escape(group));
  const double axis_y = 12 + kRow * static_cast<double>(rs.size());
  out += labelled_x_axis(x, axis_y, marks, per_label + " (bar: mean step, as billed; whisker: 95 % CI)", 4);
  for (size_t i = 0; i < rs.size(); ++i) {
    const Result& r = *rs[i];
    const double y = 12 + kRow * static_cast<double>(i), v = r.cost->usd_per_step * per;
    const auto ci = ci_or(r.cost->usd_per_step_ci95, r.cost->usd_per_step);
    const double lo = ci[0] * per, hi_i = ci[1] * per;
    out += fmt::format("<g class=\"cost\" data-configuration=\"{}\" data-usd-per-100-steps=\"{}\">", markup_escape(r.configuration),
                       sig(r.cost->usd_per_step * 100, 6));
    out += fmt::format("<title>{}: {} {} (95 % CI {}..{})</title>", markup_escape(r.configuration), sig(v), markup_escape(per_label), sig(lo), sig(hi_i));
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", px(kLabel - 8), px(y + kRow / 2 + 4),
                       markup_escape(r.configuration + (r.baseline ? " *" : "")));
    out += fmt::format("<rect class=\"bar{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>", r.baseline ? " baseline" : "",
                       px(x(0)), px(y + 5), px(std::max(0.5, x(v) - x(0))), px(kRow - 10));
    out += fmt::format("<line class=\"whisker\" x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\"/>", px(x(lo)), px(x(hi_i)), px(y + kRow / 2));
    for (double e : {lo, hi_i})
      out += fmt::format("<line class=\"whisker\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", px(x(e)), px(y + 9), px(y + kRow - 9));
    out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text></g>\n", px(x(hi_i) + 6), px(y + kRow / 2 + 4), sig(v));
  }
  return out + "</svg>\n";
}

/// Step-time distribution per configuration: a histogram of every measured step on a common
/// axis, the median as a tick and its 95 % CI as a band.
std::string distributions(const std::vector<const Result*>& rs, const std::string& group) {
  double lo = 1e300, hi = 0;
  for (const Result* r : rs) {
    if (r->measurement && !r->measurement->step_ms.empty()) {
      lo = std::min(lo, percentile(r->measurement->step_ms, 2));
      hi = std::max(hi, percentile(r->measurement->step_ms, 98));
    }
    lo = std::min(lo, ci_or(r->step->ci95_ms, r->step->median_ms)[0]);
    hi = std::max(hi, ci_or(r->step->ci95_ms, r->step->median_ms)[1]);
  }
  const double pad = (hi - lo) * 0.05 + 1e-9;
  const auto marks = axis_ticks(std::max(0.0, lo - pad), hi + pad);
  const Scale x{std::max(0.0, lo - pad), hi + pad, kLabel, kWidth - kRight};
  const double rowh = 46;
  const double height = 8 + rowh * static_cast<double>(rs.size()) + 36;
  std::string out = fmt::format(
      "<svg class=\"chart\" data-chart=\"step-distribution\" data-workload=\"{}\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "role=\"img\" aria-label=\"step-time distribution per configuration, {}\">\n",
      markup_escape(group), kWidth, px(height), kWidth, px(height), markup_escape(group));
  const double axis_y = 8 + rowh * static_cast<double>(rs.size());
  out += labelled_x_axis(x, axis_y, marks, "step time, ms (histogram of measured steps within the 2nd-98th percentiles; tick: median; band: its 95 % CI)", 4);
  constexpr int kBins = 60;
  for (size_t i = 0; i < rs.size(); ++i) {
    const Result& r = *rs[i];
    const double top = 8 + rowh * static_cast<double>(i), base = top + rowh - 8;
    out += fmt::format("<g class=\"distribution\" data-configuration=\"{}\" data-median-ms=\"{}\" data-n=\"{}\">",
                       markup_escape(r.configuration), sig(r.step->median_ms, 6), r.measurement ? r.measurement->step_ms.size() : 0);
    out += fmt::format("<title>{}: median {} ms (95 % CI {}..{}), {} steps</title>", markup_escape(r.configuration), sig(r.step->median_ms),
                       sig(ci_or(r.step->ci95_ms, r.step->median_ms)[0]), sig(ci_or(r.step->ci95_ms, r.step->median_ms)[1]), r.measurement ? r.measurement->step_ms.size() : 0);
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", px(kLabel - 8), px(base - 10),
                       markup_escape(r.configuration + (r.baseline ? " *" : "")));
    out += fmt::format("<rect class=\"ciband\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>", px(x(ci_or(r.step->ci95_ms, r.step->median_ms)[0])), px(top + 2),
                       px(std::max(1.0, x(ci_or(r.step->ci95_ms, r.step->median_ms)[1]) - x(ci_or(r.step->ci95_ms, r.step->median_ms)[0]))), px(base - top - 2));
    if (r.measurement && !r.measurement->step_ms.empty()) {
      std::vector<int> bins(kBins, 0);
      for (double v : r.measurement->step_ms) {
        const int b = static_cast<int>((v - x.lo) / (x.hi - x.lo) * kBins);
        if (b >= 0 && b < kBins) ++bins[static_cast<size_t>(b)];
      }
      const int peak = std::max(1, *std::max_element(bins.begin(), bins.end()));
      const double bw = (x.b - x.a) / kBins;
      for (int b = 0; b < kBins; ++b)
        if (bins[static_cast<size_t>(b)])
          out += fmt::format("<rect class=\"hist\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>", px(x.a + b * bw), px(base - (base - top - 4) * bins[static_cast<size_t>(b)] / peak),
                             px(bw - 0.6), px((base - top - 4) * bins[static_cast<size_t>(b)] / peak));
    }
    out += fmt::format("<line class=\"median\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", px(x(r.step->median_ms)), px(top + 2), px(base));
    out += fmt::format("<text x=\"{}\" y=\"{}\">{} ms</text></g>\n", px(kWidth - kRight + 6), px(base - 10), sig(r.step->median_ms));
  }
  return out + "</svg>\n";
}

/// Improvement % over the baseline with its 95 % CI (a forest plot; right of zero = cheaper).
std::string improvement_chart(const std::vector<const Result*>& rs, const std::string& group) {
  std::vector<const Result*> rows;
  for (const Result* r : rs)
    if (!r->baseline && r->comparison.improvement_pct) rows.push_back(r);
  if (rows.empty()) return "<p class=\"note\">No improvement to show: no priced baseline for this workload.</p>\n";
  double lo = 0, hi = 0;
  for (const Result* r : rows) {
    const auto ci = r->comparison.improvement_pct_ci95.value_or(std::array<double, 2>{*r->comparison.improvement_pct, *r->comparison.improvement_pct});
    lo = std::min({lo, ci[0], *r->comparison.improvement_pct});
    hi = std::max({hi, ci[1], *r->comparison.improvement_pct});
  }
  const double pad = (hi - lo) * 0.08 + 1;
  const auto marks = axis_ticks(lo - pad, hi + pad);
  const Scale x{lo - pad, hi + pad, kLabel, kWidth - kRight};
  const double height = 12 + kRow * static_cast<double>(rows.size()) + 36;
  std::string out = fmt::format(
      "<svg class=\"chart\" data-chart=\"improvement\" data-workload=\"{}\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "role=\"img\" aria-label=\"improvement over the baseline, {}\">\n",
      markup_escape(group), kWidth, px(height), kWidth, px(height), markup_escape(group));
  const double axis_y = 12 + kRow * static_cast<double>(rows.size());
  out += labelled_x_axis(x, axis_y, marks, "improvement in cost per step over the baseline, % (right of 0: cheaper; whisker: 95 % CI)", 4);
  out += fmt::format("<line class=\"zero\" x1=\"{0}\" y1=\"4\" x2=\"{0}\" y2=\"{1}\"/>\n", px(x(0)), px(axis_y));
  for (size_t i = 0; i < rows.size(); ++i) {
    const Result& r = *rows[i];
    const double y = 12 + kRow * static_cast<double>(i) + kRow / 2, v = *r.comparison.improvement_pct;
    const auto ci = r.comparison.improvement_pct_ci95.value_or(std::array<double, 2>{v, v});
    out += fmt::format("<g class=\"improvement\" data-configuration=\"{}\" data-improvement-pct=\"{}\">", markup_escape(r.configuration), sig(v, 6));
    out += fmt::format("<title>{}: {:+.1f} % (95 % CI {:+.1f}..{:+.1f})</title>", markup_escape(r.configuration), v, ci[0], ci[1]);
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", px(kLabel - 8), px(y + 4), markup_escape(r.configuration));
    out += fmt::format("<line class=\"whisker\" x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\"/>", px(x(ci[0])), px(x(ci[1])), px(y));
    for (double e : ci) out += fmt::format("<line class=\"whisker\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", px(x(e)), px(y - 6), px(y + 6));
    out += fmt::format("<circle class=\"dot {}\" cx=\"{}\" cy=\"{}\" r=\"5\"/>", v >= 0 ? "improved" : "regressed", px(x(v)), px(y));
    out += fmt::format("<text x=\"{}\" y=\"{}\">{:+.1f} %</text></g>\n", px(x(ci[1]) + 8), px(y + 4), v);
  }
  return out + "</svg>\n";
}

/// One trend panel: a value per run, change points as dashed lines naming the run.
std::string trend_panel(const TrendSeries& s, bool cost, const std::string& currency) {
  std::vector<double> v;
  std::vector<size_t> idx;
  for (size_t i = 0; i < s.points.size(); ++i) {
    const auto& p = s.points[i];
    if (cost && !p.usd_per_step) continue;
    v.push_back(cost ? *p.usd_per_step * 100 : p.median_ms);
    idx.push_back(i);
  }
  if (v.empty()) return "";
  const double w = 460, h = 190, left = 56, right = 12, top = 22, bottom = 150;
  double lo = *std::min_element(v.begin(), v.end()), hi = *std::max_element(v.begin(), v.end());
  const double pad = (hi - lo) * 0.1 + std::fabs(hi) * 0.01 + 1e-12;
  const auto marks = axis_ticks(lo - pad, hi + pad, 4);
  const Scale y{lo - pad, hi + pad, bottom, top};
  const double n = static_cast<double>(s.points.size());
  const Scale x{0, std::max(1.0, n - 1), left + 8, w - right - 8};
  std::string out = fmt::format(
      "<svg class=\"chart trend\" data-chart=\"{}\" data-series=\"{}\" data-runs=\"{}\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "role=\"img\" aria-label=\"{} across runs, {}\">\n",
      cost ? "trend-cost" : "trend-median", markup_escape(s.label), s.points.size(), w, h, w, h,
      cost ? "cost per 100 steps" : "median step time", markup_escape(s.label));
  out += fmt::format("<text x=\"{}\" y=\"14\" font-weight=\"600\">{}</text>\n", px(left),
                     cost ? markup_escape(currency) + " per 100 steps" : std::string("median step time, ms"));
  out += svg::y_grid(y, left, w - right, marks);
  out += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n", px(left), px(bottom), px(w - right));
  const auto& changes = cost ? s.cost_changes : s.median_changes;
  for (size_t c : changes) {
    if (c >= s.points.size()) continue;
    const double cx = (x(static_cast<double>(c)) + x(static_cast<double>(c) - 1)) / 2;
    const auto& p = s.points[c];
    out += fmt::format("<g class=\"change-point\" data-run=\"{}\" data-git-sha=\"{}\"><title>level changes at run {} (git {}, {})</title>",
                       p.run_id, markup_escape(p.git_sha), p.run_id, markup_escape(short_sha(p.git_sha)), markup_escape(p.started_at));
    out += fmt::format("<line class=\"change\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", px(cx), px(top), px(bottom));
    out += fmt::format("<text class=\"change\" x=\"{}\" y=\"{}\">{}</text></g>\n", px(cx + 3), px(top + 10), markup_escape(short_sha(p.git_sha).substr(0, 7)));
  }
  std::string path;
  for (size_t k = 0; k < v.size(); ++k) path += fmt::format("{}{},{} ", k ? "L" : "M", px(x(static_cast<double>(idx[k]))), px(y(v[k])));
  out += "<path class=\"line" + std::string(cost ? " cost" : "") + "\" d=\"" + path + "\"/>\n";
  for (size_t k = 0; k < v.size(); ++k) {
    const auto& p = s.points[idx[k]];
    out += fmt::format("<circle class=\"dot\" cx=\"{}\" cy=\"{}\" r=\"3\"><title>{} run {} (git {}): {}</title></circle>", px(x(static_cast<double>(idx[k]))),
                       px(y(v[k])), markup_escape(p.started_at), p.run_id ? std::to_string(p.run_id) : std::string("this"), markup_escape(short_sha(p.git_sha)), sig(v[k]));
  }
  out += fmt::format("\n<text class=\"muted\" x=\"{}\" y=\"{}\">{}</text>", px(left), px(bottom + 16), markup_escape(s.points.front().started_at.substr(0, 10)));
  out += fmt::format("<text class=\"muted\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", px(w - right), px(bottom + 16),
                     markup_escape(s.points.back().started_at.substr(0, 10)));
  out += fmt::format("<text class=\"muted\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{} runs</text>\n", px((left + w) / 2), px(bottom + 32), s.points.size());
  return out + "</svg>\n";
}


/// A sweep's race: cost per 1M samples of each point with its 95 % CI, one row per point (a
/// single axis: in the axis's order, so the row is the knob; else cheapest first), the best
/// marked, eliminated points hollow with the round they left.
std::string sweep_dots(const SweepRace& race, const std::vector<SweepAxis>& axes, const std::string& currency) {
  std::vector<const SweepPoint*> points;
  for (const auto& p : race.points) points.push_back(&p);
  if (axes.size() == 1) {
    const auto& values = axes[0].values;
    auto rank = [&](const SweepPoint* p) {
      const auto value = p->values.find(axes[0].name);
      const auto at = value == p->values.end() ? values.end() : std::find(values.begin(), values.end(), value->second);
      return static_cast<size_t>(at - values.begin());
    };
    std::stable_sort(points.begin(), points.end(), [&](const auto* a, const auto* b) { return rank(a) < rank(b); });
  }
  // The axis spans the intervals, not 0: points a few % apart would crowd one end otherwise.
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto* p : points) {
    if (p->usd_per_1m_samples) lo = std::min(lo, *p->usd_per_1m_samples), hi = std::max(hi, *p->usd_per_1m_samples);
    if (p->usd_per_1m_samples_ci95)
      for (double v : *p->usd_per_1m_samples_ci95) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  if (!(lo <= hi)) lo = 0, hi = 1;
  const double pad = (hi - lo) * 0.05 + std::fabs(hi) * 0.01 + 1e-12;
  const double from = std::max(0.0, lo - pad);
  const auto marks = axis_ticks(from, hi + pad, 5);
  const double label = 300, right = 230;
  const Scale x{from, std::max(hi + pad, marks.back()), label, kWidth - right};
  const bool from_zero = x.lo <= 0;
  const double height = 12 + kRow * static_cast<double>(points.size()) + 36, axis_y = 12 + kRow * static_cast<double>(points.size());
  const std::string unit = currency + " per 1M samples";
  std::string out = fmt::format(
      "<svg class=\"chart\" data-chart=\"sweep\" data-workload=\"{}\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-label=\"{} per sweep point\">\n",
      markup_escape(race.workload), kWidth, px(height), kWidth, px(height), markup_escape(unit));
  out += labelled_x_axis(x, axis_y, marks,
                         unit + (from_zero ? "" : fmt::format(", from {} (the axis does not start at 0)", sig(x.lo))) +
                             " (dot: mean step, as billed; whisker: 95 % CI)",
                         4);
  for (size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = *points[i];
    const double y = 12 + kRow * static_cast<double>(i) + kRow / 2;
    const bool best = p.verdict == "best";
    std::string said = p.verdict;
    if (p.left_after_round) said += fmt::format(" after round {}", *p.left_after_round);
    out += fmt::format("<g class=\"point\" data-configuration=\"{}\" data-verdict=\"{}\">", markup_escape(p.configuration),
                       markup_escape(p.verdict));
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\"{}>{}</text>", px(label - 8), px(y + 4),
                       best ? " font-weight=\"700\"" : "", markup_escape(p.configuration));
    if (!p.usd_per_1m_samples) {
      out += fmt::format("<text class=\"muted\" x=\"{}\" y=\"{}\">{}</text></g>\n", px(label), px(y + 4), markup_escape(said));
      continue;
    }
    const double v = *p.usd_per_1m_samples;
    const std::array<double, 2> ci = p.usd_per_1m_samples_ci95.value_or(std::array<double, 2>{v, v});
    out += fmt::format("<title>{}: {} {} (95 % CI {}..{}), {}</title>", markup_escape(p.configuration), sig(v),
                       markup_escape(unit), sig(ci[0]), sig(ci[1]), markup_escape(said));
    out += fmt::format("<line class=\"whisker\" x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\"/>", px(x(ci[0])), px(x(ci[1])), px(y));
    const std::string fill = best ? "var(--good)" : p.verdict == "eliminated" ? "#ffffff" : p.verdict == "equivalent" ? "#8fd1a8" : "var(--bar)";
    out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\" stroke=\"{}\" stroke-width=\"1.5\"/>", px(x(v)), px(y),
                       best ? 7 : 5, fill, best ? "var(--good)" : "var(--bar)");
    out += fmt::format("<text x=\"{}\" y=\"{}\"{}>{} — {}</text></g>\n", px(kWidth - right + 8), px(y + 4),
                       best ? " font-weight=\"700\"" : "", sig(v), markup_escape(said));
  }
  return out + "</svg>\n";
}

/// Two axes: a heat map of cost per sample over the best's (rows: the first axis, columns: the
/// second), each cell with its figure; the best outlined, eliminated cells hatched pale.
std::string sweep_heatmap(const SweepRace& race, const std::vector<SweepAxis>& axes) {
  if (axes.size() != 2) return "";
  const auto& rows = axes[0].values;
  const auto& cols = axes[1].values;
  const std::string& ra = axes[0].name;
  const std::string& ca = axes[1].name;
  double best_cost = 0, worst = 1;
  for (const auto& p : race.points)
    if (p.verdict == "best" && p.usd_per_1m_samples) best_cost = *p.usd_per_1m_samples;
  if (!(best_cost > 0)) return "";
  for (const auto& p : race.points)
    if (p.usd_per_1m_samples) worst = std::max(worst, *p.usd_per_1m_samples / best_cost);
  const double cell_w = std::min(160.0, (kWidth - 200) / std::max<size_t>(1, cols.size())), cell_h = 44, left = 190, top = 36;
  const double width = left + cell_w * cols.size() + 20, height = top + cell_h * rows.size() + 10;
  std::string out = fmt::format(
      "<svg class=\"chart\" data-chart=\"sweep-heatmap\" data-workload=\"{}\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-label=\"cost per sample over the best's, {} by {}\">\n",
      markup_escape(race.workload), px(width), px(height), px(width), px(height), markup_escape(ra), markup_escape(ca));
  out += fmt::format("<text class=\"muted\" x=\"{}\" y=\"14\" text-anchor=\"middle\">{}</text>\n", px(left + cell_w * cols.size() / 2),
                     markup_escape(ca));
  out += fmt::format("<text class=\"muted\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{} ↓</text>\n", px(left - 8), px(top - 6), markup_escape(ra));
  for (size_t c = 0; c < cols.size(); ++c)
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", px(left + cell_w * (c + 0.5)), px(top - 6),
                       markup_escape(cols[c]));
  auto value_of = [](const SweepPoint& p, const std::string& axis) {
    const auto v = p.values.find(axis);
    return v == p.values.end() ? std::string() : v->second;
  };
  for (size_t r = 0; r < rows.size(); ++r) {
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", px(left - 8), px(top + cell_h * (r + 0.5) + 4),
                       markup_escape(rows[r]));
    for (size_t c = 0; c < cols.size(); ++c) {
      const SweepPoint* found = nullptr;
      for (const auto& p : race.points)
        if (value_of(p, ra) == rows[r] && value_of(p, ca) == cols[c]) found = &p;
      const double x0 = left + cell_w * c, y0 = top + cell_h * r;
      if (!found || !found->usd_per_1m_samples) {
        out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#eceff4\" stroke=\"#fff\"/>", px(x0), px(y0), px(cell_w), px(cell_h));
        continue;
      }
      const double ratio = *found->usd_per_1m_samples / best_cost;
      // Green (the best) to red (the dearest), on the log of the ratio.
      const double t = worst > 1 ? std::log(ratio) / std::log(worst) : 0;
      const int red = static_cast<int>(60 + 180 * t), green = static_cast<int>(170 - 110 * t), blue = static_cast<int>(90 - 30 * t);
      const std::string& verdict = found->verdict;
      out += fmt::format("<g data-configuration=\"{}\" data-verdict=\"{}\"><title>{}: {:.3f} × the best's cost per sample, {}</title>",
                         markup_escape(found->configuration), markup_escape(verdict), markup_escape(found->configuration), ratio,
                         markup_escape(verdict));
      out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"rgb({},{},{})\" fill-opacity=\"{}\" stroke=\"{}\" stroke-width=\"{}\"/>",
                         px(x0 + 1), px(y0 + 1), px(cell_w - 2), px(cell_h - 2), red, green, blue,
                         verdict == "eliminated" ? "0.45" : "0.9", verdict == "best" ? "#1d2330" : "#ffffff", verdict == "best" ? 3 : 1);
      out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-weight=\"{}\">{}</text></g>\n", px(x0 + cell_w / 2),
                         px(y0 + cell_h / 2 + 4), verdict == "best" ? 700 : 400,
                         verdict == "best" ? std::string("best") : fmt::format("×{:.2f}{}", ratio, verdict == "eliminated" ? " out" : ""));
    }
  }
  return out + "</svg>\n<p class=\"note\">Each cell: the point's cost per sample over the best's (\"out\": eliminated from the race).</p>\n";
}

/// The sweep's section: per race, what ended it, the dots and (two axes) the heat map.
std::string sweep_section(const RunReport& r) {
  if (!r.sweep) return "";
  const auto& axes = r.sweep->axes;
  std::string names;
  for (const auto& a : axes) names += (names.empty() ? "" : " × ") + a.name;
  std::string out = "<section id=\"sweep\"><h2>Sweep: " + markup_escape(names) + "</h2>\n";
  for (const auto& race : r.sweep->races) {
    out += fmt::format("<p class=\"decision\">{}: best {}; equivalent to it within ±{:g} %: {}. The race ended after {} rounds: {}; "
                       "the eliminations saved {:.1f} s of {:.1f} s measured ({:.0f} %). Each point against the best at {:.2f} % "
                       "(Bonferroni over the k − 1 comparisons: {:g} % together).</p>\n",
                       markup_escape(race.workload), markup_escape(race.best.value_or("none")), race.equivalence_pct,
                       markup_escape(race.equivalent.empty() ? "none" : fmt::to_string(fmt::join(race.equivalent, ", "))), race.rounds,
                       markup_escape(race.stop), race.saved_s, race.measured_s + race.saved_s, race.saved_fraction * 100,
                       race.comparison_confidence * 100, race.confidence * 100);
    out += "<h3>" + markup_escape(r.pricing_currency) + " per 1M samples per point</h3>\n" + sweep_dots(race, axes, r.pricing_currency);
    if (axes.size() == 2) out += "<h3>Cost per sample over the best's</h3>\n" + sweep_heatmap(race, axes);
  }
  return out + "</section>\n";
}

std::map<std::string, std::vector<const Result*>> ok_by_workload(const RunReport& r, std::vector<std::string>& order) {
  std::map<std::string, std::vector<const Result*>> out;
  for (const auto& x : r.results) {
    if (x.status != ResultStatus::ok || !x.step || !x.cost) continue;
    const std::string key = workload_label(x);
    if (!out.count(key)) order.push_back(key);
    out[key].push_back(&x);
  }
  return out;
}

}  // namespace

std::string run_report_html(const RunReportPage& page) {
  const RunReport& r = *page.run;
  std::string out = page_start("pperf report: " + r.config_name);
  out += "<h1>pperf report: " + markup_escape(r.config_name) + "</h1>\n";
  size_t ok = 0;
  for (const auto& x : r.results) ok += x.status == ResultStatus::ok;
  out += fmt::format("<p class=\"subtitle\">{} result(s), {} ok; prices {} (published {}, retrieved {}), started {}.</p>\n",
                     r.results.size(), ok, markup_escape(r.pricing_table),
                     markup_escape(r.pricing_published.empty() ? "unknown" : r.pricing_published),
                     markup_escape(r.pricing_retrieved), markup_escape(r.started_at));
  const auto decisions = decision_sentences(r.results);
  const auto race_statements = sweep_sentences(r.sweep, r.pricing_currency);
  if (!decisions.empty() || !race_statements.empty()) {
    // A sweep leads with its race's statement; the pairwise lines follow, said to be pairwise.
    out += "<section id=\"decisions\"><h2>Decisions</h2>\n";
    for (const auto& d : race_statements) out += "<p class=\"decision\" data-decision=\"sweep\">" + markup_escape(d) + "</p>\n";
    if (!race_statements.empty() && !decisions.empty())
      out += "<p class=\"note\" data-decision=\"pairwise-note\">" + markup_escape(sweep_pairwise_note(r.sweep)) + "</p>\n";
    for (const auto& d : decisions)
      out += std::string("<p class=\"") + (race_statements.empty() ? "decision" : "note") + "\" data-decision=\"pairwise\">" +
             markup_escape(d) + "</p>\n";
    out += "</section>\n";
  }
  out += "<section id=\"provenance-section\"><h2>Provenance</h2>\n" + provenance(r, page.source) + "</section>\n";
  out += "<section id=\"results-section\"><h2>Results</h2>\n" + results_table(r) +
         "<p class=\"note\">Median step time with its distribution-free 95 % CI (the typical step); cost per step = "
         "price per hour × mean step time (total time ÷ steps, what is billed) with the mean's 95 % CI; improvement = "
         "1 − cost ÷ the baseline's, 95 % CI combined from the two means' intervals; verdicts from a confidence "
         "sequence over paired rounds when the configurations took turns (docs/statistics.md).</p></section>\n";
  out += sweep_section(r);
  out += scaling_section(r);
  std::vector<std::string> order;
  const auto groups = ok_by_workload(r, order);
  const auto money = money_scale(r.results);  // the table's, so chart and table read alike
  for (const auto& g : order) {
    const auto& rs = groups.at(g);
    out += "<section class=\"workload\" data-workload=\"" + markup_escape(g) + "\"><h2>" + markup_escape(g) + "</h2>\n";
    out += "<h3>" + markup_escape(r.pricing_currency) + " per " + money.second + " (* baseline)</h3>\n" +
           cost_bars(rs, r.pricing_currency, g, money);
    out += "<h3>Step-time distribution</h3>\n" + distributions(rs, g);
    out += "<h3>Improvement over the baseline</h3>\n" + improvement_chart(rs, g);
    out += "</section>\n";
  }
  bool failed = false;
  for (const auto& x : r.results) failed |= x.status != ResultStatus::ok;
  if (failed) out += "<p class=\"warning\">Some results did not finish: see the table.</p>\n";
  if (!page.trends.empty() || !page.history_note.empty()) {
    out += "<section id=\"trends\"><h2>Trends across runs</h2>\n<p class=\"note\">" + markup_escape(page.history_note) +
           " Dashed red lines mark change points (a penalised piecewise-constant fit), named by the git sha of the first "
           "run of the new level.</p>\n";
    for (const auto& s : page.trends) {
      out += "<div class=\"trend-pair\" data-series=\"" + markup_escape(s.label) + "\"><h3>" + markup_escape(s.label) + "</h3>\n";
      out += "<div style=\"display:flex;gap:12px;flex-wrap:wrap\">" + trend_panel(s, false, r.pricing_currency) +
             trend_panel(s, true, r.pricing_currency) + "</div></div>\n";
    }
    out += "</section>\n";
  }
  return out + page_end("Generated by pperf " + markup_escape(r.tool_version) + " from " + markup_escape(page.source) +
                        ". Self-contained: no script, no network.");
}

}  // namespace pperf
