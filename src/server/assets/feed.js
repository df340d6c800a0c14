// The public feed as the live page and the hall display read it (served in
// both scripts after clock-text.js: src/server/page.rs, src/server/hall.rs):
// the event stream followed through its reconnections, a game's state kept
// up to date from its messages (the trace contract's `move`, `clock`,
// `game_end`, `result_confirmed`: docs/broadcast.md), its clocks as they
// stood `delay_ms` ago.
"use strict";

/** Round time `t` (ms) of game `g` as Unix ms. */
function unixOf(g, t) {
  return g.started_at_unix_ms + t / (g.speed || 1);
}

/**
 * A side's clock of game `g` as shown now, ms, and whether it runs: the
 * feed is delayed, so a running clock is shown as it stood `delay_ms` ago.
 */
function clockNow(g, side) {
  let ms = g.clock[side + "_ms"];
  const running = g.clock.running === side[0] && (!g.result || g.result === "*");
  if (running) ms -= Math.max(0, Date.now() - (g.delay_ms || 0) / (g.speed || 1) - g.clock.unix_ms) * (g.speed || 1);
  return { ms, running };
}

/**
 * Message `m` applied to the state of its game `g`; false for a type this
 * does not keep (each page has its own: the illegal moves, the standings).
 */
function applyToGame(g, m) {
  switch (m.type) {
    case "move":
      g.fen = m.fen;
      g.moves = (g.moves || []).slice(0, m.ply - 1);
      g.moves.push({ san: m.san, uci: m.uci, by: m.by, spoken: m.spoken, clock_ms: m.clock_ms });
      return true;
    case "clock":
      g.clock = g.clock || {};
      g.clock.white_ms = m.white_ms;
      g.clock.black_ms = m.black_ms;
      g.clock.unix_ms = unixOf(g, m.t);
      g.clock.running = g.result && g.result !== "*" ? null : (g.fen || "").split(" ")[1];
      // The mover's clock after his move (the state's `clock_ms`): the
      // `clock` event that follows a `move` (the trace contract).
      if (g.moves && g.moves.length) {
        const last = g.moves[g.moves.length - 1];
        if (last.clock_ms == null) last.clock_ms = last.by === "b" ? m.black_ms : m.white_ms;
      }
      return true;
    case "game_end":
      g.result = m.result;
      g.reason = m.reason;
      g.result_status = g.result_status === "forfeit" ? "forfeit" : "provisional";
      if (g.clock) g.clock.running = null;
      return true;
    case "result_confirmed":
      g.result = m.result;
      g.result_status = m.forfeit ? "forfeit" : m.corrected ? "corrected" : "confirmed";
      return true;
    default:
      return false;
  }
}

/**
 * Follows the event stream at `path`: each message's JSON to
 * `on.message(m)` (a malformed one is skipped); `on.open(back)` when the
 * stream opens, `back` when it had been away; `on.away()` once it has been
 * away `awayMs` without reopening (a stream's lease ends every minute and
 * `EventSource` reconnects within a second, docs/server.md: no news). A
 * stream the browser gave up on (refused: a relay starting up) is opened
 * anew after 2 s.
 */
function followFeed(path, awayMs, on) {
  let away = false;
  let timer = null;
  const open = () => {
    const es = new EventSource(path);
    es.onopen = () => {
      clearTimeout(timer);
      const back = away;
      away = false;
      on.open(back);
    };
    es.onerror = () => {
      if (!away) {
        away = true;
        timer = setTimeout(() => { if (away) on.away(); }, awayMs);
      }
      if (es.readyState === EventSource.CLOSED) setTimeout(open, 2000);
    };
    es.onmessage = (e) => {
      try { on.message(JSON.parse(e.data)); } catch (err) { /* a malformed message is skipped */ }
    };
  };
  open();
}
