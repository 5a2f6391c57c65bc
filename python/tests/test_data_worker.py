"""Tests of pperf-data-worker.py: the index sequence, declared tensors, and a real worker process
over gRPC (handshake checks, batches, token, request limit, faults, shutdown)."""
from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from typing import Any, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "pperf-data-worker.py")
PB2_DIR = os.environ.get("PPERF_BUILD_DIR", "")
if not os.path.isfile(os.path.join(PB2_DIR, "data_service_pb2.py")):
    PB2_DIR = tempfile.mkdtemp(prefix="pperf-pb2-")
    subprocess.run(["protoc", "--proto_path=" + os.path.join(HERE, "..", "..", "bench", "dataservice"),
                    "--python_out=" + PB2_DIR, "data_service.proto"], check=True)
os.environ["PPERF_PROTO_PYTHON_DIR"] = PB2_DIR

spec = importlib.util.spec_from_file_location("pperf_data_worker", SCRIPT)
worker = importlib.util.module_from_spec(spec)
sys.modules["pperf_data_worker"] = worker
spec.loader.exec_module(worker)  # type: ignore
pb2 = worker.load_pb2()

import grpc  # noqa: E402
import torch  # noqa: E402

SERVICE = "/pperf.dataservice.DataService/"


def start(*args: str, env: Optional[dict] = None) -> Tuple[subprocess.Popen, str]:
    cmd = ["/usr/bin/python3", SCRIPT, "--python-path", HERE, "--listen", "127.0.0.1:0", *args]
    e = dict(os.environ, **(env or {}))
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e)
    line = p.stdout.readline()
    return p, line.rsplit(" ", 1)[-1].strip() if "listening on" in line else line


def stop(p: subprocess.Popen) -> None:
    if p.poll() is None:
        p.kill()
    p.wait(10)
    p.stdout.close()
    p.stderr.close()


class Client:
    def __init__(self, endpoint: str, root_certificates: Optional[bytes] = None) -> None:
        self.channel = (grpc.secure_channel(endpoint, grpc.ssl_channel_credentials(root_certificates))
                        if root_certificates else grpc.insecure_channel(endpoint))
        self.handshake_rpc = self.channel.unary_unary(SERVICE + "Handshake", pb2.HandshakeRequest.SerializeToString,
                                                      pb2.HandshakeReply.FromString)
        self.stream_rpc = self.channel.unary_stream(SERVICE + "StreamBatches", pb2.StreamRequest.SerializeToString,
                                                    pb2.BatchMessage.FromString)
        self.shutdown_rpc = self.channel.unary_unary(SERVICE + "Shutdown", pb2.ShutdownRequest.SerializeToString,
                                                     pb2.ShutdownReply.FromString)

    @staticmethod
    def request(dataset: str = "toy_datasets:make", batch_size: int = 4, seed: int = 7, token: str = "",
                dataset_kwargs: str = "", wire: str = "") -> Any:
        return pb2.HandshakeRequest(schema_version=1, token=token, dataset=dataset, dataset_kwargs=dataset_kwargs,
                                    workload=pb2.WorkloadRequest(name="mnist_heavy", batch_size=batch_size, seed=seed,
                                                                 wire=wire))

    def batches(self, first: int, stride: int, count: int, **kw: Any) -> List[Any]:
        call = self.stream_rpc(pb2.StreamRequest(handshake=self.request(**kw), first_index=first, stride=stride),
                               timeout=60)
        out = []
        for m in call:
            out.append(m)
            if len(out) == count:
                call.cancel()
                break
        return out


class IndexSequence(unittest.TestCase):
    def test_each_epoch_is_a_permutation_without_repeats(self) -> None:
        seen = [i for b in range(10) for i in worker.batch_indices(b, 40, 4, seed=3)]
        self.assertEqual(sorted(seen), list(range(40)))
        second = [i for b in range(10, 20) for i in worker.batch_indices(b, 40, 4, seed=3)]
        self.assertEqual(sorted(second), list(range(40)))
        self.assertNotEqual(seen, second)

    def test_deterministic_in_seed_and_cache_agnostic(self) -> None:
        cache: dict = {}
        self.assertEqual(worker.batch_indices(13, 40, 4, 3, cache), worker.batch_indices(13, 40, 4, 3))
        self.assertNotEqual(worker.batch_indices(0, 40, 4, 3), worker.batch_indices(0, 40, 4, 4))

    def test_last_partial_batch_is_dropped(self) -> None:
        self.assertEqual(worker.batches_per_epoch(42, 4), 10)
        self.assertEqual(sorted(i for b in range(10) for i in worker.batch_indices(b, 42, 4, 0)).__len__(), 40)


class Declaration(unittest.TestCase):
    def test_declares_inputs_and_targets_per_sample(self) -> None:
        decl = worker.declare((torch.zeros(1, 28, 28), 3))
        self.assertEqual([(d.name, d.dtype, d.shape) for d in decl],
                         [("inputs", "float32", (1, 28, 28)), ("targets", "int64", ())])

    def test_wrong_shape_names_the_sample(self) -> None:
        decl = worker.declare((torch.zeros(1, 4, 4), 0))
        with self.assertRaisesRegex(ValueError, r"sample 9: inputs is float32\[1,5,5\].*float32\[1,4,4\]"):
            worker.check_layout((torch.zeros(1, 5, 5), 0), decl, "sample 9")

    def test_a_collated_batch_declares_per_sample_shapes(self) -> None:
        decl = worker.declare((torch.zeros(8, 3, 2), torch.zeros(8, dtype=torch.int64)), "batch 0", batched=True)
        self.assertEqual([(d.name, d.shape) for d in decl], [("inputs", (3, 2)), ("targets", ())])
        with self.assertRaisesRegex(ValueError, "targets has no batch dimension"):
            worker.declare((torch.zeros(8, 3), torch.tensor(1)), "batch 0", batched=True)

    def test_float64_is_not_on_the_wire(self) -> None:
        with self.assertRaisesRegex(ValueError, "float64"):
            worker.declare((torch.zeros(2, dtype=torch.float64), 0))


class WorkerProcess(unittest.TestCase):
    def setUp(self) -> None:
        self.proc, self.endpoint = start("--dataset", "toy_datasets:make", "--batch-size", "4", "--seed", "7",
                                         "--workers", "2")
        self.assertRegex(self.endpoint, r"^127\.0\.0\.1:\d+$")
        self.client = Client(self.endpoint)

    def tearDown(self) -> None:
        stop(self.proc)

    def test_handshake_declares_tensors(self) -> None:
        reply = self.client.handshake_rpc(Client.request(), timeout=10)
        self.assertEqual(reply.worker, "python")
        self.assertEqual(reply.data_samples, 40)
        self.assertEqual([(t.name, t.dtype, list(t.shape)) for t in reply.tensors],
                         [("inputs", "float32", [1, 4, 4]), ("targets", "int64", [])])

    def test_handshake_refuses_other_batch_size_seed_dataset(self) -> None:
        for kw, why in (({"batch_size": 8}, "batch size 8"), ({"seed": 1}, "seed 1"),
                        ({"dataset": "other:make"}, "dataset 'other:make'"), ({"dataset": ""}, "built-in pipeline"),
                        ({"dataset_kwargs": '{"n": 48}'}, 'dataset_kwargs {"n": 48} asked for'),
                        ({"wire": "uint8"}, "wire uint8 asked for, this worker sends float32")):
            with self.assertRaises(grpc.RpcError) as e:
                self.client.handshake_rpc(Client.request(**kw), timeout=10)
            self.assertEqual(e.exception.code(), grpc.StatusCode.FAILED_PRECONDITION)
            self.assertIn(why, e.exception.details())

    def test_stream_serves_the_deterministic_indices_interleaved(self) -> None:
        got = self.client.batches(1, 3, 4)
        self.assertEqual([m.index for m in got], [1, 4, 7, 10])
        for m in got:
            want = worker.batch_indices(m.index, 40, 4, 7)
            targets = torch.frombuffer(bytearray(m.targets.data), dtype=torch.int64).tolist()
            self.assertEqual(targets, want)
            self.assertEqual(list(m.inputs.shape), [4, 1, 4, 4])
            inputs = torch.frombuffer(bytearray(m.inputs.data), dtype=torch.float32).reshape(4, 16)
            self.assertEqual(inputs[:, 0].tolist(), [float(i) for i in want])

    def test_request_over_64_kib_is_refused(self) -> None:
        big = Client.request()
        big.workload.params_json = "x" * (70 * 1024)
        with self.assertRaises(grpc.RpcError) as e:
            self.client.handshake_rpc(big, timeout=10)
        self.assertEqual(e.exception.code(), grpc.StatusCode.RESOURCE_EXHAUSTED)

    def test_shutdown_rpc_ends_the_worker_and_its_processes(self) -> None:
        children = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True).stdout.split()
        self.assertEqual(len(children), 2)
        self.client.shutdown_rpc(pb2.ShutdownRequest(), timeout=10)
        self.assertEqual(self.proc.wait(10), 0)
        time.sleep(0.5)
        for pid in children:
            self.assertFalse(os.path.exists(f"/proc/{pid}"), f"preprocessing process {pid} still runs")

    def test_sigterm_mid_stream_ends_the_worker(self) -> None:
        call = self.client.stream_rpc(pb2.StreamRequest(handshake=Client.request(), first_index=0, stride=1), timeout=60)
        next(call)
        self.proc.send_signal(signal.SIGTERM)
        self.assertEqual(self.proc.wait(10), 0)
        with self.assertRaises(grpc.RpcError):
            for _ in call:
                pass


class Token(unittest.TestCase):
    def test_token_is_required_when_set(self) -> None:
        proc, endpoint = start("--dataset", "toy_datasets:make", "--batch-size", "4", "--seed", "7",
                               env={"PPERF_DATA_TOKEN": "s3cret"})
        try:
            client = Client(endpoint)
            with self.assertRaises(grpc.RpcError) as e:
                client.handshake_rpc(Client.request(token="wrong"), timeout=10)
            self.assertEqual(e.exception.code(), grpc.StatusCode.UNAUTHENTICATED)
            with self.assertRaises(grpc.RpcError):
                client.shutdown_rpc(pb2.ShutdownRequest(token=""), timeout=10)
            self.assertEqual(len(client.batches(0, 1, 2, token="s3cret")), 2)
        finally:
            stop(proc)

    def test_off_loopback_without_token_is_refused(self) -> None:
        p = subprocess.run(["/usr/bin/python3", SCRIPT, "--python-path", HERE, "--dataset", "toy_datasets:make",
                            "--batch-size", "4", "--listen", "0.0.0.0:0"], capture_output=True, text=True, timeout=60,
                           env={k: v for k, v in os.environ.items() if k != "PPERF_DATA_TOKEN"})
        self.assertEqual(p.returncode, 2)
        self.assertIn("token is required", p.stderr)


class WireFormats(unittest.TestCase):
    def test_bf16_wire_sends_the_inputs_cast_to_bfloat16(self) -> None:
        proc, endpoint = start("--dataset", "toy_datasets:make", "--batch-size", "4", "--seed", "7", "--wire", "bf16")
        try:
            client = Client(endpoint)
            reply = client.handshake_rpc(Client.request(wire="bf16"), timeout=10)
            self.assertEqual([(t.name, t.dtype) for t in reply.tensors], [("inputs", "bfloat16"), ("targets", "int64")])
            with self.assertRaises(grpc.RpcError) as e:
                client.handshake_rpc(Client.request(), timeout=10)  # a trainer from before wires: float32
            self.assertIn("wire float32 asked for, this worker sends bf16", e.exception.details())
            m = client.batches(2, 1, 1, wire="bf16")[0]
            self.assertEqual(m.inputs.dtype, "bfloat16")
            self.assertEqual(len(m.inputs.data), 4 * 16 * 2)  # half the float32 bytes
            inputs = torch.frombuffer(bytearray(m.inputs.data), dtype=torch.bfloat16).reshape(4, 16)
            want = worker.batch_indices(2, 40, 4, 7)
            self.assertEqual(inputs[:, 0].float().tolist(), [float(i) for i in want])  # small integers: exact in bf16
        finally:
            stop(proc)

    def test_uint8_wire_needs_uint8_inputs(self) -> None:
        p = subprocess.run(["/usr/bin/python3", SCRIPT, "--python-path", HERE, "--dataset", "toy_datasets:make",
                            "--batch-size", "4", "--wire", "uint8"], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--wire uint8: the dataset's inputs are float32[1,4,4]", p.stderr)
        self.assertIn("not started", p.stdout)


class Faults(unittest.TestCase):
    def run_worker(self, dataset: str) -> subprocess.CompletedProcess:
        return subprocess.run(["/usr/bin/python3", SCRIPT, "--python-path", HERE, "--dataset", dataset,
                               "--batch-size", "4"], capture_output=True, text=True, timeout=60)

    def test_module_that_does_not_import(self) -> None:
        p = self.run_worker("broken_module:make")
        self.assertEqual(p.returncode, 2)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1)
        self.assertIn("module 'broken_module' does not import: ModuleNotFoundError", p.stderr)
        self.assertIn("not started", p.stdout)

    def test_missing_factory(self) -> None:
        p = self.run_worker("toy_datasets:nope")
        self.assertEqual(p.returncode, 2)
        self.assertIn("has no function 'nope'", p.stderr)

    def test_factory_that_raises(self) -> None:
        p = self.run_worker("toy_datasets:raises")
        self.assertEqual(p.returncode, 2)
        self.assertIn("the factory raised OSError: no such data: /nowhere", p.stderr)

    def test_sample_of_the_wrong_shape_fails_the_stream_naming_it(self) -> None:
        proc, endpoint = start("--dataset", "toy_datasets:bad_shape", "--batch-size", "4", "--seed", "7")
        try:
            with self.assertRaises(grpc.RpcError) as e:
                Client(endpoint).batches(0, 1, 20, dataset="toy_datasets:bad_shape")
            self.assertEqual(e.exception.code(), grpc.StatusCode.FAILED_PRECONDITION)
            self.assertIn("sample 9: inputs is float32[1,5,5]", e.exception.details())
        finally:
            stop(proc)

    def test_check_says_whether_the_dataset_fits_the_model(self) -> None:
        base = ["/usr/bin/python3", SCRIPT, "--python-path", HERE, "--batch-size", "4", "--check"]
        ok = subprocess.run(base + ["--dataset", "toy_datasets:make", "--expect-tensors",
                                    '[{"name": "inputs", "dtype": "float32", "shape": [1, 4, 4]}]'],
                            capture_output=True, text=True, timeout=60)
        self.assertEqual(ok.returncode, 0, ok.stderr)
        self.assertIn("inputs float32[1,4,4], targets int64[]", ok.stdout)
        bad = subprocess.run(base + ["--dataset", "toy_datasets:make", "--expect-tensors",
                                     '[{"name": "inputs", "dtype": "float32", "shape": [1, 28, 28]}]'],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(bad.returncode, 2)
        self.assertEqual(bad.stderr, "")
        self.assertIn("inputs: the pipeline serves float32[1,4,4] per sample, the model takes float32[1,28,28]",
                      bad.stdout)

    def test_dead_preprocessing_process_ends_the_worker(self) -> None:
        proc, endpoint = start("--dataset", "toy_datasets:make", "--batch-size", "4", "--seed", "7", "--workers", "2")
        try:
            child = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()[0]
            os.kill(int(child), signal.SIGKILL)
            self.assertEqual(proc.wait(15), 1)
            self.assertIn(f"preprocessing process {child} died", proc.stderr.read())
        finally:
            stop(proc)


class DataLoaderFactory(unittest.TestCase):
    def test_collate_fn_is_used_and_pperf_picks_the_samples(self) -> None:
        proc, endpoint = start("--dataloader", "toy_datasets:loader", "--dataset-kwargs", '{"n": 40}',
                               "--batch-size", "4", "--seed", "7", "--workers", "2")
        try:
            client = Client(endpoint)
            reply = client.handshake_rpc(Client.request(dataset="toy_datasets:loader", dataset_kwargs='{ "n":40 }'),
                                         timeout=10)
            self.assertEqual([(t.name, t.dtype, list(t.shape)) for t in reply.tensors],
                             [("inputs", "float32", [1, 4, 4]), ("targets", "int64", [])])
            # The loader's num_workers (3) is not what runs: --workers is.
            self.assertEqual(reply.preprocessing_threads, 2)
            for m in client.batches(2, 5, 3, dataset="toy_datasets:loader", dataset_kwargs='{"n": 40}'):
                want = worker.batch_indices(m.index, 40, 4, 7)  # not the loader's shuffle
                self.assertEqual(torch.frombuffer(bytearray(m.targets.data), dtype=torch.int64).tolist(), want)
                inputs = torch.frombuffer(bytearray(m.inputs.data), dtype=torch.float32).reshape(4, 16)
                self.assertEqual(inputs[:, 0].tolist(), [2.0 * i for i in want])  # collate_fn doubled them
            with self.assertRaises(grpc.RpcError) as e:
                client.handshake_rpc(Client.request(dataset="toy_datasets:loader"), timeout=10)
            self.assertIn('this worker\'s are {"n": 40}', e.exception.details())
        finally:
            stop(proc)

    def test_loaders_pperf_cannot_drive_are_refused_naming_why(self) -> None:
        for factory, batch, why in (
                ("toy_datasets:loader", "8", "the DataLoader's batch_size is 4, the workload's is 8"),
                ("toy_datasets:make", "4", "the factory returned a Toy, not a torch DataLoader"),
                ("toy_datasets:loader_iterable", "4", "iterable-style"),
                ("toy_datasets:loader_own_batches", "4", "has its own batch_sampler")):
            p = subprocess.run(["/usr/bin/python3", SCRIPT, "--python-path", HERE, "--dataloader", factory,
                                "--batch-size", batch], capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2, factory)
            self.assertIn(f"--dataloader {factory}: ", p.stderr)
            self.assertIn(why, p.stderr)

    def test_worker_init_fn_that_raises_ends_the_worker_naming_it(self) -> None:
        proc, endpoint = start("--dataloader", "toy_datasets:loader_failing_init", "--batch-size", "4")
        try:
            self.assertEqual(proc.wait(15), 1)
            self.assertIn("worker_init_fn(0) raised RuntimeError: no GPU for worker 0", proc.stderr.read())
        finally:
            stop(proc)


class Tls(unittest.TestCase):
    def test_batches_flow_over_tls_and_plaintext_is_refused(self) -> None:
        d = tempfile.mkdtemp(prefix="pperf-tls-")
        cert, key = os.path.join(d, "worker.pem"), os.path.join(d, "worker.key")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                        "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
                       check=True, capture_output=True, timeout=60)
        proc, endpoint = start("--dataset", "toy_datasets:make", "--batch-size", "4", "--seed", "7",
                               "--tls-cert", cert, "--tls-key", key)
        try:
            port = endpoint.rsplit(":", 1)[1]
            with open(cert, "rb") as f:
                secure = Client("localhost:" + port, root_certificates=f.read())
            self.assertEqual([m.index for m in secure.batches(0, 2, 3)], [0, 2, 4])
            with self.assertRaises(grpc.RpcError) as e:
                Client(endpoint).handshake_rpc(Client.request(), timeout=5)
            self.assertEqual(e.exception.code(), grpc.StatusCode.UNAVAILABLE)
        finally:
            stop(proc)


if __name__ == "__main__":
    unittest.main()
