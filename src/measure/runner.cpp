#include "src/measure/runner.h"

#include <algorithm>
#include <chrono>

#include "src/env/memory_cgroup.h"

namespace pperf {

namespace {
class SteadyClock : public Clock {
 public:
  double now_ms() const override {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
};
/// One un-timed step (warmup, or after a switch of turns); false when the data source ended.
bool untimed_step(Workload& workload, DataSource& data, const Device& device, Measurement& m, bool first) {
  if (StepBeacon* beacon = StepBeacon::from_environment(); beacon && m.step_ms.empty()) beacon->mark(true, m.warmup_steps + 1);
  auto batch = data.next();
  if (!batch) return false;
  const double loss = workload.train_step(device.place(std::move(*batch)));
  device.synchronize();  // no un-timed work left queued to land in the next timed step
  if (first) m.first_loss = loss;
  return true;
}

/// One timed step appended to `m`: the wait for the batch + placing it + the step + waiting for
/// the device. Returns the clock at its end; nullopt when the data source ended or failed (then
/// m.stop says which).
std::optional<double> timed_step(Workload& workload, DataSource& data, const Device& device, const Clock& clock, Measurement& m) {
  // Which step is running, for a parent that sees this process killed (memory_bound.h).
  if (StepBeacon* beacon = StepBeacon::from_environment()) beacon->mark(false, static_cast<int64_t>(m.step_ms.size()) + 1);
  const double start = clock.now_ms();
  std::optional<Batch> batch;
  try {
    batch = data.next();
  } catch (const std::exception& e) {
    if (m.step_ms.empty()) throw;
    // Keep what was measured: the result is partial, and says why.
    m.stop = {StopReason::data_source_failed,
              "data source failed after " + std::to_string(m.step_ms.size()) + " measured steps: " + e.what()};
    return std::nullopt;
  }
  const double got_batch = clock.now_ms();
  if (!batch) {
    m.stop = {StopReason::data_source_ended, "data source ended"};
    return std::nullopt;
  }
  m.last_loss = workload.train_step(device.place(std::move(*batch)));
  device.synchronize();
  const double end = clock.now_ms();
  if (m.step_ms.empty() && m.warmup_steps == 0) m.first_loss = m.last_loss;
  m.step_ms.push_back(end - start);
  m.data_wait_ms.push_back(got_batch - start);
  return end;
}
}  // namespace

const Clock& steady_clock() {
  static const SteadyClock clock;
  return clock;
}

Measurement measure(Workload& workload, DataSource& data, const MeasureSettings& settings,
                    const std::atomic<bool>& stop_requested, const Clock& clock, const ProgressCallback& on_progress,
                    const Device& device, const StepAgreement* agreement) {
  Measurement m;
  // Alone, a rank decides for itself; in a group, every rank stops on the same step.
  auto decide = [&](int proposal) { return agreement ? agreement->agree(proposal) : proposal; };
  auto report = [&](bool warmup, int64_t steps) {
    if (!on_progress) return;
    Progress p;
    p.warmup = warmup;
    p.steps = steps;
    p.step_ms = warmup ? nullptr : &m.step_ms;
    on_progress(p);
  };
  const double warmup_start = clock.now_ms();
  // Set however warmup ends: a phase cut short still says what its steps cost.
  auto record_warmup = [&] { m.warmup_s = (clock.now_ms() - warmup_start) / 1000; };
  for (int64_t i = 0; i < settings.warmup_steps; ++i) {
    if (!agreement && stop_requested) {
      m.stop = {StopReason::interrupted, "interrupted during warmup"};
      record_warmup();
      return m;
    }
    if (!untimed_step(workload, data, device, m, i == 0)) {
      m.stop = {StopReason::data_source_ended, "data source ended during warmup"};
      record_warmup();
      return m;
    }
    ++m.warmup_steps;
    report(true, m.warmup_steps);
    if (agreement && decide(stop_requested ? 2 : 0) == 2) {
      m.stop = {StopReason::interrupted, "interrupted during warmup"};
      record_warmup();
      return m;
    }
  }

  record_warmup();
  auto rules = make_stop_rules(settings);
  const double phase_start = clock.now_ms();
  for (;;) {
    if (!agreement && stop_requested) {
      m.stop = {StopReason::interrupted, "interrupted"};
      break;
    }
    const std::optional<double> end = timed_step(workload, data, device, clock, m);
    if (!end) break;
    m.elapsed_s = (*end - phase_start) / 1000;
    report(false, static_cast<int64_t>(m.step_ms.size()));
    auto cause = first_stop(rules, m.step_ms, m.elapsed_s);
    if (agreement) {
      const int code = decide(stop_requested ? 2 : (cause && agreement->rank0 ? 1 : 0));
      if (code == 2) {
        m.stop = {StopReason::interrupted, "interrupted"};
        break;
      }
      if (code == 1) {
        m.stop = cause && agreement->rank0 ? *cause : StopCause{StopReason::other, "rank 0 stopped"};
        break;
      }
      continue;
    }
    if (cause) {
      m.stop = *cause;
      break;
    }
  }
  return m;
}

std::vector<double> marked_steps(Workload& workload, DataSource& data, const Device& device, int64_t unmarked,
                                 int64_t marked, int64_t first_index, StepMarks& marks, const Clock& clock) {
  data.resume();
  Measurement scratch;  // the un-timed steps' bookkeeping; nothing of it is kept
  for (int64_t i = 0; i < unmarked; ++i)
    if (!untimed_step(workload, data, device, scratch, false)) return {};
  std::vector<double> step_ms;
  marks.start();
  for (int64_t i = 0; i < marked; ++i) {
    const double start = clock.now_ms();
    marks.begin(first_index + i);
    auto batch = data.next();
    if (!batch) {
      marks.end();
      break;
    }
    workload.train_step(device.place(std::move(*batch)));
    device.synchronize();
    marks.end();
    step_ms.push_back(clock.now_ms() - start);
  }
  return step_ms;
}

Measurement measure_in_turns(Workload& workload, DataSource& data, const MeasureSettings& settings,
                             int64_t untimed_steps_unknown, TurnTaking& turns, const std::atomic<bool>& stop_requested,
                             const Clock& clock, const Device& device) {
  Measurement m;
  m.turns.schedule = Schedule::interleaved;
  m.turns.untimed_steps = 0;
  m.turns.untimed_s = 0;
  // Quiet while the others set up and take their first rounds.
  data.pause();
  turns.ready();
  bool warmed_up = false;
  for (;;) {
    const std::optional<int64_t> steps = turns.next(m.stop);
    if (!steps) break;
    m.turns.round_steps = *steps;
    const std::optional<int64_t> head_start = data.resume();
    // The first round warms up as a sequential run does; after a switch, the batches prepared
    // beyond the pause's level go un-timed (at least one step: caches the others evicted).
    const int64_t untimed =
        warmed_up ? (head_start ? std::max<int64_t>(1, *head_start) : untimed_steps_unknown) : settings.warmup_steps;
    const double untimed_start = clock.now_ms();
    for (int64_t i = 0; i < untimed; ++i)
      if (!untimed_step(workload, data, device, m, !warmed_up && i == 0)) {
        m.stop = {StopReason::data_source_ended, warmed_up ? "data source ended" : "data source ended during warmup"};
        return m;
      }
    const double untimed_s = (clock.now_ms() - untimed_start) / 1000;
    if (warmed_up) {
      *m.turns.untimed_steps += untimed;
      *m.turns.untimed_s += untimed_s;
      m.turns.most_untimed_steps = std::max(m.turns.most_untimed_steps, untimed);
    } else {
      m.warmup_steps = settings.warmup_steps, m.warmup_s = untimed_s;
    }
    warmed_up = true;
    std::vector<double> round;
    for (int64_t i = 0; i < *steps && !stop_requested; ++i) {
      if (!timed_step(workload, data, device, clock, m)) return m;
      // The measured phase's time is this configuration's own steps, not the others' turns.
      m.elapsed_s += m.step_ms.back() / 1000;
      round.push_back(m.step_ms.back());
    }
    data.pause();
    if (stop_requested) {
      m.stop = {StopReason::interrupted, "interrupted"};
      break;
    }
    ++m.turns.rounds;
    turns.done(round);
  }
  return m;
}

}  // namespace pperf
