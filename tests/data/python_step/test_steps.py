"""Python steps for pperf's python_step tests (standard library only)."""
import os
import sys
import time


class Sleep:
    """Sleeps a known time per step; prints to stdout (which must not corrupt the protocol)."""

    def __init__(self, seconds=0.02, batch_size=None, fail_at=None, hang_at=None, chatty=True):
        self.seconds, self.fail_at, self.hang_at, self.chatty = seconds, fail_at, hang_at, chatty
        if batch_size is not None:
            self.batch_size = batch_size
        self.state = 0

    def train_step(self, batch_index):
        if self.chatty:
            print(f"user print from step {batch_index}")  # goes to stderr, not the protocol
        if self.fail_at is not None and self.state >= self.fail_at:
            raise ValueError(f"loss is nan at step {self.state}")
        if self.hang_at is not None and self.state >= self.hang_at:
            with open(os.environ.get("PPERF_TEST_PIDFILE", os.devnull), "w") as f:
                f.write(str(os.getpid()))
            while True:
                time.sleep(1)
        self.state += 1
        if self.seconds:
            time.sleep(self.seconds)
        return 1.0 / self.state

    def model_info(self):
        return {"params": 1234, "flops_per_sample": 0, "precision": "fp32"}

    def save_state(self, path):
        with open(path, "w") as f:
            f.write(str(self.state))

    def load_state(self, path):
        with open(path) as f:
            self.state = int(f.read())


def make(**kwargs):
    return Sleep(**kwargs)


def null(**kwargs):
    return Sleep(seconds=0, chatty=False, **kwargs)


class Dies(Sleep):
    """Its process ends in the middle of step `at` (as an out-of-memory kill would end it)."""

    def __init__(self, at=2):
        super().__init__(seconds=0, chatty=False)
        self.at = at

    def train_step(self, batch_index):
        if self.state >= self.at:
            os._exit(3)
        return super().train_step(batch_index)


def dies(**kwargs):
    return Dies(**kwargs)


class Ranks(Sleep):
    """One rank of a step that forms its own group from the launcher's variables pperf gives its
    worker: rank 0 listens on MASTER_ADDR:MASTER_PORT and every other rank connects and says its
    rank (as torch.distributed's env:// rendezvous would). Rank r sleeps (r + 1) x `seconds` per
    step, so the step's time is the slowest rank's. model_info's params carry what rank 0 met:
    100 x WORLD_SIZE + the sum of the ranks that reached it (its own included)."""

    def __init__(self, seconds=0.02):
        super().__init__(seconds=0, chatty=False)
        import socket
        self.rank, self.world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
        self.step_s = seconds * (self.rank + 1)
        int(os.environ["LOCAL_RANK"])
        address = (os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]))
        self.met = self.rank
        if self.rank == 0:
            with socket.create_server(address) as server:
                for _ in range(self.world - 1):
                    peer, _ = server.accept()
                    with peer:
                        self.met += int(peer.recv(16).decode())
        else:
            deadline = time.monotonic() + 60
            while True:
                try:
                    with socket.create_connection(address, timeout=5) as peer:
                        peer.sendall(str(self.rank).encode())
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)

    def train_step(self, batch_index):
        time.sleep(self.step_s)
        return super().train_step(batch_index)

    def model_info(self):
        return {"params": 100 * self.world + self.met, "flops_per_sample": 0, "precision": "fp32"}


def ranks(**kwargs):
    return Ranks(**kwargs)
