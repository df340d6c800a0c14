#!/usr/bin/env python3
"""The IPv6 /64 guesser (issue 26 §2, docs/server.md "Logins and the
failed-authentication back-off"): one host owns a /64 and guesses from a
new /128 every time.

Runs itself in a fresh network namespace (`unshare -n`, needs root): on its
loopback, 2001:db8:26::/64 (the guesser's) and 2001:db8:27::/64 (another
host's) are local (AnyIP routes; sockets bind with IPV6_FREEBIND). It
starts `EBOARD run` there (TLS, its made certificate: the arbiter's routes
answer plain HTTP from loopback only), with one console account, then for
SECONDS sends guesses from THREADS threads, each from a random /128 of the
guesser's /64, in turn: a wrong bearer token on /arbiter/state, a login
naming no account, a login with a wrong pass phrase for the account.
Afterwards, from the same /64: the arbiter's right token (never refused);
from the other /64: one wrong token (not blocked by the guesser's block).

Usage: scripts/probe-v6-guesser.py EBOARD [SECONDS THREADS]  (defaults 5 16)
Prints one JSON object: the guesses by status, how many were answered 401
(checked) rather than 429 (blocked), the arbiter's status, the other /64's.
"""
import json
import os
import random
import secrets
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

import probelib

GUESSER = "2001:db8:26::"
OTHER = "2001:db8:27::"
SERVER = "2001:db8:26::1"
PORT = 18443
NAME = "IA Hansen"
IPV6_FREEBIND = 78


def in_namespace():
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    subprocess.run(["ip", "-6", "addr", "add", f"{SERVER}/64", "dev", "lo", "nodad"], check=True)
    for net in (GUESSER, OTHER):
        subprocess.run(["ip", "-6", "route", "add", "local", f"{net}/64", "dev", "lo"], check=True)


def random_source(net):
    return net + ":".join(f"{random.randrange(1, 0xffff):x}" for _ in range(4))


def request(source, method, path, body=b"", headers=()):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    s = socket.socket(socket.AF_INET6)
    s.setsockopt(socket.IPPROTO_IPV6, IPV6_FREEBIND, 1)
    s.settimeout(15)
    try:
        s.bind((source, 0))
        s.connect((SERVER, PORT))
        t = ctx.wrap_socket(s)
        return probelib.status_of(probelib.exchange(t, f"[{SERVER}]:{PORT}", method, path, body, headers))
    except (OSError, ssl.SSLError):
        return -1
    finally:
        s.close()


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        sys.exit(__doc__)
    if os.environ.get("EBOARD_PROBE_NETNS") != "1":
        env = dict(os.environ, EBOARD_PROBE_NETNS="1")
        sys.exit(subprocess.run(["unshare", "-n", sys.executable] + sys.argv, env=env).returncode)
    eboard = os.path.abspath(sys.argv[1])
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 5
    threads_n = int(sys.argv[3]) if len(sys.argv) > 3 else 16
    in_namespace()
    d = tempfile.mkdtemp(prefix="eboard-v6-")
    token, _, hashed = probelib.credentials(eboard)
    cfg = os.path.join(d, "board.toml")
    with open(cfg, "w") as f:
        f.write(probelib.board_config(token, "Probe", site="Odense DEN", date="2026.11.26", accounts=[(NAME, hashed)]))
    log = open(os.path.join(d, "daemon.log"), "w")
    daemon = subprocess.Popen([eboard, "run", "--config", cfg, "--listen", f"[::]:{PORT}",
                               "--journal", os.path.join(d, "j.jsonl")],
                              stdin=subprocess.PIPE, stdout=log, stderr=log)
    try:
        deadline = time.time() + 30
        while request(OTHER + "99", "GET", "/games.pgn") != 200:
            if time.time() > deadline or daemon.poll() is not None:
                sys.exit(f"the daemon did not serve: {open(log.name).read()[-2000:]}")
            time.sleep(0.2)
        answers = {}
        lock = threading.Lock()
        stop = time.time() + seconds
        kinds = [
            ("GET", "/arbiter/state", b"", lambda: [("Authorization", f"Bearer {secrets.token_hex(16)}")]),
            ("POST", "/console/login", json.dumps({"name": "nobody", "secret": "guess"}).encode(), lambda: []),
            ("POST", "/console/login", json.dumps({"name": NAME, "secret": "guess"}).encode(), lambda: []),
        ]
        sources = set()

        def guesser(i):
            n = i
            while time.time() < stop:
                method, path, body, headers = kinds[n % len(kinds)]
                n += 1
                src = random_source(GUESSER)
                st = request(src, method, path, body, headers())
                k = path if method == "GET" else f"{path} {json.loads(body)['name']}"
                with lock:
                    sources.add(src)
                    answers.setdefault(k, {})
                    answers[k][str(st)] = answers[k].get(str(st), 0) + 1

        ts = [threading.Thread(target=guesser, args=(i,)) for i in range(threads_n)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        checked = sum(v.get("401", 0) for v in answers.values())
        blocked = sum(v.get("429", 0) for v in answers.values())
        arbiter = request(random_source(GUESSER), "GET", "/arbiter/state",
                          headers=[("Authorization", f"Bearer {token}")])
        other = request(random_source(OTHER), "GET", "/arbiter/state",
                        headers=[("Authorization", f"Bearer {secrets.token_hex(16)}")])
        print(json.dumps({
            "seconds": seconds, "threads": threads_n, "sources_used": len(sources),
            "guesses": sum(sum(v.values()) for v in answers.values()),
            "answers": answers, "checked_401": checked, "blocked_429": blocked,
            "arbiter_token_from_the_same_64": arbiter,
            "wrong_token_from_another_64": other,
        }, indent=1))
    finally:
        probelib.stop(daemon)
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
