#include "src/measure/interleave.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <numeric>
#include <sstream>

#include "src/core/process.h"
#include "src/measure/memory_bound.h"
#include "src/stats/intervals.h"
#include "src/stats/race.h"
#include "src/stats/stats.h"

namespace pperf {

namespace {
// Lines of the protocol. Anything else a measuring process prints on stdout is ignored.
constexpr const char* kReady = "pperf-turn ready";
constexpr const char* kDone = "pperf-turn done";
constexpr const char* kRound = "round";
constexpr const char* kEnd = "end";

struct Turn {
  const PlanItem* item;
  std::string out;
  std::unique_ptr<ItemMemoryBound> memory;  // before the child: outlives it
  std::unique_ptr<ChildProcess> child;
  bool active = true;         // still taking turns
  std::string failure;        // why it stopped taking turns early
  std::vector<double> steps_ms;  // every timed step of its whole rounds, in order
  std::optional<size_t> left_after_round;  // a sweep's point eliminated from the race (race.h)

  bool racing() const { return active && !left_after_round; }

  std::vector<double> round_means_ms() const { return round_means(steps_ms, kRoundSteps); }
  /// Its steps as the decision reads them (the rounds' correlation from the steps within them).
  RoundSteps timed_rounds() const { return RoundSteps{steps_ms, kRoundSteps}; }
  double measured_s() const { return std::accumulate(steps_ms.begin(), steps_ms.end(), 0.0) / 1000; }
};

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

/// The next protocol line starting with `prefix`, or nullopt when the child ended or stop was
/// asked for (then `why` says which).
std::optional<std::string> await_line(Turn& t, const std::string& prefix, const std::atomic<bool>& stop_requested,
                                      std::string& why, const std::function<void()>& tick = {}) {
  for (;;) {
    if (tick) tick();
    if (auto line = t.child->read_line(0.2)) {
      if (starts_with(*line, prefix)) return line;
      continue;
    }
    if (auto status = t.child->wait(0)) {
      why = "the measuring process " + describe_wait_status(*status);
      return std::nullopt;
    }
    if (stop_requested) {
      why = "interrupted";
      return std::nullopt;
    }
  }
}

/// One round of `t`: its kRoundSteps step times, or false (t is then inactive).
bool take_round(Turn& t, const std::atomic<bool>& stop_requested, const std::function<void()>& tick) {
  std::string why;
  if (!t.child->write_line(fmt::format("{} {}", kRound, kRoundSteps))) why = "the measuring process went away";
  const auto line = why.empty() ? await_line(t, kDone, stop_requested, why, tick) : std::nullopt;
  if (!line) {
    t.active = false;
    t.failure = why;
    return false;
  }
  std::istringstream in(line->substr(std::string(kDone).size()));
  std::vector<double> round;
  for (double x; in >> x;) round.push_back(x);
  if (round.size() != static_cast<size_t>(kRoundSteps)) {  // its data ran out mid-round
    t.active = false;
    return false;
  }
  t.steps_ms.insert(t.steps_ms.end(), round.begin(), round.end());
  return true;
}

/// Where the turns stand: each side's steps and, for candidates, the decision against the baseline.
TurnsSnapshot snapshot_of(const std::vector<Turn>& turns, const Config& config, const ExecutorOptions& options,
                          size_t rounds, double elapsed_s) {
  TurnsSnapshot s;
  s.workload = turns.front().item->workload->name;
  s.rounds = rounds;
  s.round_steps = kRoundSteps;
  s.elapsed_s = elapsed_s;
  s.max_steps = config.measure.max_steps;
  s.max_seconds = config.measure.max_seconds;
  const auto base = std::find_if(turns.begin(), turns.end(), [](const Turn& t) { return t.item->configuration->baseline; });
  for (const Turn& t : turns) {
    TurnsSnapshot::Side side{t.item->configuration->name, t.item->configuration->baseline, t.racing(),
                             static_cast<int64_t>(t.steps_ms.size()), t.measured_s(), std::nullopt};
    const auto ratio = options.decision.price_ratio.find(side.configuration);
    if (base != turns.end() && &t != &*base && ratio != options.decision.price_ratio.end() && rounds > 0)
      side.decision = decide_interleaved(base->timed_rounds(), t.timed_rounds(), ratio->second, options.decision.settings,
                                         rounds > 0 ? t.measured_s() / rounds : 0);
    s.sides.push_back(std::move(side));
  }
  return s;
}

/// The rounds the race has run: the most any point measured.
size_t rounds_of(const std::vector<Turn>& turns) {
  size_t rounds = 0;
  for (const Turn& t : turns) rounds = std::max(rounds, t.round_means_ms().size());
  return rounds;
}

/// A sweep's race as it stands (nullopt when a point is unpriced: then the budget decides).
std::optional<RaceLook> race_now(const std::vector<Turn>& turns, const ExecutorOptions& options) {
  std::vector<RacePoint> points;
  for (const Turn& t : turns) {
    const auto ratio = options.decision.price_ratio.find(t.item->configuration->name);
    if (ratio == options.decision.price_ratio.end()) return std::nullopt;
    const double samples = static_cast<double>(t.item->samples_per_step());
    points.push_back({t.round_means_ms(), PriceRatio{ratio->second[0] / samples, ratio->second[1] / samples}, t.racing(),
                      t.timed_rounds()});
  }
  return race_look(points, options.decision.settings);
}

/// Why the turns end after this round, or nullopt to go on. A decision (or the precision
/// target) reached on the round that also reaches the budget is reported as such, not as the
/// budget.
std::optional<StopCause> end_of_turns(const std::vector<Turn>& turns, const Config& config, const ExecutorOptions& options) {
  const MeasureSettings& m = config.measure;
  std::optional<StopCause> budget;
  for (const Turn& t : turns) {
    if (!t.racing() || budget) continue;
    if (static_cast<int64_t>(t.steps_ms.size()) >= m.max_steps)
      budget = StopCause{StopReason::max_steps, fmt::format("max_steps ({})", m.max_steps)};
    else if (t.measured_s() >= m.max_seconds)
      budget = StopCause{StopReason::max_seconds, fmt::format("max_seconds ({:g} s)", m.max_seconds)};
  }
  // min_steps is the user's floor: neither a decision nor the precision target ends the turns
  // before every configuration has that many.
  for (const Turn& t : turns)
    if (t.racing() && static_cast<int64_t>(t.steps_ms.size()) < m.min_steps) return budget;
  if (config.sweep) {
    // A sweep races (src/stats/race.h): it ends when the race is decided, else on the budget.
    if (const std::optional<RaceLook> look = race_now(turns, options); look && look->finished)
      return StopCause{StopReason::decided, fmt::format("race decided after {} rounds: {}", rounds_of(turns), look->why)};
    return budget;
  }
  const auto base = std::find_if(turns.begin(), turns.end(), [](const Turn& t) { return t.item->configuration->baseline; });
  if (base != turns.end() && base->active) {
    int decided = 0, candidates = 0;
    for (const Turn& t : turns) {
      if (&t == &*base || !t.active) continue;
      ++candidates;
      const auto ratio = options.decision.price_ratio.find(t.item->configuration->name);
      if (ratio == options.decision.price_ratio.end()) return budget;  // unpriced: the budget decides
      if (decide_interleaved(base->timed_rounds(), t.timed_rounds(), ratio->second, options.decision.settings).verdict !=
          CostVerdict::undecided)
        ++decided;
    }
    if (candidates > 0 && decided == candidates)
      return StopCause{StopReason::decided, fmt::format("decided (after {} rounds)", base->round_means_ms().size())};
    return budget;
  }
  if (m.criterion != "precision") return budget;  // "budget": nothing ends the turns early
  for (const Turn& t : turns) {
    if (!t.active) continue;
    const RelativePrecision p = relative_precision(t.steps_ms);
    if (!(p.mean <= m.target_rel_ci && p.median <= m.target_rel_ci)) return budget;
  }
  return StopCause{StopReason::target_rel_ci,
                   fmt::format("target_rel_ci (every configuration's intervals within ±{:.2f} %)", m.target_rel_ci * 100)};
}
}  // namespace

std::vector<Result> measure_interleaved(const Config& config, const std::vector<const PlanItem*>& items,
                                        const ExecutorOptions& options, const std::atomic<bool>& stop_requested,
                                        MeasureObserver& observer) {
  namespace fs = std::filesystem;
  static int sequence = 0;
  // A measuring process that died leaves its stdin pipe without a reader: writing to it must
  // fail with EPIPE, not end pperf.
  std::signal(SIGPIPE, SIG_IGN);
  std::vector<Turn> turns;
  std::vector<std::string> names;
  for (const PlanItem* item : items) {
    Turn t{item, (fs::temp_directory_path() / fmt::format("pperf-turn-{}-{}.json", getpid(), sequence++)).string(),
           std::make_unique<ItemMemoryBound>(options.max_memory_bytes), nullptr};
    ExecutorOptions child_options = options;
    child_options.process.terminal_progress = false;  // several processes cannot share one progress line
    SpawnOptions spawn;
    spawn.argv = measure_item_argv(config, *item, child_options, t.out);
    spawn.argv.push_back("--turns");
    spawn.capture_stdout = true;
    spawn.pipe_stdin = true;
    spawn.death_signal = SIGKILL;  // if pperf dies, so do they (and their data workers)
    spawn.own_process_group = true;  // a terminal's Ctrl-C reaches pperf alone, which stops them in order
    t.memory->prepare(spawn);
    observer.setting_up(*item);
    try {
      t.child = std::make_unique<ChildProcess>(spawn);
      t.memory->watch(*t.child);
    } catch (const std::exception& e) {
      t.active = false;
      t.failure = std::string("cannot start the measuring process: ") + e.what();
    }
    names.push_back(item->configuration->name);
    turns.push_back(std::move(t));
  }
  // Every process sets up (and its data workers start) before anyone measures.
  for (Turn& t : turns) {
    std::string why;
    if (t.active && !await_line(t, kReady, stop_requested, why)) t.active = false, t.failure = why;
  }
  for (const Turn& t : turns) observer.started(*t.item);
  StopCause end{StopReason::interrupted, "interrupted"};
  const auto first_round = std::chrono::steady_clock::now();
  size_t rounds_done = 0;
  auto elapsed_s = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - first_round).count(); };
  auto last_told = first_round;
  auto tell = [&] {
    last_told = std::chrono::steady_clock::now();
    observer.turns(snapshot_of(turns, config, options, rounds_done, elapsed_s()));
  };
  // While a round runs: about once a second (the round may be long).
  const std::function<void()> tick = [&] {
    if (std::chrono::steady_clock::now() - last_told >= std::chrono::milliseconds(900)) tell();
  };
  tell();
  size_t design_start = 0;  // the round the present design began: a race's elimination starts a new one
  for (size_t round = 0; !stop_requested; ++round) {
    // A B, B A, ... for two; a Williams design for more: every position and every predecessor
    // is every configuration's equally often over a cycle. Points out of a race take no turns.
    std::vector<Turn*> racing;
    for (Turn& t : turns)
      if (!t.left_after_round) racing.push_back(&t);
    std::vector<Turn*> order;
    for (size_t i : turn_order(racing.size(), round - design_start)) order.push_back(racing[i]);
    for (Turn* t : order)
      if (t->active && !stop_requested) take_round(*t, stop_requested, tick);
    if (stop_requested) break;
    rounds_done = round + 1;
    if (config.sweep)
      if (const std::optional<RaceLook> look = race_now(turns, options)) {
        for (size_t i = 0; i < turns.size(); ++i)
          if (look->verdict[i] == RaceVerdict::eliminated) turns[i].left_after_round = rounds_done, design_start = round + 1;
      }
    tell();
    if (std::none_of(turns.begin(), turns.end(), [](const Turn& t) { return t.active; })) {
      end = {StopReason::other, "every configuration stopped"};
      break;
    }
    if (auto cause = end_of_turns(turns, config, options)) {
      end = *cause;
      break;
    }
  }
  const double turns_wall_s = elapsed_s();
  std::vector<Result> results;
  for (Turn& t : turns) {
    Result r = t.item->result_skeleton();
    if (t.child) {
      t.child->write_line(fmt::format("{} {} {}", kEnd, to_string(end.code), end.text));
      t.child->close_stdin();
      if (stop_requested) t.child->signal(SIGINT);
      // It summarizes, measures its checkpoint, stops its data workers and writes its result.
      const std::optional<int> status = t.child->wait(120);
      if (!status) t.child->stop(5);
      std::error_code ec;
      if (t.memory->over_limit()) {
        r = failed_result(std::move(r), t.memory->failure_reason());
      } else if (fs::exists(t.out, ec)) {
        try {
          r = read_item_result(t.out);
          if (r.measurement) r.measurement->turns.configurations = names, r.measurement->turns.wall_s = turns_wall_s;
        } catch (const std::exception& e) {
          r = failed_result(std::move(r), std::string("unreadable result from the measuring process: ") + e.what());
        }
      } else {
        r = failed_result(std::move(r), t.failure.empty() ? "the measuring process ended without a result" : t.failure);
      }
      fs::remove(t.out, ec);
    } else {
      r = failed_result(std::move(r), t.failure);
    }
    t.memory->record(r);
    results.push_back(std::move(r));
  }
  return results;
}

TurnTaking turns_over_stdio() {
  TurnTaking t;
  t.ready = [] { std::cout << kReady << std::endl; };
  t.next = [](StopCause& end) -> std::optional<int64_t> {
    std::string line;
    if (!std::getline(std::cin, line)) {
      end = {StopReason::interrupted, "interrupted (the scheduler went away)"};
      return std::nullopt;
    }
    if (starts_with(line, std::string(kRound) + " ")) {
      try {
        return std::stoll(line.substr(std::string(kRound).size() + 1));
      } catch (const std::exception&) {
      }
    }
    // "end CODE TEXT"
    std::istringstream order(line);
    std::string word, code;
    order >> word >> code;
    const std::optional<StopReason> reason = parse_enum<StopReason>(code);
    if (word == kEnd && reason) {
      std::getline(order >> std::ws, end.text);
      end.code = *reason;
    } else {
      end = {StopReason::interrupted, "interrupted (unreadable order: '" + line + "')"};
    }
    return std::nullopt;
  };
  t.done = [](const std::vector<double>& round_ms) {
    std::ostringstream out;
    out.precision(17);
    out << kDone;
    for (double x : round_ms) out << ' ' << x;
    std::cout << out.str() << std::endl;
  };
  return t;
}

}  // namespace pperf
