#include "reports/compare_writers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "bench/stats/compare_stats.h"
#include "reports/markup.h"

namespace pperf {

namespace {

int severity(Verdict v) {
  switch (v) {
    case Verdict::regressed: return 0;
    case Verdict::failed: return 1;
    case Verdict::missing: return 2;
    case Verdict::improved: return 3;
    case Verdict::added: return 4;
    case Verdict::undecided: return 5;
    case Verdict::unchanged: return 6;
  }
  return 7;
}

std::string opt(const std::optional<double>& v, const char* format) {
  return v ? fmt::format(fmt::runtime(format), *v) : std::string("-");
}

std::string side_line(const CompareSide& s) {
  std::string line = s.file;
  if (!s.description.empty()) line += " (" + s.description + ")";
  line += fmt::format(": config {}, git {}, started {}", s.report.config_name, short_sha(s.report.git_sha),
                      s.report.started_at);
  return line;
}

std::string ci_text(const std::optional<std::array<double, 2>>& ci) {
  return ci ? fmt::format("[{:+.1f}, {:+.1f}]", (*ci)[0], (*ci)[1]) : "";
}

std::string mean_text(const PairComparison& p) {
  auto side = [](const std::optional<PairFigures>& f) {
    return f && f->mean_ms ? fmt::format("{:.4g}", *f->mean_ms) : std::string("-");
  };
  return side(p.baseline) + " -> " + side(p.candidate);
}

std::string money_text(const PairComparison& p) {
  auto side = [](const std::optional<PairFigures>& f) {
    return f && f->usd_per_step ? fmt::format("{:.4g}", *f->usd_per_step * 100) : std::string("-");
  };
  return side(p.baseline) + " -> " + side(p.candidate);
}

std::string cost_change_text(const PairComparison& p) {
  if (!p.cost_change_pct) return "-";
  // A part that rounds to zero prints +0.0, never -0.0.
  auto part = [](double pct) { return std::fabs(pct) < 0.05 ? 0.0 : pct; };
  return fmt::format("{:+.1f} (time {:+.1f}, price {:+.1f})", part(*p.cost_change_pct), part(*p.cost_time_part_pct),
                     part(*p.cost_price_part_pct));
}

std::string q_text(const PairComparison& p) {
  return p.q_value ? fmt::format("{:.3g}", *p.q_value) : (p.compared_by == "threshold" ? "n/a" : "-");
}

std::string method_sentence(const CompareReport& r) {
  return fmt::format(
      "Change: of the mean step time (what the bill follows), with its 95 % interval; against one run, Welch's t "
      "on the log ratio of the means (standard errors from batch means); against several baseline runs, the "
      "prediction interval of one more run (at least {} runs); q: Benjamini–Hochberg over the {} tested "
      "pair(s). A pair regresses when q <= {:g} and its mean step time rises more than {:g} % or its USD per "
      "step rises more than {:g} % through step time; a price change alone never regresses. Pairs without "
      "samples are compared by the thresholds alone; pairs too short to test are undecided.",
      kMinBaselineRuns, r.tested_pairs, r.options.alpha, r.options.max_slowdown_pct, r.options.max_cost_increase_pct);
}




std::string verdict_badge(Verdict v) {
  switch (v) {
    case Verdict::regressed: return "🔴 regressed";
    case Verdict::failed: return "🔴 failed";
    case Verdict::missing: return "🔴 missing";
    case Verdict::improved: return "🟢 improved";
    case Verdict::added: return "🆕 new";
    case Verdict::unchanged: return "⚪ unchanged";
    case Verdict::undecided: return "🟡 undecided";
  }
  return "";
}

}  // namespace

std::string compare_summary_sentence(const CompareReport& r) {
  return fmt::format("{} pair(s): {} regressed, {} improved, {} unchanged, {} undecided, {} new, {} missing, {} failed",
                     r.pairs.size(), r.count(Verdict::regressed), r.count(Verdict::improved),
                     r.count(Verdict::unchanged), r.count(Verdict::undecided), r.count(Verdict::added),
                     r.count(Verdict::missing), r.count(Verdict::failed));
}

std::vector<const PairComparison*> pairs_by_severity(const CompareReport& report) {
  std::vector<const PairComparison*> out;
  for (const auto& p : report.pairs) out.push_back(&p);
  std::stable_sort(out.begin(), out.end(),
                   [](const PairComparison* a, const PairComparison* b) { return severity(a->verdict) < severity(b->verdict); });
  return out;
}

std::string pair_workload_label(const PairComparison& p) {
  return p.workload + (p.preset.empty() ? "" : "/" + p.preset) + "/" + std::to_string(p.batch_size);
}

std::string pair_figures_line(const PairComparison& p, const std::string& currency) {
  std::vector<std::string> parts;
  if (p.change_pct) {
    std::string s = fmt::format("mean step time {:+.2f} %", *p.change_pct);
    if (p.change_pct_ci95) s += fmt::format(" [95 % CI {:+.2f}, {:+.2f}]", (*p.change_pct_ci95)[0], (*p.change_pct_ci95)[1]);
    s += " (mean " + mean_text(p) + " ms";
    if (p.baseline && p.candidate) s += fmt::format(", n {} vs {}", p.baseline->n, p.candidate->n);
    s += ")";
    parts.push_back(s);
  }
  if (p.p_value) parts.push_back(fmt::format("p = {:.3g}, q = {:.3g}", *p.p_value, *p.q_value));
  if (p.compared_by == "threshold") parts.push_back("by threshold alone (no samples)");
  if (p.cost_change_pct)
    parts.push_back(fmt::format("{} per 100 steps {} ({:+.2f} %: time {:+.2f} %, price {:+.2f} %)", currency,
                                money_text(p), *p.cost_change_pct, *p.cost_time_part_pct, *p.cost_price_part_pct));
  std::string out;
  for (const auto& s : parts) out += (out.empty() ? "" : "; ") + s;
  return out;
}

std::string compare_console(const CompareReport& r) {
  std::string out = "pperf compare\n";
  out += "  baseline:  " + side_line(r.baseline) + "\n";
  out += "  candidate: " + side_line(r.candidate) + "\n";
  for (const auto& w : r.warnings) out += "warning: " + w.message() + "\n";
  for (const auto& n : r.notes) out += "note: " + n + "\n";
  const std::vector<std::string> header = {"verdict", "workload", "configuration", "mean ms", "change %",
                                           "95% CI %", "q", r.currency + "/100 steps", "cost change % (time, price)"};
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : r.pairs)
    rows.push_back({to_string(p.verdict), pair_workload_label(p), p.configuration, mean_text(p),
                    opt(p.change_pct, "{:+.1f}"), ci_text(p.change_pct_ci95), q_text(p), money_text(p),
                    cost_change_text(p)});
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (size_t c = 0; c < cells.size(); ++c)
      s += (c ? "  " : "") + (c + 1 == cells.size() ? cells[c] : fmt::format("{:<{}}", cells[c], width[c]));
    return s + "\n";
  };
  out += line(header);
  for (const auto& row : rows) out += line(row);
  for (const auto* p : pairs_by_severity(r)) {
    if (!is_alarm(p->verdict) && p->verdict != Verdict::added && p->verdict != Verdict::undecided && !p->price_moved)
      continue;
    out += fmt::format("{} {} {}: ", to_string(p->verdict), pair_workload_label(*p), p->configuration);
    for (size_t i = 0; i < p->reasons.size(); ++i) out += (i ? "; " : "") + p->reasons[i];
    out += "\n";
  }
  out += compare_summary_sentence(r) + ".\n";
  return out;
}

std::string compare_markdown(const CompareReport& r) {
  std::string out = fmt::format("## pperf compare: {}\n\n", markdown_escape(r.candidate.report.config_name));
  const size_t alarms = r.count(Verdict::regressed) + r.count(Verdict::missing) + r.count(Verdict::failed);
  out += fmt::format("**{}** — {}.\n\n", alarms ? "🔴 " + std::to_string(alarms) + " alarm(s)" : std::string("🟢 no regression"),
                     compare_summary_sentence(r));
  out += "| | source | config | git | started |\n|---|---|---|---|---|\n";
  for (const auto* s : {&r.baseline, &r.candidate})
    out += fmt::format("| {} | `{}`{} | {} | `{}` | {} |\n", s == &r.baseline ? "baseline" : "candidate", s->file,
                       s->description.empty() ? "" : " (" + markdown_escape(s->description) + ")", markdown_escape(s->report.config_name),
                       short_sha(s->report.git_sha), s->report.started_at);
  out += "\n";
  if (!r.warnings.empty()) {
    out += "> [!WARNING]\n> Not like for like:\n";
    for (const auto& w : r.warnings) out += "> - " + markdown_escape(w.message()) + "\n";
    out += "\n";
  }
  for (const auto& n : r.notes) out += "> " + markdown_escape(n) + "\n\n";
  out += fmt::format("| verdict | workload | configuration | mean ms | change % | 95 % CI % | q | {}/100 steps | cost change % (time, price) |\n",
                     markdown_escape(r.currency));
  out += "|---|---|---|---:|---:|---:|---:|---:|---|\n";
  for (const auto* p : pairs_by_severity(r))
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", verdict_badge(p->verdict),
                       markdown_escape(pair_workload_label(*p)), markdown_escape(p->configuration), mean_text(*p),
                       opt(p->change_pct, "{:+.1f}"), ci_text(p->change_pct_ci95), q_text(*p), money_text(*p),
                       cost_change_text(*p));
  out += "\n";
  bool any_detail = false;
  for (const auto* p : pairs_by_severity(r)) {
    if (!is_alarm(p->verdict) && p->verdict != Verdict::undecided && !p->price_moved) continue;
    if (!any_detail) out += "**Details**\n\n", any_detail = true;
    out += fmt::format("- **{} {} {}**: ", to_string(p->verdict), markdown_escape(pair_workload_label(*p)), markdown_escape(p->configuration));
    for (size_t i = 0; i < p->reasons.size(); ++i) out += (i ? "; " : "") + markdown_escape(p->reasons[i]);
    out += "\n";
  }
  if (any_detail) out += "\n";
  out += "<sub>" + markdown_escape(method_sentence(r)) + "</sub>\n";
  return out;
}

std::string compare_junit(const CompareReport& r) {
  const size_t failures = r.count(Verdict::regressed) + r.count(Verdict::missing) + r.count(Verdict::failed);
  const std::string suite = "pperf compare " + r.candidate.report.config_name;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\">\n", markup_escape(suite),
                     r.pairs.size(), failures);
  out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" timestamp=\"{}\">\n",
                     markup_escape(suite), r.pairs.size(), failures, markup_escape(r.candidate.report.started_at));
  out += "    <properties>\n";
  out += fmt::format("      <property name=\"baseline\" value=\"{}\"/>\n", markup_escape(side_line(r.baseline)));
  out += fmt::format("      <property name=\"candidate\" value=\"{}\"/>\n", markup_escape(side_line(r.candidate)));
  for (const auto& w : r.warnings)
    out += fmt::format("      <property name=\"warning\" value=\"{}\"/>\n", markup_escape(w.message()));
  out += "    </properties>\n";
  for (const auto& p : r.pairs) {
    const double seconds = p.candidate && p.candidate->mean_ms ? *p.candidate->mean_ms / 1000 : 0;
    out += fmt::format("    <testcase classname=\"pperf.{}\" name=\"{}\" time=\"{:.6f}\">\n",
                       markup_escape(pair_workload_label(p)), markup_escape(p.configuration), seconds);
    std::string reasons;
    for (size_t i = 0; i < p.reasons.size(); ++i) reasons += (i ? "; " : "") + p.reasons[i];
    const std::string figures = pair_figures_line(p, r.currency);
    if (is_alarm(p.verdict)) {
      const std::string message = to_string(p.verdict) + ": " + reasons + (figures.empty() ? "" : " | " + figures);
      out += fmt::format("      <failure type=\"{}\" message=\"{}\">{}</failure>\n", to_string(p.verdict),
                         markup_escape(message), markup_escape(message));
    }
    out += fmt::format("      <system-out>{}</system-out>\n",
                       markup_escape(to_string(p.verdict) + ": " + reasons + (figures.empty() ? "" : "\n" + figures)));
    out += "    </testcase>\n";
  }
  std::string warnings;
  for (const auto& w : r.warnings) warnings += "warning: " + w.message() + "\n";
  for (const auto& n : r.notes) warnings += "note: " + n + "\n";
  if (!warnings.empty()) out += "    <system-err>" + markup_escape(warnings) + "</system-err>\n";
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace pperf
