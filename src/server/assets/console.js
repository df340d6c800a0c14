// The arbiter's console: the round at a glance (one line a board), one
// alert queue (open alerts first, acknowledged ones collapsed) and a card a
// board with its open matters, rulings and history, from this server's
// arbiter channel (/arbiter/state, /arbiter/events), acknowledgements
// (/console/ack) and rulings (/arbiter/command, console-rule.js). No
// framework; docs/console.md.
"use strict";
const GLYPH = { K: "♔", Q: "♕", R: "♖", B: "♗", N: "♘", P: "♙", k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟" };
const NAMES = { K: "white king", Q: "white queen", R: "white rook", B: "white bishop", N: "white knight", P: "white pawn",
  k: "black king", q: "black queen", r: "black rook", b: "black bishop", n: "black knight", p: "black pawn" };
const TITLES = { illegal_move: "Illegal move", touch_move: "Touch-move breach", irregularity: "Irregularity",
  claim: "Claim", claim_held: "Claim held for your ruling", flag: "Flag fell", ambiguous_move: "Ambiguous reading", game_end: "Result to confirm",
  board_offline: "Board offline", board_resumed: "Board back online" };
const PAGE_TITLE = "eboard — arbiter's console";
/** The alert types a board's state rules on (its `open`: `trace::ANSWERABLE_EVENTS`). */
const RULED = new Set(["illegal_move", "touch_move", "claim", "claim_held", "ambiguous_move", "flag", "game_end", "irregularity"]);
const $ = (id) => document.getElementById(id);
const boards = new Map();   // game → state
const offline = new Set();  // games offline (relay)
let alerts = [];
let lastDrawn = "";
let me = null, seen = new Set(), first = true, timer = null, source = null, audio = null;
/**
 * Unix ms as the event's wall time, 24-hour HH:MM:SS (`short`: HH:MM), in
 * the event's zone the server names (`me.time_zone`, issue 40 §9: one zone
 * everywhere, never the browser's own zone or 12-hour clock); a zone the
 * browser does not know: at the offset the server gave (`utc_offset_min`).
 */
const wallFormats = new Map();
function wallTime(ms, short) {
  if (ms == null || !isFinite(ms)) return "";
  const tz = me && me.time_zone;
  const key = tz + (short ? ":s" : "");
  if (tz && !wallFormats.has(key)) {
    const opts = { timeZone: tz, hour: "2-digit", minute: "2-digit", hourCycle: "h23" };
    if (!short) opts.second = "2-digit";
    try { wallFormats.set(key, new Intl.DateTimeFormat("en-GB", opts)); } catch (e) { wallFormats.set(key, null); }
  }
  const f = tz ? wallFormats.get(key) : null;
  if (f) return f.format(new Date(ms));
  const d = new Date(ms + ((me && me.utc_offset_min) || 0) * 60000), p = (n) => String(n).padStart(2, "0");
  return p(d.getUTCHours()) + ":" + p(d.getUTCMinutes()) + (short ? "" : ":" + p(d.getUTCSeconds()));
}
/** The zone the page's times are in, as the page says it once. */
function zoneWords() { return "times in " + ((me && (me.time_zone_name || me.time_zone)) || "UTC") + ", 24-hour"; }
// Alerts held in the open list by this page although acknowledged (or
// resolved) elsewhere: one with a question of this arbiter's open on it, and
// after it the outcome of his answer, until he moves it himself (ia18: it
// used to move into the collapsed list with the question, so that what was
// under his finger was something else).
const held = new Set();
/** Whether alert `a` stays in the open list for this page: its question open, or held since. */
const heldOpen = (a) => pending.has("reply-alert-" + a.id) || held.has(a.id);
const readOnly = () => !me || me.role === "deputy";

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
    return el("td", { class: ((r + f) % 2 ? "dark" : "light") + (fix && fix.includes(sq) ? " fix" : ""), "data-square": sq, title: sq + (p ? " " + NAMES[p] : "") }, GLYPH[p] || "");
  }
  return t;
}
function describe(e) {
  const parts = [];
  if (e.by) parts.push(e.by === "w" ? "by White" : "by Black");
  if (e.kind) parts.push(String(e.kind).replace(/_/g, " "));
  if (e.upheld === true) parts.push("the board upheld it");
  // A quickplay-finish claim (§10.2 / III.5) is referred, not rejected (ia14).
  if (e.upheld === false) parts.push(/^referred to the arbiter/.test(e.consequence || "") ? "not decided by the board: referred to the arbiter" : "the board rejected it");
  if (e.type === "claim_held") parts.push("not decided by the board: correct only if the move written on the scoresheet is " + (e.candidates || []).map((c) => c.san).join(" or ") + "; no penalty given");
  // A downtime (issue 40.4): how long, whose clock ran, whether it ran, whom it was charged to.
  if (e.kind === "downtime" && e.downtime_ms != null) {
    const side = (c) => (c === "w" ? "White" : "Black");
    parts.push("the board was down " + clockFull(e.downtime_ms) + (e.running ? " while " + side(e.running) + "'s clock ran" : "; no clock ran")
      + (e.clock_ran === false && e.running ? "; the board's own clock stopped with it: charged to nobody" : e.charged ? "; the clock ran on: charged to " + side(e.charged.by) : "")
      + (e.clocks_stopped ? "; the clocks wait for Resume" : ""));
  }
  if (e.article) parts.push("article " + e.article);
  if (e.penalty && e.penalty !== "none") parts.push("penalty given by the board: " + e.penalty);
  // The move in SAN, as the arbiter reads it (`san`, from the position where
  // it was made); UCI (`played`) only from a board older than that field.
  if (e.touched) parts.push("touched " + e.touched);
  if (e.played || e.san) parts.push("played " + (e.san || e.played));
  if (e.squares && e.squares.length) parts.push("squares " + e.squares.join(" "));
  if (e.result) parts.push("result " + resultText(e.result) + (e.reason ? " (" + String(e.reason).replace(/_/g, " ") + ")" : ""));
  if (e.consequence) parts.push(e.consequence);
  // A board offline (HTTP relay: its address; MQTT relay: its status topic): the reason
  // always named, or that none came (a last will without one: the link was lost).
  if (e.type === "board_offline") parts.push((e.base || e.topic || "the board") + ": "
    + (e.reason || "no reason given (the board's link was lost without a word: power, network or a crash)"));
  else if (e.base) parts.push(e.base + (e.reason ? ": " + e.reason : ""));
  return parts.join("; ");
}
const gameOrder = (x, y) => { const [a, b] = x.split(".").map(Number), [c, d] = y.split(".").map(Number); return a - c || b - d; };
const who = (p, side) => p && p.name ? [p.title, p.name].filter(Boolean).join(" ") + (p.rating ? " (" + p.rating + ")" : "") : side;
function stageOf(g, st) { return offline.has(g) ? "offline" : (st.stage || ""); }
function lastMove(st) {
  const ms = st.moves || []; if (!ms.length) return "no move yet";
  const n = ms.length, m = ms[n - 1];
  return Math.ceil(n / 2) + (n % 2 ? ". " : "… ") + m.san;
}
/**
 * Whether alert `a` is from an earlier game on board `st` (ia18): it happened
 * before the game now on the board began (`started_at_unix_ms`: a new game,
 * or a board whose journal was lost starting afresh while the broker still
 * held the old game's retained alert list). A matter is named by its type
 * and round time only, so an earlier game's alert could otherwise match a
 * matter of this game at the same round time.
 */
function earlierGame(st, a) { return !!(st && st.started_at_unix_ms && a.unix_ms && a.unix_ms < st.started_at_unix_ms); }
/** The open matter of board `st` that alert `a` names (the state's `open`), if still open. */
function openFor(st, a) { return earlierGame(st, a) ? undefined : (st.open || []).find((o) => o.type === a.type && o.t === a.event.t); }
/** The ruling of board `st` that answered alert `a`, if any. */
function answerOf(st, a) { return (st.rulings || []).filter((r) => r.answers && r.answers.type === a.type && r.answers.t === a.event.t).pop(); }

// The round at a glance: one line a board.
function renderOverview() {
  const ol = $("overview"); ol.textContent = "";
  const openBy = new Map();
  for (const a of alerts) if (!a.ack && !a.resolved && a.game) openBy.set(a.game, (openBy.get(a.game) || 0) + 1);
  for (const g of Array.from(boards.keys()).sort(gameOrder)) {
    const st = boards.get(g), stage = stageOf(g, st), n = openBy.get(g) || 0;
    const li = el("li", { class: "ov" + (n ? " has-alert" : ""), id: "ov-" + g, "data-game": g });
    const a = el("a", { href: "#board-" + g, "aria-label": "board " + g + " details" });
    a.appendChild(el("b", {}, g));
    a.appendChild(el("span", { class: "players" }, who(st.white, "White") + " – " + who(st.black, "Black")));
    li.appendChild(a);
    const line = el("div", { class: "line" });
    const c = st.clock, run = c && c.running;
    line.appendChild(el("span", { class: "clk" + (run === "w" ? " running" : ""), "data-game": g, "data-side": "w", title: "White's clock" }, "–"));
    line.appendChild(el("span", { class: "clk" + (run === "b" ? " running" : ""), "data-game": g, "data-side": "b", title: "Black's clock" }, "–"));
    line.appendChild(el("span", { class: "stage " + stage, "data-stage": stage }, stage === "setup" ? "set-up" : stage));
    if (st.trial) line.appendChild(el("strong", { class: "trial" }, "TRIAL"));
    line.appendChild(el("span", { class: "last" }, lastMove(st)));
    if (st.result && st.result !== "*") line.appendChild(el("span", { class: "res" }, resultText(st.result) + (st.result_status ? " " + st.result_status : "")));
    if (n) line.appendChild(el("a", { class: "count", href: "#alerts" }, n + (n === 1 ? " alert" : " alerts")));
    li.appendChild(line);
    ol.appendChild(li);
  }
  renderRoundControls();
  tick();
}
/** Both clocks of every board, run on to now (each second). */
function tick() {
  for (const s of document.querySelectorAll(".clk[data-game]")) {
    const rem = remaining(boards.get(s.dataset.game));
    s.textContent = rem ? (s.dataset.side === "w" ? "W " : "B ") + clockText(s.dataset.side === "w" ? rem.w : rem.b) : "no clock";
  }
  // III.4 becomes due as a clock runs under two minutes: the card is drawn again.
  for (const [g, st] of boards) {
    const c = document.getElementById("board-" + g);
    if (c && st.increment_request && !!c.querySelector('[data-type="increment_request"]') !== incrementDue(st)) { renderBoards(); return; }
  }
}

// Alerts: open first (newest first), acknowledged ones collapsed below.
function renderAlert(a) {
  const st = a.game ? boards.get(a.game) : null;
  const li = el("li", { class: "alert" + (a.ack || a.resolved ? " acked" : ""), id: "alert-" + a.id, "data-type": a.type, "data-game": a.game || "" });
  li.appendChild(el("h3", {}, (TITLES[a.type] || a.type) + (a.game ? " — board " + a.game : "") + " · " + wallTime(a.unix_ms)));
  li.appendChild(el("p", {}, describe(a.event)));
  const id = "reply-alert-" + a.id;
  if (st && !/^board_/.test(a.type)) {
    const m = openFor(st, a);
    if (m) {
      li.dataset.open = "true";
      if (m.summary) li.appendChild(el("p", { class: "summary" }, m.summary));
      if (a.type === "illegal_move" || a.type === "irregularity") {
        li.appendChild(el("p", {}, "Position to reinstate; the marked squares differ on the board:"));
        li.appendChild(diagram(st.fen, a.event.squares || []));
      }
      li.appendChild(openRulings(a.game, st, m, id, readOnly() || !!a.ack));
    } else {
      li.dataset.open = "false";
      const r = answerOf(st, a);
      const words = earlierGame(st, a) ? "From an earlier game on board " + a.game + ": it happened at " + wallTime(a.unix_ms)
          + ", before the game now on the board began (" + wallTime(st.started_at_unix_ms) + ": a new game, or the board started afresh without its journal). Nothing to rule on it here: rule from the board's current alerts or its card."
        : st.open === undefined ? "This board does not say what is open (an older eboard): rule from its card."
        : r ? "Decided: " + r.action + " by " + r.author + (r.article ? " (" + r.article + ")" : "") + (r.effect ? ": " + r.effect : "") + (r.undone_by ? " — undone by #" + r.undone_by : "")
        : "Nothing left to rule: " + (st.result && st.result !== "*" && a.type !== "game_end" ? "the game is over (" + resultText(st.result) + ")" : a.type === "game_end" && st.result_status && st.result_status !== "provisional" ? "the result is " + st.result_status + " (" + resultText(st.result) + ")" : "the board decided it or the game moved on") + ".";
      li.appendChild(el("p", { class: "outcome" }, words));
    }
  }
  if (a.resolved) li.appendChild(el("p", { class: "outcome resolved" }, "Resolved at " + wallTime(a.resolved.unix_ms) + ": " + a.resolved.how));
  li.appendChild(replyBox(id));
  if (a.ack) li.appendChild(el("p", {}, "Acknowledged by " + a.ack.by + " at " + wallTime(a.ack.unix_ms)));
  // Acknowledged (or resolved) elsewhere while this arbiter's question stood:
  // kept here (below the question, so nothing above it moves) until he moves it.
  if ((a.ack || a.resolved) && heldOpen(a)) {
    if (pending.has(id)) li.appendChild(el("p", { class: "held" }, "Kept here while your question is open: it applies what it says, or the board refuses it with its reason."));
    else li.appendChild(button("Move to acknowledged", () => { held.delete(a.id); keepInPlace(renderAlerts); }, { class: "collapse" }));
  }
  // Acknowledged already: no second "Acknowledge" (ia18's held alerts
  // branch above must not leave it to every acknowledged alert).
  else if (!a.ack && !readOnly()) li.appendChild(button("Acknowledge", async () => {
    const r = await api("POST", "/console/ack", { id: a.id });
    if (r.status === 200) schedule(); else say(id, "Refused (" + r.status + "): " + ((r.data && r.data.error) || ""), "reply error");
  }, { class: "ack" }));
  return li;
}
function renderAlerts() {
  offline.clear();
  for (const a of alerts.slice().reverse()) { // oldest first: the last word on a board counts
    if (a.type === "board_offline" && a.game) { if (a.resolved) offline.delete(a.game); else offline.add(a.game); }
  }
  const ol = $("alerts"), acked = $("acked-list");
  ol.textContent = ""; acked.textContent = "";
  let open = 0, nacked = 0, waiting = 0;
  // Those that wait for a ruling first (newest first), then the ones the
  // board or an arbiter decided, still to be acknowledged: on a phone the
  // first alert on the screen is one to rule on.
  const live = (a) => { const st = a.game ? boards.get(a.game) : null; return !!(st && !/^board_/.test(a.type) && openFor(st, a)); };
  // A board back online closes its "offline" alert: collapsed with the acknowledged.
  // An alert acknowledged elsewhere while this arbiter's question is open on it stays (`held`).
  for (const a of alerts) if ((a.ack || a.resolved) && pending.has("reply-alert-" + a.id)) held.add(a.id);
  const closed = (a) => !!(a.ack || a.resolved) && !heldOpen(a);
  const unacked = alerts.filter((a) => !closed(a));
  // What needs the arbiter (the title's count, the empty queue's words): an
  // alert still open on its board, or one no board state decides (a board
  // offline, the journal's, the uplinks', the speech's, an older eboard's);
  // not one the board or an arbiter decided, which only waits for its
  // acknowledgement.
  const decided = (a) => { const st = a.game ? boards.get(a.game) : null; return !!(st && st.open !== undefined && !/^board_/.test(a.type) && RULED.has(a.type) && !live(a)); };
  for (const a of unacked.filter(live).concat(unacked.filter((a) => !live(a)))) { open++; if (!decided(a)) waiting++; ol.appendChild(renderAlert(a)); }
  for (const a of alerts) if (closed(a)) { nacked++; acked.appendChild(renderAlert(a)); }
  $("open-count").textContent = "(" + waiting + " open" + (open > waiting ? ", " + (open - waiting) + " decided to acknowledge" : "") + ")";
  // Issue 40.9c: every alert the board or an arbiter decided acknowledged in one action
  // (never one that waits for a ruling, nor one no board state decides).
  const decidedIds = unacked.filter((a) => !a.ack && decided(a)).map((a) => a.id);
  let all = $("ack-decided");
  if (readOnly() || decidedIds.length === 0) { if (all) all.remove(); all = null; }
  else if (!all) { all = button("", () => ackAll(all), { id: "ack-decided", class: "ack-decided" }); $("alerts-title").after(all); }
  if (all) {
    all.textContent = "Acknowledge all decided (" + decidedIds.length + ")";
    all.dataset.ids = decidedIds.join(",");
  }
  $("acked-count").textContent = String(nacked);
  $("acked").hidden = nacked === 0;
  $("no-alerts").hidden = open !== 0;
  document.title = (waiting ? "(" + waiting + ") " : "") + PAGE_TITLE;
}
/** "Acknowledge all decided": each decided alert acknowledged (the ids shown on the button when pressed); the status line says how many, and any refusal. */
async function ackAll(b) {
  const ids = (b.dataset.ids || "").split(",").filter(Boolean).map(Number);
  let done = 0; const refused = [];
  for (const id of ids) {
    const r = await api("POST", "/console/ack", { id });
    if (r.status === 200) done++; else refused.push("#" + id + " (" + r.status + (r.data && r.data.error ? ": " + r.data.error : "") + ")");
  }
  let said = $("ack-decided-said");
  if (!said) { said = el("p", { id: "ack-decided-said", role: "status" }); b.after(said); }
  said.textContent = "Acknowledged " + done + " decided alert" + (done === 1 ? "" : "s") + (refused.length ? "; refused: " + refused.join(", ") : "") + ".";
  schedule();
}
/** A new alert: said aloud (live region), a sound, a vibration, a notification where allowed. */
function signal(fresh) {
  const words = fresh.map((a) => "New alert: " + (TITLES[a.type] || a.type) + (a.game ? " on board " + a.game : "") + (a.event.article ? ", article " + a.event.article : "")).join(". ");
  $("announce").textContent = words;
  try {
    if (audio) {
      const o = audio.createOscillator(), gain = audio.createGain();
      o.frequency.value = 880; gain.gain.value = 0.2; o.connect(gain); gain.connect(audio.destination);
      o.start(); o.stop(audio.currentTime + 0.25);
    }
  } catch (e) { /* no sound: the title and the vibration still tell */ }
  if (navigator.vibrate) navigator.vibrate([200, 100, 200]);
  if ("Notification" in window && window.isSecureContext && Notification.permission === "granted") {
    try { new Notification(PAGE_TITLE, { body: words, tag: "eboard-alert" }); } catch (e) { /* a page may not notify itself on some phones */ }
  }
}

function drawnKey() {
  const parts = Array.from(boards.entries()).map(([g, s]) => [g, s.ply, s.moves && s.moves.length, s.open, s.rulings, s.result, s.result_status, s.stage, s.clock && s.clock.running, s.fen]);
  return JSON.stringify(alerts) + JSON.stringify(parts) + (me && me.role);
}
/**
 * The alerts not seen before, unacknowledged and unresolved (none at the
 * first load): named by content (`key`), not by the relay's number, so an
 * alert a restarted relay sends again under a new number is not announced
 * as new, and a new alert that gets an old number is (issue 40.9f).
 */
function freshAlerts(list) {
  const fresh = [];
  for (const x of list) {
    const name = x.key || "#" + x.id;
    if (!seen.has(name)) { seen.add(name); if (!first && !x.ack && !x.resolved) fresh.push(x); }
  }
  return fresh;
}
async function refresh() {
  timer = null;
  const [s, a] = await Promise.all([api("GET", "/arbiter/state"), api("GET", "/console/alerts")]);
  if (s.status === 401 || a.status === 401) { showLogin("Your session has ended: log in again."); return; }
  if (s.status === 200 && Array.isArray(s.data)) for (const snap of s.data) if (snap.state) boards.set(snap.state.game, snap.state);
  if (a.status === 200 && Array.isArray(a.data)) {
    alerts = a.data;
    const fresh = freshAlerts(alerts);
    if (fresh.length) signal(fresh);
    first = false;
  }
  // Drawn again only when something changed (keyboard focus stays put);
  // the clocks tick on their own.
  const key = drawnKey();
  if (key !== lastDrawn) { lastDrawn = key; keepInPlace(() => { renderAlerts(); renderOverview(); renderBoards(); }); }
  $("status").textContent = "Updated " + wallTime(Date.now()) + " (" + zoneWords() + ")";
}
function schedule() { if (!timer) timer = setTimeout(refresh, 150); }
/** Redraws with `draw` while a question the arbiter is answering (a pending "…?" with its
 * yes/no) stays where it was on the screen: an alert arriving above it would otherwise move
 * its buttons under his finger between his look and his press (the page scrolls by what
 * was inserted above it). */
function keepInPlace(draw) {
  const at = () => {
    for (const id of pending.keys()) {
      const el = document.getElementById(id), q = el && el.querySelector(".confirm");
      if (q) return [id, q.getBoundingClientRect().top];
    }
    return null;
  };
  const before = at();
  draw();
  if (!before) return;
  const el = document.getElementById(before[0]), q = el && el.querySelector(".confirm");
  // A question no longer on the screen (in a collapsed list) is no place to keep.
  if (q && q.getClientRects().length) { const moved = q.getBoundingClientRect().top - before[1]; if (Math.abs(moved) >= 1) window.scrollBy(0, moved); }
}
function showLogin(msg) {
  me = null; lastDrawn = ""; $("desk").hidden = true; $("login").hidden = false; $("logout").hidden = true; $("who").textContent = "";
  // Nothing of the last session stays in the page: the next one (a deputy)
  // must not see its live buttons until the first refresh.
  boards.clear(); alerts = []; renderAlerts(); renderOverview(); renderBoards();
  $("login-error").textContent = msg || "";
  document.title = PAGE_TITLE;
  if (source) { source.close(); source = null; }
}
function showDesk(w) {
  me = w; lastDrawn = ""; $("login").hidden = true; $("desk").hidden = false; $("logout").hidden = false;
  $("who").textContent = "Logged in as " + w.name + " (" + w.role + (w.role === "deputy" ? ": read-only" : "") + ")";
  if (!source) { source = new EventSource("/arbiter/events"); source.onmessage = schedule; }
  refresh();
}
$("login").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  // A gesture of the user: sound and notifications may be allowed now.
  try { if (!audio && window.AudioContext) audio = new AudioContext(); } catch (e) { audio = null; }
  if ("Notification" in window && window.isSecureContext && Notification.permission === "default") Notification.requestPermission().catch(() => {});
  const r = await api("POST", "/console/login", { name: $("name").value, secret: $("secret").value });
  $("secret").value = "";
  if (r.status === 200) showDesk(r.data);
  // A 429 is not always failed logins: another arbiter's login from the same address (a venue's NAT) being checked says so.
  else $("login-error").textContent = r.status === 429
    ? "Not checked now (429): " + ((r.data && r.data.error) || "too many failed logins") + " (wait " + r.retry + " s)"
    : "Login refused (" + r.status + "): " + ((r.data && r.data.error) || "");
});
// The results TRF is fetched by the page, so that the page says what the
// file leaves out (a side game whose players are not in the pairings), what
// it leaves blank (not final) or why it is refused (ia14); then saved.
$("results-trf").addEventListener("click", async (ev) => {
  ev.preventDefault();
  const note = $("paperwork-note");
  note.textContent = "Results TRF-16: asking the console…";
  let r;
  try { r = await fetch("/console/results.trf", { credentials: "same-origin" }); } catch (e) { note.textContent = "Results TRF-16: no answer (" + e + ")."; return; }
  if (r.status !== 200) {
    let d = null; try { d = await r.json(); } catch (e) { d = null; }
    note.textContent = "Results TRF-16 refused (" + r.status + "): " + ((d && d.error) || "") + ". Nothing saved.";
    return;
  }
  const name = ((r.headers.get("Content-Disposition") || "").match(/filename="([^"]+)"/) || [])[1] || "results.trf";
  const a = document.createElement("a");
  a.href = URL.createObjectURL(await r.blob()); a.download = name;
  document.body.appendChild(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 60000);
  const words = ["Results TRF-16 saved as " + name + "."];
  const out = r.headers.get("X-Eboard-Not-In-File"), blank = r.headers.get("X-Eboard-Left-Blank");
  if (out) words.push("Left out, not games of the pairings file: " + out + ".");
  if (blank) words.push("Left blank (not final): " + blank + ".");
  note.textContent = words.join(" ");
});
$("logout").addEventListener("click", async () => { await api("POST", "/console/logout"); showLogin("Logged out."); });
setInterval(() => { if (me) schedule(); }, 3000);
setInterval(tick, 1000);
api("GET", "/console/me").then((r) => { if (r.status === 200) showDesk(r.data); else showLogin(""); });
