"""press -> SSE client latency over a long game (issue 28 §1): N clients of
/events from before the first move; for every `move` message, arrival (wall,
unix ms) minus the press's wall time (started_at_unix_ms + t / speed).
A stream that ends (its lease, docs/server.md, after 54-60 s) is reopened
as EventSource does: after its `retry:` time, with `Last-Event-ID` (the
lease's proof), so no move is lost and none comes twice. The load averages
are printed before and after.
usage: sse-latency.py EBOARD_BIN TRACE N SPEED
TRACE: `scripts/long-game.py 1000 > long.pgn; eboard simulate long.pgn --seed 1`,
with every `t` shifted by 4 s x SPEED (the clients connect before the first move)."""
import os, socket, subprocess, sys, time, json, selectors, statistics
binp, trace, n, speed = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import probe_board
def load():
    return "load average %s (1, 5, 15 min)" % " ".join(open("/proc/loadavg").read().split()[:3])
print("before: %s" % load())
# The trace waits 3 s (round time x speed) before its first record: clients connect first.
p, addr, d = probe_board.start(binp, trace, speed, "sse-latency", journal=False)
sel = selectors.DefaultSelector()
bufs, last_id, retry = {}, {}, {}
reopened = 0
def open_stream(i):
    c = socket.create_connection(addr, timeout=10)
    resume = ("Last-Event-ID: %s\r\n" % last_id[i]) if i in last_id else ""
    c.sendall(("GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n%s\r\n" % resume).encode())
    c.setblocking(False); sel.register(c, selectors.EVENT_READ, i); bufs[i] = b""
for i in range(n):
    open_stream(i)
start = None; lat = {}  # ply -> [ms]
seen = {}  # client -> plies seen (a move twice would be a resume's fault)
twice = 0
pending = []  # (when, client) streams to reopen
last = time.time(); done = False
while not done and time.time() - last < 20:
    now_s = time.time()
    for when, i in [x for x in pending if x[0] <= now_s]:
        pending.remove((when, i)); open_stream(i); reopened += 1
    for key, _ in sel.select(timeout=0.05 if pending else 1):
        now = time.time() * 1000
        i = key.data
        try:
            x = key.fileobj.recv(1 << 20)
        except BlockingIOError:
            continue
        except OSError:
            x = b""
        if not x:
            sel.unregister(key.fileobj); key.fileobj.close()
            pending.append((time.time() + retry.get(i, 250) / 1000, i))
            continue
        last = time.time()
        b = bufs[i] + x
        *lines, bufs[i] = b.split(b"\n")
        for l in lines:
            if l.startswith(b"id: "): last_id[i] = l[4:].decode().strip(); continue
            if l.startswith(b"retry: "): retry[i] = int(l[7:]); continue
            if not l.startswith(b"data:"): continue
            try: v = json.loads(l[5:])
            except ValueError: continue
            if v.get("type") == "state" and start is None:
                start = (v["started_at_unix_ms"], v["speed"])
            if v.get("type") == "move" and start:
                press = start[0] + v["t"] / start[1]
                s = seen.setdefault(i, set())
                if v["ply"] in s: twice += 1
                s.add(v["ply"])
                lat.setdefault(v["ply"], []).append(now - press)
            if v.get("type") == "game_end": done = True
p.terminate(); p.wait()
plies = sorted(lat)
print("moves seen: %d plies, clients %d, speed %g; streams reopened %d (leases), moves twice %d, clients missing moves %d"
      % (len(plies), n, speed, reopened, twice, sum(1 for i in range(n) if len(seen.get(i, ())) < len(plies))))
def q(a, f): a = sorted(a); return a[min(len(a) - 1, int(f * len(a)))]
for lo, hi in [(1, 50), (1, 100), (451, 500), (901, 1000), (951, 1000)]:
    a = [x for k in plies if lo <= k <= hi for x in lat[k]]
    if a: print("plies %4d-%4d: median %.1f ms, p90 %.1f, p99 %.1f, max %.1f (%d deliveries)" % (lo, hi, q(a, .5), q(a, .9), q(a, .99), max(a), len(a)))
print("after: %s" % load())
