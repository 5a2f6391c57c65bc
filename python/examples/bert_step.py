"""Seed 004's BERT fine-tuning step as a pperf python_step (docs/python_step.md), plain PyTorch.

The same model, optimizer and shapes as pperf's C++ `bert_classification` workload: a BERT
encoder + pooler + 2-class head (preset "base" = BERT-base, "tiny" = hidden 128, 2 layers),
AdamW (lr 2e-5, weight decay 0.01), cross-entropy, synthetic token ids of `seq_len` tokens.

  make(...)           eager PyTorch on `device` ("cpu" here; "cuda" on a GPU host: not run here)
  make_compiled(...)  the same model under torch.compile (CPU inductor runs here; torch 2.x)
  make_ddp(...)       one rank of DistributedDataParallel, its group formed from the variables
                      pperf gives each rank's worker (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR,
                      MASTER_PORT): Gloo on the CPU (runs here), NCCL on cuda:LOCAL_RANK (not run)

What ran where: CPU eager and CPU inductor on the development host; CUDA has not been run.
"""
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

PRESETS = {"base": (30522, 768, 12, 12, 3072, 512), "tiny": (30522, 128, 2, 2, 512, 512)}


class Layer(nn.Module):
    def __init__(self, h, heads, inter):
        super().__init__()
        self.heads = heads
        self.query, self.key, self.value, self.dense = (nn.Linear(h, h) for _ in range(4))
        self.norm1, self.norm2 = nn.LayerNorm(h, eps=1e-12), nn.LayerNorm(h, eps=1e-12)
        self.intermediate, self.output = nn.Linear(h, inter), nn.Linear(inter, h)
        self.drop = nn.Dropout(0.1)

    def forward(self, x, mask):
        b, s, h = x.shape
        d = h // self.heads
        split = lambda t: t.view(b, s, self.heads, d).transpose(1, 2)
        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        scores = q @ k.transpose(-2, -1) / math.sqrt(d) + mask
        ctx = (self.drop(scores.softmax(-1)) @ v).transpose(1, 2).reshape(b, s, h)
        a = self.norm1(self.drop(self.dense(ctx)) + x)
        return self.norm2(self.drop(self.output(F.gelu(self.intermediate(a)))) + a)


class Bert(nn.Module):
    def __init__(self, vocab, h, layers, heads, inter, positions):
        super().__init__()
        self.word, self.position, self.token_type = nn.Embedding(vocab, h), nn.Embedding(positions, h), nn.Embedding(2, h)
        self.norm, self.drop = nn.LayerNorm(h, eps=1e-12), nn.Dropout(0.1)
        self.layers = nn.ModuleList(Layer(h, heads, inter) for _ in range(layers))
        self.pooler, self.classifier = nn.Linear(h, h), nn.Linear(h, 2)

    def forward(self, ids, mask):
        pos = torch.arange(ids.shape[1], device=ids.device).unsqueeze(0)
        x = self.drop(self.norm(self.word(ids) + self.position(pos) + self.token_type(torch.zeros_like(ids))))
        additive = (1.0 - mask.float()).view(ids.shape[0], 1, 1, -1) * -10000.0
        for layer in self.layers:
            x = layer(x, additive)
        return self.classifier(self.drop(torch.tanh(self.pooler(x[:, 0]))))


class BertStep:
    """One AdamW step of BERT classification per train_step(batch_index)."""

    def __init__(self, preset="tiny", batch_size=16, seq_len=128, device="cpu", threads=None, compile=False, seed=0,
                 pool=8, ddp=False):
        if threads:
            torch.set_num_threads(int(threads))
        torch.manual_seed(seed)  # every rank starts from the same weights (DDP also broadcasts rank 0's)
        self.batch_size = int(batch_size)
        rank = 0
        if ddp:
            import torch.distributed as dist
            rank, local_rank = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"])
            if device == "cuda":
                device = f"cuda:{local_rank}"
            dist.init_process_group("nccl" if device.startswith("cuda") else "gloo")  # env:// from pperf
        self.device = torch.device(device)
        vocab = PRESETS[preset][0]
        self.model = Bert(*PRESETS[preset]).to(self.device).train()
        self.params = sum(p.numel() for p in self.model.parameters() if p.requires_grad)
        trained = self.model
        if ddp:
            from torch.nn.parallel import DistributedDataParallel
            trained = DistributedDataParallel(self.model, device_ids=[self.device] if self.device.type == "cuda" else None)
        self.forward = torch.compile(trained) if compile else trained
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=2e-5, weight_decay=0.01)
        # A few batches made up front, cycled: the step times the training, not the data. Each
        # rank its own (a data-parallel rank trains on its slice of the data).
        g = torch.Generator().manual_seed(seed + 1000 * rank)
        self.batches = [(torch.randint(1000, vocab, (self.batch_size, seq_len), generator=g).to(self.device),
                         (torch.arange(self.batch_size) % 2).to(self.device)) for _ in range(pool)]
        self.mask = torch.ones(self.batch_size, seq_len, dtype=torch.long, device=self.device)

    def train_step(self, batch_index):
        ids, labels = self.batches[batch_index % len(self.batches)]
        self.optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(self.forward(ids, self.mask), labels)
        loss.backward()
        self.optimizer.step()
        return loss.detach()

    def synchronize(self):
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def model_info(self):
        return {"params": self.params, "precision": "fp32"}

    def save_state(self, path):
        torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict()}, path)

    def load_state(self, path):
        state = torch.load(path, map_location=self.device)
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])


def make(**kwargs):
    return BertStep(**kwargs)


def make_compiled(**kwargs):
    return BertStep(compile=True, **kwargs)


def make_ddp(**kwargs):
    return BertStep(ddp=True, **kwargs)

