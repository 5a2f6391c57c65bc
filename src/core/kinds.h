#pragma once
// The closed sets a config names and a result records, as enums: parsed once (config loading,
// the results reader, a CLI flag), compared as values everywhere else, and spelled as strings
// only at the JSON and text edges. Each enum's names live in its EnumNames specialisation, in
// declaration order, and nowhere else.
#include <array>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "src/core/json_view.h"

namespace pperf {

/// Where batches are made: loader threads in the trainer's process, or data workers.
enum class DataMode { local, service };
/// What a data worker runs: pperf's C++ input pipeline, or pperf-data-worker.py over a
/// user's Python dataset.
enum class DataWorker { pperf, python };
/// Who started a data-parallel group's ranks: pperf on this host, the launcher convention
/// (RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT: torchrun, PyTorchJob, SageMaker), or Slurm.
enum class Launcher { spawn_local, env, slurm };
/// How a run's configurations of one workload took turns on the host: each measured to its end
/// before the next, or in alternating rounds (src/measure/interleave.h); or `separate`: measured
/// on other hosts or at other times and decided together by `pperf decide` (src/decide/decide.h).
enum class Schedule { sequential, interleaved, separate };
/// A configuration's cost per step against its baseline's, decided at a stated confidence.
enum class CostVerdict { cheaper, dearer, equivalent, undecided };
/// Why measuring stopped: decided against the baseline (configurations in turns), the
/// precision target met, the step or time budget spent, interrupted, the data source ended or
/// failed; `other` only in files from before the codes (and a rank that rank 0 stopped).
enum class StopReason {
  decided,
  target_rel_ci,
  max_steps,
  max_seconds,
  interrupted,
  data_source_ended,
  data_source_failed,
  other
};

template <typename Enum>
struct EnumNames;
template <>
struct EnumNames<DataMode> {
  static constexpr std::array<const char*, 2> names{"local", "service"};
};
template <>
struct EnumNames<DataWorker> {
  static constexpr std::array<const char*, 2> names{"pperf", "python"};
};
template <>
struct EnumNames<Launcher> {
  static constexpr std::array<const char*, 3> names{"spawn_local", "env", "slurm"};
};

template <>
struct EnumNames<Schedule> {
  static constexpr std::array<const char*, 3> names{"sequential", "interleaved", "separate"};
};
template <>
struct EnumNames<CostVerdict> {
  static constexpr std::array<const char*, 4> names{"cheaper", "dearer", "equivalent", "undecided"};
};
template <>
struct EnumNames<StopReason> {
  static constexpr std::array<const char*, 8> names{"decided",     "target_rel_ci",     "max_steps",          "max_seconds",
                                                    "interrupted", "data_source_ended", "data_source_failed", "other"};
};

template <typename Enum, typename = decltype(EnumNames<Enum>::names)>
std::string to_string(Enum value) {
  return EnumNames<Enum>::names[static_cast<size_t>(value)];
}

template <typename Enum, typename = decltype(EnumNames<Enum>::names)>
std::vector<std::string> enum_names() {
  return {EnumNames<Enum>::names.begin(), EnumNames<Enum>::names.end()};
}

/// nullopt for a string that is none of the enum's names.
template <typename Enum, typename = decltype(EnumNames<Enum>::names)>
std::optional<Enum> parse_enum(const std::string& name) {
  for (size_t i = 0; i < EnumNames<Enum>::names.size(); ++i)
    if (name == EnumNames<Enum>::names[i]) return static_cast<Enum>(i);
  return std::nullopt;
}

/// A JSON string that must name one of the enum's values (fails naming them all, with
/// did-you-mean).
template <typename Enum, typename = decltype(EnumNames<Enum>::names)>
Enum read_enum(const JsonView& v) {
  return *parse_enum<Enum>(v.as_choice(enum_names<Enum>()));
}

}  // namespace pperf
