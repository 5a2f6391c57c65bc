#!/usr/bin/python3
"""PyTorch eager peer of pperf's resnet50_augment model step (benchmark, not a test): the same
ResNet (torchvision v1.5 bottleneck layout with the preset's stem/widths/blocks), SGD with
momentum, cross-entropy, timing the training step on one fixed batch; with --fresh-batches,
every step trains on a freshly augmented batch from a DataLoader (--workers processes, the
augmentation of bench/peers/augment_torchvision.py: the work pperf's loader does beside each
step) and its time includes the wait for that batch. Prints one JSON line."""
import argparse, json, statistics, time

import torch
import torch.nn as nn
import torch.nn.functional as F

# preset: (stem, widths, blocks, side, classes)
PRESETS = {"full": (64, (64, 128, 256, 512), (3, 4, 6, 3), 224, 1000),
           "cifar": (64, (64, 128, 256, 512), (3, 4, 6, 3), 32, 10),
           "tiny": (8, (8, 16, 32, 64), (1, 1, 1, 1), 32, 10)}


class Bottleneck(nn.Module):
    def __init__(self, cin, width, stride):
        super().__init__()
        out = width * 4
        self.c1, self.b1 = nn.Conv2d(cin, width, 1, bias=False), nn.BatchNorm2d(width)
        self.c2, self.b2 = nn.Conv2d(width, width, 3, stride, 1, bias=False), nn.BatchNorm2d(width)
        self.c3, self.b3 = nn.Conv2d(width, out, 1, bias=False), nn.BatchNorm2d(out)
        self.down = (nn.Sequential(nn.Conv2d(cin, out, 1, stride, bias=False), nn.BatchNorm2d(out))
                     if stride != 1 or cin != out else None)

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        y = F.relu(self.b2(self.c2(y)))
        y = self.b3(self.c3(y))
        return F.relu(y + (self.down(x) if self.down is not None else x))


class ResNet(nn.Module):
    def __init__(self, stem, widths, blocks, classes):
        super().__init__()
        self.conv, self.bn = nn.Conv2d(3, stem, 7, 2, 3, bias=False), nn.BatchNorm2d(stem)
        layers, cin = [], stem
        for stage, (width, n) in enumerate(zip(widths, blocks)):
            for b in range(n):
                layers.append(Bottleneck(cin, width, 2 if stage > 0 and b == 0 else 1))
                cin = width * 4
        self.layers, self.fc = nn.Sequential(*layers), nn.Linear(cin, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.conv(x))), 3, 2, 1)
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(self.layers(x), 1), 1))


class AugmentedBatches(torch.utils.data.IterableDataset):
    """Endless batches of uint8 images through resnet50_augment's chain, as float inputs."""

    def __init__(self, batch, side, classes):
        self.batch, self.side, self.classes = batch, side, classes

    def __iter__(self):
        from augment_torchvision import resnet_augment_chain  # beside this file
        torch.set_num_threads(1)
        chain = resnet_augment_chain()
        images = torch.randint(0, 256, (256, 3, self.side, self.side), dtype=torch.uint8)
        i = 0
        while True:
            x = torch.stack([chain(images[(i + k) % 256]) for k in range(self.batch)])
            i += self.batch
            yield x, torch.randint(0, self.classes, (self.batch,))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--preset", default="tiny", choices=list(PRESETS))
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--device", default="cpu", help="cpu, or cuda: the batch is copied from pinned memory each step, "
                   "as DataLoader(pin_memory=True) feeds a GPU job, and the step ends in a synchronize")
    p.add_argument("--compile", action="store_true", help="torch.compile the model (torch 2.x): the step a user who compiles sees")
    p.add_argument("--fresh-batches", action="store_true", help="a freshly augmented batch per step from a DataLoader")
    p.add_argument("--workers", type=int, default=1, help="--fresh-batches: DataLoader worker processes")
    p.add_argument("--prefetch-batches", type=int, default=4, help="--fresh-batches: batches ready ahead, in all")
    p.add_argument("--trace", metavar="FILE", help="after the timed steps, trace 5 more (peer_trace.py) into FILE")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    stem, widths, blocks, side, classes = PRESETS[a.preset]
    device = torch.device(a.device)
    model = ResNet(stem, widths, blocks, classes).to(device).train()
    if a.compile:
        model = torch.compile(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x_host = torch.rand(a.batch_size, 3, side, side)
    y_host = torch.randint(0, classes, (a.batch_size,))
    if device.type == "cuda":
        x_host, y_host = x_host.pin_memory(), y_host.pin_memory()
    batches = None
    if a.fresh_batches:
        loader = torch.utils.data.DataLoader(AugmentedBatches(a.batch_size, side, classes), batch_size=None,
                                             num_workers=a.workers, pin_memory=device.type == "cuda",
                                             prefetch_factor=max(1, a.prefetch_batches // a.workers))
        batches = iter(loader)
    fixed = (x_host, y_host)

    def one_step():
        xh, yh = next(batches) if batches is not None else fixed
        x, y = xh.to(device, non_blocking=True), yh.to(device, non_blocking=True)
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    times = []
    for step in range(a.warmup + a.steps):
        start = time.perf_counter()
        one_step()
        if step >= a.warmup:
            times.append((time.perf_counter() - start) * 1e3)
    if a.trace:
        from peer_trace import trace_steps
        trace_steps(one_step, a.trace, a.warmup + a.steps + 1, cuda=device.type == "cuda")
    print(json.dumps({"workload": "resnet50_augment", "preset": a.preset, "batch_size": a.batch_size,
                      "threads": a.threads, "device": a.device, "fresh_batches": a.fresh_batches, "params": sum(p.numel() for p in model.parameters()),
                      "step_ms_median": statistics.median(times), "step_ms_all": times}))


if __name__ == "__main__":
    main()
