// What every HTML page shares (html.h): the page's frame and style, its axes.
#include "reports/html.h"

#include "reports/markup.h"

namespace pperf::html {

namespace {
const char* kCss = R"css(
:root { --ink: #1d2330; --muted: #5b6475; --line: #d7dce5; --base: #6c7a96; --bar: #2f6fde; --good: #1f9d55;
        --bad: #d64545; --warn: #b7791f; --band: #e8eefb; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--ink);
       margin: 0; background: #f6f7fa; }
main { max-width: 1040px; margin: 0 auto; padding: 20px 24px; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 14px; margin: 18px 0 6px; color: var(--muted); }
.subtitle { color: var(--muted); margin: 0 0 16px; }
dl.prov { display: grid; grid-template-columns: 150px 1fr 150px 1fr; gap: 2px 12px; margin: 0; font-size: 13px; }
dl.prov dt { color: var(--muted); } dl.prov dd { margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; font-size: 12px; }
.wide-table { overflow-x: auto; }
th { white-space: normal; }
th, td { border-bottom: 1px solid var(--line); padding: 3px 6px; text-align: right; white-space: nowrap; vertical-align: top; }
td small, th small { color: var(--muted); font-weight: 400; }
td:nth-child(-n+3), td.text { white-space: normal; }
th:nth-child(-n+3), td:nth-child(-n+3), th.text, td.text { text-align: left; }
th { background: #eef1f6; font-weight: 600; }
td.failed { color: var(--bad); text-align: left; white-space: normal; }
.note { color: var(--muted); font-size: 12.5px; }
.warning { background: #fff7e6; border-left: 4px solid var(--warn); padding: 6px 10px; margin: 8px 0; }
.verdict-regressed, .verdict-failed, .verdict-missing { color: var(--bad); font-weight: 600; }
.verdict-improved { color: var(--good); font-weight: 600; }
.verdict-undecided { color: var(--warn); font-weight: 600; }
svg { display: block; margin: 4px 0 10px; font: 11px system-ui, "DejaVu Sans", sans-serif; }
svg .axis { stroke: #9aa3b2; stroke-width: 1; } svg .grid { stroke: #eceff4; stroke-width: 1; }
svg text { fill: var(--ink); } svg text.muted { fill: var(--muted); }
svg .bar { fill: var(--bar); } svg .bar.baseline { fill: var(--base); }
svg .whisker { stroke: var(--ink); stroke-width: 1.5; }
svg .hist { fill: #8fb2f0; } svg .median { stroke: var(--ink); stroke-width: 2; } svg .ciband { fill: var(--band); }
svg .zero { stroke: var(--ink); stroke-width: 1; stroke-dasharray: 3 3; }
svg .dot { fill: var(--bar); } svg .dot.regressed { fill: var(--bad); } svg .dot.improved { fill: var(--good); }
svg .line { fill: none; stroke: var(--bar); stroke-width: 1.8; } svg .line.cost { stroke: var(--good); }
svg .change { stroke: var(--bad); stroke-width: 1.5; stroke-dasharray: 5 3; } svg text.change { fill: var(--bad); }
svg .threshold { fill: #fdecec; }
footer { margin-top: 28px; color: var(--muted); font-size: 12px; }
)css";
}  // namespace

std::string page_start(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
         markup_escape(title) + "</title>\n<style>" + kCss + "</style>\n</head>\n<body>\n<main>\n";
}

std::string page_end(const std::string& footer) {
  return "<footer>" + footer + "</footer>\n</main>\n</body>\n</html>\n";
}

std::string labelled_x_axis(const svg::Scale& x, double y, const std::vector<double>& marks, const std::string& unit, double top) {
  return svg::x_axis(x, y, marks, markup_escape(unit), top);
}

}  // namespace pperf::html
