#!/usr/bin/python3
"""Writes tests/data/tiny_mlp.pt: a small scripted model for the `torchscript` workload's tests.

A 2-layer MLP, 64 -> 32 (ReLU) -> 10: 64*32 + 32 + 32*10 + 10 = 2,410 parameters.
Train it with params {"path": "tests/data/tiny_mlp.pt", "input_shape": [64], "classes": 10}.

Run with Debian's python3-torch:  /usr/bin/python3 scripts/make_torchscript_model.py [OUT]
"""
import os
import sys

import torch


class TinyMLP(torch.nn.Module):
    def __init__(self, inputs: int = 64, hidden: int = 32, classes: int = 10):
        super().__init__()
        self.fc1 = torch.nn.Linear(inputs, hidden)
        self.fc2 = torch.nn.Linear(hidden, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


def main() -> None:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "tests", "data", "tiny_mlp.pt")
    torch.manual_seed(0)
    model = torch.jit.script(TinyMLP())
    params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    assert params == 2410, params
    torch.jit.save(model, out)
    print(f"wrote {out} ({params} params, torch {torch.__version__})")


if __name__ == "__main__":
    main()
