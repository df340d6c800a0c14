"""What the probe scripts share (docs/server.md): a board's config, the
arbiter's token and an account's pass phrase minted by `eboard token`, one
raw HTTP/1.0 exchange, a daemon's resident memory and CPU time, and
stopping a daemon.

Imported by probe-logins.py, probe-reserve.py, probe-v6-guesser.py,
judge-issue26.py and probe_board.py (itself used by sse-latency.py and
sse-load.py); a script's own folder is on Python's path when it runs, so
`import probelib` finds this file.
"""
import os
import secrets
import subprocess


def board_config(token, event, *, white="White, A", black="Black, B", site=None, date=None,
                 time_control="5400+30", accounts=(), extra=""):
    """A one-game board config (round 1, board 1; pkg/eboard.toml.5) as TOML
    text: the event `event` (with `site` and `date` when given, and
    `time_control` unless it is None), the players' names, the chief
    arbiter's bearer `token`, one `[[arbiter.accounts]]` per (name,
    secret_hash) of `accounts`, then `extra` (more tables) verbatim."""
    ev = f'[event]\nname = "{event}"\n'
    if site:
        ev += f'site = "{site}"\n'
    if date:
        ev += f'date = "{date}"\n'
    if time_control:
        ev += f'time_control = "{time_control}"\n'
    text = f'''{ev}
[game]
round = 1
board = 1

[game.white]
name = "{white}"

[game.black]
name = "{black}"

[arbiter]
name = "Chief Arbiter"
token = "{token}"
'''
    for name, hashed in accounts:
        text += f'\n[[arbiter.accounts]]\nname = "{name}"\nsecret_hash = "{hashed}"\n'
    return text + extra


def credentials(eboard):
    """(token, phrase, hash): a fresh arbiter's token (`eboard token`), a
    fresh pass phrase (24 hex digits) and its argon2id hash (`eboard token
    --hash`), for a config's `[arbiter] token` and an account's
    `secret_hash`."""
    token = subprocess.run([eboard, "token"], capture_output=True, text=True, check=True).stdout.strip()
    phrase = secrets.token_hex(12)
    hashed = subprocess.run([eboard, "token", "--hash"], input=phrase + "\n", capture_output=True,
                            text=True, check=True).stdout.strip()
    return token, phrase, hashed


def exchange(sock, host, method, path, body=b"", headers=(), json_body=True):
    """Sends one HTTP/1.0 request on the connected `sock` (`host` is the Host
    header; with `json_body`, a body is sent as application/json) and reads
    the answer until the server closes ([`read_all`]): the answer's bytes."""
    head = f"{method} {path} HTTP/1.0\r\nHost: {host}\r\nContent-Length: {len(body)}\r\n"
    if body and json_body:
        head += "Content-Type: application/json\r\n"
    for k, v in headers:
        head += f"{k}: {v}\r\n"
    sock.sendall(head.encode() + b"\r\n" + body)
    return read_all(sock)


def read_all(sock, until=None):
    """What `sock` receives until the peer closes, or until `until(data)` (a
    test of all read so far) holds: the bytes read."""
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
        if until and until(data):
            break
    return data


def status_of(data):
    """The status code of an HTTP answer's bytes; 0 when it is none."""
    return int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else 0


def rss_kb(pid):
    """Process `pid`'s resident memory (VmRSS, kB); 0 when not found."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_s(pid):
    """Process `pid`'s CPU time so far, user and system (s)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stop(p, timeout=10):
    """Stops the daemon `p` (a Popen): SIGTERM, then SIGKILL after `timeout` s."""
    p.terminate()
    try:
        p.wait(timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
