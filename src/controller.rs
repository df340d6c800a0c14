//! The one code path from records to events: the live daemon, the demo and
//! `eboard replay` all feed [`Controller`] timed records and tick it as time
//! passes. Only the time source differs (the wall clock, or the trace's `t`).
//!
//! The arbiter decides; the controller presents: it puts each
//! [`Announcement`] into words in the game's language ([`phrase`]) and emits
//! it as the contract's `announce` event at its place in the stream.

use crate::arbiter::{Announcement, Arbiter, ConfigError, Decision, Decisions, GameConfig};
use crate::model::{Edition, Mode};
use crate::trace::{Event, EventKind, Record, Trace};
use crate::voice::{self, Vocabulary, VoiceOptions};

/// Drives one game: records in, events out.
#[derive(Debug, Clone)]
pub struct Controller {
    arbiter: Arbiter,
    /// The words of the announcements, when the game announces (Appendix E,
    /// or a language given).
    voice: Option<Vocabulary>,
    /// The arbiter's decisions not yet rendered (empty between calls).
    decisions: Decisions,
    last_t: u64,
    /// The last announcement's words and language, said again on a
    /// `repeat` query.
    last_said: Option<(String, crate::model::Lang)>,
}

impl Controller {
    /// A controller for a game with these settings.
    pub fn new(cfg: GameConfig) -> Controller {
        let voice = cfg
            .announcement_lang()
            .map(|lang| Vocabulary::new(lang, cfg.profile.edition, VoiceOptions::default()));
        Controller {
            arbiter: Arbiter::new(cfg),
            voice,
            decisions: Decisions::new(),
            last_t: 0,
            last_said: None,
        }
    }

    /// Feeds one record (its `t` is the time of the input, ms); appends the
    /// decisions to `out`.
    pub fn feed(&mut self, rec: &Record, out: &mut Vec<Event>) {
        self.last_t = self.last_t.max(rec.t);
        self.arbiter.record(rec, &mut self.decisions);
        self.render(out);
        if let (
            crate::trace::RecordKind::Query {
                what: crate::trace::QueryKind::Repeat,
                ..
            },
            Some((text, lang)),
        ) = (&rec.kind, &self.last_said)
        {
            out.push(Event {
                t: rec.t,
                kind: EventKind::Announce {
                    text: text.clone(),
                    lang: *lang,
                },
            });
        }
    }

    /// Sets how long each announcement takes to be heard (E2.3c): the
    /// instant the visually impaired player's move counts as announced.
    pub fn set_speech_time(&mut self, s: crate::arbiter::SpeechTime) {
        self.arbiter.set_speech_time(s);
    }

    /// Time has passed up to `t` (ms) with no input; timers fire.
    pub fn tick(&mut self, t: u64, out: &mut Vec<Event>) {
        self.last_t = self.last_t.max(t);
        self.arbiter.advance(t, &mut self.decisions);
        self.render(out);
    }

    /// The input has ended at `t` (ms).
    pub fn finish(&mut self, t: u64, out: &mut Vec<Event>) {
        self.last_t = self.last_t.max(t);
        self.arbiter.finish(self.last_t, &mut self.decisions);
        self.render(out);
    }

    /// The game state.
    pub fn arbiter(&self) -> &Arbiter {
        &self.arbiter
    }

    /// Moves the arbiter's decisions to `out`, announcements put into words.
    fn render(&mut self, out: &mut Vec<Event>) {
        for d in self.decisions.drain() {
            match d {
                Decision::Event(e) => out.push(e),
                Decision::Announce { t, what } => {
                    if let Some(v) = &self.voice {
                        let text = phrase(&what, v);
                        self.last_said = Some((text.clone(), v.lang()));
                        out.push(Event {
                            t,
                            kind: EventKind::Announce {
                                text,
                                lang: v.lang(),
                            },
                        });
                    }
                }
            }
        }
    }
}

/// The words of an announcement in `voc`'s language (Appendix E2.1; the
/// phrase grammar is [`crate::voice`]'s).
pub fn phrase(what: &Announcement, voc: &Vocabulary) -> String {
    match what {
        Announcement::Move { before, mv } => voice::move_phrase(before, mv, voc),
        Announcement::BoardsDiffer { squares } => {
            let squares: Vec<shakmaty::Square> = squares.into_iter().collect();
            voice::boards_differ_phrase(&squares, voc)
        }
        Announcement::SetUp {
            missing,
            extra,
            misplaced,
        } => voice::setup_phrase(*missing, *extra, *misplaced, voc),
        Announcement::Time {
            plies,
            clocks,
            used,
        } => voice::time_used_phrase(*plies, *used, *clocks, voc),
        Announcement::Position(board) => voice::position_phrase(board, voc),
        Announcement::Turn { plies } => voice::turn_phrase(*plies, voc),
        Announcement::LastDrawOffer { by, offered } => {
            voice::draw_offer_query_phrase(*by, *offered, voc)
        }
        Announcement::PromotionPiece { square, .. } => {
            voice::promotion_question_phrase(*square, voc)
        }
        Announcement::LastMove(last) => {
            voice::last_move_phrase(last.as_ref().map(|(pos, mv)| (pos, mv)), voc)
        }
        Announcement::PieceSquares {
            color,
            role,
            squares,
        } => voice::pieces_on_phrase(*color, *role, *squares, voc),
    }
}

/// Replays a whole trace: the header's settings (with `rules` and `mode`
/// overriding them), every record in order, then the end of input.
/// Returns the final game state and the event stream.
pub fn replay(
    trace: &Trace,
    rules: Option<Edition>,
    mode: Option<Mode>,
) -> Result<(Arbiter, Vec<Event>), ConfigError> {
    let cfg = GameConfig::from_header(&trace.header, rules, mode)?;
    let mut c = Controller::new(cfg);
    let mut events = Vec::with_capacity(trace.records.len());
    for r in &trace.records {
        c.feed(r, &mut events);
    }
    c.finish(trace.duration_ms(), &mut events);
    Ok((c.arbiter, events))
}
