#!/usr/bin/env python3
"""pperf's Python step worker: runs a user's training step when pperf's runner asks for it.

pperf (workloads/python_step) starts this script once per measured item and owns the clock:
it writes a request line, this worker runs the step (and the object's synchronize(), so queued
device work is finished) and answers one line; pperf times request -> answer. The worker never
reads a clock for the measurement.

Protocol, one line each way on the worker's original stdin/stdout (user prints go to stderr:
fd 1 is re-pointed there before the user's module is imported, so they cannot corrupt it):

  worker -> pperf  ready {"batch_size": 32|null, "model_info": {...}|null, "checkpoint": bool}
                   error <one line>                       (the factory failed; the worker exits)
  pperf -> worker  step <i>      -> done <loss>           | error <ExceptionType: last line>
                   save <path>   -> saved                 | error ...
                   load <path>   -> loaded                | error ...
                   (end of input: the worker exits)

--check only imports the module and finds the factory (nothing is built): prints
"check: ok" or "not started: <one line>" and exits 0 / 2.
Standard library only: the framework is the user's module's business.
"""
import argparse
import importlib
import json
import math
import os
import signal
import sys
import traceback


def one_line(exc):
    """'ExceptionType: message' on one line: the last line of Python's own report."""
    lines = [l.strip() for l in traceback.format_exception_only(type(exc), exc) if l.strip()]
    text = lines[-1] if lines else type(exc).__name__
    return " ".join(text.split())


def find_factory(spec, module_dir):
    module_name, _, factory_name = spec.partition(":")
    if module_dir and module_dir not in sys.path:
        # PYTHONPATH first (already in sys.path), then the config file's directory.
        sys.path.append(module_dir)
    try:
        module = importlib.import_module(module_name)
    except BaseException as exc:  # SyntaxError, ImportError, or whatever the module raises
        raise RuntimeError(f"cannot import module '{module_name}': {one_line(exc)}") from None
    factory = getattr(module, factory_name, None)
    if not callable(factory):
        raise RuntimeError(f"module '{module_name}' has no callable '{factory_name}'")
    return factory


def describe(obj):
    batch = getattr(obj, "batch_size", None)
    if callable(batch):
        batch = batch()
    info = None
    if callable(getattr(obj, "model_info", None)):
        raw = obj.model_info() or {}
        info = {"params": int(raw.get("params", 0)), "flops_per_sample": float(raw.get("flops_per_sample", 0)),
                "precision": str(raw.get("precision", "fp32"))}
    checkpoint = callable(getattr(obj, "save_state", None)) and callable(getattr(obj, "load_state", None))
    return {"batch_size": int(batch) if batch is not None else None, "model_info": info, "checkpoint": checkpoint}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--step", required=True, help="module:factory")
    parser.add_argument("--kwargs", default="{}", help="the factory's keyword arguments (a JSON object)")
    parser.add_argument("--module-dir", default="", help="searched after PYTHONPATH (the config's directory)")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    # Ctrl-C reaches the whole process group: pperf finishes the current step and reports what it
    # measured, so the step must not die of it (pperf ends this worker itself).
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    # The protocol keeps private copies of fd 0 and 1; the user's code gets /dev/null and stderr.
    proto_in = os.fdopen(os.dup(0), "r", buffering=1)
    proto_out = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def send(line):
        proto_out.write(line + "\n")
        proto_out.flush()

    try:
        factory = find_factory(args.step, args.module_dir)
    except RuntimeError as exc:
        send(("not started: " if args.check else "error ") + str(exc))
        return 2
    if args.check:
        send("check: ok")
        return 0
    try:
        kwargs = json.loads(args.kwargs)
        obj = factory(**kwargs)
        if not callable(getattr(obj, "train_step", None)):
            raise TypeError(f"{args.step} returned a {type(obj).__name__} without train_step(batch_index)")
        sync = getattr(obj, "synchronize", None)
        sync = sync if callable(sync) else None
        send("ready " + json.dumps(describe(obj)))
    except BaseException as exc:
        send(f"error {args.step}: {one_line(exc)}")
        return 1

    for line in proto_in:
        verb, _, arg = line.rstrip("\n").partition(" ")
        try:
            if verb == "step":
                loss = obj.train_step(int(arg))
                if sync:
                    sync()
                # A tensor loss is read after synchronize(): .item() would sync by itself.
                loss = float(loss) if loss is not None else math.nan
                send(f"done {loss!r}")
            elif verb == "save":
                obj.save_state(arg)
                send("saved")
            elif verb == "load":
                obj.load_state(arg)
                send("loaded")
            else:
                send(f"error unknown request '{verb}'")
        except BaseException as exc:
            send("error " + one_line(exc))
            if isinstance(exc, KeyboardInterrupt):
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
