//! The board's changes and a completed move: a sensed change followed
//! (the hand, a set-up, a transfer, a copy, a game-ending move shown) and a
//! move completed, recorded and reported (§4, §6.7, Appendix E).

use super::hand::Turn;
use super::*;

impl Arbiter {
    /// A change on a sensed board: follow the hand, watch for a game-ending
    /// move, a restored position and the copying of the opponent's move.
    pub(super) fn sensor(&mut self, rec: &Record, out: &mut Decisions) {
        let t = rec.t;
        let Some(bi) = self.boards.iter().position(|b| b.id == rec.board) else {
            tracing::debug!(
                board = rec.board.as_str(),
                "record for a board this game does not have"
            );
            return;
        };
        // The main board's squares as the game knows them (a board set up
        // turned is remapped, `orientation.rs`).
        let o = if bi == 0 {
            self.turned
        } else {
            Orientation::Identity
        };
        let mut changes = match rec.kind {
            RecordKind::Lift(sq) => vec![Change::Lift(o.apply(sq))],
            RecordKind::Place {
                square,
                color,
                piece,
            } => vec![Change::Place(o.apply(square), color, piece)],
            RecordKind::Frame(bits) => self.boards[bi].sensed.frame_changes(o.apply_bits(bits)),
            _ => Vec::new(),
        };
        // What the sensors report, kept apart from the arbiter's rulings.
        let seen = &mut self.boards[bi].seen;
        match &rec.kind {
            RecordKind::Frame(bits) => *seen = shakmaty::Bitboard(o.apply_bits(*bits)),
            _ => {
                for ch in &changes {
                    match ch {
                        Change::Lift(sq) => seen.discard(*sq),
                        Change::Place(sq, ..) => seen.add(*sq),
                    }
                }
            }
        }
        let mover = bi == self.mi();
        let frame = matches!(rec.kind, RecordKind::Frame(_));
        if bi == 0 {
            if let Some(log) = self.setup_log.as_mut() {
                // Logged as sensed (unturned): `orientation.rs` replays
                // them under another orientation.
                let back = o.inverse();
                log.extend(changes.iter().map(|ch| (t, back.apply_change(*ch))));
            }
            if !self.ended() && self.watch_setup(&mut changes, frame, t, out) {
                // The board is being set up: applied, not followed.
                return;
            }
        }
        for ch in changes {
            self.boards[bi].sensed.apply(ch, t);
            self.boards[bi].log(t, ch);
            if mover && self.boards[bi].synced && !self.ended() && !self.phase.is_restoring() {
                if let (true, Change::Lift(sq)) = (frame, ch) {
                    // A capture inside one scan (`frames.rs`).
                    self.note_frame_lift(sq, t);
                    self.place_unseen_capture(sq, t);
                }
                self.follow_hand(ch, t);
            }
        }
        if bi == 0 && self.watch_transferred(t, out) {
            // The board was set right (or turned) with the position
            // transferred to it: the map follows, nothing else to read.
            return;
        }
        if self.ended() {
            return;
        }
        if self.boards.len() > 1 {
            self.boards[bi].unchecked_since = Some(t);
        }
        if !self.boards[bi].synced && self.boards[bi].sensed.matches(self.pos.board()) {
            // The owner has copied the opponent's move: from now on his
            // lifts are touches (E2.2, §4.3).
            let pos = self.pos.clone();
            self.boards[bi].in_step(pos.board());
        }
        if self.boards.len() > 1 {
            self.note_board(bi, t, out);
        }
        if !mover {
            return;
        }
        // The mover changed his board: a game-ending move shown before is
        // looked for afresh.
        self.cancel_pending_end();
        if self.phase.is_restoring() {
            self.check_restored(bi, t, out);
            return;
        }
        self.watch_for_game_end(t);
        self.watch_vi_move(t, out);
        self.watch_claimant_reply(t);
    }

    /// Completes a move at `t`: records it, reports it (with the clock, the
    /// announcement and a touch-move breach), and looks at the position it
    /// leaves (§5, §9).
    pub(super) fn complete(&mut self, c: CompletedMove, t: u64, out: &mut Decisions) {
        let CompletedMove {
            mv,
            how,
            promotion_assumed,
        } = c;
        let by = self.pos.turn();
        let before = self.pos.clone();
        let breach = self.touch_breach(&mv);
        // 2001 §9.5b: taken back, the announced move binds, not the
        // touches of the move made instead (`announced.rs`).
        let keep_touches = self.announced_breach(&mv).is_none();
        if promotion_assumed {
            out.push(Event {
                t,
                kind: EventKind::PromotionAssumed {
                    by: By(by),
                    square: mv.to().to_string(),
                    piece: shakmaty::Piece {
                        color: by,
                        role: Role::Queen,
                    }
                    .char()
                    .to_string(),
                },
            });
        }
        let bi = self.mi();
        let already_announced = self.announced_before_press(&mv);
        // The texts written straight into strings (the same bytes as their
        // `Display`, without the formatter's machinery: issue 28).
        let mut uci = String::with_capacity(5);
        UciMove::from_move(mv, CastlingMode::Standard).append_to_string(&mut uci);
        let mut san = String::with_capacity(8);
        crate::legal::san_plus_and_play(&mut self.pos, mv).append_to_string(&mut san);
        let mut fen = String::with_capacity(90);
        Fen::from_position(&self.pos, EnPassantMode::Legal).append_to_string(&mut fen);
        let clock_ms = self.clock.as_mut().map(|c| {
            match how {
                Completion::Pressed | Completion::PressedBehind => {
                    c.press(by, t);
                    // His moves made before without a press are completed
                    // with this one (`unpressed.rs`).
                    for _ in 0..std::mem::take(&mut self.unpressed[ci(by)]) {
                        c.count_move(by);
                    }
                }
                Completion::Made => c.stop(t),
                Completion::Unpressed => self.unpressed[ci(by)] += 1,
                Completion::IdlePress => c.count_move(by),
            }
            let (w, b) = c.remaining_at(t);
            if by == Color::White {
                w
            } else {
                b
            }
        });
        let clocks = self.clock.as_ref().map(|c| c.remaining_at(t));
        self.setup_log = None;
        self.setup = SetUp::Done;
        self.history.push(self.pos.clone());
        self.keys.push(key(&self.pos));
        self.moves.push(PlayedMove {
            san: san.clone(),
            uci: uci.clone(),
            by,
            t,
            clock_ms,
            clocks,
            illegal: false,
        });
        out.push(Event {
            t,
            kind: EventKind::Move {
                ply: self.moves.len() as u32,
                by: By(by),
                san: san.clone(),
                uci: uci.clone(),
                fen,
            },
        });
        self.push_clock(t, out);
        if !already_announced {
            // Every move is announced to both players (Appendix E).
            let what = Announcement::Move {
                before: before.clone(),
                mv,
            };
            self.announce(what, t, out);
        }
        if let Some(b) = breach {
            out.push(Event {
                t,
                kind: EventKind::TouchMove {
                    by: By(by),
                    article: b.article,
                    touched: b.touched.to_string(),
                    played: uci,
                    san: san.clone(),
                },
            });
        }
        self.pending_breach = breach.map(|breach| PendingBreach {
            by,
            breach,
            played: san,
            before,
            touches: if keep_touches {
                self.turn.touches.clone()
            } else {
                Vec::new()
            },
        });
        // The opponent completed his move: a pending illegal move of the
        // other side now stands (A4c / B3c: no later claim).
        if self.pending_illegal.as_ref().is_some_and(|p| p.by != by) {
            self.pending_illegal = None;
        }
        // A move made without a press: the board already shows the moves
        // made after it, which `unpressed.rs` completes next, so the boards
        // are not brought in step with it.
        let in_step = !matches!(how, Completion::Unpressed | Completion::PressedBehind);
        let pos = self.pos.clone();
        for (i, slot) in self.boards.iter_mut().enumerate().filter(|_| in_step) {
            if i == bi && (slot.copying.is_none() || slot.sensed.matches(pos.board())) {
                slot.in_step(pos.board());
            } else {
                // The other board's owner now copies this move; a mover's
                // board read from the record still has squares to put right
                // (E2.7).
                slot.position_changed(pos.board());
            }
        }
        self.turn = Turn::default();
        if in_step && self.boards.len() > 1 {
            for i in 0..self.boards.len() {
                self.note_board(i, t, out);
            }
        }
        self.resume_play();
        self.decline_by_playing_on(by, t, out);
        self.after_move(by, t, out);
        // 2023 A.5.4: the move after an illegal one that stood is completed
        // (also when the offender pressed after it was made, 6.2.2).
        let n = self.moves.len();
        if matches!(how, Completion::Pressed | Completion::IdlePress)
            && n >= 2
            && self.moves[n - 2].illegal
        {
            self.draw_if_still_illegal(t, out);
        }
    }
}
