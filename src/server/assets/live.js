// eboard live page: draws the games of the feed from the embedded states and
// the event stream /events. One game (a board daemon, `?game=R.B`): the game
// in full (players beside their clocks, the board, the move list to step
// through, flip, downloads); more (a relay, `?round=R`): the round at a
// glance (live-grid.js) and the standings. No arbiter's login: that is the
// console's, over HTTPS. Served last, after clock-text.js (`clockFull`),
// feed.js (the stream, a game's state), live-replay.js, live-words.js and
// live-grid.js (src/server/page.rs).
"use strict";

// The bench's marks (benches/first_paint.rs): the script running, the
// embedded games drawn.
performance.mark("live:script");

const GLYPH = { K: "♔", Q: "♕", R: "♖", B: "♗", N: "♘", P: "♙", k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟" };
const NAME = { k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn" };
const games = new Map();
const PARAMS = new URLSearchParams(location.search);
// `?game=R.B` follows one game, `?round=R` one round; the stream is asked
// for just those.
const FILTER = (() => {
  const q = new URLSearchParams();
  for (const k of ["game", "round"]) if (PARAMS.get(k)) q.set(k, PARAMS.get(k));
  return q.toString() ? "?" + q.toString() : "";
})();
const ONE_GAME = PARAMS.get("game") || "";
const gamesEl = document.getElementById("games");
const statusEl = document.getElementById("status");
// What the spectator looks at in the full view: the ply shown (null:
// following the game, the last move), the board turned (Black at the bottom).
const view = { ply: null, flipped: false };
let connected = false;
let standingsAsked = false;

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function setText(e, text) {
  if (e && e.textContent !== text) e.textContent = text;
}

function order(id) {
  const [r, b] = id.split(".").map(Number);
  return r * 10000 + b;
}

/**
 * Puts `node` (of game `id`, "R.B") into `parent` before the first child
 * of a later game: the children stay in (round, board) order, and none
 * is moved (moving every child for each new one made the first draw of a
 * 20-board round quadratic: issue 42 §7).
 */
function insertInOrder(parent, node, id) {
  const k = order(id);
  const next = [...parent.children].find((c) => order(c.dataset.game) > k);
  parent.insertBefore(node, next || null);
}

function distinct(xs) {
  return [...new Set(xs)];
}

/** The round at a glance when the page shows more than one game; else the game in full. */
function gridMode() {
  return !ONE_GAME && games.size > 1;
}

// ---- The header: event, round, date, site, the delay, the downloads ----

function drawHeader() {
  const list = [...games.values()];
  const events = distinct(list.map((g) => g.event).filter(Boolean));
  const rounds = distinct(list.map((g) => g.round)).sort((a, b) => a - b);
  const delays = distinct(list.map((g) => g.delay_ms || 0));
  const name = events.join(" / ") || "eboard live";
  const roundWords = rounds.length === 1 ? "Round " + rounds[0] : rounds.length ? "Rounds " + rounds[0] + "–" + rounds[rounds.length - 1] : "";
  setText(document.getElementById("title"), name);
  const line = [roundWords, distinct(list.map((g) => dateWords(g.date)).filter(Boolean)).join(", "), distinct(list.map((g) => g.site).filter(Boolean)).join(", ")];
  setText(document.getElementById("event-line"), line.filter(Boolean).join(" · "));
  const one = ONE_GAME && games.get(ONE_GAME);
  const title = [name, roundWords.toLowerCase(), one ? "board " + one.board : ""].filter(Boolean).join(", ");
  if (document.title !== title) document.title = title;
  setText(document.getElementById("delay"), delaySentence(delays));
  if (connected) setText(statusEl, connectedWords(delays));
  const back = document.getElementById("back");
  back.hidden = !one;
  if (one) {
    const a = back.querySelector("a");
    a.href = "/?round=" + one.round;
    setText(a, "← Round " + one.round + ": every board");
  }
  const round = document.getElementById("pgn-round");
  round.hidden = rounds.length !== 1;
  if (rounds.length === 1) {
    round.href = "/games.pgn?round=" + rounds[0];
    round.setAttribute("download", "round-" + rounds[0] + ".pgn");
    setText(round, "Round " + rounds[0] + " (PGN)");
  }
}

// ---- One game in full ----

/** The board's squares, rank 8 at the top (rank 1 when turned). */
function buildBoard(table, flipped) {
  table.replaceChildren();
  const ranks = flipped ? [1, 2, 3, 4, 5, 6, 7, 8] : [8, 7, 6, 5, 4, 3, 2, 1];
  const files = flipped ? [...FILES].reverse() : [...FILES];
  for (const r of ranks) {
    const tr = el("tr");
    tr.append(el("th", { scope: "row" }, String(r)));
    for (const f of files) tr.append(el("td", { "data-square": f + r }));
    table.append(tr);
  }
  const foot = el("tr");
  foot.append(el("th"));
  for (const f of files) foot.append(el("th", { scope: "col" }, f));
  table.append(foot);
}

/** A player's bar: title and name, rating, federation, FIDE profile, his clock. */
function playerBar(side) {
  const bar = el("div", { class: "player " + side });
  const who = el("div", { class: "who" });
  who.append(el("span", { class: "pname" }), el("span", { class: "rating" }), el("span", { class: "fed" }));
  who.append(el("a", { class: "fide", rel: "noopener", hidden: "" }));
  bar.append(who);
  const clock = el("span", { class: "clockbox" });
  clock.append(el("span", { class: "run-mark", hidden: "" }, "▶ to move"));
  clock.append(el("span", { class: "clock " + side, role: "timer", "aria-label": (side === "white" ? "White's" : "Black's") + " clock" }));
  bar.append(clock);
  return bar;
}

const STEPS = [["first", "Start position", "«"], ["prev", "Previous move", "‹"], ["next", "Next move", "›"], ["last", "Last move: follow the game", "»"]];

// The section of one game, created on first sight.
function section(g) {
  let s = document.getElementById("game-" + g.game);
  if (s) return s;
  s = el("section", { id: "game-" + g.game, class: "game", "data-game": g.game, "aria-labelledby": "h-" + g.game });
  s.append(el("h2", { id: "h-" + g.game }));
  const layout = el("div", { class: "layout" });
  const left = el("div", { class: "board-side" });
  const table = el("table", { class: "board", "aria-label": "Board " + g.game });
  buildBoard(table, view.flipped);
  left.append(playerBar("black"), table, playerBar("white"));
  const controls = el("div", { class: "controls", role: "group", "aria-label": "Moves of game " + g.game + ": step through" });
  for (const [what, label, glyph] of STEPS) {
    const b = el("button", { type: "button", class: "step " + what, "aria-label": label, title: label + " (" + { first: "Home", prev: "←", next: "→", last: "End" }[what] + ")" }, glyph);
    b.addEventListener("click", () => step(g.game, what));
    controls.append(b);
  }
  const flip = el("button", { type: "button", class: "flip", "aria-pressed": "false", title: "Flip the board (f)" }, "Flip board");
  flip.addEventListener("click", () => flipBoard(g.game));
  controls.append(flip);
  left.append(controls, el("p", { class: "replay-note", hidden: "" }));
  const right = el("div", { class: "moves-side" });
  // For screen readers: the moves, the result and the illegal-move marking
  // are polite live regions; each move is read in the event's words
  // (`spoken`, in the language `lang`), new moves only. The position shown
  // while stepping is said in a status of its own.
  right.append(el("h3", {}, "Moves"));
  const ol = el("ol", { class: "moves", role: "log", "aria-live": "polite", "aria-relevant": "additions", "aria-label": "Moves of game " + g.game, tabindex: "0" });
  ol.addEventListener("click", (e) => {
    const li = e.target.closest("li[data-ply]");
    if (li) select(g.game, Number(li.dataset.ply));
  });
  right.append(ol);
  right.append(el("p", { class: "shown", role: "status", "aria-live": "polite", "aria-atomic": "true", "aria-label": "Position shown in game " + g.game }));
  right.append(el("p", { class: "result-live", role: "status", "aria-live": "polite", "aria-atomic": "true", "aria-label": "Result of game " + g.game }));
  right.append(el("p", { class: "marks", role: "status", "aria-live": "polite", "aria-atomic": "true", "aria-label": "Illegal moves in game " + g.game }));
  const dl = el("p", { class: "downloads" });
  dl.append(el("a", { class: "pgn-game", href: "/games.pgn?game=" + encodeURIComponent(g.game), download: "game-" + g.game + ".pgn" }, "This game (PGN)"), " ",
    el("a", { class: "pgn-round", href: "/games.pgn?round=" + g.round, download: "round-" + g.round + ".pgn" }, "Round " + g.round + " (PGN)"));
  right.append(dl);
  layout.append(left, right);
  s.append(layout);
  insertInOrder(gamesEl, s, g.game);
  return s;
}

function drawPlayer(s, g, side) {
  const p = g[side] || {};
  const bar = s.querySelector(".player." + side);
  setText(bar.querySelector(".pname"), playerName(p, side === "white" ? "White" : "Black"));
  setText(bar.querySelector(".rating"), p.rating ? String(p.rating) : "");
  setText(bar.querySelector(".fed"), p.federation || "");
  const fide = bar.querySelector(".fide"), url = fideUrl(p);
  fide.hidden = !url;
  if (url && fide.getAttribute("href") !== url) {
    fide.href = url;
    fide.textContent = "FIDE " + p.fide_id;
    fide.setAttribute("aria-label", "FIDE profile of " + (p.name || side) + " (FIDE id " + p.fide_id + ")");
  }
}

// The positions of the game's plies (live-replay.js), kept while its moves stay.
const replays = new Map();
function replayOf(g) {
  const key = g.moves.length + "|" + (g.moves.length ? g.moves[g.moves.length - 1].uci : "") + "|" + g.fen;
  const had = replays.get(g.game);
  if (had && had.key === key) return had.positions;
  const p = positions(g.moves, g.fen);
  replays.set(g.game, { key, positions: p });
  return p;
}

/** The ply the full view shows: the selected one, else the last. */
function shownPly(g) {
  return view.ply === null || !replayOf(g) ? g.moves.length : Math.min(view.ply, g.moves.length);
}

// While the embedded states are drawn (`connect`): the header once after
// them all, not once a game.
let drawingAll = false;

function render(g) {
  if (!drawingAll) drawHeader();
  if (gridMode()) {
    if (gamesEl.children.length) { gamesEl.replaceChildren(); games.forEach(drawTile); }
    gamesEl.hidden = true;
    document.getElementById("round").hidden = false;
    drawTile(g);
    drawClocks(g);
    if (!standingsAsked) { standingsAsked = true; loadStandings(); }
    return;
  }
  const s = section(g);
  const result = resultLine(g);
  const h2 = s.querySelector("h2");
  h2.textContent = `Round ${g.round}, board ${g.board}: ${playerName(g.white, "White")} – ${playerName(g.black, "Black")} `;
  h2.append(el("span", { class: "result" }, result));
  // Trial mode ([board] source = "trial"): never to be taken for a real game.
  if (g.trial) h2.prepend(el("strong", { class: "trial" }, "TRIAL (simulated hands, not a real game): "));
  // A board's page of every game links to the game's own page (a
  // spectator's phone then streams just that board).
  if (!FILTER) h2.append(" ", el("a", { href: "/?game=" + encodeURIComponent(g.game), class: "follow" }, "follow this game"));
  drawPlayer(s, g, "white");
  drawPlayer(s, g, "black");
  // Set only when it changes: each set invalidates the whole document's style.
  if (g.lang && document.documentElement.lang !== g.lang) document.documentElement.lang = g.lang;
  drawMoves(s.querySelector(".moves"), g);
  // Live regions change only when their words change (a screen reader
  // reads every change).
  setText(s.querySelector(".result-live"), result);
  setText(s.querySelector(".marks"), (g.marks || [])
    .map((m) => `Illegal move by ${m.by === "w" ? "White" : "Black"} (${m.article}): ${m.played}` + (m.corrected ? ", taken back." : ", to be corrected."))
    .join(" "));
  drawClocks(g);
}

function drawBoard(s, g) {
  const ply = shownPly(g);
  const all = replayOf(g);
  const pieces = all && ply < g.moves.length ? all[ply] : placement(g.fen);
  const last = ply > 0 ? g.moves[ply - 1].uci || "" : "";
  s.querySelectorAll("td[data-square]").forEach((td) => {
    const sq = td.dataset.square;
    const p = pieces[sq] || "";
    if (td.dataset.piece !== p) {
      td.dataset.piece = p;
      td.textContent = p ? GLYPH[p] : "";
      td.setAttribute("aria-label", p ? `${sq} ${p === p.toUpperCase() ? "white" : "black"} ${NAME[p.toLowerCase()]}` : `${sq} empty`);
    }
    td.classList.toggle("last", last.length >= 4 && (sq === last.slice(0, 2) || sq === last.slice(2, 4)));
  });
  const note = s.querySelector(".replay-note");
  note.hidden = !!all || !g.moves.length;
  setText(note, all ? "" : "The earlier positions cannot be shown: the moves do not lead to the board's position (a game set up from another position, or a position the arbiter set).");
  s.querySelectorAll(".step").forEach((b) => {
    const at = b.classList.contains("first") || b.classList.contains("prev") ? ply === 0 : ply >= g.moves.length;
    b.disabled = !all || at;
  });
  s.querySelectorAll(".moves li").forEach((li) => {
    const sel = view.ply !== null && Number(li.dataset.ply) === ply;
    li.classList.toggle("sel", sel);
    if (sel) li.setAttribute("aria-current", "true"); else li.removeAttribute("aria-current");
  });
}

// The move list in two columns (number, White, Black), one item a ply: the
// SAN shown, the spoken words read (in the event's language). Only new
// plies are added, so the live region reads each move once; a take-back
// redraws from where the game goes on. Then the board at the ply shown.
function drawMoves(ol, g) {
  while (ol.children.length > g.moves.length ||
         (ol.children.length && ol.lastElementChild.dataset.san !== g.moves[ol.children.length - 1].san)) {
    ol.lastElementChild.remove();
  }
  for (let i = ol.children.length; i < g.moves.length; i++) {
    const m = g.moves[i];
    const white = m.by ? m.by === "w" : i % 2 === 0;
    const li = el("li", { "data-ply": String(i + 1), "data-san": m.san, class: white ? "w" : "b", "data-num": String(Math.floor(i / 2) + 1) + (white ? "." : "…") });
    li.append(el("span", { class: "san", "aria-hidden": m.spoken ? "true" : "false" }, m.san));
    if (m.spoken) li.append(el("span", { class: "spoken", lang: g.lang || "" }, m.spoken));
    ol.append(li);
  }
  if (view.ply === null) ol.scrollTop = ol.scrollHeight;
  drawBoard(ol.closest("section"), g);
}

/** Steps the full view of `game`: `first` (the start position), `prev`, `next`, `last` (following the game again). */
function step(game, what) {
  const g = games.get(game);
  if (!g) return;
  const n = g.moves.length, cur = shownPly(g);
  select(game, { first: 0, prev: cur - 1, next: cur + 1, last: n }[what]);
}

/** Shows ply `ply` of `game` (0: the start position; its last: following the game) and says which. */
function select(game, ply) {
  const g = games.get(game);
  const s = document.getElementById("game-" + game);
  if (!g || !s || !replayOf(g)) return;
  const n = g.moves.length;
  ply = Math.max(0, Math.min(n, ply));
  view.ply = ply >= n ? null : ply;
  drawBoard(s, g);
  drawClocks(g);
  const li = s.querySelector(`.moves li[data-ply="${ply}"]`);
  const ol = s.querySelector(".moves");
  if (li && view.ply !== null) ol.scrollTop = Math.max(0, li.offsetTop - ol.offsetTop - ol.clientHeight / 2);
  if (view.ply === null) ol.scrollTop = ol.scrollHeight;
  // The position shown, said once per step (never while following).
  const shown = s.querySelector(".shown");
  const m = g.moves[ply - 1];
  shown.replaceChildren();
  if (!m) { shown.textContent = "Start position"; return; }
  const white = m.by ? m.by === "w" : ply % 2 === 1;
  shown.append((view.ply === null ? "Following the game. " : "") + "Move " + Math.ceil(ply / 2) + ", " + (white ? "White" : "Black") + ": ");
  shown.append(m.spoken ? el("span", { lang: g.lang || "" }, m.spoken) : m.san);
}

function flipBoard(game) {
  const g = games.get(game);
  const s = document.getElementById("game-" + game);
  if (!g || !s) return;
  view.flipped = !view.flipped;
  const table = s.querySelector("table.board");
  buildBoard(table, view.flipped);
  const top = s.querySelector(".player." + (view.flipped ? "white" : "black"));
  const bottom = s.querySelector(".player." + (view.flipped ? "black" : "white"));
  table.before(top);
  table.after(bottom);
  s.querySelector(".flip").setAttribute("aria-pressed", String(view.flipped));
  drawBoard(s, g);
}

// The keys of lichess's move list (lila `ui/analyse/src/keyboard.ts`):
// ← / → a move back / on, Home / End the start / the last move, f flips.
document.addEventListener("keydown", (e) => {
  if (gridMode() || e.altKey || e.ctrlKey || e.metaKey) return;
  if (e.target && /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName)) return;
  const s = gamesEl.querySelector("section.game");
  if (!s) return;
  const what = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" }[e.key];
  if (what) { e.preventDefault(); step(s.dataset.game, what); } else if (e.key === "f") flipBoard(s.dataset.game);
});

/** Each side's clock after its last move up to `ply` (`clock_ms`), for a position stepped back to. */
function clocksAt(g, ply) {
  const out = { white: null, black: null };
  g.moves.slice(0, ply).forEach((m, i) => {
    const side = (m.by ? m.by === "w" : i % 2 === 0) ? "white" : "black";
    if (m.clock_ms != null) out[side] = m.clock_ms;
  });
  return out;
}

function drawClocks(g) {
  const s = gridMode() ? document.getElementById("tile-" + g.game) : document.getElementById("game-" + g.game);
  if (!s) return;
  const stepped = !gridMode() && view.ply !== null && replayOf(g);
  const past = stepped ? clocksAt(g, shownPly(g)) : null;
  for (const side of ["white", "black"]) {
    const c = s.querySelector(gridMode() ? ".tp." + side + " .clk" : ".clock." + side);
    let ms = null, running = false;
    if (past) ms = past[side];
    else if (g.clock) ({ ms, running } = clockNow(g, side));
    setText(c, g.clock || past ? clockFull(ms) : "–");
    c.classList.toggle("running", running);
    // The running clock is marked in words too, not by its colour alone.
    const label = (side === "white" ? "White's" : "Black's") + " clock" + (running ? ", running" : "") + (past ? ", after the move shown" : "");
    if (c.getAttribute("aria-label") !== label) c.setAttribute("aria-label", label);
    const mark = gridMode() ? null : c.parentElement.querySelector(".run-mark");
    if (mark) mark.hidden = !running;
  }
}

/** Whether state `b` shows what `a` (the state held, with the messages applied since) shows. */
function sameState(a, b) {
  const last = (g) => (g.moves && g.moves.length ? g.moves[g.moves.length - 1].uci : "");
  return a.t === b.t && a.fen === b.fen && (a.moves || []).length === (b.moves || []).length && last(a) === last(b) &&
    a.result === b.result && a.result_status === b.result_status && (a.marks || []).length === (b.marks || []).length &&
    JSON.stringify(a.clock) === JSON.stringify(b.clock);
}

function onMessage(m) {
  if (m.type === "state") {
    // The stream opens with each game's state: the one embedded in the
    // page, as a rule, which is not drawn again.
    const had = games.get(m.game);
    if (had && sameState(had, m)) return;
    games.set(m.game, m);
    render(m);
    return;
  }
  const g = games.get(m.game);
  if (!g) return;
  switch (m.type) {
    case "move":
      applyToGame(g, m);
      if (m.lang) g.lang = m.lang;
      g.marks = (g.marks || []).map((k) => ({ ...k, corrected: true }));
      break;
    case "result_confirmed":
      applyToGame(g, m);
      if (gridMode()) loadStandings();
      break;
    case "illegal_move":
      g.marks = (g.marks || []).concat([{ by: m.by, article: m.article, penalty: m.penalty, played: m.played, corrected: false }]);
      break;
    case "position_restored":
      g.marks = (g.marks || []).map((k) => ({ ...k, corrected: true }));
      break;
    default:
      if (!applyToGame(g, m)) return;
  }
  render(g);
}

function connect() {
  const initial = document.getElementById("initial-state");
  if (initial) {
    try {
      const states = JSON.parse(initial.textContent);
      // Every game known before the first draw: a round's page draws its
      // tiles at once, not the first game in full (a layout thrown away
      // when the second arrives): the first paint (issue 42 §7).
      const all = states.filter((m) => m.type === "state");
      all.forEach((m) => games.set(m.game, m));
      drawingAll = true;
      try { all.forEach(render); } finally { drawingAll = false; }
      drawHeader();
      performance.mark("live:drawn");
    } catch (err) { /* drawn from the stream instead */ }
  }
  followFeed("/events" + FILTER, 2000, {
    open: () => {
      connected = true;
      setText(statusEl, connectedWords(distinct([...games.values()].map((g) => g.delay_ms || 0))));
    },
    // "Reconnecting…" (a polite live region) only when the stream stays away.
    away: () => {
      connected = false;
      setText(statusEl, "Reconnecting…");
    },
    message: onMessage,
  });
}

setInterval(() => games.forEach(drawClocks), 250);
// The standings follow the confirmed results (refreshed on each, and once a minute).
setInterval(() => { if (gridMode()) loadStandings(); }, 60000);
connect();
