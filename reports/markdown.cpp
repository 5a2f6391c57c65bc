// GitHub-flavoured Markdown of each page: a run's summary (with trends), a comparison
// (regressions first; fit for $GITHUB_STEP_SUMMARY or a merge-request comment), the advice.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "reports/columns.h"
#include "reports/decide_text.h"
#include "reports/formats.h"
#include "reports/markup.h"
#include "reports/page_text.h"

namespace pperf {

namespace {
std::string sig(double v, int digits = 4) { return fmt::format("{:.{}g}", v, digits); }

/// `s` inside a Markdown table cell: only a pipe would end it (GFM leaves intraword _ alone).
std::string table_cell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

/// An interval as every Markdown table and sentence here writes it (docs/results.md's "[lo, hi]"):
/// a column's CI ends as people read the column, money scaled to its "{steps}".
std::string interval(const Column& c, const std::array<double, 2>& ci, double money_steps) {
  const double k = c.money_per_step ? money_steps : 1;
  return "[" + format_for_people(ci[0] * k, c.style) + ", " + format_for_people(ci[1] * k, c.style) + "]";
}

/// A sweep's races (RunReport::sweep): per race, the best with its interval, the points
/// equivalent to it, what ended it and the time saved, then a table sorted by cost per sample
/// with each point's verdict. "" without a sweep.
std::string sweep_markdown(const std::optional<SweepRecord>& sweep, const std::string& currency) {
  if (!sweep || sweep->races.empty()) return "";
  std::string axes;
  for (const auto& a : sweep->axes) axes += (axes.empty() ? "" : " × ") + a.name;
  std::string out = "\n### Sweep: " + markdown_escape(axes) + "\n\n";
  for (const auto& race : sweep->races) {
    std::vector<std::string> equivalent;
    for (const auto& e : race.equivalent) equivalent.push_back("`" + e + "`");
    std::string best = "none";
    if (const SweepPoint* p = race.best_point())
      best = fmt::format("`{}` at {} {} per 1M samples (95 % CI {})", p->configuration, figure_or_dash(p->usd_per_1m_samples, "{:.4g}"),
                         currency, bounds_or_dash(p->usd_per_1m_samples_ci95, "{:.4g}"));
    out += fmt::format("**{}: best {}**; equivalent to it within ±{:g} %: {}.\n\n", markdown_escape(race.workload), best,
                       race.equivalence_pct, equivalent.empty() ? "none" : fmt::to_string(fmt::join(equivalent, ", ")));
    out += fmt::format("{} points raced in turns of {} steps; ended after {} rounds: {}. Each point against the best at {:.2f} % "
                       "(Bonferroni over the k − 1 comparisons: {:g} % together). Measured {:.1f} s of steps; the eliminations "
                       "saved {:.1f} s ({:.0f} %) against every point measuring every round.\n\n",
                       race.points.size(), race.round_steps, race.rounds, markdown_escape(race.stop), race.comparison_confidence * 100,
                       race.confidence * 100, race.measured_s, race.saved_s, race.saved_fraction * 100);
    out += fmt::format("| point | {}/1M samples [95 % CI] | cost / best's | verdict | decided against |\n|---|---:|---:|---|---|\n",
                       markdown_escape(currency));
    for (const auto& p : race.points) {
      std::string said = p.verdict == "best" ? "**best**" : p.verdict;
      if (p.left_after_round) said += fmt::format(" after round {}", *p.left_after_round);
      out += fmt::format("| {} | {} {} | {} | {} | {} |\n", table_cell(p.configuration), figure_or_dash(p.usd_per_1m_samples, "{:.4g}"),
                         bounds_or_dash(p.usd_per_1m_samples_ci95, "{:.4g}"),
                         p.verdict == "best" ? std::string("1") : bounds_or_dash(p.cost_ratio_bounds, "{:.3f}"), said,
                         table_cell(p.compared_with.value_or("")));
    }
  }
  return out;
}
}  // namespace

std::string run_report_markdown(const RunReportPage& page) {
  const RunReport& r = *page.run;
  std::string out = fmt::format("## pperf report: {}\n\n", r.config_name);
  const auto inputs = decide_input_lines(r);
  out += fmt::format("`{}` — {} run, {}, started {}; pperf {} (git `{}`); {} {} ({}, {} logical CPUs, BLAS {}, libtorch {}); "
                     "prices {} ({}, published {}, retrieved {}).\n\n",
                     page.source, to_string(r.status), r.config_name, r.started_at, r.tool_version, short_sha(r.git_sha),
                     inputs.empty() ? "host" : "decided on host", host_fact(r.host, {"hostname"}), host_fact(r.host, {"cpu_model"}), host_fact(r.host, {"logical_cpus"}),
                     host_fact(r.host, {"blas", "library"}), host_fact(r.host, {"torch", "libtorch_version"}),
                     r.pricing_table, r.pricing_region, r.pricing_published.empty() ? "unknown" : r.pricing_published,
                     r.pricing_retrieved);
  if (!inputs.empty()) {  // pperf decide: where and when each input was measured
    out += "Measured apart (schedule: separate), each run on its own host:\n\n";
    for (const auto& line : inputs) out += "- " + markdown_escape(line) + "\n";
    out += "\nHow it was decided:\n\n";
    for (const auto& note : decide_notes(r)) out += "- " + markdown_escape(note) + "\n";
    out += "\n";
  }
  // A sweep leads with its race's statement; the pairwise lines follow, said to be pairwise.
  const auto race_statements = sweep_sentences(r.sweep, r.pricing_currency);
  for (const auto& d : race_statements) out += "**" + d + "**\n\n";
  const auto decisions = decision_sentences(r.results);
  if (!race_statements.empty() && !decisions.empty()) out += "_" + sweep_pairwise_note(r.sweep) + "_\n\n";
  for (const auto& d : decisions) out += (race_statements.empty() ? "**" + d + "**" : "- " + d) + "\n\n";
  const auto columns = columns_of(kMarkdown);
  const auto money = money_scale(r.results);
  std::string header = "|", rule = "|";
  for (const Column* c : columns) {
    header += " " + table_cell(header_for_people(*c, r.pricing_currency, money.second)) + (c->ci_key.empty() ? "" : " [95 % CI]") + " |";
    rule += c->style.kind == Style::text ? "---|" : "---:|";
  }
  out += header + "\n" + rule + "\n";
  for (const auto& x : r.results) {
    std::string row = "|";
    bool failure_shown = false;
    for (const Column* c : columns) {
      if (!c->identity && !shows_figures(x)) {  // the first figure's cell says why there are none
        row += failure_shown ? " |" : " " + table_cell(failure(x)) + " |";
        failure_shown = true;
        continue;
      }
      const Figure f = c->read(x);
      std::string cell = cell_for_people(*c, f, money.first) + (c->marks_baseline && x.baseline ? " (baseline)" : "");
      if (!c->ci_key.empty() && f.ci95) cell += " " + interval(*c, *f.ci95, money.first);
      row += " " + table_cell(cell) + " |";
    }
    out += row + "\n";
  }
  out += sweep_markdown(r.sweep, r.pricing_currency.empty() ? "USD" : r.pricing_currency);
  if (!page.trends.empty() || !page.history_note.empty()) {
    out += "\n**Trends** — " + page.history_note + "\n\n| pair | runs | median ms first → last | change points (run, git) |\n|---|---:|---|---|\n";
    for (const auto& s : page.trends) {
      std::string changes;
      for (size_t c : s.median_changes)
        changes += (changes.empty() ? "" : ", ") + fmt::format("run {} `{}` {}", s.points[c].run_id, short_sha(s.points[c].git_sha).substr(0, 7),
                                                               s.points[c].started_at.substr(0, 10));
      out += fmt::format("| {} | {} | {} → {} | {} |\n", s.label, s.points.size(), sig(s.points.front().median_ms),
                         sig(s.points.back().median_ms), changes.empty() ? "none" : changes);
    }
  }
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

std::string advice_markdown(const Advice& advice) {
  std::string out = "# Expected cost to train\n";
  std::string workload;
  for (const auto& r : advice.rows) {
    if (r.workload != workload) {
      workload = r.workload;
      out += fmt::format("\n## {} ({} steps)\n\n", markdown_escape(workload), r.steps);
      out += "| rank | configuration | instances | market | expected USD | p95 USD | billed h | wall h | expected interruptions | why |\n";
      out += "|---:|---|---|---|---:|---:|---:|---:|---:|---|\n";
    }
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {:.2g} | {} |\n", r.rank, markdown_escape(r.configuration),
                       markdown_escape(instances_by_role(r.instances)), market_name(r.market), significant(r.usd, 4),
                       r.p95_usd ? significant(*r.p95_usd, 4) : "-", significant(r.hours, 3), significant(r.wall_hours, 3),
                       r.expected_interruptions, markdown_escape(advice_reason(advice, r)));
  }
  if (!advice.notes.empty()) out += "\n";
  for (const auto& n : advice.notes) out += "- " + markdown_escape(n) + "\n";
  return out;
}

}  // namespace pperf
