#!/usr/bin/python3
"""A slow trainer: reads one batch of a data worker's stream every INTERVAL_S seconds, BATCHES
times, with the receive window pperf's trainer uses (WINDOW_BYTES; 0: grpcio's defaults, BDP
probing on). Prints how many it read and how the stream ended; exits 0 when all were read.
With STOP_AFTER > 0 it stops reading after that many for PAUSE_S instead, then reads on and
reports how the worker ended the stream (exit 3).

usage: worker_slow_reader.py [--batch-size N] BUILD_DIR HOST:PORT INTERVAL_S BATCHES WINDOW_BYTES [STOP_AFTER PAUSE_S]
(env PPERF_DATA_TOKEN: the token; the worker serves mnist_heavy, preset tiny, synthetic data, with
batch size N: 8 unless given)
"""
import json
import os
import sys
import time

batch_size = 8
if sys.argv[1] == "--batch-size":
    batch_size = int(sys.argv[2])
    del sys.argv[1:3]
sys.path.insert(0, sys.argv[1])
import grpc  # noqa: E402
import data_service_pb2 as pb  # noqa: E402

endpoint, interval, batches, window = sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
stop_after = int(sys.argv[6]) if len(sys.argv) > 6 else 0
stop_after_s = float(sys.argv[7]) if len(sys.argv) > 7 else 0
options = [("grpc.max_receive_message_length", 1 << 30)]
if window:
    options += [("grpc.http2.lookahead_bytes", window), ("grpc.http2.bdp_probe", 0)]
channel = grpc.insecure_channel(endpoint, options=options)
stream = channel.unary_stream("/pperf.dataservice.DataService/StreamBatches",
                              request_serializer=pb.StreamRequest.SerializeToString,
                              response_deserializer=pb.BatchMessage.FromString)
workload = pb.WorkloadRequest(name="mnist_heavy", preset="tiny", batch_size=batch_size,
                              params_json=json.dumps({"data": "synthetic", "data_dir": "/usr/share/datasets/fashion-mnist",
                                                         "lr": 1.0, "split": "train"}), seed=0,
                              wire="uint8")  # what a worker started without --wire sends for mnist_heavy
request = pb.StreamRequest(handshake=pb.HandshakeRequest(schema_version=1, token=os.environ.get("PPERF_DATA_TOKEN", ""),
                                                         workload=workload), first_index=0, stride=1)
start = time.monotonic()
read = 0
call = stream(request)
try:
    for _ in call:
        read += 1
        if stop_after and read == stop_after:
            time.sleep(stop_after_s)  # then read on: what was in flight, then the worker's status
            try:
                for _ in call:
                    pass
            except grpc.RpcError as e:
                print(f"stopped reading after {read} batches for {stop_after_s} s; the stream had ended: "
                      f"{e.code().name} {e.details()}")
                sys.exit(3)
            sys.exit(1)
        if read == batches:
            break
        time.sleep(interval)
    print(f"read {read} batches, one every {interval} s, over {time.monotonic() - start:.1f} s: not dropped")
    sys.exit(0 if read == batches else 1)
except grpc.RpcError as e:
    print(f"dropped after {read} batches ({time.monotonic() - start:.1f} s): {e.code().name} {e.details()}")
    sys.exit(2)
