#include "src/compare/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

#include "src/core/input_error.h"
#include "src/stats/intervals.h"
#include "src/stats/compare_stats.h"
#include "src/stats/stats.h"
#include "pricing/cost_model.h"

namespace pperf {

namespace {
using Key = std::tuple<std::string, std::string, int64_t, std::string>;

Key key_of(const Result& r) { return {r.workload, r.preset, r.batch_size, r.configuration}; }

/// Index of each result by its key; a key twice in one file is bad input.
std::map<Key, size_t> index_results(const CompareSide& side) {
  std::map<Key, size_t> index;
  const auto& results = side.report.results;
  for (size_t i = 0; i < results.size(); ++i) {
    const auto [it, inserted] = index.emplace(key_of(results[i]), i);
    if (!inserted)
      throw InputError(side.file, "/results/" + std::to_string(i),
                       fmt::format("same workload, preset, batch_size and configuration as /results/{} "
                                   "(a pair must be unique to be compared)", it->second));
  }
  return index;
}

void check_samples(const CompareSide& side) {
  const auto& results = side.report.results;
  for (size_t i = 0; i < results.size(); ++i) {
    const Result& r = results[i];
    const std::string at = "/results/" + std::to_string(i) + "/step_time_ms";
    if (r.step && !(std::isfinite(r.step->median_ms) && r.step->median_ms > 0) && r.status == ResultStatus::ok)
      throw InputError(side.file, at + "/median", "must be a finite number > 0");
    if (!r.measurement) continue;
    const auto& s = r.measurement->step_ms;
    for (size_t j = 0; j < s.size(); ++j)
      if (!(std::isfinite(s[j]) && s[j] > 0))
        throw InputError(side.file, at + "/samples/" + std::to_string(j),
                         fmt::format("step time must be a finite number > 0, got {}", s[j]));
  }
}

PairFigures figures_of(const Result& r) {
  PairFigures f;
  f.status = r.status;
  f.reason = r.reason;
  f.measured = r.measured;
  f.n = r.measurement ? r.measurement->step_ms.size() : 0;
  if (r.step) f.median_ms = r.step->median_ms, f.mean_ms = r.step->mean_ms;
  if (r.cost) f.usd_per_hour = r.cost->usd_per_hour, f.usd_per_step = r.cost->usd_per_step;
  return f;
}

bool has_samples(const Result& r) { return r.measurement && !r.measurement->step_ms.empty(); }

std::string signed_pct(double v, int digits = 1) { return fmt::format("{:+.{}f} %", v, digits); }

/// How a tested pair was tested, for its reasons.
std::string test_phrase(const PairComparison& p, const CompareOptions& o) {
  const std::string q = fmt::format("q = {:.3g} {} alpha {:g}", *p.q_value, p.significant ? "<=" : ">", o.alpha);
  if (p.compared_by == "runs")
    return fmt::format("{}; the candidate run against {} baseline runs (prediction interval, t with {:g} dof)", q,
                       p.baseline_runs, *p.dof);
  return fmt::format("{}; Welch t on the log ratio of the two means ({:.0f} dof)", q, *p.dof);
}

/// Gives the verdict and its reasons once the figures are in (an undecided pair has them already).
void judge(PairComparison& p, const CompareOptions& o) {
  if (p.verdict == Verdict::undecided) return;
  const bool tested = p.compared_by != "threshold";
  const double change = *p.change_pct;
  const std::optional<double> time_part = p.cost_time_part_pct;
  // Tested pairs are judged by the change's interval, which must clear the threshold (a true
  // 3 % change is then rarely called beyond 5 %); untested ones by their point figures. The
  // cost's time part is the mean's change, so it has the same interval, shifted.
  const std::array<double, 2> ci = tested && p.change_pct_ci95 ? *p.change_pct_ci95 : std::array<double, 2>{change, change};
  const std::array<double, 2> cost_ci = {ci[0] - change + time_part.value_or(change), ci[1] - change + time_part.value_or(change)};
  const ThresholdSide time_side = threshold_side(ci, o.max_slowdown_pct);
  const ThresholdSide cost_side = time_part ? threshold_side(cost_ci, o.max_cost_increase_pct) : ThresholdSide::within;
  const bool slower = time_side == ThresholdSide::above, costlier = cost_side == ThresholdSide::above;
  const bool faster = time_side == ThresholdSide::below, cheaper = cost_side == ThresholdSide::below;
  const bool evidence = tested ? p.significant : true;
  const std::string how =
      tested ? test_phrase(p, o) : "compared by threshold alone (a side has no step-time samples)";
  const std::string interval =
      tested ? fmt::format(" (95 % interval {} to {})", signed_pct(ci[0]), signed_pct(ci[1])) : std::string();
  if (evidence && (slower || costlier)) {
    p.verdict = Verdict::regressed;
    if (slower)
      p.reasons.push_back(fmt::format("mean step time {}{} > {:g} % allowed", signed_pct(change), interval, o.max_slowdown_pct));
    if (costlier)
      p.reasons.push_back(fmt::format("USD per step {} from step time > {:g} % allowed", signed_pct(*time_part),
                                      o.max_cost_increase_pct));
    p.reasons.push_back(how);
  } else if (evidence && (faster || cheaper)) {
    p.verdict = Verdict::improved;
    p.reasons.push_back(fmt::format("mean step time {}{}", signed_pct(change), interval));
    p.reasons.push_back(how);
  } else {
    p.verdict = Verdict::unchanged;
    if (tested && !p.significant)
      p.reasons.push_back(fmt::format("not significant after Benjamini–Hochberg ({})", how));
    else if (tested && std::abs(change) > o.max_slowdown_pct)
      p.reasons.push_back(fmt::format("mean step time {}{}: the interval does not clear ±{:g} % ({})", signed_pct(change),
                                      interval, o.max_slowdown_pct, how));
    else
      p.reasons.push_back(fmt::format("mean step time {}{} within {:g} % ({})", signed_pct(change), interval, o.max_slowdown_pct, how));
  }
  if (p.price_moved && p.cost_price_part_pct)
    p.reasons.push_back(fmt::format("price moved: USD/h {:.6g} -> {:.6g}, USD per step {} from price "
                                    "(not a performance regression)",
                                    *p.baseline->usd_per_hour, *p.candidate->usd_per_hour,
                                    signed_pct(*p.cost_price_part_pct)));
}

/// Tests a pair whose two sides are ok and measured: against the baseline's runs when it pools
/// several, else one run against the other. Undecided, saying why, when no test can be made.
void test_pair(PairComparison& p, const Result& b, const Result& c, const std::vector<double>* baseline_run_means) {
  std::optional<MeanChange> change;
  if (baseline_run_means) {
    p.compared_by = "runs";
    p.baseline_runs = baseline_run_means->size();
    change = run_to_run_change(*baseline_run_means, c.step->mean_ms);
    if (!change)
      p.reasons.push_back(fmt::format("undecided: {} baseline run(s) of this pair; a test against earlier runs needs "
                                      "at least {} (their spread is what an ordinary run varies by)",
                                      p.baseline_runs, kMinBaselineRuns));
  } else {
    p.compared_by = "samples";
    change = welch_mean_change(b.measurement->step_ms, c.measurement->step_ms);
    if (!change)
      p.reasons.push_back(fmt::format("undecided: {} and {} measured steps; the mean's error needs at least {} a side, "
                                      "with spread",
                                      p.baseline->n, p.candidate->n, kMinCiSteps));
  }
  if (!change) {
    p.verdict = Verdict::undecided;
    p.change_pct = (c.step->mean_ms / b.step->mean_ms - 1) * 100;
    return;
  }
  p.change_pct = change->estimate * 100;
  p.change_pct_ci95 = std::array<double, 2>{change->ci[0] * 100, change->ci[1] * 100};
  p.p_value = change->p_value;
  p.dof = change->dof;
}

}  // namespace

std::string to_string(Verdict v) {
  switch (v) {
    case Verdict::regressed: return "regressed";
    case Verdict::improved: return "improved";
    case Verdict::unchanged: return "unchanged";
    case Verdict::undecided: return "undecided";
    case Verdict::added: return "new";
    case Verdict::missing: return "missing";
    case Verdict::failed: return "failed";
  }
  return "?";
}

bool is_alarm(Verdict v) { return v == Verdict::regressed || v == Verdict::missing || v == Verdict::failed; }

std::string ProvenanceWarning::message() const {
  return fmt::format("{} differs: '{}' (baseline) vs '{}' (candidate)", field, baseline, candidate);
}

size_t CompareReport::count(Verdict v) const {
  size_t n = 0;
  for (const auto& p : pairs) n += p.verdict == v;
  return n;
}

int CompareReport::exit_code() const {
  for (const auto& p : pairs)
    if (is_alarm(p.verdict)) return 1;
  return 0;
}

std::vector<ProvenanceWarning> provenance_differences(const RunReport& b, const RunReport& c) {
  std::vector<ProvenanceWarning> out;
  auto add = [&](const std::string& field, const std::string& vb, const std::string& vc) {
    if (vb != vc) out.push_back({field, vb, vc});
  };
  add("host.cpu_model", host_fact(b.host, {"cpu_model"}), host_fact(c.host, {"cpu_model"}));
  add("host.logical_cpus", host_fact(b.host, {"logical_cpus"}), host_fact(c.host, {"logical_cpus"}));
  add("host.torch.libtorch_version", host_fact(b.host, {"torch", "libtorch_version"}),
      host_fact(c.host, {"torch", "libtorch_version"}));
  add("host.blas.library", host_fact(b.host, {"blas", "library"}), host_fact(c.host, {"blas", "library"}));
  add("config.name", b.config_name, c.config_name);
  add("config.sha256", b.config_sha256, c.config_sha256);
  add("pricing.table", b.pricing_table, c.pricing_table);
  add("pricing.retrieved", b.pricing_retrieved, c.pricing_retrieved);
  if (!b.pricing_sha256.empty() && !c.pricing_sha256.empty()) {  // the table's identity (older files lack it)
    add("pricing.published", b.pricing_published, c.pricing_published);
    add("pricing.sha256", b.pricing_sha256, c.pricing_sha256);
  }
  add("pricing.currency", b.pricing_currency, c.pricing_currency);
  add("pricing.market", b.pricing_market, c.pricing_market);
  add("pricing.discount_pct", fmt::format("{:g}", b.discount_pct), fmt::format("{:g}", c.discount_pct));
  return out;
}

CompareReport compare_runs(CompareSide baseline, CompareSide candidate, const CompareOptions& o) {
  if (!(o.alpha > 0 && o.alpha < 1)) throw std::invalid_argument("alpha must be in (0, 1)");
  if (!(o.max_slowdown_pct >= 0) || !(o.max_cost_increase_pct >= 0))
    throw std::invalid_argument("thresholds must be >= 0");
  check_samples(baseline);
  check_samples(candidate);
  const auto base_index = index_results(baseline);
  const auto cand_index = index_results(candidate);

  CompareReport report;
  report.options = o;
  report.warnings = provenance_differences(baseline.report, candidate.report);
  report.currency = candidate.report.pricing_currency.empty() ? "USD" : candidate.report.pricing_currency;
  if (candidate.report.status != RunStatus::complete)
    report.notes.push_back("the candidate run's status is '" + to_string(candidate.report.status) + "'");

  const auto& base_results = baseline.report.results;
  const auto& cand_results = candidate.report.results;
  std::vector<std::pair<const Result*, const Result*>> matched;  // baseline order, then new ones
  for (const auto& b : base_results) {
    const auto it = cand_index.find(key_of(b));
    matched.emplace_back(&b, it == cand_index.end() ? nullptr : &cand_results[it->second]);
  }
  for (const auto& c : cand_results)
    if (!base_index.count(key_of(c))) matched.emplace_back(nullptr, &c);

  std::vector<size_t> tested;  // indices into report.pairs of pairs compared by samples
  std::vector<double> p_values;
  for (const auto& [b, c] : matched) {
    PairComparison p;
    const Result& any = b ? *b : *c;
    p.workload = any.workload;
    p.preset = any.preset;
    p.batch_size = any.batch_size;
    p.configuration = any.configuration;
    if (b) p.baseline = figures_of(*b);
    if (c) p.candidate = figures_of(*c);
    if (!c) {
      p.verdict = Verdict::missing;
      p.reasons.push_back("in the baseline, not in the candidate");
    } else if (c->status == ResultStatus::failed) {
      p.verdict = Verdict::failed;
      p.reasons.push_back("failed in the candidate: " + c->reason);
    } else if (c->status == ResultStatus::not_run) {
      p.verdict = Verdict::missing;
      p.reasons.push_back("not run in the candidate" + (c->reason.empty() ? "" : ": " + c->reason));
    } else if (!b) {
      p.verdict = Verdict::added;
      p.reasons.push_back("in the candidate, not in the baseline");
    } else if (b->status != ResultStatus::ok) {
      p.verdict = Verdict::added;
      p.reasons.push_back("no baseline figure to compare with (baseline " + to_string(b->status) +
                          (b->reason.empty() ? "" : ": " + b->reason) + ")");
    } else {
      // Both ok: the figures.
      p.median_change_pct = (c->step->median_ms / b->step->median_ms - 1) * 100;
      if (has_samples(*b) && has_samples(*c)) {
        const size_t bi = static_cast<size_t>(b - base_results.data());
        test_pair(p, *b, *c, bi < baseline.run_means.size() ? &baseline.run_means[bi] : nullptr);
        if (p.p_value) {
          tested.push_back(report.pairs.size());
          p_values.push_back(*p.p_value);
        }
      } else {
        p.compared_by = "threshold";
        p.change_pct = (c->step->mean_ms / b->step->mean_ms - 1) * 100;
      }
      if (b->cost && c->cost && b->cost->usd_per_step > 0 && b->cost->usd_per_hour > 0) {
        const double total = (c->cost->usd_per_step / b->cost->usd_per_step - 1) * 100;
        p.cost_change_pct = total;
        // Cost is priced on the mean step (the bill), so its time part is the mean's change.
        p.cost_time_part_pct = (c->step->mean_ms / b->step->mean_ms - 1) * 100;
        p.cost_price_part_pct = total - *p.cost_time_part_pct;
        p.usd_per_step_change = c->cost->usd_per_step - b->cost->usd_per_step;
        p.price_moved = std::fabs(c->cost->usd_per_hour / b->cost->usd_per_hour - 1) > 1e-9;
      }
    }
    report.pairs.push_back(std::move(p));
  }

  const std::vector<double> q = benjamini_hochberg(p_values);
  for (size_t i = 0; i < tested.size(); ++i) {
    PairComparison& p = report.pairs[tested[i]];
    p.q_value = q[i];
    p.significant = q[i] <= o.alpha;
  }
  report.tested_pairs = tested.size();
  if (baseline.run_means.empty() && !tested.empty())
    report.notes.push_back(fmt::format("one run a side: the test sees the noise within each run, not how much a "
                                       "whole run varies on this host; test against at least {} earlier runs "
                                       "(--against-history, or several baseline files) for a nightly alarm",
                                       kMinBaselineRuns));
  for (auto& p : report.pairs)
    if (!p.compared_by.empty()) judge(p, o);

  // Not a warning about the files, but worth saying: which side moved the money.
  size_t price_moves = 0;
  for (const auto& p : report.pairs) price_moves += p.price_moved;
  if (price_moves)
    report.notes.push_back(fmt::format("the price of {} configuration(s) moved; its part of the cost change is "
                                       "reported separately and never counted as a regression",
                                       price_moves));
  report.baseline = std::move(baseline);
  report.candidate = std::move(candidate);
  return report;
}

PooledSamples pool_samples(const std::vector<const Result*>& results) {
  PooledSamples pool;
  for (const Result* r : results) {
    const Measurement& m = *r->measurement;
    pool.step_ms.insert(pool.step_ms.end(), m.step_ms.begin(), m.step_ms.end());
    pool.data_wait_ms.insert(pool.data_wait_ms.end(), m.data_wait_ms.begin(), m.data_wait_ms.end());
    pool.elapsed_s += m.elapsed_s;
  }
  const Summary s = summarize(pool.step_ms);
  pool.spread = StepTimeSpread{s.mean, s.stdev, s.cv, s.p5, s.p95};
  return pool;
}

CompareSide pool_runs(const std::vector<CompareSide>& runs,
                      const std::function<bool(const Result&, size_t run_index)>& keep) {
  if (runs.empty()) throw std::invalid_argument("pool_runs needs at least one run");
  CompareSide out;
  const CompareSide& newest = runs.back();
  out.report = newest.report;
  out.report.results.clear();
  for (const auto& r : runs) out.runs.insert(out.runs.end(), r.runs.begin(), r.runs.end());
  // Pairs in the newest run's order, then pairs only older runs have.
  std::vector<Key> order;
  std::map<Key, std::vector<std::pair<size_t, const Result*>>> by_key;
  for (size_t i = runs.size(); i-- > 0;)
    for (const auto& r : runs[i].report.results) {
      auto& list = by_key[key_of(r)];
      if (list.empty()) order.push_back(key_of(r));
      list.emplace_back(i, &r);
    }
  for (const Key& key : order) {
    auto list = by_key[key];
    std::reverse(list.begin(), list.end());  // oldest first
    std::vector<const Result*> ok;
    for (const auto& [i, r] : list)
      if (r->status == ResultStatus::ok && r->step && (!keep || keep(*r, i))) ok.push_back(r);
    if (ok.empty()) {
      Result none = *list.back().second;  // the newest as it was (failed, not run) ...
      if (none.status == ResultStatus::ok) {  // ... or every ok one was left out by `keep`
        none.status = ResultStatus::not_run;
        none.reason = "no pooled run of this pair since its last change point";
        none.step.reset();
        none.cost.reset();
        none.measurement.reset();
      }
      out.report.results.push_back(std::move(none));
      out.run_means.emplace_back();
      continue;
    }
    Result pooled = *ok.back();
    std::vector<double> means, medians;
    bool all_samples = true;
    for (const Result* r : ok) {
      means.push_back(r->step->mean_ms);
      medians.push_back(r->step->median_ms);
      all_samples = all_samples && r->measurement && !r->measurement->step_ms.empty();
    }
    if (all_samples) {
      PooledSamples pool = pool_samples(ok);
      Measurement m = *pooled.measurement;
      m.step_ms = std::move(pool.step_ms);
      m.data_wait_ms = std::move(pool.data_wait_ms);
      pooled.step = step_time_estimate(m.step_ms);
      pooled.spread = pool.spread;
      pooled.measurement = m;
    } else {
      pooled.step = StepTimeEstimate{median(medians), std::nullopt, mean(means), std::nullopt};
      pooled.measurement.reset();
      pooled.spread.reset();
    }
    if (pooled.cost) pooled.cost = reprice(*pooled.cost, *pooled.step, static_cast<double>(pooled.samples_per_step));
    out.report.results.push_back(std::move(pooled));
    out.run_means.push_back(std::move(means));
  }
  return out;
}

}  // namespace pperf
