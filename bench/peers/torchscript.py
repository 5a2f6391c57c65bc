#!/usr/bin/python3
"""PyTorch peer of pperf's `torchscript` workload: loads the same TorchScript file and trains it
on a fixed pre-made N(0, 1) batch of the given per-sample shape, labels index % classes,
cross-entropy, Adam (or SGD with momentum 0.9). Times only the training step.

  /usr/bin/python3 bench/peers/torchscript.py --path tests/data/tiny_mlp.pt --input-shape 64 \
      --classes 10 --batch-size 32 --threads 2 --steps 50 --warmup 5

Prints one JSON line with the median step time in ms.
"""
import argparse
import json
import statistics
import time

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--preset", default="default", choices=["default"])
    ap.add_argument("--path", required=True)
    ap.add_argument("--input-shape", type=int, nargs="+", required=True, help="per-sample shape, e.g. 3 32 32")
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--optimizer", default="adam", choices=["adam", "sgd"])
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = torch.jit.load(args.path, map_location="cpu").train()
    params = [p for p in model.parameters() if p.requires_grad]
    if args.optimizer == "sgd":
        optimizer = torch.optim.SGD(params, lr=args.lr, momentum=0.9)
    else:
        optimizer = torch.optim.Adam(params, lr=args.lr)
    x = torch.randn(args.batch_size, *args.input_shape)
    y = torch.arange(args.batch_size) % args.classes

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        return loss.item()

    for _ in range(args.warmup):
        step()
    times = []
    for _ in range(args.steps):
        t0 = time.perf_counter()
        step()
        times.append((time.perf_counter() - t0) * 1000.0)
    print(json.dumps({
        "workload": "torchscript", "preset": args.preset, "batch_size": args.batch_size,
        "threads": args.threads, "params": sum(p.numel() for p in params),
        "step_ms_median": statistics.median(times), "step_ms_all": times,
    }))


if __name__ == "__main__":
    main()
