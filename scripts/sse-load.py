"""RSS of a board daemon before, with and after N SSE clients (issue 28 §3),
and press -> SSE latency over a long game.
usage: sse-load.py EBOARD_BIN TRACE N SPEED
TRACE: as for sse-latency.py, every `t` shifted by 2 s x SPEED (no more: White's
clock runs from the start)."""
import os, socket, subprocess, sys, time, json, select
binp, trace, n, speed = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import probe_board
p, addr, d = probe_board.start(binp, trace, speed, "sse-load")
def status(key):
    for l in open("/proc/%d/status" % p.pid):
        if l.startswith(key + ":"): return int(l.split()[1])
def rss():
    return status("VmRSS")
def anon():
    # Anonymous memory only (heap, allocator arenas, stacks): VmRSS also
    # counts the binary's own code pages (file-backed, shared, reclaimable),
    # which are faulted in as the game first runs each code path.
    return status("RssAnon")
def get(path):
    c = socket.create_connection(addr, timeout=10)
    c.sendall(("GET %s HTTP/1.0\r\nHost: x\r\n\r\n" % path).encode())
    b = b""
    while True:
        x = c.recv(65536)
        if not x: break
        b += x
    c.close(); return b.split(b"\r\n\r\n", 1)[-1].decode()
samples = []
def wait_end():
    while True:
        time.sleep(1)
        try:
            pgn = get("/games.pgn")
        except OSError:
            continue
        samples.append((pgn.count("[%clk"), rss(), anon()))
        if "Result \"*\"" not in pgn and "[Result" in pgn:
            return pgn
        if p.poll() is not None: sys.exit("daemon died")
t0 = time.time()
time.sleep(1)
try:
    get("/games.pgn")
except OSError:
    pass
time.sleep(0.5)
first = rss(); first_anon = anon()
print("before the first move: RSS %d KiB (anonymous %d KiB)" % (first, first_anon))
pgn = wait_end()
print("game over after %.1f s wall; %d [%%clk" % (time.time() - t0, pgn.count("[%clk")))
mid = [x for x in samples if x[0] >= 400]
if len(mid) > 1:
    (p0, r0, a0), (p1, r1, a1) = mid[0], samples[-1]
    print("RSS while playing: %d KiB at ply %d, %d KiB at ply %d: %.0f B per ply (anonymous: %.0f B per ply)" % (r0, p0, r1, p1, (r1 - r0) * 1024 / max(p1 - p0, 1), (a1 - a0) * 1024 / max(p1 - p0, 1)))
time.sleep(12)
idle = rss(); idle_anon = anon(); plies = max(pgn.count("[%clk"), 1)
print("idle RSS %d KiB after the game (%+d KiB, %.0f B per ply); anonymous %d KiB (%+d KiB, %.0f B per ply)" % (idle, idle - first, (idle - first) * 1024 / plies, idle_anon, idle_anon - first_anon, (idle_anon - first_anon) * 1024 / plies))
conns = []
for i in range(n):
    c = socket.create_connection(addr, timeout=10)
    c.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
    conns.append(c)
got = 0
for c in conns:  # each gets the state first
    c.settimeout(10); b = b""
    while b"\n\n" not in b.split(b"\r\n\r\n", 1)[-1] or b"data:" not in b:
        x = c.recv(1 << 20)
        if not x: break
        b += x
    got += b"data:" in b
time.sleep(2)
held = rss(); print("%d clients connected (%d got the state): RSS %d KiB (+%d KiB, %.1f KiB per client)" % (n, got, held, held - idle, (held - idle) / max(n, 1)))
for c in conns: c.close()
conns = []
for w in (1, 5, 12, 22):
    time.sleep(w - (0 if w == 1 else prev)); prev = w
    r = rss(); print("  %2d s after they left: RSS %d KiB (%+d KiB over idle)" % (w, r, r - idle))
p.terminate(); p.wait()
