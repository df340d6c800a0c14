// Clock times as a chess clock shows them, for the arbiter's console and the
// live page (served first in both scripts: src/server/console.rs,
// src/server/page.rs). A clock shows the whole seconds that remain,
// truncated: 1:17:18.9 shows 1:17:18, and 0:00:00 for the last second
// before the flag falls at 0:00:00.0. The daemon writes the same
// (`clock::fmt_hms`: PGN's [%clk], the built-in clock's LCD, the rulings'
// words); docs/clock.md, "What a clock shows".
"use strict";

/** [h, m, s] of a clock with `ms` left: whole seconds, truncated, none below zero. */
function clockParts(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  return [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60];
}

/** A clock as the console shows it: m:ss under an hour, else h:mm:ss; "–" without a time. */
function clockText(ms) {
  if (ms == null) return "–";
  const [h, m, s] = clockParts(ms);
  return (h ? h + ":" + String(m).padStart(2, "0") : m) + ":" + String(s).padStart(2, "0");
}

/** A clock in full, h:mm:ss (the live page; the console's previews: "1:20:00 → 0:01:20"). */
function clockFull(ms) {
  if (ms == null) return "–";
  const [h, m, s] = clockParts(ms);
  return h + ":" + String(m).padStart(2, "0") + ":" + String(s).padStart(2, "0");
}
