"""Seed 004's BERT fine-tuning step on AWS Trainium (trn1) through torch-neuronx's XLA device.

UNTESTED: shipped for configs/trn1_vs_p4d_bert_python.json, never run (no Trainium where pperf is
developed). It needs torch-neuronx and torch-xla on a trn1 instance. The model, optimizer and
shapes are those of bert_step.py (and of pperf's C++ bert_classification).

XLA is lazy: train_step records the graph, xm.mark_step() cuts and launches it, and
synchronize() waits for the device (xm.wait_device_ops()), so pperf's clock brackets real work.
The first steps compile the graph (minutes with neuronx-cc): give measure.warmup_steps >= 2;
their time is the result's measurement.warmup_s.
"""
import torch
import torch.nn.functional as F

from bert_step import BertStep


class NeuronBertStep(BertStep):
    def __init__(self, **kwargs):
        import torch_xla.core.xla_model as xm  # torch-neuronx's XLA device

        self.xm = xm
        super().__init__(device=str(xm.xla_device()), **kwargs)

    def train_step(self, batch_index):
        ids, labels = self.batches[batch_index % len(self.batches)]
        self.optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(self.forward(ids, self.mask), labels)
        loss.backward()
        self.optimizer.step()
        self.xm.mark_step()
        return loss.detach()

    def synchronize(self):
        self.xm.wait_device_ops()

    def save_state(self, path):
        self.xm.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict()}, path)


def make(**kwargs):
    return NeuronBertStep(**kwargs)


def make_auto(**kwargs):
    """Whatever this host has: Trainium (torch-neuronx's XLA device), else a GPU, else the CPU
    (the plain step of bert_step.py). Here, not in bert_step.py, so that only this file imports
    the other."""
    try:
        import torch_xla  # noqa: F401  (present on trn1 images with torch-neuronx)
    except ImportError:
        return BertStep(device="cuda" if torch.cuda.is_available() else "cpu", **kwargs)
    return NeuronBertStep(**kwargs)
