//! Appendix E2.8 (2001 F2.8, 2023 D.2.9): the two boards differ and the
//! two scoresheets differ too: "skal spillet føres tilbage til det træk
//! hvor de er ens, og dommeren skal indstille urene tilsvarende" (seed 002;
//! Norwegian seed 003: "trekkene tas tilbake til der notatene igjen
//! samsvarer, og turneringslederen skal justere sjakkuret tilsvarende").
//!
//! The board cannot read the scoresheets; it knows each player's copy of
//! the game from his board. The last ply whose position both boards showed
//! is where both records last agreed as far as the board can tell, so
//! while a difference stands (E2.7) and the game has moved on from that
//! ply, the arbiter is offered the rewind there with the clocks as they
//! stood when that ply was completed. He gives it only when the
//! scoresheets differ too (E2.8); otherwise the player puts his board right
//! (E2.7) and nothing is ruled. The rewind is an ordinary ruling: bound to
//! what the arbiter saw (`expect`), its effect shown before it is sent,
//! journaled as an `arbiter` record, undoable while no move was made since
//! (`rulings.rs`).

use super::announce::Decisions;
use super::matter::{OpenMatter, OpenRuling};
use super::refusal::{hms, impossible, moves_ago, Applied, Refusal};
use super::Arbiter;
use crate::clock::Clock;
use crate::model::IrregularityKind;
use crate::trace::{color_str, EventKind};
use serde_json::{json, Value};
use shakmaty::{Bitboard, Color, Position};

fn side(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

impl Arbiter {
    /// The last ply (completed half-moves) whose position both boards
    /// showed: where the two copies of the game last agreed (E2.8).
    pub(super) fn agreed_ply(&self) -> u32 {
        self.boards
            .iter()
            .map(|b| b.shown_ply)
            .min()
            .unwrap_or(0)
            .min(self.ply())
    }

    /// Both clocks (white, black, ms) as they stood when ply `p` was
    /// completed, and the moves each side had completed then; `None`
    /// without a clock.
    fn clocks_at(&self, p: u32) -> Option<((u64, u64), (u32, u32))> {
        let c = self.clock.as_ref()?;
        let p = p as usize;
        let times = match p.checked_sub(1).and_then(|i| self.moves.get(i)) {
            Some(m) => m.clocks?,
            None => Clock::new(c.time_control().clone()).remaining_at(0),
        };
        let done = |s: Color| self.moves[..p].iter().filter(|m| m.by == s).count() as u32;
        Some((times, (done(Color::White), done(Color::Black))))
    }

    /// The position after ply `p` in words: "after 12…Nf6 (ply 24)" or
    /// "the start position".
    fn ply_words(&self, p: u32) -> String {
        match p.checked_sub(1).and_then(|i| self.moves.get(i as usize)) {
            None => "the start position (ply 0)".to_owned(),
            Some(m) => {
                let start_black = self.history[0].turn() == Color::Black;
                let half = p as u64 - 1 + u64::from(start_black);
                let no = self.history[0].fullmoves().get() as u64 + half / 2;
                let dots = if m.by == Color::White { "." } else { "…" };
                format!("after {no}{dots}{} (ply {p})", m.san)
            }
        }
    }

    /// The boards-differ matter while a difference stands (E2.7), with the
    /// E2.8 rewind when the game has moved on from where both boards last
    /// agreed (`open.rs` lists it).
    pub(super) fn open_boards_differ(&self) -> Option<OpenMatter> {
        if self.boards.len() < 2 || self.ended() {
            return None;
        }
        let bi = self
            .boards
            .iter()
            .position(|b| !b.differ_reported.is_empty())?;
        let al = self.alerts.iter().rev().find(|a| {
            matches!(
                a.event.kind,
                EventKind::Irregularity {
                    kind: IrregularityKind::BoardsDiffer,
                    ..
                }
            )
        })?;
        let owner = self.owner_of(bi);
        let squares = super::square_list(self.boards[bi].differ_reported).join(", ");
        let a = self.cfg.profile.articles;
        let mut rulings = Vec::new();
        let p = self.agreed_ply();
        if p < self.ply() {
            rulings.push(OpenRuling {
                action: "rewind",
                body: json!({ "ply": p }),
                label: format!("Rewind to ply {p}"),
                effect: self.rewind_words(p),
            });
        }
        if self.clock.as_ref().is_some_and(|c| c.running().is_some()) {
            rulings.push(OpenRuling {
                action: "pause",
                body: Value::Null,
                label: "Pause clocks".to_owned(),
                effect: "stops both clocks while the boards are compared with the scoresheets"
                    .to_owned(),
            });
        }
        Some(OpenMatter {
            kind: "irregularity",
            t: al.t,
            by: Some(color_str(owner)),
            summary: format!(
                "{}'s board differs from the game on {squares} ({}): it is put right from the \
                 scoresheets; if they differ too, the game goes back to where they agree ({})",
                side(owner),
                a.vi_boards_differ,
                self.cfg.profile.article_vi_rewind()
            ),
            rulings,
        })
    }

    /// What a rewind to ply `p` does, in words (the console shows it
    /// before the ruling is sent).
    fn rewind_words(&self, p: u32) -> String {
        let back = self.ply().saturating_sub(p);
        let mut w = format!(
            "if the scoresheets differ too: the game goes back to the last position both boards \
             showed, {} ({} taken back)",
            self.ply_words(p),
            moves_ago(back).replace("move", "half-move")
        );
        if let Some(((wt, bt), _)) = self.clocks_at(p) {
            w.push_str(&format!(
                "; the clocks as they stood then: White {} · Black {}",
                hms(wt),
                hms(bt)
            ));
        }
        w.push_str(&format!(" ({})", self.cfg.profile.article_vi_rewind()));
        w
    }

    /// `rewind`: back to ply `p` with the clocks as they stood when it was
    /// completed (E2.8); both boards are then to show that position, the
    /// squares to set named per board.
    pub(super) fn rewind(
        &mut self,
        p: u32,
        t: u64,
        out: &mut Decisions,
    ) -> Result<Applied, Refusal> {
        let article = self.cfg.profile.article_vi_rewind();
        if self.boards.len() < 2 {
            return Err(impossible(
                "a rewind under Appendix E needs the two boards of a visually impaired player's \
                 game; to take moves back, set the position",
            ));
        }
        let now = self.ply();
        if p >= now {
            return Err(impossible(format!(
                "nothing to take back: ply {p} is not before the game's ply {now}"
            )));
        }
        let before = self.clock.as_ref().map(|c| c.remaining_at(t));
        let at = self.clocks_at(p);
        let pi = p as usize;
        self.history.truncate(pi + 1);
        self.keys.truncate(pi + 1);
        self.moves.truncate(pi);
        self.pos = self.history[pi].clone();
        if let (Some(c), Some(((w, b), (wn, bn)))) = (self.clock.as_mut(), at) {
            c.set(w, b, t);
            c.set_moves_done(wn, bn);
        }
        self.flags.clear();
        self.setup = super::SetUp::Done;
        self.resume_play();
        self.confirmation = None;
        self.pending_illegal = None;
        self.pending_breach = None;
        self.draw_offer = None;
        self.take_back_state(t);
        self.boards_to_position(t, out);
        self.push_clock(t, out);
        let clocks = match (before, at) {
            (Some((wb, bb)), Some(((w, b), _))) => format!(
                "; clocks White {} → {}, Black {} → {}",
                hms(wb),
                hms(w),
                hms(bb),
                hms(b)
            ),
            _ => String::new(),
        };
        Ok(Applied {
            article,
            effect: format!(
                "the game goes back to {} ({} taken back){clocks}",
                self.ply_words(p),
                moves_ago(now - p).replace("move", "half-move"),
            ),
        })
    }

    /// After a rewind (or its undo): both boards are to show the game's
    /// position; each board that does not is named with its squares, and
    /// the boards agree once they do.
    pub(super) fn boards_to_position(&mut self, t: u64, out: &mut Decisions) {
        let pos = self.pos.clone();
        let ply = self.ply();
        let mi = self.mi();
        for bi in 0..self.boards.len() {
            let slot = &mut self.boards[bi];
            slot.shown_ply = slot.shown_ply.min(ply);
            slot.differ_reported = Bitboard::EMPTY;
            slot.unchecked_since = None;
            if bi != mi {
                slot.position_changed(pos.board());
                // Not the lag of a copy: this board too is to be set up.
                slot.synced = slot.sensed.matches(pos.board());
            }
            let diff = self.boards[bi].sensed.differences(pos.board());
            if diff.is_empty() {
                self.boards[bi].shown_ply = ply;
            } else {
                self.report_boards_differ(bi, diff, t, out);
            }
        }
    }

    /// After an undo of a rewind: the clocks show again what they showed
    /// just before it (`rewound`: both clocks just before and just after
    /// it); the time between is charged to nobody, as for every undo.
    pub(super) fn undo_rewind_clocks(&mut self, rewound: ((u64, u64), (u64, u64)), t: u64) {
        let ((wb, bb), _) = rewound;
        if let Some(c) = self.clock.as_mut() {
            c.set(wb, bb, t);
        }
    }
}
