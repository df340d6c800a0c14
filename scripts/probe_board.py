"""The board daemon the probe scripts measure (sse-latency.py, sse-load.py):
a one-game config with the arbiter token of tests/common/mod.rs and no
per-address connection cap (the probes' clients all come from 127.0.0.1),
started on a free loopback port with RUST_LOG=warn.
start(bin, trace, speed, name, journal=True) -> (process, (host, port), work dir)."""
import os, socket, subprocess, time

import probelib

CONFIG = probelib.board_config("7f3c9a1e5b2d4c6e8a0b1c2d3e4f5a6b", "Long", white="A, B", black="C, D",
                      extra="\n[server]\nmax_connections_per_address = 0\n")


def start(binp, trace, speed, name, journal=True):
    """Writes the config into /tmp/eboard-NAME-PID, starts `eboard run` on a
    free port with the trace at `speed` (and a journal unless `journal` is
    false), and waits (5 s at most)
    until it accepts connections. The daemon's stderr goes to DIR/err."""
    d = "/tmp/eboard-%s-%d" % (name, os.getpid())
    os.makedirs(d, exist_ok=True)
    cfg = os.path.join(d, "board.toml")
    with open(cfg, "w") as f:
        f.write(CONFIG)
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
    addr = ("127.0.0.1", port)
    args = [binp, "run", "--config", cfg, "--trace", trace, "--speed", str(speed),
            "--listen", "%s:%d" % addr]
    if journal:
        args += ["--journal", os.path.join(d, "j.jsonl")]
    p = subprocess.Popen(args,
                         stdout=subprocess.DEVNULL, stderr=open(os.path.join(d, "err"), "w"),
                         env=dict(os.environ, RUST_LOG="warn"))
    for _ in range(100):
        try:
            socket.create_connection(addr, timeout=1).close(); break
        except OSError:
            time.sleep(0.05)
    return p, addr, d
