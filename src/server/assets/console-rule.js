// The arbiter's console: rulings (issue 24 §1–5; docs/console.md, "Using it").
// Every ruling that changes a result, a clock or a position is shown first
// (before → after, in words) and sent only when confirmed; every request
// carries `expect` (the ply the arbiter saw and, from an alert, the event
// it answers: docs/console.md, "The ruling request"), so the board refuses
// it when the game moved on; the reply box says what was applied (the
// board's words of its effect) or why it was refused (409/422, the reason).
// Loaded after console-time.js, before console.js.
"use strict";
const replies = new Map(); // reply box id → [text, class], kept across redraws
const pending = new Map(); // reply box id → {question, yes, run}: a ruling waiting for its confirmation
const replyAt = new Map(); // reply box id → the selector of the row of controls the arbiter pressed in (issue 40.9b)
let lastPressed = null; // the button last pressed: its question is shown under its row

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
function button(label, onClick, extra) {
  const b = el("button", Object.assign({ type: "button" }, extra || {}), label);
  b.addEventListener("click", (e) => { lastPressed = b; onClick(e); }); return b;
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
/** The completed plies the board reports (the state's `ply`; its moves' count from an older board). */
function plyOf(st) { return st && st.ply != null ? st.ply : ((st && st.moves) || []).length; }
/** The clocks now: the last reading run on to this moment. */
function remaining(st) {
  const c = st && st.clock; if (!c) return null;
  let w = c.white_ms, b = c.black_ms;
  if (c.running && c.unix_ms) { const d = (Date.now() - c.unix_ms) * (st.speed || 1); if (c.running === "w") w -= d; else b -= d; }
  return { w: Math.max(0, Math.round(w)), b: Math.max(0, Math.round(b)) };
}
const RESULT_WORDS = { "1-0": "1-0", "0-1": "0-1", "1/2-1/2": "½-½", "0-0": "0-0 (both lost)", "*": "* (no result)" };
const resultText = (r) => RESULT_WORDS[r] || String(r);

// Reply boxes: the confirmation waiting, or the last outcome.
function paintReply(box) {
  box.textContent = "";
  const p = pending.get(box.id);
  if (p) {
    const d = el("div", { class: "confirm", role: "group", "aria-label": "confirm the ruling" });
    d.appendChild(el("p", { class: "question" }, p.question));
    d.appendChild(button(p.yes, () => { pending.delete(box.id); p.run(); }, { class: "confirm-yes" }));
    d.appendChild(button("Cancel", () => { pending.delete(box.id); say(box.id, "Cancelled: nothing was sent.", "reply"); }, { class: "confirm-no" }));
    box.appendChild(d);
    return;
  }
  const kept = replies.get(box.id);
  if (kept) box.appendChild(el("p", { class: kept[1], role: "status" }, kept[0]));
  // A ruling the board did not answer: sent again with its own id, never a new one.
  if (kept && kept[2]) box.appendChild(button("Send the same ruling again", kept[2], { class: "send-again" }));
}
function replyBox(id) { const d = el("div", { class: "reply-box", id }); paintReply(d); return d; }
function repaint(id) { const b = document.getElementById(id); if (b) paintReply(b); }
function say(id, text, cls) { pending.delete(id); replies.set(id, [text, cls]); repaint(id); }
/** Asks before a ruling: `question` names its effect, before → after. */
function propose(id, question, yes, run) {
  replies.delete(id); pending.set(id, { question, yes, run }); placeReply(id); repaint(id);
  const y = document.querySelector("#" + CSS.escape(id) + " .confirm-yes"); if (y) y.focus();
}

/**
 * The question (and then the outcome) shown where the arbiter pressed
 * (issue 40.9b): the reply box moves under the row of controls of the
 * button pressed, when that row is in the box's own card; kept there
 * across redraws (placeReplyAgain) until a question is asked elsewhere.
 */
function placeReply(id) {
  const box = document.getElementById(id), b = lastPressed, card = box && box.closest("article.board");
  if (box && b && box.contains(b)) return; // asked again from the question itself: it stays where it is
  const row = b && b.isConnected ? b.closest(".rulings") : null;
  const sel = row ? "." + Array.from(row.classList).map((k) => CSS.escape(k)).join(".") : null;
  // Only a row the card has once (the clock rows, the result, the forfeit, …): a redraw finds it again.
  if (!card || !row || !card.contains(row) || row.contains(box) || card.querySelectorAll(sel).length !== 1) {
    replyAt.delete(id);
    if (card && box.parentNode !== card) card.appendChild(box); // home: the card's end
    return;
  }
  replyAt.set(id, sel);
  row.after(box);
}
/** A card drawn again: its reply box back under the row it was asked from. */
function placeReplyAgain(card, id) {
  const sel = replyAt.get(id), box = card.querySelector("#" + CSS.escape(id));
  const row = sel && card.querySelector(sel);
  if (row && box) row.after(box);
}
/** A reply that is no answer of the board's: the relay, the broker or the board away (a 502/503/504, or no reply at all). */
const noAnswer = (status) => status === 502 || status === 503 || status === 504;
const NO_ANSWER = ": the board may have applied it or not. Send the same ruling again to learn its outcome "
  + "(its id is kept: a board applies an id once and answers it again with its first outcome); "
  + "a new press is a new ruling, which could apply it twice";

/** Sends a ruling bound to what the arbiter saw (`expect`) and shows its outcome in reply box `id`;
 * `cmdId` sends again a ruling that got no answer, under its own id. */
async function send(game, action, body, expect, id, cmdId) {
  const command = { board: game, action, body: body || null, id: cmdId || newId(), expect };
  const again = () => send(game, action, body, expect, id, command.id);
  // A board the relay knows offline: the card says so, not a bare "Sending…" (issue 40.9).
  say(id, offline.has(game)
    ? "Board " + game + " is offline (see its alert): " + action + " is sent, but the board can apply it only once it is back "
      + "(over MQTT the broker keeps it; a ruling older than the board's window, 60 s by default, is refused); "
      + "its outcome, or \"No answer\", shows here"
    : "Sending " + action + " to board " + game + (cmdId ? " again (the same ruling)" : "") + "…", "reply");
  let r;
  try {
    r = await api("POST", "/arbiter/command", command);
  } catch (e) {
    pending.delete(id); replies.set(id, ["No answer (" + e + ")" + NO_ANSWER, "reply error", again]); repaint(id); return;
  }
  if (noAnswer(r.status)) {
    const d = r.data || {};
    // The MQTT relay knows when it never published it (the broker away): then nothing was applied.
    const text = /the ruling was not sent/.test(d.error || "")
      ? "Not sent to board " + game + " (" + r.status + "): " + d.error + ": nothing was applied; send it again when the board is reachable"
      : "No answer from board " + game + " (" + r.status + "): " + (d.error || "") + NO_ANSWER;
    pending.delete(id); replies.set(id, [text, "reply error", again]); repaint(id);
    schedule(); return;
  }
  // The same id while the board is still applying it (or stopped while it did): no refusal.
  if (r.data && r.data.repeated && r.data.outcome === "pending") {
    pending.delete(id);
    replies.set(id, ["Being applied on board " + game + " (" + r.status + "): the board took this ruling and has not said what came of it "
      + "(it may be applying it, or its answer was lost): look at the board's history, or send it again in a moment (it is never applied twice)", "reply error", again]);
    repaint(id); schedule(); return;
  }
  if (r.status === 200 && r.data) {
    const evs = r.data.events || [];
    const ruling = evs.find((e) => e.type === "ruling");
    const effect = ruling && ruling.effect ? ruling.effect
      : evs.filter((e) => e.type !== "ruling").map((e) => e.type.replace(/_/g, " ")).join(", ") || "no change reported";
    // The article once: an effect that already ends with it ("… (9.3.2)") is not given it again.
    const art = ruling && ruling.article && !effect.endsWith("(" + ruling.article + ")") ? " (" + ruling.article + ")" : "";
    say(id, "Applied on board " + game + " by " + (r.data.author || (ruling && ruling.author) || "?") + ": " + effect + art
      + (ruling && ruling.seq ? " — ruling #" + ruling.seq : "")
      + (r.data.repeated ? " (the board had it already: applied once, not again)" : ""), "reply applied");
  } else {
    const d = r.data || {};
    const reason = (d.refused && d.refused.reason) || d.error || "no answer from the board";
    say(id, "Refused (" + r.status + "): " + reason, "reply error");
  }
  schedule();
}

/** The `expect` of a ruling made now on `st` (from an alert: the event it answers). */
function expectOf(st, event, withResult) {
  const x = { ply: plyOf(st) };
  if (event) x.event = { type: event.type, t: event.t };
  if (withResult) x.result = st.result || "*";
  return x;
}

/** The rulings the board leaves open for one matter (`open` entry `m`), as buttons (or, read-only, words). */
function openRulings(g, st, m, id, readOnly) {
  const box = el("div", { class: "rulings" });
  let another = false;
  for (const r of m.rulings || []) {
    // Another result than the board's is no one-press matter: the card's
    // "Correct result", chosen and with its reason.
    if (r.action === "confirm" && r.body && r.body.result) { another = true; continue; }
    if (readOnly) { box.appendChild(el("p", { class: "effect" }, r.label + ": " + (r.effect || ""))); continue; }
    // A flag's end cancelled (issue 40 §2): with the clocks the game goes on with.
    if (r.action === "withdraw" && r.body && r.body.white_ms != null) { box.appendChild(flagCancel(g, st, m, r, id)); continue; }
    const b = button(r.label + "…", () => {
      const x = expectOf(st, { type: m.type, t: m.t }, false);
      propose(id, "Board " + g + ": " + (r.effect || r.label) + "?", r.label, () => send(g, r.action, r.body, x, id));
    }, { class: "ruling", "data-action": r.action });
    box.appendChild(b);
    box.appendChild(el("p", { class: "effect" }, r.effect || ""));
  }
  if (another && !readOnly) box.appendChild(el("p", { class: "hint" }, "Another result: “Correct result” under the board's “Position, rulings and history”, with its reason."));
  return box;
}

/**
 * "Cancel the board's time" on a flag's game end (issue 40 §2, a defective
 * clock: 6.10.1): both clocks entered as the clocks show them, shown before
 * → after; a clock left at 0:00 is refused here, as the board would (409).
 */
function flagCancel(g, st, m, r, id) {
  const row = el("div", { class: "rulings flag-cancel" });
  const w = el("input", { type: "text", size: "8", "aria-label": "White's clock", value: clockText(r.body.white_ms) });
  const b = el("input", { type: "text", size: "8", "aria-label": "Black's clock", value: clockText(r.body.black_ms) });
  row.appendChild(el("span", {}, "White ")); row.appendChild(w); row.appendChild(el("span", {}, " Black ")); row.appendChild(b);
  row.appendChild(button(r.label + "…", () => {
    const v = [];
    for (const [side, input, was] of [["White", w, r.body.white_ms], ["Black", b, r.body.black_ms]]) {
      const e = parseClockEntry(input.value);
      if (e.error) { say(id, side + ": " + e.error, "reply error"); return; }
      const ms = e.keep ? was : e.ms != null ? e.ms : was + e.add;
      if (!(ms > 0)) { say(id, side + "'s clock would still show the flag (0:00): give the time the game goes on with", "reply error"); return; }
      v.push([side, was, ms]);
    }
    const words = v.map(([side, was, ms]) => side + " " + clockFull(was) + " → " + clockFull(ms)).join(", ");
    propose(id, "Board " + g + ": " + r.effect + " — " + words + "?", r.label,
      () => send(g, r.action, { white_ms: Math.round(v[0][2]), black_ms: Math.round(v[1][2]) }, expectOf(st, { type: m.type, t: m.t }, false), id));
  }, { class: "ruling", "data-action": r.action }));
  row.appendChild(el("p", { class: "effect" }, r.effect || ""));
  return row;
}

/** 2023 Guidelines III.4 (the state's `increment_request`): due while the player having the move has less than two minutes. */
function incrementDue(st) {
  const q = st && st.increment_request, now = remaining(st);
  return !!(q && now && (q.by === "w" ? now.w : now.b) < q.under_ms);
}
/** The III.4 request as a matter of the board's card: the draw offer it is accepted, or the five seconds agreed (before → after). */
function incrementMatter(g, st, id, ro) {
  if (!incrementDue(st)) return null;
  const q = st.increment_request, by = q.by === "w" ? "White" : "Black", opp = q.by === "w" ? "Black" : "White";
  const d = el("div", { class: "matter", "data-type": "increment_request" });
  d.appendChild(el("p", { class: "summary" }, "Open: " + by + " has less than two minutes: he may request five seconds per move for both players (Guidelines "
    + q.article + "); the request is a draw offer. If " + opp + " refuses it and you agree, both clocks add 5 s per move and " + opp + " gets two extra minutes."));
  if (ro) return d;
  const box = el("div", { class: "rulings" });
  const agree = (delay) => () => {
    const s = boards.get(g), now = remaining(s) || { w: 0, b: 0 };
    const w2 = now.w + (q.by === "b" ? q.opponent_ms : 0), b2 = now.b + (q.by === "w" ? q.opponent_ms : 0);
    propose(id, "Board " + g + ": " + by + "'s request agreed, the draw offer refused (" + q.article + "): time control " + q.time_control[0] + " → "
      + (delay ? q.delay_time_control + " (a 5 s delay)" : q.time_control[1] + " (cumulative)") + "; White " + clockFull(now.w) + " → " + clockFull(w2)
      + ", Black " + clockFull(now.b) + " → " + clockFull(b2) + "?", "Agree", () => send(g, "increment", delay ? { by: q.by, mode: "delay" } : { by: q.by }, expectOf(s, null, false), id));
  };
  box.appendChild(button("Agree: +5 s per move…", agree(false), { class: "ruling", "data-action": "increment" }));
  box.appendChild(button("Agree, as a 5 s delay…", agree(true), { class: "ruling", "data-action": "increment-delay" }));
  box.appendChild(button("Offer accepted: draw…", () => {
    const s = boards.get(g);
    propose(id, "Board " + g + ": " + opp + " accepted the draw offer " + by + "'s request is (" + q.article + "): the game is drawn ½-½?", "Draw",
      () => send(g, "increment", { by: q.by, offer: "accepted" }, expectOf(s, null, false), id));
  }, { class: "ruling", "data-action": "increment-accepted" }));
  box.appendChild(el("p", { class: "effect" }, "Refused by you: nothing to send; the game goes on (a claim under III.5 remains open to him)."));
  d.appendChild(box);
  return d;
}

/**
 * What undoing ruling `r` does, in words, from the board's state `st` now
 * (docs/console.md, "Undo"): the question before an undo says it, with
 * the result and the clocks as they stand.
 */
function undoWords(r, st) {
  const now = remaining(st);
  const clocks = now ? "White " + clockFull(now.w) + " · Black " + clockFull(now.b) : "";
  const result = resultText(st.result || "*") + (st.result_status ? ", " + st.result_status : "");
  switch (r.action) {
    case "increment":
      return "the time control before it is back, and the two minutes and the 5 s credited since are taken back (now " + clocks + ")";
    case "clock":
      return "the clocks go back by the amounts it changed, the move counter with them (now " + clocks + "; the time run since stays run)";
    case "forfeit": {
      // The absent player's clock ran until the forfeit stopped the game; a
      // latecomer loses the time that passes (2023 6.7.1, 2009 §6.6): the
      // board charges the time since the forfeit to nobody, so the question
      // says whose clock it belongs to and what to set it to.
      const m = / (1-0|0-1|0-0)\b/.exec(r.effect || ""), since = st.started_at_unix_ms && r.t != null ? Math.max(0, (Date.now() - st.started_at_unix_ms) * (st.speed || 1) - r.t) : null;
      const absent = m && (m[1] === "1-0" ? ["Black", "b"] : ["White", "w"]);
      let charge = "";
      if (now && absent && since != null) {
        const shown = absent[1] === "w" ? now.w : now.b;
        charge = ": the " + clockFull(since) + " since the forfeit is charged to nobody, though " + absent[0] + "'s clock (the absent player's" + (m[1] === "0-0" ? ": with neither present, White's, 6.7.2" : "") + ") would have run on — a latecomer loses the time that passes (6.7.1 / §6.6); to charge it, set " + absent[0] + "'s clock to " + clockFull(Math.max(0, shown - since)) + " after the undo";
      } else if (now) charge = ": the time since the forfeit is charged to nobody (set the absent player's clock if he is to lose it, 6.7.1 / §6.6)";
      return "the result goes back to what it was before it (now " + result + ")"
        + (now ? "; the game goes on with the clocks as they stand (" + clocks + ")" + charge : "");
    }
    case "confirm": case "result":
      return "the result goes back to what it was before it (now " + result + ")"
        + (now ? "; a game that goes on again keeps its clocks as they are (" + clocks + "): the time since is charged to nobody" : "");
    case "restore": case "position":
      return "the position is no longer taken as reinstated: the board reads its sensors again, and the matter opens again while they show another position";
    case "overrule": case "accept":
      return "the board's own decision stands again (the game as it stood before the ruling; now " + result + ")"
        // An overrule that took a rejected claim's cost back gives it again (ia14).
        + (/taken back \(/.test(r.effect || "") ? "; the time the board gave for the incorrect claim is given again" : "");
    default:
      return "the game goes back to how it stood before it (now " + result + ")";
  }
}

/** A board's ruling history, oldest first, each undoable one with its Undo (contract §4). */
function history(g, st, id, readOnly) {
  const list = st.rulings || [];
  const sec = el("div", { class: "history" });
  sec.appendChild(el("h4", {}, "Rulings (" + list.length + ")"));
  if (!list.length) return sec;
  const ol = el("ol", { id: "history-" + g });
  for (const r of list) {
    const when = st.started_at_unix_ms && r.t != null ? wallTime(st.started_at_unix_ms + r.t / (st.speed || 1)) : "";
    const li = el("li", { "data-seq": r.seq, class: r.undone_by ? "undone" : "" });
    li.appendChild(el("span", {}, "#" + r.seq + (when ? " " + when : "") + " · " + r.action + " by " + r.author
      + (r.article ? " (" + r.article + ")" : "") + (r.effect ? ": " + r.effect : "")
      + (r.undoes ? " — undoes #" + r.undoes : "") + (r.undone_by ? " — undone by #" + r.undone_by : "")));
    if (r.undoable && !r.undone_by && !readOnly) {
      li.appendChild(button("Undo #" + r.seq + "…", () => {
        const x = expectOf(st, null, false);
        propose(id, "Board " + g + ": undo ruling #" + r.seq + " (" + r.action + (r.effect ? ": " + r.effect : "") + "): " + undoWords(r, boards.get(g) || st) + "?",
          "Undo #" + r.seq, () => send(g, "undo", { ruling: r.seq }, x, id));
      }, { class: "undo" }));
    }
    ol.appendChild(li);
  }
  sec.appendChild(ol);
  return sec;
}

/**
 * The move counter `n` in words for the preview: the board takes it as
 * White's completed moves, Black's one fewer while Black is on move
 * (docs/console.md, "The clock ruling"), so both counts are named, with
 * the move the player on move makes next and, in a period with a move
 * count, how many are left to the time control.
 */
function counterWords(st, n) {
  const black = ((st && st.fen) || "").split(" ")[1] === "b";
  const wn = n, bn = black ? Math.max(0, n - 1) : n;
  const c = (st && st.clock) || {};
  const done = c.moves_done ? (black ? c.moves_done.black : c.moves_done.white) : null;
  const mine = black ? bn : wn;
  let w = "move counter → White " + wn + ", Black " + bn + " moves completed (" + (black ? "Black" : "White") + "'s next move is his " + (mine + 1) + ordinal(mine + 1);
  if (c.moves_to_control != null && done != null) {
    const left = done + c.moves_to_control - mine;
    if (left > 0) w += "; " + left + (left === 1 ? " move" : " moves") + " to the time control";
  }
  return w + ")";
}
function ordinal(k) { const t = k % 100, u = k % 10; return t >= 11 && t <= 13 ? "th" : u === 1 ? "st" : u === 2 ? "nd" : u === 3 ? "rd" : "th"; }

/** The right time control installed (6.10.2): asked first, with the control before and after. */
function proposeTimeControl(g, text, id) {
  const st = boards.get(g), tc = String(text || "").trim();
  if (!st || !st.clock) { say(id, "Board " + g + " has no clock", "reply error"); return; }
  if (!tc) { say(id, "Time control: give the right control, e.g. 5400+30 or 40/5400+30:1800+30", "reply error"); return; }
  const was = st.clock.time_control;
  if (was === tc) { say(id, "Time control: the clock is set to " + tc + " already", "reply error"); return; }
  propose(id, "Board " + g + ": install the time control " + tc + (was ? " (now " + was + ")" : "") + " from the next press on: every later press credits its increment, the next period comes at its move, the moves played keep their clocks (6.10.2)?",
    "Install " + tc, () => send(g, "time_control", { control: tc }, expectOf(st, null, false), id));
}
/** The clock controls' ruling: both entries read, refused with an example, or shown before → after. */
function proposeClock(g, wText, bText, movesText, id) {
  const st = boards.get(g); const now = remaining(st);
  if (!now) { say(id, "Board " + g + " has no clock", "reply error"); return; }
  const w = parseClockEntry(wText), b = parseClockEntry(bText), mv = parseMoves(movesText);
  for (const [side, e] of [["White", w], ["Black", b], ["Move counter", mv]]) {
    if (e.error) { say(id, side + ": " + e.error, "reply error"); return; }
  }
  if (w.keep && b.keep && mv.keep) { say(id, "Nothing to set: give White's or Black's clock (" + CLOCK_EXAMPLES + ")", "reply error"); return; }
  const after = (e, was) => (e.keep ? was : e.ms != null ? e.ms : was + e.add);
  const aw = after(w, now.w), ab = after(b, now.b);
  for (const [side, v, e, was] of [["White", aw, w, now.w], ["Black", ab, b, now.b]]) {
    if (v < 0) { say(id, side + " has " + clockFull(was) + ": subtracting " + clockFull(-e.add) + " would go below zero", "reply error"); return; }
  }
  const words = (side, e, was, v) => side + " " + clockFull(was) + (e.keep ? " (unchanged)" : " → " + clockFull(v) + (e.add != null ? " (" + (e.add >= 0 ? "+" : "−") + clockText(Math.abs(e.add)) + ")" : ""));
  let q = "Board " + g + ": " + words("White", w, now.w, aw) + "; " + words("Black", b, now.b, ab);
  if (!mv.keep) q += "; " + counterWords(st, mv.moves);
  if (st.clock && st.clock.running) q += " (the running clock goes on until you confirm)";
  const x = expectOf(st, null, false);
  propose(id, q + "?", "Set clocks", () => {
    // A running clock ran on while the arbiter read the question: an
    // amount is added to the time at the moment he confirms.
    const n = remaining(boards.get(g)) || now;
    const body = { white_ms: Math.round(after(w, w.keep ? n.w : now.w)), black_ms: Math.round(after(b, b.keep ? n.b : now.b)) };
    if (w.add != null) body.white_ms = Math.round(n.w + w.add);
    if (b.add != null) body.black_ms = Math.round(n.b + b.add);
    // The clock ran below the amount while the question was read: never a flag by clamping to 0.
    for (const [side, v, e, was] of [["White", body.white_ms, w, n.w], ["Black", body.black_ms, b, n.b]]) {
      if (v < 0) { say(id, side + " now has " + clockFull(was) + ": subtracting " + clockFull(-e.add) + " would go below zero; nothing sent", "reply error"); return; }
    }
    if (!mv.keep) body.moves = mv.moves;
    send(g, "clock", body, x, id);
  });
}

/**
 * Pause or resume board `g` (`action`), asked first in words of its effect
 * (ia18: a mis-tap on a phone used to resume a paused clock at once): "Pause
 * board 1.2? Both clocks stop at White 1:23:45, Black 1:20:00." / "Resume
 * the clocks of board 1.2? White's clock runs again from 1:23:45." What
 * would change nothing (the clocks already stopped or running, the game
 * over) is said and nothing is sent. The `expect` is the state the question
 * was made from; a resume whose game moved on since the question (a move
 * made: another side's clock would run) is not sent.
 */
function proposePause(g, action, id) {
  const st = boards.get(g), now = remaining(st), c = st && st.clock;
  if (!now || !c) { say(id, "Board " + g + " has no clock: nothing to " + action + "; nothing sent", "reply error"); return; }
  const both = "White " + clockFull(now.w) + ", Black " + clockFull(now.b);
  if (st.result && st.result !== "*") {
    say(id, "Board " + g + ": the game is over (" + resultText(st.result) + "): its clocks " + (action === "pause" ? "are stopped for good; nothing to pause" : "stay stopped") + "; nothing sent", "reply error");
    return;
  }
  const side = (s) => (((s && s.fen) || "").split(" ")[1] === "b" ? "b" : "w");
  const name = (k) => (k === "w" ? "White" : "Black");
  if (action === "pause") {
    if (!c.running) { say(id, "Board " + g + ": the clocks are already stopped (" + both + "); nothing to pause; nothing sent", "reply error"); return; }
    const x = expectOf(st, null, false);
    propose(id, "Pause board " + g + "? Both clocks stop at " + both + " (" + name(c.running) + "'s runs on until you confirm).", "Pause",
      () => send(g, "pause", null, x, id));
    return;
  }
  if (c.running) { say(id, "Board " + g + ": the clocks already run (" + name(c.running) + "'s, " + both + "); nothing to resume; nothing sent", "reply error"); return; }
  const on = side(st), x = expectOf(st, null, false);
  const verb = st.stage === "setup" ? " starts at " : " runs again from ";
  propose(id, "Resume the clocks of board " + g + "? " + name(on) + "'s clock" + verb + clockFull(on === "w" ? now.w : now.b)
    + " (" + name(on === "w" ? "b" : "w") + " " + clockFull(on === "w" ? now.b : now.w) + ").", "Resume", () => {
    // The question named the side on move: a game that moved on since (another
    // arbiter resumed, a move, a pause again) would start another clock.
    const s = boards.get(g) || st;
    if (plyOf(s) !== x.ply || side(s) !== on) {
      say(id, "Not sent: board " + g + " changed since the question (ply " + x.ply + " → " + plyOf(s) + ", " + name(side(s)) + " to move): look again", "reply error");
      return;
    }
    send(g, "resume", null, x, id);
  });
}

// Every board at once (a fire alarm, a power cut: 2009 §6.12a / 2023
// 6.11.1): one press pauses the clocks of every board whose clock runs,
// another resumes every paused board; one request per board, each bound
// to what the arbiter saw, and the reply lists each board's outcome.
/** The boards a round-wide `action` would reach now: [game, state]. */
function roundTargets(action) {
  return Array.from(boards.entries()).sort((a, b) => gameOrder(a[0], b[0])).filter(([, st]) =>
    (!st.result || st.result === "*") && st.clock
    && (action === "pause" ? !!st.clock.running : st.stage === "paused"));
}
function roundRuling(action, id) {
  const t = roundTargets(action);
  const verb = action === "pause" ? "Pause" : "Resume";
  if (!t.length) { say(id, verb + " every board: " + (action === "pause" ? "no board's clock runs" : "no board is paused") + "; nothing sent", "reply error"); return; }
  const names = t.map(([g]) => g).join(", ");
  propose(id, (action === "pause" ? "Stop the clocks of " : "Start the clocks again of ") + t.length + (t.length === 1 ? " board (" : " boards (") + names + ")?", verb + " " + t.length, async () => {
    say(id, verb + ": sending to " + names + "…", "reply");
    const lines = await Promise.all(t.map(async ([g, st]) => {
      let r;
      try {
        r = await api("POST", "/arbiter/command", { board: g, action, body: null, id: newId(), expect: expectOf(st, null, false) });
      } catch (e) { return [false, g + ": no answer (" + e + "): it may have been applied or not; look at the board before sending it again"]; }
      if (r.status === 200 && r.data) {
        const ruling = (r.data.events || []).find((e) => e.type === "ruling");
        return [true, g + ": " + (ruling && ruling.effect ? ruling.effect : "applied")];
      }
      const d = r.data || {};
      if (noAnswer(r.status)) return [false, g + ": no answer (" + r.status + "): " + (d.error || "") + ": it may have been applied or not; look at the board before sending it again"];
      return [false, g + ": refused (" + r.status + "): " + ((d.refused && d.refused.reason) || d.error || "no answer from the board")];
    }));
    const bad = lines.filter((l) => !l[0]).length;
    say(id, verb + " every board — " + (lines.length - bad) + " applied" + (bad ? ", " + bad + " not" : "") + ": " + lines.map((l) => l[1]).join(" · "), bad ? "reply error" : "reply applied");
    schedule();
  });
}
/** The round's own controls (arbiters only): pause or resume every board. */
function renderRoundControls() {
  const box = $("round-controls"); if (!box) return;
  box.textContent = "";
  if (!me || me.role === "deputy") return;
  const row = el("div", { class: "rulings round-row" });
  row.appendChild(button("Pause every board…", () => roundRuling("pause", "reply-round"), { class: "pause-all" }));
  row.appendChild(button("Resume every board…", () => roundRuling("resume", "reply-round"), { class: "resume-all" }));
  box.appendChild(row);
  box.appendChild(replyBox("reply-round"));
}

/** Round time `t` (ms) of board `st` as wall time, hh:mm (its clock: `started_at_unix_ms`, `speed`). */
function wallHm(st, t) {
  if (!st.started_at_unix_ms || t == null) return "round time " + clockFull(t);
  return wallTime(st.started_at_unix_ms + t / (st.speed || 1), true);
}

/**
 * The default time of a no-show's forfeit on board `st` (its state's
 * `default_time`: 6.7.1, DSU 004 §11): {possible, text}: whether a forfeit
 * is possible now, and when it becomes possible, in words.
 */
function forfeitWhen(st) {
  const d = st.default_time;
  if (!d) return { possible: true, text: "" };
  const mins = d.ms % 60000 ? Math.ceil(d.ms / 1000) + " s" : d.ms / 60000 + " min";
  const what = "the default time of " + mins + " (" + d.source + "; " + d.article + ")";
  if (d.passes_t == null) return { possible: false, text: "Forfeit: the session has not started on this board (White's clock has not run); " + what + " runs from its start" };
  // The board's round time now, from its wall clock (as the clocks run on).
  const now = st.started_at_unix_ms ? (Date.now() - st.started_at_unix_ms) * (st.speed || 1) : st.t;
  const from = d.started_t != null ? " from " + wallHm(st, d.started_t) + (d.scheduled ? " (the round's scheduled start)" : " (White's clock first ran)") : "";
  if (d.ms === 0) return { possible: true, text: "Forfeit possible: " + what + from };
  const passed = now != null && now >= d.passes_t;
  return { possible: passed, text: (passed ? "Forfeit possible since " : "Forfeit possible from ") + wallHm(st, d.passes_t) + ": " + what + from };
}
