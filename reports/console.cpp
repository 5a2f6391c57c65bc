#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "reports/formats.h"

#include "reports/columns.h"
#include "reports/decide_text.h"
#include "reports/page_text.h"
#include "reports/text.h"

namespace pperf {

namespace {

/// A console column: its header, drop priority and cells.
struct ConsoleColumn {
  std::string header;
  int priority;  // 0: always shown; higher numbers are dropped first when space runs out
  bool left_aligned = false;
  std::vector<std::string> cells;
  std::string key;  // the result column it shows (reports/columns.h), "" for others
};

std::string cpu_list(const std::vector<int>& cpus) {
  if (cpus.empty()) return "any CPU";
  return fmt::format("{} {}", cpus.size() == 1 ? "CPU" : "CPUs", fmt::join(cpus, ","));
}

std::string render(const std::vector<ConsoleColumn>& columns, size_t rows) {
  std::vector<size_t> width;
  for (const auto& c : columns) {
    size_t w = c.header.size();
    for (const auto& cell : c.cells) w = std::max(w, cell.size());
    width.push_back(w);
  }
  auto line = [&](auto cell_of) {
    std::string out;
    for (size_t c = 0; c < columns.size(); ++c) {
      const std::string cell = cell_of(c);
      const bool last = c + 1 == columns.size();
      if (c) out += "  ";
      if (columns[c].left_aligned) out += last ? cell : fmt::format("{:<{}}", cell, width[c]);
      else out += fmt::format("{:>{}}", cell, width[c]);
    }
    return out + "\n";
  };
  std::string out = line([&](size_t c) { return columns[c].header; });
  size_t total = 0;
  for (auto w : width) total += w + 2;
  out += std::string(total >= 2 ? total - 2 : 0, '-') + "\n";
  for (size_t r = 0; r < rows; ++r) out += line([&](size_t c) { return columns[c].cells[r]; });
  return out;
}

size_t table_width(const std::vector<ConsoleColumn>& columns) {
  size_t total = 0;
  for (const auto& c : columns) {
    size_t w = c.header.size();
    for (const auto& cell : c.cells) w = std::max(w, cell.size());
    total += w + 2;
  }
  return total >= 2 ? total - 2 : 0;
}

}  // namespace

std::string sweep_table(const std::optional<SweepRecord>& sweep, const std::string& currency, size_t width) {
  if (!sweep) return "";
  std::vector<std::string> axes;
  for (const auto& a : sweep->axes) axes.push_back(a.name);
  std::string out;
  for (const auto& race : sweep->races) {
    const auto& points = race.points;
    std::string prose = fmt::format("Sweep of {} over {} ({} points), raced in turns of {} steps: {} after {} rounds.\n", race.workload,
                                    fmt::join(axes, " x "), points.size(), race.round_steps, race.stop, race.rounds);
    if (const SweepPoint* p = race.best_point())
      prose += fmt::format("Best: {} at {} {} per 1M samples, 95% CI {}; equivalent to it within ±{:g} %: {}.\n", p->configuration,
                           figure_or_dash(p->usd_per_1m_samples, "{:.4g}"), currency, bounds_or_dash(p->usd_per_1m_samples_ci95, "{:.4g}"),
                           race.equivalence_pct, race.equivalent.empty() ? "none" : fmt::to_string(fmt::join(race.equivalent, ", ")));
    prose += fmt::format("Each point against the best at {:.2f} % confidence (Bonferroni: {:g} % together). Measured {:.1f} s of steps; "
                         "the eliminations saved {:.1f} s ({:.0f} %) against every point measuring every round.\n",
                         race.comparison_confidence * 100, race.confidence * 100, race.measured_s, race.saved_s, race.saved_fraction * 100);
    out += "\n" + wrap(prose, width);
    // The table: one line per point; with a width, the cost's CI, then the ratio's bounds, give way.
    std::vector<ConsoleColumn> columns = {{"point", 0, true, {}},
                                          {currency + "/1M samples", 0, false, {}},
                                          {"95% CI", 2, false, {}},
                                          {"cost / best's", 1, false, {}},
                                          {"verdict", 0, true, {}}};
    // Which point each eliminated one was decided dearer than: under the table, so rows stay short.
    std::map<std::string, std::vector<std::string>> left_against;
    for (const auto& p : points) {
      std::string verdict = p.verdict;
      if (p.left_after_round) {
        verdict += fmt::format(" after round {}", *p.left_after_round);
        left_against[p.compared_with.value_or("")].push_back(p.configuration);
      }
      columns[0].cells.push_back(p.configuration);
      columns[1].cells.push_back(figure_or_dash(p.usd_per_1m_samples, "{:.4g}"));
      columns[2].cells.push_back(bounds_or_dash(p.usd_per_1m_samples_ci95, "{:.4g}"));
      columns[3].cells.push_back(verdict == "best" ? std::string("1") : bounds_or_dash(p.cost_ratio_bounds, "{:.3f}"));
      columns[4].cells.push_back(verdict);
    }
    std::vector<std::string> dropped;
    for (int priority = 2; width > 0 && priority > 0; --priority)
      for (size_t c = columns.size(); c-- > 0;)
        if (columns[c].priority == priority && table_width(columns) + 2 > width) {
          dropped.push_back(columns[c].header);
          columns.erase(columns.begin() + static_cast<std::ptrdiff_t>(c));
        }
    std::stringstream table(render(columns, points.size()));
    for (std::string line; std::getline(table, line);) out += "  " + line + "\n";
    std::string notes;
    if (!left_against.empty()) {
      std::vector<std::string> groups;
      for (const auto& [best, names] : left_against)
        groups.push_back(fmt::format("{} {} decided dearer per sample than {}", fmt::join(names, ", "), names.size() == 1 ? "was" : "were",
                                     best.empty() ? "the best" : best));
      notes += fmt::format("Eliminated: {}, the best at the round {} left.\n", fmt::join(groups, "; "),
                           left_against.size() == 1 && left_against.begin()->second.size() == 1 ? "it" : "they");
    }
    if (!dropped.empty())
      notes += fmt::format("Left out at this width: {} (--wide shows every column).\n", fmt::join(dropped, ", "));
    out += wrap(notes, width);
  }
  return out;
}

namespace {
/// The results table for people: result_columns() that the console shows (wide-only ones when
/// nothing limits the width), one workload said once above it; at a width, the least important
/// columns give way, then the notes column leaves for `notes_under`.
std::string console_results_table(const RunReport& report, const ConsoleOptions& options, std::string& notes_under) {
  const std::vector<Result>& results = report.results;
  std::set<std::string> workloads;
  for (const auto& r : results) workloads.insert(fmt::format("{}/{}, batch {}", r.workload, r.preset, r.batch_size));
  const auto [money_per, money_unit] = money_scale(results);
  const std::string currency = report.pricing_currency.empty() ? "USD" : report.pricing_currency;
  const bool every_column = options.wide || options.width == 0;
  std::vector<ConsoleColumn> columns;
  std::vector<const Column*> source;  // per console column, the table's column it shows
  std::vector<bool> is_ci;            // ... its CI rather than its value
  auto shown = [&](int priority) { return priority != kConsoleNever && (priority != kConsoleWideOnly || every_column); };
  for (const Column& c : result_columns()) {
    const std::string header = header_for_people(c, currency, money_unit);
    if (shown(c.console)) {
      columns.push_back({header, c.console, c.style.kind == Style::text, {}, c.key});
      source.push_back(&c), is_ci.push_back(false);
    }
    if (shown(c.console_ci)) {
      columns.push_back({header + " 95% CI", c.console_ci, false, {}});
      source.push_back(&c), is_ci.push_back(true);
    }
  }
  for (const auto& r : results) {
    const bool figures = shows_figures(r);
    for (size_t i = 0; i < columns.size(); ++i) {
      const Column& c = *source[i];
      std::string cell = "-";
      if (figures || c.identity) {
        const Figure f = c.read(r);
        cell = is_ci[i] ? ci_for_people(c, f, money_per) : cell_for_people(c, f, money_per);
      }
      if (c.marks_baseline && r.baseline) cell += " *";
      columns[i].cells.push_back(cell);
    }
  }
  // One workload: say it once above the table instead of in every row.
  std::string out;
  if (workloads.size() == 1) {
    out += *workloads.begin() + "\n";
    for (size_t i = 0; i < columns.size(); ++i)
      if (source[i]->key == "workload_label") {
        columns.erase(columns.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
  }
  if (options.width > 0 && !options.wide) {
    for (int priority = 5; priority > 0 && table_width(columns) > options.width; --priority)
      for (size_t c = columns.size(); c-- > 0;)
        if (columns[c].priority == priority && table_width(columns) > options.width) columns.erase(columns.begin() + c);
    // Still too wide (long names: a sweep's points): the notes leave the table for a line under it.
    for (size_t i = 0; i < columns.size() && table_width(columns) > options.width; ++i)
      if (columns[i].key == "notes") {
        std::vector<std::string> rows;
        for (size_t r = 0; r < results.size(); ++r)
          if (!columns[i].cells[r].empty()) rows.push_back(results[r].configuration + ": " + columns[i].cells[r]);
        if (!rows.empty())
          notes_under = fmt::format("Notes (their column left out at this width; --wide shows it): {}.\n", fmt::join(rows, "; "));
        columns.erase(columns.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
  }
  return out + render(columns, results.size());
}

/// What ran where: this host or the priced instances (pperf decide: each input run's host and
/// time, decide_input_lines), and per result its trainer's CPUs and
/// threads, its data path, its distributed group and its bottleneck. "" when nothing was measured.
std::string where_it_ran(const RunReport& report) {
  const std::vector<Result>& results = report.results;
  const bool measured = std::any_of(results.begin(), results.end(), [](const Result& r) { return r.measured; });
  if (!measured) return "";
  const bool emulated = std::any_of(results.begin(), results.end(),
                                    [](const Result& r) { return r.execution && r.execution->emulated; });
  const std::string cpu = host_fact(report.host, {"cpu_model"}), cpus = host_fact(report.host, {"logical_cpus"});
  std::string out;
  const auto inputs = decide_input_lines(report);
  if (!inputs.empty()) {  // pperf decide: each input's own host; this one only decided
    out = fmt::format("Measured apart by {} run{}, each on its own host{}; decided on {}:\n", inputs.size(),
                      inputs.size() == 1 ? "" : "s",
                      emulated ? ", not on the priced instances: step times are those hosts' (emulated)"
                               : ", natively on the priced instances",
                      host_fact(report.host, {"hostname"}));
    for (const auto& line : inputs) out += "  " + line + "\n";
  } else {
    out = emulated ? fmt::format("Measured on this host ({}, {} logical CPUs), not on the priced instances: "
                                 "step times are this host's (emulated).\n", cpu, cpus)
                   : fmt::format("Measured natively on the priced instances ({}, {} logical CPUs).\n", cpu, cpus);
  }
  for (const auto& r : results) {
    if (!r.execution) continue;
    const ExecutionReport& e = *r.execution;
    std::string data;
    const bool python = r.data && r.data->source.rfind("python:", 0) == 0;
    if (e.data_mode == DataMode::local && python)
      data = fmt::format("Python worker on the trainer's CPUs ({}), {} process{}", r.data->source.substr(7),
                         e.data_workers, e.data_workers == 1 ? "" : "es");
    else if (e.data_mode == DataMode::local)
      data = fmt::format("local loader, {} thread{}", e.data_workers, e.data_workers == 1 ? "" : "s");
    else if (!e.data_cpus.empty() || e.data_endpoints.size() > 0)
      data = fmt::format("{} data worker{} ({}), {} thread{} each", e.data_endpoints.size(),
                         e.data_endpoints.size() == 1 ? "" : "s",
                         e.data_cpus.empty() ? fmt::to_string(fmt::join(e.data_endpoints, ", ")) : "spawned here on " + cpu_list(e.data_cpus),
                         e.data_workers, e.data_workers == 1 ? "" : "s") +
             (python ? fmt::format(", Python ({})", r.data->source.substr(7)) : "");
    out += fmt::format("  {}: trainer on {}, {} thread{}, 1 process; data: {}\n", r.configuration, cpu_list(e.cpus),
                       e.threads_effective, e.threads_effective == 1 ? "" : "s", data);
    if (r.distributed) out += "    " + describe(*r.distributed) + " (trainer line: rank 0)\n";
    if (r.bottleneck) out += fmt::format("    {}: {}\n", r.bottleneck->verdict, r.bottleneck->evidence);
  }
  return out;
}

/// Time and cost to train, then Spot (checkpoint, expected cost beside On-Demand, the drill),
/// each block only when a result has it.
std::string to_train_and_spot(const std::vector<Result>& results, const std::string& currency) {
  std::string out;
  std::vector<std::string> to_train;
  for (const auto& r : results)
    if (r.cost && r.cost->to_train)
      to_train.push_back(fmt::format("  {}: {} h, {} {} to train{}", r.configuration, significant(r.cost->to_train->hours, 4),
                                     significant(r.cost->to_train->usd, 4), currency,
                                     r.cost->to_train->steps ? fmt::format(" ({} steps)", *r.cost->to_train->steps) : ""));
  if (!to_train.empty()) out += "time and cost to train:\n" + fmt::to_string(fmt::join(to_train, "\n")) + "\n";
  // Spot: the expected cost to train beside the same group On-Demand (src/core/spot.h).
  std::vector<std::string> spot;
  for (const auto& r : results) {
    if (r.checkpoint)
      spot.push_back(fmt::format("  {}: checkpoint {} MB, save {} ms, restore {} ms (median of {})", r.configuration,
                                 significant(static_cast<double>(r.checkpoint->bytes) / 1e6), significant(r.checkpoint->save_ms),
                                 significant(r.checkpoint->restore_ms), r.checkpoint->repetitions));
    if (r.spot)
      spot.push_back(fmt::format(
          "  {}: {} {} expected on Spot (p50 {}, p95 {} {}), {} h billed, {} h wall, {} expected interruptions; "
          "the same group On-Demand {} {} (Spot {:+.1f} %); Spot stays cheaper below {}{} interruptions per instance-month",
          r.configuration, significant(r.spot->expected_usd, 4), currency, significant(r.spot->p50_usd, 4),
          significant(r.spot->p95_usd, 4), currency, significant(r.spot->expected_hours, 4),
          significant(r.spot->expected_wall_hours, 4), significant(r.spot->expected_interruptions, 2),
          significant(r.spot->on_demand_usd, 4), currency, -r.spot->savings_pct,
          r.spot->break_even_is_lower_bound ? "at least " : "",
          r.spot->break_even_interruptions_per_month ? significant(*r.spot->break_even_interruptions_per_month, 3) : "0"));
    if (r.spot_drill)
      spot.push_back(fmt::format("  {}: spot drill: killed at step {}, resumed from step {}; lost {} s measured vs {} s predicted",
                                 r.configuration, r.spot_drill->killed_at_step, r.spot_drill->resumed_from_step,
                                 significant(r.spot_drill->measured_lost_s), significant(r.spot_drill->predicted_lost_s)));
  }
  if (!spot.empty()) out += "Spot:\n" + fmt::to_string(fmt::join(spot, "\n")) + "\n";
  return out;
}
}  // namespace

std::string to_console(const RunReport& report, const ConsoleOptions& options) {
  const std::vector<Result>& results = report.results;
  const std::string currency = report.pricing_currency.empty() ? "USD" : report.pricing_currency;
  const size_t width = options.wide ? 0 : options.width;
  std::string notes_under;  // the notes column's rows, when it gave way
  const std::string table = console_results_table(report, options, notes_under);
  // The answer first: each configuration's verdict against its baseline.
  std::string decisions;
  for (const auto& d : decision_sentences(results)) decisions += d + "\n";
  if (!decisions.empty() && report.sweep) decisions += sweep_pairwise_note(report.sweep) + "\n";

  std::string prose = notes_under;  // everything under the table, wrapped to the width
  // Why rows failed, in full (the notes column only says that they did).
  for (const auto& r : results)
    if (r.status != ResultStatus::ok) prose += fmt::format("{} {}: {}\n", r.configuration, to_string(r.status), r.reason);
  prose += where_it_ran(report);
  prose += "Cost, samples/s and improvement are priced on the mean step time (total time / steps, what is billed); "
           "median ms is the typical step. Intervals: 95 %, none below 60 steps (the mean's from batch means with a skew "
           "correction, kept within the fastest and slowest step; the median's from order statistics, improvement's, "
           "when the configurations took turns, the "
           "decision's own anytime interval over the paired rounds (it holds however the run stopped), else combined "
           "from the two means'); verdicts: docs/statistics.md.\n";
  // Legend of the notes that appear.
  std::set<std::string> seen;
  for (const auto& r : results)
    for (const auto& n : notes_of(r)) seen.insert(n);
  for (const auto& [note, meaning] : note_meanings())
    if (seen.count(note)) prose += fmt::format("{}: {}.\n", note, meaning);
  prose += to_train_and_spot(results, currency);
  const bool any_baseline = std::any_of(results.begin(), results.end(), [](const Result& r) { return r.baseline; });
  const std::string prices = fmt::format("Prices: {} ({}, published {}, retrieved {}), market {}{}.", report.pricing_table,
                                         report.pricing_region, report.pricing_published.empty() ? "unknown" : report.pricing_published,
                                         report.pricing_retrieved, report.pricing_market,
                                         report.discount_pct > 0 ? fmt::format(", discount {:g} %", report.discount_pct) : "");
  prose += any_baseline ? "* baseline. " + prices + "\n"
                        : "No baseline in this run (not selected with --only, or none priced): improvements not computed. " +
                              prices + "\n";
  // pperf decide: how it was decided (what was accepted, re-priced, pooled), before the answer.
  std::string decided;
  for (const auto& note : decide_notes(report)) decided += "decide: " + note + "\n";
  return decided + wrap(decisions, width) + table + wrap(prose, width) + sweep_table(report.sweep, currency, width) +
         scaling_table(report.scaling, currency, width);
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

std::string advice_console(const Advice& advice) {
  std::string out;
  std::string workload;
  for (const auto& r : advice.rows) {
    if (r.workload != workload) {
      workload = r.workload;
      out += fmt::format("{}{} — expected cost to train {} steps, cheapest first:\n", out.empty() ? "" : "\n", workload,
                         r.steps);
    }
    out += fmt::format("#{:<2} {:<28} {:<9} {:>12} USD  p95 {:>14}  {:>7} h billed  {:>7} h wall  {:>5} interruptions\n",
                       r.rank, r.configuration, market_name(r.market), significant(r.usd, 4), p95_text(r),
                       significant(r.hours, 3), significant(r.wall_hours, 3), fmt::format("{:.2g}", r.expected_interruptions));
    out += "    " + advice_reason(advice, r) + "\n";
  }
  if (advice.rows.empty()) out += "nothing to rank: no priced configuration\n";
  for (const auto& n : advice.notes) out += "note: " + n + "\n";
  return out;
}

namespace {
/// Where the batch line's link figure comes from: --link-gbps's time, each candidate's own from
/// the price table (the table's link column), the term left out (--no-link), or no figure at all.
std::string link_source_text(const project::ModelSettings& settings, const project::WorkloadProjection& w, double bytes_per_batch) {
  if (settings.link_gbit_per_s)
    return fmt::format(" ({:g} Gbit/s: {:.4g} ms)", *settings.link_gbit_per_s, bytes_per_batch * 8 / (*settings.link_gbit_per_s * 1e9) * 1e3);
  if (!settings.table_links) return " (link term left out: --no-link)";
  const bool any = std::any_of(w.predictions.begin(), w.predictions.end(),
                               [](const project::Prediction& pr) { return pr.link_ms.has_value(); });
  return any ? " (each cluster's link from the price table: the link column)"
             : " (the price table gives no link for these clusters: --link-gbps)";
}

/// The top rows as a table sized to its cells. With a width (0: none), the step's interval, then
/// the cost's, are left out until the rows fit; `dropped` names what was.
std::string top_table(const project::WorkloadProjection& w, size_t top, size_t width, std::vector<std::string>& dropped) {
  const size_t rows = std::min(top, w.predictions.size());
  // The link's column where a row has a link term: its time per batch and the Gbit/s it used.
  bool links = std::any_of(w.predictions.begin(), w.predictions.end(),
                                 [](const project::Prediction& pr) { return pr.link_ms.has_value(); });
  // Per column (#, cluster, step ms, USD/1M samples, [link], bound): the header, then a cell per row.
  const auto table = [&](bool step_ci, bool cost_ci) {
    std::vector<std::vector<std::string>> t = {
        {"#"}, {"cluster"}, {step_ci ? "step ms [interval]" : "step ms"}, {cost_ci ? "USD/1M samples [interval]" : "USD/1M samples"}};
    if (links) t.push_back({"link ms (Gbit/s)"});
    t.push_back({"bound"});
    for (size_t i = 0; i < rows; ++i) {
      const project::Prediction& pr = w.predictions[i];
      t[0].push_back(std::to_string(i + 1));
      t[1].push_back(cluster_text(pr.candidate));
      t[2].push_back(step_ci ? range_text(pr.step_ms, "{:.4g}") : fmt::format("{:.4g}", pr.step_ms.value));
      t[3].push_back(cost_ci ? range_text(pr.usd_per_1m_samples, "{:.4g}") : fmt::format("{:.4g}", pr.usd_per_1m_samples.value));
      if (links) t[4].push_back(pr.link_ms && pr.link_gbps ? fmt::format("{:.4g} ({:g})", *pr.link_ms, *pr.link_gbps) : "-");
      t.back().push_back(pr.bound);
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
  if (links && width > 0 && line_width(table(step_ci, cost_ci)) > width) links = false, dropped.push_back("the link column");
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

std::string projection_console(const ProjectionPage& page) {
  const project::Projection& p = *page.projection;
  const size_t top = page.top, width = page.console.wide ? 0 : page.console.width;
  // Prose is wrapped to the width; the table's intervals give way until its rows fit.
  const auto prose = [&](const std::string& text) { return wrap(text, width); };
  std::string out = prose(fmt::format("projection of {} against {} ({}, {}); model error ±{:g} % stated\n", p.config_name, p.table,
                                      p.region, p.market, p.settings.model_error_pct));
  for (const auto& w : p.workloads) {
    const project::Measured& m = w.measured;
    std::string text = fmt::format("\nworkload {} ({} samples/step)\n", m.workload, m.samples_per_step);
    text += fmt::format("  pipeline: {} CPU-ms/sample; {}\n", range_text({m.pipeline_cpu_s_per_sample.value * 1e3,
                                                                          m.pipeline_cpu_s_per_sample.lo * 1e3,
                                                                          m.pipeline_cpu_s_per_sample.hi * 1e3}, "{:.4g}"),
                        m.pipeline_source);
    text += m.bytes_per_batch ? fmt::format("  batch:    {:.4g} MB on the data link per step{}\n", *m.bytes_per_batch / 1e6,
                                            link_source_text(p.settings, w, *m.bytes_per_batch))
                              : std::string("  batch:    bytes unknown (the workload declares no batch layout)\n");
    text += fmt::format("  scaling:  efficiency {} at {} core(s)\n", range_text(m.scaling_efficiency, "{:.2f}"), m.scaling_cores);
    text += m.trainer_step_ms ? fmt::format("  trainer:  {} ms/step; {}\n", range_text(*m.trainer_step_ms, "{:.4g}"), m.trainer_source)
                              : fmt::format("  trainer:  step unknown: no floor ({})\n", m.trainer_source);
    for (const auto& f : w.speed_factors)
      text += fmt::format("  speed factor {}: {} ({})\n", f.family, range_text(f.factor, "{:.2f}"), f.source);
    if (const project::Prediction* c = project::cheapest(w))
      text += fmt::format("  cheapest: {}: {} USD/1M samples, step {} ms ({}-bound)\n", cluster_text(c->candidate),
                          range_text(c->usd_per_1m_samples, "{:.4g}"), range_text(c->step_ms, "{:.4g}"), c->bound);
    text += "  knee: " + knee_text(w) + "\n";
    text += data_instances_line(w);
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
        text += fmt::format(", {} {:.4g} ms ({:+.1f} %, {} the interval)", c.actual_source, *c.actual_ms, project::error_pct(c),
                            *c.actual_ms >= c.predicted.step_ms.lo && *c.actual_ms <= c.predicted.step_ms.hi ? "inside" : "outside");
      text += c.reference ? " [reference]\n" : "\n";
    }
    out += prose(text);
  }
  for (const auto& d : p.data_parallel) out += data_parallel_console(d, width);
  if (!p.next_config_path.empty()) out += prose("\nconfiguration to measure next: " + p.next_config_path + "\n");
  return out;
}

}  // namespace pperf
