#!/usr/bin/env python3
"""Login flood probe (issue 26 §1, docs/server.md "Logins and the
failed-authentication back-off").

From ADDRESSES loopback source addresses (127.0.0.2, 127.0.0.3, …: on Linux
all of 127.0.0.0/8 is local, so each is a distinct source to the daemon),
CONCURRENCY threads each send `POST /console/login` with a wrong secret for
NAME, for SECONDS. Meanwhile the daemon's resident memory (VmRSS of PID) is
sampled every 100 ms, and from 127.0.0.1 an arbiter with a token asks
`/arbiter/state` twice a second (his latency).

Usage: scripts/probe-logins.py HOST:PORT PID NAME [ADDRESSES CONCURRENCY SECONDS TOKEN]
(defaults 50 32 30, no token). Prints one JSON object: idle and peak RSS
(kB), the login answers by status, the arbiter's slowest answer (s).
"""
import collections
import json
import socket
import sys
import threading
import time

import probelib


def request(host, port, source, method, path, body=b"", headers=()):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(15)
    try:
        s.bind((source, 0))
        s.connect((host, port))
        return probelib.status_of(probelib.exchange(s, f"{host}:{port}", method, path, body, headers))
    except OSError:
        return -1
    finally:
        s.close()


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    host, port = sys.argv[1].rsplit(":", 1)
    port = int(port)
    pid = int(sys.argv[2])
    name = sys.argv[3]
    addresses = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    concurrency = int(sys.argv[5]) if len(sys.argv) > 5 else 32
    seconds = float(sys.argv[6]) if len(sys.argv) > 6 else 30
    token = sys.argv[7] if len(sys.argv) > 7 else None
    idle = probelib.rss_kb(pid)
    peak = [idle]
    answers = collections.Counter()
    lock = threading.Lock()
    stop = time.time() + seconds
    body = json.dumps({"name": name, "secret": "a wrong guess"}).encode()

    def attacker(source):
        while time.time() < stop:
            st = request(host, port, source, "POST", "/console/login", body)
            with lock:
                answers[st] += 1

    def sampler():
        while time.time() < stop + 1:
            peak[0] = max(peak[0], probelib.rss_kb(pid))
            time.sleep(0.1)

    slowest = [0.0]
    arbiter_answers = collections.Counter()

    def arbiter():
        while time.time() < stop:
            t = time.time()
            st = request(host, port, "127.0.0.1", "GET", "/arbiter/state",
                         headers=[("Authorization", f"Bearer {token}")])
            slowest[0] = max(slowest[0], time.time() - t)
            arbiter_answers[st] += 1
            time.sleep(0.5)

    threads = [threading.Thread(target=sampler)]
    if token:
        threads.append(threading.Thread(target=arbiter))
    for a in range(addresses):
        source = f"127.0.{(a + 2) // 256}.{(a + 2) % 256}"
        threads += [threading.Thread(target=attacker, args=(source,)) for _ in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps({
        "addresses": addresses, "concurrency": concurrency, "seconds": seconds,
        "rss_idle_kb": idle, "rss_peak_kb": peak[0], "rss_growth_kb": peak[0] - idle,
        "logins": {str(k): v for k, v in sorted(answers.items())},
        "arbiter": {str(k): v for k, v in sorted(arbiter_answers.items())},
        "arbiter_slowest_s": round(slowest[0], 3),
    }))


if __name__ == "__main__":
    main()
