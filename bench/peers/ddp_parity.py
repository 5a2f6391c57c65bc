#!/usr/bin/env python3
"""PyTorch's own DistributedDataParallel beside pperf's data-parallel ranks, on Gloo and the CPU.

  make-model OUT              the parity model (TorchScript): BatchNorm buffers, and layers whose
                              gradients pass DDP's 1 MiB first bucket, so buckets get re-cut.
  check --model M --dump DIR  replays the batches pperf's ranks dumped (PPERF_DDP_DUMP=DIR) under
                              DDP, one process per rank, from the same TorchScript file, and
                              compares each step's bucket layout, averaged gradients, buffers
                              and loss with pperf's. Exit 0 when they agree, 3 when they do not.
  time --model M ...          median step time of DDP on 2 Gloo ranks (1 thread, 1 CPU each),
                              one JSON line (bench/ddp_parity.sh divides pperf's by it).

Run it with the torch pperf was built against (the 2.x venv): the same kernels, so the
gradients agree to float rounding at most.
"""
import argparse
import glob
import json
import os
import socket
import statistics
import sys
import time
import warnings

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

warnings.filterwarnings("ignore", category=FutureWarning)  # torch.jit's deprecation notices


def make_model(out):
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(64, 256), torch.nn.BatchNorm1d(256), torch.nn.ReLU(),
        torch.nn.Linear(256, 1024), torch.nn.ReLU(),   # 1 MiB of weights
        torch.nn.Linear(1024, 256), torch.nn.ReLU(),   # 1 MiB
        torch.nn.Linear(256, 10))
    torch.jit.script(model).save(out)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def join(rank, world, port, threads=1):
    torch.set_num_threads(threads)
    if hasattr(os, "sched_setaffinity") and os.cpu_count() >= world:
        os.sched_setaffinity(0, {rank})  # as pperf's spawn_local with cpus_per_rank 1
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)


def load(path, optimizer, lr):
    model = torch.jit.load(path, map_location="cpu").train()
    params = [p for p in model.parameters() if p.requires_grad]  # pperf's torchscript order
    if optimizer == "sgd":
        opt = torch.optim.SGD(params, lr=lr, momentum=0.9)
    else:
        opt = torch.optim.Adam(params, lr=lr)
    return model, params, opt


def bucket_layout(ddp, params):
    index = {p.data_ptr(): i for i, p in enumerate(params)}
    return [[index[p.data_ptr()] for p in b.parameters()] for b in ddp.reducer._get_zeros_like_grad_buckets()]


def replay(rank, world, port, args):
    join(rank, world, port)
    model, params, opt = load(args.model, args.optimizer, args.lr)
    ddp = DDP(model)  # DDP's defaults: 25 MiB buckets, 1 MiB first, buffers broadcast every forward
    steps = [json.loads(line) for line in open(os.path.join(args.dump, f"rank{rank}.jsonl"))]
    out = []
    for s in steps:
        x = torch.tensor(s["inputs"], dtype=torch.float32).reshape(s["inputs_shape"])
        y = torch.tensor(s["targets"], dtype=torch.int64)
        opt.zero_grad()
        loss = F.cross_entropy(ddp(x), y)
        loss.backward()
        opt.step()
        out.append({"step": s["step"], "loss": loss.item(), "buckets": bucket_layout(ddp, params),
                    "grads": [p.grad.reshape(-1).tolist() for p in params],
                    "buffers": [b.reshape(-1).tolist() for b in model.buffers()]})
    with open(os.path.join(args.dump, f"ddp_rank{rank}.json"), "w") as f:
        json.dump(out, f)
    dist.destroy_process_group()


def max_diff(a, b):
    if len(a) != len(b):
        return float("inf")
    worst = 0.0
    for x, y in zip(a, b):
        if x is None or y is None or len(x) != len(y):
            return float("inf")
        t = torch.tensor(x, dtype=torch.float64) - torch.tensor(y, dtype=torch.float64)
        worst = max(worst, t.abs().max().item() if t.numel() else 0.0)
    return worst


def check(args):
    world = len(glob.glob(os.path.join(args.dump, "rank*.jsonl")))
    if world < 2:
        sys.exit(f"ddp_parity: {args.dump} holds {world} rank dumps, need 2 or more")
    mp.spawn(replay, args=(world, free_port(), args), nprocs=world)
    failures = []
    for rank in range(world):
        ours = [json.loads(line) for line in open(os.path.join(args.dump, f"rank{rank}.jsonl"))]
        theirs = json.load(open(os.path.join(args.dump, f"ddp_rank{rank}.json")))
        for o, t in zip(ours, theirs):
            g, b = max_diff(o["grads"], t["grads"]), max_diff(o["buffers"], t["buffers"])
            same_buckets = o["buckets"] == t["buckets"]
            print(f"rank {rank} step {o['step']}: buckets {'same' if same_buckets else 'DIFFER'} "
                  f"{[len(x) for x in o['buckets']]}, gradients max |diff| {g:.3g}, "
                  f"buffers max |diff| {b:.3g}, loss {o['loss']:.6f} / {t['loss']:.6f}")
            if not same_buckets:
                failures.append(f"rank {rank} step {o['step']}: buckets pperf {o['buckets']} DDP {t['buckets']}")
            if g > args.tolerance or b > args.tolerance or abs(o["loss"] - t["loss"]) > args.tolerance:
                failures.append(f"rank {rank} step {o['step']}: gradients {g:.3g}, buffers {b:.3g} past {args.tolerance}")
    if not ours or len(ours) != len(theirs):
        failures.append("no steps compared")
    for f in failures:
        print("MISMATCH " + f)
    sys.exit(3 if failures else 0)


def timed(rank, world, port, args, results):
    join(rank, world, port, args.threads)
    model, params, opt = load(args.model, args.optimizer, args.lr)
    ddp = DDP(model)
    torch.manual_seed(rank)
    x = torch.randn(args.batch_size, *args.input_shape)
    y = torch.arange(args.batch_size) % args.classes

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(ddp(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    for _ in range(args.warmup):
        step()
    times = []
    for _ in range(args.steps):
        dist.barrier()  # pperf's ranks also agree after each step, outside the timed step
        t0 = time.perf_counter()
        step()
        times.append((time.perf_counter() - t0) * 1000.0)
    results[rank] = statistics.median(times)
    dist.destroy_process_group()


def time_ddp(args):
    results = mp.Manager().dict()
    mp.spawn(timed, args=(args.world, free_port(), args, results), nprocs=args.world)
    print(json.dumps({"world_size": args.world, "batch_size": args.batch_size, "threads": args.threads,
                      "step_ms_median": results[0], "rank_medians_ms": [results[r] for r in range(args.world)]}))


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make-model")
    m.add_argument("out")
    for name in ("check", "time"):
        p = sub.add_parser(name)
        p.add_argument("--model", required=True)
        p.add_argument("--optimizer", default="sgd", choices=["adam", "sgd"])
        p.add_argument("--lr", type=float, default=0.01)
    c = sub.choices["check"]
    c.add_argument("--dump", required=True)
    c.add_argument("--tolerance", type=float, default=1e-6)
    t = sub.choices["time"]
    t.add_argument("--input-shape", type=int, nargs="+", default=[64])
    t.add_argument("--classes", type=int, default=10)
    t.add_argument("--batch-size", type=int, default=32)
    t.add_argument("--threads", type=int, default=1)
    t.add_argument("--world", type=int, default=2)
    t.add_argument("--steps", type=int, default=50)
    t.add_argument("--warmup", type=int, default=5)
    args = ap.parse_args()
    if args.command == "make-model":
        make_model(args.out)
    elif args.command == "check":
        check(args)
    else:
        time_ddp(args)


if __name__ == "__main__":
    main()
