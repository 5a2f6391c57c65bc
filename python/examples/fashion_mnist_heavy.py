"""Seed 000's MNIST input pipeline as its users wrote it, as a Dataset for pperf-data-worker.py.

Fashion-MNIST from Debian's dataset-fashion-mnist, per sample through torchvision's
ToTensor -> Normalize(0.1307, 0.3081) -> GaussianBlur(11, sigma in (0.1, 2.0)): float32
[1, 28, 28] inputs and int64 targets, the batch layout of pperf's mnist_heavy workload.
Config: "data": {"worker": "python", "dataset": "fashion_mnist_heavy:make", ...}.
"""
from __future__ import annotations

import gzip
import os
from typing import Tuple

import numpy as np
import torch
from torchvision import transforms


def read_idx(path: str) -> np.ndarray:
    with gzip.open(path, "rb") as f:
        data = f.read()
    rank = data[3]
    dims = [int.from_bytes(data[4 + 4 * i: 8 + 4 * i], "big") for i in range(rank)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * rank).reshape(dims)


class FashionMnistHeavy(torch.utils.data.Dataset):
    def __init__(self, root: str, split: str) -> None:
        self.images = read_idx(os.path.join(root, f"{split}-images-idx3-ubyte.gz"))
        self.labels = read_idx(os.path.join(root, f"{split}-labels-idx1-ubyte.gz"))
        self.transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,)),
                                             transforms.GaussianBlur(11, (0.1, 2.0))])

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, i: int) -> Tuple[torch.Tensor, int]:
        return self.transform(self.images[i].copy()), int(self.labels[i])


def make(root: str = "/usr/share/datasets/fashion-mnist", split: str = "train") -> FashionMnistHeavy:
    return FashionMnistHeavy(root, split)


def loader(batch_size: int, root: str = "/usr/share/datasets/fashion-mnist", split: str = "train",
           num_workers: int = 2) -> torch.utils.data.DataLoader:
    """The same pipeline as a user's training script builds it. Config:
    "data": {"worker": "python", "dataloader": "fashion_mnist_heavy:loader",
             "dataset_kwargs": {"batch_size": <the workload's>}}."""
    return torch.utils.data.DataLoader(make(root, split), batch_size=batch_size, shuffle=True,
                                       num_workers=num_workers)
