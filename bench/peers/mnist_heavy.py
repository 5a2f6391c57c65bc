#!/usr/bin/python3
"""PyTorch eager peer of pperf's mnist_heavy workload, for side-by-side benchmarks (not tests).

The seed's job as PyTorch users run it: torchvision transforms per sample (ToTensor, Normalize,
GaussianBlur 11 with sigma in (0.1, 2.0)), a DataLoader with worker processes, the MNIST CNN,
Adadelta, NLL loss. A step is timed as pperf times it: waiting for the batch + the training step.
Prints one JSON line. Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision).
"""
import argparse, json, os, statistics, sys, time

import torch
import torch.nn as nn
import torch.nn.functional as F

# The seed's torchvision chain over Fashion-MNIST: the same Dataset users serve with pperf-data-worker.py.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "examples"))
from fashion_mnist_heavy import make as fashion_mnist_heavy  # noqa: E402


class Net(nn.Module):
    def __init__(self, c1=32, c2=64, hidden=128):
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(1, c1, 3), nn.Conv2d(c1, c2, 3)
        self.dropout1, self.dropout2 = nn.Dropout(0.25), nn.Dropout(0.5)
        self.fc1, self.fc2 = nn.Linear(c2 * 144, hidden), nn.Linear(hidden, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv2(F.relu(self.conv1(x)))), 2)
        x = F.relu(self.fc1(torch.flatten(self.dropout1(x), 1)))
        return F.log_softmax(self.fc2(self.dropout2(x)), dim=1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--preset", default="full", choices=["full", "tiny"])
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--compile", action="store_true", help="torch.compile the model (torch 2.x): the step a user who compiles sees")
    p.add_argument("--data-dir", default="/usr/share/datasets/fashion-mnist")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    loader = torch.utils.data.DataLoader(fashion_mnist_heavy(a.data_dir, "train"), batch_size=a.batch_size,
                                         shuffle=True, num_workers=a.workers, drop_last=True,
                                         persistent_workers=a.workers > 0)
    model = Net() if a.preset == "full" else Net(8, 16, 32)
    if a.compile:
        model = torch.compile(model)
    optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
    model.train()
    times, waits = [], []
    it = iter(loader)
    for step in range(a.warmup + a.steps):
        start = time.perf_counter()
        images, labels = next(it)
        got = time.perf_counter()
        optimizer.zero_grad()
        F.nll_loss(model(images), labels).backward()
        optimizer.step()
        end = time.perf_counter()
        if step >= a.warmup:
            times.append((end - start) * 1e3)
            waits.append((got - start) * 1e3)
    print(json.dumps({"workload": "mnist_heavy", "preset": a.preset, "batch_size": a.batch_size,
                      "threads": a.threads, "workers": a.workers,
                      "step_ms_median": statistics.median(times),
                      "compute_ms_median": statistics.median([t - w for t, w in zip(times, waits)]),
                      "data_wait_fraction": sum(waits) / sum(times), "step_ms_all": times}))


if __name__ == "__main__":
    main()
