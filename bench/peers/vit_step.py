"""The eager peer's ViT (bench/peers/vit_synthetic.py, imported: the same model) as a pperf
python_step (docs/python_step.md), so pperf's clock times a Python step: eager, or under
torch.compile(mode="reduce-overhead") (CUDA graphs through inductor), the Python side of
pperf's execution.cuda_graphs. scripts/gpu-check.sh runs it on the GPU beside pperf's ViT with
cuda_graphs; bench/peers must be on PYTHONPATH (or beside it).

  make(preset="base", batch_size=64, device="cuda", precision="bf16")  eager
  make_reduce_overhead(...)                                              compiled, reduce-overhead
"""
import contextlib

import torch
from torch import nn

from vit_synthetic import PRESETS, VisionTransformer


class VitStep:
    """One Adam step of the peer's ViT per train_step(batch_index), on batches made up front."""

    def __init__(self, preset="base", batch_size=64, device="cuda", precision="bf16", lr=1e-3, mode=None, pool=4):
        torch.manual_seed(0)
        image, patch, dim, depth, heads, mlp, classes = PRESETS[preset]
        self.device = torch.device(device)
        self.model = VisionTransformer(image, patch, dim, depth, heads, mlp, classes).to(self.device).train()
        self.params = sum(p.numel() for p in self.model.parameters() if p.requires_grad)
        self.forward = torch.compile(self.model, mode=mode) if mode else self.model
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.loss_fn = nn.CrossEntropyLoss()
        self.precision = precision
        g = torch.Generator().manual_seed(1)
        self.batches = [(torch.randn(batch_size, 3, image, image, generator=g).to(self.device),
                         (torch.arange(batch_size) % classes).to(self.device)) for _ in range(pool)]

    def train_step(self, batch_index):
        x, y = self.batches[batch_index % len(self.batches)]
        self.optimizer.zero_grad(set_to_none=True)
        ctx = (torch.autocast(self.device.type, dtype=torch.bfloat16) if self.precision == "bf16"
               else contextlib.nullcontext())
        with ctx:
            loss = self.loss_fn(self.forward(x), y)
        loss.backward()
        self.optimizer.step()
        return loss.detach()

    def synchronize(self):
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def model_info(self):
        return {"params": self.params, "precision": "bf16-autocast" if self.precision == "bf16" else "fp32"}


def make(**kwargs):
    return VitStep(**kwargs)


def make_reduce_overhead(**kwargs):
    return VitStep(mode="reduce-overhead", **kwargs)
