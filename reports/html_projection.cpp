// The projection page as HTML (formats.h: projection_html).
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
/// One trainer type's curves: its prediction alone and, per data type, its points by count.
struct TrainerSeries {
  std::string type;
  int64_t count = 1;
  const project::Prediction* alone = nullptr;
  std::map<std::string, std::vector<const project::Prediction*>> lines;
};


/// The trainer types the chart draws: the cheapest cluster's, and the config's own when it is
/// another; each with its prediction alone and its points per data type (a type without them is left out).
std::vector<TrainerSeries> trainer_series(const project::WorkloadProjection& w) {
  std::vector<TrainerSeries> series;
  const project::Prediction* best = project::cheapest(w);
  std::vector<std::pair<std::string, int64_t>> trainers;
  if (best) trainers.emplace_back(best->candidate.trainer_type, best->candidate.trainer_count);
  if (trainers.empty() || trainers[0].first != w.trainer_type) trainers.emplace_back(w.trainer_type, w.trainer_count);
  for (const auto& trainer : trainers) {
    TrainerSeries s;
    s.type = trainer.first;
    s.count = trainer.second;
    for (const auto& pr : w.predictions) {
      if (pr.candidate.trainer_type != s.type) continue;
      if (pr.candidate.data_count == 0) s.alone = &pr;
      else s.lines[pr.candidate.data_type].push_back(&pr);
    }
    if (s.alone && !s.lines.empty()) series.push_back(std::move(s));
  }
  return series;
}

/// One colour per data type, the same on every trainer's curves.
struct Palette {
  std::vector<std::string> data_types;
  const char* operator()(const std::string& type) const {
    static const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};
    return colors[static_cast<size_t>(std::find(data_types.begin(), data_types.end(), type) - data_types.begin()) % 6];
  }
};

/// Series `si`'s curve per data type (the first series solid with its interval shaded, the
/// other dashed), its points and its knee.
std::string series_curves(const TrainerSeries& s, size_t si, const svg::Scale& x, const svg::Scale& y, const Palette& color_of) {
  std::string svg;
  const project::Prediction* alone = s.alone;
  const std::string dash = si == 0 ? "" : " stroke-dasharray=\"6 4\"";
  bool first_line = true;
  for (const auto& [type, points] : s.lines) {
    const char* color = color_of(type);
    std::string path = fmt::format("M{:.1f},{:.1f}", x(0), y(alone->usd_per_1m_samples.value));
    std::string band_top = fmt::format("M{:.1f},{:.1f}", x(0), y(alone->usd_per_1m_samples.hi)), band_bottom;
    for (const project::Prediction* pt : points) {
      path += fmt::format(" L{:.1f},{:.1f}", x(static_cast<double>(pt->candidate.data_count)), y(pt->usd_per_1m_samples.value));
      band_top += fmt::format(" L{:.1f},{:.1f}", x(static_cast<double>(pt->candidate.data_count)), y(pt->usd_per_1m_samples.hi));
    }
    for (auto it = points.rbegin(); it != points.rend(); ++it)
      band_bottom += fmt::format(" L{:.1f},{:.1f}", x(static_cast<double>((*it)->candidate.data_count)), y((*it)->usd_per_1m_samples.lo));
    band_bottom += fmt::format(" L{:.1f},{:.1f} Z", x(0), y(alone->usd_per_1m_samples.lo));
    if (si == 0) svg += fmt::format("<path d=\"{}{}\" fill=\"{}\" fill-opacity=\"0.12\" stroke=\"none\"/>\n", band_top, band_bottom, color);
    svg += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} data-trainer=\"{}\" data-type=\"{}\"/>\n", path, color,
                       dash, markup_escape(s.type), markup_escape(type));
    for (const project::Prediction* pt : points)
      svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"><title>{}: {:.4g} USD/1M samples, step {:.4g} ms</title></circle>\n",
                         x(static_cast<double>(pt->candidate.data_count)), y(pt->usd_per_1m_samples.value), color,
                         markup_escape(cluster_text(pt->candidate)), pt->usd_per_1m_samples.value, pt->step_ms.value);
    // The knee: the first count whose step is the trainer's (more data instances stop helping);
    // at 0 when the trainer alone is trainer-bound.
    if (alone->bound == "trainer" && first_line)
      svg += fmt::format("<circle class=\"knee\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"7\" fill=\"none\" stroke=\"#333\" stroke-width=\"2\"/>"
                         "<text x=\"{:.1f}\" y=\"{:.1f}\">knee: 0 (trainer alone)</text>\n",
                         x(0), y(alone->usd_per_1m_samples.value), x(0) + 10, y(alone->usd_per_1m_samples.value) + 22);
    for (const project::Prediction* pt : points)
      if (alone->bound != "trainer" && pt->bound == "trainer") {
        svg += fmt::format("<circle class=\"knee\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"7\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>"
                           "<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"{}\">knee</text>\n",
                           x(static_cast<double>(pt->candidate.data_count)), y(pt->usd_per_1m_samples.value), color,
                           x(static_cast<double>(pt->candidate.data_count)) + 8, y(pt->usd_per_1m_samples.value) - 8, color);
        break;
      }
    first_line = false;
  }
  return svg;
}

/// The legend right of the plot (from `x0`): a colour per data type; with two trainers, a line
/// style per trainer.
std::string chart_legend(const std::vector<TrainerSeries>& series, const Palette& color_of, double x0, double top) {
  std::string svg;
  const bool two = series.size() > 1;
  double row = 0;
  for (const auto& type : color_of.data_types) {
    svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"2\"/><text x=\"{4}\" y=\"{5}\">{6}</text>\n",
                       x0 + 12, top + 14 + 18 * row, x0 + 32, color_of(type), x0 + 38, top + 18 + 18 * row, markup_escape(type));
    ++row;
  }
  if (two)
    for (size_t si = 0; si < series.size(); ++si) {
      svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#555\" stroke-width=\"2\"{3}/>"
                         "<text x=\"{4}\" y=\"{5}\" data-legend=\"trainer\">{6} x {7} ({8})</text>\n",
                         x0 + 12, top + 14 + 18 * row, x0 + 32, si == 0 ? "" : " stroke-dasharray=\"6 4\"", x0 + 38,
                         top + 18 + 18 * row, series[si].count, markup_escape(series[si].type), si == 0 ? "cheapest" : "the config's");
      ++row;
    }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#555\">shaded: interval{}</text>\n", x0 + 12, top + 22 + 18 * row,
                     two ? " (cheapest)" : "");
  return svg;
}

/// USD per 1M samples against data instances per trainer: the cheapest cluster's trainer type
/// (solid, its interval shaded) and, when the config's own trainer type is another, that one too
/// (dashed); one colour per data type, the knee marked on each.
std::string projection_chart(const project::WorkloadProjection& w) {
  std::vector<TrainerSeries> series = trainer_series(w);
  if (series.empty()) return "<p>no data instance types to chart</p>";
  int64_t max_n = 1;
  double max_y = 0;
  Palette color_of;  // one colour per data type, the same on every trainer's curves
  for (auto& s : series) {
    max_y = std::max(max_y, s.alone->usd_per_1m_samples.hi);
    for (auto& [type, points] : s.lines) {
      if (std::find(color_of.data_types.begin(), color_of.data_types.end(), type) == color_of.data_types.end()) color_of.data_types.push_back(type);
      std::sort(points.begin(), points.end(), [](const project::Prediction* a, const project::Prediction* b) { return a->candidate.data_count < b->candidate.data_count; });
      for (const project::Prediction* pt : points) max_n = std::max(max_n, pt->candidate.data_count), max_y = std::max(max_y, pt->usd_per_1m_samples.hi);
    }
  }
  const bool two = series.size() > 1;
  const double right = two ? 250 : 170, width = 470 + right, height = 360, left = 70, top = 20, bottom = 50;
  const double pw = width - left - right, ph = height - top - bottom;
  const svg::Scale x{0, static_cast<double>(max_n), left, left + pw};
  const std::vector<double> marks = axis_ticks(0, max_y * 1.05, 4);
  const svg::Scale y{0, std::max(max_y * 1.05, marks.back()), top + ph, top};
  std::string svg = fmt::format(
      "<svg class=\"chart\" data-chart=\"projection\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" "
      "xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\" font-size=\"11\">\n",
      width, height);
  svg += svg::y_grid(y, left, left + pw, marks);
  svg += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", left, top, top + ph);
  std::vector<double> counts;
  for (int64_t n = 0; n <= max_n; ++n) counts.push_back(static_cast<double>(n));
  svg += svg::x_axis(x, top + ph, counts,
                     two ? std::string("data instances per trainer")
                         : fmt::format("data instances per {} x {}", series[0].count, markup_escape(series[0].type)),
                     top);
  svg += fmt::format("<text transform=\"translate(16,{}) rotate(-90)\" text-anchor=\"middle\">USD per 1M samples</text>\n", top + ph / 2);
  for (size_t si = 0; si < series.size(); ++si) svg += series_curves(series[si], si, x, y, color_of);
  svg += chart_legend(series, color_of, left + pw, top);
  return svg + "</svg>\n";
}
}  // namespace

std::string projection_html(const ProjectionPage& page) {
  const project::Projection& p = *page.projection;
  const size_t top = page.top;
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>pperf projection: {0}</title>\n"
      "<style>{5}\nbody{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:3px 8px;text-align:right}}"
      "td:nth-child(2),th:nth-child(2){{text-align:left}}</style></head><body>\n<h1>Projection of {0}</h1>\n"
      "<p>Prices: {1} ({2}, {3}). Step = max(trainer step, pipeline CPU-seconds per step / usable core-equivalents, link); "
      "intervals from the measurement's and the speed factors', widened by a stated model error of {4:g} %.</p>\n",
      markup_escape(p.config_name), markup_escape(p.table), markup_escape(p.region), markup_escape(p.market), p.settings.model_error_pct, svg::svg_chart_css());
  for (const auto& w : p.workloads) {
    out += fmt::format("<h2>{}</h2>\n", markup_escape(w.measured.workload));
    if (const project::Prediction* c = project::cheapest(w))
      out += fmt::format("<p>Cheapest: <b>{}</b>, {} USD per 1M samples, step {} ms ({}-bound).", markup_escape(cluster_text(c->candidate)),
                         range_text(c->usd_per_1m_samples, "{:.4g}"), range_text(c->step_ms, "{:.4g}"), c->bound);
    out += " Knee: " + markup_escape(knee_text(w)) + ".</p>\n";
    if (const std::string line = data_instances_line(w); !line.empty())
      out += "<p class=\"data-instances\">" + markup_escape(line.substr(2, line.size() - 3)) + ".</p>\n";  // its indent and newline off
    out += projection_chart(w);
    out += "<table><tr><th>#</th><th>cluster</th><th>step ms</th><th>interval ms</th><th>USD / 1M samples</th><th>interval</th><th>bound</th></tr>\n";
    for (size_t i = 0; i < std::min(top, w.predictions.size()); ++i) {
      const project::Prediction& pr = w.predictions[i];
      out += fmt::format("<tr><td>{}</td><td>{}</td><td>{:.4g}</td><td>{:.4g} – {:.4g}</td><td>{:.4g}</td><td>{:.4g} – {:.4g}</td><td>{}</td></tr>\n",
                         i + 1, markup_escape(cluster_text(pr.candidate)), pr.step_ms.value, pr.step_ms.lo, pr.step_ms.hi,
                         pr.usd_per_1m_samples.value, pr.usd_per_1m_samples.lo, pr.usd_per_1m_samples.hi, pr.bound);
    }
    out += "</table>\n";
  }
  if (!p.next_config_path.empty()) out += "<p>Configuration to measure next: <code>" + markup_escape(p.next_config_path) + "</code></p>\n";
  return out + "</body></html>\n";
}

}  // namespace pperf
