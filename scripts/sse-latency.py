"""press -> SSE client latency over a long game (issue 28 §1): N clients of
/events from before the first move; for every `move` message, arrival (wall,
unix ms) minus the press's wall time (started_at_unix_ms + t / speed).
usage: sse-latency.py EBOARD_BIN TRACE N SPEED
TRACE: `scripts/long-game.py 1000 > long.pgn; eboard simulate long.pgn --seed 1`,
with every `t` shifted by 4 s x SPEED (the clients connect before the first move)."""
import os, socket, subprocess, sys, time, json, selectors, statistics
binp, trace, n, speed = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import probe_board
# The trace waits 3 s (round time x speed) before its first record: clients connect first.
p, addr, d = probe_board.start(binp, trace, speed, "sse-latency", journal=False)
sel = selectors.DefaultSelector()
bufs = {}
for i in range(n):
    c = socket.create_connection(addr, timeout=10)
    c.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
    c.setblocking(False); sel.register(c, selectors.EVENT_READ, i); bufs[i] = b""
start = None; lat = {}  # ply -> [ms]
last = time.time(); done = False
while not done and time.time() - last < 20:
    for key, _ in sel.select(timeout=1):
        now = time.time() * 1000
        try:
            x = key.fileobj.recv(1 << 20)
        except BlockingIOError:
            continue
        if not x:
            sel.unregister(key.fileobj); continue
        last = time.time()
        b = bufs[key.data] + x
        *lines, bufs[key.data] = b.split(b"\n")
        for l in lines:
            if not l.startswith(b"data:"): continue
            try: v = json.loads(l[5:])
            except ValueError: continue
            if v.get("type") == "state" and start is None:
                start = (v["started_at_unix_ms"], v["speed"])
            if v.get("type") == "move" and start:
                press = start[0] + v["t"] / start[1]
                lat.setdefault(v["ply"], []).append(now - press)
            if v.get("type") == "game_end": done = True
p.terminate(); p.wait()
plies = sorted(lat)
print("moves seen: %d plies, clients %d, speed %g" % (len(plies), n, speed))
def q(a, f): a = sorted(a); return a[min(len(a) - 1, int(f * len(a)))]
for lo, hi in [(1, 50), (1, 100), (451, 500), (901, 1000), (951, 1000)]:
    a = [x for k in plies if lo <= k <= hi for x in lat[k]]
    if a: print("plies %4d-%4d: median %.1f ms, p90 %.1f, p99 %.1f, max %.1f (%d deliveries)" % (lo, hi, q(a, .5), q(a, .9), q(a, .99), max(a), len(a)))
