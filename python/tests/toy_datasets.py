"""Small datasets for the worker's tests: sample i is (a [1, 4, 4] float32 tensor filled with i, i)."""
from typing import Any, Iterator, List, Tuple

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


def doubling_collate(samples: List[Tuple[torch.Tensor, int]]) -> Tuple[torch.Tensor, torch.Tensor]:
    """A collate_fn whose effect shows in the batch: inputs doubled."""
    return torch.stack([s[0] * 2 for s in samples]), torch.tensor([s[1] for s in samples])


def loader(n: int = 40, batch_size: int = 4) -> torch.utils.data.DataLoader:
    # shuffle and num_workers are the user's; pperf replaces the sampler and the processes.
    return torch.utils.data.DataLoader(Toy(n), batch_size=batch_size, shuffle=True, num_workers=3,
                                       collate_fn=doubling_collate)


def failing_init(worker_id: int) -> None:
    raise RuntimeError("no GPU for worker " + str(worker_id))


def loader_failing_init() -> torch.utils.data.DataLoader:
    return torch.utils.data.DataLoader(Toy(40), batch_size=4, worker_init_fn=failing_init)


class Stream(torch.utils.data.IterableDataset):
    def __iter__(self) -> Iterator[Tuple[torch.Tensor, int]]:
        return iter([(torch.zeros(1, 4, 4), 0)] * 8)


def loader_iterable() -> torch.utils.data.DataLoader:
    return torch.utils.data.DataLoader(Stream(), batch_size=4)


def loader_own_batches() -> torch.utils.data.DataLoader:
    return torch.utils.data.DataLoader(Toy(40), batch_sampler=[[0, 1, 2, 3]])
