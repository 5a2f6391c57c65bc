#!/usr/bin/python3
"""Per-thread rate of the seed's MNIST preprocessing in torchvision (ToTensor, Normalize,
GaussianBlur 11, sigma in (0.1, 2.0)) on Fashion-MNIST: the peer of pperf_micro's
BM_MnistHeavyBatch. Benchmark, not a test. Prints one JSON line."""
import gzip, json, time

import numpy as np
import torch
from torchvision import transforms

torch.set_num_threads(1)
raw = gzip.open("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz").read()
images = np.frombuffer(raw, dtype=np.uint8, offset=16).reshape(-1, 28, 28).copy()
pipeline = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,)),
                               transforms.GaussianBlur(11, (0.1, 2.0))])
for i in range(200):
    pipeline(images[i])
n = 5000
start = time.perf_counter()
for i in range(n):
    pipeline(images[i % len(images)])
elapsed = time.perf_counter() - start
print(json.dumps({"pipeline": "torchvision mnist_heavy", "samples_per_s_per_thread": n / elapsed}))
