#!/usr/bin/python3
"""torchvision peer of resnet50_augment's input pipeline (benchmark, not a test): 3x3 dilation
(max_pool2d 3x3, stride 1), GaussianBlur(11, 0.8), rescale 1/255, RandomHorizontalFlip,
RandomRotation(+-36 deg, bilinear), RandomAffine zoom [0.9, 1.1] (bilinear), per sample on uint8
CHW images, one thread. Prints one JSON line with samples/s per core."""
import argparse, json, time

import torch
import torch.nn.functional as F
from torchvision import transforms
from torchvision.transforms import InterpolationMode


def resnet_augment_chain():
    """The chain on one uint8 CHW image; float output in [0, 1]."""
    return transforms.Compose([
        transforms.Lambda(lambda x: F.max_pool2d(x.float().unsqueeze(0), 3, 1, 1).squeeze(0)),
        transforms.GaussianBlur(11, 0.8),
        transforms.Lambda(lambda x: x / 255.0),
        transforms.RandomHorizontalFlip(),
        transforms.RandomRotation(36, interpolation=InterpolationMode.BILINEAR),
        transforms.RandomAffine(0, scale=(0.9, 1.1), interpolation=InterpolationMode.BILINEAR),
    ])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--size", type=int, default=32)
    p.add_argument("--samples", type=int, default=2000)
    a = p.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    images = torch.randint(0, 256, (256, 3, a.size, a.size), dtype=torch.uint8)
    chain = resnet_augment_chain()
    for i in range(50):
        chain(images[i % 256])
    start = time.perf_counter()
    for i in range(a.samples):
        chain(images[i % 256])
    elapsed = time.perf_counter() - start
    print(json.dumps({"pipeline": "torchvision resnet50_augment", "size": a.size,
                      "samples_per_s_per_core": a.samples / elapsed}))


if __name__ == "__main__":
    main()
