//! The game as the Laws see it: touched pieces, moves made and completed,
//! illegal moves, irregularities and the end of the game.
//!
//! Length: the arbiter's state in one struct with its constructor and the
//! record dispatch; every concern is its own file (table below).
//!
//! [`Arbiter`] is a pure state machine: `(state, record, t) → (state,
//! decisions)`. It reads no clock and does no I/O; the live daemon, the demo
//! and `eboard replay` drive it through the controller
//! (`crate::controller`) with [`Arbiter::record`], [`Arbiter::advance`] and
//! [`Arbiter::finish`] and the time of each input. Every decision names its
//! article from the game's [`Profile`](crate::rules::Profile). The
//! decisions are contract events and [`Announcement`]s, which the
//! controller puts into words.
//!
//! The game's state is one [`Phase`] (playing, settling, restoring, ended)
//! and a few facts beside it. One file per concern:
//!
//! | file | concern |
//! |---|---|
//! | `mod.rs` | the state and the inputs' dispatch |
//! | `moves.rs` | the board's changes followed, a move completed and reported |
//! | `phase.rs` | the [`Phase`] and its transitions, the console's [`Stage`], the game's [`Outcome`] |
//! | `refusal.rs` | a ruling's answer: applied, or refused with its reason in words (`stale`, `impossible`) |
//! | `config.rs` | [`GameConfig`]: the game's settings from the header |
//! | `hand.rs` | the hand on the board: touches, releases, promotion choice, j'adoube (§4) |
//! | `touch.rs` | the touch-move obligations and their breaches (§4) |
//! | `illegal.rs` | illegal moves: what the board shows after one, the claim, the penalty (§7.4 / 7.5) |
//! | `restoring.rs` | displaced pieces (§7.3), the position restored on the board (`Restoring` until `position_restored`) |
//! | `penalty.rs` | the penalty a ruling gave, read back with its article (§7.4b / 7.5.5) |
//! | `orientation.rs` | a board set up turned: 90° (§7.1b / 7.2.2), 180° (§2.1, reported as seen); set right or turned mid-game with the position transferred |
//! | `claims.rs` | claims: touch-move, illegal moves, flags, §10.2 |
//! | `both_flags.rs` | both flags fallen where only a claim counts (A4d3, B8): the draw offered to the arbiter; a win declared then refused without the arbiter's ground |
//! | `referred.rs` | a quickplay-finish claim referred to the arbiter (§10.2 / III.5): uphold (draw) or reject (+2 min), the clocks stopped meanwhile |
//! | `claim_cost.rs` | a rejected draw claim's +2 min, taken back when the claim is upheld on overruling (9.5.3 / §9.5) |
//! | `increment_request.rs` | 2023 Guidelines III.4: the five seconds per move introduced on request, or the draw offer it is accepted |
//! | `written.rs` | §9.2 / §9.3 draw claims, on the board or on a move written and not made (§9.2a / 9.2.1); claims held for the arbiter |
//! | `draw.rs` | draw offers (§9.1) |
//! | `tactile.rs` | Appendix E: the tactile board, announcing the VI player's move (E2.3), E2.7 |
//! | `copying.rs` | E2.7 / E2.8: the boards' slots; a copy gone wrong or forgotten, read from the record |
//! | `rewind.rs` | E2.8: the boards differ and so do the scoresheets: the rewind to where both boards last agreed, clocks as they were |
//! | `announce.rs` | [`Decisions`], [`Announcement`]s and the E2.9d queries |
//! | `end.rs` | the end of the game (§5, §6.9, 2023 9.6), resignation |
//! | `clock.rs` | the press (§6.2), the flags (§6.8), clock reports |
//! | `actions.rs` | the arbiter's actions: rulings, results, set-ups, pause |
//! | `rulings.rs` | rulings checked against what the arbiter saw (`expect`), refused with a reason, the history and the facts a ruling changes |
//! | `undo.rs` | `undo`: whether a ruling can be undone now (a later ruling, the game moved on, a move counter's time control), and its reversal |
//! | `not_undone.rs` | why a ruling is not undone (a pause, a resume, a choice, an undo) and what to rule instead: an undo of an undo names the ruling to give again and its amounts |
//! | `open.rs` | the matters open for the arbiter, with the rulings the Laws leave open, worded by effect |
//! | `matter.rs` | an open matter and its rulings as the state lists them (the words every file raising one uses) |
//! | `played.rs` | [`PlayedMove`], one completed move of the game record |
//! | `clock_rulings.rs` | the clock's corrections: `time_control` (6.10.2) and `downtime` (7.1), issue 40 |
//! | `declared.rs` | a result the arbiter declares under its article (11.3.2.2, 12.9 …), confirmed by that act |
//! | `claim_reasons.rs` | why a draw claim is rejected (the positions compared, what differs) and why mate is impossible |
//! | `confirm.rs` | results provisional until confirmed or corrected, forfeits (DSU 004 §15) |
//! | `setup.rs` | the set-up before the first move: guidance, a wrong initial position (§7.1a / 7.2.1) |
//! | `dead.rs` | dead positions and mating material (§5.2b, §6.9) |
//! | `alive.rs` | the cheap proof that the dead-position check after a move answers "not dead" (issue 28) |
//! | `ambiguous.rs` | a press whose board fits several moves: held readings, `ambiguous_move`, `choose` |
//! | `unpressed.rs` | a move made and not pressed, then the opponent's move: the board read as the moves made since (§1.1, §6.7a, 2023 6.2.1.2), on two boards the presser's (E2.1) |
//! | `withdraw.rs` | the board's penalties for illegal moves withdrawn, or re-classified as displaced pieces (7.4.1), by the arbiter |
//! | `unpressed_illegal.rs` | an illegal move made and not pressed, then replied to: stands (2009 A4c / B3c, 2001 C3, 2023 A.5.2, A.5.4) or ruled when made / completed (§7.4a, 7.5.1) |
//! | `withdraw_end.rs` | a game end the board declared alone (mate, stalemate, dead position, a flag, 9.6) cancelled by the arbiter: the game goes on |
//!
//! Depends on `model`, `trace`, `rules`, `clock`, `board`, `recognize`,
//! `legal` and `pgn`, the modules below it in docs/dev/architecture.md's
//! map. It must not depend on `controller` or `voice` (it holds no words),
//! `journal`, `broadcast` (the alert vocabulary is `trace::alert_types`),
//! `config`, `sensors`, `mqtt`, `server` or `app`: it does no I/O.

mod actions;
mod alive;
mod ambiguous;
mod announce;
mod announced;
mod both_flags;
mod claims;
// A rejected draw claim's cost, taken back when the claim is upheld on overruling.
mod claim_cost;
mod clock;
mod config;
mod confirm;
mod copying;
pub mod dead;
// A result the arbiter declares himself, under its article (issue 40.6).
mod declared;
mod draw;
mod end;
mod frames;
mod hand;
mod illegal;
mod increment_request;
mod matter;
// One completed move of the game record.
mod played;
pub use played::PlayedMove;
mod moves;
// Why a ruling is not undone, and what to rule instead.
mod not_undone;
mod open;
mod orientation;
mod penalty;
mod phase;
mod quickplay;
// A quickplay-finish claim referred to the arbiter: uphold or reject (+2 min).
mod referred;
// A ruling's answer (applied or refused) and the words of its reasons.
mod refusal;
// Displaced pieces (§7.3) and the position restored on the board.
mod restoring;
mod rewind;
mod rulings;
mod setup;
mod tactile;
pub mod touch;
// Undo: whether a ruling can be undone now, and its reversal.
mod undo;
mod unpressed;
mod unpressed_illegal;
mod written;
// The default time of a no-show's forfeit (6.7.1, DSU 004 §11).
mod default_time;
mod refused_article;
// Issue 40 point 7: the reasons of a rejected draw claim.
mod claim_reasons;
// A held draw claim overtaken by a move (no clock): ruled on its position.
mod held_overtaken;
// The clock rulings of issue 40: `time_control` (6.10.2) and `downtime` (7.1).
mod clock_rulings;
pub use clock_rulings::DowntimeStanding;
pub use default_time::DefaultTimeState;
// The board's penalties for illegal moves withdrawn or re-classified (issue 40 §2).
mod withdraw;
mod withdraw_end;

#[cfg(test)]
mod tests;

pub use announce::{Announcement, Decision, Decisions};
pub use config::{
    profile_lang, ConfigError, GameConfig, DEFAULT_RELEASE_MS, DEFAULT_SETTLE_MS,
    DEFAULT_TOUCH_WINDOW_MS,
};
pub use confirm::Confirmation;
pub use increment_request::{ControlChange, IncrementStanding, III4_EXTRA_MS, III4_OPPONENT_MS};
pub use matter::{OpenMatter, OpenRuling};
pub use phase::{Outcome, PendingEnd, Phase, Stage};
pub use refusal::{Refusal as RulingRefusal, IMPOSSIBLE, STALE};
pub use rulings::RulingEntry;
pub use setup::Guidance;
pub use tactile::ANNOUNCE_SETTLE_MS;

/// The author of the pause the daemon journals when it resumes a game after
/// a downtime it cannot show harmless (`app::downtime`, docs/clock.md): like
/// an arbiter's pause it holds until the arbiter's resume (2009 §6.12c
/// "Dommeren bestemmer hvornår partiet genoptages", 2023 6.11.3).
pub const DOWNTIME_AUTHOR: &str = "eboard (downtime)";

use crate::board::{Change, Orientation, SensedBoard};
use crate::clock::Clock;
use crate::model::{square_names, ClockStartAt};
use crate::trace::{BoardId, By, Event, EventKind, Record, RecordKind};
use claims::PendingBreach;
use copying::Slot;
use hand::Turn;
use illegal::PendingIllegal;
use setup::SetUp;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Bitboard, CastlingMode, Chess, Color, EnPassantMode, Move, Position, Role};
use touch::Touch;

/// How a move came to count as completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Completion {
    /// The player pressed his clock (§6.2 / 6.7a): the opponent's clock
    /// starts.
    Pressed,
    /// The move ended the game (checkmate, stalemate, a dead position) and
    /// counts as made once it settled on the board, without a press (§5.1a,
    /// §5.2a–b, the exceptions to §6.7a): the clock stops.
    Made,
    /// The move was made and not pressed, and the opponent has made his
    /// move since (he has the move once it is made: 2009 §1.1, 2023 1.3):
    /// the clock is untouched (the player's own clock runs on, as the real
    /// clock's does), and the move counts on the clock at the player's next
    /// press (2023 6.2.1.2: at his next move made; `unpressed.rs`).
    Unpressed,
    /// The player pressed after his opponent had already made his next
    /// move on the board (2023 6.2.2: he must be allowed to press "even
    /// after the opponent has made his/her next move"; 2009 §6.7a "En spiller
    /// skal altid have lov til at standse sit ur"): the clock as for
    /// `Pressed`, but the board shows the opponent's move too, which waits
    /// for his press.
    PressedBehind,
    /// A press on a clock that was not running (the opponent's move before
    /// it was never pressed): the real clock does nothing, so the clock is
    /// untouched but for the moves counter (§6.7a / 6.2.1: he did stop his
    /// clock).
    IdlePress,
}

/// A move about to be completed, and how.
#[derive(Debug, Clone, Copy)]
struct CompletedMove {
    mv: Move,
    how: Completion,
    /// A pawn reached the last rank with no piece chosen: a queen is
    /// assumed and reported (`promotion_assumed`).
    promotion_assumed: bool,
}

impl PendingEnd {
    /// The settled game-ending move, completed as made.
    fn completed(&self) -> CompletedMove {
        CompletedMove {
            mv: self.mv,
            how: Completion::Made,
            promotion_assumed: self.promotion_assumed,
        }
    }
}

/// The arbiter's state for one game.
#[derive(Debug, Clone)]
pub struct Arbiter {
    cfg: GameConfig,
    /// Where the game stands (playing, settling, restoring, ended).
    phase: Phase,
    pos: Chess,
    /// The positions of the game: `history[0]` the start, `history[i]` after ply i.
    history: Vec<Chess>,
    /// Repetition keys of `history` (FIDE identity of positions: en passant
    /// only when legal, §9.2).
    keys: Vec<Zobrist64>,
    /// The sensed boards: `main`, and in an Appendix E game `tactile`.
    boards: Vec<Slot>,
    moves: Vec<PlayedMove>,
    clock: Option<Clock>,
    illegal_counts: [u32; 2],
    /// What the player on move has done since the last completed move.
    turn: Turn,
    /// A §4 breach the opponent may still claim (open claim).
    pending_breach: Option<PendingBreach>,
    /// The move announced with an incorrect draw claim, where it binds
    /// (2001 §9.5b; `announced.rs`).
    announced: Option<announced::AnnouncedMove>,
    /// E2.3c: the last move whose announcement finished playing, and when
    /// (ms); see `Arbiter::move_announcement_played`.
    speech_played: Option<(Move, u64)>,
    /// E2.3: the last move whose announcement could not be played on the
    /// output of this player (an `unheard` record); see
    /// `Arbiter::move_announcement_unheard`.
    speech_unheard: Option<(Move, Color)>,
    /// The end of each announcement is reported (`set_speech_tracked`).
    speech_tracked: bool,
    /// An illegal move that stood, claimable before the opponent's next move
    /// (open claim).
    pending_illegal: Option<PendingIllegal>,
    /// The side whose draw offer stands (§9.1).
    draw_offer: Option<Color>,
    /// The set-up before the first move: the main board compared with the
    /// start position (§7.1a / 7.2.1).
    setup: SetUp,
    /// Flags reported, in order.
    flags: Vec<Color>,
    /// The set-up window: the main board's changes before the first
    /// completed move, to test whether the board is turned (§7.1b / 7.2.2);
    /// `None` once a move was completed.
    setup_log: Option<Vec<(u64, Change)>>,
    /// How the main board stands turned relative to its wiring: its
    /// sensed squares are remapped through this (`orientation.rs`).
    turned: Orientation,
    /// The game's clock has been started (§6.5): at round time 0, or by the
    /// arbiter or the first press (`GameConfig::clock_start_at`).
    clock_started: bool,
    /// When White's clock first ran, round ms: the session's start on this
    /// board, for the default time (`default_time.rs`).
    session_started: Option<u64>,
    now: u64,
    /// A press whose board fits several moves, held with one reading per
    /// candidate (`ambiguous.rs`); the fields above are the game before it.
    held: Option<Box<ambiguous::Held>>,
    /// The reading this copy of the game takes at its next press (a held
    /// reading's candidate).
    forced: Option<Move>,
    /// How long announcements take to be heard (E2.3c).
    /// Each side's last draw offer (white, black): the half moves made
    /// when it was offered (E2.9d queries).
    last_offers: [Option<u32>; 2],
    /// The arbiter's confirmation of the result (DSU 004 §15), once given.
    confirmation: Option<Confirmation>,
    /// The board's own result before the arbiter corrected it (a
    /// correction back restores its reason).
    original_outcome: Option<Outcome>,
    /// The applied rulings, oldest first (`rulings.rs`).
    rulings: Vec<rulings::RulingEntry>,
    /// The alerts raised, newest last (`open.rs`).
    alerts: Vec<open::Alert>,
    /// The last claim the board decided, while the arbiter may overrule it.
    decided_claim: Option<DecidedClaim>,
    /// A draw claim held for the arbiter's ruling (`written.rs`).
    held_claim: Option<written::HeldClaim>,
    /// Per side (white, black): his moves recorded as made without his
    /// press (`Completion::Unpressed`), which the clock counts at his next
    /// press (`unpressed.rs`).
    unpressed: [u32; 2],
    /// The downtimes the daemon recorded and the arbiter's charges of
    /// them, oldest first (`clock_rulings.rs`).
    downtimes: Vec<clock_rulings::DowntimeMark>,
    /// The penalties given for illegal moves, oldest first, for the
    /// arbiter to withdraw (`withdraw.rs`).
    penalties: Vec<withdraw::GivenPenalty>,
    /// The board's game ends the arbiter withdrew that it must not declare
    /// again at once (`withdraw_end.rs`).
    ends_withdrawn: Vec<withdraw_end::WithdrawnEnd>,
}

/// A claim the board decided (`claim` event), kept so that the arbiter may
/// overrule it until the next move.
#[derive(Debug, Clone)]
pub(crate) struct DecidedClaim {
    t: u64,
    by: Color,
    kind: crate::model::ClaimKind,
    upheld: bool,
    consequence: String,
    article: &'static str,
    /// The completed plies when it was decided.
    ply: u32,
    /// What the board's decision did to the clocks (White, Black), ms: a
    /// rejected draw claim's cost (2009 §9.5b, 2023 9.5.3), taken back when
    /// the claim is upheld on overruling.
    cost: [i64; 2],
    /// The game before the claim (what overruling an upheld claim restores).
    before: Box<rulings::Facts>,
    overruled: bool,
}

fn ci(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// Squares in the contract's spelling, a1 first.
fn square_list(bb: Bitboard) -> Vec<String> {
    square_names(bb)
}

fn key(pos: &Chess) -> Zobrist64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal)
}

impl Arbiter {
    /// A new game at its start position; White's clock starts at `t = 0`
    /// (§6.5), or waits for the start of the game
    /// ([`ClockStartAt::ArbiterOrPress`]).
    pub fn new(cfg: GameConfig) -> Arbiter {
        let pos = cfg.start.clone();
        let boards = cfg
            .header
            .boards
            .iter()
            .map(|id| {
                let mut sensed = SensedBoard::new(pos.board());
                sensed.bounce_ms = cfg.bounce_ms;
                Slot::new(*id, sensed)
            })
            .collect();
        let clock_started = cfg.clock_start_at == ClockStartAt::RoundStart;
        let clock = cfg.time_control.clone().map(|tc| {
            let mut c = Clock::new(tc);
            if clock_started {
                c.start(pos.turn(), 0);
            }
            c
        });
        Arbiter {
            cfg,
            phase: Phase::Playing,
            history: vec![pos.clone()],
            keys: vec![key(&pos)],
            pos,
            boards,
            moves: Vec::new(),
            clock,
            illegal_counts: [0, 0],
            turn: Turn::default(),
            pending_breach: None,
            announced: None,
            speech_played: None,
            speech_unheard: None,
            speech_tracked: false,
            pending_illegal: None,
            draw_offer: None,
            setup: SetUp::Unseen,
            flags: Vec::new(),
            setup_log: Some(Vec::new()),
            turned: Orientation::Identity,
            clock_started,
            session_started: clock_started.then_some(0),
            now: 0,
            held: None,
            forced: None,
            last_offers: [None, None],
            confirmation: None,
            original_outcome: None,
            rulings: Vec::new(),
            alerts: Vec::new(),
            decided_claim: None,
            held_claim: None,
            unpressed: [0, 0],
            downtimes: Vec::new(),
            penalties: Vec::new(),
            ends_withdrawn: Vec::new(),
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
        self.phase.outcome()
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
        self.phase.is_restoring()
    }

    /// Processes the timers due strictly before `t` (confirmed touches, a
    /// game-ending move settling, a flag falling). Call it as time passes
    /// (the daemon ticks); [`Arbiter::record`] calls it itself.
    pub fn advance(&mut self, t: u64, out: &mut Decisions) {
        let from = out.len();
        self.advance_inner(t, out);
        self.note_alerts(out, from);
    }

    fn advance_inner(&mut self, t: u64, out: &mut Decisions) {
        if self.held.is_some() {
            self.advance_held(t, out);
            return;
        }
        if t > self.now {
            self.now = t;
        }
        if self.ended() {
            return;
        }
        // The timers below fire at their own times, which may interleave
        // (a touch, a board that settled differing, an announcement): their
        // decisions go out in time order.
        let from = out.len();
        self.fire_timers(t, out);
        out.sort_tail_by_time(from);
    }

    /// End of input at `t` (the end of a trace): a game-ending move still
    /// settling counts as made.
    pub fn finish(&mut self, t: u64, out: &mut Decisions) {
        let from = out.len();
        self.finish_inner(t, out);
        self.note_alerts(out, from);
    }

    fn finish_inner(&mut self, t: u64, out: &mut Decisions) {
        if self.held.is_some() {
            self.finish_held(t, out);
            return;
        }
        self.advance_inner(t, out);
        if let Some(p) = self.phase.pending_end() {
            let (completed, at) = (p.completed(), t.max(p.t));
            self.complete(completed, at, out);
        }
        self.alert_tied_game_end(t, out);
    }

    /// Processes one record at its time `rec.t`.
    pub fn record(&mut self, rec: &Record, out: &mut Decisions) {
        let from = out.len();
        self.record_inner(rec, out);
        self.note_alerts(out, from);
    }

    fn record_inner(&mut self, rec: &Record, out: &mut Decisions) {
        if self.held.is_some() {
            self.record_held(rec, out);
            return;
        }
        if self.hold_if_ambiguous(rec, out) {
            return;
        }
        let t = rec.t;
        self.advance_inner(t, out);
        match &rec.kind {
            RecordKind::Lift(_) | RecordKind::Place { .. } | RecordKind::Frame(_) => {
                self.sensor(rec, out);
            }
            RecordKind::Press(side) => self.press(*side, t, out),
            RecordKind::Promote(role) => {
                self.promote(*role);
                // The answer to the question for the promotion piece (E2.3).
                if !self.ended() && !self.phase.is_restoring() {
                    self.watch_vi_move(t, out);
                }
            }
            RecordKind::Resign(side) => self.resign(*side, t, out),
            RecordKind::Offer(side) => self.offer_draw(*side, t, out),
            RecordKind::Accept(side) => self.accept_draw(*side, t, out),
            RecordKind::Decline(side) => self.decline_draw(*side, t, out),
            RecordKind::Adjust(side) => self.adjust(*side, t, out),
            RecordKind::Claim { kind, by, intended } => {
                let (before, from) = (self.facts(), out.len());
                self.claim(*kind, *by, intended.as_deref(), t, out);
                self.note_claim(before, out, from);
            }
            RecordKind::Query {
                what, by, piece, ..
            } => self.query(*what, *by, *piece, t, out),
            // The end of an announcement: the controller reports it
            // (`move_announcement_played`); nothing else to decide.
            RecordKind::Spoken { .. } | RecordKind::Unheard { .. } => {}
            RecordKind::Arbiter {
                action,
                author,
                expect,
                reason,
            } => self.arbiter_action(
                action,
                author.as_deref(),
                expect.as_ref(),
                reason.as_deref(),
                t,
                out,
            ),
        }
    }
}
