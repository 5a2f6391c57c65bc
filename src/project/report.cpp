#include "src/project/report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "src/core/axis_ticks.h"
#include "src/core/svg_chart.h"
#include "reports/console.h"

namespace pperf::project {

const Prediction* cheapest(const WorkloadProjection& w) { return w.predictions.empty() ? nullptr : &w.predictions[0]; }

double error_pct(const ConfigurationCheck& c) {
  return c.actual_ms && *c.actual_ms > 0 ? 100 * (c.predicted.step_ms.value - *c.actual_ms) / *c.actual_ms : 0;
}

nlohmann::json to_json(const Range& r) { return {{"value", r.value}, {"lo", r.lo}, {"hi", r.hi}}; }

namespace {
nlohmann::json optional_number(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

nlohmann::json to_json(const SpeedFactor& f) {
  return {{"family", f.family}, {"factor", to_json(f.factor)}, {"source", f.source}};
}

std::string cluster(const Candidate& c) {
  std::string s = fmt::format("{} x {}", c.trainer_count, c.trainer_type);
  if (c.data_count > 0) s += fmt::format(" + {} x {}", c.data_count, c.data_type);
  return s;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '<') out += "&lt;";
    else if (ch == '>') out += "&gt;";
    else if (ch == '&') out += "&amp;";
    else if (ch == '"') out += "&quot;";
    else out += ch;
  }
  return out;
}

/// One line on what data instances do for this workload: nothing known (why), nothing (the
/// trainer alone is cheapest and keeps its pipeline fed), or the cheapest count.
std::string data_line(const WorkloadProjection& w) {
  if (!w.measured.pipeline_absent.empty())
    return "  data instances: not projected: " + w.measured.pipeline_absent + "\n";
  const Prediction* c = w.predictions.empty() ? nullptr : &w.predictions[0];
  if (!c || c->candidate.data_count > 0) return "";
  if (w.knee_data_instances && *w.knee_data_instances == 0)
    return fmt::format("  data instances: none pay: {} alone is trainer-bound (pipeline term {:.3g} ms on its own vCPUs, trainer step {:.4g} ms); "
                       "each data instance only adds cost\n", cluster(c->candidate), c->pipeline_ms, c->trainer_ms.value_or(0));
  return "  data instances: none pay at these prices: the trainer alone is cheapest per sample\n";
}

std::string range_text(const Range& r, const char* format) {
  return fmt::format(fmt::runtime(format), r.value) + " [" + fmt::format(fmt::runtime(format), r.lo) + ", " +
         fmt::format(fmt::runtime(format), r.hi) + "]";
}

/// The knee in words: where added vCPUs stop shortening the step. At 0 data instances the
/// trainer's own vCPUs already feed it, and the figure (a tiny fraction of one vCPU for a
/// trainer-bound job) is only the pipeline's need.
std::string knee_text(const WorkloadProjection& w) {
  if (!w.knee_vcpus_per_accelerator) return "unknown (no trainer step: give --trainer-step-ms)";
  if (w.knee_data_instances && *w.knee_data_instances == 0)
    return fmt::format("0 data instances on {}: its own vCPUs feed it (the pipeline needs {:.3g} vCPUs per accelerator)",
                       w.trainer_type, *w.knee_vcpus_per_accelerator);
  return fmt::format("{:.3g} vCPUs per accelerator (beyond it the step stops improving){}", *w.knee_vcpus_per_accelerator,
                     w.knee_data_instances ? fmt::format(", reached with {} data instance(s) on {}", *w.knee_data_instances, w.trainer_type) : "");
}
}  // namespace

nlohmann::json to_json(const Prediction& p) {
  const Candidate& c = p.candidate;
  return {{"cluster", cluster(c)},
          {"trainer", {{"type", c.trainer_type}, {"count", c.trainer_count}, {"vcpus_each", c.trainer_vcpus},
                       {"accelerators_each", c.trainer_accelerators}, {"usd_per_hour_each", c.trainer_usd_per_hour},
                       {"speed_factor", to_json(p.trainer_speed.factor)}}},
          {"data", c.data_count == 0 ? nlohmann::json()
                                     : nlohmann::json{{"type", c.data_type}, {"count", c.data_count}, {"vcpus_each", c.data_vcpus},
                                                      {"usd_per_hour_each", c.data_usd_per_hour},
                                                      {"speed_factor", to_json(p.data_speed.factor)}}},
          {"pooled", c.pooled},
          {"usable_cores", p.usable_cores},
          {"vcpus_per_accelerator", p.vcpus_per_accelerator},
          {"pipeline_ms", std::isfinite(p.pipeline_ms) ? nlohmann::json(p.pipeline_ms) : nlohmann::json()},
          {"trainer_ms", optional_number(p.trainer_ms)},
          {"link_ms", optional_number(p.link_ms)},
          {"bound", p.bound},
          {"step_ms", to_json(p.step_ms)},
          {"usd_per_hour", p.usd_per_hour.value},
          {"usd_per_step", to_json(p.usd_per_step)},
          {"usd_per_1m_samples", to_json(p.usd_per_1m_samples)}};
}

nlohmann::json to_json(const Projection& p) {
  nlohmann::json workloads = nlohmann::json::array();
  for (const auto& w : p.workloads) {
    const Measured& m = w.measured;
    nlohmann::json factors = nlohmann::json::array(), predictions = nlohmann::json::array(), checks = nlohmann::json::array();
    for (const auto& f : w.speed_factors) factors.push_back(to_json(f));
    for (const auto& pr : w.predictions) predictions.push_back(to_json(pr));
    for (const auto& c : w.checks)
      checks.push_back({{"configuration", c.configuration}, {"reference", c.reference}, {"predicted", to_json(c.predicted)},
                        {"actual_ms", optional_number(c.actual_ms)},
                        {"actual_source", c.actual_source.empty() ? nlohmann::json() : nlohmann::json(c.actual_source)},
                        {"error_pct", c.actual_ms ? nlohmann::json(error_pct(c)) : nlohmann::json()},
                        {"actual_inside_interval", c.actual_ms ? nlohmann::json(*c.actual_ms >= c.predicted.step_ms.lo &&
                                                                                *c.actual_ms <= c.predicted.step_ms.hi)
                                                               : nlohmann::json()}});
    workloads.push_back(
        {{"workload", m.workload},
         {"samples_per_step", m.samples_per_step},
         {"inputs",
          {{"pipeline_cpu_s_per_sample", to_json(m.pipeline_cpu_s_per_sample)},
           {"scaling_efficiency", to_json(m.scaling_efficiency)},
           {"scaling_cores", m.scaling_cores},
           {"trainer_cpu_s_per_step", m.trainer_cpu_s_per_step},
           {"trainer_step_ms", m.trainer_step_ms ? to_json(*m.trainer_step_ms) : nlohmann::json()},
           {"bytes_per_batch", optional_number(m.bytes_per_batch)},
           {"pipeline_source", m.pipeline_source},
           {"pipeline_absent", m.pipeline_absent.empty() ? nlohmann::json() : nlohmann::json(m.pipeline_absent)},
           {"trainer_source", m.trainer_source}}},
         {"trainer", {{"type", w.trainer_type}, {"count", w.trainer_count}}},
         {"knee_vcpus_per_accelerator", optional_number(w.knee_vcpus_per_accelerator)},
         {"knee_data_instances", w.knee_data_instances ? nlohmann::json(*w.knee_data_instances) : nlohmann::json()},
         {"host_calibration", optional_number(w.host_calibration)},
         {"cheapest", w.predictions.empty() ? nlohmann::json() : to_json(w.predictions[0])},
         {"speed_factors", factors},
         {"predictions", predictions},
         {"configurations", checks}});
  }
  return {{"kind", "pperf-projection"},
          {"schema_version", 1},
          {"config", {{"path", p.config_path}, {"name", p.config_name}}},
          {"pricing", {{"table", p.table}, {"path", p.table_path}, {"region", p.region}, {"market", p.market}}},
          {"model",
           {{"formula", "step = max(trainer step, pipeline CPU-seconds per step / usable core-equivalents, batch bytes / link bandwidth)"},
            {"model_error_pct", p.settings.model_error_pct},
            {"link_gbit_per_s", optional_number(p.settings.link_gbit_per_s)}}},
          {"reference", p.reference_host},
          {"next_config", p.next_config_path.empty() ? nlohmann::json() : nlohmann::json(p.next_config_path)},
          {"workloads", workloads}};
}

namespace {
/// The top rows as a table sized to its cells. With a width (0: none), the step's interval, then
/// the cost's, are left out until the rows fit; `dropped` names what was.
std::string top_table(const WorkloadProjection& w, size_t top, size_t width, std::vector<std::string>& dropped) {
  const size_t rows = std::min(top, w.predictions.size());
  // Per column (#, cluster, step ms, USD/1M samples, bound): the header, then a cell per row.
  const auto table = [&](bool step_ci, bool cost_ci) {
    std::vector<std::vector<std::string>> t = {
        {"#"}, {"cluster"}, {step_ci ? "step ms [interval]" : "step ms"}, {cost_ci ? "USD/1M samples [interval]" : "USD/1M samples"}, {"bound"}};
    for (size_t i = 0; i < rows; ++i) {
      const Prediction& pr = w.predictions[i];
      t[0].push_back(std::to_string(i + 1));
      t[1].push_back(cluster(pr.candidate));
      t[2].push_back(step_ci ? range_text(pr.step_ms, "{:.4g}") : fmt::format("{:.4g}", pr.step_ms.value));
      t[3].push_back(cost_ci ? range_text(pr.usd_per_1m_samples, "{:.4g}") : fmt::format("{:.4g}", pr.usd_per_1m_samples.value));
      t[4].push_back(pr.bound);
    }
    return t;
  };
  const auto widths = [](const std::vector<std::vector<std::string>>& t) {
    std::vector<size_t> out;
    for (const auto& column : t) {
      size_t cw = 0;
      for (const auto& cell : column) cw = std::max(cw, cell.size());
      out.push_back(cw);
    }
    return out;
  };
  const auto line_width = [&](const std::vector<std::vector<std::string>>& t) {
    size_t total = 0;
    for (size_t cw : widths(t)) total += 2 + cw;  // the indent, then two spaces between columns
    return total;
  };
  bool step_ci = true, cost_ci = true;
  if (width > 0 && line_width(table(step_ci, cost_ci)) > width) step_ci = false, dropped.push_back("the step's interval");
  if (width > 0 && line_width(table(step_ci, cost_ci)) > width) cost_ci = false, dropped.push_back("the cost's interval");
  const auto t = table(step_ci, cost_ci);
  const std::vector<size_t> cw = widths(t);
  std::string out;
  for (size_t r = 0; r <= rows; ++r) {
    std::string line;
    for (size_t c = 0; c < t.size(); ++c)
      line += c == 1 ? fmt::format("  {:<{}}", t[c][r], cw[c]) : fmt::format("  {:>{}}", t[c][r], cw[c]);
    out += line + "\n";
  }
  return out;
}
}  // namespace

std::string console_text(const Projection& p, size_t top, size_t width) {
  // Prose is wrapped to the width; the table's intervals give way until its rows fit.
  const auto prose = [&](const std::string& text) { return wrap(text, width); };
  std::string out = prose(fmt::format("projection of {} against {} ({}, {}); model error ±{:g} % stated\n", p.config_name, p.table,
                                      p.region, p.market, p.settings.model_error_pct));
  for (const auto& w : p.workloads) {
    const Measured& m = w.measured;
    std::string text = fmt::format("\nworkload {} ({} samples/step)\n", m.workload, m.samples_per_step);
    text += fmt::format("  pipeline: {} CPU-ms/sample; {}\n", range_text({m.pipeline_cpu_s_per_sample.value * 1e3,
                                                                          m.pipeline_cpu_s_per_sample.lo * 1e3,
                                                                          m.pipeline_cpu_s_per_sample.hi * 1e3}, "{:.4g}"),
                        m.pipeline_source);
    text += m.bytes_per_batch ? fmt::format("  batch:    {:.4g} MB on the data link per step{}\n", *m.bytes_per_batch / 1e6,
                                            p.settings.link_gbit_per_s ? fmt::format(" ({:g} Gbit/s: {:.4g} ms)", *p.settings.link_gbit_per_s,
                                                                                     *m.bytes_per_batch * 8 / (*p.settings.link_gbit_per_s * 1e9) * 1e3)
                                                                       : std::string(" (no link bandwidth: --link-gbps)"))
                              : std::string("  batch:    bytes unknown (the workload declares no batch layout)\n");
    text += fmt::format("  scaling:  efficiency {} at {} core(s)\n", range_text(m.scaling_efficiency, "{:.2f}"), m.scaling_cores);
    text += m.trainer_step_ms ? fmt::format("  trainer:  {} ms/step; {}\n", range_text(*m.trainer_step_ms, "{:.4g}"), m.trainer_source)
                              : fmt::format("  trainer:  step unknown: no floor ({})\n", m.trainer_source);
    for (const auto& f : w.speed_factors)
      text += fmt::format("  speed factor {}: {} ({})\n", f.family, range_text(f.factor, "{:.2f}"), f.source);
    if (const Prediction* c = cheapest(w))
      text += fmt::format("  cheapest: {}: {} USD/1M samples, step {} ms ({}-bound)\n", cluster(c->candidate),
                          range_text(c->usd_per_1m_samples, "{:.4g}"), range_text(c->step_ms, "{:.4g}"), c->bound);
    text += "  knee: " + knee_text(w) + "\n";
    text += data_line(w);
    out += prose(text);
    std::vector<std::string> dropped;
    out += top_table(w, top, width, dropped);
    text.clear();
    if (!dropped.empty())
      text += fmt::format("  left out at this width: {} (--out and --html have them)\n", fmt::join(dropped, " and "));
    if (!w.checks.empty())
      text += w.host_calibration ? fmt::format("  the config's own configurations on this host (projected x {:.3f}, the reference's measured / projected step):\n",
                                               *w.host_calibration)
                                 : std::string("  the config's own configurations (projected vs actual):\n");
    for (const auto& c : w.checks) {
      text += fmt::format("    {:<20} projected {} ms", c.configuration, range_text(c.predicted.step_ms, "{:.4g}"));
      if (c.actual_ms)
        text += fmt::format(", {} {:.4g} ms ({:+.1f} %, {} the interval)", c.actual_source, *c.actual_ms, error_pct(c),
                            *c.actual_ms >= c.predicted.step_ms.lo && *c.actual_ms <= c.predicted.step_ms.hi ? "inside" : "outside");
      text += c.reference ? " [reference]\n" : "\n";
    }
    out += prose(text);
  }
  if (!p.next_config_path.empty()) out += prose("\nconfiguration to measure next: " + p.next_config_path + "\n");
  return out;
}

namespace {
/// One trainer type's curves: its prediction alone and, per data type, its points by count.
struct TrainerSeries {
  std::string type;
  int64_t count = 1;
  const Prediction* alone = nullptr;
  std::map<std::string, std::vector<const Prediction*>> lines;
};

/// USD per 1M samples against data instances per trainer: the cheapest cluster's trainer type
/// (solid, its interval shaded) and, when the config's own trainer type is another, that one too
/// (dashed); one colour per data type, the knee marked on each.
std::string chart(const WorkloadProjection& w) {
  std::vector<TrainerSeries> series;
  const Prediction* best = cheapest(w);
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
  if (series.empty()) return "<p>no data instance types to chart</p>";
  int64_t max_n = 1;
  double max_y = 0;
  std::vector<std::string> data_types;  // one colour each, the same on every trainer's curves
  for (auto& s : series) {
    max_y = std::max(max_y, s.alone->usd_per_1m_samples.hi);
    for (auto& [type, points] : s.lines) {
      if (std::find(data_types.begin(), data_types.end(), type) == data_types.end()) data_types.push_back(type);
      std::sort(points.begin(), points.end(), [](const Prediction* a, const Prediction* b) { return a->candidate.data_count < b->candidate.data_count; });
      for (const Prediction* pt : points) max_n = std::max(max_n, pt->candidate.data_count), max_y = std::max(max_y, pt->usd_per_1m_samples.hi);
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
                         : fmt::format("data instances per {} x {}", series[0].count, escape(series[0].type)),
                     top);
  svg += fmt::format("<text transform=\"translate(16,{}) rotate(-90)\" text-anchor=\"middle\">USD per 1M samples</text>\n", top + ph / 2);
  const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};
  const auto color_of = [&](const std::string& type) {
    return colors[static_cast<size_t>(std::find(data_types.begin(), data_types.end(), type) - data_types.begin()) % 6];
  };
  for (size_t si = 0; si < series.size(); ++si) {
    const TrainerSeries& s = series[si];
    const Prediction* alone = s.alone;
    const std::string dash = si == 0 ? "" : " stroke-dasharray=\"6 4\"";
    bool first_line = true;
    for (const auto& [type, points] : s.lines) {
      const char* color = color_of(type);
      std::string path = fmt::format("M{:.1f},{:.1f}", x(0), y(alone->usd_per_1m_samples.value));
      std::string band_top = fmt::format("M{:.1f},{:.1f}", x(0), y(alone->usd_per_1m_samples.hi)), band_bottom;
      for (const Prediction* pt : points) {
        path += fmt::format(" L{:.1f},{:.1f}", x(static_cast<double>(pt->candidate.data_count)), y(pt->usd_per_1m_samples.value));
        band_top += fmt::format(" L{:.1f},{:.1f}", x(static_cast<double>(pt->candidate.data_count)), y(pt->usd_per_1m_samples.hi));
      }
      for (auto it = points.rbegin(); it != points.rend(); ++it)
        band_bottom += fmt::format(" L{:.1f},{:.1f}", x(static_cast<double>((*it)->candidate.data_count)), y((*it)->usd_per_1m_samples.lo));
      band_bottom += fmt::format(" L{:.1f},{:.1f} Z", x(0), y(alone->usd_per_1m_samples.lo));
      if (si == 0) svg += fmt::format("<path d=\"{}{}\" fill=\"{}\" fill-opacity=\"0.12\" stroke=\"none\"/>\n", band_top, band_bottom, color);
      svg += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} data-trainer=\"{}\" data-type=\"{}\"/>\n", path, color,
                         dash, escape(s.type), escape(type));
      for (const Prediction* pt : points)
        svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"><title>{}: {:.4g} USD/1M samples, step {:.4g} ms</title></circle>\n",
                           x(static_cast<double>(pt->candidate.data_count)), y(pt->usd_per_1m_samples.value), color,
                           escape(cluster(pt->candidate)), pt->usd_per_1m_samples.value, pt->step_ms.value);
      // The knee: the first count whose step is the trainer's (more data instances stop helping);
      // at 0 when the trainer alone is trainer-bound.
      if (alone->bound == "trainer" && first_line)
        svg += fmt::format("<circle class=\"knee\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"7\" fill=\"none\" stroke=\"#333\" stroke-width=\"2\"/>"
                           "<text x=\"{:.1f}\" y=\"{:.1f}\">knee: 0 (trainer alone)</text>\n",
                           x(0), y(alone->usd_per_1m_samples.value), x(0) + 10, y(alone->usd_per_1m_samples.value) + 22);
      for (const Prediction* pt : points)
        if (alone->bound != "trainer" && pt->bound == "trainer") {
          svg += fmt::format("<circle class=\"knee\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"7\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>"
                             "<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"{}\">knee</text>\n",
                             x(static_cast<double>(pt->candidate.data_count)), y(pt->usd_per_1m_samples.value), color,
                             x(static_cast<double>(pt->candidate.data_count)) + 8, y(pt->usd_per_1m_samples.value) - 8, color);
          break;
        }
      first_line = false;
    }
  }
  // The legend: a colour per data type; with two trainers, a line style per trainer.
  double row = 0;
  for (const auto& type : data_types) {
    svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"2\"/><text x=\"{4}\" y=\"{5}\">{6}</text>\n",
                       left + pw + 12, top + 14 + 18 * row, left + pw + 32, color_of(type), left + pw + 38, top + 18 + 18 * row, escape(type));
    ++row;
  }
  if (two)
    for (size_t si = 0; si < series.size(); ++si) {
      svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#555\" stroke-width=\"2\"{3}/>"
                         "<text x=\"{4}\" y=\"{5}\" data-legend=\"trainer\">{6} x {7} ({8})</text>\n",
                         left + pw + 12, top + 14 + 18 * row, left + pw + 32, si == 0 ? "" : " stroke-dasharray=\"6 4\"", left + pw + 38,
                         top + 18 + 18 * row, series[si].count, escape(series[si].type), si == 0 ? "cheapest" : "the config's");
      ++row;
    }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#555\">shaded: interval{}</text>\n", left + pw + 12, top + 22 + 18 * row,
                     two ? " (cheapest)" : "");
  return svg + "</svg>\n";
}
}  // namespace

std::string html_page(const Projection& p, size_t top) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>pperf projection: {0}</title>\n"
      "<style>{5}\nbody{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:3px 8px;text-align:right}}"
      "td:nth-child(2),th:nth-child(2){{text-align:left}}</style></head><body>\n<h1>Projection of {0}</h1>\n"
      "<p>Prices: {1} ({2}, {3}). Step = max(trainer step, pipeline CPU-seconds per step / usable core-equivalents, link); "
      "intervals from the measurement's and the speed factors', widened by a stated model error of {4:g} %.</p>\n",
      escape(p.config_name), escape(p.table), escape(p.region), escape(p.market), p.settings.model_error_pct, svg::svg_chart_css());
  for (const auto& w : p.workloads) {
    out += fmt::format("<h2>{}</h2>\n", escape(w.measured.workload));
    if (const Prediction* c = cheapest(w))
      out += fmt::format("<p>Cheapest: <b>{}</b>, {} USD per 1M samples, step {} ms ({}-bound).", escape(cluster(c->candidate)),
                         range_text(c->usd_per_1m_samples, "{:.4g}"), range_text(c->step_ms, "{:.4g}"), c->bound);
    out += " Knee: " + escape(knee_text(w)) + ".</p>\n";
    if (const std::string line = data_line(w); !line.empty())
      out += "<p class=\"data-instances\">" + escape(line.substr(2, line.size() - 3)) + ".</p>\n";  // its indent and newline off
    out += chart(w);
    out += "<table><tr><th>#</th><th>cluster</th><th>step ms</th><th>interval ms</th><th>USD / 1M samples</th><th>interval</th><th>bound</th></tr>\n";
    for (size_t i = 0; i < std::min(top, w.predictions.size()); ++i) {
      const Prediction& pr = w.predictions[i];
      out += fmt::format("<tr><td>{}</td><td>{}</td><td>{:.4g}</td><td>{:.4g} – {:.4g}</td><td>{:.4g}</td><td>{:.4g} – {:.4g}</td><td>{}</td></tr>\n",
                         i + 1, escape(cluster(pr.candidate)), pr.step_ms.value, pr.step_ms.lo, pr.step_ms.hi,
                         pr.usd_per_1m_samples.value, pr.usd_per_1m_samples.lo, pr.usd_per_1m_samples.hi, pr.bound);
    }
    out += "</table>\n";
  }
  if (!p.next_config_path.empty()) out += "<p>Configuration to measure next: <code>" + escape(p.next_config_path) + "</code></p>\n";
  return out + "</body></html>\n";
}

}  // namespace pperf::project
