#!/usr/bin/python3
"""pperf-data-worker.py: serves batches of any PyTorch Dataset over pperf's data-service protocol.

The contract (handshake, declared tensors, batch indices, token, limits, shutdown) is
docs/data-protocol.md. `--dataset module:factory` names a function returning a map-style
Dataset whose samples are (inputs, targets); `--dataloader module:factory` one returning a
torch DataLoader over such a Dataset, whose collate_fn and worker_init_fn are kept and whose
sampler pperf's deterministic batch indices replace. `--workers N` preprocessing processes
build the batches. Needs Debian's python3-grpcio, python3-protobuf and python3-torch; run it with
/usr/bin/python3. Exit codes: 0 after Shutdown/SIGTERM, 2 for a configuration mistake (the
module, the factory, the first sample, flags), 1 when a preprocessing process dies.
"""
from __future__ import annotations

import argparse
import ctypes
import hmac
import importlib
import ipaddress
import json
import multiprocessing as mp
import os
import queue
import signal
import socket
import sys
import threading
import time
from concurrent import futures
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

SCHEMA_VERSION = 1
MAX_REQUEST_BYTES = 64 * 1024      # requests are small: larger ones are refused unparsed
MAX_BATCH_INDEX = 1 << 40
STOP_DEADLINE_S = 4.0              # from SIGTERM / Shutdown to exit, at most
POLL_S = 0.1                       # how often a waiting stream looks at cancellation and shutdown


class StartupError(Exception):
    """A configuration mistake, reported as one line; exit 2."""


def load_pb2() -> Any:
    """The protobuf classes protoc generated at build time: next to this script (a build
    directory), in ../share/pperf/python (an install) or $PPERF_PROTO_PYTHON_DIR."""
    here = os.path.dirname(os.path.abspath(__file__))
    places = [here, os.path.join(here, "..", "share", "pperf", "python")]
    if os.environ.get("PPERF_PROTO_PYTHON_DIR"):
        places.insert(0, os.environ["PPERF_PROTO_PYTHON_DIR"])
    for place in places:
        if os.path.isfile(os.path.join(place, "data_service_pb2.py")):
            sys.path.insert(0, os.path.abspath(place))
            import data_service_pb2  # type: ignore
            return data_service_pb2
    raise StartupError("data_service_pb2.py not found in " + ", ".join(places) +
                       " (the build generates it next to pperf; run the built or installed copy)")


# --- the dataset -------------------------------------------------------------------------------

DTYPES = {"float32": "float32", "int64": "int64", "int32": "int32", "uint8": "uint8", "bfloat16": "bfloat16"}


@dataclass(frozen=True)
class TensorDecl:
    name: str
    dtype: str
    shape: Tuple[int, ...]

    def describe(self) -> str:
        return f"{self.dtype}[{','.join(str(d) for d in self.shape)}]"


def load_factory(flag: str, spec: str, python_path: Sequence[str]) -> Callable[..., Any]:
    module_name, colon, attr = spec.partition(":")
    if not colon or not module_name or not attr:
        raise StartupError(f"{flag}: expected module:factory, got '{spec}'")
    for p in reversed([p for p in python_path if p]):
        sys.path.insert(0, p)
    try:
        module = importlib.import_module(module_name)
    except Exception as e:  # any import-time failure is the module's, reported as one line
        raise StartupError(f"{flag} {spec}: module '{module_name}' does not import: {type(e).__name__}: {e}")
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise StartupError(f"{flag} {spec}: module '{module_name}' has no function '{attr}'")
    return factory


def to_tensor(value: Any) -> "torch.Tensor":
    import torch
    return value if isinstance(value, torch.Tensor) else torch.as_tensor(value)


def dtype_name(t: "torch.Tensor") -> str:
    name = str(t.dtype).replace("torch.", "")
    if name not in DTYPES:
        raise ValueError(f"dtype {name} is not on the wire (float32, int64, int32, uint8, bfloat16)")
    return name


def declare(pair: Any, what: str = "a sample", batched: bool = False) -> List[TensorDecl]:
    """What one sample holds: (inputs, targets), each a tensor (or a number/array) of a wire dtype.
    `batched`: `pair` is a collated batch and the first dimension (the batch's) is not declared."""
    if not isinstance(pair, (tuple, list)) or len(pair) != 2:
        raise ValueError(f"{what} must be (inputs, targets), got {type(pair).__name__}")
    out = []
    for name, value in zip(("inputs", "targets"), pair):
        t = to_tensor(value)
        if batched and t.dim() == 0:
            raise ValueError(f"{what}: {name} has no batch dimension")
        out.append(TensorDecl(name, dtype_name(t), tuple(t.shape[1:] if batched else t.shape)))
    return out


def check_layout(pair: Any, layout: Sequence[TensorDecl], what: str, batched: bool = False) -> None:
    for want, have in zip(layout, declare(pair, what, batched)):
        if want != have:
            raise ValueError(f"{what}: {want.name} is {have.describe()} per sample, "
                             f"the worker declared {want.describe()} (from batch 0)")


@dataclass(frozen=True)
class Pipeline:
    """The user's input pipeline: a map-style Dataset, and the DataLoader's collate_fn and
    worker_init_fn when it came from --dataloader (None: samples are stacked, no init)."""
    dataset: Any
    collate_fn: Optional[Callable[[List[Any]], Any]] = None
    worker_init_fn: Optional[Callable[[int], None]] = None


def batches_per_epoch(samples: int, batch_size: int) -> int:
    return samples // batch_size


def batch_indices(batch: int, samples: int, batch_size: int, seed: int,
                  cache: Optional[Dict[int, Any]] = None) -> List[int]:
    """Samples of batch `batch`: epoch e = batch // (samples // batch_size) is a permutation
    torch.randperm(samples) drawn from a generator seeded with seed + e; the batch is its
    (batch mod per-epoch)-th slice of batch_size (the last partial slice is dropped)."""
    import torch
    per_epoch = batches_per_epoch(samples, batch_size)
    epoch, k = divmod(batch, per_epoch)
    perm = cache.get(epoch) if cache is not None else None
    if perm is None:
        perm = torch.randperm(samples, generator=torch.Generator().manual_seed((seed + epoch) % (1 << 63)))
        if cache is not None:
            cache.clear()
            cache[epoch] = perm
    return perm[k * batch_size:(k + 1) * batch_size].tolist()


def tensor_bytes(t: "torch.Tensor") -> bytes:
    import torch
    t = t.contiguous()
    return (t.view(torch.int16) if t.dtype == torch.bfloat16 else t).numpy().tobytes()


def collate(pipeline: Pipeline, index: int, indices: Sequence[int], layout: Sequence[TensorDecl]) -> Tuple[Any, Any]:
    """Batch `index` as (inputs, targets) tensors, each checked against `layout`."""
    import torch
    samples = [pipeline.dataset[i] for i in indices]
    if pipeline.collate_fn is None:
        for i, s in zip(indices, samples):
            check_layout(s, layout, f"sample {i}")
        return torch.stack([to_tensor(s[0]) for s in samples]), torch.stack([to_tensor(s[1]) for s in samples])
    batch = pipeline.collate_fn(samples)
    check_layout(batch, layout, f"batch {index} from collate_fn", batched=True)
    inputs, targets = (to_tensor(t) for t in batch)
    if inputs.shape[0] != len(indices) or targets.shape[0] != len(indices):
        raise ValueError(f"batch {index} from collate_fn: {inputs.shape[0]} samples, expected {len(indices)}")
    return inputs, targets


def make_batch(pipeline: Pipeline, index: int, indices: Sequence[int],
               layout: Sequence[TensorDecl], wire: str = "float32") -> Tuple[bytes, bytes, int]:
    import torch
    inputs, targets = collate(pipeline, index, indices, layout)
    if wire == "bf16" and inputs.dtype == torch.float32:
        inputs = inputs.to(torch.bfloat16)  # the last conversion, made here so the wire carries half the bytes
    return tensor_bytes(inputs), tensor_bytes(targets), len(indices)


WIRES = ("float32", "uint8", "bf16")


def on_wire(layout: List[TensorDecl], wire: str) -> List[TensorDecl]:
    """What batches carry on `wire` (docs/data-protocol.md "Wire formats"): float32 sends what the
    dataset yields; uint8 needs uint8 inputs (images before their float conversion, which the
    trainer makes); bf16 sends float32 inputs cast to bfloat16."""
    inputs = next(t for t in layout if t.name == "inputs")
    if wire == "uint8" and inputs.dtype != "uint8":
        raise StartupError(f"--wire uint8: the dataset's inputs are {inputs.describe()}; the uint8 wire sends images "
                           "before their float conversion: yield uint8 inputs (the trainer converts them)")
    if wire == "bf16":
        if inputs.dtype not in ("float32", "bfloat16"):
            raise StartupError(f"--wire bf16: the dataset's inputs are {inputs.describe()}, not float32 or bfloat16")
        return [TensorDecl(t.name, "bfloat16", t.shape) if t.name == "inputs" else t for t in layout]
    return list(layout)


# --- the preprocessing processes -----------------------------------------------------------------

def _die_with_parent() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def pool_main(pipeline: Pipeline, layout: List[TensorDecl], tasks: Any, results: Any, seed: int, worker_id: int,
              wire: str = "float32") -> None:
    import torch
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    torch.set_num_threads(1)
    torch.manual_seed(seed * 1009 + worker_id)  # random augmentations: one stream per process
    if pipeline.worker_init_fn is not None:
        try:
            pipeline.worker_init_fn(worker_id)
        except Exception as e:
            results.put((-1, -1, None, f"worker_init_fn({worker_id}) raised {type(e).__name__}: {e}"))
            return
    while True:
        task = tasks.get()
        if task is None:
            return
        stream_id, index, indices = task
        try:
            results.put((stream_id, index, make_batch(pipeline, index, indices, layout, wire), None))
        except Exception as e:
            results.put((stream_id, index, None, f"batch {index}: {type(e).__name__}: {e}"))


class Pool:
    """N processes making batches from one task queue; results routed to streams by id."""

    def __init__(self, pipeline: Pipeline, layout: List[TensorDecl], workers: int, seed: int,
                 wire: str = "float32") -> None:
        ctx = mp.get_context("fork")  # forked before gRPC starts any thread
        self.tasks = ctx.Queue()
        self.results = ctx.Queue()
        self.procs = [ctx.Process(target=pool_main, args=(pipeline, layout, self.tasks, self.results, seed, i, wire),
                                  daemon=True) for i in range(workers)]
        for p in self.procs:
            p.start()
        self.lock = threading.Condition()
        self.inboxes: Dict[int, Dict[int, Tuple[Any, Optional[str]]]] = {}
        self.failure: Optional[str] = None
        self.stopping = False
        self.router = threading.Thread(target=self._route, daemon=True)
        self.router.start()

    def _route(self) -> None:
        while not self.stopping:
            try:
                stream_id, index, payload, error = self.results.get(timeout=0.5)
            except queue.Empty:
                dead = [p for p in self.procs if p.exitcode is not None]
                if dead and not self.stopping:
                    with self.lock:
                        self.failure = (f"preprocessing process {dead[0].pid} died (exit code {dead[0].exitcode})")
                        self.lock.notify_all()
                    return
                continue
            if stream_id < 0:  # a process that cannot start (worker_init_fn raised)
                with self.lock:
                    self.failure = error
                    self.lock.notify_all()
                return
            with self.lock:
                inbox = self.inboxes.get(stream_id)
                if inbox is not None:
                    inbox[index] = (payload, error)
                    self.lock.notify_all()

    def open(self, stream_id: int) -> None:
        with self.lock:
            self.inboxes[stream_id] = {}

    def close(self, stream_id: int) -> None:
        with self.lock:
            self.inboxes.pop(stream_id, None)

    def submit(self, stream_id: int, index: int, indices: List[int]) -> None:
        self.tasks.put((stream_id, index, indices))

    def take(self, stream_id: int, index: int, timeout: float) -> Optional[Tuple[Any, Optional[str]]]:
        with self.lock:
            self.lock.wait_for(lambda: index in self.inboxes.get(stream_id, {}) or self.failure is not None, timeout)
            if self.failure is not None:
                raise RuntimeError(self.failure)
            return self.inboxes.get(stream_id, {}).pop(index, None)

    def stop(self) -> None:
        self.stopping = True
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.join(1)


# --- the service -------------------------------------------------------------------------------

@dataclass
class Options:
    dataset: str
    dataset_kwargs: Dict[str, Any]
    batch_size: int
    seed: int
    workers: int
    prefetch_batches: int
    max_streams: int
    token: str
    wire: str = "float32"


class Service:
    def __init__(self, pb2: Any, options: Options, samples: int, layout: List[TensorDecl], pool: Pool) -> None:
        self.pb2, self.o, self.samples, self.layout, self.pool = pb2, options, samples, layout, pool
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.active = 0
        self.next_stream = 0

    def _token_ok(self, token: str) -> bool:
        return not self.o.token or hmac.compare_digest(token.encode(), self.o.token.encode())

    def refusal(self, request: Any) -> Optional[Tuple[Any, str]]:
        import grpc
        if not self._token_ok(request.token):
            return grpc.StatusCode.UNAUTHENTICATED, "handshake refused: bad or missing token"
        why = None
        w = request.workload
        if request.schema_version != SCHEMA_VERSION:
            why = f"schema version {request.schema_version}, this worker speaks {SCHEMA_VERSION}"
        elif request.dataset != self.o.dataset:
            asked = f"dataset '{request.dataset[:200]}'" if request.dataset else "the built-in pipeline"
            why = f"{asked} asked for, this worker serves dataset '{self.o.dataset}'"
        elif parse_kwargs(request.dataset_kwargs) != self.o.dataset_kwargs:
            why = (f"dataset_kwargs {request.dataset_kwargs[:200] or '{}'} asked for, this worker's are "
                   f"{json.dumps(self.o.dataset_kwargs, sort_keys=True)}")
        elif w.batch_size != self.o.batch_size:
            why = f"batch size {w.batch_size}, this worker serves {self.o.batch_size}"
        elif w.seed != self.o.seed:
            why = f"seed {w.seed}, this worker uses {self.o.seed}"
        elif (w.wire or "float32") != self.o.wire:
            why = (f"wire {(w.wire or 'float32')[:200]} asked for, this worker sends {self.o.wire} "
                   f"(start it with --wire {(w.wire or 'float32')[:200]}, or set execution.data.wire to {self.o.wire})")
        return (grpc.StatusCode.FAILED_PRECONDITION, "handshake refused: " + why) if why else None

    def handshake(self, request: Any, context: Any) -> Any:
        refused = self.refusal(request)
        if refused:
            context.abort(*refused)
        reply = self.pb2.HandshakeReply(schema_version=SCHEMA_VERSION, preprocessing_threads=self.o.workers,
                                        data_source="python:" + self.o.dataset, data_samples=self.samples,
                                        worker="python")
        for t in self.layout:
            reply.tensors.add(name=t.name, dtype=t.dtype, shape=list(t.shape))
        return reply

    def stream_batches(self, request: Any, context: Any) -> Iterator[Any]:
        import grpc
        refused = self.refusal(request.handshake)
        if refused:
            context.abort(*refused)
        first, stride = request.first_index, request.stride
        if not (0 <= first <= MAX_BATCH_INDEX and 1 <= stride <= MAX_BATCH_INDEX):
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "first_index must be in [0, 2^40] and stride in [1, 2^40]")
        with self.lock:
            if self.active >= self.o.max_streams:
                context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                              f"this data worker already serves {self.o.max_streams} streams (--max-streams)")
            self.active += 1
            stream_id = self.next_stream
            self.next_stream += 1
        self.pool.open(stream_id)
        try:
            yield from self._batches(stream_id, first, stride, context)
        finally:
            self.pool.close(stream_id)
            with self.lock:
                self.active -= 1

    def _batches(self, stream_id: int, first: int, stride: int, context: Any) -> Iterator[Any]:
        import grpc
        cache: Dict[int, Any] = {}
        submitted = waiting = first
        dtypes = {t.name: t.dtype for t in self.layout}
        while context.is_active() and not self.stop.is_set():
            # At most prefetch_batches in flight: a slow trainer slows the worker (back-pressure).
            while (submitted - waiting) // stride < self.o.prefetch_batches and submitted <= MAX_BATCH_INDEX:
                self.pool.submit(stream_id, submitted,
                                 batch_indices(submitted, self.samples, self.o.batch_size, self.o.seed, cache))
                submitted += stride
            try:
                got = self.pool.take(stream_id, waiting, POLL_S)
            except RuntimeError as e:
                context.abort(grpc.StatusCode.UNAVAILABLE, f"data worker failed: {e}")
            if got is None:
                continue
            payload, error = got
            if error:
                context.abort(grpc.StatusCode.FAILED_PRECONDITION, error)
            inputs, targets, n = payload
            msg = self.pb2.BatchMessage(index=waiting)
            msg.inputs.dtype, msg.targets.dtype = dtypes["inputs"], dtypes["targets"]
            msg.inputs.shape.extend((n,) + self.layout[0].shape)
            msg.targets.shape.extend((n,) + self.layout[1].shape)
            msg.inputs.data, msg.targets.data = inputs, targets
            yield msg
            waiting += stride
        if self.stop.is_set():
            context.abort(grpc.StatusCode.UNAVAILABLE, "data worker shutting down")

    def shutdown(self, request: Any, context: Any) -> Any:
        import grpc
        if not self._token_ok(request.token):
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "bad token")
        self.stop.set()
        return self.pb2.ShutdownReply()


def parse_kwargs(text: str) -> Optional[Dict[str, Any]]:
    """A JSON object of keyword arguments ("" is {}); None when `text` is not one."""
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def resolves_to_loopback(host: str) -> bool:
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        found = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError:
        return False
    return bool(found) and all(ipaddress.ip_address(f[4][0].split("%")[0]).is_loopback for f in found)


def parse_listen(listen: str) -> Tuple[str, int]:
    host, colon, port = listen.rpartition(":")
    if not colon or not host or not port.isdigit() or len(port) > 5 or int(port) > 65535:
        raise StartupError(f"--listen: expected HOST:PORT (port 0 picks a free one), got '{listen[:200]}'")
    return host, int(port)


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="pperf-data-worker.py", description=__doc__.split("\n")[0])
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--dataset", help="module:factory returning a map-style Dataset of (inputs, targets)")
    source.add_argument("--dataloader",
                        help="module:factory returning a torch DataLoader over such a Dataset (its collate_fn and "
                             "worker_init_fn are used; pperf picks each batch's samples, --workers the processes)")
    p.add_argument("--dataset-kwargs", default="{}", help="JSON object: keyword arguments of the factory")
    p.add_argument("--python-path", default="", help="':'-separated directories to import the module from")
    p.add_argument("--batch-size", type=int, required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--wire", choices=WIRES, default="float32",
                   help="how batches travel: float32 (as the dataset yields them), uint8 (uint8 images the trainer "
                        "converts), bf16 (float32 inputs cast to bfloat16)")
    p.add_argument("--workers", type=int, default=1, help="preprocessing processes")
    p.add_argument("--prefetch-batches", type=int, default=4, help="batches in flight per stream")
    p.add_argument("--max-streams", type=int, default=8)
    p.add_argument("--listen", default="127.0.0.1:0")
    p.add_argument("--cpus", default="", help="comma-separated CPU ids to pin to")
    p.add_argument("--token-file", default="", help="file holding the token (else $PPERF_DATA_TOKEN)")
    p.add_argument("--tls-cert", default="")
    p.add_argument("--tls-key", default="")
    p.add_argument("--insecure", action="store_true", help="allow plaintext off loopback (token still required)")
    p.add_argument("--check", action="store_true",
                   help="import the module, build the dataset, declare sample 0, print one line and exit (0: fits)")
    p.add_argument("--expect-tensors", default="",
                   help='with --check: JSON [{"name", "dtype", "shape"}] the model takes per sample')
    return p.parse_args(argv)


def source_flag(a: argparse.Namespace) -> Tuple[str, str]:
    """("--dataset", spec) or ("--dataloader", spec): the flag that named the pipeline."""
    return ("--dataloader", a.dataloader) if a.dataloader else ("--dataset", a.dataset)


def unwrap_loader(flag: str, loader: Any, batch_size: int) -> Pipeline:
    """The parts of a DataLoader pperf keeps. Its sampler goes: every worker serves the same
    deterministic batch indices, so a loader that decides its own batches cannot be used."""
    import torch
    if not isinstance(loader, torch.utils.data.DataLoader):
        raise StartupError(f"{flag}: the factory returned a {type(loader).__name__}, not a torch DataLoader")
    if isinstance(loader.dataset, torch.utils.data.IterableDataset):
        raise StartupError(f"{flag}: the DataLoader's dataset is iterable-style: it has no indices for "
                           "pperf's deterministic batches (return a map-style Dataset)")
    if loader.batch_size is None:
        raise StartupError(f"{flag}: the DataLoader has its own batch_sampler: pperf picks each batch's samples "
                           "(give it batch_size instead)")
    if loader.batch_size != batch_size:
        raise StartupError(f"{flag}: the DataLoader's batch_size is {loader.batch_size}, the workload's is {batch_size}")
    return Pipeline(loader.dataset, loader.collate_fn, loader.worker_init_fn)


def load_pipeline(a: argparse.Namespace) -> Tuple[Pipeline, List[TensorDecl]]:
    """The user's pipeline and what every sample of it holds (declared from batch 0)."""
    kwargs = parse_kwargs(a.dataset_kwargs)
    if kwargs is None:
        raise StartupError(f"--dataset-kwargs: expected a JSON object, got '{a.dataset_kwargs[:200]}'")
    flag, spec = source_flag(a)
    factory = load_factory(flag, spec, a.python_path.split(":"))
    what = f"{flag} {spec}"
    try:
        made = factory(**kwargs)
    except Exception as e:
        raise StartupError(f"{what}: the factory raised {type(e).__name__}: {e}")
    pipeline = unwrap_loader(what, made, a.batch_size) if a.dataloader else Pipeline(made)
    try:
        samples = len(pipeline.dataset)
    except Exception as e:
        raise StartupError(f"{what}: the dataset has no length: {type(e).__name__}: {e}")
    if samples < a.batch_size:
        raise StartupError(f"{what}: {samples} samples, fewer than one batch of {a.batch_size}")
    try:
        if pipeline.collate_fn is None:
            layout = declare(pipeline.dataset[0], "sample 0")
        else:
            first = batch_indices(0, samples, a.batch_size, a.seed)
            layout = declare(pipeline.collate_fn([pipeline.dataset[i] for i in first]), "batch 0 from collate_fn",
                             batched=True)
    except Exception as e:
        raise StartupError(f"{what}: {type(e).__name__}: {e}")
    return pipeline, layout


def serve(a: argparse.Namespace) -> int:
    pb2 = load_pb2()
    host, _ = parse_listen(a.listen)
    for flag, value in (("--batch-size", a.batch_size), ("--workers", a.workers),
                        ("--prefetch-batches", a.prefetch_batches), ("--max-streams", a.max_streams)):
        if value < 1:
            raise StartupError(f"{flag}: must be >= 1")
    if a.seed < 0:
        raise StartupError("--seed: must be >= 0")
    token = os.environ.get("PPERF_DATA_TOKEN", "")
    if a.token_file:
        try:
            token = open(a.token_file).read().strip()
        except OSError as e:
            raise StartupError(f"--token-file: {e}")
    loopback = resolves_to_loopback(host)
    if not loopback and not token:
        raise StartupError(f"--listen: {a.listen} is not loopback: a token is required (--token-file, or PPERF_DATA_TOKEN)")
    if not loopback and not a.tls_cert and not a.insecure:
        raise StartupError(f"--listen: {a.listen} is not loopback: serve over TLS (--tls-cert, --tls-key) or say --insecure")
    if bool(a.tls_cert) != bool(a.tls_key):
        raise StartupError("--tls-cert: TLS needs both --tls-cert and --tls-key")
    if a.cpus:
        try:
            os.sched_setaffinity(0, {int(c) for c in a.cpus.split(",")})
        except (ValueError, OSError) as e:
            raise StartupError(f"--cpus: cannot pin to {a.cpus}: {e}")
    pipeline, layout = load_pipeline(a)
    declared = on_wire(layout, a.wire)
    pool = Pool(pipeline, layout, a.workers, a.seed, a.wire)  # before gRPC starts threads
    import grpc
    options = Options(source_flag(a)[1], parse_kwargs(a.dataset_kwargs) or {}, a.batch_size, a.seed, a.workers,
                      a.prefetch_batches, a.max_streams, token, a.wire)
    service = Service(pb2, options, len(pipeline.dataset), declared, pool)
    handlers = grpc.method_handlers_generic_handler("pperf.dataservice.DataService", {
        "Handshake": grpc.unary_unary_rpc_method_handler(
            service.handshake, request_deserializer=pb2.HandshakeRequest.FromString,
            response_serializer=pb2.HandshakeReply.SerializeToString),
        "StreamBatches": grpc.unary_stream_rpc_method_handler(
            service.stream_batches, request_deserializer=pb2.StreamRequest.FromString,
            response_serializer=pb2.BatchMessage.SerializeToString),
        "Shutdown": grpc.unary_unary_rpc_method_handler(
            service.shutdown, request_deserializer=pb2.ShutdownRequest.FromString,
            response_serializer=pb2.ShutdownReply.SerializeToString),
    })
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=a.max_streams + 4), handlers=[handlers],
                         options=[("grpc.max_receive_message_length", MAX_REQUEST_BYTES),
                                  ("grpc.max_send_message_length", 1 << 30)])
    if a.tls_cert:
        try:
            pair = (open(a.tls_key, "rb").read(), open(a.tls_cert, "rb").read())
        except OSError as e:
            raise StartupError(f"--tls-cert/--tls-key: {e}")
        port = server.add_secure_port(a.listen, grpc.ssl_server_credentials([pair]))
    else:
        port = server.add_insecure_port(a.listen)
    if port == 0:
        raise StartupError(f"--listen: cannot listen on {a.listen}")
    signal.signal(signal.SIGTERM, lambda *_: service.stop.set())
    signal.signal(signal.SIGINT, lambda *_: service.stop.set())
    server.start()
    print(f"pperf data-worker listening on {host}:{port}", flush=True)
    while not service.stop.wait(0.05):
        if pool.failure:
            print(f"pperf-data-worker: {pool.failure}", file=sys.stderr, flush=True)
            service.stop.set()
            time.sleep(0.5)  # let the streams report it
            server.stop(1).wait(STOP_DEADLINE_S)
            pool.stop()
            return 1
    # Streams see the stop flag within POLL_S; past the deadline the worker exits regardless.
    stopped = server.stop(2)
    if not stopped.wait(STOP_DEADLINE_S):
        print(f"pperf-data-worker: a stream still runs after {STOP_DEADLINE_S:.0f} s; exiting", file=sys.stderr)
    pool.stop()
    return 0


def check(a: argparse.Namespace) -> int:
    """Everything a start does short of serving: the trainer runs this before measuring."""
    _, layout = load_pipeline(a)
    layout = on_wire(layout, a.wire)
    if a.expect_tensors:
        try:
            want = [TensorDecl(t["name"], t["dtype"], tuple(t["shape"])) for t in json.loads(a.expect_tensors)]
        except (ValueError, KeyError, TypeError) as e:
            raise StartupError(f"--expect-tensors: {e}")
        for w in want:
            have = next((t for t in layout if t.name == w.name), None)
            if have != w:
                served = have.describe() if have else "nothing"
                raise StartupError(f"{' '.join(source_flag(a))}: {w.name}: the pipeline serves {served} per sample, "
                                   f"the model takes {w.describe()}")
    print("pperf data-worker check: ok: " + ", ".join(f"{t.name} {t.describe()}" for t in layout), flush=True)
    return 0


def main(argv: Sequence[str]) -> int:
    a = parse_args(argv)
    try:
        return check(a) if a.check else serve(a)
    except StartupError as e:
        if not a.check:  # --check says it in its one stdout line only
            print(f"pperf-data-worker: {e}", file=sys.stderr, flush=True)
        print(f"pperf data-worker not started: {e}", flush=True)  # the spawner reads stdout
        return 2


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stdout.flush()
    os._exit(code)  # no atexit joins of queue feeder threads: the pool is already gone
