#!/usr/bin/env python3
"""Does a stream client's advertised TCP window show that it stopped reading?

Issue 26 §3 (docs/dev/server-notes.md, "Why not the TCP window"). A small
SSE server on loopback streams one state message then MSG-byte messages
every EVERY s to real clients: Python readers, never-readers (request sent,
never a recv), slow readers (a recv every 5 s and every 9 s), the same with
the client's MSS set to 1436 (a Wi-Fi/Ethernet segment size instead of
loopback's 65,483), curl -N, and headless Chromium's EventSource. Before
each message the server reads the peer's advertised window from
getsockopt(TCP_INFO): tcpi_snd_wnd (Linux >= 5.4), with
tcpi_notsent_bytes and tcpi_unacked. Each never-reader's receive queue and
receive buffer are read with `ss` at the end.

Usage: scripts/probe-sse-window.py [--family 4|6] [--seconds 40]
       [--every 0.05] [--size 200]
Prints one row per client: the window's first, smallest, largest and last
value (bytes), the largest deficit below the largest value seen after the
first 5 s, and what was sent. A design that closes a stream whose window
stays below its maximum needs the never-readers' deficit to grow.
"""
import argparse
import ctypes
import json
import socket
import struct
import subprocess
import sys
import threading
import time

# Offsets in struct tcp_info (linux/tcp.h), checked at start against the
# header with the C compiler when one is installed.
OFF = {"tcpi_unacked": 24, "tcpi_notsent_bytes": 144, "tcpi_snd_wnd": 228}
INFO_LEN = 232


def check_offsets():
    src = ("#include <stdio.h>\n#include <stddef.h>\n#include <linux/tcp.h>\n"
           "int main(){printf(\"%zu %zu %zu\",offsetof(struct tcp_info,tcpi_unacked),"
           "offsetof(struct tcp_info,tcpi_notsent_bytes),offsetof(struct tcp_info,tcpi_snd_wnd));}")
    try:
        subprocess.run(["cc", "-x", "c", "-o", "/tmp/probe-sse-window-off", "-"], input=src,
                       text=True, check=True, capture_output=True)
        got = subprocess.run(["/tmp/probe-sse-window-off"], capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "not checked (no C compiler or headers)"
    want = "%d %d %d" % (OFF["tcpi_unacked"], OFF["tcpi_notsent_bytes"], OFF["tcpi_snd_wnd"])
    if got != want:
        sys.exit("tcp_info offsets differ from linux/tcp.h: %s, expected %s" % (got, want))
    return "checked against linux/tcp.h"


def tcp_info(s):
    b = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, INFO_LEN)
    if len(b) < INFO_LEN:
        sys.exit("this kernel's tcp_info has no tcpi_snd_wnd (Linux >= 5.4 needed)")
    return {k: struct.unpack_from("I", b, o)[0] for k, o in OFF.items()}


PAGE = b"""<!doctype html><html><body><script>
const es = new EventSource('/events?c=chromium'); let n = 0;
es.onmessage = () => { n++; document.title = 'got ' + n; };
</script></body></html>"""


def serve(conn, args, logs):
    req = b""
    while b"\r\n\r\n" not in req:
        d = conn.recv(4096)
        if not d:
            return
        req += d
    path = req.split(b" ")[1].decode()
    if path == "/":
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n"
                     b"Connection: close\r\n\r\n%s" % (len(PAGE), PAGE))
        conn.close()
        return
    if "c=" not in path:
        conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        conn.close()
        return
    name = path.split("c=")[-1]
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    log = logs.setdefault(name, [])
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")
    sent = 0
    state = b"data: " + b"s" * 2000 + b"\n\n"
    conn.sendall(state)
    sent += len(state)
    t0 = time.time()
    i = 0
    try:
        while time.time() - t0 < args.seconds:
            i += 1
            time.sleep(max(0.0, t0 + i * args.every - time.time()))
            log.append((time.time() - t0, sent, tcp_info(conn)))
            m = b"id: %d\ndata: " % i + b"x" * args.size + b"\n\n"
            conn.sendall(m)
            sent += len(m)
    except OSError:
        pass
    conn.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--family", default="4", choices=["4", "6"])
    ap.add_argument("--seconds", type=float, default=40)
    ap.add_argument("--every", type=float, default=0.05)
    ap.add_argument("--size", type=int, default=200)
    args = ap.parse_args()
    checked = check_offsets()
    fam = socket.AF_INET6 if args.family == "6" else socket.AF_INET
    host = "::1" if args.family == "6" else "127.0.0.1"
    lst = socket.socket(fam, socket.SOCK_STREAM)
    lst.bind((host, 0))
    lst.listen(64)
    port = lst.getsockname()[1]
    logs = {}

    def accept():
        while True:
            c, _ = lst.accept()
            threading.Thread(target=serve, args=(c, args, logs), daemon=True).start()
    threading.Thread(target=accept, daemon=True).start()
    held = {}

    def client(name, every, mss):
        s = socket.socket(fam, socket.SOCK_STREAM)
        if mss:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, mss)
        s.connect((host, port))
        held[name] = s
        s.sendall(b"GET /events?c=%s HTTP/1.1\r\nHost: x\r\n\r\n" % name.encode())
        if every is None:
            return  # never reads
        s.setblocking(False)
        while True:
            time.sleep(every)
            try:
                while s.recv(1 << 16):
                    pass
            except BlockingIOError:
                pass
            except OSError:
                return
    kinds = [("reader", 0.0, None), ("never", None, None), ("slow5", 5.0, None),
             ("slow9", 9.0, None), ("reader-mss1436", 0.0, 1436),
             ("never-mss1436", None, 1436), ("slow5-mss1436", 5.0, 1436)]
    for name, every, mss in kinds:
        threading.Thread(target=client, args=(name, every, mss), daemon=True).start()
    url = "http://%s:%d/" % ("[::1]" if args.family == "6" else "127.0.0.1", port)
    procs = [subprocess.Popen(["curl", "-sN", url + "events?c=curl"], stdout=subprocess.DEVNULL)]
    try:
        procs.append(subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--user-data-dir=/tmp/probe-sse-window-%d" % port, url],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    except OSError:
        print("chromium not installed: no EventSource row")
    time.sleep(args.seconds - 1)
    queues = {}
    for name, s in held.items():
        if name.startswith("never"):
            out = subprocess.run(["ss", "-tmnH", "sport", "=", str(s.getsockname()[1])],
                                 capture_output=True, text=True).stdout.split()
            queues[name] = " ".join(["Recv-Q %s" % (out[1] if len(out) > 1 else "?")] +
                                    [w for w in out if w.startswith("skmem")])
    time.sleep(2.5)
    for p in procs:
        p.kill()
    print("IPv%s loopback, %s, tcp_info offsets %s; a message of %d B every %.3f s for %.0f s"
          % (args.family, open("/proc/sys/kernel/osrelease").read().strip(), checked,
             args.size, args.every, args.seconds))
    print("%-15s %6s %7s %7s %7s %7s %8s %9s %8s" % ("client", "msgs", "first", "min", "max",
                                                    "last", "deficit", "notsent", "sent"))
    for name, log in sorted(logs.items()):
        w = [e[2]["tcpi_snd_wnd"] for e in log]
        if not w:
            continue
        late = [max(w[:k + 1]) - w[k] for k in range(len(w)) if log[k][0] >= 5]
        print("%-15s %6d %7d %7d %7d %7d %8d %9d %8d" % (
            name, len(w), w[0], min(w), max(w), w[-1], max(late or [0]),
            max(e[2]["tcpi_notsent_bytes"] for e in log), log[-1][1]))
    for name, q in sorted(queues.items()):
        print("%s: client's Recv-Q and socket memory at the end: %s" % (name, q))
    json.dump({k: [(t, s, i) for t, s, i in v] for k, v in logs.items()},
              open("/tmp/probe-sse-window-%s.json" % args.family, "w"))


if __name__ == "__main__":
    main()
