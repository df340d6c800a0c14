#!/usr/bin/env python3
"""Many-address probe of the listener (issue 26 §3 and §7, docs/server.md
"Connection limits", docs/dev/server-notes.md "Measured under many addresses").

From ADDRESSES loopback source addresses (127.0.0.2, 127.0.0.3, …: on Linux
all of 127.0.0.0/8 is local, so each is a distinct source to the daemon),
PER connections each attack the daemon for SECONDS in one MODE, every
connection reopened as soon as the daemon closes it:

  idle       connect and send nothing
  sse        GET /events, then never read a byte
  tls        the first 64 bytes of a TLS ClientHello, then nothing
  slowloris  a request head, one header line every 5 s, never finished
  login      POST /console/login with a wrong secret for NAME, over and
             over (issue 26 §1; NAME is the account's name)

Meanwhile, from other addresses:
  - the arbiter (127.0.0.1, with TOKEN) asks /arbiter/state twice a second;
  - a spectator (127.0.0.250) alternates GET /games.pgn and a new
    /events stream read up to its first message, 10 times a second;
  - a watcher (127.0.0.251) follows /events as EventSource does: reads
    everything, reconnects at once when the stream ends with the id it
    read last (a lease's proof, docs/server.md "SSE streams end after a
    lease"); it reports its streams, how each ended (a lease, closed
    without one, refused) and the time it was without a stream;
  - the board loop's move lag: an /arbiter/events reader (127.0.0.1, token)
    timestamps every `move`; its lag is its arrival (Unix ms) less
    `t` / SPEED less the smallest such offset seen in a quiet BASELINE
    period before the attack (the daemon must replay a trace with
    `eboard run --trace T --speed SPEED`).

Usage: scripts/probe-reserve.py HOST:PORT TOKEN MODE [ADDRESSES PER SECONDS
SPEED BASELINE NAME]  (defaults 140 32 30 1 10 "")
Prints one JSON object. Needs `ulimit -n` above ADDRESSES × PER + 1000.
"""
import asyncio
import json
import multiprocessing
import os
import socket
import ssl
import sys
import threading
import time

import probelib

CLIENT_HELLO_START = bytes.fromhex("1603010200010001fc0303") + os.urandom(32) + b"\x00" * 21


async def attacker_conn(host, port, source, mode, name, stop_at, counts):
    while time.time() < stop_at:
        try:
            r, w = await asyncio.wait_for(
                asyncio.open_connection(host, port, local_addr=(source, 0)), 10)
        except Exception:
            counts["failed"] += 1
            await asyncio.sleep(0.2)
            continue
        counts["opened"] += 1
        try:
            if mode == "sse":
                w.write(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
            elif mode == "tls":
                w.write(CLIENT_HELLO_START[:64])
            elif mode == "slowloris":
                w.write(b"GET /games.pgn HTTP/1.1\r\nHost: x\r\n")
            elif mode == "login":
                body = json.dumps({"name": name, "secret": "wrong guess " + source}).encode()
                while time.time() < stop_at:
                    w.write(b"POST /console/login HTTP/1.1\r\nHost: x\r\n"
                            b"Content-Type: application/json\r\n"
                            + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
                    head = await asyncio.wait_for(r.readuntil(b"\r\n\r\n"), 15)
                    n = 0
                    for line in head.split(b"\r\n"):
                        if line.lower().startswith(b"content-length:"):
                            n = int(line.split(b":")[1])
                    await r.readexactly(n)
                    if b"connection: close" in head.lower():
                        break
                continue
            await w.drain()
            # Hold it: never read (sse), or trickle (slowloris), until closed.
            while time.time() < stop_at:
                if mode == "slowloris":
                    await asyncio.sleep(5)
                    w.write(b"X-a: b\r\n")
                    await w.drain()
                else:
                    await asyncio.sleep(1)
                if w.is_closing():
                    break
                # Closed by the daemon: our socket left ESTABLISHED (its FIN
                # or RST arrived), seen without reading a byte (TCP_INFO's
                # first byte is the state; 1 = ESTABLISHED).
                sock = w.transport.get_extra_info("socket")
                try:
                    if sock is None or sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0] != 1:
                        break
                except OSError:
                    break
        except Exception:
            pass
        finally:
            counts["closed"] += 1
            w.close()


def attack_process(host, port, sources, per, mode, name, stop_at, out):
    counts = {"opened": 0, "closed": 0, "failed": 0}

    async def main():
        await asyncio.gather(*[
            attacker_conn(host, port, s, mode, name, stop_at, counts)
            for s in sources for _ in range(per)])
    try:
        asyncio.run(main())
    finally:
        out.put(counts)


def get(host, port, source, path, token=None, first_event=False, timeout=10):
    """(status, seconds) of one request from `source`; with first_event, the
    time to the first `data:` line of a stream."""
    t = time.time()
    s = socket.socket()
    s.settimeout(timeout)
    try:
        s.bind((source, 0))
        s.connect((host, port))
        head = f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n"
        if token:
            head += f"Authorization: Bearer {token}\r\n"
        s.sendall(head.encode() + b"\r\n")
        data = probelib.read_all(s, until=(lambda d: b"\ndata:" in d) if first_event else None)
        status = probelib.status_of(data)
        if first_event and status == 200 and b"\ndata:" not in data:
            status = 0
        return status, time.time() - t, t
    except Exception:
        return 0, time.time() - t, t
    finally:
        s.close()


def watcher(host, port, source, stop_at, out):
    """Follows /events from `source` until `stop_at` as EventSource does
    (the last id back as Last-Event-ID, at once); fills `out`."""
    last = None
    out.update(streams=0, leases=0, closed_unleased=0, refused=0, proven=0,
               messages=0, unserved_s=0.0)
    while time.time() < stop_at:
        t0 = time.time()
        s = socket.socket()
        s.settimeout(5)
        leased = False
        try:
            s.bind((source, 0))
            s.connect((host, port))
            head = f"GET /events HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n"
            if last:
                head += f"Last-Event-ID: {last}\r\n"
            s.sendall(head.encode() + b"\r\n")
            buf = b""
            first = True
            while time.time() < stop_at:
                try:
                    chunk = s.recv(65536)
                except socket.timeout:
                    continue
                if not chunk:
                    break
                buf += chunk
                if first and b"\r\n\r\n" in buf:
                    first = False
                    status = buf.split(b" ", 2)[1]
                    if status != b"200":
                        out["refused"] += 1
                        break
                    out["streams"] += 1
                    out["unserved_s"] += time.time() - t0
                    if b"proof accepted" in buf.split(b"\r\n\r\n")[0]:
                        out["proven"] += 1
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    line = line.rstrip(b"\r")
                    if line.startswith(b"id: "):
                        last = line[4:].decode()
                    elif line == b"event: lease":
                        leased = True
                    elif line.startswith(b"data: "):
                        out["messages"] += 1
            if not first and time.time() < stop_at:
                out["leases" if leased else "closed_unleased"] += 1
        except Exception:
            out["refused"] += 1
            out["unserved_s"] += time.time() - t0
        finally:
            s.close()


def pct(xs, p):
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def summary(results):
    served = [s for st, s, _ in results if st == 200]
    slowest = sorted(results, key=lambda r: -r[1])[:3]
    return {
        "asked": len(results),
        "served": len(served),
        "served_pct": round(100 * len(served) / len(results), 2) if results else None,
        "p50_ms": round(1000 * pct(served, 50), 1) if served else None,
        "p99_ms": round(1000 * pct(served, 99), 1) if served else None,
        "max_ms": round(1000 * max(served), 1) if served else None,
        "statuses": sorted({st for st, _, _ in results}),
        # The three slowest: (status, ms, when it started, UTC) to set
        # beside the daemon's log.
        "slowest": [(st, round(1000 * secs, 1), time.strftime("%H:%M:%S", time.gmtime(at))
                     + f".{int(at % 1 * 1000):03d}") for st, secs, at in slowest],
    }


def move_reader(host, port, token, speed, moves, stop):
    """Reads /arbiter/events; appends (arrival unix ms, t ms) per move."""
    while not stop.is_set():
        s = socket.socket()
        s.settimeout(2)
        try:
            s.bind(("127.0.0.1", 0))
            s.connect((host, port))
            s.sendall(f"GET /arbiter/events HTTP/1.1\r\nHost: {host}\r\n"
                      f"Authorization: Bearer {token}\r\n\r\n".encode())
            buf = b""
            while not stop.is_set():
                try:
                    chunk = s.recv(65536)
                except socket.timeout:
                    continue
                if not chunk:
                    break
                now = time.time() * 1000
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    if line.startswith(b"data:"):
                        try:
                            ev = json.loads(line[5:])
                        except ValueError:
                            continue
                        if ev.get("type") == "move" and "t" in ev:
                            moves.append((now, ev["t"] / speed))
        except Exception:
            time.sleep(0.2)
        finally:
            s.close()


def main():
    a = sys.argv[1:]
    if len(a) < 3 or a[0] in ("-h", "--help"):
        sys.exit(__doc__)
    host, port = a[0].rsplit(":", 1)
    port = int(port)
    token, mode = a[1], a[2]
    addresses = int(a[3]) if len(a) > 3 else 140
    per = int(a[4]) if len(a) > 4 else 32
    seconds = float(a[5]) if len(a) > 5 else 30
    speed = float(a[6]) if len(a) > 6 else 1.0
    baseline = float(a[7]) if len(a) > 7 else 10
    name = a[8] if len(a) > 8 else ""

    stop = threading.Event()
    moves = []
    reader = threading.Thread(target=move_reader, args=(host, port, token, speed, moves, stop), daemon=True)
    reader.start()
    time.sleep(baseline)
    quiet = list(moves)

    sources = [f"127.0.0.{i}" for i in range(2, 2 + addresses)]
    start = time.time()
    stop_at = start + seconds
    out = multiprocessing.Queue()
    # Two attacker processes (the probe's own GIL must not throttle it).
    halves = [sources[0::2], sources[1::2]]
    procs = [multiprocessing.Process(target=attack_process,
                                     args=(host, port, h, per, mode, name, stop_at, out))
             for h in halves if h]
    for p in procs:
        p.start()
    arbiter, pgn, stream = [], [], []
    watched = {}

    def arbiter_loop():
        while time.time() < stop_at:
            arbiter.append(get(host, port, "127.0.0.1", "/arbiter/state", token))
            time.sleep(0.5)

    def spectator_loop():
        i = 0
        while time.time() < stop_at:
            if i % 2 == 0:
                pgn.append(get(host, port, "127.0.0.250", "/games.pgn"))
            else:
                stream.append(get(host, port, "127.0.0.250", "/events", first_event=True))
            i += 1
            time.sleep(0.1)

    # The clients start once the flood is under way (its first second).
    time.sleep(min(2.0, seconds / 4))
    threads = [threading.Thread(target=arbiter_loop), threading.Thread(target=spectator_loop),
               threading.Thread(target=watcher, args=(host, port, "127.0.0.251", stop_at, watched))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    counts = {"opened": 0, "closed": 0, "failed": 0}
    for p in procs:
        p.join(timeout=30)
        try:
            c = out.get(timeout=5)
            for k in counts:
                counts[k] += c[k]
        except Exception:
            pass
    stop.set()
    during = [m for m in moves if start * 1000 <= m[0] <= stop_at * 1000]
    base = min((arr - t for arr, t in quiet), default=None)
    lag = lambda ms: [arr - t - base for arr, t in ms] if base is not None else []
    print(json.dumps({
        "mode": mode,
        "addresses": addresses,
        "per_address": per,
        "seconds": seconds,
        "attack_connections": counts,
        "arbiter": summary(arbiter),
        "spectator_pgn": summary(pgn),
        "spectator_stream_first_message": summary(stream),
        "spectator": summary(pgn + stream),
        "watcher": watched,
        "move_lag_ms": {
            "quiet": {"moves": len(quiet), "p50": pct(lag(quiet), 50), "max": max(lag(quiet), default=None)},
            "attack": {"moves": len(during), "p50": pct(lag(during), 50),
                       "p99": pct(lag(during), 99), "max": max(lag(during), default=None)},
        },
        "loadavg": os.getloadavg(),
    }, indent=1))


if __name__ == "__main__":
    main()
