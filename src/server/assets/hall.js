// eboard hall display (docs/hall.md): the round's boards from /boards.json
// and the event stream /events, the standings from /standings.json. Public
// routes only: everything is as late as the transmission delay. After the
// relay was away it reads the boards and the standings again by itself.
// Served after clock-text.js (`clockFull`) and feed.js (the stream, a
// game's state; src/server/hall.rs).
"use strict";

/** Boards on one page (two columns of six); more cycle every PAGE_MS. */
const PER_PAGE = 12;
/** Standings rows on one page. */
const ROWS = 20;
const PAGE_MS = 15000;
const games = new Map();
let standings = null;
let standingsNote = "";
/** The relay has been away AWAY_MS: the page says so. */
let away = false;
/** How long the relay is away before the page says so, ms. */
const AWAY_MS = 3000;
let page = 0;
let loads = 0;

const $ = (id) => document.getElementById(id);

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  return e;
}

function playerName(p) {
  if (!p || !p.name) return "?";
  return (p.title ? p.title + " " : "") + p.name;
}

/** A number of points as the standings print it: 2.5, 4.25, 3. */
function num(v) {
  return v == null ? "" : String(Math.round(v * 100) / 100);
}

function final(g) {
  return ["confirmed", "corrected", "forfeit"].includes(g.result_status);
}

/** The round on show: the newest round of the feed. */
function round() {
  let r = 0;
  games.forEach((g) => { if (g.round > r) r = g.round; });
  return r;
}

function roundGames() {
  const r = round();
  return Array.from(games.values()).filter((g) => g.round === r).sort((a, b) => a.board - b.board);
}

function lastMove(g) {
  const moves = g.moves || [];
  if (!moves.length) return "";
  const i = moves.length - 1;
  return Math.floor(i / 2) + 1 + (i % 2 ? "… " : ". ") + moves[i].san;
}

function resultText(g) {
  if (!g.result || g.result === "*") return "";
  const r = g.result === "1/2-1/2" ? "½-½" : g.result;
  if (g.result_status === "forfeit") return r + " forfeit";
  return final(g) ? r : r + " (to confirm)";
}

function tile(g) {
  const t = el("article", "board");
  t.id = "board-" + g.game;
  t.append(el("div", "no", String(g.board)));
  for (const side of ["white", "black"]) {
    t.append(el("div", "name " + side, playerName(g[side])));
    const c = el("div", "clock " + side, "–");
    t.append(c);
  }
  const foot = el("div", "foot");
  foot.append(el("span", "last", lastMove(g)));
  foot.append(el("span", "result" + (final(g) ? "" : " provisional"), resultText(g)));
  t.append(foot);
  return t;
}

function drawClocks(g) {
  const t = document.getElementById("board-" + g.game);
  if (!t) return;
  for (const side of ["white", "black"]) {
    const c = t.querySelector(".clock." + side);
    if (!g.clock) { c.textContent = "–"; continue; }
    const { ms, running } = clockNow(g, side);
    c.textContent = clockFull(ms);
    c.classList.toggle("running", running);
  }
}

function drawHeader() {
  const any = roundGames()[0];
  $("event").textContent = (standings && standings.event) || (any && any.event) || "eboard";
  const r = round() || (standings && standings.round);
  const of = standings && standings.rounds ? " of " + standings.rounds : "";
  $("round").textContent = r ? "Round " + r + of : "";
  const delay = any ? (any.delay_ms || 0) : 0;
  $("delay").textContent = delay > 0 ? "Moves shown " + Math.round(delay / 60000) + " min late" : "";
  // Said once away for a few seconds: the stream's own reconnection at the
  // end of each lease (docs/server.md) is no news for the hall.
  $("away").hidden = !away;
}

function drawBoards() {
  const list = roundGames();
  const pages = Math.max(1, Math.ceil(list.length / PER_PAGE));
  const p = page % pages;
  const shown = list.slice(p * PER_PAGE, (p + 1) * PER_PAGE);
  // Six boards or fewer: one column, the names and clocks larger still.
  $("grid").classList.toggle("wide", list.length <= PER_PAGE / 2);
  $("grid").replaceChildren(...shown.map(tile));
  shown.forEach(drawClocks);
  $("board-page").textContent = pages > 1
    ? "Boards " + shown[0].board + "–" + shown[shown.length - 1].board + " of " + list.length : "";
}

function drawStandings() {
  const s = standings;
  $("provisional").hidden = !(s && s.provisional);
  if (!s) {
    $("standings-title").textContent = "Standings";
    $("table-head").replaceChildren();
    $("rows").replaceChildren();
    $("standings-note").textContent = standingsNote;
    return;
  }
  $("standings-title").textContent = "Standings after round " + s.round;
  const head = [el("th", "rank", "#"), el("th", "name", "Name"), el("th", "num", "Pts")];
  s.tiebreaks.forEach((t) => { const th = el("th", "num", t.code); th.title = t.name; head.push(th); });
  $("table-head").replaceChildren(...head);
  const pages = Math.max(1, Math.ceil(s.rows.length / ROWS));
  const p = page % pages;
  const rows = s.rows.slice(p * ROWS, (p + 1) * ROWS).map((r) => {
    const tr = el("tr");
    tr.dataset.start = String(r.start);
    tr.append(el("td", "rank", r.rank + (r.tied ? "=" : "")));
    tr.append(el("td", "name", (r.title ? r.title + " " : "") + r.name));
    tr.append(el("td", "num pts", num(r.points)));
    r.tiebreaks.forEach((v) => tr.append(el("td", "num", num(v))));
    return tr;
  });
  $("rows").replaceChildren(...rows);
  const waiting = s.unconfirmed.length ? "Waiting for " + s.unconfirmed.join(", ") + ". " : "";
  const of = pages > 1 ? (p * ROWS + 1) + "–" + Math.min(s.rows.length, (p + 1) * ROWS) + " of " + s.rows.length : "";
  $("standings-note").textContent = waiting + of;
}

function draw() {
  drawHeader();
  drawBoards();
  drawStandings();
}

function onMessage(m) {
  if (!m || !m.game) return;
  if (m.type === "state") {
    games.set(m.game, m);
    return;
  }
  const g = games.get(m.game);
  if (!g) return;
  applyToGame(g, m);
  if (m.type === "result_confirmed") setTimeout(loadStandings, 500);
}

/** The boards as the server has them now (after a restart: all of them). */
async function loadBoards() {
  const r = await fetch("/boards.json", { cache: "no-store" });
  if (!r.ok) throw new Error("boards.json: " + r.status);
  const list = await r.json();
  list.forEach((s) => onMessage(s.state));
  loads += 1;
  document.body.dataset.loads = String(loads);
  draw();
}

async function loadStandings() {
  try {
    const r = await fetch("/standings.json", { cache: "no-store" });
    if (r.ok) {
      standings = await r.json();
      standingsNote = "";
    } else if (r.status === 404) {
      standings = null;
      standingsNote = "No standings: the relay has no pairings file.";
    }
  } catch (err) { /* away: the last standings stay */ }
  draw();
}

function reload() {
  loadBoards().catch(() => { /* the stream's states draw them */ });
  loadStandings();
}

function connect() {
  followFeed("/events", AWAY_MS, {
    open: (back) => {
      away = false;
      if (back) reload();
      drawHeader();
    },
    away: () => {
      away = true;
      drawHeader();
    },
    message: (m) => {
      onMessage(m);
      draw();
    },
  });
}

const initial = document.getElementById("initial-state");
if (initial) {
  try { JSON.parse(initial.textContent).forEach(onMessage); } catch (err) { /* drawn from the feed instead */ }
}
draw();
reload();
connect();
setInterval(() => roundGames().forEach(drawClocks), 250);
setInterval(loadStandings, 10000);
setInterval(() => { page += 1; drawBoards(); drawStandings(); }, PAGE_MS);
