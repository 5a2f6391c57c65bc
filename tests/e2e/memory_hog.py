#!/usr/bin/python3
"""Writes a TorchScript model for the memory tests: each step allocates and touches a chosen
number of MiB per sample of its batch, either freed at the step's end (a known peak) or kept
(memory that grows step by step until a bound ends it). Trained by the `torchscript` workload
with params {"path": OUT, "input_shape": [4], "classes": 2}. Not a shipped workload.

usage: /usr/bin/python3 tests/e2e/memory_hog.py OUT MIB_PER_SAMPLE keep|free
"""
import sys
from typing import List

import torch


class MemoryHog(torch.nn.Module):
    hog: List[torch.Tensor]

    def __init__(self, mib_per_sample: int, keep: bool):
        super().__init__()
        self.fc = torch.nn.Linear(4, 2)
        self.mib_per_sample = mib_per_sample
        self.keep = keep
        self.hog = []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # ones() writes every page, so all of it is resident.
        block = torch.ones(self.mib_per_sample * x.size(0) * 262144)
        if self.keep:
            self.hog.append(block)
        return self.fc(x) + block[0] * 0


def main() -> None:
    out, mib, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    torch.jit.save(torch.jit.script(MemoryHog(mib, mode == "keep")), out)


if __name__ == "__main__":
    main()
