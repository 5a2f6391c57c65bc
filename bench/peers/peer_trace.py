"""The peers' side of `pperf run --trace`: a few steps after the timed ones, each a range
"ProfilerStep#N" around the whole step (as pperf's runner marks its steps), under
torch.profiler (Kineto: CPU operators, and on a GPU its kernels, copies and launches), written
as a Chrome trace. bench/compare_traces.py reads it beside pperf's."""
import torch


def trace_steps(step, path, first_index, steps=5, before=2, cuda=False):
    """Runs `before` un-traced steps, then `steps` traced ones numbered from first_index; writes
    the trace to `path`. `step` must end with the device's synchronize, as the timed steps do."""
    for _ in range(before):
        step()
    activities = [torch.profiler.ProfilerActivity.CPU]
    if cuda:
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    with torch.profiler.profile(activities=activities) as prof:
        for i in range(steps):
            with torch.profiler.record_function(f"ProfilerStep#{first_index + before + i}"):
                step()
    prof.export_chrome_trace(path)
