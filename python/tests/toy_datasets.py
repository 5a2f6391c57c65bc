"""Small datasets for the worker's tests: sample i is (a [1, 4, 4] float32 tensor filled with i, i)."""
from typing import Any, Tuple

import torch


class Toy(torch.utils.data.Dataset):
    def __init__(self, n: int, bad_at: int = -1) -> None:
        self.n, self.bad_at = n, bad_at

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> Tuple[torch.Tensor, int]:
        side = 5 if i == self.bad_at else 4
        return torch.full((1, side, side), float(i)), i


def make(n: int = 40) -> Toy:
    return Toy(n)


def bad_shape(n: int = 40) -> Toy:
    return Toy(n, bad_at=9)


def raises() -> Any:
    raise OSError("no such data: /nowhere")
