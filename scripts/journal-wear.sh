#!/usr/bin/env bash
# Bytes an eboard service writes to its SD card for one game (docs/service.md
# "Power loss and SD-card wear"): a real game (PGN) simulated into a sensor
# trace, run by `eboard run --journal-dir` as the service runs it (fsync
# per completed move), then the journal's size, the number of completed
# moves (= fsyncs of each file) and the kernel's count of bytes the process
# sent to the block layer (/proc/PID/io write_bytes).
#
# Usage: scripts/journal-wear.sh [EBOARD_BIN] [PGN]   (default: target/debug/eboard,
#        the first 39-move decisive game of ../shared/data/pgn/twic1599_1110games.pgn
#        cut out to /tmp/realgame.pgn by the caller, or PGN)
set -euo pipefail
bin="${1:-target/debug/eboard}"
pgn="${2:-/tmp/realgame.pgn}"
tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
"$bin" simulate "$pgn" -o "$tmp/game.jsonl" >/dev/null
printf '[event]\nname = "wear"\n[game]\nround = 1\nboard = 1\n' > "$tmp/eboard.toml"
mkdir -p "$tmp/var"
"$bin" run --config "$tmp/eboard.toml" --journal-dir "$tmp/var" --trace "$tmp/game.jsonl" \
  --speed 200 --listen 127.0.0.1:0 >/dev/null 2>"$tmp/log" &
pid=$!
for _ in $(seq 600); do
  grep -q '"type":"game_end"' "$tmp/var/board.jsonl.events" 2>/dev/null && break
  sleep 0.1
done
io=$(cat /proc/$pid/io)
kill -TERM "$pid"; wait "$pid" || true
rec=$(stat -c %s "$tmp/var/board.jsonl")
ev=$(stat -c %s "$tmp/var/board.jsonl.events")
moves=$(grep -c '"type":"move"' "$tmp/var/board.jsonl.events")
lines=$(wc -l < "$tmp/var/board.jsonl")
echo "records file: $rec bytes ($lines lines); events file: $ev bytes"
echo "completed moves (fsyncs per file): $moves"
echo "$io" | grep -E '^(wchar|syscw|write_bytes)'
