#pragma once
// Where a training step's CPU time goes, from an operator profiler's ranges: each operator's
// self time (its time minus that of the ranges nested directly in it), the category it counts
// under, and which phase of the step it ran in. Pure and torch-free: bench/micro/profile_step.cpp
// turns libtorch's legacy profiler events into RangeEvents; the arithmetic is tested here on
// hand-made timelines (tests/unit/test_op_profile.cpp).
#include <cstdint>
#include <string>
#include <vector>

namespace pperf {

/// One profiler event: a range opens (push) or closes (pop). A pop closes the push with the
/// same handle (handles are unique per range, as libtorch's RecordFunction handles are).
struct RangeEvent {
  bool push = true;
  uint64_t thread = 0;  // the push's thread is the range's thread
  uint64_t handle = 0;
  std::string name;     // read from pushes only
  int64_t ns = 0;       // any monotonic clock, one for all threads
};

/// A closed range and where it sits: ranges on one thread nest by time containment.
struct Range {
  std::string name;
  uint64_t thread = 0;
  int64_t start_ns = 0, end_ns = 0;
  int64_t self_ns = 0;  // end - start minus the (inclusive) time of its direct children
  int parent = -1;      // index into the same vector; -1 at top level
  int64_t inclusive_ns() const { return end_ns - start_ns; }
};

/// Closed ranges from `events` (in any order across threads). A push never popped (still open
/// when the profiler stopped) and a pop without its push are dropped. Per thread, a range is
/// the child of the innermost range that contains it ([start, end] within the parent's; equal
/// bounds nest in push order).
std::vector<Range> nest_ranges(const std::vector<RangeEvent>& events);

/// The category an operator name counts under by itself: "GEMM", "convolution", "softmax",
/// "normalization", "activation", "dropout/random", "embedding", "loss", "elementwise",
/// "memory/copy/layout", "autograd engine" (backward nodes and the engine's wrappers, their
/// own bookkeeping) or "other".
std::string op_category(const std::string& name);

/// Phases of a training step, told apart by the autograd engine's ranges (see summarize_steps).
enum class StepPhase { forward, backward, after_backward };

struct OpTotal {
  std::string name;
  std::string category;  // as summarize_steps attributes it (ancestor and phase applied)
  int64_t self_ns = 0;
  int64_t calls = 0;
  std::string parent;  // the enclosing range this op spends most self time under ("" at the step's top level)
};

struct CategoryTotal {
  std::string category;
  int64_t self_ns = 0;
};

/// One step's own figures (steps vary: page faults, a neighbour's load).
struct StepTotals {
  int64_t step_ns = 0;  // the step range's time
  std::vector<CategoryTotal> categories;  // by self time, largest first
};

/// Self time inside the step ranges, summed over steps.
struct StepProfile {
  int64_t steps = 0;
  int64_t step_ns = 0;     // the step ranges' own time (wall, summed over steps)
  int64_t op_ns = 0;       // self time of every range inside the steps (= the steps' top-level ops' inclusive time)
  int64_t outside_ns = 0;  // the step ranges' self time: host code between operators
  int64_t phase_ns[3] = {0, 0, 0};  // op self time per StepPhase
  std::vector<CategoryTotal> categories;  // by self time, largest first
  std::vector<OpTotal> ops;               // by self time, largest first
  std::vector<StepTotals> per_step;       // in the order the steps ran
};

/// Totals over the ranges named `step_name` (one per training step) and everything inside them
/// on any thread. Within a step, ranges whose name starts with `backward_prefix` mark backward
/// (libtorch: "autograd::engine::evaluate_function: "): a top-level range that ends before the
/// first of them is forward, one that starts after the last one ends is after_backward (the
/// optimizer's update, and reading the loss), anything else backward; nested ranges take their
/// top-level range's phase.
/// A range's category is op_category(name), except that after_backward ranges count as
/// "optimizer update" (the Workload interface runs the optimizer inside train_step, so its ops
/// are known only by when they run), and a generic category ("elementwise", "memory/copy/layout",
/// "other") inside a softmax, normalization, activation, dropout, embedding or loss range takes
/// that range's category (dropout's mask multiply is dropout's cost). GEMM and convolution ranges
/// do not lend theirs: the copies matmul makes show up as memory.
StepProfile summarize_steps(const std::vector<Range>& ranges, const std::string& step_name,
                            const std::string& backward_prefix);

}  // namespace pperf
