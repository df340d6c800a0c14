// The arbiter's console: clock times as arbiters write them (issue 24 §4).
// Display and entry agree: a clock under an hour shows m:ss ("12:30"), from
// an hour h:mm:ss ("1:20:00") (`clockText` / `clockFull`, clock-text.js:
// the whole seconds left, truncated, as a clock shows them); entry takes
// exactly those two forms, or an amount to add or subtract ("+2:00",
// "-0:30", "+2 min", "+30 s"). Anything else (a bare "20": minutes or
// seconds?) is refused with an example. Loaded after clock-text.js and
// before console.js (one file as served: src/server/console.rs).
"use strict";

const CLOCK_EXAMPLES = "write 1:20:00 (1 h 20 min), 12:30 (12 min 30 s), +2:00 or -0:30 (add or subtract), +2 min";

/**
 * One clock entry as written: {keep: true} (empty: unchanged),
 * {ms} (a time to set), {add} (ms to add, negative to subtract), or
 * {error} (the entry refused, with an example).
 */
function parseClockEntry(text) {
  const t = String(text == null ? "" : text).trim().replace(/−/g, "-").replace(/\s+/g, " ");
  if (t === "") return { keep: true };
  const sign = /^[+-]/.test(t) ? (t[0] === "-" ? -1 : 1) : 0;
  const body = sign ? t.slice(1).trim() : t;
  let ms = null;
  let m;
  if ((m = /^(\d+):(\d{2}):(\d{2})$/.exec(body))) {
    if (+m[2] > 59 || +m[3] > 59) return { error: "“" + t + "”: minutes and seconds go up to 59; " + CLOCK_EXAMPLES };
    ms = ((+m[1] * 60 + +m[2]) * 60 + +m[3]) * 1000;
  } else if ((m = /^(\d+):(\d{2})$/.exec(body))) {
    if (+m[2] > 59) return { error: "“" + t + "”: seconds go up to 59; " + CLOCK_EXAMPLES };
    ms = (+m[1] * 60 + +m[2]) * 1000;
  } else if ((m = /^(\d+) ?(h|min|m|s)$/i.exec(body))) {
    const unit = m[2].toLowerCase();
    ms = +m[1] * (unit === "h" ? 3600000 : unit === "s" ? 1000 : 60000);
  } else if (/^\d+$/.test(body)) {
    // Both readings written as the clocks show them, so either example is taken as written
    // ("90": 1:30:00 or 1:30, never "0:90", which seconds up to 59 refuse).
    const s = sign ? t[0] : "", n = +body;
    return { error: "“" + t + "” is ambiguous (minutes or seconds?): write " + s + clockText(n * 60000) + " for " + n + " minutes or " + s + clockText(n * 1000) + " for " + n + " seconds; " + CLOCK_EXAMPLES };
  } else if (/^\d+:\d$/.test(body) || /^\d+:\d+:\d$/.test(body)) {
    return { error: "“" + t + "”: seconds are written with two digits, e.g. 1:05; " + CLOCK_EXAMPLES };
  } else {
    return { error: "“" + t + "” is not a clock time: " + CLOCK_EXAMPLES };
  }
  return sign ? { add: sign * ms } : { ms };
}

/** The move counter as entered: {keep}, {moves: N}, or {error}. */
function parseMoves(text) {
  const t = String(text == null ? "" : text).trim();
  if (t === "") return { keep: true };
  if (!/^\d{1,3}$/.test(t)) return { error: "“" + t + "”: the move counter is the number of moves completed, e.g. 40" };
  return { moves: +t };
}
