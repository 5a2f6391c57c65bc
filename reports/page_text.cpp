#include "reports/page_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "src/core/result.h"
#include "src/stats/compare_stats.h"
#include "src/stats/decision.h"
#include "reports/columns.h"
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
}  // namespace

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

std::string market_name(const std::string& market) { return market == "spot" ? "Spot" : "On-Demand"; }
std::string p95_text(const AdviceRow& row) { return row.p95_usd ? significant(*row.p95_usd, 4) + " USD" : "-"; }

namespace {
std::string money(double usd) { return fmt::format("{:.4g} USD", usd); }

/// "; A .. B across the Spot price range (L..H USD/h; type: cheapest zone Z, dearest Y)".
std::string spread_text(const SpotPriceSpread& s) {
  std::string zones;
  for (const auto& z : s.zones)
    zones += fmt::format("{}{}: cheapest zone {}, dearest {}", zones.empty() ? "" : "; ", z.type, z.cheapest, z.dearest);
  return fmt::format("; {} .. {} across the Spot price range ({:.4g}..{:.4g} USD/h{})", money(s.usd[0]), money(s.usd[1]),
                     s.usd_per_hour[0], s.usd_per_hour[1], zones.empty() ? ", zones not named in the table" : "; " + zones);
}
}  // namespace

std::string advice_decision_text(const AdviceRow& row) {
  if (!row.decision) return "";
  const AdviceDecision& d = *row.decision;
  return fmt::format("{} against {} (improvement {:+.1f} %, {:.0f} % confidence)", verdict_phrase(d.verdict, d.equivalence_pct),
                     d.across_hosts ? "the baseline, decided across hosts by pperf decide" : "its run's baseline",
                     d.improvement_pct, d.confidence * 100);
}

std::string advice_reason(const Advice& advice, const AdviceRow& row) {
  const auto best = std::find_if(advice.rows.begin(), advice.rows.end(),
                                 [&](const AdviceRow& r) { return r.workload == row.workload && r.rank == 1; });
  const std::string risk =
      row.market == "spot"
          ? fmt::format("p95 {}, {:.2g} expected interruptions, {:.3g} h wall", money(*row.p95_usd),
                        row.expected_interruptions, row.wall_hours) + (row.price_spread ? spread_text(*row.price_spread) : "")
          : fmt::format("no interruptions, {:.3g} h", row.hours);
  std::string reason;
  if (row.rank == 1 || best == advice.rows.end())
    reason = fmt::format("cheapest: {} expected ({})", money(row.usd), risk);
  else
    reason = fmt::format("{} more than #1 {} {} (+{:.1f} %); {}", money(row.usd - best->usd), best->configuration,
                         best->market == "spot" ? "on Spot" : "On-Demand", (row.usd / best->usd - 1) * 100, risk);
  const std::string decision = advice_decision_text(row);
  return decision.empty() ? reason : decision + "; " + reason;
}

// ---- the projection

std::string cluster_text(const project::Candidate& c) {
  std::string s = fmt::format("{} x {}", c.trainer_count, c.trainer_type);
  if (c.data_count > 0) s += fmt::format(" + {} x {}", c.data_count, c.data_type);
  return s;
}

std::string range_text(const project::Range& r, const char* format) {
  return fmt::format(fmt::runtime(format), r.value) + " [" + fmt::format(fmt::runtime(format), r.lo) + ", " +
         fmt::format(fmt::runtime(format), r.hi) + "]";
}

// At 0 data instances the trainer's own vCPUs already feed it, and the figure (a tiny fraction
// of one vCPU for a trainer-bound job) is only the pipeline's need.
std::string knee_text(const project::WorkloadProjection& w) {
  if (!w.knee_vcpus_per_accelerator) return "unknown (no trainer step: give --trainer-step-ms)";
  if (w.knee_data_instances && *w.knee_data_instances == 0)
    return fmt::format("0 data instances on {}: its own vCPUs feed it (the pipeline needs {:.3g} vCPUs per accelerator)",
                       w.trainer_type, *w.knee_vcpus_per_accelerator);
  return fmt::format("{:.3g} vCPUs per accelerator (beyond it the step stops improving){}", *w.knee_vcpus_per_accelerator,
                     w.knee_data_instances ? fmt::format(", reached with {} data instance(s) on {}", *w.knee_data_instances, w.trainer_type) : "");
}
std::string data_instances_line(const project::WorkloadProjection& w) {
  if (!w.measured.pipeline_absent.empty())
    return "  data instances: not projected: " + w.measured.pipeline_absent + "\n";
  const project::Prediction* c = w.predictions.empty() ? nullptr : &w.predictions[0];
  if (!c || c->candidate.data_count > 0) return "";
  if (w.knee_data_instances && *w.knee_data_instances == 0)
    return fmt::format("  data instances: none pay: {} alone is trainer-bound (pipeline term {:.3g} ms on its own vCPUs, trainer step {:.4g} ms); "
                       "each data instance only adds cost\n", cluster_text(c->candidate), c->pipeline_ms, c->trainer_ms.value_or(0));
  return "  data instances: none pay at these prices: the trainer alone is cheapest per sample\n";
}

}  // namespace pperf
