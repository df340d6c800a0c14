// The round at a glance: one tile a board (a mini-board, the players with
// title, rating and federation, the clocks, the last move, the result),
// each opening its game (`/?game=R.B`), as lichess's broadcast page shows
// a round (lila `ui/analyse/src/study/multiBoard.ts`: black above the
// board, white below, the clock or the result beside each name). Then the
// standings of `/standings.json`, when the server has them. Served after
// live-words.js, before live.js (which calls these; src/server/page.rs).
"use strict";

/** One player's two lines of a tile: his name; his title, rating, federation and clock. */
function tilePlayer(side) {
  const box = el("div", { class: "tp " + side });
  const sub = el("div", { class: "tp-sub" });
  sub.append(el("span", { class: "meta" }), el("span", { class: "clk", role: "timer", "aria-label": (side === "white" ? "White's" : "Black's") + " clock" }));
  box.append(el("div", { class: "nm" }), sub);
  return box;
}

/** The tile of game `g`, made on first sight, kept in (round, board) order. */
function tileOf(g) {
  const id = "tile-" + g.game;
  let a = document.getElementById(id);
  if (a) return a;
  a = el("a", { id, class: "tile", href: "/?game=" + encodeURIComponent(g.game), "data-game": g.game });
  const mini = el("div", { class: "mini", "aria-hidden": "true" });
  for (let r = 8; r >= 1; r--) for (const f of FILES) mini.append(el("span", { "data-sq": f + r }));
  const info = el("div", { class: "info" });
  info.append(el("div", { class: "th" }), tilePlayer("black"), tilePlayer("white"), el("div", { class: "last" }), el("div", { class: "res" }));
  a.append(mini, info);
  insertInOrder(document.getElementById("grid"), a, g.game);
  return a;
}

/** A player's title, rating and federation, "GM 2690 USA" (empty when none is known). */
function titleRatingFed(p) {
  return [p && p.title, p && p.rating, p && p.federation].filter(Boolean).join(" ");
}

/** Draws game `g`'s tile. */
function drawTile(g) {
  const a = tileOf(g);
  const w = playerName(g.white, "White"), b = playerName(g.black, "Black");
  const res = resultLine(g);
  setText(a.querySelector(".th"), (g.trial ? "TRIAL, not a real game · " : "") + "Board " + g.game);
  for (const side of ["white", "black"]) {
    const p = a.querySelector(".tp." + side), who = g[side] || {};
    const name = who.name || (side === "white" ? "White" : "Black");
    setText(p.querySelector(".nm"), name);
    if (p.querySelector(".nm").title !== name) p.querySelector(".nm").title = name;
    setText(p.querySelector(".meta"), titleRatingFed(who));
  }
  const last = g.moves.length ? g.moves[g.moves.length - 1] : null;
  const n = g.moves.length;
  setText(a.querySelector(".last"), last ? Math.ceil(n / 2) + (n % 2 ? ". " : "… ") + last.san : "No move yet");
  setText(a.querySelector(".res"), res || "playing");
  a.classList.toggle("over", !!res);
  a.setAttribute("aria-label", `Board ${g.game}: ${w} – ${b}, ` + (res || "playing") + (last ? ", last move " + last.san : ""));
  const pieces = placement(g.fen);
  const lastUci = last ? last.uci || "" : "";
  a.querySelectorAll(".mini span").forEach((sq) => {
    const s = sq.dataset.sq, p = pieces[s] || "";
    if (sq.textContent !== (p ? GLYPH[p] : "")) sq.textContent = p ? GLYPH[p] : "";
    sq.classList.toggle("last", lastUci.length >= 4 && (s === lastUci.slice(0, 2) || s === lastUci.slice(2, 4)));
  });
}

/** Points as a crosstable writes them: 2.5 → "2½", 0.5 → "½". */
function points(x) {
  if (typeof x !== "number") return "";
  const whole = Math.floor(x), half = Math.abs(x - whole - 0.5) < 1e-9;
  return half ? (whole ? String(whole) : "") + "½" : String(x);
}

/**
 * The standings of `/standings.json` (the relay's, from the event's TRF and
 * the confirmed results; the contract in docs/live-page.md): a table of
 * rank, title, name, federation, rating, points and the tie-breaks it
 * names, "provisional" while a game of the round lacks a confirmed result.
 * Absent (the section hidden) when the server has none (404) or answers
 * something else.
 */
let standingsAgain = null, standingsTries = 0;
async function loadStandings() {
  clearTimeout(standingsAgain);
  const sec = document.getElementById("standings");
  let s = null;
  try {
    const r = await fetch("/standings.json", { cache: "no-cache" });
    if (r.ok) s = await r.json();
  } catch (err) { s = null; }
  if (!s || !Array.isArray(s.rows)) { sec.hidden = true; return; }
  const tbs = Array.isArray(s.tiebreaks) ? s.tiebreaks : [];
  setText(document.getElementById("standings-h"), "Standings after round " + s.round + (s.rounds ? " of " + s.rounds : ""));
  const prov = document.getElementById("standings-provisional");
  prov.hidden = !s.provisional;
  setText(prov, s.provisional ? "Provisional: " + ((s.unconfirmed || []).length ? "the results of " + s.unconfirmed.join(", ") + " are not confirmed yet." : "not every result is confirmed yet.") : "");
  const table = el("table", { class: "standings" });
  const head = el("tr");
  for (const [text, title] of [["Rank"], ["Title"], ["Name"], ["Fed"], ["Rating"], ["Points"]].concat(tbs.map((t) => [t.code, t.name]))) {
    const th = el("th", { scope: "col" });
    if (title) th.append(el("abbr", { title }, text)); else th.textContent = text;
    head.append(th);
  }
  table.append(el("thead"));
  table.firstChild.append(head);
  const body = el("tbody");
  for (const row of s.rows) {
    const tr = el("tr");
    const cells = [row.rank + (row.tied ? "=" : ""), row.title || "", row.name || "", row.fed || "", row.rating == null ? "" : String(row.rating), points(row.points)]
      .concat((row.tiebreaks || []).map((x) => (x == null ? "" : String(x))));
    cells.forEach((c, i) => tr.append(el(i === 2 ? "th" : "td", i === 2 ? { scope: "row" } : {}, c)));
    body.append(tr);
  }
  table.append(body);
  document.getElementById("standings-table").replaceChildren(table);
  sec.hidden = false;
  // A relay's stream can bring a confirmation before its standings count
  // it (they follow the boards' snapshots): asked again, 1 s, 2 s, 4 s …
  // later, while they still list a game this page shows confirmed.
  const behind = (s.unconfirmed || []).some((id) => games.has(id) && ["confirmed", "corrected", "forfeit"].includes(games.get(id).result_status));
  standingsTries = behind ? standingsTries + 1 : 0;
  if (behind && standingsTries <= 6) standingsAgain = setTimeout(loadStandings, 500 * 2 ** standingsTries);
}
