#pragma once
// What the HTML pages share (one file a page: html_run.cpp, html_compare.cpp,
// html_projection.cpp; formats.h declares them): the page's frame with its inline style, the
// charts' layout and axes. Internal to reports/.
#include <string>
#include <vector>

#include "src/core/result.h"
#include "src/core/svg_chart.h"

namespace pperf::html {

using svg::px;
using svg::Scale;
using svg::sig;

/// A chart's width, its label column, its right margin and one row's height (px).
constexpr double kWidth = 940, kLabel = 190, kRight = 90, kRow = 30;

/// The page up to its content: doctype, title, the inline style, <main>.
std::string page_start(const std::string& title);
/// The page's footer (HTML, escaped by the caller) and its closing tags.
std::string page_end(const std::string& footer);
/// An x axis at `y` with tick marks and `unit` (escaped here) as its label.
/// The scaling curve's section of a run's page (reports/scaling.cpp): per workload its summary and
/// charts of efficiency, hours and cost per epoch (or throughput) against instances; "" without one.
std::string scaling_section(const RunReport& r);
std::string labelled_x_axis(const Scale& x, double y, const std::vector<double>& marks, const std::string& unit, double top);

}  // namespace pperf::html
