// The positions of a game at each ply, for stepping through the live page's
// move list: the moves' UCI (the feed's `moves[].uci`) applied to the
// initial position, checked against the feed's own position (`fen`).
// Served after clock-text.js, before live.js (src/server/page.rs).
"use strict";

const FILES = "abcdefgh";
/** The initial position (FIDE Laws, Art. 2.3), FEN. */
const START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/** FEN placement → {square: piece letter}. */
function placement(fen) {
  const squares = {};
  String(fen || "").split(" ")[0].split("/").forEach((row, i) => {
    let f = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) { f += Number(ch); continue; }
      squares[FILES[f] + (8 - i)] = ch;
      f += 1;
    }
  });
  return squares;
}

function isWhite(p) {
  return p === p.toUpperCase();
}

/**
 * The placement after the move `uci` (a copy; null when no piece stands on
 * its from-square). UCI as lichess and the UCI protocol write it: castling
 * as the king's two-file move (e1g1), or onto his own rook as Chess960 UCI
 * does (e1h1); en passant as the pawn's diagonal move to the empty square
 * (the pawn passed is taken off); promotion with the piece's letter fifth
 * (e7e8q).
 */
function applyUci(squares, uci) {
  if (!/^[a-h][1-8][a-h][1-8][qrbn]?$/.test(uci || "")) return null;
  const from = uci.slice(0, 2), to = uci.slice(2, 4), promo = uci[4];
  const p = squares[from];
  if (!p) return null;
  const next = Object.assign({}, squares);
  const target = next[to];
  delete next[from];
  if (p.toLowerCase() === "k") {
    const df = FILES.indexOf(to[0]) - FILES.indexOf(from[0]);
    const ontoRook = target && target.toLowerCase() === "r" && isWhite(target) === isWhite(p);
    if (from[1] === to[1] && (Math.abs(df) === 2 || ontoRook)) {
      const rank = from[1], kingside = df > 0;
      delete next[ontoRook ? to : (kingside ? "h" : "a") + rank];
      delete next[to];
      next[(kingside ? "g" : "c") + rank] = p;
      next[(kingside ? "f" : "d") + rank] = isWhite(p) ? "R" : "r";
      return next;
    }
  }
  if (p.toLowerCase() === "p" && from[0] !== to[0] && !target) delete next[to[0] + from[1]];
  next[to] = promo ? (isWhite(p) ? promo.toUpperCase() : promo) : p;
  return next;
}

function samePlacement(a, b) {
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => a[k] === b[k]);
}

/**
 * Every placement of a game, ply 0 (the initial position) to the last, from
 * its moves; null when they do not lead to the feed's position `fen` (a
 * game set up from another position, a position the arbiter set): the page
 * then says that it cannot show the earlier positions, and shows only the
 * current one.
 */
function positions(moves, fen) {
  let sq = placement(START_FEN);
  const out = [sq];
  for (const m of moves) {
    sq = applyUci(sq, m.uci);
    if (!sq) return null;
    out.push(sq);
  }
  return samePlacement(sq, placement(fen)) ? out : null;
}
