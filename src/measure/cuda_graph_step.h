#pragma once
// execution.cuda_graphs: a workload's step captured once as a CUDA graph and replayed every
// step after, so the CPU launches one graph instead of every kernel (what torch.cuda.graphs and
// torch.compile(mode="reduce-overhead") do for a Python step). Only for workloads declaring
// static_shapes (WorkloadCapabilities): each batch is copied into the captured step's own input
// tensors, so every batch must have the captured shapes. The config refuses it on the CPU, with
// ranks, and for other workloads (src/config/config.cpp), before anything runs.
#include <memory>
#include <string>

#include "src/measure/device.h"
#include "workloads/workload.h"

namespace pperf {

/// Un-captured steps on a side stream before the capture (the optimizer's state, cuBLAS'
/// workspaces and the allocator's blocks made, as torch.cuda.graphs asks).
constexpr int kStepsBeforeCapture = 3;

/// `workload` wrapped so that its first train_step runs kStepsBeforeCapture steps, captures
/// one (its graphable_step), and replays it; every later step copies its batch into the
/// captured inputs and replays. A step whose batch shapes differ from the captured ones throws.
/// Throws std::runtime_error on a libtorch without CUDA or a device that is not CUDA.
std::unique_ptr<Workload> capture_cuda_graph(std::unique_ptr<Workload> workload, const Device& device);

/// What a result says of it: how the step was run, and what a replay cannot change.
std::string cuda_graph_event();

}  // namespace pperf
