#!/usr/bin/python3
"""PyTorch eager peer of pperf's bert_classification workload (benchmark, not a test): the same
BERT encoder + pooler + 2-class head in torch.nn, AdamW, cross-entropy, synthetic token ids,
timing the training step on one fixed batch. Prints one JSON line."""
import argparse, json, math, statistics, time

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
        pos = torch.arange(ids.shape[1]).unsqueeze(0)
        x = self.drop(self.norm(self.word(ids) + self.position(pos) + self.token_type(torch.zeros_like(ids))))
        additive = (1.0 - mask.float()).view(ids.shape[0], 1, 1, -1) * -10000.0
        for layer in self.layers:
            x = layer(x, additive)
        return self.classifier(self.drop(torch.tanh(self.pooler(x[:, 0]))))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--preset", default="tiny", choices=list(PRESETS))
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--compile", action="store_true", help="torch.compile the model (torch 2.x): the step a user who compiles sees")
    p.add_argument("--seq-len", type=int, default=128)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    vocab = PRESETS[a.preset][0]
    model = Bert(*PRESETS[a.preset])
    if a.compile:
        model = torch.compile(model)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-5, weight_decay=0.01)
    ids = torch.randint(1000, vocab, (a.batch_size, a.seq_len))
    mask = torch.ones_like(ids)
    labels = torch.arange(a.batch_size) % 2
    times = []
    for step in range(a.warmup + a.steps):
        start = time.perf_counter()
        opt.zero_grad()
        F.cross_entropy(model(ids, mask), labels).backward()
        opt.step()
        if step >= a.warmup:
            times.append((time.perf_counter() - start) * 1e3)
    print(json.dumps({"workload": "bert_classification", "preset": a.preset, "batch_size": a.batch_size,
                      "threads": a.threads, "step_ms_median": statistics.median(times), "step_ms_all": times}))


if __name__ == "__main__":
    main()
