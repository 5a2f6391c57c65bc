#!/usr/bin/python3
"""A slow trainer: reads one batch of a data worker's stream every INTERVAL_S seconds, BATCHES
times, with the receive window pperf's trainer uses (WINDOW_BYTES; 0: grpcio's defaults, BDP
probing on). Prints how many it read and how the stream ended; exits 0 when all were read.
Then, with STOP_AFTER > 0, it stops reading after that many and reports when the worker
cancelled the stream.

usage: worker_slow_reader.py BUILD_DIR HOST:PORT INTERVAL_S BATCHES WINDOW_BYTES [STOP_AFTER]
(env PPERF_DATA_TOKEN: the token; the worker serves worker_limits_test.sh's mnist_heavy config)
"""
import json
import os
import sys
import time

sys.path.insert(0, sys.argv[1])
import grpc  # noqa: E402
import data_service_pb2 as pb  # noqa: E402

endpoint, interval, batches, window = sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
stop_after = int(sys.argv[6]) if len(sys.argv) > 6 else 0
options = [("grpc.max_receive_message_length", 1 << 30)]
if window:
    options += [("grpc.http2.lookahead_bytes", window), ("grpc.http2.bdp_probe", 0)]
channel = grpc.insecure_channel(endpoint, options=options)
stream = channel.unary_stream("/pperf.dataservice.DataService/StreamBatches",
                              request_serializer=pb.StreamRequest.SerializeToString,
                              response_deserializer=pb.BatchMessage.FromString)
workload = pb.WorkloadRequest(name="mnist_heavy", preset="tiny", batch_size=8,
                              params_json=json.dumps({"data": "synthetic", "data_dir": "/usr/share/datasets/fashion-mnist",
                                                         "lr": 1.0, "split": "train"}), seed=0)
request = pb.StreamRequest(handshake=pb.HandshakeRequest(schema_version=1, token=os.environ.get("PPERF_DATA_TOKEN", ""),
                                                         workload=workload), first_index=0, stride=1)
start = time.monotonic()
read = 0
try:
    for _ in stream(request):
        read += 1
        if stop_after and read == stop_after:
            stopped = time.monotonic()
            time.sleep(600)  # until the worker cancels the stream (the caller bounds this)
        if read == batches:
            break
        time.sleep(interval)
    print(f"read {read} batches, one every {interval} s, over {time.monotonic() - start:.1f} s: not dropped")
    sys.exit(0 if read == batches else 1)
except grpc.RpcError as e:
    took = time.monotonic() - (stopped if stop_after and read >= stop_after else start)
    print(f"dropped after {read} batches ({took:.1f} s{' after it stopped reading' if stop_after else ''}): "
          f"{e.code().name} {e.details()}")
    sys.exit(2)
