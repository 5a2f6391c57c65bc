#!/usr/bin/python3
"""Prints the Debian packages a pperf configuration reads beyond the `pperf` binary, one per line:
Fashion-MNIST's files (mnist_heavy's default data, or a path under /usr/share/datasets/fashion-mnist)
and the Python side (a Python data worker, the python_step workload). scripts/pperf installs them the
first time a configuration asks. Prints nothing for a file it cannot read: pperf itself then says why.

usage: scripts/config-packages.py CONFIG.json
"""
import json
import sys

FASHION_MNIST = ["dataset-fashion-mnist"]
PYTHON_WORKER = ["python3-grpcio", "python3-protobuf", "python3-torch", "python3-torchvision"]
PYTHON_STEP = ["python3-torch"]


def walk(node):
    """Every dict in a JSON document, depth first."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def needs(config) -> list:
    packages = []
    for d in walk(config):
        name = d.get("name")
        params = d.get("params") if isinstance(d.get("params"), dict) else {}
        if name == "mnist_heavy" and params.get("data", "fashion-mnist") != "synthetic":
            packages += FASHION_MNIST
        if name == "python_step":
            packages += PYTHON_STEP
        if d.get("worker") == "python":
            packages += PYTHON_WORKER
        if any(isinstance(v, str) and v.startswith("/usr/share/datasets/fashion-mnist") for v in d.values()):
            packages += FASHION_MNIST
    return sorted(set(packages))


def main() -> int:
    try:
        with open(sys.argv[1], encoding="utf-8") as f:
            config = json.load(f)
    except (OSError, ValueError, IndexError):
        return 0
    print("\n".join(needs(config)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
