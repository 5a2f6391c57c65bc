#pragma once
// Drawing helpers shared by the SVG charts pperf writes (the HTML report's, the projection
// page's): a linear scale and the axes with their grid lines and tick labels. The markup they
// return uses the CSS classes `axis`, `grid` and `muted`; a page without them defines them with
// svg_chart_css(). Labels print at 4 significant digits, coordinates at 0.1 px.
#include <string>
#include <vector>

namespace pperf::svg {

/// Linear map from data [lo, hi] to pixels [a, b] (a reversed pixel range flips the axis: a y
/// scale runs from the bottom up); a point range maps every value to a.
struct Scale {
  double lo, hi, a, b;
  double operator()(double v) const { return hi == lo ? a : a + (v - lo) / (hi - lo) * (b - a); }
};

std::string px(double v);                  // a coordinate: "12.3"
std::string sig(double v, int digits = 4);  // a tick label: "0.567", "1.13e+04"

/// A horizontal axis at pixel row `y` spanning the scale's pixels: the axis line, at each mark a
/// grid line up to `top` and its label below the axis, and `unit_markup` (escaped by the caller)
/// under the axis's right end.
std::string x_axis(const Scale& x, double y, const std::vector<double>& marks, const std::string& unit_markup, double top);

/// The value side of a chart: at each mark inside the scale's range a horizontal grid line from
/// `left` to `right` and its label right-aligned just left of `left`.
std::string y_grid(const Scale& y, double left, double right, const std::vector<double>& marks);

/// CSS for the classes above, for a page that does not style them itself.
const char* svg_chart_css();

}  // namespace pperf::svg
