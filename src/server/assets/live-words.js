// The live page's words: a result with its termination, the result's
// status, the transmission delay, the event's date, a player's line.
// Served after live-replay.js, before live-grid.js and live.js
// (src/server/page.rs).
"use strict";

/** `1/2-1/2` as a spectator reads it, `½-½`; others as they are. */
function resultText(r) {
  return r === "1/2-1/2" ? "½-½" : r;
}

/**
 * A game's result with its termination in words ("1-0, Black resigned",
 * "½-½, draw by agreement", "0-1 on time", "1-0 by forfeit"), from the
 * feed's `result` and `reason` (the trace contract's `game_end` reasons,
 * `docs/trace-extensions.md`; FIDE Laws Art. 5, 6.9, 7.5.5, 9, 10.2); the
 * reason's own words for one this page does not know. Empty while playing.
 */
function resultWords(g) {
  const r = g.result;
  if (!r || r === "*") return "";
  const t = resultText(r);
  const loser = r === "1-0" ? "Black" : r === "0-1" ? "White" : null;
  if (g.result_status === "forfeit" || g.reason === "forfeit") {
    return r === "0-0" ? "0-0, double forfeit (neither player came)" : t + " by forfeit";
  }
  const words = {
    checkmate: ", checkmate",
    resignation: loser ? ", " + loser + " resigned" : "",
    time: " on time",
    illegal_moves: loser ? ", " + loser + "'s second illegal move" : "",
    rules_infraction: loser ? ", " + loser + " lost for a rules infraction" : "",
    arbiter_decision: ", the arbiter's decision",
    agreement: ", draw by agreement",
    stalemate: ", stalemate",
    dead_position: ", dead position",
    time_vs_insufficient_material: ", flag fell but no mate was possible",
    threefold: ", draw by threefold repetition",
    fifty_moves: ", draw by the fifty-move rule",
    fivefold: ", draw by fivefold repetition",
    seventy_five_moves: ", draw by the 75-move rule",
    both_flags: ", both flags fell",
    insufficient_losing_chances: ", draw claimed under 10.2 upheld",
  };
  if (!g.reason) return t;
  const w = words[g.reason];
  return t + (w !== undefined ? w : ", " + String(g.reason).replace(/_/g, " "));
}

/** The result's status (DSU 004 §15): provisional until the arbiter confirms it. */
function statusWords(g) {
  if (!g.result || g.result === "*") return "";
  return { provisional: " (provisional)", confirmed: " (confirmed)", corrected: " (corrected by the arbiter)" }[g.result_status] || "";
}

/** The result as the page shows it: words and status. */
function resultLine(g) {
  const w = resultWords(g);
  return w ? w + statusWords(g) : "";
}

/** A delay of `ms` (round ms) in words: "15 min", "90 s", "1 min 30 s". */
function delayWords(ms) {
  const s = Math.round(ms / 1000);
  if (s < 60) return s + " s";
  const m = Math.floor(s / 60), rest = s % 60;
  return m + " min" + (rest ? " " + rest + " s" : "");
}

/**
 * The transmission delay stated (the organiser's `[event] delay`, the
 * state's `delay_ms`, round ms): the sentence under the header. `delays`:
 * the distinct `delay_ms` of the games shown.
 */
function delaySentence(delays) {
  if (!delays.length) return "";
  if (delays.length === 1) {
    return delays[0] ? "Moves are shown " + delayWords(delays[0]) + " after they are played." : "Moves are shown as they are played.";
  }
  const lo = Math.min(...delays), hi = Math.max(...delays);
  return "Moves are shown " + delayWords(lo) + " to " + delayWords(hi) + " after they are played.";
}

/** The status while the stream is open: "Live" only without a delay. */
function connectedWords(delays) {
  const hi = delays.length ? Math.max(...delays) : 0;
  if (!delays.length) return "Connected";
  return hi ? "Connected, " + delayWords(hi) + " delay" : "Live";
}

/** PGN's `YYYY.MM.DD` (PGN standard §8.1.1.3) as `YYYY-MM-DD`; as given when partly unknown. */
function dateWords(d) {
  return /^\d{4}\.\d{2}\.\d{2}$/.test(d || "") ? d.replace(/\./g, "-") : d || "";
}

/** A player's name with his title (`GM Morphy, Paul`); `fallback` without a name. */
function playerName(p, fallback) {
  if (!p || !p.name) return fallback;
  return (p.title ? p.title + " " : "") + p.name;
}

/** A player's FIDE profile (ratings.fide.com), when his FIDE id is a number. */
function fideUrl(p) {
  return p && /^\d+$/.test(String(p.fide_id || "")) ? "https://ratings.fide.com/profile/" + p.fide_id : "";
}
