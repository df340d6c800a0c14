//! The game as the Laws see it: touched pieces, moves made and completed,
//! illegal moves, irregularities and the end of the game.
//!
//! [`Arbiter`] is a pure state machine: `(state, record, t) → (state, events)`.
//! It reads no clock and does no I/O; the live daemon, the demo and
//! `eboard replay` drive it through [`Arbiter::record`], [`Arbiter::advance`]
//! and [`Arbiter::finish`] with the time of each input. Every decision names
//! its article from the game's [`Profile`].

mod claims;
mod config;
pub mod dead;
pub mod touch;

pub use config::{
    ConfigError, GameConfig, ANNOUNCE_SETTLE_MS, DEFAULT_RELEASE_MS, DEFAULT_SETTLE_MS,
    DEFAULT_TOUCH_WINDOW_MS,
};

use crate::board::{Change, SensedBoard};
use crate::clock::Clock;
use crate::model::{
    side_name, square_names, win_for, EndReason, IrregularityKind, KnownOutcome, Penalty,
};
use crate::recognize::{recognize, Recognition};
use crate::rules::{Edition, IllegalMoveRule};
use crate::trace::{
    ArbiterAction, BoardId, By, ClaimKind, Event, EventKind, QueryKind, Record, RecordKind,
};
use crate::voice::{self, Lang, Vocabulary, VoiceOptions};
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{
    Bitboard, CastlingMode, Chess, Color, EnPassantMode, Move, Position, Rank, Role, Square,
};
use touch::{Breach, Release, Touch};

/// One completed move of the game record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayedMove {
    /// SAN with check or mate suffix.
    pub san: String,
    /// UCI.
    pub uci: String,
    /// Who moved.
    pub by: Color,
    /// Trace time of completion, ms.
    pub t: u64,
    /// The mover's remaining time after the move (increment included), ms,
    /// when a clock runs.
    pub clock_ms: Option<u64>,
    /// An illegal move that stood (rapid or blitz, no claim before the
    /// opponent's next move: 2009 A4c / B3c); `san` then holds `Ng1-g3`.
    pub illegal: bool,
}

/// How the game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// `1-0`, `0-1`, `1/2-1/2`.
    pub result: KnownOutcome,
    /// The contract's reason (`checkmate`, `resignation`, ...).
    pub reason: EndReason,
    /// The article.
    pub article: &'static str,
    /// Trace time, ms.
    pub t: u64,
}

#[derive(Debug, Clone)]
struct PendingEnd {
    mv: Move,
    t: u64,
    assumed: bool,
}

/// A §4 breach the opponent may claim until he touches a piece
/// (2009 §4.7, 2001 §4.6, 2023 4.8).
#[derive(Debug, Clone)]
struct PendingBreach {
    by: Color,
    breach: Breach,
    played: String,
    before: Chess,
    touches: Vec<Touch>,
}

/// A completed illegal move waiting for the opponent's claim before his own
/// next move (2009 A4c / B3c, 2001 C3).
#[derive(Debug, Clone)]
struct PendingIllegal {
    by: Color,
    article: &'static str,
    differs: Bitboard,
    /// The position before the illegal move, when the game went on from the
    /// position on the board (the move stands unless claimed).
    before: Option<Chess>,
}

/// One sensed board and what the arbiter knows of it.
#[derive(Debug, Clone)]
struct Slot {
    id: BoardId,
    sensed: SensedBoard,
    /// The board has shown the position since the last completed move (its
    /// owner has copied the opponent's move, E2.7); lifts before that are
    /// copying, not touches.
    synced: bool,
    /// Time of the last change not yet checked for divergence, ms.
    unchecked_since: Option<u64>,
}

/// The visually impaired player's move, made on the tactile board and
/// announced (E2.3).
#[derive(Debug, Clone)]
struct Announced {
    mv: Move,
    t: u64,
    done: bool,
}

/// What the player on move has done since the last completed move.
#[derive(Debug, Clone, Default)]
struct Turn {
    /// Pieces touched, in order of lifting.
    touches: Vec<Touch>,
    /// Origin squares of own pieces in the hand (last lifted last).
    hand: Vec<Square>,
    /// Own pieces set down this turn: (origin, square, time).
    placed: Vec<(Square, Square, u64)>,
    /// Pieces released on a square as (part of) a legal move.
    releases: Vec<Release>,
    /// The first new piece (role) that touched the promotion square.
    first_promotion: Option<Role>,
    /// The promotion choice given outside the board.
    promote: Option<Role>,
    /// j'adoube declared: the next lift is an adjustment.
    adjust_next: bool,
    /// Own pieces put back on their square after being lifted.
    returned: Bitboard,
    /// The VI player's move made on the tactile board, and whether announced.
    announced: Option<Announced>,
}

/// The arbiter's state for one game.
#[derive(Debug, Clone)]
pub struct Arbiter {
    cfg: GameConfig,
    pos: Chess,
    /// The positions of the game: `history[0]` the start, `history[i]` after ply i.
    history: Vec<Chess>,
    /// Repetition keys of `history` (FIDE identity of positions: en passant
    /// only when legal, §9.2).
    keys: Vec<Zobrist64>,
    /// The sensed boards: `main`, and in an Appendix E game `tactile`.
    boards: Vec<Slot>,
    /// The announcement vocabulary, when moves are announced (Appendix E).
    voice: Option<Vocabulary>,
    moves: Vec<PlayedMove>,
    clock: Option<Clock>,
    illegal_counts: [u32; 2],
    turn: Turn,
    pending_end: Option<PendingEnd>,
    pending_breach: Option<PendingBreach>,
    pending_illegal: Option<PendingIllegal>,
    restore_pending: bool,
    outcome: Option<Outcome>,
    draw_offer: Option<Color>,
    seen_main_record: bool,
    /// Flags reported, in order.
    flags: Vec<Color>,
    /// The main board's changes before the first completed move, to test
    /// whether the board is turned (§7.1b / 7.2.2); `None` afterwards.
    first_changes: Option<Vec<(u64, Change)>>,
    /// The main board is turned by 180°: its squares are remapped.
    turned: bool,
    now: u64,
}

fn ci(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

fn squares(bb: Bitboard) -> Vec<String> {
    square_names(bb)
}

/// A change seen on a board turned by 180°, in the real squares.
fn turn_change(ch: Change) -> Change {
    let turn = |sq: Square| Square::new(63 - u32::from(sq));
    match ch {
        Change::Lift(sq) => Change::Lift(turn(sq)),
        Change::Place(sq, c, p) => Change::Place(turn(sq), c, p),
    }
}

fn key(pos: &Chess) -> Zobrist64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal)
}

impl Arbiter {
    /// A new game at its start position; White's clock starts at `t = 0` (§6.5).
    pub fn new(cfg: GameConfig) -> Arbiter {
        let pos = cfg.start.clone();
        let boards = cfg
            .header
            .boards
            .iter()
            .map(|id| {
                let mut sensed = SensedBoard::new(pos.board());
                sensed.bounce_ms = cfg.bounce_ms;
                Slot {
                    id: *id,
                    sensed,
                    synced: true,
                    unchecked_since: None,
                }
            })
            .collect();
        let two_boards = cfg.header.boards.len() > 1;
        let voice = match cfg.header.language {
            Some(l) => Some(l),
            None if two_boards => Some(Lang::En),
            None => None,
        }
        .map(|lang| Vocabulary::new(lang, cfg.profile.edition, VoiceOptions::default()));
        let clock = cfg.time_control.clone().map(|tc| {
            let mut c = Clock::new(tc);
            c.start(pos.turn(), 0);
            c
        });
        Arbiter {
            cfg,
            history: vec![pos.clone()],
            keys: vec![key(&pos)],
            pos,
            boards,
            voice,
            moves: Vec::new(),
            clock,
            illegal_counts: [0, 0],
            turn: Turn::default(),
            pending_end: None,
            pending_breach: None,
            pending_illegal: None,
            restore_pending: false,
            outcome: None,
            draw_offer: None,
            seen_main_record: false,
            flags: Vec::new(),
            first_changes: Some(Vec::new()),
            turned: false,
            now: 0,
        }
    }

    /// The position after the last completed move.
    pub fn position(&self) -> &Chess {
        &self.pos
    }

    /// The completed moves.
    pub fn moves(&self) -> &[PlayedMove] {
        &self.moves
    }

    /// The game's settings.
    pub fn config(&self) -> &GameConfig {
        &self.cfg
    }

    /// How the game ended, when it has.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// The clock engine, when a clock runs.
    pub fn clock(&self) -> Option<&Clock> {
        self.clock.as_ref()
    }

    /// Completed illegal moves of each player (white, black).
    pub fn illegal_counts(&self) -> (u32, u32) {
        (self.illegal_counts[0], self.illegal_counts[1])
    }

    /// The sensed main board.
    pub fn sensed(&self) -> &SensedBoard {
        &self.boards[0].sensed
    }

    /// Index in `boards` of the board the player on move plays on: the
    /// tactile board for the visually impaired player (Appendix E).
    fn mi(&self) -> usize {
        self.board_of(self.pos.turn())
    }

    fn board_of(&self, side: Color) -> usize {
        if self.cfg.header.vi_player == Some(side) {
            self.boards
                .iter()
                .position(|b| b.id == BoardId::Tactile)
                .unwrap_or(0)
        } else {
            0
        }
    }

    /// The touches of the player on move so far (square, piece), in order.
    pub fn touched(&self) -> Vec<Touch> {
        self.turn.touches.clone()
    }

    /// Whether the board must be brought back to [`Arbiter::position`]
    /// (after an illegal move, a claim upheld or an arbiter's set-up).
    pub fn restore_pending(&self) -> bool {
        self.restore_pending
    }

    /// Processes the timers due strictly before `t` (confirmed touches, a
    /// game-ending move settling, a flag falling). Call it as time passes
    /// (the daemon ticks); [`Arbiter::record`] calls it itself.
    pub fn advance(&mut self, t: u64, out: &mut Vec<Event>) {
        if t > self.now {
            self.now = t;
        }
        if self.outcome.is_some() {
            return;
        }
        self.emit_touches(t.saturating_sub(1), false, out);
        if self.boards.len() > 1 {
            self.check_divergence(t, out);
            if let Some(a) = self.turn.announced.clone().filter(|a| !a.done) {
                let at = a.t + ANNOUNCE_SETTLE_MS;
                if t > at {
                    let text = self
                        .voice
                        .as_ref()
                        .map(|v| voice::move_phrase(&self.pos, &a.mv, v));
                    if let Some(text) = text {
                        self.announce(text, at, out);
                    }
                    if let Some(x) = self.turn.announced.as_mut() {
                        x.done = true;
                    }
                }
            }
        }
        if let Some(p) = &self.pending_end {
            if t >= p.t + self.cfg.settle_ms {
                let p = p.clone();
                self.complete(p.mv, p.assumed, p.t + self.cfg.settle_ms, false, out);
                return;
            }
        }
        while let Some((side, tf)) = self.clock.as_ref().and_then(Clock::flag_time) {
            if tf >= t || self.outcome.is_some() {
                break;
            }
            // A move that ends the game, made before the flag fell, ends it
            // first (§6.9: the game ended with the mate or stalemate).
            if let Some(p) = self.pending_end.clone().filter(|p| p.t <= tf) {
                self.complete(p.mv, p.assumed, p.t, false, out);
                return;
            }
            self.flag(side, tf, out);
        }
    }

    /// End of input at `t` (the end of a trace): a game-ending move still
    /// settling counts as made.
    pub fn finish(&mut self, t: u64, out: &mut Vec<Event>) {
        self.advance(t, out);
        if self.outcome.is_none() {
            if let Some(p) = self.pending_end.take() {
                self.complete(p.mv, p.assumed, t.max(p.t), false, out);
            }
        }
    }

    /// Processes one record at its time `rec.t`.
    pub fn record(&mut self, rec: &Record, out: &mut Vec<Event>) {
        let t = rec.t;
        self.advance(t, out);
        match &rec.kind {
            RecordKind::Lift(_) | RecordKind::Place { .. } | RecordKind::Frame(_) => {
                self.sensor(rec, out);
            }
            RecordKind::Press(side) => self.press(*side, t, out),
            RecordKind::Promote(role) => self.promote(*role),
            RecordKind::Resign(side) => self.resign(*side, t, out),
            RecordKind::Offer(side) => {
                if self.outcome.is_none() {
                    self.draw_offer = Some(*side);
                    out.push(Event {
                        t,
                        kind: EventKind::DrawOffer { by: By(*side) },
                    });
                }
            }
            RecordKind::Accept(side) => {
                if self.draw_offer == Some(!*side) {
                    let article = self.cfg.profile.articles.agreement;
                    self.end(KnownOutcome::Draw, EndReason::Agreement, article, t, out);
                }
            }
            RecordKind::Decline(side) => {
                if self.draw_offer == Some(!*side) {
                    self.draw_offer = None;
                }
            }
            RecordKind::Adjust(side) => self.adjust(*side, t, out),
            RecordKind::Claim { kind, by } => self.claim(*kind, *by, t, out),
            RecordKind::Query { what, by, piece } => self.query(*what, *by, *piece, t, out),
            RecordKind::Arbiter { action, author } => {
                self.arbiter_action(action, author.as_deref(), t, out)
            }
        }
    }

    fn promote(&mut self, role: Role) {
        if self.outcome.is_some() {
            return;
        }
        // 2009 §4.4d / 2023 4.4.4: the first choice is final; 2001: the last
        // before release counts.
        if self.turn.promote.is_none() || !self.cfg.profile.promotion_locked_at_first_choice {
            self.turn.promote = Some(role);
        }
        if self.turn.first_promotion.is_none() {
            self.turn.first_promotion = Some(role);
        }
        // A choice given after the piece was set down still decides a
        // promotion that ends the game.
        if let Some(p) = self.pending_end.take() {
            self.watch_for_game_end(p.t);
        }
    }

    fn adjust(&mut self, side: Color, t: u64, out: &mut Vec<Event>) {
        if self.outcome.is_some() {
            return;
        }
        if side == self.pos.turn() {
            self.turn.adjust_next = true;
        } else {
            // Only the player having the move may adjust (§4.2 / 4.2.1).
            out.push(Event {
                t,
                kind: EventKind::Irregularity {
                    kind: IrregularityKind::AdjustByPlayerNotOnMove,
                    article: self.cfg.profile.articles.adjust,
                    squares: Vec::new(),
                },
            });
        }
    }

    fn resign(&mut self, side: Color, t: u64, out: &mut Vec<Event>) {
        let p = self.cfg.profile;
        // 2023 5.1.2: resigning against an opponent who cannot mate is a draw.
        if p.resignation_needs_mating_chance && dead::can_mate(&self.pos, !side) == Some(false) {
            self.end(
                KnownOutcome::Draw,
                EndReason::Resignation,
                p.articles.resignation,
                t,
                out,
            );
        } else {
            self.end(
                win_for(!side),
                EndReason::Resignation,
                p.articles.resignation,
                t,
                out,
            );
        }
    }

    fn sensor(&mut self, rec: &Record, out: &mut Vec<Event>) {
        let t = rec.t;
        let Some(bi) = self.boards.iter().position(|b| b.id == rec.board) else {
            tracing::debug!(
                board = rec.board.as_str(),
                "record for a board this game does not have"
            );
            return;
        };
        let changes = match rec.kind {
            RecordKind::Lift(sq) => vec![Change::Lift(sq)],
            RecordKind::Place {
                square,
                color,
                piece,
            } => vec![Change::Place(square, color, piece)],
            RecordKind::Frame(bits) => {
                // On a turned board the frame's bits are turned too; the
                // changes then come out in real squares already.
                let real = if bi == 0 && self.turned {
                    bits.reverse_bits()
                } else {
                    bits
                };
                let ch = self.boards[bi].sensed.frame_changes(real);
                if bi == 0 && !self.seen_main_record && !ch.is_empty() && self.moves.is_empty() {
                    let diff = Bitboard(bits) ^ self.pos.board().occupied();
                    out.push(Event {
                        t,
                        kind: EventKind::Irregularity {
                            kind: IrregularityKind::WrongInitialPosition,
                            article: self.cfg.profile.articles.initial_position,
                            squares: squares(diff),
                        },
                    });
                }
                ch
            }
            _ => Vec::new(),
        };
        if bi == 0 {
            self.seen_main_record = true;
        }
        let mover = bi == self.mi();
        for mut ch in changes {
            if bi == 0 {
                if self.turned && !matches!(rec.kind, RecordKind::Frame(_)) {
                    ch = turn_change(ch);
                }
                if let Some(log) = self.first_changes.as_mut() {
                    log.push((t, ch));
                }
            }
            self.boards[bi].sensed.apply(ch, t);
            if mover && self.boards[bi].synced && self.outcome.is_none() && !self.restore_pending {
                self.follow_hand(ch, t);
            }
        }
        if self.outcome.is_some() {
            return;
        }
        if self.boards.len() > 1 {
            self.boards[bi].unchecked_since = Some(t);
        }
        if !self.boards[bi].synced && self.boards[bi].sensed.matches(self.pos.board()) {
            // The owner has copied the opponent's move: from now on his
            // lifts are touches (E2.2, §4.3).
            let pos = self.pos.clone();
            let slot = &mut self.boards[bi];
            slot.synced = true;
            slot.sensed.reset_to(pos.board());
        }
        if !mover {
            return;
        }
        self.pending_end = None;
        if self.restore_pending {
            if self.boards[bi].sensed.matches(self.pos.board()) {
                self.restore_pending = false;
                let pos = self.pos.clone();
                self.boards[bi].sensed.reset_to(pos.board());
                out.push(Event {
                    t,
                    kind: EventKind::PositionRestored {
                        fen: Fen::from_position(&self.pos, EnPassantMode::Legal).to_string(),
                    },
                });
            }
            return;
        }
        self.watch_for_game_end(t);
        self.watch_vi_move(t);
    }

    /// Appendix E2.3: the visually impaired player's move is made when the
    /// tactile board shows it; it is then announced, and only then may the
    /// clock be started.
    fn watch_vi_move(&mut self, t: u64) {
        if self.cfg.header.vi_player != Some(self.pos.turn()) || self.boards.len() < 2 {
            return;
        }
        let bi = self.mi();
        match recognize(&self.pos, &self.boards[bi].sensed, self.turn.promote) {
            Recognition::Move { mv, missing: 0, .. } => {
                if self.turn.announced.as_ref().is_none_or(|a| a.mv != mv) {
                    self.turn.announced = Some(Announced { mv, t, done: false });
                }
            }
            _ => self.turn.announced = None,
        }
    }

    /// E2.9d: information on demand, spoken (never given unprompted).
    fn query(
        &self,
        what: QueryKind,
        by: Color,
        piece: Option<shakmaty::Piece>,
        t: u64,
        out: &mut Vec<Event>,
    ) {
        let Some(v) = &self.voice else {
            tracing::debug!(?what, ?by, "query in a game without announcements");
            return;
        };
        let text = match what {
            QueryKind::Time => {
                let moves = voice::moves_made_phrase(self.moves.len() as u32, v);
                match &self.clock {
                    Some(c) => {
                        let (w, b) = c.remaining_at(t);
                        format!("{moves}. {}", voice::clocks_phrase(w, b, v))
                    }
                    None => moves,
                }
            }
            QueryKind::LastMove => {
                let n = self.history.len();
                let last = self
                    .moves
                    .last()
                    .filter(|m| !m.illegal && n >= 2)
                    .and_then(|m| {
                        let before = &self.history[n - 2];
                        m.uci
                            .parse::<UciMove>()
                            .ok()
                            .and_then(|u| u.to_move(before).ok())
                            .map(|mv| (before, mv))
                    });
                voice::last_move_phrase(last.as_ref().map(|(p, m)| (*p, m)), v)
            }
            QueryKind::Piece => match piece {
                Some(p) => voice::piece_squares_phrase(&self.pos, p.color, p.role, v),
                None => return,
            },
        };
        self.announce(text, t, out);
    }

    /// §7.3 / §7.5: the board shows a legal move and, away from it, one or
    /// two pieces knocked over or displaced. The move is completed; the
    /// arbiter and the players are told which squares to put right, and the
    /// board is guided back to the position.
    fn try_displaced(&mut self, side: Color, bi: usize, t: u64, out: &mut Vec<Event>) -> bool {
        let Some((mv, extra)) = crate::recognize::nearest_with_displaced(
            &self.pos,
            &self.boards[bi].sensed,
            self.turn.promote,
            2,
        ) else {
            return false;
        };
        let _ = side;
        out.push(Event {
            t,
            kind: EventKind::Irregularity {
                kind: IrregularityKind::Displaced,
                article: self.cfg.profile.articles.displaced,
                squares: squares(extra),
            },
        });
        self.complete(mv, false, t, true, out);
        if self.outcome.is_none() {
            // The board still shows the displaced pieces: follow the sensors.
            let pos = self.pos.clone();
            let b = &mut self.boards[bi].sensed;
            for sq in extra {
                if pos.board().piece_at(sq).is_some() {
                    b.apply(Change::Lift(sq), t);
                } else {
                    b.apply(Change::Place(sq, None, None), t);
                }
            }
            b.clear_history();
            self.restore_pending = true;
        }
        true
    }

    /// §7.1b / 7.2.2: the board was set up turned by 180°. If the changes
    /// since the start, turned, show a legal first move, the board is taken
    /// as turned from now on (its squares remapped) and the arbiter told.
    fn try_turned_board(&mut self, t: u64, out: &mut Vec<Event>) -> bool {
        let Some(log) = self.first_changes.clone() else {
            return false;
        };
        let mut probe = SensedBoard::new(self.cfg.start.board());
        probe.bounce_ms = self.cfg.bounce_ms;
        for (ct, ch) in &log {
            probe.apply(turn_change(*ch), *ct);
        }
        if !matches!(
            recognize(&self.pos, &probe, self.turn.promote),
            Recognition::Move { missing: 0, .. }
        ) {
            return false;
        }
        self.turned = true;
        self.first_changes = Some(log.iter().map(|(ct, ch)| (*ct, turn_change(*ch))).collect());
        self.boards[0].sensed = probe;
        self.turn = Turn::default();
        out.push(Event {
            t,
            kind: EventKind::Irregularity {
                kind: IrregularityKind::BoardOrientation,
                article: self.cfg.profile.articles.board_orientation,
                squares: Vec::new(),
            },
        });
        true
    }

    /// Pushes an announcement in the game's language, if moves are announced.
    fn announce(&self, text: String, t: u64, out: &mut Vec<Event>) {
        if let Some(v) = &self.voice {
            out.push(Event {
                t,
                kind: EventKind::Announce {
                    text,
                    lang: v.lang(),
                },
            });
        }
    }

    /// E2.7: as soon as a board that should show the position settles
    /// showing something else, the arbiter and both players are told which
    /// squares differ, so the board can be put right.
    fn check_divergence(&mut self, t: u64, out: &mut Vec<Event>) {
        for bi in 0..self.boards.len() {
            let Some(since) = self.boards[bi].unchecked_since else {
                continue;
            };
            if t < since + self.cfg.settle_ms {
                continue;
            }
            self.boards[bi].unchecked_since = None;
            let b = &self.boards[bi].sensed;
            if b.matches(self.pos.board()) {
                continue;
            }
            // Not yet copied: it still shows the position before the last move.
            let previous =
                self.history.len() >= 2 && b.matches(self.history[self.history.len() - 2].board());
            if previous && !self.boards[bi].synced {
                continue;
            }
            // The owner on move is making his move.
            if bi == self.mi()
                && matches!(
                    recognize(&self.pos, b, self.turn.promote),
                    Recognition::Move { .. }
                )
            {
                continue;
            }
            let diff = b.differences(self.pos.board());
            out.push(Event {
                t: since + self.cfg.settle_ms,
                kind: EventKind::Irregularity {
                    kind: IrregularityKind::BoardsDiffer,
                    article: "E2.7",
                    squares: squares(diff),
                },
            });
            if let Some(v) = &self.voice {
                let sq: Vec<shakmaty::Square> = diff.into_iter().collect();
                self.announce(
                    voice::boards_differ_phrase(&sq, v),
                    since + self.cfg.settle_ms,
                    out,
                );
            }
        }
    }

    /// Follows the mover's pieces through the hand: which piece went where,
    /// and which were released on a square as part of a legal move (§4.6).
    fn follow_hand(&mut self, ch: Change, t: u64) {
        let side = self.pos.turn();
        match ch {
            Change::Lift(sq) => {
                if let Some(i) = self.turn.placed.iter().position(|p| p.1 == sq) {
                    let (from, to, placed_t) = self.turn.placed.remove(i);
                    if t.saturating_sub(placed_t) >= self.cfg.release_ms
                        && touch::is_legal_release(&self.pos, from, to)
                        && !self.turn.releases.iter().any(|r| r.from == from)
                    {
                        self.turn.releases.push(Release { from, to });
                    }
                    self.turn.hand.push(from);
                } else if self.pos.board().color_at(sq) == Some(side)
                    && !self.turn.hand.contains(&sq)
                    && !self.turn.placed.iter().any(|p| p.0 == sq)
                {
                    self.turn.hand.push(sq);
                }
            }
            Change::Place(sq, _, piece) => {
                let last_rank = match side {
                    Color::White => Rank::Eighth,
                    Color::Black => Rank::First,
                };
                if let Some(p) = piece {
                    if p.color == side
                        && p.role != Role::Pawn
                        && sq.rank() == last_rank
                        && self.turn.first_promotion.is_none()
                        && self
                            .turn
                            .hand
                            .iter()
                            .chain(self.turn.placed.iter().map(|p| &p.0))
                            .any(|f| self.pos.board().role_at(*f) == Some(Role::Pawn))
                    {
                        self.turn.first_promotion = Some(p.role);
                    }
                }
                match self.turn.hand.pop() {
                    Some(from) if from == sq => self.turn.returned.add(sq),
                    Some(from) => self.turn.placed.push((from, sq, t)),
                    None => {
                        // A new piece from outside the board (promotion), or
                        // a captured piece put back.
                    }
                }
            }
        }
    }

    /// A move that ends the game is complete when made (§6.7a exceptions):
    /// watch for one on the board at `t`, and let it settle before it counts.
    fn watch_for_game_end(&mut self, t: u64) {
        self.pending_end = None;
        if let Recognition::Move {
            mv,
            promotion_assumed,
            missing: 0,
        } = recognize(&self.pos, &self.boards[self.mi()].sensed, self.turn.promote)
        {
            let mut after = self.pos.clone();
            after.play_unchecked(mv);
            if after.is_checkmate() || after.is_stalemate() || dead::is_dead_fast(&after) {
                self.pending_end = Some(PendingEnd {
                    mv,
                    t,
                    assumed: promotion_assumed,
                });
            }
        }
    }

    /// The arbiter's actions (the `arbiter` records and the arbiter API).
    fn arbiter_action(
        &mut self,
        action: &ArbiterAction,
        author: Option<&str>,
        t: u64,
        out: &mut Vec<Event>,
    ) {
        tracing::info!(action = action.as_str(), author, t, "arbiter action");
        let a = self.cfg.profile.articles;
        match action {
            ArbiterAction::Restore | ArbiterAction::Accept => {
                // The proposal in force: a pending illegal move is ruled on.
                if let Some(pi) = self.pending_illegal.take() {
                    self.rule_illegal(pi, None, t, out);
                }
            }
            ArbiterAction::Overrule => {
                self.pending_illegal = None;
                self.pending_breach = None;
            }
            ArbiterAction::SetResult(result) => {
                self.end(*result, EndReason::ArbiterDecision, a.arbiter, t, out);
            }
            ArbiterAction::SetClock { white_ms, black_ms } => {
                if let Some(c) = self.clock.as_mut() {
                    c.set(*white_ms, *black_ms, t);
                    self.push_clock(t, out);
                }
            }
            ArbiterAction::SetPosition(fen) => self.set_position(fen, t, out),
            ArbiterAction::Pause => {
                if let Some(c) = self.clock.as_mut() {
                    c.stop(t);
                    self.push_clock(t, out);
                }
            }
            ArbiterAction::Resume => {
                if self.outcome.is_none() {
                    let side = self.pos.turn();
                    if let Some(c) = self.clock.as_mut() {
                        if c.running().is_none() {
                            c.start(side, t);
                        }
                    }
                }
            }
        }
    }

    /// Sets up `fen`: an earlier position of this game takes the moves after
    /// it back; before the first move it becomes the start position. Anything
    /// else is refused with an irregularity naming the reason.
    fn set_position(&mut self, fen: &str, t: u64, out: &mut Vec<Event>) {
        let parsed = fen
            .parse::<Fen>()
            .ok()
            .and_then(|f| f.into_position::<Chess>(CastlingMode::Standard).ok());
        let same = |a: &Chess, b: &Chess| a.board() == b.board() && a.turn() == b.turn();
        let ply = parsed
            .as_ref()
            .and_then(|target| self.history.iter().rposition(|p| same(p, target)));
        match (parsed, ply) {
            (Some(_), Some(ply)) => {
                self.history.truncate(ply + 1);
                self.keys.truncate(ply + 1);
                self.moves.truncate(ply);
                self.pos = self.history[ply].clone();
            }
            (Some(target), None) if self.moves.is_empty() => {
                self.cfg.start = target.clone();
                self.history = vec![target.clone()];
                self.keys = vec![key(&target)];
                self.pos = target;
            }
            _ => {
                out.push(Event {
                    t,
                    kind: EventKind::Irregularity {
                        kind: IrregularityKind::ArbiterPositionRejected,
                        article: self.cfg.profile.articles.arbiter,
                        squares: Vec::new(),
                    },
                });
                return;
            }
        }
        self.outcome = None;
        self.pending_illegal = None;
        self.pending_breach = None;
        self.take_back_state(t);
    }

    /// After the position changed under the players (take-back, set-up):
    /// the turn starts afresh, the clock runs for the player on move and the
    /// board is guided back to the position.
    fn take_back_state(&mut self, t: u64) {
        self.pending_end = None;
        self.turn = Turn::default();
        let turn = self.pos.turn();
        if let Some(c) = self.clock.as_mut() {
            if c.running().is_some() {
                c.stop(t);
                c.start(turn, t);
            }
        }
        let pos = self.pos.clone();
        let bi = self.mi();
        let b = &mut self.boards[bi];
        b.sensed.clear_history();
        b.synced = true;
        self.restore_pending = !b.sensed.matches(pos.board());
        if !self.restore_pending {
            b.sensed.reset_to(pos.board());
        }
    }

    fn push_clock(&self, t: u64, out: &mut Vec<Event>) {
        if let Some(c) = &self.clock {
            let (w, b) = c.remaining_at(t);
            out.push(Event {
                t,
                kind: EventKind::Clock {
                    white_ms: w,
                    black_ms: b,
                },
            });
        }
    }

    fn emit_touches(&mut self, t: u64, flush: bool, out: &mut Vec<Event>) {
        let by = self.pos.turn();
        let mi = self.mi();
        for (bi, slot) in self.boards.iter_mut().enumerate() {
            if bi != mi || !slot.synced {
                // Lifts on the other board, or while copying the opponent's
                // move, are not touches of the player on move.
                slot.sensed.confirmed_lifts(t, true);
            }
        }
        let board_name = self.boards[mi].id.as_str();
        for l in self.boards[mi].sensed.confirmed_lifts(t, flush) {
            if self.restore_pending {
                continue;
            }
            let Some(piece) = self.pos.board().piece_at(l.square) else {
                continue;
            };
            if self.turn.adjust_next {
                // j'adoube (§4.2): this lift is an adjustment, not a touch.
                self.turn.adjust_next = false;
                continue;
            }
            // The claimant loses the right to claim a §4 breach once he
            // touches a piece (2009 §4.7, 2001 §4.6, 2023 4.8).
            if self.pending_breach.as_ref().is_some_and(|b| b.by != by) {
                self.pending_breach = None;
            }
            self.turn.touches.push(Touch {
                square: l.square,
                piece,
                t: l.t,
            });
            out.push(Event {
                t: l.t,
                kind: EventKind::Touch {
                    by: By(by),
                    square: l.square.to_string(),
                    piece: piece.char().to_string(),
                    board: board_name,
                },
            });
        }
    }

    fn press(&mut self, side: Color, t: u64, out: &mut Vec<Event>) {
        if self.outcome.is_some() {
            return;
        }
        self.emit_touches(t, true, out);
        if side != self.pos.turn() {
            // The clock of the player not on move is not running: a press on
            // it changes nothing (§6.7a).
            return;
        }
        let bi = self.mi();
        match recognize(&self.pos, &self.boards[bi].sensed, self.turn.promote) {
            Recognition::Move {
                mv,
                promotion_assumed,
                ..
            } => {
                // E2.3: the visually impaired player starts the clock only
                // after his move was made and announced.
                if self.cfg.header.vi_player == Some(side) && self.boards.len() > 1 {
                    let announced = self
                        .turn
                        .announced
                        .as_ref()
                        .is_some_and(|a| a.done && a.mv == mv);
                    if !announced {
                        out.push(Event {
                            t,
                            kind: EventKind::Irregularity {
                                kind: IrregularityKind::ClockStartedBeforeAnnouncement,
                                article: "E2.3",
                                squares: vec![mv.to().to_string()],
                            },
                        });
                    }
                }
                self.complete(mv, promotion_assumed, t, true, out)
            }
            Recognition::NoMove => {
                let a = self.cfg.profile.articles;
                if self.cfg.profile.press_without_move_is_illegal {
                    self.illegal(side, a.press_without_move, Bitboard::EMPTY, false, t, out);
                } else {
                    out.push(Event {
                        t,
                        kind: EventKind::Irregularity {
                            kind: IrregularityKind::ClockPressedWithoutMove,
                            article: a.press_without_move,
                            squares: Vec::new(),
                        },
                    });
                }
            }
            Recognition::NoLegalMove { .. }
                if bi == 0 && self.moves.is_empty() && self.try_turned_board(t, out) =>
            {
                self.press(side, t, out);
            }
            Recognition::NoLegalMove { .. } if self.try_displaced(side, bi, t, out) => {}
            Recognition::NoLegalMove { differs } => {
                let last_rank = match side {
                    Color::White => Rank::Eighth,
                    Color::Black => Rank::First,
                };
                let pawn_on_last_rank = differs.into_iter().any(|sq| {
                    sq.rank() == last_rank
                        && self.boards[bi]
                            .sensed
                            .piece_at(sq)
                            .map(|p| (p.role, p.color))
                            == Some((Role::Pawn, side))
                });
                let a = self.cfg.profile.articles;
                let article = if pawn_on_last_rank {
                    a.incomplete_promotion
                } else {
                    a.illegal_move
                };
                self.illegal(side, article, differs, pawn_on_last_rank, t, out);
            }
        }
    }

    /// A completed illegal move by `side` (§7.4 / 7.5). Depending on the
    /// profile the controller proposes the ruling at once, or waits for the
    /// opponent's claim before his own next move.
    fn illegal(
        &mut self,
        side: Color,
        article: &'static str,
        differs: Bitboard,
        incomplete_promotion: bool,
        t: u64,
        out: &mut Vec<Event>,
    ) {
        let p = self.cfg.profile;
        let mut pending = PendingIllegal {
            by: side,
            article,
            differs,
            before: None,
        };
        // 2009 A4c: the arbiter intervenes unasked on an incomplete promotion.
        let unasked = p.illegal_rule == IllegalMoveRule::Arbiter
            || incomplete_promotion && p.edition != Edition::Fide2001;
        if unasked {
            self.rule_illegal(pending, None, t, out);
        } else {
            // Only a claim before the opponent's next move counts: the clock
            // goes over as pressed and the game goes on from the position on
            // the board, which a claim takes back.
            if let Some((stood, text)) = self.physical_position(side) {
                pending.before = Some(self.pos.clone());
                let clock_ms = self.clock.as_mut().map(|c| {
                    c.press(side, t);
                    let (w, b) = c.remaining_at(t);
                    if side == Color::White {
                        w
                    } else {
                        b
                    }
                });
                let bi = self.mi();
                self.pos = stood;
                self.history.push(self.pos.clone());
                self.keys.push(key(&self.pos));
                self.moves.push(PlayedMove {
                    san: text,
                    uci: String::new(),
                    by: side,
                    t,
                    clock_ms,
                    illegal: true,
                });
                let pos = self.pos.clone();
                self.boards[bi].sensed.reset_to(pos.board());
                self.turn = Turn::default();
                self.pending_illegal = Some(pending);
            } else {
                // The board cannot be read as a position: the arbiter must act.
                self.rule_illegal(pending, None, t, out);
            }
        }
    }

    /// Rules on a completed illegal move: the penalty (time, loss, draw, or in
    /// blitz the claimant's win) and the position to reinstate.
    fn rule_illegal(
        &mut self,
        pi: PendingIllegal,
        claimant: Option<Color>,
        t: u64,
        out: &mut Vec<Event>,
    ) {
        let p = self.cfg.profile;
        let side = pi.by;
        let opponent = !side;
        let i = ci(side);
        self.illegal_counts[i] += 1;
        let count = self.illegal_counts[i];
        let claim_wins = claimant.is_some() && p.illegal_rule == IllegalMoveRule::ClaimWins;
        let (penalty, end) = if claim_wins || count >= p.illegal_moves_to_lose {
            let exception = p.illegal_loss_draw_exception || claim_wins;
            if exception && dead::can_mate(&self.pos, opponent) == Some(false) {
                (Penalty::Draw, Some(KnownOutcome::Draw))
            } else {
                (Penalty::GameLost, Some(win_for(opponent)))
            }
        } else {
            let penalty = Penalty::TimeAdded {
                to: opponent,
                ms: p.illegal_move_bonus_ms,
            };
            (penalty, None)
        };
        let article = if claimant.is_some() {
            p.articles.illegal_claim
        } else {
            pi.article
        };
        out.push(Event {
            t,
            kind: EventKind::IllegalMove {
                by: By(side),
                article,
                count,
                penalty,
                squares: squares(pi.differs),
            },
        });
        if let Some(result) = end {
            self.end(result, EndReason::IllegalMoves, article, t, out);
            return;
        }
        if let Some(c) = self.clock.as_mut() {
            c.adjust(opponent, p.illegal_move_bonus_ms as i64);
            // The offender replaces the move on his own time.
            if c.running().is_some() {
                c.stop(t);
                c.start(side, t);
            }
        }
        self.push_clock(t, out);
        let pos = self.pos.clone();
        let bi = self.mi();
        self.restore_pending = !self.boards[bi].sensed.matches(pos.board());
        if !self.restore_pending {
            self.boards[bi].sensed.reset_to(pos.board());
        }
    }

    /// The position the board shows after `side` moved illegally, read from
    /// the pieces `side` set down this turn (captures by replacement), with
    /// a long-algebraic description (`Ng1-g3`); `None` when it cannot be read.
    fn physical_position(&self, side: Color) -> Option<(Chess, String)> {
        let board = &self.boards[self.board_of(side)].sensed;
        let mut setup = self.pos.to_setup(EnPassantMode::Legal);
        let mut text = Vec::new();
        let mut moved = Bitboard::EMPTY;
        for (from, to, _) in &self.turn.placed {
            let mut piece = setup.board.remove_piece_at(*from)?;
            if let Some(sensed) = board.piece_at(*to) {
                piece = sensed;
            }
            let capture = setup.board.piece_at(*to).is_some();
            setup.board.set_piece_at(*to, piece);
            moved.add(*from);
            let letter = match piece.role {
                Role::Pawn => String::new(),
                r => r.upper_char().to_string(),
            };
            text.push(format!(
                "{letter}{from}{}{to}",
                if capture { "x" } else { "-" }
            ));
        }
        // Pieces of the opponent removed without a replacement (e.p.-like).
        for sq in setup.board.occupied() & !board.occupied() {
            setup.board.discard_piece_at(sq);
        }
        if text.is_empty() || setup.board.occupied() != board.occupied() {
            return None;
        }
        setup.turn = !side;
        setup.ep_square = None;
        setup.castling_rights &= !moved;
        setup.halfmoves = 0;
        if side == Color::Black {
            setup.fullmoves = setup.fullmoves.saturating_add(1);
        }
        let pos = <Chess as shakmaty::FromSetup>::from_setup(setup, CastlingMode::Standard)
            .or_else(shakmaty::PositionError::ignore_invalid_castling_rights)
            .or_else(shakmaty::PositionError::ignore_impossible_check)
            .ok()?;
        Some((pos, text.join(" ")))
    }

    /// Completes `mv`: by a press at `t`, or made and ending the game.
    fn complete(&mut self, mv: Move, assumed: bool, t: u64, pressed: bool, out: &mut Vec<Event>) {
        let by = self.pos.turn();
        let before = self.pos.clone();
        // The lift that starts the move itself, after other pieces were
        // touched, is the act of moving, not another touch: the obligation
        // comes from the earlier touches (castling keeps its king-and-rook
        // order, §4.4).
        let mut touches = touch::order(&self.turn.touches, by, self.cfg.touch_window_ms);
        if touches.len() > 1 && !mv.is_castle() {
            let last = touches[touches.len() - 1];
            if touch::destination(&mv, last.square).is_some()
                && !self.turn.returned.contains(last.square)
            {
                touches.pop();
            }
        }
        let breach = touch::check(
            &before,
            &touches,
            &self.turn.releases,
            self.turn.first_promotion,
            &mv,
            &self.cfg.profile.touch,
        );
        if assumed {
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
        let already_announced = self
            .turn
            .announced
            .as_ref()
            .is_some_and(|a| a.done && a.mv == mv);
        let phrase = match &self.voice {
            Some(v) if !already_announced => Some(voice::move_phrase(&self.pos, &mv, v)),
            _ => None,
        };
        let uci = UciMove::from_move(mv, CastlingMode::Standard).to_string();
        let san = SanPlus::from_move_and_play_unchecked(&mut self.pos, mv).to_string();
        let fen = Fen::from_position(&self.pos, EnPassantMode::Legal).to_string();
        let clock_ms = self.clock.as_mut().map(|c| {
            if pressed {
                c.press(by, t);
            } else {
                c.stop(t);
            }
            let (w, b) = c.remaining_at(t);
            if by == Color::White {
                w
            } else {
                b
            }
        });
        self.first_changes = None;
        self.history.push(self.pos.clone());
        self.keys.push(key(&self.pos));
        self.moves.push(PlayedMove {
            san: san.clone(),
            uci: uci.clone(),
            by,
            t,
            clock_ms,
            illegal: false,
        });
        out.push(Event {
            t,
            kind: EventKind::Move {
                ply: self.moves.len() as u32,
                by: By(by),
                san,
                uci: uci.clone(),
                fen,
            },
        });
        self.push_clock(t, out);
        if let Some(text) = phrase {
            // Every move is announced to both players (Appendix E).
            self.announce(text, t, out);
        }
        if let Some(b) = breach {
            out.push(Event {
                t,
                kind: EventKind::TouchMove {
                    by: By(by),
                    article: b.article,
                    touched: b.touched.to_string(),
                    played: uci.clone(),
                },
            });
        }
        self.pending_breach = breach.map(|breach| PendingBreach {
            by,
            breach,
            played: uci,
            before,
            touches: self.turn.touches.clone(),
        });
        // The opponent completed his move: a pending illegal move of the
        // other side now stands (A4c / B3c: no later claim).
        if self.pending_illegal.as_ref().is_some_and(|p| p.by != by) {
            self.pending_illegal = None;
        }
        let pos = self.pos.clone();
        for (i, slot) in self.boards.iter_mut().enumerate() {
            if i == bi {
                slot.sensed.reset_to(pos.board());
                slot.synced = true;
            } else {
                // The other board's owner now copies this move (E2.7).
                slot.sensed.clear_history();
                slot.synced = slot.sensed.matches(pos.board());
            }
        }
        self.turn = Turn::default();
        self.pending_end = None;
        self.restore_pending = false;
        if self.draw_offer == Some(!by) {
            // Declined by playing on (§9.1).
            self.draw_offer = None;
        }
        self.after_move(by, t, out);
    }

    /// The end of the game by the position (§5) and the automatic draws of
    /// 2023 9.6; the draws the player on move may claim (§9.2, §9.3).
    fn after_move(&mut self, by: Color, t: u64, out: &mut Vec<Event>) {
        let p = self.cfg.profile;
        let a = p.articles;
        if self.pos.is_checkmate() {
            self.end(win_for(by), EndReason::Checkmate, a.checkmate, t, out);
            return;
        }
        if self.pos.is_stalemate() {
            self.end(
                KnownOutcome::Draw,
                EndReason::Stalemate,
                a.stalemate,
                t,
                out,
            );
            return;
        }
        if dead::is_dead_fast(&self.pos) {
            self.end(
                KnownOutcome::Draw,
                EndReason::DeadPosition,
                a.dead_position,
                t,
                out,
            );
            return;
        }
        let reps = self.repetitions();
        if p.automatic_fivefold && reps >= 5 {
            self.end(KnownOutcome::Draw, EndReason::Fivefold, a.fivefold, t, out);
            return;
        }
        if p.automatic_fivefold && self.pos.halfmoves() >= 150 {
            self.end(
                KnownOutcome::Draw,
                EndReason::SeventyFiveMoves,
                a.seventy_five_moves,
                t,
                out,
            );
            return;
        }
        if reps >= 3 {
            out.push(Event {
                t,
                kind: EventKind::DrawClaimable {
                    kind: ClaimKind::Threefold,
                    article: a.threefold,
                },
            });
        }
        if self.pos.halfmoves() >= 100 {
            out.push(Event {
                t,
                kind: EventKind::DrawClaimable {
                    kind: ClaimKind::FiftyMoves,
                    article: a.fifty_moves,
                },
            });
        }
    }

    /// How often the current position has occurred (§9.2: same player on
    /// move, same pieces, same castling and en passant possibilities).
    fn repetitions(&self) -> usize {
        let k = self.keys[self.keys.len() - 1];
        self.keys.iter().filter(|x| **x == k).count()
    }

    fn flag(&mut self, side: Color, t: u64, out: &mut Vec<Event>) {
        if let Some(c) = self.clock.as_mut() {
            c.set_flagged(side);
        }
        self.flags.push(side);
        out.push(Event {
            t,
            kind: EventKind::Flag { by: By(side) },
        });
        let p = self.cfg.profile;
        let a = p.articles;
        if p.flag_needs_claim {
            // Only the opponent's claim counts (2009 A4d1, 2001 B6/C); the
            // clocks run on, so both flags can fall.
            if self.flags.len() >= 2 && p.both_flags_draw {
                self.end(
                    KnownOutcome::Draw,
                    EndReason::BothFlags,
                    a.both_flags,
                    t,
                    out,
                );
            }
            return;
        }
        self.time_forfeit(side, a.time, t, out);
    }

    /// `side` loses on time, or draws when the opponent cannot mate by any
    /// legal sequence (§6.9).
    fn time_forfeit(&mut self, side: Color, article: &'static str, t: u64, out: &mut Vec<Event>) {
        if dead::can_mate(&self.pos, !side) == Some(false) {
            self.end(
                KnownOutcome::Draw,
                EndReason::TimeVsInsufficientMaterial,
                article,
                t,
                out,
            );
        } else {
            self.end(win_for(!side), EndReason::Time, article, t, out);
        }
    }

    fn end(
        &mut self,
        result: KnownOutcome,
        reason: EndReason,
        article: &'static str,
        t: u64,
        out: &mut Vec<Event>,
    ) {
        if self.outcome.is_some() {
            return;
        }
        if let Some(c) = self.clock.as_mut() {
            c.stop(t);
        }
        self.pending_end = None;
        self.outcome = Some(Outcome {
            result,
            reason,
            article,
            t,
        });
        out.push(Event {
            t,
            kind: EventKind::GameEnd {
                result,
                reason,
                article,
            },
        });
    }
}
