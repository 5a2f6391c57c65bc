#include "src/core/op_profile.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>

namespace pperf {

std::vector<Range> nest_ranges(const std::vector<RangeEvent>& events) {
  // Pushes first, so a pop recorded in another thread's list before its push still matches.
  std::unordered_map<uint64_t, size_t> push_of;
  for (size_t i = 0; i < events.size(); ++i)
    if (events[i].push) push_of.emplace(events[i].handle, i);
  std::vector<std::pair<size_t, int64_t>> closed;  // (push index, end)
  for (const RangeEvent& e : events) {
    if (e.push) continue;
    if (auto it = push_of.find(e.handle); it != push_of.end()) {
      closed.emplace_back(it->second, e.ns);
      push_of.erase(it);  // a second pop of one handle closes nothing
    }
  }
  std::sort(closed.begin(), closed.end());  // push order: the output's order
  std::vector<Range> out;
  out.reserve(closed.size());
  for (const auto& [push, end] : closed) {
    const RangeEvent& e = events[push];
    Range r;
    r.name = e.name;
    r.thread = e.thread;
    r.start_ns = e.ns;
    r.end_ns = std::max(end, e.ns);
    out.push_back(std::move(r));
  }

  // Per thread: by start, the longer first on equal starts, push order last; a stack of the
  // ranges still containing the current one gives its parent.
  std::vector<size_t> order(out.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Range &x = out[a], &y = out[b];
    if (x.thread != y.thread) return x.thread < y.thread;
    if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
    return x.end_ns > y.end_ns;
  });
  std::vector<size_t> stack;
  for (size_t i : order) {
    Range& r = out[i];
    while (!stack.empty()) {
      const Range& top = out[stack.back()];
      if (top.thread == r.thread && r.start_ns >= top.start_ns && r.end_ns <= top.end_ns) break;
      stack.pop_back();
    }
    r.parent = stack.empty() ? -1 : static_cast<int>(stack.back());
    stack.push_back(i);
  }
  for (Range& r : out) r.self_ns = r.inclusive_ns();
  for (const Range& r : out)
    if (r.parent >= 0) out[static_cast<size_t>(r.parent)].self_ns -= r.inclusive_ns();
  return out;
}

namespace {
bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }
bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

// Names without "aten::", trailing "_" (in-place) dropped before lookup.
const std::set<std::string> kGemm = {"mm", "addmm", "bmm", "baddbmm", "addbmm", "matmul", "linear", "dot", "vdot",
                                     "mv", "addmv", "addr", "outer", "einsum", "tensordot", "_addmm_activation",
                                     "mkldnn_linear", "linear_backward"};
const std::set<std::string> kActivation = {"gelu", "gelu_backward", "relu", "threshold", "threshold_backward", "tanh",
                                           "tanh_backward", "sigmoid", "sigmoid_backward", "silu", "silu_backward",
                                           "hardtanh", "hardtanh_backward", "leaky_relu", "leaky_relu_backward",
                                           "elu", "elu_backward", "softplus", "mish", "hardswish", "hardsigmoid",
                                           "glu", "prelu", "selu", "celu"};
const std::set<std::string> kRandom = {"rand", "rand_like", "randn", "randn_like", "uniform", "normal", "randint",
                                       "randperm", "multinomial", "exponential", "geometric", "random"};
const std::set<std::string> kMemory = {
    "copy", "contiguous", "clone", "t", "transpose", "permute", "view", "view_as", "reshape", "reshape_as",
    "_reshape_alias", "_unsafe_view", "expand", "expand_as", "as_strided", "cat", "stack", "empty", "empty_like",
    "empty_strided", "new_empty", "new_empty_strided", "zeros", "zeros_like", "new_zeros", "zero", "fill", "ones",
    "ones_like", "full", "full_like", "resize", "detach", "alias", "select", "select_backward", "slice",
    "slice_backward", "narrow", "unsqueeze", "squeeze", "flatten", "unflatten", "split", "split_with_sizes", "chunk",
    "unbind", "to", "_to_copy", "lift_fresh", "index_select", "index", "gather", "scatter", "index_add", "index_put",
    "take", "repeat", "tile", "constant_pad_nd", "pad", "movedim", "swapaxes", "broadcast_to", "unfold", "set",
    "masked_select", "numpy_T", "_copy_from", "_copy_from_and_resize", "as_strided_scatter", "select_scatter",
    "slice_scatter", "expand_copy", "permute_copy", "view_copy"};
const std::set<std::string> kElementwise = {
    "add", "sub", "rsub", "mul", "div", "addcmul", "addcdiv", "sqrt", "rsqrt", "pow", "exp", "log", "neg", "abs",
    "clamp", "clamp_min", "clamp_max", "maximum", "minimum", "max", "min", "lerp", "sum", "mean", "amax", "amin",
    "norm", "linalg_vector_norm", "where", "masked_fill", "eq", "ne", "lt", "le", "gt", "ge", "sign", "reciprocal",
    "square", "sum_to_size", "var", "std", "prod", "cumsum", "argmax", "argmin", "floor", "ceil", "round", "erf",
    "exp2", "log1p", "expm1", "sin", "cos", "logical_not", "logical_and", "logical_or", "bitwise_and",
    "bitwise_or"};
}  // namespace

std::string op_category(const std::string& name) {
  if (starts_with(name, "autograd::") || starts_with(name, "torch::autograd::")) return "autograd engine";
  std::string base = starts_with(name, "aten::") ? name.substr(6) : name;
  // Autograd nodes are named after their function, e.g. "AddmmBackward0"; aten's own backward
  // kernels are lower case ("gelu_backward").
  if (!starts_with(name, "aten::") && contains(name, "Backward")) return "autograd engine";
  if (starts_with(base, "_foreach_")) return "elementwise/arithmetic";
  if (base.size() > 1 && base.back() == '_') base.pop_back();  // in-place variant
  if (kGemm.count(base)) return "GEMM";
  if (contains(base, "convolution") || contains(base, "conv1d") || contains(base, "conv2d") ||
      contains(base, "conv3d") || contains(base, "conv_transpose") || contains(base, "conv_depthwise"))
    return "convolution";
  // Cross-entropy's log-softmax is the loss's cost, not attention's.
  if (contains(base, "log_softmax") || contains(base, "loss")) return "loss";
  if (contains(base, "softmax")) return "softmax";
  if (contains(base, "layer_norm") || contains(base, "batch_norm") || contains(base, "group_norm") ||
      contains(base, "instance_norm") || contains(base, "rms_norm"))
    return "normalization";
  if (kActivation.count(base)) return "activation";
  if (contains(base, "dropout") || contains(base, "bernoulli") || kRandom.count(base)) return "dropout/random";
  if (contains(base, "embedding")) return "embedding";
  if (kMemory.count(base)) return "memory/copy/layout";
  if (kElementwise.count(base)) return "elementwise/arithmetic";
  return "other";
}

namespace {
bool generic(const std::string& category) {
  return category == "elementwise/arithmetic" || category == "memory/copy/layout" || category == "other";
}
bool lends_category(const std::string& category) {
  return category == "softmax" || category == "normalization" || category == "activation" ||
         category == "dropout/random" || category == "embedding" || category == "loss";
}
}  // namespace

StepProfile summarize_steps(const std::vector<Range>& ranges, const std::string& step_name,
                            const std::string& backward_prefix) {
  StepProfile p;
  const auto root_of = [&](size_t i) {
    while (ranges[i].parent >= 0) i = static_cast<size_t>(ranges[i].parent);
    return i;
  };
  std::vector<size_t> steps;
  for (size_t i = 0; i < ranges.size(); ++i)
    if (ranges[i].name == step_name && ranges[i].parent < 0) steps.push_back(i);

  // Each range's step and its top-level range in that step (its ancestor right under the step
  // range, or, on another thread, its root if that lies within the step's time).
  std::vector<int> step_of(ranges.size(), -1), top_of(ranges.size(), -1);
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (ranges[i].name == step_name && ranges[i].parent < 0) continue;
    const size_t root = root_of(i);
    if (ranges[root].name == step_name) {
      size_t top = i;
      while (static_cast<size_t>(ranges[top].parent) != root) top = static_cast<size_t>(ranges[top].parent);
      step_of[i] = static_cast<int>(root);
      top_of[i] = static_cast<int>(top);
      continue;
    }
    for (size_t s : steps)
      if (ranges[root].start_ns >= ranges[s].start_ns && ranges[root].end_ns <= ranges[s].end_ns) {
        step_of[i] = static_cast<int>(s);
        top_of[i] = static_cast<int>(root);
        break;
      }
  }
  // Backward's span per step.
  std::map<int, std::pair<int64_t, int64_t>> backward;
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (step_of[i] < 0 || !starts_with(ranges[i].name, backward_prefix)) continue;
    auto [it, fresh] = backward.try_emplace(step_of[i], ranges[i].start_ns, ranges[i].end_ns);
    if (!fresh) {
      it->second.first = std::min(it->second.first, ranges[i].start_ns);
      it->second.second = std::max(it->second.second, ranges[i].end_ns);
    }
  }

  std::vector<std::string> own(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i)
    if (step_of[i] >= 0) own[i] = op_category(ranges[i].name);
  std::map<std::pair<std::string, std::string>, OpTotal> ops;
  std::map<std::pair<std::string, std::string>, std::map<std::string, int64_t>> parents;  // op -> parent -> self ns
  std::map<std::string, int64_t> categories;
  std::stable_sort(steps.begin(), steps.end(), [&](size_t a, size_t b) { return ranges[a].start_ns < ranges[b].start_ns; });
  std::map<int, std::map<std::string, int64_t>> step_categories;
  for (size_t s : steps) {
    ++p.steps;
    p.step_ns += ranges[s].inclusive_ns();
    p.outside_ns += ranges[s].self_ns;
  }
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (step_of[i] < 0) continue;
    const Range& r = ranges[i];
    const Range& top = ranges[static_cast<size_t>(top_of[i])];
    StepPhase phase = StepPhase::forward;
    if (auto it = backward.find(step_of[i]); it != backward.end()) {
      if (top.end_ns <= it->second.first) phase = StepPhase::forward;
      else if (top.start_ns >= it->second.second) phase = StepPhase::after_backward;
      else phase = StepPhase::backward;
    }
    std::string category = own[i];
    if (phase == StepPhase::after_backward) {
      category = "optimizer update";
    } else if (generic(category)) {
      for (int a = r.parent; a >= 0 && static_cast<size_t>(a) != static_cast<size_t>(step_of[i]);
           a = ranges[static_cast<size_t>(a)].parent) {
        const std::string& lender = own[static_cast<size_t>(a)];
        if (generic(lender)) continue;
        if (lends_category(lender)) category = lender;
        break;
      }
    }
    p.op_ns += r.self_ns;
    p.phase_ns[static_cast<int>(phase)] += r.self_ns;
    categories[category] += r.self_ns;
    step_categories[step_of[i]][category] += r.self_ns;
    OpTotal& op = ops[{r.name, category}];
    op.name = r.name;
    op.category = category;
    op.self_ns += r.self_ns;
    ++op.calls;
    const bool top_level = r.parent < 0 || r.parent == step_of[i];
    parents[{r.name, category}][top_level ? "" : ranges[static_cast<size_t>(r.parent)].name] += r.self_ns;
  }
  for (auto& [key, op] : ops) {
    int64_t most = -1;
    for (const auto& [parent, ns] : parents[key])
      if (ns > most) most = ns, op.parent = parent;
  }
  const auto sorted = [](const std::map<std::string, int64_t>& totals) {
    std::vector<CategoryTotal> out;
    for (const auto& [name, ns] : totals) out.push_back({name, ns});
    std::stable_sort(out.begin(), out.end(), [](const CategoryTotal& a, const CategoryTotal& b) { return a.self_ns > b.self_ns; });
    return out;
  };
  p.categories = sorted(categories);
  for (size_t s : steps) p.per_step.push_back({ranges[s].inclusive_ns(), sorted(step_categories[static_cast<int>(s)])});
  for (auto& [key, op] : ops) p.ops.push_back(std::move(op));
  std::stable_sort(p.ops.begin(), p.ops.end(), [](const OpTotal& a, const OpTotal& b) { return a.self_ns > b.self_ns; });
  return p;
}

}  // namespace pperf
