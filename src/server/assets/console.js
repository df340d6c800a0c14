// The arbiter's console: boards and one alert queue from this server's
// arbiter channel (/arbiter/state, /arbiter/events), acknowledgements
// (/console/ack) and rulings (/arbiter/command). No framework; docs/console.md.
"use strict";
const GLYPH = { K: "♔", Q: "♕", R: "♖", B: "♗", N: "♘", P: "♙", k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟" };
const NAMES = { K: "white king", Q: "white queen", R: "white rook", B: "white bishop", N: "white knight", P: "white pawn",
  k: "black king", q: "black queen", r: "black rook", b: "black bishop", n: "black knight", p: "black pawn" };
const TITLES = { illegal_move: "Illegal move", touch_move: "Touch-move breach", irregularity: "Irregularity",
  claim: "Claim", flag: "Flag fell", ambiguous_move: "Ambiguous reading", game_end: "Result to confirm",
  board_offline: "Board offline", board_resumed: "Board back online" };
const $ = (id) => document.getElementById(id);
const boards = new Map();   // game → state
const offline = new Set();  // games offline (relay)
const replies = new Map(); // reply element id → [text, class], kept across redraws
let lastAlerts = "";
let me = null, seen = new Set(), first = true, timer = null, source = null;

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
function clockText(ms) {
  if (ms == null) return "–";
  const s = Math.ceil(ms / 1000), h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60;
  return (h ? h + ":" + String(m).padStart(2, "0") : m) + ":" + String(s % 60).padStart(2, "0");
}
function remaining(st) {
  const c = st.clock; if (!c) return null;
  let w = c.white_ms, b = c.black_ms;
  if (c.running && c.unix_ms) { const d = (Date.now() - c.unix_ms) * (st.speed || 1); if (c.running === "w") w -= d; else b -= d; }
  return { w: Math.max(0, Math.round(w)), b: Math.max(0, Math.round(b)) };
}
function diagram(fen, fix) {
  const t = el("table", { class: "diagram", role: "img", "aria-label": "position" + (fix && fix.length ? "; squares to correct: " + fix.join(" ") : "") });
  const rows = (fen || "8/8/8/8/8/8/8/8").split(" ")[0].split("/");
  rows.forEach((row, r) => {
    const tr = el("tr"); let f = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) { for (let i = 0; i < +ch; i++) tr.appendChild(cell(r, f++, "")); }
      else tr.appendChild(cell(r, f++, ch));
    }
    t.appendChild(tr);
  });
  function cell(r, f, p) {
    const sq = "abcdefgh"[f] + (8 - r);
    const td = el("td", { class: ((r + f) % 2 ? "dark" : "light") + (fix && fix.includes(sq) ? " fix" : ""), "data-square": sq, title: sq + (p ? " " + NAMES[p] : "") }, GLYPH[p] || "");
    return td;
  }
  return t;
}
async function api(method, path, body) {
  const r = await fetch(path, { method, credentials: "same-origin", headers: body ? { "Content-Type": "application/json" } : {}, body: body ? JSON.stringify(body) : undefined });
  let data = null; try { data = await r.json(); } catch (e) { data = null; }
  return { status: r.status, data, retry: r.headers.get("Retry-After") };
}
function newId() {
  const a = new Uint8Array(12); crypto.getRandomValues(a);
  return "c-" + Array.from(a, (x) => x.toString(16).padStart(2, "0")).join("");
}

// Rulings: one JSON object {board, action, body, arbiter, id}.
function say(replyEl, text, cls) {
  replies.set(replyEl.id, [text, cls]);
  const now = document.getElementById(replyEl.id) || replyEl;
  now.textContent = text; now.className = cls;
}
function replyBox(id) {
  const p = el("p", { class: "reply", role: "status", id });
  const kept = replies.get(id); if (kept) { p.textContent = kept[0]; p.className = kept[1]; }
  return p;
}
async function rule(game, action, body, replyEl) {
  say(replyEl, "Sending " + action + " to board " + game + "…", "reply");
  const r = await api("POST", "/arbiter/command", { board: game, action, body: body || null, id: newId() });
  if (r.status === 200 && r.data) {
    const evs = (r.data.events || []).map((e) => e.type + (e.article ? " (" + e.article + ")" : "")).join(", ");
    say(replyEl, "Applied on board " + game + " by " + r.data.author + ": " + (evs || "no change"), "reply applied");
    schedule();
  } else {
    say(replyEl, "Refused (" + r.status + "): " + ((r.data && r.data.error) || "no answer"), "reply error");
  }
}
function button(label, onClick, extra) {
  const b = el("button", Object.assign({ type: "button" }, extra || {}), label);
  b.addEventListener("click", onClick); return b;
}
function addTime(game, side, ms, reply) {
  const st = boards.get(game); const rem = st && remaining(st);
  if (!rem) { reply.textContent = "No clock on board " + game; return; }
  rule(game, "clock", { white_ms: rem.w + (side === "w" ? ms : 0), black_ms: rem.b + (side === "b" ? ms : 0) }, reply);
}
function rulingsFor(a, reply) {
  const e = a.event, g = a.game, art = e.article ? " (" + e.article + ")" : "", box = el("div", { class: "rulings" });
  const add = (label, action, body) => box.appendChild(button(label, () => rule(g, action, body, reply)));
  switch (a.type) {
    case "illegal_move":
      add("Restore position" + art, "restore"); add("Overrule", "overrule");
      box.appendChild(button("Add 2 min to " + (e.by === "w" ? "Black" : "White"), () => addTime(g, e.by === "w" ? "b" : "w", 120000, reply)));
      break;
    case "touch_move": case "claim":
      add("Uphold claim" + art, "accept"); add("Reject claim" + art, "overrule"); break;
    case "irregularity":
      add("Restore position" + art, "restore"); add("Pause clocks", "pause"); add("Resume clocks", "resume"); break;
    case "flag":
      add("Declare 1-0" + art, "result", { result: "1-0" }); add("Declare 0-1" + art, "result", { result: "0-1" });
      add("Declare ½-½" + art, "result", { result: "1/2-1/2" }); break;
    case "ambiguous_move":
      for (const c of e.candidates || []) add("Choose " + (c.san || c.uci) + art, "choose", { uci: c.uci });
      break;
    case "game_end":
      add("Confirm " + e.result, "confirm");
      for (const r of ["1-0", "0-1", "1/2-1/2"]) if (r !== e.result) add("Correct to " + r, "confirm", { result: r });
      break;
    case "board_offline": case "board_resumed":
      add("Pause clocks", "pause"); add("Resume clocks", "resume"); break;
  }
  return box;
}
function describe(e) {
  const parts = [];
  if (e.by) parts.push(e.by === "w" ? "by White" : "by Black");
  if (e.kind) parts.push(String(e.kind).replace(/_/g, " "));
  if (e.article) parts.push("article " + e.article);
  if (e.penalty && e.penalty !== "none") parts.push("penalty: " + e.penalty);
  if (e.played) parts.push("played " + e.played);
  if (e.squares && e.squares.length) parts.push("squares " + e.squares.join(" "));
  if (e.result) parts.push("result " + e.result + (e.reason ? " (" + String(e.reason).replace(/_/g, " ") + ")" : ""));
  if (e.consequence) parts.push(e.consequence);
  if (e.base) parts.push(e.base + (e.reason ? ": " + e.reason : ""));
  return parts.join("; ");
}
function renderAlerts(list) {
  const ol = $("alerts"); ol.textContent = "";
  const fresh = [];
  offline.clear();
  for (const a of list.slice().reverse()) { // oldest first: the last word on a board counts
    if (a.type === "board_offline" && a.game) offline.add(a.game);
    if (a.type === "board_resumed" && a.game) offline.delete(a.game);
  }
  let open = 0;
  for (const a of list) {
    if (!a.ack) open++;
    if (!seen.has(a.id)) { seen.add(a.id); if (!first && !a.ack) fresh.push(a); }
    const li = el("li", { class: "alert" + (a.ack ? " acked" : ""), id: "alert-" + a.id, "data-type": a.type, "data-game": a.game || "" });
    li.appendChild(el("h3", {}, (TITLES[a.type] || a.type) + (a.game ? " — board " + a.game : "") + " · " + new Date(a.unix_ms).toLocaleTimeString()));
    li.appendChild(el("p", {}, describe(a.event)));
    if ((a.type === "illegal_move" || a.type === "irregularity") && a.game && boards.get(a.game)) {
      li.appendChild(el("p", {}, "Position to reinstate; the marked squares differ on the board:"));
      li.appendChild(diagram(boards.get(a.game).fen, a.event.squares || []));
    }
    const reply = replyBox("reply-alert-" + a.id);
    // A deputy sees the rulings too; the server refuses them (403, shown).
    if (a.game) li.appendChild(rulingsFor(a, reply));
    li.appendChild(reply);
    if (a.ack) li.appendChild(el("p", {}, "Acknowledged by " + a.ack.by + " at " + new Date(a.ack.unix_ms).toLocaleTimeString()));
    else li.appendChild(button("Acknowledge", async () => {
      const r = await api("POST", "/console/ack", { id: a.id });
      if (r.status === 200) schedule(); else say(reply, "Refused (" + r.status + "): " + ((r.data && r.data.error) || ""), "reply error");
    }, { class: "ack" }));
    ol.appendChild(li);
  }
  $("open-count").textContent = "(" + open + " open)";
  if (fresh.length) $("announce").textContent = fresh.map((a) => "New alert: " + (TITLES[a.type] || a.type) + (a.game ? " on board " + a.game : "") + (a.event.article ? ", article " + a.event.article : "")).join(". ");
  first = false;
}
function renderBoards() {
  const box = $("boards");
  // Redrawn every few seconds: what the arbiter is typing (and where) stays.
  const kept = new Map(Array.from(box.querySelectorAll("input, select"), (i) => [i.id, i.value]));
  const focused = document.activeElement && box.contains(document.activeElement) ? document.activeElement.id : null;
  box.textContent = "";
  const games = Array.from(boards.keys()).sort((x, y) => { const [a, b] = x.split(".").map(Number), [c, d] = y.split(".").map(Number); return a - c || b - d; });
  for (const g of games) {
    const st = boards.get(g), stage = offline.has(g) ? "offline" : (st.stage || "");
    const card = el("article", { class: "board", id: "board-" + g, "aria-labelledby": "board-title-" + g });
    // As the pairing list prints a player: title, name, rating.
    const who = (p, side) => p && p.name ? [p.title, p.name].filter(Boolean).join(" ") + (p.rating ? " (" + p.rating + ")" : "") : side;
    const w = who(st.white, "White"), b = who(st.black, "Black");
    const h = el("h3", { id: "board-title-" + g }, "Board " + g + ": " + w + " – " + b + " ");
    h.appendChild(el("span", { class: "stage " + stage, "data-stage": stage }, stage === "setup" ? "set-up" : stage));
    if (st.trial) h.appendChild(el("strong", { class: "trial" }, " TRIAL: simulated hands, not a real game"));
    card.appendChild(h);
    const rem = remaining(st);
    card.appendChild(el("p", { class: "clocks" }, rem ? "White " + clockText(rem.w) + " · Black " + clockText(rem.b) + (st.clock.running ? " (" + (st.clock.running === "w" ? "White" : "Black") + " to move)" : " (stopped)") : "No clock"));
    card.appendChild(diagram(st.fen, []));
    const moves = (st.moves || []).slice(-6).map((m) => m.san).join(" ");
    card.appendChild(el("p", {}, "Last moves: " + (moves || "none")));
    if (st.result && st.result !== "*") card.appendChild(el("p", { class: "result", "data-status": st.result_status || "" }, "Result " + st.result + " — " + (st.result_status || "")));
    const reply = replyBox("reply-board-" + g);
    const ctl = el("div", { class: "rulings" });
    ctl.appendChild(button("Pause", () => rule(g, "pause", null, reply)));
    ctl.appendChild(button("Resume", () => rule(g, "resume", null, reply)));
    ctl.appendChild(button("+2 min White", () => addTime(g, "w", 120000, reply)));
    ctl.appendChild(button("+2 min Black", () => addTime(g, "b", 120000, reply)));
    const sel = el("select", { id: "result-" + g, "aria-label": "result for board " + g });
    for (const r of ["1-0", "0-1", "1/2-1/2"]) sel.appendChild(el("option", { value: r }, r));
    ctl.appendChild(sel);
    ctl.appendChild(button("Declare result", () => rule(g, "result", { result: sel.value }, reply)));
    ctl.appendChild(button("Confirm result", () => rule(g, "confirm", st.result && st.result !== "*" && st.result !== sel.value ? { result: sel.value } : null, reply)));
    ctl.appendChild(button("Forfeit (no-show)", () => rule(g, "forfeit", { result: sel.value }, reply)));
    // Set both clocks (§6.10b / 6.13): minutes:seconds each.
    const cw = el("input", { id: "clock-w-" + g, "aria-label": "White's clock for board " + g + " (m:ss)", placeholder: "White m:ss", size: "7" });
    const cb = el("input", { id: "clock-b-" + g, "aria-label": "Black's clock for board " + g + " (m:ss)", placeholder: "Black m:ss", size: "7" });
    const ms = (t) => { const [m, x] = String(t).split(":"); return Math.round((Number(m) * 60 + Number(x || 0)) * 1000); };
    ctl.appendChild(cw); ctl.appendChild(cb);
    ctl.appendChild(button("Set clocks", () => {
      const w = ms(cw.value), bl = ms(cb.value);
      if (!(w >= 0 && bl >= 0)) { say(reply, "Give both clocks as minutes:seconds, e.g. 12:30", "reply error"); return; }
      rule(g, "clock", { white_ms: w, black_ms: bl }, reply);
    }));
    const fen = el("input", { id: "fen-" + g, "aria-label": "FEN to set up on board " + g, placeholder: "FEN" });
    ctl.appendChild(fen);
    ctl.appendChild(button("Set position", () => rule(g, "position", { fen: fen.value }, reply)));
    card.appendChild(ctl); card.appendChild(reply);
    box.appendChild(card);
  }
  for (const [id, v] of kept) { const i = document.getElementById(id); if (i) i.value = v; }
  if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
}
async function refresh() {
  timer = null;
  const [s, a] = await Promise.all([api("GET", "/arbiter/state"), api("GET", "/console/alerts")]);
  if (s.status === 401 || a.status === 401) { showLogin("Your session has ended: log in again."); return; }
  if (s.status === 200 && Array.isArray(s.data)) for (const snap of s.data) if (snap.state) boards.set(snap.state.game, snap.state);
  // Drawn again only when the queue changed (keyboard focus stays put).
  if (a.status === 200 && Array.isArray(a.data)) {
    const text = JSON.stringify(a.data) + JSON.stringify(Array.from(boards.keys()));
    if (text !== lastAlerts) { lastAlerts = text; renderAlerts(a.data); }
  }
  renderBoards();
  $("status").textContent = "Updated " + new Date().toLocaleTimeString();
}
function schedule() { if (!timer) timer = setTimeout(refresh, 150); }
function showLogin(msg) {
  me = null; lastAlerts = ""; $("desk").hidden = true; $("login").hidden = false; $("logout").hidden = true; $("who").textContent = "";
  $("login-error").textContent = msg || "";
  if (source) { source.close(); source = null; }
}
function showDesk(who) {
  me = who; $("login").hidden = true; $("desk").hidden = false; $("logout").hidden = false;
  $("who").textContent = "Logged in as " + who.name + " (" + who.role + (who.role === "deputy" ? ": read-only" : "") + ")";
  if (!source) { source = new EventSource("/arbiter/events"); source.onmessage = schedule; }
  refresh();
}
$("login").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const r = await api("POST", "/console/login", { name: $("name").value, secret: $("secret").value });
  $("secret").value = "";
  if (r.status === 200) showDesk(r.data);
  else $("login-error").textContent = r.status === 429 ? "Too many failed logins: wait " + r.retry + " s." : "Login refused (" + r.status + "): " + ((r.data && r.data.error) || "");
});
$("logout").addEventListener("click", async () => { await api("POST", "/console/logout"); showLogin("Logged out."); });
setInterval(() => { if (me) schedule(); }, 3000);
api("GET", "/console/me").then((r) => { if (r.status === 200) showDesk(r.data); else showLogin(""); });
