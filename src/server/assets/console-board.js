// The arbiter's console: a card a board (console.js draws the rest) with
// its diagram, clocks, open matters, history and the ruling controls
// (console-rule.js sends them). Served as one script with the others
// (src/server/console.rs); docs/console.md.
// Said beside every reason field: the arbiter's own words reach no public
// feed (issue 42 §5; docs/broadcast.md, "What is public").
const PRIVATE_REASON = "Not published: kept in the journal and the round report";
function renderBoards() {
  const box = $("boards");
  // Redrawn when the state changes: what the arbiter is typing (and where) stays.
  const kept = new Map(Array.from(box.querySelectorAll("input, select"), (i) => [i.id, i.type === "checkbox" ? i.checked : i.value]));
  const focused = document.activeElement && box.contains(document.activeElement) ? document.activeElement.id : null;
  const opened = new Set(Array.from(box.querySelectorAll("details[open]"), (d) => d.id));
  box.textContent = "";
  for (const g of Array.from(boards.keys()).sort(gameOrder)) box.appendChild(card(g, boards.get(g), opened));
  for (const [id, v] of kept) { const i = document.getElementById(id); if (i) { if (i.type === "checkbox") i.checked = v; else i.value = v; } }
  if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
  tick();
}
function card(g, st, opened) {
  const stage = stageOf(g, st), ro = readOnly();
  const c = el("article", { class: "board", id: "board-" + g, "aria-labelledby": "board-title-" + g });
  const h = el("h3", { id: "board-title-" + g }, "Board " + g + ": " + who(st.white, "White") + " – " + who(st.black, "Black") + " ");
  h.appendChild(el("span", { class: "stage " + stage, "data-stage": stage }, stage === "setup" ? "set-up" : stage));
  if (st.trial) h.appendChild(el("strong", { class: "trial" }, " TRIAL: simulated hands, not a real game"));
  c.appendChild(h);
  const clocks = el("p", { class: "clocks" });
  clocks.appendChild(el("span", { class: "clk", "data-game": g, "data-side": "w" }));
  clocks.appendChild(document.createTextNode(" · "));
  clocks.appendChild(el("span", { class: "clk", "data-game": g, "data-side": "b" }));
  clocks.appendChild(document.createTextNode(st.clock ? (st.clock.running ? " (" + (st.clock.running === "w" ? "White" : "Black") + " to move)" : " (stopped)") + (st.clock.moves_to_control != null && (!st.result || st.result === "*") ? "; " + st.clock.moves_to_control + " moves to the time control" : "") : ""));
  c.appendChild(clocks);
  // A downtime: what waits for Resume (the board's own clock stopped with it, or the device ran).
  const dt = st.downtime;
  if (dt && dt.clocks_stopped) {
    const who = dt.by === "w" ? "White" : "Black";
    c.appendChild(el("p", { class: "waiting", "data-type": "downtime" }, "Waiting for Resume: the board was down " + clockFull(dt.ms) + " while " + who + "'s clock ran; "
      + (dt.clock_ran ? "the clock device kept running" : "the board's own clock stopped with it") + "; charged to " + (dt.charge === "mover" ? who : "nobody") + " (" + dt.article + ")"));
  }
  const moves = (st.moves || []).slice(-6).map((m) => m.san).join(" ");
  c.appendChild(el("p", {}, "Last moves: " + (moves || "none")));
  if (st.result && st.result !== "*") c.appendChild(el("p", { class: "result", "data-status": st.result_status || "" }, "Result " + resultText(st.result) + (st.result_reason || st.reason ? " (" + String(st.result_reason || st.reason).replace(/_/g, " ") + ")" : "") + " — " + (st.result_status || "")));
  const id = "reply-board-" + g;
  for (const m of st.open || []) {
    const d = el("div", { class: "matter", "data-type": m.type });
    d.appendChild(el("p", { class: "summary" }, "Open: " + (m.summary || TITLES[m.type] || m.type)));
    d.appendChild(openRulings(g, st, m, id, ro));
    c.appendChild(d);
  }
  const iii4 = incrementMatter(g, st, id, ro);
  if (iii4) c.appendChild(iii4);
  const more = el("details", { id: "more-" + g });
  if (opened.has(more.id)) more.open = true;
  more.appendChild(el("summary", {}, ro ? "Position and history" : "Position, rulings and history"));
  more.appendChild(diagram(st.fen, []));
  // Pause, Resume and the clocks on the card itself, under the clocks (issue 40.9b):
  // reachable without opening "Position, rulings and history".
  const clockBox = el("div", { class: "controls clock-controls", id: "clock-controls-" + g });
  if (!ro) more.appendChild(controls(g, st, id, clockBox));
  if (clockBox.firstChild) clocks.after(clockBox);
  more.appendChild(history(g, st, id, ro));
  const dl = decisionsList(g, st, opened);
  if (dl) more.appendChild(dl);
  c.appendChild(more);
  c.appendChild(replyBox(id));
  placeReplyAgain(c, id);
  return c;
}
/** Who decides, per article (the state's `decisions`, issue 40): automatic, on a claim or by the arbiter, and the event's setting where it chooses. */
function decisionsList(g, st, opened) {
  const ds = st.decisions || [];
  if (!ds.length) return null;
  const d = el("details", { id: "decisions-" + g, class: "decisions" });
  if (opened.has(d.id)) d.open = true;
  d.appendChild(el("summary", {}, "Who decides"));
  const ul = el("ul", {});
  for (const x of ds) {
    const s = x.setting ? "; [event] " + x.setting.key + " = " + x.setting.on + (x.setting.laws_default ? " (the Laws' default)" : "") : "";
    ul.appendChild(el("li", { "data-decision": x.decision }, x.decision.replace(/_/g, " ") + " (" + x.article + "): " + x.by + " — " + x.board + s));
  }
  d.appendChild(ul);
  return d;
}
/** The open "result to confirm" of a finished game, which a confirmation or a correction answers (the report then names the ruling). */
function endMatter(st) {
  const m = ((st && st.open) || []).find((o) => o.type === "game_end");
  return m ? { type: m.type, t: m.t } : null;
}
/**
 * The board's own record of a decisive end that `r` contradicts (the
 * recorded loser does not lose in `r`), in words with its article ("White
 * resigned (0-1, 5.1.2)"), or null: a result the arbiter gave, a draw, or
 * a correction that keeps the loser's loss (0-0 among them).
 */
function contradictedRecord(st, r) {
  const how = { resignation: " resigned", checkmate: " was checkmated", time: "'s flag fell", illegal_moves: " completed the illegal move that loses" }[st.result_reason];
  if (!how || (st.result !== "1-0" && st.result !== "0-1")) return null;
  const loser = st.result === "1-0" ? "Black" : "White";
  if (r === "0-0" || r === st.result) return null;
  return loser + how + " (" + resultText(st.result) + (st.result_article ? ", " + st.result_article : "") + ")";
}
function controls(g, st, id, clockBox) {
  const f = el("div", { class: "controls" });
  const row = (cls, into) => { const d = el("div", { class: "rulings " + cls }); (into || f).appendChild(d); return d; };
  const clockRow = row("clock-row", clockBox);
  // Pause and resume change a clock: asked first, in words of their effect (ia18).
  clockRow.appendChild(button("Pause…", () => proposePause(g, "pause", id), { class: "pause" }));
  clockRow.appendChild(button("Resume…", () => proposePause(g, "resume", id), { class: "resume" }));
  clockRow.appendChild(button("+2 min White…", () => proposeClock(g, "+2:00", "", "", id)));
  clockRow.appendChild(button("+2 min Black…", () => proposeClock(g, "", "+2:00", "", id)));
  // Set clocks (6.10b / 6.13): as the clocks show them, or an amount.
  const cl = row("clock-set", clockBox);
  const input = (iid, label, ph, size) => { const l = el("label", { for: iid }, label); const i = el("input", { id: iid, placeholder: ph, size: size || "9", autocomplete: "off" }); cl.appendChild(l); cl.appendChild(i); return i; };
  const cw = input("clock-w-" + g, "White", "1:20:00 / +2:00");
  const cb = input("clock-b-" + g, "Black", "12:30 / -0:30");
  const mv = input("moves-" + g, "Moves completed", "40", "4");
  if (!(st.clock && st.clock.moves_to_control != null)) { mv.hidden = true; mv.previousSibling.hidden = true; }
  cl.appendChild(button("Set clocks…", () => proposeClock(g, cw.value, cb.value, mv.value, id)));
  // The right time control installed (6.10.2): increment, delay, periods.
  const tc = input("tc-" + g, "Time control", (st.clock && st.clock.time_control) || "5400+30", "12");
  cl.appendChild(button("Install time control…", () => proposeTimeControl(g, tc.value, id), { class: "time-control" }));
  cl.appendChild(el("p", { class: "hint" }, "h:mm:ss or m:ss as the clock shows it; +2:00 / -0:30 adds or subtracts; empty leaves a clock as it is"));
  // An ended board shows no clock controls (issue 40.9a): its clocks are stopped for good.
  if (st.result && st.result !== "*") { clockRow.remove(); cl.remove(); }
  // The result: the board's confirmed as it stands; another one only with its reason.
  const res = row("result-row"), ended = st.result && st.result !== "*";
  if (ended && st.result_status === "provisional") {
    res.appendChild(button("Confirm result " + resultText(st.result) + "…", () => {
      const s = boards.get(g);
      propose(id, "Board " + g + ": confirm the board's result " + resultText(s.result) + (s.result_reason || s.reason ? " (" + String(s.result_reason || s.reason).replace(/_/g, " ") + ")" : "") + " as it stands?",
        "Confirm " + resultText(s.result), () => send(g, "confirm", null, expectOf(s, endMatter(s), true), id));
    }, { class: "confirm-result" }));
  }
  const sel = el("select", { id: "result-" + g, "aria-label": "another result for board " + g });
  sel.appendChild(el("option", { value: "" }, "— result —"));
  // 0-0 (both lost: both guilty, 11.8; or a forfeit that was a double one) only as a correction.
  for (const r of ended ? ["1-0", "0-1", "1/2-1/2", "0-0"] : ["1-0", "0-1", "1/2-1/2"]) sel.appendChild(el("option", { value: r }, r === "0-0" ? "0-0 (both lost)" : resultText(r)));
  const reason = el("input", { id: "reason-" + g, placeholder: "reason", "aria-label": "the reason for board " + g + "'s result", size: "14", "aria-describedby": "reason-private-" + g });
  res.appendChild(sel);
  // A result declared (not a correction) names its article, from the profile's list (issue 40.6).
  const art = el("select", { id: "article-" + g, class: "result-article", "aria-label": "the article board " + g + "'s result is declared under" });
  art.appendChild(el("option", { value: "" }, "— article —"));
  for (const d of st.declared_articles || []) art.appendChild(el("option", { value: d.article }, d.article + " — " + d.what));
  if (!ended) res.appendChild(art);
  res.appendChild(reason);
  // The arbiter's words stay private (issue 42 §5): the public feeds say the correction in fixed words.
  res.appendChild(el("p", { class: "hint reason-private", id: "reason-private-" + g }, PRIVATE_REASON));
  const verb = ended ? "Correct result" : "Declare result";
  res.appendChild(button(verb + "…", () => {
    const s = boards.get(g), r = sel.value, why = reason.value.trim();
    if (!r) { say(id, verb + ": choose the result first (nothing is preset)", "reply error"); return; }
    if (!why) { say(id, verb + ": give the reason (e.g. “" + (ended ? "players agreed another result" : "flag fell, Black claimed") + "”)", "reply error"); return; }
    if (s.result === r) { say(id, verb + ": the result is " + resultText(r) + " already", "reply error"); return; }
    const action = s.result && s.result !== "*" ? "confirm" : "result";
    if (action === "result" && !art.value) { say(id, verb + ": choose the article the result is declared under (nothing is preset)", "reply error"); return; }
    const under = action === "result" ? " under " + art.selectedOptions[0].textContent + ", confirmed at once" : "";
    const body = action === "result" ? { result: r, article: art.value, reason: why } : { result: r, reason: why };
    const ask = () => propose(id, "Board " + g + ": result " + resultText(s.result || "*") + " → " + (r === "0-0" ? "0-0 (both lost)" : resultText(r)) + under + " (" + why + ")?", verb,
      () => send(g, action, body, expectOf(s, endMatter(s), true), id));
    // A correction that contradicts the board's record (1-0 after White resigned) is asked once more, naming the record (issue 40.9g).
    const rec = action === "confirm" ? contradictedRecord(s, r) : null;
    if (rec) { propose(id, "Board " + g + ": the board's record says " + rec + "; " + resultText(r) + " contradicts it. Correct it all the same?", "Yes, " + resultText(r) + " all the same", ask); return; }
    ask();
  }, { class: "correct-result" }));
  // A no-show (Laws 6.7).
  const ff = row("forfeit-row");
  const fsel = el("select", { id: "forfeit-" + g, "aria-label": "forfeit on board " + g });
  for (const [v, t] of [["", "— forfeit —"], ["1-0", "1-0 (Black absent)"], ["0-1", "0-1 (White absent)"], ["0-0", "0-0 (both absent)"]]) fsel.appendChild(el("option", { value: v }, t));
  const fwhy = el("input", { id: "forfeit-reason-" + g, placeholder: "reason", "aria-label": "the reason for board " + g + "'s forfeit", size: "14", "aria-describedby": "forfeit-reason-private-" + g });
  ff.appendChild(fsel); ff.appendChild(fwhy);
  ff.appendChild(el("p", { class: "hint reason-private", id: "forfeit-reason-private-" + g }, PRIVATE_REASON));
  // The default time (6.7.1, DSU 004 §11): when a forfeit becomes possible;
  // before it only as the arbiter's explicit decision (the player withdrew
  // or sent word), asked as such and journaled with its reason.
  const fw = forfeitWhen(st);
  const early = el("input", { type: "checkbox", id: "forfeit-early-" + g });
  if (fw.text) ff.appendChild(el("p", { class: "hint forfeit-when", id: "forfeit-when-" + g }, fw.text));
  if (!fw.possible) {
    ff.appendChild(early);
    ff.appendChild(el("label", { for: early.id }, "before the default time, as my decision (the player withdrew or sent word)"));
  }
  ff.appendChild(button("Forfeit…", () => {
    const s = boards.get(g), r = fsel.value, why = fwhy.value.trim(), when = forfeitWhen(s);
    if (!r) { say(id, "Forfeit: choose who was absent first (nothing is preset)", "reply error"); return; }
    if (!why) { say(id, "Forfeit: give the reason (e.g. “Black absent 15 min after the start, DSU 004 §11”)", "reply error"); return; }
    const before = !when.possible && early.checked;
    if (!when.possible && !before) { say(id, "Forfeit: not yet — " + when.text + ". Before it only as your decision (tick “before the default time”), with its reason; nothing sent", "reply error"); return; }
    // The absent player's clock as it stands: how long he has been away
    // (the default time, DSU 004 §11 / 2023 6.7.1, is the arbiter's to check).
    const now = remaining(s), run = s.clock && s.clock.running;
    const shows = (side, ms, c) => side + "'s clock shows " + clockFull(ms) + (run === c ? ", running" : "");
    const away = !now ? "" : r === "1-0" ? "; " + shows("Black", now.b, "b") : r === "0-1" ? "; " + shows("White", now.w, "w")
      : "; " + shows("White", now.w, "w") + ", " + shows("Black", now.b, "b");
    const decided = before ? " BEFORE the default time, as the arbiter's decision (" + when.text + ")" : "";
    propose(id, "Board " + g + ": forfeit (no-show)" + decided + ": result " + resultText(s.result || "*") + " → " + fsel.selectedOptions[0].textContent + ", confirmed at once (" + why + ")" + away + "?", before ? "Forfeit before the default time" : "Forfeit",
      () => send(g, "forfeit", before ? { result: r, reason: why, before_default_time: true } : { result: r, reason: why }, expectOf(s, null, true), id));
  }));
  // A position (7.2 / 7.4a).
  const pos = row("position-row");
  const fen = el("input", { id: "fen-" + g, "aria-label": "FEN to set up on board " + g, placeholder: "FEN", size: "30" });
  pos.appendChild(fen);
  pos.appendChild(button("Set position…", () => {
    const s = boards.get(g), v = fen.value.trim();
    if (v.split(" ")[0].split("/").length !== 8) { say(id, "Set position: a FEN has 8 ranks, e.g. rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", "reply error"); return; }
    // On a finished game (its result not yet confirmed) a take-back withdraws the result: said first.
    const over = s.result && s.result !== "*" ? "; the result " + resultText(s.result) + (s.result_reason ? " (" + String(s.result_reason).replace(/_/g, " ") + ")" : "") + " is withdrawn and the game goes on" : "";
    propose(id, "Board " + g + ": position " + (s.fen || "?").split(" ")[0] + " → " + v.split(" ")[0] + " (" + (v.split(" ")[1] === "b" ? "Black" : "White") + " to move)" + over + "?", "Set position",
      () => send(g, "position", { fen: v }, expectOf(s, null, false), id));
  }));
  return f;
}

