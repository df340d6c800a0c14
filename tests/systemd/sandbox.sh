#!/usr/bin/env bash
# tests/systemd/sandbox.sh DEB: the package's own test of the unit's
# sandbox (docs/dev/service-notes.md, "Proven on a booted Debian"). It boots Debian bookworm
# with systemd as PID 1 in systemd-nspawn (the rootfs of
# ../shared/tools/systemd-host, cached, else made with mmdebstrap), installs
# DEB and runs the binary under eboard.service's own sandbox: every line of
# the installed unit's [Service] section but the process management, in a
# probe unit made from it, so a hardening line that breaks a feature fails
# here. Then the packaged default (trial mode) as the real unit, a bad
# config, the relay beside the board and on the board's port, the refused
# and the forced upgrade as the refusal's recipe says (with sudo), purge.
#
#   sudo tests/systemd/sandbox.sh target/debian/eboard_0.1.0-1_amd64.deb
#
# One PASS/FAIL/INFO line per check; exit 0 when none failed. An arm64 DEB
# on an amd64 host runs under qemu-user-static (binfmt_misc F flag; the
# systemd-host tool registers it): there seccomp is not enforced (qemu-user
# refuses it), which the run says as INFO.
set -uo pipefail
DEB="$(readlink -f "${1:?usage: sandbox.sh DEB}")"
[ "$(id -u)" -eq 0 ] || { echo "sandbox.sh: run as root" >&2; exit 2; }
CACHE="${EBOARD_SYSTEMD_HOST_CACHE:-/var/cache/eboard-systemd-host}"
ARCH="$(dpkg-deb -f "$DEB" Architecture)"
HOST_ARCH="$(dpkg --print-architecture)"
EMULATED=0; [ "$ARCH" = "$HOST_ARCH" ] || EMULATED=1
SLOW=$(( EMULATED ? 3 : 1 ))
T0=$(date +%s)
WORK="$(mktemp -d /tmp/eboard-sandbox.XXXXXX)"
ROOT="$WORK/root"; LOGS="$WORK/logs"; mkdir -p "$ROOT" "$LOGS"
PASSN=0; FAILN=0; NSPAWN_PID=""; LEADER=""
pass() { PASSN=$((PASSN + 1)); printf 'PASS  %-30s %s\n' "$1" "${2:-}"; }
fail() { FAILN=$((FAILN + 1)); printf 'FAIL  %-30s %s\n' "$1" "${2:-}"; }
info() { printf 'INFO  %-30s %s\n' "$1" "${2:-}"; }
ok() { local n="$1" d="$2"; shift 2; if "$@"; then pass "$n" "$d"; else fail "$n" "$d"; fi; }
cleanup() {
  if [ -n "$NSPAWN_PID" ] && kill -0 "$NSPAWN_PID" 2>/dev/null; then
    cx systemctl poweroff >/dev/null 2>&1
    for _ in $(seq 1 $((300 * SLOW))); do kill -0 "$NSPAWN_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$NSPAWN_PID" 2>/dev/null
  fi
  rm -rf "$ROOT"
}
trap cleanup EXIT

# ------------------------------------------------------------- the rootfs
# systemd-host's names: bookworm-KEY.tar (the host's architecture, KEY 16
# hex digits), bookworm-ARCH-KEY.tar (a foreign one).
if [ "$EMULATED" -eq 1 ]; then re="bookworm-$ARCH-[0-9a-f]{16}\.tar$"; else re="bookworm-[0-9a-f]{16}\.tar$"; fi
TARBALL=$(ls -t "$CACHE"/*.tar 2>/dev/null | grep -E "/$re" | head -1)
if [ -z "$TARBALL" ]; then
  command -v mmdebstrap >/dev/null || apt-get install -y -qq mmdebstrap systemd-container >/dev/null
  TARBALL="$CACHE/sandbox-bookworm-$ARCH.tar"; mkdir -p "$CACHE"
  mmdebstrap --architectures="$ARCH" --variant=minbase --format=tar \
    --include=systemd,systemd-sysv,dbus,adduser,sudo,curl,ca-certificates,procps,python3 \
    --skip=cleanup/apt/lists,cleanup/apt/cache \
    --customize-hook='chroot "$1" apt-get install -y --download-only -o APT::Install-Recommends=true espeak-ng' \
    bookworm "$TARBALL" >"$LOGS/mmdebstrap.log" 2>&1 || { echo "sandbox.sh: mmdebstrap failed" >&2; exit 2; }
fi
tar -C "$ROOT" -xf "$TARBALL"
: > "$ROOT/etc/machine-id"
if [ "$EMULATED" -eq 1 ]; then
  # qemu-user: no clone(CLONE_NEWNS), so no LoadCredential= (see systemd-host's README).
  for u in systemd-tmpfiles-setup systemd-tmpfiles-setup-dev systemd-tmpfiles-clean systemd-sysusers systemd-sysctl systemd-firstboot procps; do
    mkdir -p "$ROOT/etc/systemd/system/$u.service.d"
    printf '[Service]\nLoadCredential=\n' > "$ROOT/etc/systemd/system/$u.service.d/qemu.conf"
  done
fi
for g in gpio i2c spi; do chroot "$ROOT" groupadd --system "$g"; done
printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n' "$(cat "$ROOT/etc/hostname" 2>/dev/null || echo eboard-ci)" > "$ROOT/etc/hosts"
mkdir -p "$ROOT/root/pkg"; cp "$DEB" "$ROOT/root/pkg/"
DEBNAME="$(basename "$DEB")"

cx() {
  nsenter -a -t "$LEADER" -- /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 HOME=/root TERM=dumb SYSTEMD_PAGER= SYSTEMD_COLORS=0 DEBIAN_FRONTEND=noninteractive "$@"
}
cxsh() { cx /bin/bash -c "$1"; }
wait_for() { local s="$1" i; shift; for i in $(seq 1 $((s * 2 * SLOW))); do "$@" && return 0; sleep 0.5; done; return 1; }
is_active() { [ "$(cx systemctl is-active "$1" 2>/dev/null)" = active ]; }
is_failed() { [ "$(cx systemctl is-active "$1" 2>/dev/null)" = failed ]; }
prop() { cx systemctl show -p "$2" --value "$1"; }

systemd-nspawn -b -D "$ROOT" -M "eboard-sandbox-$$" --register=no --keep-unit --private-network \
  --capability=CAP_SYS_TIME --console=read-only </dev/null >"$LOGS/console.log" 2>&1 &
NSPAWN_PID=$!
for _ in $(seq 1 $((300 * SLOW))); do
  for p in $(pgrep -P "$NSPAWN_PID"); do [ "$(cat /proc/$p/comm 2>/dev/null)" = systemd ] && LEADER=$p; done
  [ -n "$LEADER" ] && break; sleep 0.1
done
[ -n "$LEADER" ] || { fail boot "no systemd (see $LOGS/console.log)"; tail "$LOGS/console.log"; exit 1; }
state=""
for _ in $(seq 1 $((120 * SLOW))); do
  state=$(cx timeout $((5 * SLOW)) systemctl is-system-running --wait 2>/dev/null); case "$state" in running|degraded) break ;; esac; sleep 0.5
done
ok boot "systemd $(cx systemctl --version | head -1 | cut -d' ' -f2) PID 1, $ARCH$([ $EMULATED = 1 ] && echo ' (qemu-user)'): $state" bash -c "[ '$state' = running ] || [ '$state' = degraded ]"

cxsh "cd /root/pkg && apt-get install -y ./$DEBNAME" >"$LOGS/apt-install.log" 2>&1
ok install "$(grep -c . "$LOGS/apt-install.log") lines" grep -q '^Setting up eboard' "$LOGS/apt-install.log"
ok install-no-warning "no adduser warning: $(grep -im1 'warn' "$LOGS/apt-install.log")" bash -c "! grep -qi 'warn' '$LOGS/apt-install.log'"

# ------------------------------------------- the probe under the unit's sandbox
# Fake device nodes with the majors the board's devices have (i2c 89, spidev
# 153, ttyACM 166, ttyUSB 188, ALSA 116), owned by the groups that own them
# on Raspberry Pi OS. No driver is behind them: an open that the sandbox
# lets through ends in ENXIO/ENODEV, one it refuses in EPERM/EACCES.
cxsh 'mknod -m 660 /dev/i2c-1 c 89 1 && chgrp i2c /dev/i2c-1
mknod -m 660 /dev/spidev0.0 c 153 0 && chgrp spi /dev/spidev0.0
mknod -m 660 /dev/ttyACM0 c 166 0 && chgrp dialout /dev/ttyACM0
mknod -m 660 /dev/ttyUSB0 c 188 0 && chgrp dialout /dev/ttyUSB0
mkdir -p /dev/snd && mknod -m 660 /dev/snd/pcmC0D0p c 116 16 && chgrp audio /dev/snd/pcmC0D0p' >"$LOGS/mknod.log" 2>&1
cat >"$ROOT/usr/local/lib/eboard-probe.py" <<'PY'
import errno, os, subprocess, sys
print("user", os.getuid(), "groups", sorted(os.getgroups()))
for dev in ["/dev/i2c-1", "/dev/spidev0.0", "/dev/ttyACM0", "/dev/ttyUSB0", "/dev/snd/pcmC0D0p"]:
    try:
        os.close(os.open(dev, os.O_RDWR | os.O_NONBLOCK | os.O_NOCTTY)); r = "opened"
    except OSError as e:
        r = errno.errorcode.get(e.errno, str(e.errno))
    print("device", dev, r)
for p in ["/var/lib/eboard/probe-write", "/etc/eboard/probe-write"]:
    try:
        open(p, "w").write("x"); os.unlink(p); r = "written"
    except OSError as e:
        r = errno.errorcode.get(e.errno, str(e.errno))
    print("write", p, r)
r = subprocess.run(["espeak-ng", "-v", "en", "-w", "/var/lib/eboard/probe.wav", "e4"], capture_output=True)
print("espeak-ng", r.returncode, os.path.getsize("/var/lib/eboard/probe.wav") if r.returncode == 0 else r.stderr[:200])
PY
mkdir -p "$ROOT/etc/systemd/system"
# The installed unit's sandbox: its [Service] lines but the process
# management (Type, ExecStart, Restart*, Watchdog, Notify, Timeout*).
awk '/^\[Install\]/{exit} /^(Type|ExecStart|Restart|RestartSec|RestartPreventExitStatus|WatchdogSec|NotifyAccess|TimeoutStopSec|StartLimit[A-Za-z]*)=/{next} {print}' \
  "$ROOT/usr/lib/systemd/system/eboard.service" >"$ROOT/etc/systemd/system/eboard-probe.service"
cat >>"$ROOT/etc/systemd/system/eboard-probe.service" <<'U'
Type=oneshot
ExecStart=/usr/bin/eboard doctor --config /etc/eboard/eboard.toml --journal-dir /var/lib/eboard --json
ExecStart=/usr/bin/python3 /usr/local/lib/eboard-probe.py
SuccessExitStatus=1
U
cx systemctl daemon-reload
cx systemctl start eboard-probe.service; rc=$?
cx journalctl -u eboard-probe -o cat --no-pager >"$LOGS/probe.log"
info probe "systemctl start eboard-probe: rc=$rc, $(grep -c . "$LOGS/probe.log") lines"
# The doctor's time row: adjtimex answered (synchronised or not), not refused.
row() { grep -m1 '^{"checks"' "$LOGS/probe.log" | python3 -c 'import json,sys; print(" ".join(c["status"]+": "+c["detail"] for c in json.load(sys.stdin)["checks"] if c["check"]==sys.argv[1]))' "$1" 2>/dev/null; }
time_row=$(row time); cfg_row=$(row config)
ok sandbox-adjtimex "doctor in the unit's sandbox: time ${time_row:-no row}" bash -c "[ -n \"\$1\" ] && [[ \"\$1\" != *'not permitted'* ]]" _ "$time_row"
ok sandbox-config-readable "config ${cfg_row:-no row}" bash -c "[[ \"\$1\" == ok:* ]]" _ "$cfg_row"
while read -r _ dev res; do
  # Outside the unit (root in the container): what the container itself allows.
  ctl=$(cx python3 -c "import errno,os,sys
try: os.close(os.open('$dev', os.O_RDWR|os.O_NONBLOCK|os.O_NOCTTY)); print('opened')
except OSError as e: print(errno.errorcode.get(e.errno))")
  if [ "$ctl" = EPERM ]; then
    info "sandbox-device $dev" "in the unit: $res; the container itself refuses it ($ctl): not observable here"
  else
    ok "sandbox-device $dev" "in the unit: $res (outside: $ctl)" bash -c "[ '$res' != EPERM ] && [ '$res' != EACCES ]"
  fi
done < <(grep '^device ' "$LOGS/probe.log")
ok sandbox-write-state "$(grep 'write /var/lib' "$LOGS/probe.log")" grep -q 'write /var/lib/eboard/probe-write written' "$LOGS/probe.log"
ok sandbox-readonly-etc "$(grep 'write /etc' "$LOGS/probe.log")" grep -q 'write /etc/eboard/probe-write EROFS' "$LOGS/probe.log"
ok sandbox-speech "$(grep '^espeak-ng' "$LOGS/probe.log" | cut -c1-100)" grep -qE '^espeak-ng 0 [1-9]' "$LOGS/probe.log"
if [ "$EMULATED" -eq 1 ]; then
  info sandbox-seccomp "qemu-user refuses seccomp: SystemCallFilter= and ProtectClock= are not enforced in this run (the amd64 run checks them)"
fi

# ------------------------------------------- the packaged default: trial mode
cx systemctl enable --now eboard >"$LOGS/enable.log" 2>&1
wait_for 20 is_active eboard.service
ok trial-active "$(cx systemctl is-active eboard)" is_active eboard.service
has_moves() { cx curl -fsS --max-time 5 http://127.0.0.1:8080/games.pgn 2>/dev/null | grep -q '^1\. e4'; }
wait_for 60 has_moves
cx curl -s --max-time 5 http://127.0.0.1:8080/games.pgn >"$LOGS/trial.pgn"
ok trial-plays "$(grep -m1 '^1\.' "$LOGS/trial.pgn" | cut -c1-60)" grep -q '^1\. e4' "$LOGS/trial.pgn"
ok trial-pgn-tag "$(grep -m1 '^\[Trial' "$LOGS/trial.pgn")" grep -q '^\[Trial "' "$LOGS/trial.pgn"
ok trial-state "\"trial\":true in the live page's state" bash -c "nsenter -a -t $LEADER -- curl -s --max-time 5 http://127.0.0.1:8080/ | grep -q '\"trial\":true'"
cx systemctl status eboard --no-pager >"$LOGS/status.txt" 2>&1
ok trial-status "$(grep -m1 'Status:' "$LOGS/status.txt" | sed 's/^ *//')" grep -q 'Status:.*TRIAL' "$LOGS/status.txt"
ok trial-journal "$(cx journalctl -u eboard -p warning -o cat --no-pager | grep -m1 'TRIAL MODE' | cut -c1-100)" bash -c "nsenter -a -t $LEADER -- journalctl -u eboard -p warning -o cat --no-pager | grep -q 'TRIAL MODE'"
# A restart: the clock's sync state is read inside the sandbox (no adjtimex error).
cx systemctl restart eboard; wait_for 20 is_active eboard.service
cx journalctl -u eboard -o cat --no-pager >"$LOGS/journal.log"
ok unit-adjtimex "$(grep -m1 -iE 'resumed|synchronis' "$LOGS/journal.log" | cut -c1-120)" bash -c "! grep -q 'synchronisation is unknown' '$LOGS/journal.log'"
ok journal-no-level-word "no line repeats the level journald has" bash -c "! grep -qE '^ ?(INFO|WARN|ERROR|DEBUG) ' '$LOGS/journal.log'"

# ------------------------------------------- upgrades: a trial, then a real game
mkupdeb() {
  local d="$WORK/repack" v
  rm -rf "$d"; mkdir -p "$d"; dpkg-deb -R "$DEB" "$d/x"
  v=$(sed -n 's/^Version: //p' "$d/x/DEBIAN/control"); sed -i "s/^Version: .*/Version: ${v}+$1/" "$d/x/DEBIAN/control"
  dpkg-deb -b -Zxz "$d/x" "$ROOT/root/pkg/eboard_${v}+$1_${ARCH}.deb" >/dev/null; rm -rf "$d"
  echo "eboard_${v}+$1_${ARCH}.deb"
}
UP=$(mkupdeb t1)
pid=$(prop eboard MainPID)
# An administrator's mode on the config (still readable by the daemon).
cx chmod 0440 /etc/eboard/eboard.toml
cxsh "cd /root/pkg && apt-get install -y ./$UP" >"$LOGS/up-trial.log" 2>&1; rc=$?
ok upgrade-during-trial "a trial is no game: rc=$rc, MainPID $pid -> $(prop eboard MainPID)" bash -c "[ $rc -eq 0 ]"
m=$(cx stat -c '%U:%G %a' /etc/eboard/eboard.toml)
ok upgrade-keeps-config-mode "the administrator's 0440 after the upgrade: $m" [ "$m" = "root:eboard 440" ]
wait_for 20 is_active eboard.service
# A real game in progress: a recorded trace through a drop-in (20 moves, no result).
cat >"$ROOT/root/pkg/real.pgn" <<'PGN'
[Event "Sandbox"]
[White "A"]
[Black "B"]
[Result "*"]

1. e4 d6 2. d4 Nf6 3. Nc3 g6 4. Be3 Bg7 5. Qd2 c6 6. f3 b5 7. Nge2 Nbd7 8. Bh6 Bxh6 9. Qxh6 Bb7 10. a3 e5 *
PGN
cx mkdir -p /usr/local/share/eboard-sandbox
cx eboard simulate /root/pkg/real.pgn --seed 3 -o /usr/local/share/eboard-sandbox/real.jsonl >/dev/null 2>&1
mkdir -p "$ROOT/etc/systemd/system/eboard.service.d"
printf '[Service]\nExecStart=\nExecStart=/usr/bin/eboard run --config /etc/eboard/eboard.toml --journal-dir /var/lib/eboard --listen 0.0.0.0:8080 --trace /usr/local/share/eboard-sandbox/real.jsonl\n' \
  >"$ROOT/etc/systemd/system/eboard.service.d/trace.conf"
cx systemctl daemon-reload; cx systemctl restart eboard; wait_for 20 is_active eboard.service
set_aside=$(cx bash -c 'ls -d /var/lib/eboard/trials/trial-* 2>/dev/null | head -1')
ok trial-set-aside "the trial's journal set aside for the real game: ${set_aside:-none}; mark: $(cx ls /var/lib/eboard/board.jsonl.trial 2>&1 | cut -c1-60)" bash -c "[ -n '$set_aside' ] && [ ! -e '$ROOT/var/lib/eboard/board.jsonl.trial' ]"
has_real_move() { cx grep -q '"type":"move"' /var/lib/eboard/board.jsonl.events 2>/dev/null; }
wait_for 60 has_real_move
UP2=$(mkupdeb t2)
pid=$(prop eboard MainPID)
cxsh "cd /root/pkg && EBOARD_UPGRADE_DURING_GAME=1 sudo apt-get install -y ./$UP2" >"$LOGS/up-refused.log" 2>&1; rc=$?
ok upgrade-refused "rc=$rc: $(grep -m1 'a game is in progress' "$LOGS/up-refused.log" | cut -c1-90)" bash -c "[ $rc -ne 0 ] && grep -q 'a game is in progress' '$LOGS/up-refused.log'"
ok upgrade-refused-untouched "MainPID $pid -> $(prop eboard MainPID) (postinst abort-upgrade leaves it alone)" bash -c "[ '$pid' = \"\$(nsenter -a -t $LEADER -- systemctl show -p MainPID --value eboard)\" ]"
recipe=$(grep -m1 -o 'run: .*' "$LOGS/up-refused.log" | tr -d '\r' | sed 's/^run: //; s|\./eboard_\.\.\.\.deb|./'"$UP2"'|')
cxsh "cd /root/pkg && $recipe -y" >"$LOGS/up-recipe.log" 2>&1; rc=$?
ok upgrade-recipe-with-sudo "'$recipe': rc=$rc, $(cx dpkg-query -W -f '${Version}' eboard)" bash -c "[ $rc -eq 0 ] && [[ \"\$(nsenter -a -t $LEADER -- dpkg-query -W -f '\${Version}' eboard)\" == *+t2 ]]"
wait_for 20 is_active eboard.service
# Back to the packaged trial mode over the real game's unfinished journal:
# refused (exit 78, failed at once), then the game moved away by hand.
rm -f "$ROOT/etc/systemd/system/eboard.service.d/trace.conf"; cx systemctl daemon-reload
cx systemctl restart eboard >/dev/null 2>&1; wait_for 10 is_failed eboard.service
ok trial-over-real-game "state $(cx systemctl is-active eboard), status $(prop eboard ExecMainStatus): $(cx journalctl -u eboard -p err -o cat --no-pager | grep -m1 'real game' | cut -c1-100)" bash -c "[ \"\$(nsenter -a -t $LEADER -- systemctl show -p ExecMainStatus --value eboard)\" = 78 ]"
cx bash -c 'mkdir -p /var/lib/eboard/old && mv /var/lib/eboard/board.jsonl* /var/lib/eboard/old/'
cx systemctl reset-failed eboard; cx systemctl start eboard; wait_for 20 is_active eboard.service

# ------------------------------------------- a bad config: failed, reason at err
cx cp -p /etc/eboard/eboard.toml /root/good.toml
cxsh "sed -i 's/^round = 1/round = 1\nrounds = 1/' /etc/eboard/eboard.toml"
cx systemctl restart eboard >/dev/null 2>&1
wait_for 10 is_failed eboard.service
ok badconfig-failed "state $(cx systemctl is-active eboard), ExecMainStatus=$(prop eboard ExecMainStatus), NRestarts=$(prop eboard NRestarts)" is_failed eboard.service
e=$(cx journalctl -u eboard -p err -o cat --no-pager | grep -m1 rounds)
ok badconfig-err-priority "journalctl -p err: ${e:0:120}" bash -c "[ -n '${e//\'/}' ]"
cx cp -p /root/good.toml /etc/eboard/eboard.toml; cx systemctl reset-failed eboard; cx systemctl restart eboard

# ------------------------------------------- the relay: beside the board, then on its port
cxsh "echo 'EBOARD_RELAY_ARGS=http://127.0.0.1:8080' > /etc/default/eboard-relay"
cx systemctl start eboard-relay; wait_for 15 is_active eboard-relay.service
relay_ok() { cx curl -fsS --max-time 5 http://127.0.0.1:8081/games.pgn 2>/dev/null | grep -q 'White'; }
wait_for 20 relay_ok
ok relay-default-port "eboard-relay on its default :8081 beside the board's :8080: $(cx systemctl is-active eboard-relay)" relay_ok
cxsh "printf 'EBOARD_RELAY_ARGS=http://127.0.0.1:8080\nEBOARD_RELAY_LISTEN=0.0.0.0:8080\n' > /etc/default/eboard-relay"
cx systemctl restart eboard-relay >/dev/null 2>&1
wait_for 40 is_failed eboard-relay.service
ok relay-port-clash-failed "on the board's port: $(cx systemctl is-active eboard-relay) after NRestarts=$(prop eboard-relay NRestarts) (start limit)" is_failed eboard-relay.service
e=$(cx journalctl -u eboard-relay -p err -o cat --no-pager | grep -m1 -i 'listen\|in use')
ok relay-err-priority "journalctl -u eboard-relay -p err: ${e:0:120}" bash -c "[ -n '${e//\'/}' ]"
cx systemctl reset-failed eboard-relay

# ------------------------------------------- purge
cx systemctl stop eboard
cxsh "apt-get purge -y eboard" >"$LOGS/purge.log" 2>&1
left=$(cx bash -c 'for p in /etc/eboard /var/lib/eboard /var/lib/eboard-relay; do [ -e "$p" ] && echo -n "$p "; done; true')
ok purge "left: ${left:-nothing}" [ -z "$left" ]

echo "sandbox.sh: $ARCH$([ $EMULATED = 1 ] && echo ' (emulated)'): $PASSN passed, $FAILN failed in $(( $(date +%s) - T0 )) s; logs: $LOGS"
[ "$FAILN" -eq 0 ]
