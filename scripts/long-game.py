"""A made-up legal game of N plies that no rule ends early (quiet moves that
repeat no position, a pawn move before the 75-move rule), as
examples/ply_cost.rs makes it, for the daemon's long-game measurements.
usage: long-game.py [N] > long.pgn"""
import chess, random, sys
plies = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
rnd = random.Random(7)
b = chess.Board(); seen = {b._transposition_key(): 1}; sans = []
for _ in range(plies):
    pick = None
    for p in range(3):
        c = []
        for m in b.legal_moves:
            pawn = b.piece_type_at(m.from_square) == chess.PAWN
            cap = b.is_capture(m)
            if p == 0 and (b.halfmove_clock >= 90) != (pawn and not cap) and not (b.halfmove_clock < 90 and not pawn and not cap): continue
            if p == 0 and b.halfmove_clock >= 90 and not (pawn and not cap): continue
            if p == 0 and b.halfmove_clock < 90 and (pawn or cap): continue
            if p == 1 and cap: continue
            b.push(m); ok = not b.is_game_over(claim_draw=False) and b._transposition_key() not in seen; b.pop()
            if ok: c.append(m)
        if c: pick = rnd.choice(c); break
    if pick is None: break
    sans.append(b.san(pick)); b.push(pick); seen[b._transposition_key()] = 1
print(len(sans), file=sys.stderr)
out = '[Event "Long"]\n[White "A, B"]\n[Black "C, D"]\n[Result "*"]\n[TimeControl "5400+30"]\n\n'
for i, s in enumerate(sans):
    if i % 2 == 0: out += f"{i//2+1}. "
    out += s + " "
print(out + "*")
