//! The game as the Laws see it: touched pieces, moves made and completed,
//! illegal moves, irregularities and the end of the game.
//!
//! [`Arbiter`] is a pure state machine: `(state, record, t) → (state, events)`.
//! It reads no clock and does no I/O; the live daemon, the demo and
//! `eboard replay` drive it through [`Arbiter::record`], [`Arbiter::advance`]
//! and [`Arbiter::finish`] with the time of each input. Every decision names
//! its article from the game's [`Profile`].

pub mod dead;

use crate::board::{Change, SensedBoard, DEFAULT_BOUNCE_MS};
use crate::clock::{Clock, TimeControl};
use crate::recognize::{recognize, Recognition};
use crate::rules::Profile;
use crate::trace::{
    ArbiterAction, BoardId, By, Event, EventKind, Header, Record, RecordKind, Sensing,
};
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{Bitboard, CastlingMode, Chess, Color, EnPassantMode, Move, Position, Rank, Role};

/// How long the board must stay unchanged before a move that ends the game
/// (mate, stalemate, dead position) counts as made without a clock press, ms.
/// Longer than a piece set down on the way and lifted again.
pub const DEFAULT_SETTLE_MS: u64 = 2_000;

/// The game's settings, from the trace header or the daemon's config.
#[derive(Debug, Clone)]
pub struct GameConfig {
    /// The rule profile (edition × mode).
    pub profile: Profile,
    /// What the main board senses.
    pub sensing: Sensing,
    /// The time control; `None`: no clock runs.
    pub time_control: Option<TimeControl>,
    /// The start position.
    pub start: Chess,
    /// The header (player names, event, round, ...), for the record.
    pub header: Header,
    /// Settle time for a game-ending move made without a press, ms.
    pub settle_ms: u64,
    /// Sensor bounce window, ms.
    pub bounce_ms: u64,
}

/// A bad game setting: which key, what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct ConfigError {
    /// The key (`rules`, `mode`, `time_control`, `start_fen`).
    pub key: &'static str,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl GameConfig {
    /// Builds the settings from a trace header; `rules` and `mode` override
    /// the header's (the command line wins). Defaults: `fide-2023`, standard.
    pub fn from_header(
        header: &Header,
        rules: Option<&str>,
        mode: Option<&str>,
    ) -> Result<GameConfig, ConfigError> {
        let rules = rules.or(header.rules.as_deref()).unwrap_or("fide-2023");
        let mode = mode.or(header.mode.as_deref()).unwrap_or("standard");
        let profile = Profile::parse(rules, mode).map_err(|m| ConfigError {
            key: if crate::rules::Edition::parse(rules).is_none() {
                "rules"
            } else {
                "mode"
            },
            message: m,
        })?;
        let time_control = match header.time_control.as_deref() {
            None | Some("-") | Some("?") | Some("") => None,
            Some(s) => Some(TimeControl::parse(s).map_err(|e| ConfigError {
                key: "time_control",
                message: e.to_string(),
            })?),
        };
        let start = match header.start_fen.as_deref() {
            None => Chess::default(),
            Some(f) => f
                .parse::<Fen>()
                .map_err(|e| ConfigError {
                    key: "start_fen",
                    message: format!("\"{f}\": {e}"),
                })?
                .into_position(CastlingMode::Standard)
                .map_err(|e| ConfigError {
                    key: "start_fen",
                    message: format!("\"{f}\": {e}"),
                })?,
        };
        Ok(GameConfig {
            profile,
            sensing: header.sensing,
            time_control,
            start,
            header: header.clone(),
            settle_ms: DEFAULT_SETTLE_MS,
            bounce_ms: DEFAULT_BOUNCE_MS,
        })
    }
}

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
}

/// How the game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// `1-0`, `0-1`, `1/2-1/2`.
    pub result: &'static str,
    /// The contract's reason (`checkmate`, `resignation`, ...).
    pub reason: &'static str,
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

/// The arbiter's state for one game.
#[derive(Debug, Clone)]
pub struct Arbiter {
    cfg: GameConfig,
    pos: Chess,
    /// The positions of the game: `history[0]` the start, `history[i]` after ply i.
    history: Vec<Chess>,
    board: SensedBoard,
    moves: Vec<PlayedMove>,
    clock: Option<Clock>,
    illegal_counts: [u32; 2],
    promote: Option<Role>,
    pending_end: Option<PendingEnd>,
    restore_pending: bool,
    outcome: Option<Outcome>,
    draw_offer: Option<Color>,
    seen_main_record: bool,
    now: u64,
}

fn ci(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

fn squares(bb: Bitboard) -> Vec<String> {
    bb.into_iter().map(|s| s.to_string()).collect()
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

impl Arbiter {
    /// A new game at its start position; White's clock starts at `t = 0` (§6.5).
    pub fn new(cfg: GameConfig) -> Arbiter {
        let pos = cfg.start.clone();
        let mut board = SensedBoard::new(pos.board());
        board.bounce_ms = cfg.bounce_ms;
        let clock = cfg.time_control.clone().map(|tc| {
            let mut c = Clock::new(tc);
            c.start(pos.turn(), 0);
            c
        });
        Arbiter {
            cfg,
            history: vec![pos.clone()],
            pos,
            board,
            moves: Vec::new(),
            clock,
            illegal_counts: [0, 0],
            promote: None,
            pending_end: None,
            restore_pending: false,
            outcome: None,
            draw_offer: None,
            seen_main_record: false,
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
        &self.board
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
        if let Some(p) = &self.pending_end {
            if t >= p.t + self.cfg.settle_ms {
                let p = p.clone();
                self.complete(p.mv, p.assumed, p.t + self.cfg.settle_ms, false, out);
                return;
            }
        }
        if let Some((side, tf)) = self.clock.as_ref().and_then(Clock::flag_time) {
            if tf < t {
                self.flag(side, tf, out);
            }
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
                if rec.board == BoardId::Tactile {
                    tracing::debug!("tactile board record ignored: this game has one board");
                    return;
                }
                self.sensor(rec, out);
            }
            RecordKind::Press(side) => self.press(*side, t, out),
            RecordKind::Promote(role) => {
                if self.outcome.is_none() {
                    self.promote = Some(*role);
                    // A choice given after the piece was set down still
                    // decides a promotion that ends the game.
                    if let Some(p) = self.pending_end.take() {
                        self.watch_for_game_end(p.t);
                    }
                }
            }
            RecordKind::Resign(side) => {
                let result = if *side == Color::White { "0-1" } else { "1-0" };
                let article = self.cfg.profile.articles.resignation;
                self.end(result, "resignation", article, t, out);
            }
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
                    self.end("1/2-1/2", "agreement", article, t, out);
                }
            }
            RecordKind::Decline(side) => {
                if self.draw_offer == Some(!*side) {
                    self.draw_offer = None;
                }
            }
            RecordKind::Arbiter { action, author } => {
                self.arbiter_action(action, author.as_deref(), t, out)
            }
            RecordKind::Claim { .. } | RecordKind::Adjust(_) => {
                tracing::debug!(?rec, "record noted");
            }
        }
    }

    fn sensor(&mut self, rec: &Record, out: &mut Vec<Event>) {
        let t = rec.t;
        let changes = match rec.kind {
            RecordKind::Lift(sq) => vec![Change::Lift(sq)],
            RecordKind::Place {
                square,
                color,
                piece,
            } => vec![Change::Place(square, color, piece)],
            RecordKind::Frame(bits) => {
                let ch = self.board.frame_changes(bits);
                if !self.seen_main_record && !ch.is_empty() && self.moves.is_empty() {
                    let diff = Bitboard(bits) ^ self.pos.board().occupied();
                    out.push(Event {
                        t,
                        kind: EventKind::Irregularity {
                            kind: "wrong_initial_position",
                            article: self.cfg.profile.articles.initial_position,
                            squares: squares(diff),
                        },
                    });
                }
                ch
            }
            _ => Vec::new(),
        };
        self.seen_main_record = true;
        for ch in changes {
            self.board.apply(ch, t);
        }
        if self.outcome.is_some() {
            return;
        }
        self.pending_end = None;
        if self.restore_pending {
            if self.board.matches(self.pos.board()) {
                self.restore_pending = false;
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
    }

    /// A move that ends the game is complete when made (§6.7a exceptions):
    /// watch for one on the board at `t`, and let it settle before it counts.
    fn watch_for_game_end(&mut self, t: u64) {
        self.pending_end = None;
        if let Recognition::Move {
            mv,
            promotion_assumed,
            missing: 0,
        } = recognize(&self.pos, &self.board, self.promote)
        {
            let mut after = self.pos.clone();
            after.play_unchecked(mv);
            if after.is_checkmate() || after.is_stalemate() || after.is_insufficient_material() {
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
            ArbiterAction::Restore | ArbiterAction::Accept | ArbiterAction::Overrule => {}
            ArbiterAction::SetResult(result) => {
                self.end(result, "arbiter_decision", a.arbiter, t, out);
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
        let Some(target) = parsed else {
            out.push(Event {
                t,
                kind: EventKind::Irregularity {
                    kind: "arbiter_position_rejected",
                    article: self.cfg.profile.articles.arbiter,
                    squares: Vec::new(),
                },
            });
            return;
        };
        let same = |a: &Chess, b: &Chess| a.board() == b.board() && a.turn() == b.turn();
        if let Some(ply) = self.history.iter().rposition(|p| same(p, &target)) {
            self.history.truncate(ply + 1);
            self.moves.truncate(ply);
            self.pos = self.history[ply].clone();
        } else if self.moves.is_empty() {
            self.cfg.start = target.clone();
            self.history = vec![target.clone()];
            self.pos = target;
        } else {
            out.push(Event {
                t,
                kind: EventKind::Irregularity {
                    kind: "arbiter_position_rejected",
                    article: self.cfg.profile.articles.arbiter,
                    squares: Vec::new(),
                },
            });
            return;
        }
        self.outcome = None;
        self.pending_end = None;
        self.promote = None;
        let turn = self.pos.turn();
        if let Some(c) = self.clock.as_mut() {
            if c.running().is_some() {
                c.stop(t);
                c.start(turn, t);
            }
        }
        self.board.clear_history();
        self.restore_pending = !self.board.matches(self.pos.board());
        if !self.restore_pending {
            self.board.reset_to(self.pos.board());
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
        for l in self.board.confirmed_lifts(t, flush) {
            if let Some(p) = self.pos.board().piece_at(l.square) {
                out.push(Event {
                    t: l.t,
                    kind: EventKind::Touch {
                        by: By(by),
                        square: l.square.to_string(),
                        piece: p.char().to_string(),
                        board: BoardId::Main.as_str(),
                    },
                });
            }
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
        match recognize(&self.pos, &self.board, self.promote) {
            Recognition::Move {
                mv,
                promotion_assumed,
                ..
            } => self.complete(mv, promotion_assumed, t, true, out),
            Recognition::NoMove => {
                let a = &self.cfg.profile.articles;
                if self.cfg.profile.press_without_move_is_illegal {
                    let article = a.press_without_move;
                    self.illegal(side, article, Bitboard::EMPTY, t, out);
                } else {
                    out.push(Event {
                        t,
                        kind: EventKind::Irregularity {
                            kind: "clock_pressed_without_move",
                            article: a.press_without_move,
                            squares: Vec::new(),
                        },
                    });
                }
            }
            Recognition::NoLegalMove { differs } => {
                let last_rank = match side {
                    Color::White => Rank::Eighth,
                    Color::Black => Rank::First,
                };
                let pawn_on_last_rank = differs.into_iter().any(|sq| {
                    sq.rank() == last_rank
                        && self.board.piece_at(sq).map(|p| (p.role, p.color))
                            == Some((Role::Pawn, side))
                });
                let a = &self.cfg.profile.articles;
                let article = if pawn_on_last_rank {
                    a.incomplete_promotion
                } else {
                    a.illegal_move
                };
                self.illegal(side, article, differs, t, out);
            }
        }
    }

    fn illegal(
        &mut self,
        side: Color,
        article: &'static str,
        differs: Bitboard,
        t: u64,
        out: &mut Vec<Event>,
    ) {
        let i = ci(side);
        self.illegal_counts[i] += 1;
        let count = self.illegal_counts[i];
        let p = self.cfg.profile;
        let opponent = !side;
        let (penalty, end) = if count >= p.illegal_moves_to_lose {
            if p.illegal_loss_draw_exception && self.pos.has_insufficient_material(opponent) {
                ("draw".to_owned(), Some("1/2-1/2"))
            } else {
                (
                    "game lost".to_owned(),
                    Some(if side == Color::White { "0-1" } else { "1-0" }),
                )
            }
        } else {
            let mins = p.illegal_move_bonus_ms / 60_000;
            (format!("+{mins} min to {}", side_name(opponent)), None)
        };
        out.push(Event {
            t,
            kind: EventKind::IllegalMove {
                by: By(side),
                article,
                count,
                penalty,
                squares: squares(differs),
            },
        });
        if let Some(result) = end {
            self.end(result, "illegal_moves", article, t, out);
            return;
        }
        self.restore_pending = !differs.is_empty();
        if let Some(c) = self.clock.as_mut() {
            c.adjust(opponent, p.illegal_move_bonus_ms as i64);
        }
        self.push_clock(t, out);
    }

    /// Completes `mv`: by a press at `t`, or made and ending the game.
    fn complete(&mut self, mv: Move, assumed: bool, t: u64, pressed: bool, out: &mut Vec<Event>) {
        let by = self.pos.turn();
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
        self.history.push(self.pos.clone());
        self.moves.push(PlayedMove {
            san: san.clone(),
            uci: uci.clone(),
            by,
            t,
            clock_ms,
        });
        out.push(Event {
            t,
            kind: EventKind::Move {
                ply: self.moves.len() as u32,
                by: By(by),
                san,
                uci,
                fen,
            },
        });
        self.push_clock(t, out);
        self.board.reset_to(self.pos.board());
        self.promote = None;
        self.pending_end = None;
        self.restore_pending = false;
        if self.draw_offer == Some(!by) {
            // Declined by playing on (§9.1).
            self.draw_offer = None;
        }
        let a = self.cfg.profile.articles;
        if self.pos.is_checkmate() {
            let result = if by == Color::White { "1-0" } else { "0-1" };
            self.end(result, "checkmate", a.checkmate, t, out);
        } else if self.pos.is_stalemate() {
            self.end("1/2-1/2", "stalemate", a.stalemate, t, out);
        } else if self.pos.is_insufficient_material() {
            self.end("1/2-1/2", "dead_position", a.dead_position, t, out);
        }
    }

    fn flag(&mut self, side: Color, t: u64, out: &mut Vec<Event>) {
        if let Some(c) = self.clock.as_mut() {
            c.set_flagged(side);
        }
        out.push(Event {
            t,
            kind: EventKind::Flag { by: By(side) },
        });
        let a = self.cfg.profile.articles;
        if self.pos.has_insufficient_material(!side) {
            self.end("1/2-1/2", "time_vs_insufficient_material", a.time, t, out);
        } else {
            let result = if side == Color::White { "0-1" } else { "1-0" };
            self.end(result, "time", a.time, t, out);
        }
    }

    fn end(
        &mut self,
        result: &'static str,
        reason: &'static str,
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
