#!/usr/bin/python3
"""Throughput of pperf-data-worker.py against a local torch DataLoader over the same Dataset,
the same batch indices and the same number of worker processes, measured side by side
(rounds in one run, the worker first in even rounds and the loader first in odd ones). Prints every
round's batches/s of each, their ratio (target >= 0.8) and the host's load (bench/rounds.py), the
median ratio with min..max and the busy rounds, and the bytes/s the worker delivers over gRPC. Not a
test: a benchmark to read.

  /usr/bin/python3 bench/python_worker_throughput.py --build build --workers 2 --batches 40
"""
from __future__ import annotations

import argparse
import importlib
import os
import statistics
import subprocess
import sys
import time
from typing import Any, Iterator, List

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--dataset", default="fashion_mnist_heavy:make")
    p.add_argument("--python-path", default=os.path.join(ROOT, "python", "examples"))
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--batches", type=int, default=40, help="per round")
    p.add_argument("--rounds", type=int, default=5)
    a = p.parse_args()
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import rounds
    sys.path.insert(0, a.build)
    sys.path.insert(0, a.python_path)
    import grpc
    import torch
    import data_service_pb2 as pb2  # type: ignore

    spec = importlib.util.spec_from_file_location("pperf_data_worker", os.path.join(a.build, "pperf-data-worker.py"))
    worker = importlib.util.module_from_spec(spec)
    sys.modules["pperf_data_worker"] = worker
    spec.loader.exec_module(worker)  # type: ignore
    module, _, factory = a.dataset.partition(":")
    dataset = getattr(importlib.import_module(module), factory)()
    n = len(dataset)

    proc = subprocess.Popen(["/usr/bin/python3", os.path.join(a.build, "pperf-data-worker.py"), "--dataset", a.dataset,
                             "--python-path", a.python_path, "--batch-size", str(a.batch_size),
                             "--workers", str(a.workers), "--prefetch-batches", str(2 * a.workers)],
                            stdout=subprocess.PIPE, text=True)
    endpoint = proc.stdout.readline().rsplit(" ", 1)[-1].strip()
    channel = grpc.insecure_channel(endpoint, options=[("grpc.max_receive_message_length", 1 << 30)])
    stream = channel.unary_stream("/pperf.dataservice.DataService/StreamBatches", pb2.StreamRequest.SerializeToString,
                                  pb2.BatchMessage.FromString)
    request = pb2.StreamRequest(handshake=pb2.HandshakeRequest(
        schema_version=1, dataset=a.dataset, workload=pb2.WorkloadRequest(batch_size=a.batch_size, seed=0)),
        first_index=0, stride=1)

    class Sampler:
        def __iter__(self) -> Iterator[List[int]]:
            b = 0
            while True:
                yield worker.batch_indices(b, n, a.batch_size, 0)
                b += 1

    def round_worker() -> tuple:
        call = stream(request)
        next(call)  # streams start their prefetch: time from the first batch on
        start, size = time.perf_counter(), 0
        for _ in range(a.batches):
            m = next(call)
            size += len(m.inputs.data) + len(m.targets.data)
        elapsed = time.perf_counter() - start
        call.cancel()
        return a.batches / elapsed, size / elapsed

    def round_loader() -> float:
        loader = torch.utils.data.DataLoader(dataset, batch_sampler=Sampler(), num_workers=a.workers,
                                             prefetch_factor=2)
        it = iter(loader)
        next(it)
        start = time.perf_counter()
        for _ in range(a.batches):
            next(it)
        elapsed = time.perf_counter() - start
        del it
        return a.batches / elapsed

    def measured(part):
        with rounds.Load() as load:
            value = part()
        return value, load.result

    rows, bps = [], []
    try:
        for r in range(a.rounds):
            order = [round_worker, round_loader] if r % 2 == 0 else [round_loader, round_worker]
            got = {part: measured(part) for part in order}
            (rate, byte_rate), worker_load = got[round_worker]
            loader_rate, loader_load = got[round_loader]
            bps.append(byte_rate)
            rows.append({"a": rate, "b": loader_rate, **rounds.merge([worker_load, loader_load])})
    finally:
        proc.terminate()
        proc.wait(10)
    rounds.report(f"dataset {a.dataset}, batch {a.batch_size}, {a.workers} worker processes, {a.batches} batches a round;"
                  " target >= 0.8x", rows, "pperf-data-worker.py", "DataLoader", "batches/s")
    print(f"pperf-data-worker.py delivers {statistics.median(bps) / 1e6:.1f} MB/s over gRPC (median of the rounds)")


if __name__ == "__main__":
    main()
