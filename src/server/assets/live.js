// eboard live page: draws the games of the feed from /boards.json and the
// event stream /events. No arbiter's login: that is the console's, over HTTPS.
// Served after clock-text.js (`clockFull`; src/server/page.rs).
"use strict";

const GLYPH = { K: "♔", Q: "♕", R: "♖", B: "♗", N: "♘", P: "♙", k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟" };
const NAME = { k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn" };
const FILES = "abcdefgh";
const games = new Map();
// `?game=R.B` follows one game, `?round=R` one round; the stream is asked
// for just those.
const FILTER = (() => {
  const page = new URLSearchParams(location.search), q = new URLSearchParams();
  for (const k of ["game", "round"]) if (page.get(k)) q.set(k, page.get(k));
  return q.toString() ? "?" + q.toString() : "";
})();
const gamesEl = document.getElementById("games");
const statusEl = document.getElementById("status");

function placement(fen) {
  const squares = {};
  fen.split(" ")[0].split("/").forEach((row, i) => {
    let f = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) { f += Number(ch); continue; }
      squares[FILES[f] + (8 - i)] = ch;
      f += 1;
    }
  });
  return squares;
}

function playerName(p, fallback) {
  if (!p || !p.name) return fallback;
  return (p.title ? p.title + " " : "") + p.name;
}

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// The section of one game, created on first sight.
function section(g) {
  let s = document.getElementById("game-" + g.game);
  if (s) return s;
  s = el("section", { id: "game-" + g.game, class: "game", "data-game": g.game, "aria-labelledby": "h-" + g.game });
  s.append(el("h2", { id: "h-" + g.game }));
  const layout = el("div", { class: "layout" });
  const left = el("div");
  left.append(el("div", { class: "clock black", role: "timer", "aria-label": "Black's clock" }));
  const table = el("table", { class: "board", "aria-label": "Board " + g.game });
  for (let r = 8; r >= 1; r--) {
    const tr = el("tr");
    tr.append(el("th", { scope: "row" }, String(r)));
    for (const f of FILES) tr.append(el("td", { "data-square": f + r }));
    table.append(tr);
  }
  const files = el("tr");
  files.append(el("th"));
  for (const f of FILES) files.append(el("th", { scope: "col" }, f));
  table.append(files);
  left.append(table);
  left.append(el("div", { class: "clock white", role: "timer", "aria-label": "White's clock" }));
  const right = el("div");
  // For screen readers: the moves, the result and the illegal-move marking
  // are polite live regions; each move is read in the event's words
  // (`spoken`, in the language `lang`), new moves only.
  right.append(el("h3", {}, "Moves"));
  right.append(el("ol", { class: "moves", role: "log", "aria-live": "polite", "aria-relevant": "additions", "aria-label": "Moves of game " + g.game }));
  right.append(el("p", { class: "result-live", role: "status", "aria-live": "polite", "aria-atomic": "true", "aria-label": "Result of game " + g.game }));
  right.append(el("p", { class: "marks", role: "status", "aria-live": "polite", "aria-atomic": "true", "aria-label": "Illegal moves in game " + g.game }));
  layout.append(left, right);
  s.append(layout);
  const all = [...gamesEl.children, s].sort((a, b) => order(a.dataset.game) - order(b.dataset.game));
  all.forEach((c) => gamesEl.append(c));
  return s;
}

function order(id) {
  const [r, b] = id.split(".").map(Number);
  return r * 10000 + b;
}

function render(g) {
  const s = section(g);
  // The result's status (DSU 004 §15): provisional until the arbiter confirms it.
  const status = g.result_status ? { provisional: ", provisional", confirmed: ", confirmed", corrected: ", corrected by the arbiter", forfeit: ", forfeit" }[g.result_status] || "" : "";
  const result = g.result && g.result !== "*" ? g.result + status : "";
  s.querySelector("h2").textContent =
    `Round ${g.round}, board ${g.board}: ${playerName(g.white, "White")} – ${playerName(g.black, "Black")} `;
  const res = el("span", { class: "result" }, result ? result + (g.reason ? " (" + g.reason.replace(/_/g, " ") + ")" : "") : "");
  s.querySelector("h2").append(res);
  // Trial mode ([board] source = "trial"): never to be taken for a real game.
  if (g.trial) s.querySelector("h2").prepend(el("strong", { class: "trial" }, "TRIAL (simulated hands, not a real game): "));
  // On the page of every game, each game links to its own page (a
  // spectator's phone then streams just that board).
  if (!FILTER) s.querySelector("h2").append(" ", el("a", { href: "/?game=" + encodeURIComponent(g.game), class: "follow" }, "follow this game"));
  const pieces = placement(g.fen);
  const last = g.moves.length ? g.moves[g.moves.length - 1].uci : "";
  s.querySelectorAll("td[data-square]").forEach((td) => {
    const sq = td.dataset.square;
    const p = pieces[sq] || "";
    td.dataset.piece = p;
    td.textContent = p ? GLYPH[p] : "";
    td.setAttribute("aria-label", p ? `${sq} ${p === p.toUpperCase() ? "white" : "black"} ${NAME[p.toLowerCase()]}` : `${sq} empty`);
    td.classList.toggle("last", last.length >= 4 && (sq === last.slice(0, 2) || sq === last.slice(2, 4)));
  });
  if (g.lang) document.documentElement.lang = g.lang;
  drawMoves(s.querySelector(".moves"), g);
  // Live regions change only when their words change (a screen reader
  // reads every change).
  setText(s.querySelector(".result-live"), result ? result + (g.reason ? " (" + g.reason.replace(/_/g, " ") + ")" : "") : "");
  setText(s.querySelector(".marks"), (g.marks || [])
    .map((m) => `Illegal move by ${m.by === "w" ? "White" : "Black"} (${m.article}): ${m.played}` + (m.corrected ? ", taken back." : ", to be corrected."))
    .join(" "));
  drawClocks(g);
}

function setText(e, text) {
  if (e.textContent !== text) e.textContent = text;
}

// The move list, one item a ply: the SAN shown, the spoken words read (in
// the event's language). Only new plies are added, so the live region reads
// each move once; a take-back redraws from where the game goes on.
function drawMoves(ol, g) {
  while (ol.children.length > g.moves.length ||
         (ol.children.length && ol.lastElementChild.dataset.san !== g.moves[ol.children.length - 1].san)) {
    ol.lastElementChild.remove();
  }
  for (let i = ol.children.length; i < g.moves.length; i++) {
    const m = g.moves[i];
    const li = el("li", { "data-ply": String(i + 1), "data-san": m.san });
    const num = Math.floor(i / 2) + 1 + (i % 2 ? "… " : ". ");
    li.append(el("span", { class: "san", "aria-hidden": m.spoken ? "true" : "false" }, num + m.san));
    if (m.spoken) li.append(el("span", { class: "spoken", lang: g.lang || "" }, m.spoken));
    ol.append(li);
  }
  ol.scrollTop = ol.scrollHeight;
}

// Round time t (ms) as Unix ms.
function unixOf(g, t) {
  return g.started_at_unix_ms + t / (g.speed || 1);
}

function drawClocks(g) {
  const s = document.getElementById("game-" + g.game);
  if (!s) return;
  for (const side of ["white", "black"]) {
    const c = s.querySelector(".clock." + side);
    if (!g.clock) { c.textContent = "–"; continue; }
    let ms = g.clock[side + "_ms"];
    const running = g.clock.running === side[0] && (!g.result || g.result === "*");
    if (running) {
      // The feed is delayed: the clock is shown as it stood delay_ms ago.
      ms -= Math.max(0, Date.now() - (g.delay_ms || 0) / (g.speed || 1) - g.clock.unix_ms) * (g.speed || 1);
    }
    c.textContent = clockFull(ms);
    c.classList.toggle("running", running);
  }
}

function onMessage(m) {
  if (m.type === "state") {
    games.set(m.game, m);
    render(m);
    return;
  }
  const g = games.get(m.game);
  if (!g) return;
  switch (m.type) {
    case "move":
      g.fen = m.fen;
      g.moves = g.moves.slice(0, m.ply - 1);
      g.moves.push({ san: m.san, uci: m.uci, by: m.by, spoken: m.spoken });
      if (m.lang) g.lang = m.lang;
      g.marks = (g.marks || []).map((k) => ({ ...k, corrected: true }));
      break;
    case "clock":
      g.clock = g.clock || {};
      g.clock.white_ms = m.white_ms;
      g.clock.black_ms = m.black_ms;
      g.clock.unix_ms = unixOf(g, m.t);
      g.clock.running = g.result && g.result !== "*" ? null : g.fen.split(" ")[1];
      break;
    case "game_end":
      g.result = m.result;
      g.reason = m.reason;
      g.result_status = g.result_status === "forfeit" ? "forfeit" : "provisional";
      if (g.clock) g.clock.running = null;
      break;
    case "result_confirmed":
      g.result = m.result;
      g.result_status = m.forfeit ? "forfeit" : m.corrected ? "corrected" : "confirmed";
      break;
    case "illegal_move":
      g.marks = (g.marks || []).concat([{ by: m.by, article: m.article, penalty: m.penalty, played: m.played, corrected: false }]);
      break;
    case "position_restored":
      g.marks = (g.marks || []).map((k) => ({ ...k, corrected: true }));
      break;
    default:
      return;
  }
  render(g);
}

function connect() {
  const initial = document.getElementById("initial-state");
  if (initial) {
    try { JSON.parse(initial.textContent).forEach(onMessage); } catch (err) { /* drawn from the stream instead */ }
  }
  const es = new EventSource("/events" + FILTER);
  es.onopen = () => { statusEl.textContent = "Live"; };
  es.onerror = () => { statusEl.textContent = "Reconnecting…"; };
  es.onmessage = (e) => {
    try { onMessage(JSON.parse(e.data)); } catch (err) { /* a malformed message is skipped */ }
  };
}

setInterval(() => games.forEach(drawClocks), 250);
connect();
