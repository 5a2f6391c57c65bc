// Operator self times from profiler ranges (src/core/op_profile.h) on hand-made timelines.
#include <gtest/gtest.h>

#include "src/core/op_profile.h"

using namespace pperf;

namespace {
RangeEvent push(uint64_t thread, uint64_t handle, const std::string& name, int64_t ns) {
  return {true, thread, handle, name, ns};
}
RangeEvent pop(uint64_t thread, uint64_t handle, int64_t ns) { return {false, thread, handle, "", ns}; }

const Range& named(const std::vector<Range>& ranges, const std::string& name) {
  for (const auto& r : ranges)
    if (r.name == name) return r;
  throw std::runtime_error("no range " + name);
}

int64_t category_ns(const StepProfile& p, const std::string& category) {
  for (const auto& c : p.categories)
    if (c.category == category) return c.self_ns;
  return 0;
}
}  // namespace

TEST(OpProfile, SelfTimeIsInclusiveMinusDirectChildrenPerThread) {
  // thread 1: linear [0, 100] > t [5, 10], addmm [10, 90] > copy_ [20, 30]
  // thread 2: an op inside linear's time on another thread is not its child.
  const std::vector<RangeEvent> events = {
      push(1, 1, "aten::linear", 0),   push(1, 2, "aten::t", 5),      pop(1, 2, 10),
      push(1, 3, "aten::addmm", 10),   push(1, 4, "aten::copy_", 20), pop(1, 4, 30),
      pop(1, 3, 90),                   pop(1, 1, 100),                push(2, 5, "aten::mul", 40),
      pop(2, 5, 60)};
  const auto ranges = nest_ranges(events);
  ASSERT_EQ(ranges.size(), 5u);
  EXPECT_EQ(named(ranges, "aten::linear").self_ns, 100 - 5 - 80);
  EXPECT_EQ(named(ranges, "aten::addmm").self_ns, 80 - 10);
  EXPECT_EQ(named(ranges, "aten::copy_").self_ns, 10);
  EXPECT_EQ(named(ranges, "aten::mul").self_ns, 20);
  EXPECT_EQ(named(ranges, "aten::mul").parent, -1);
  EXPECT_EQ(ranges[static_cast<size_t>(named(ranges, "aten::copy_").parent)].name, "aten::addmm");
}

TEST(OpProfile, EqualBoundsNestInPushOrderAndUnclosedRangesAreDropped) {
  // Another thread's list holds the pop before its own thread's push (lists are per thread).
  const std::vector<RangeEvent> events = {pop(1, 7, 50), push(1, 6, "outer", 0), push(1, 7, "inner", 0),
                                          pop(1, 6, 50), push(1, 8, "never closed", 60), pop(1, 99, 70)};
  const auto ranges = nest_ranges(events);
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(named(ranges, "outer").self_ns, 0);
  EXPECT_EQ(named(ranges, "inner").self_ns, 50);
  EXPECT_EQ(ranges[static_cast<size_t>(named(ranges, "inner").parent)].name, "outer");
}

TEST(OpProfile, CategoriesByName) {
  EXPECT_EQ(op_category("aten::addmm"), "GEMM");
  EXPECT_EQ(op_category("aten::bmm"), "GEMM");
  EXPECT_EQ(op_category("aten::mkldnn_convolution"), "convolution");
  EXPECT_EQ(op_category("aten::convolution_backward"), "convolution");
  EXPECT_EQ(op_category("aten::_softmax_backward_data"), "softmax");
  EXPECT_EQ(op_category("aten::_log_softmax"), "loss");
  EXPECT_EQ(op_category("aten::native_layer_norm_backward"), "normalization");
  EXPECT_EQ(op_category("aten::gelu_backward"), "activation");
  EXPECT_EQ(op_category("aten::threshold_backward"), "activation");
  EXPECT_EQ(op_category("aten::bernoulli_"), "dropout/random");
  EXPECT_EQ(op_category("aten::embedding_dense_backward"), "embedding");
  EXPECT_EQ(op_category("aten::copy_"), "memory/copy/layout");
  EXPECT_EQ(op_category("aten::addcdiv_"), "elementwise/arithmetic");
  EXPECT_EQ(op_category("autograd::engine::evaluate_function: AddmmBackward0"), "autograd engine");
  EXPECT_EQ(op_category("AddmmBackward0"), "autograd engine");
  EXPECT_EQ(op_category("torch::autograd::AccumulateGrad"), "autograd engine");
  EXPECT_EQ(op_category("aten::_convert_indices_from_coo_to_csr"), "other");
}

TEST(OpProfile, StepsSplitIntoForwardBackwardAndAfterBackward) {
  const std::string bw = "autograd::engine::evaluate_function: ";
  // One step [0, 200]: forward linear (a GEMM with a copy inside) and dropout (with a mul
  // inside), backward [100, 150], then the optimizer's mul; 10 ns of host code between ops.
  const std::vector<RangeEvent> events = {
      push(1, 1, "step", 0),
      push(1, 2, "aten::matmul", 0),            push(1, 3, "aten::copy_", 0),   pop(1, 3, 20),
      push(1, 4, "aten::bmm", 20),              pop(1, 4, 60),                   pop(1, 2, 60),
      push(1, 5, "aten::dropout", 60),          push(1, 6, "aten::mul", 60),     pop(1, 6, 90),
      pop(1, 5, 90),
      push(1, 7, bw + "MmBackward0", 100),      push(1, 8, "MmBackward0", 100),  push(1, 9, "aten::mm", 100),
      pop(1, 9, 140),                           pop(1, 8, 145),                  pop(1, 7, 150),
      push(1, 10, "aten::mul_", 150),           pop(1, 10, 200),
      pop(1, 1, 200),
      push(1, 11, "aten::mm", 300),             pop(1, 11, 400)};  // outside any step: not counted
  const StepProfile p = summarize_steps(nest_ranges(events), "step", bw);
  EXPECT_EQ(p.steps, 1);
  EXPECT_EQ(p.step_ns, 200);
  EXPECT_EQ(p.outside_ns, 10);
  EXPECT_EQ(p.op_ns, 190);
  EXPECT_EQ(p.phase_ns[static_cast<int>(StepPhase::forward)], 90);
  EXPECT_EQ(p.phase_ns[static_cast<int>(StepPhase::backward)], 50);
  EXPECT_EQ(p.phase_ns[static_cast<int>(StepPhase::after_backward)], 50);
  EXPECT_EQ(category_ns(p, "GEMM"), 40 + 40);             // bmm, mm; matmul's own time is 0
  EXPECT_EQ(category_ns(p, "memory/copy/layout"), 20);    // matmul's copy stays memory
  EXPECT_EQ(category_ns(p, "dropout/random"), 30);        // dropout's mul is dropout's
  EXPECT_EQ(category_ns(p, "autograd engine"), 5 + 5);
  EXPECT_EQ(category_ns(p, "optimizer update"), 50);
  ASSERT_FALSE(p.ops.empty());
  EXPECT_EQ(p.ops.front().self_ns, 50);
  EXPECT_EQ(p.ops.front().name, "aten::mul_");
  EXPECT_EQ(p.ops.front().parent, "");  // top level in the step
  for (const auto& op : p.ops)
    if (op.name == "aten::mul" && op.category == "dropout/random") EXPECT_EQ(op.parent, "aten::dropout");
  ASSERT_EQ(p.per_step.size(), 1u);
  EXPECT_EQ(p.per_step[0].step_ns, 200);
  EXPECT_EQ(p.per_step[0].categories.front().category, "GEMM");
  EXPECT_EQ(p.per_step[0].categories.front().self_ns, 80);
}

TEST(OpProfile, PerStepTotalsInTheOrderTheStepsRan) {
  // Two steps on one thread; the second's op is four times the first's.
  const std::vector<RangeEvent> events = {push(1, 1, "step", 0),    push(1, 2, "aten::mm", 0),   pop(1, 2, 10),
                                          pop(1, 1, 10),             push(1, 3, "step", 20),       push(1, 4, "aten::mm", 20),
                                          pop(1, 4, 60),             pop(1, 3, 60)};
  const StepProfile p = summarize_steps(nest_ranges(events), "step", "bw: ");
  ASSERT_EQ(p.per_step.size(), 2u);
  EXPECT_EQ(p.per_step[0].categories.front().self_ns, 10);
  EXPECT_EQ(p.per_step[1].categories.front().self_ns, 40);
  EXPECT_EQ(p.phase_ns[static_cast<int>(StepPhase::forward)], 50);  // no backward ranges: all forward
  ASSERT_EQ(p.ops.size(), 1u);
  EXPECT_EQ(p.ops.front().calls, 2);
}
