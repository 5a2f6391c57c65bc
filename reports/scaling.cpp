// A scaling curve (RunReport::scaling; docs/scaling.md) on the console and on the HTML page:
// one row per instance count, and charts of efficiency, time and cost per epoch against it.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "reports/columns.h"
#include "reports/formats.h"
#include "reports/html.h"
#include "reports/markup.h"
#include "reports/page_text.h"
#include "reports/text.h"
#include "src/core/axis_ticks.h"

namespace pperf {

namespace {
std::string with_ci(const std::optional<double>& v, const std::optional<std::array<double, 2>>& ci, const char* format,
                    double scale = 1) {
  if (!v) return "-";
  std::string out = fmt::format(fmt::runtime(format), *v * scale);
  if (ci) out += fmt::format(fmt::runtime(std::string(" [") + format + ", " + format + "]"), (*ci)[0] * scale, (*ci)[1] * scale);
  return out;
}

/// Columns of text, left-aligned first column, the others right-aligned, two spaces apart.
std::string render_rows(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size(); ++c) {
      if (widths.size() <= c) widths.push_back(0);
      widths[c] = std::max(widths[c], row[c].size());
    }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c)
      line += (c ? "  " : "") + (c == 0 ? fmt::format("{:<{}}", row[c], widths[c]) : fmt::format("{:>{}}", row[c], widths[c]));
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

size_t widest_line(const std::string& text) {
  size_t widest = 0, start = 0;
  for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) widest = std::max(widest, end - start);
  return widest;
}
}  // namespace

std::string scaling_table(const std::optional<ScalingRecord>& scaling, const std::string& currency, size_t width) {
  if (!scaling) return "";
  std::string out;
  for (const auto& c : scaling->curves) {
    std::string prose = fmt::format("Scaling curve of {} ({}, batch {} per rank) on {}: {}.\n", c.workload, c.preset, c.batch_size,
                                    c.instance_type, scaling->measured_as);
    const bool epoch = c.epoch_samples.has_value();
    // With a width, the step's and the throughput's intervals give way first.
    for (int detail = 2; detail >= 0; --detail) {
      std::vector<std::vector<std::string>> rows;
      std::vector<std::string> head{"instances", "ranks", detail >= 2 ? "step ms (95% CI)" : "step ms",
                                    detail >= 1 ? "samples/s (95% CI)" : "samples/s", "efficiency % (95% CI)", currency + "/h"};
      if (epoch) {
        head.push_back("h/epoch (95% CI)");
        head.push_back(currency + "/epoch (95% CI)");
      } else {
        head.push_back(currency + "/1M samples");
      }
      if (c.deadline_h) head.push_back(fmt::format("within {:g} h", *c.deadline_h));
      rows.push_back(head);
      for (const auto& p : c.points) {
        std::vector<std::string> row{fmt::format("{} x", p.instances), std::to_string(p.world_size)};
        if (p.status != "ok") {
          row.push_back(p.status + ": " + p.reason);
          rows.push_back(row);
          continue;
        }
        row.push_back(with_ci(p.step_ms, detail >= 2 ? p.step_ms_ci95 : std::nullopt, "{:.4g}"));
        row.push_back(with_ci(p.samples_per_s, detail >= 1 ? p.samples_per_s_ci95 : std::nullopt, "{:.4g}"));
        row.push_back(with_ci(p.efficiency, p.efficiency_ci95, "{:.1f}", 100));
        row.push_back(figure_or_dash(p.usd_per_hour, "{:.4g}"));
        if (epoch) {
          row.push_back(with_ci(p.epoch_hours, p.epoch_hours_ci95, "{:.3g}"));
          row.push_back(with_ci(p.epoch_usd, p.epoch_usd_ci95, "{:.4g}"));
        } else {
          row.push_back(figure_or_dash(p.usd_per_1m_samples, "{:.4g}"));
        }
        if (c.deadline_h)
          row.push_back(!p.meets_deadline ? "-" : c.cheapest_instances == p.instances ? "yes, cheapest" : *p.meets_deadline ? "yes" : "no");
        rows.push_back(row);
      }
      const std::string table = render_rows(rows);
      if (detail == 0 || width == 0 || widest_line(table) <= width) {
        out += "\n" + wrap(prose, width) + table;
        break;
      }
    }
    std::string notes = c.summary + "\n";
    notes += "Efficiency = throughput(N) / (N / " + std::to_string(c.points.empty() ? 1 : c.points.front().instances) +
             " x throughput of the first point), from the mean steps, its 95 % CI by the delta method on their standard errors.\n";
    out += wrap(notes, width);
  }
  return out;
}

std::string data_parallel_console(const project::DataParallelProjection& d, size_t width) {
  const project::DataParallelInputs& in = d.inputs;
  std::string prose = fmt::format(
      "\ndata-parallel: {} projected to {} instance(s) of each type with its accelerator: step(N) = step(1) + (1 - overlap) x "
      "2(N-1)/N x {:.4g} MB of gradients / the type's link\n",
      d.workload, fmt::join(d.instances, ", "), in.bytes_per_step / 1e6);
  prose += fmt::format("  step(1): {} ms, {}\n  overlap: {:.0f} % of the all-reduce hidden by backward, {}\n",
                       range_text(in.step_one_ms, "{:.4g}"), in.step_source, in.overlap * 100, in.overlap_source);
  std::string out = wrap(prose, width);
  std::vector<std::vector<std::string>> rows;
  const bool epoch = d.epoch_samples.has_value();
  std::vector<std::string> head{"type", "instances", "link Gbit/s", "all-reduce ms", "step ms", "efficiency %", "USD/h",
                                epoch ? "h/epoch" : "USD/1M samples"};
  if (epoch) head.push_back("USD/epoch");
  if (d.deadline_h) head.push_back(fmt::format("within {:g} h", *d.deadline_h));
  rows.push_back(head);
  for (size_t i = 0; i < d.predictions.size(); ++i) {
    const auto& p = d.predictions[i];
    std::vector<std::string> row{p.type, std::to_string(p.instances), p.link_gbps ? fmt::format("{:g}", *p.link_gbps) : "unknown",
                                 fmt::format("{:.3g}", p.allreduce_ms), range_text(p.step_ms, "{:.4g}"),
                                 range_text({p.efficiency.value * 100, p.efficiency.lo * 100, p.efficiency.hi * 100}, "{:.1f}"),
                                 fmt::format("{:.4g}", p.usd_per_hour)};
    if (epoch) {
      row.push_back(p.epoch_hours ? range_text(*p.epoch_hours, "{:.3g}") : "-");
      row.push_back(p.epoch_usd ? range_text(*p.epoch_usd, "{:.4g}") : "-");
    } else {
      row.push_back(range_text(p.usd_per_1m_samples, "{:.4g}"));
    }
    if (d.deadline_h) row.push_back(!p.meets_deadline ? "-" : d.cheapest == i ? "yes, cheapest" : *p.meets_deadline ? "yes" : "no");
    rows.push_back(row);
  }
  out += render_rows(rows);
  std::string notes = "  the model against the measured curve: " + d.validation.note + "\n";
  for (const auto& c : d.validation.checks)
    notes += fmt::format("    {} x: all-reduce {:.3g} ms predicted, {:.3g} ms measured; step {:.4g} ms predicted, {:.4g} ms measured "
                         "({:+.1f} %){}\n",
                         c.instances, c.predicted_allreduce_ms, c.measured_allreduce_ms, c.predicted_step_ms, c.measured_step_ms,
                         c.error_pct, c.fitted ? " [fitted]" : "");
  return out + wrap(notes, width);
}

namespace html {
namespace {
/// One series against the instance count: dots with their 95 % CI whiskers joined by a line;
/// `reference` (dashed) and `limit` (a horizontal dashed line) where given, the `mark`ed point circled.
struct CurveSeries {
  std::vector<double> x, y;
  std::vector<std::optional<std::array<double, 2>>> ci;
};
std::string curve_chart(const std::string& id, const std::string& workload, const CurveSeries& s, const std::string& unit,
                        const std::optional<CurveSeries>& reference, const std::string& reference_label,
                        const std::optional<double>& limit, const std::string& limit_label, const std::optional<double>& mark_x) {
  double lo = 0, hi = 0;
  auto grow = [&](double v) { hi = std::max(hi, v); };
  for (size_t i = 0; i < s.y.size(); ++i) {
    grow(s.y[i]);
    if (s.ci[i]) grow((*s.ci[i])[1]);
  }
  if (reference)
    for (double v : reference->y) grow(v);
  if (limit) grow(*limit);
  if (hi <= 0) hi = 1;
  const auto ymarks = axis_ticks(lo, hi * 1.05, 5);
  const double left = 80, right = kWidth - 220, top = 14, bottom = 250, height = 290;
  const double xmax = s.x.empty() ? 1 : s.x.back();
  const auto xmarks_all = axis_ticks(0, xmax, 6);
  std::vector<double> xmarks;
  for (double m : xmarks_all)
    if (m >= 0 && std::fabs(m - std::round(m)) < 1e-9) xmarks.push_back(m);
  const Scale x{0, std::max(xmax, xmarks.empty() ? xmax : xmarks.back()), left, right};
  const Scale y{lo, std::max(hi * 1.05, ymarks.back()), bottom, top};
  std::string out = fmt::format(
      "<svg class=\"chart\" data-chart=\"{}\" data-workload=\"{}\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-label=\"{} against trainer instances\">\n",
      id, markup_escape(workload), kWidth, height, kWidth, height, markup_escape(unit));
  out += svg::y_grid(y, left, right, ymarks);
  out += labelled_x_axis(x, bottom, xmarks, "trainer instances", top);
  out += fmt::format("<text class=\"muted\" x=\"{}\" y=\"{}\">{}</text>\n", px(left), px(top - 2), markup_escape(unit));
  if (reference && !reference->x.empty()) {
    std::string pts;
    for (size_t i = 0; i < reference->x.size(); ++i) pts += px(x(reference->x[i])) + "," + px(y(reference->y[i])) + " ";
    out += fmt::format("<polyline fill=\"none\" stroke=\"#888\" stroke-dasharray=\"5,4\" points=\"{}\"/>\n", pts);
    out += fmt::format("<text class=\"muted\" x=\"{}\" y=\"{}\">{}</text>\n", px(right + 8), px(y(reference->y.back()) + 4),
                       markup_escape(reference_label));
  }
  if (limit) {
    out += fmt::format("<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"#c0392b\" stroke-dasharray=\"6,3\"/>\n", px(left),
                       px(right), px(y(*limit)));
    out += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#c0392b\">{}</text>\n", px(right + 8), px(y(*limit) + 4), markup_escape(limit_label));
  }
  std::string pts;
  for (size_t i = 0; i < s.x.size(); ++i) pts += px(x(s.x[i])) + "," + px(y(s.y[i])) + " ";
  out += fmt::format("<polyline fill=\"none\" stroke=\"var(--bar)\" stroke-width=\"2\" points=\"{}\"/>\n", pts);
  for (size_t i = 0; i < s.x.size(); ++i) {
    const double cx = x(s.x[i]), cy = y(s.y[i]);
    out += fmt::format("<g class=\"point\" data-instances=\"{}\" data-value=\"{}\"><title>{} instance(s): {} {}", s.x[i], sig(s.y[i]),
                       s.x[i], sig(s.y[i]), markup_escape(unit));
    if (s.ci[i]) out += fmt::format(" (95 % CI {}..{})", sig((*s.ci[i])[0]), sig((*s.ci[i])[1]));
    out += "</title>";
    if (s.ci[i])
      out += fmt::format("<line class=\"whisker\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"var(--bar)\"/>", px(cx),
                         px(y((*s.ci[i])[0])), px(y((*s.ci[i])[1])));
    out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"var(--bar)\"/>", px(cx), px(cy));
    if (mark_x && *mark_x == s.x[i])
      out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"10\" fill=\"none\" stroke=\"var(--good)\" stroke-width=\"2.5\"/>", px(cx), px(cy));
    out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\">{}</text></g>\n", px(cx + 8), px(cy - 8), sig(s.y[i], 3));
  }
  return out + "</svg>\n";
}
}  // namespace

std::string scaling_section(const RunReport& r) {
  if (!r.scaling) return "";
  const std::string& currency = r.pricing_currency;
  std::string out = "<section id=\"scaling\"><h2>Scaling curve</h2>\n<p class=\"note\">Measured " + markup_escape(r.scaling->measured_as) +
                    ". Efficiency = throughput(N) / (N × throughput of the first point), from the mean steps; whiskers: 95 % CI.</p>\n";
  for (const auto& c : r.scaling->curves) {
    out += "<div class=\"curve\" data-workload=\"" + markup_escape(c.workload) + "\"><h3>" +
           markup_escape(fmt::format("{} ({}, batch {} per rank) on {}", c.workload, c.preset, c.batch_size, c.instance_type)) + "</h3>\n";
    out += "<p class=\"decision\" data-decision=\"scaling\">" + markup_escape(c.summary) + "</p>\n";
    CurveSeries eff, speed, hours, usd;
    CurveSeries ideal_eff, ideal_speed;
    for (const auto& p : c.points) {
      const double n = static_cast<double>(p.instances);
      if (p.efficiency) eff.x.push_back(n), eff.y.push_back(*p.efficiency * 100),
          eff.ci.push_back(p.efficiency_ci95 ? std::optional<std::array<double, 2>>({(*p.efficiency_ci95)[0] * 100, (*p.efficiency_ci95)[1] * 100})
                                             : std::nullopt);
      if (p.samples_per_s) speed.x.push_back(n), speed.y.push_back(*p.samples_per_s), speed.ci.push_back(p.samples_per_s_ci95);
      if (p.epoch_hours) hours.x.push_back(n), hours.y.push_back(*p.epoch_hours), hours.ci.push_back(p.epoch_hours_ci95);
      if (p.epoch_usd) usd.x.push_back(n), usd.y.push_back(*p.epoch_usd), usd.ci.push_back(p.epoch_usd_ci95);
      ideal_eff.x.push_back(n), ideal_eff.y.push_back(100);
    }
    if (!speed.y.empty() && !c.points.empty())
      for (const auto& p : c.points)
        ideal_speed.x.push_back(static_cast<double>(p.instances)),
            ideal_speed.y.push_back(speed.y.front() * static_cast<double>(p.instances) / static_cast<double>(c.points.front().instances));
    std::optional<double> cheapest;
    if (c.cheapest_instances) cheapest = static_cast<double>(*c.cheapest_instances);
    out += "<h4>Scaling efficiency (%)</h4>\n" +
           curve_chart("scaling-efficiency", c.workload, eff, "efficiency %", ideal_eff, "ideal 100 %", std::nullopt, "", std::nullopt);
    if (!hours.y.empty()) {
      out += "<h4>Hours per epoch (" + markup_escape(fmt::format("{:g}", *c.epoch_samples)) + " samples)</h4>\n" +
             curve_chart("scaling-hours", c.workload, hours, "h per epoch", std::nullopt, "", c.deadline_h,
                         c.deadline_h ? fmt::format("deadline {:g} h", *c.deadline_h) : "", cheapest);
      out += "<h4>" + markup_escape(currency) + " per epoch (circled: the cheapest within the deadline)</h4>\n" +
             curve_chart("scaling-cost", c.workload, usd, currency + " per epoch", std::nullopt, "", std::nullopt, "", cheapest);
    } else {
      out += "<h4>Samples per second</h4>\n" +
             curve_chart("scaling-throughput", c.workload, speed, "samples/s", ideal_speed, "linear", std::nullopt, "", std::nullopt);
    }
    out += "</div>\n";
  }
  return out + "</section>\n";
}
}  // namespace html

}  // namespace pperf
