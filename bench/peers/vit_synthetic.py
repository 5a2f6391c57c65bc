#!/usr/bin/python3
"""PyTorch eager peer of pperf's `vit_synthetic` workload: the same Vision Transformer (timm's
VisionTransformer layout, written here in torch.nn), Adam, cross-entropy, optional bf16 CPU
autocast around forward + loss. Times only the training step on one fixed pre-made batch.

  /usr/bin/python3 bench/peers/vit_synthetic.py --preset tiny --batch-size 64 --threads 2 \
      --steps 20 --warmup 3 [--precision bf16]

Prints one JSON line with the median step time in ms.
"""
import argparse
import contextlib
import json
import statistics
import time

import torch
from torch import nn

# name: (image, patch, dim, depth, heads, mlp, classes) -- as in workloads/vit_synthetic
PRESETS = {
    "base": (224, 16, 768, 12, 12, 3072, 1000),
    "small": (224, 16, 384, 12, 6, 1536, 1000),
    "tiny": (32, 8, 64, 2, 2, 128, 10),
}


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).reshape(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        attn = ((q * self.scale) @ k.transpose(-2, -1)).softmax(-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    def __init__(self, dim, heads, mlp):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, eps=1e-6)
        self.attn = Attention(dim, heads)
        self.norm2 = nn.LayerNorm(dim, eps=1e-6)
        self.fc1 = nn.Linear(dim, mlp)
        self.fc2 = nn.Linear(mlp, dim)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.fc2(nn.functional.gelu(self.fc1(self.norm2(x))))


class VisionTransformer(nn.Module):
    def __init__(self, image, patch, dim, depth, heads, mlp, classes):
        super().__init__()
        tokens = (image // patch) ** 2 + 1
        self.patch_embed = nn.Conv2d(3, dim, patch, stride=patch)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim).normal_(std=1e-6))
        self.pos_embed = nn.Parameter(nn.init.trunc_normal_(torch.zeros(1, tokens, dim), std=0.02))
        self.blocks = nn.Sequential(*[Block(dim, heads, mlp) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.head = nn.Linear(dim, classes)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                nn.init.zeros_(m.bias)

    def forward(self, images):
        x = self.patch_embed(images).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embed
        return self.head(self.norm(self.blocks(x))[:, 0])


class SyntheticBatches(torch.utils.data.IterableDataset):
    """Endless fresh batches of standard-normal images, as vit_synthetic's loader makes them."""

    def __init__(self, batch, image, classes):
        self.batch, self.image, self.classes = batch, image, classes

    def __iter__(self):
        torch.set_num_threads(1)
        while True:
            yield torch.randn(self.batch, 3, self.image, self.image), torch.randint(0, self.classes, (self.batch,))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--preset", default="tiny", choices=sorted(PRESETS))
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--compile", action="store_true", help="torch.compile the model (torch 2.x): the step a user who compiles sees")
    ap.add_argument("--precision", default="fp32", choices=["fp32", "bf16"])
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--device", default="cpu", help="cpu, or cuda: the batch is copied from pinned memory each step, "
                    "as DataLoader(pin_memory=True) feeds a GPU job, and the step ends in a synchronize")
    ap.add_argument("--fresh-batches", action="store_true", help="a fresh batch per step from a DataLoader")
    ap.add_argument("--workers", type=int, default=1, help="--fresh-batches: DataLoader worker processes")
    ap.add_argument("--prefetch-batches", type=int, default=4, help="--fresh-batches: batches ready ahead, in all")
    ap.add_argument("--trace", metavar="FILE", help="after the timed steps, trace 5 more (peer_trace.py) into FILE")
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    image, patch, dim, depth, heads, mlp, classes = PRESETS[args.preset]
    device = torch.device(args.device)
    model = VisionTransformer(image, patch, dim, depth, heads, mlp, classes).to(device).train()
    if args.compile:
        model = torch.compile(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()
    x_host = torch.randn(args.batch_size, 3, image, image)
    y_host = torch.arange(args.batch_size) % classes
    if device.type == "cuda":
        x_host, y_host = x_host.pin_memory(), y_host.pin_memory()

    batches = None
    if args.fresh_batches:
        batches = iter(torch.utils.data.DataLoader(
            SyntheticBatches(args.batch_size, image, classes), batch_size=None, num_workers=args.workers,
            pin_memory=device.type == "cuda", prefetch_factor=max(1, args.prefetch_batches // args.workers)))

    def step():
        xh, yh = next(batches) if batches is not None else (x_host, y_host)
        x = xh.to(device, non_blocking=True)
        y = yh.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        ctx = (torch.autocast(device.type, dtype=torch.bfloat16) if args.precision == "bf16"
               else contextlib.nullcontext())
        with ctx:
            loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    for _ in range(args.warmup):
        step()
    times = []
    for _ in range(args.steps):
        t0 = time.perf_counter()
        step()
        times.append((time.perf_counter() - t0) * 1000.0)
    if args.trace:
        from peer_trace import trace_steps
        trace_steps(step, args.trace, args.warmup + args.steps + 1, cuda=device.type == "cuda")
    print(json.dumps({
        "workload": "vit_synthetic", "preset": args.preset, "batch_size": args.batch_size,
        "threads": args.threads, "precision": args.precision, "device": args.device, "fresh_batches": args.fresh_batches,
        "params": sum(p.numel() for p in model.parameters() if p.requires_grad),
        "step_ms_median": statistics.median(times), "step_ms_all": times,
    }))


if __name__ == "__main__":
    main()
