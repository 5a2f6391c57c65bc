#include "src/core/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>

namespace pperf::svg {

std::string px(double v) { return fmt::format("{:.1f}", v); }
std::string sig(double v, int digits) { return fmt::format("{:.{}g}", v, digits); }

std::string x_axis(const Scale& x, double y, const std::vector<double>& marks, const std::string& unit_markup, double top) {
  std::string out = fmt::format("<line class=\"axis\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", px(x.a), px(y), px(x.b), px(y));
  for (double t : marks) {
    out += fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", px(x(t)), px(top), px(y));
    out += fmt::format("<text class=\"muted\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", px(x(t)), px(y + 14), sig(t));
  }
  out += fmt::format("<text class=\"muted\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", px(x.b), px(y + 28), unit_markup);
  return out;
}

std::string y_grid(const Scale& y, double left, double right, const std::vector<double>& marks) {
  std::string out;
  for (double t : marks) {
    if (t < std::min(y.lo, y.hi) || t > std::max(y.lo, y.hi)) continue;
    out += fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>", px(left), px(y(t)), px(right));
    out += fmt::format("<text class=\"muted\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", px(left - 4), px(y(t) + 4), sig(t));
  }
  return out;
}

const char* svg_chart_css() {
  return "svg .axis{stroke:#9aa3b2;stroke-width:1} svg .grid{stroke:#eceff4;stroke-width:1} svg text.muted{fill:#5b6475}";
}

}  // namespace pperf::svg
