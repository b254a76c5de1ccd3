#!/usr/bin/env python3
"""Floods a `forms-mcp --http` binary and prints one JSON line of figures: the server's
resident memory (VmRSS, MiB) and open files before and after, how long an attacking
connection stayed open, and whether (and how fast) a normal `initialize` still answered.

usage: python3 http_floods.py BINARY SCENARIO [extra server flags...]

scenarios:
  slow-headers  a request head sent one byte every 3 s (seconds until the server closes it)
  endless-body  a chunked body sent one byte a second, never ending
  idle-sockets  260 idle sockets against an open-file limit of 256, then a normal call
  sessions      6,000 `initialize` calls on one connection (FLOOD_N changes the count)
  bodies        64 bodies of 4 MiB sent but for their last byte, then a normal call

The figures of the README's "Security model of forms-mcp --http" come from this script on
release builds (`cargo build --release -p forms-mcp --features cli`).
"""
import json
import os
import socket
import subprocess
import sys
import threading
import time

BIN = sys.argv[1]
SCENARIO = sys.argv[2]
EXTRA = sys.argv[3:]


def start(nofile=None):
    cmd = [BIN, "--http", "127.0.0.1:0", *EXTRA]
    if nofile:
        cmd = ["sh", "-c", f"ulimit -n {nofile}; exec \"$@\"", "sh", *cmd]
    p = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    line = p.stderr.readline()
    url = line.strip().removeprefix("listening on ")
    port = int(url.split(":")[2].split("/")[0])
    threading.Thread(target=lambda: [None for _ in p.stderr], daemon=True).start()
    return p, port


def rss(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) // 1024
    return -1


def fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def initialize_bytes(port, proto="2025-11-25", sid=None):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": proto, "capabilities": {}, "clientInfo": {"name": "f", "version": "1"}}})
    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n")
    if sid:
        head += f"Mcp-Session-Id: {sid}\r\n"
    return (head + "\r\n" + body).encode()


def normal_call(port, timeout=60):
    """initialize on a fresh connection; returns (ok, seconds)."""
    t = time.time()
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        s.sendall(initialize_bytes(port))
        data = b""
        while b"serverInfo" not in data:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        s.close()
        return b"serverInfo" in data, round(time.time() - t, 2)
    except Exception as e:  # noqa
        return f"error {e}", round(time.time() - t, 2)


def until_closed(s, feed, limit=60):
    """Feeds the socket with feed() every few seconds; returns seconds until the peer closed."""
    t = time.time()
    s.settimeout(0.5)
    while time.time() - t < limit:
        try:
            feed()
        except OSError:
            return round(time.time() - t, 1)
        try:
            if s.recv(65536) == b"":
                return round(time.time() - t, 1)
        except socket.timeout:
            pass
        except OSError:
            return round(time.time() - t, 1)
    return f">{limit} (still open)"


def main():
    nofile = 256 if SCENARIO == "idle-sockets" else None
    p, port = start(nofile)
    time.sleep(0.3)
    out = {"scenario": SCENARIO, "rss_start_mib": rss(p.pid), "fds_start": fds(p.pid)}
    if SCENARIO == "slow-headers":
        s = socket.create_connection(("127.0.0.1", port))
        msg = iter(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 1000)
        last = [0.0]

        def feed():
            if time.time() - last[0] >= 3:
                s.send(bytes([next(msg)]))
                last[0] = time.time()
        out["closed_after_s"] = until_closed(s, feed)
    elif SCENARIO == "endless-body":
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall((f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                   "Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n").encode())
        last = [0.0]

        def feed():
            if time.time() - last[0] >= 1:
                s.send(b"1\r\n \r\n")
                last[0] = time.time()
        out["closed_after_s"] = until_closed(s, feed)
    elif SCENARIO == "idle-sockets":
        socks = []
        for _ in range(260):
            try:
                socks.append(socket.create_connection(("127.0.0.1", port), timeout=5))
            except OSError as e:
                out["connect_error"] = str(e)
                break
        time.sleep(1)
        out["fds_flood"] = fds(p.pid)
        out["normal_call"] = normal_call(port, timeout=60)
        out["fds_after"] = fds(p.pid)
        alive = 0
        for s in socks:
            s.setblocking(False)
            try:
                alive += s.recv(1) != b""
            except BlockingIOError:
                alive += 1
            except OSError:
                pass
        out["flood_sockets_still_open"] = alive
    elif SCENARIO == "sessions":
        s = socket.create_connection(("127.0.0.1", port))
        f = s.makefile("rb")
        refused = 0
        t = time.time()
        for i in range(int(os.environ.get("FLOOD_N", "6000"))):
            s.sendall(initialize_bytes(port))
            status = f.readline()
            length = None
            chunked = False
            while True:
                line = f.readline()
                if line in (b"\r\n", b""):
                    break
                k, _, v = line.decode().partition(":")
                if k.lower() == "content-length":
                    length = int(v)
                if k.lower() == "transfer-encoding" and "chunked" in v:
                    chunked = True
            if not status.startswith(b"HTTP/1.1 200"):
                refused += 1
            if length is not None:
                f.read(length)
            elif chunked:
                # The SSE reply of initialize: read chunks until the terminating one.
                while True:
                    size = int(f.readline().split(b";")[0], 16)
                    f.read(size + 2)
                    if size == 0:
                        break
            else:
                s.close()
                s = socket.create_connection(("127.0.0.1", port))
                f = s.makefile("rb")
        out["initialize_s"] = round(time.time() - t, 1)
        out["refused"] = refused
        out["rss_flood_mib"] = rss(p.pid)
        out["normal_call"] = normal_call(port)
    elif SCENARIO == "bodies":
        socks = []
        big = 4 * 1024 * 1024
        chunk = b"x" * 65536
        for _ in range(64):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall((f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                       f"Accept: application/json, text/event-stream\r\nContent-Length: {big}\r\n\r\n").encode())
            s.setblocking(False)
            socks.append([s, big - 1])
        t = time.time()
        while time.time() - t < 20 and any(left > 0 for _, left in socks):
            for entry in socks:
                s, left = entry
                if left <= 0:
                    continue
                try:
                    n = s.send(chunk[: min(len(chunk), left)])
                    entry[1] -= n
                except (BlockingIOError, OSError):
                    pass
        out["bytes_sent_mib"] = round(sum(big - 1 - left for _, left in socks) / 2**20)
        time.sleep(1)
        out["rss_flood_mib"] = rss(p.pid)
        out["normal_call"] = normal_call(port)
    out["rss_end_mib"] = rss(p.pid)
    p.kill()
    print(json.dumps(out))


main()
