//! The one code path from records to events: the live daemon, the demo and
//! `eboard replay` all feed [`Controller`] timed records and tick it as time
//! passes. Only the time source differs (the wall clock, or the trace's `t`).
//!
//! The arbiter decides; the controller presents: it puts each
//! [`Announcement`] into words in the game's language ([`phrase`]) and emits
//! it as the contract's `announce` event at its place in the stream.
//!
//! Depends on `arbiter`, `voice`, `rules`, `trace` and `model`, the modules
//! below it in docs/dev/architecture.md's map. It must not depend on
//! `journal`, `broadcast`, `mqtt`, `server`, `config` or `app`: it is fed
//! records and time and returns events; where they go is the daemon's
//! business (`app`).

mod spoken;

use crate::arbiter::{Announcement, Arbiter, ConfigError, Decision, Decisions, GameConfig};
use crate::model::{Edition, Mode};
use crate::trace::{By, Event, EventKind, Record, RecordKind, Trace};
use crate::voice::{self, Vocabulary, VoiceOptions};
use shakmaty::{Color, Move};
pub use spoken::{event_phrase, Audience};

/// How the controller learns that an announcement has finished playing
/// (E2.3c: the move counts as announced then).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SpeechTiming {
    /// From the text: the announcement's start plus
    /// [`voice::speech_ms_estimate`] (a replay without audio, a daemon
    /// that does not speak).
    #[default]
    Estimated,
    /// From the speaker: a `spoken` record per announcement once its audio
    /// has played (the daemon that speaks, and the replay of its journal).
    Reported,
}

impl SpeechTiming {
    /// How a recorded trace times its announcements: as reported when it
    /// holds `spoken` records (the journal of a daemon that spoke), else
    /// estimated.
    pub fn of(trace: &Trace) -> SpeechTiming {
        if trace.records.iter().any(|r| {
            matches!(
                r.kind,
                RecordKind::Spoken { .. } | RecordKind::Unheard { .. }
            )
        }) {
            SpeechTiming::Reported
        } else {
            SpeechTiming::Estimated
        }
    }
}

/// An announcement given and not yet known to have finished playing.
#[derive(Debug, Clone)]
struct Playing {
    n: u64,
    /// The estimated end, ms.
    end: u64,
    /// The move it announces, if it does.
    mv: Option<Move>,
    /// The player whose hearing of it counts (E2.3: the player who must
    /// press next, the mover); `None`: whoever hears it first.
    ear: Option<Color>,
}

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
    /// Announcements given so far (the `n` of the last one).
    spoken: u64,
    /// The last announcement each player heard (white, black): for `repeat`.
    last_heard: [Option<EventKind>; 2],
    /// Announcements still playing, in order.
    playing: Vec<Playing>,
    timing: SpeechTiming,
    /// The speed the estimate assumes, words per minute.
    wpm: u32,
    /// A draw offer's words held until the move it goes with is announced
    /// (§9.1.2: the offer is made after the move; Appendix E announces the
    /// move first), with the offerer.
    pending_offer: Option<(String, Color)>,
}

impl Controller {
    /// A controller for a game with these settings.
    pub fn new(cfg: GameConfig) -> Controller {
        let options = cfg
            .header
            .words
            .map(VoiceOptions::from_choice)
            .unwrap_or_default();
        let voice = cfg
            .announcement_lang()
            .map(|lang| Vocabulary::new(lang, cfg.profile.edition, options));
        let mut arbiter = Arbiter::new(cfg);
        arbiter.set_speech_tracked(voice.is_some());
        Controller {
            arbiter,
            voice,
            decisions: Decisions::new(),
            last_t: 0,
            spoken: 0,
            last_heard: [None, None],
            playing: Vec::new(),
            timing: SpeechTiming::default(),
            wpm: voice::DEFAULT_WPM,
            pending_offer: None,
        }
    }

    /// How the end of each announcement is learnt (default: estimated).
    /// `wpm`: the speech rate the estimate assumes (the slower player's
    /// configured speed).
    pub fn set_speech_timing(&mut self, timing: SpeechTiming, wpm: u32) {
        self.timing = timing;
        self.wpm = wpm.max(1);
    }

    /// Feeds one record (its `t` is the time of the input, ms); appends the
    /// decisions to `out`.
    pub fn feed(&mut self, rec: &Record, out: &mut Vec<Event>) {
        self.last_t = self.last_t.max(rec.t);
        if self.voice.is_some() {
            // Time passes up to the record first (as the daemon's ticks
            // do), so that an announcement due before it is given and its
            // end (estimated, or the `spoken` record) known to the arbiter
            // before the record.
            self.arbiter.advance(rec.t, &mut self.decisions);
            self.render(out);
        }
        self.finish_playing(rec.t);
        if let RecordKind::Spoken { n, by } = rec.kind {
            self.played(n, by, rec.t);
        }
        if let RecordKind::Unheard { n, by } = rec.kind {
            self.unheard(n, by);
        }
        self.arbiter.record(rec, &mut self.decisions);
        self.render(out);
    }

    /// Time has passed up to `t` (ms) with no input; timers fire.
    pub fn tick(&mut self, t: u64, out: &mut Vec<Event>) {
        self.last_t = self.last_t.max(t);
        self.finish_playing(t);
        self.arbiter.advance(t, &mut self.decisions);
        self.render(out);
    }

    /// The input has ended at `t` (ms).
    pub fn finish(&mut self, t: u64, out: &mut Vec<Event>) {
        self.last_t = self.last_t.max(t);
        self.arbiter.finish(self.last_t, &mut self.decisions);
        self.render(out);
        if let Some(v) = self.voice.clone() {
            self.flush_offer(self.last_t, &v, out);
        }
    }

    /// The game state.
    pub fn arbiter(&self) -> &Arbiter {
        &self.arbiter
    }

    /// Estimated timing: the announcements whose estimated end is at or
    /// before `t` have finished playing.
    fn finish_playing(&mut self, t: u64) {
        if self.timing != SpeechTiming::Estimated {
            return;
        }
        while let Some(p) = self.playing.first().filter(|p| p.end <= t).cloned() {
            self.playing.remove(0);
            if let Some(mv) = p.mv {
                self.arbiter.move_announcement_played(&mv, p.end);
            }
        }
    }

    /// Reported timing: announcement `n` finished playing at `t` on the
    /// output of `by` (`None`: on every output). A move counts as announced
    /// when the player who must press (the mover, E2.3) has heard it on
    /// his own output; what the other listeners' outputs report does not
    /// move that instant (issue 29).
    fn played(&mut self, n: u64, by: Option<Color>, t: u64) {
        if self.timing != SpeechTiming::Reported {
            return;
        }
        if let Some(i) = self
            .playing
            .iter()
            .position(|p| p.n == n && (by.is_none() || p.ear.is_none() || p.ear == by))
        {
            let p = self.playing.remove(i);
            if let Some(mv) = p.mv {
                self.arbiter.move_announcement_played(&mv, t);
            }
        }
    }

    /// E2.3: announcement `n` could not be played on the output of `by`
    /// (an `unheard` record): it will never be heard there; the arbiter
    /// is told whose announcement of which move failed.
    fn unheard(&mut self, n: u64, by: Color) {
        if self.timing != SpeechTiming::Reported {
            return;
        }
        if let Some(i) = self
            .playing
            .iter()
            .position(|p| p.n == n && (p.ear.is_none() || p.ear == Some(by)))
        {
            let p = self.playing.remove(i);
            if let Some(mv) = p.mv {
                self.arbiter.move_announcement_unheard(&mv, by);
            }
        }
    }

    /// Moves the arbiter's decisions to `out`, announcements put into words;
    /// every event a player must know of is also spoken ([`event_phrase`]).
    fn render(&mut self, out: &mut Vec<Event>) {
        let decisions: Vec<Decision> = self.decisions.drain().collect();
        for d in decisions {
            match d {
                Decision::Event(e) => {
                    // 2009 A4d1, 2001 B6: where only a claim makes a flag
                    // count, the arbiter "skal afholde sig fra at gøre
                    // opmærksom på vingefald": the board does not say it.
                    let unsaid = matches!(e.kind, EventKind::Flag { .. })
                        && self.arbiter.config().profile.flag_needs_claim;
                    let said = self
                        .voice
                        .as_ref()
                        .filter(|_| !unsaid)
                        .and_then(|v| event_phrase(&e.kind, v).map(|p| (p, v.clone())));
                    let t = e.t;
                    let offer = match &e.kind {
                        EventKind::DrawOffer { by } => Some(by.0),
                        _ => None,
                    };
                    out.push(e);
                    if let Some(((text, audience), v)) = said {
                        // §9.1.2: the offer goes with the move its maker
                        // has made and not yet completed: said after that
                        // move's announcement.
                        if let Some(by) = offer.filter(|by| self.offer_waits_for_its_move(*by)) {
                            self.flush_offer(t, &v, out);
                            self.pending_offer = Some((text, by));
                            continue;
                        }
                        self.flush_offer(t, &v, out);
                        let to = match audience {
                            Audience::Both => None,
                            Audience::Player(c) => Some(c),
                        };
                        self.say(t, text, to, None, &v, out);
                    }
                }
                Decision::Announce { t, what, to } => {
                    let Some(v) = self.voice.clone() else {
                        continue;
                    };
                    if what == Announcement::Repeat {
                        self.repeat(t, to, &v, out);
                        continue;
                    }
                    let mv = match &what {
                        Announcement::Move { mv, before } => {
                            Some((*mv, shakmaty::Position::turn(before)))
                        }
                        _ => None,
                    };
                    let offer_follows = self
                        .pending_offer
                        .as_ref()
                        .is_some_and(|(_, by)| mv.is_some_and(|m| m.1 == *by));
                    if to.is_none() && !offer_follows {
                        self.flush_offer(t, &v, out);
                    }
                    self.say(t, phrase(&what, &v), to, mv, &v, out);
                    if offer_follows {
                        self.flush_offer(t, &v, out);
                    }
                }
            }
        }
    }

    /// Emits one `announce` event at `t`; `mv`: the move it announces and
    /// its mover (whose hearing of it counts, E2.3).
    fn say(
        &mut self,
        t: u64,
        text: String,
        to: Option<Color>,
        mv: Option<(Move, Color)>,
        v: &Vocabulary,
        out: &mut Vec<Event>,
    ) {
        self.spoken += 1;
        let n = self.spoken;
        let ms = voice::speech_ms_estimate(&text, v, self.wpm);
        self.playing.push(Playing {
            n,
            end: t + ms,
            mv: mv.map(|m| m.0),
            ear: mv.map(|m| m.1),
        });
        let kind = EventKind::Announce {
            ssml: v.ssml(&text),
            text,
            lang: v.lang(),
            n,
            to: to.map(By),
            ms,
        };
        for c in [Color::White, Color::Black] {
            if to.is_none_or(|p| p == c) {
                self.last_heard[c as usize] = Some(kind.clone());
            }
        }
        out.push(Event { t, kind });
    }

    /// Whether `by`'s draw offer waits for the announcement of his move:
    /// he is on move and the move he has made is not announced yet.
    fn offer_waits_for_its_move(&self, by: Color) -> bool {
        shakmaty::Position::turn(self.arbiter.position()) == by
            && !self.arbiter.move_announced_before_completion()
    }

    /// Says the held draw offer, if any.
    fn flush_offer(&mut self, t: u64, v: &Vocabulary, out: &mut Vec<Event>) {
        if let Some((text, _)) = self.pending_offer.take() {
            self.say(t, text, None, None, v, out);
        }
    }

    /// `repeat`: the last announcement the asker heard, again, for him.
    fn repeat(&mut self, t: u64, to: Option<Color>, v: &Vocabulary, out: &mut Vec<Event>) {
        let asker = to.unwrap_or(Color::White);
        let last = self.last_heard[asker as usize].clone();
        let text = match last {
            Some(EventKind::Announce { text, .. }) => text,
            _ => voice::nothing_to_repeat_phrase(v),
        };
        self.say(t, text, Some(asker), None, v, out);
    }
}

/// The words of an announcement in `voc`'s language (Appendix E2.1; the
/// phrase grammar is [`crate::voice`]'s). [`Announcement::Repeat`] has no
/// words of its own (the controller repeats the last phrase); here it says
/// there is nothing to repeat.
pub fn phrase(what: &Announcement, voc: &Vocabulary) -> String {
    match what {
        Announcement::Move { before, mv } => voice::move_phrase(before, mv, voc),
        Announcement::BoardsDiffer { owner, squares } => {
            let squares: Vec<shakmaty::Square> = squares.into_iter().collect();
            voice::board_differs_phrase(*owner, &squares, voc)
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
        Announcement::PositionByRank(board) => voice::position_by_rank_phrase(board, voc),
        Announcement::Clock { of, own, ms } => voice::one_clock_phrase(*of, *own, *ms, voc),
        Announcement::Turn { plies } => voice::turn_phrase(*plies, voc),
        Announcement::LastDrawOffer { by, offered } => {
            voice::draw_offer_query_phrase(*by, *offered, voc)
        }
        Announcement::PromotionPiece { square, .. } => {
            voice::promotion_piece_question_phrase(*square, voc)
        }
        Announcement::LastMove(last) => {
            voice::last_move_phrase(last.as_ref().map(|(pos, mv)| (pos, mv)), voc)
        }
        Announcement::PieceSquares {
            color,
            role,
            squares,
        } => voice::pieces_on_phrase(*color, *role, *squares, voc),
        Announcement::DrawOfferEnded { by, lapsed } => {
            voice::draw_offer_end_phrase(*by, *lapsed, voc)
        }
        Announcement::ClockPaused => voice::clock_paused_phrase(true, voc),
        Announcement::ClockResumed => voice::clock_paused_phrase(false, voc),
        Announcement::IncrementIntroduced {
            extra_ms,
            delay,
            awarded,
            awarded_ms,
        } => voice::increment_introduced_phrase(*extra_ms, *delay, *awarded, *awarded_ms, voc),
        Announcement::Repeat => voice::nothing_to_repeat_phrase(voc),
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
    c.set_speech_timing(SpeechTiming::of(trace), voice::DEFAULT_WPM);
    let mut events = Vec::with_capacity(trace.records.len());
    for r in &trace.records {
        c.feed(r, &mut events);
    }
    c.finish(trace.duration_ms(), &mut events);
    Ok((c.arbiter, events))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Square;

    const OPENING: &str = r#"{"trace": 1, "boards": ["main", "tactile"], "vi_player": "b", "language": "nb", "time_control": "300+0"}
{"t": 1000, "lift": "e2"}
{"t": 1300, "place": "e4"}
{"t": 1600, "press": "w"}
{"t": 3000, "lift": "e2", "board": "tactile"}
{"t": 3200, "place": "e4", "board": "tactile"}
{"t": 4000, "lift": "e7", "board": "tactile"}
{"t": 4300, "place": "e5", "board": "tactile"}
"#;

    fn run(extra: &str) -> (Controller, Vec<Event>) {
        let trace = Trace::parse(&format!("{OPENING}{extra}")).unwrap();
        let cfg = GameConfig::from_header(&trace.header, Some(Edition::Fide2009No), None).unwrap();
        let mut c = Controller::new(cfg);
        c.set_speech_timing(SpeechTiming::of(&trace), voice::DEFAULT_WPM);
        let mut out = Vec::new();
        for r in &trace.records {
            c.feed(r, &mut out);
        }
        (c, out)
    }

    fn e7e5() -> Move {
        Move::Normal {
            role: shakmaty::Role::Pawn,
            from: Square::E7,
            capture: None,
            to: Square::E5,
            promotion: None,
        }
    }

    #[test]
    fn e2_3c_the_move_counts_as_announced_when_its_speech_has_played() {
        // Estimated: the announcement at 4600 plus the length of its text.
        let (c, out) = run("{\"t\": 9000, \"lift\": \"g1\"}\n");
        let ann = out
            .iter()
            .find_map(|e| match &e.kind {
                EventKind::Announce { text, ms, n: 2, .. } => Some((e.t, text.clone(), *ms)),
                _ => None,
            })
            .unwrap();
        assert_eq!(ann.0, 4600);
        assert_eq!(ann.1, "Bauer Eva fünf");
        assert_eq!(
            ann.2,
            voice::speech_ms_estimate("Bauer Eva fünf", c.voice.as_ref().unwrap(), 175)
        );
        assert_eq!(c.arbiter().move_announced_at(&e7e5()), Some(4600 + ann.2));
        // Still playing: not yet announced.
        let (c, _) = run("{\"t\": 4700, \"lift\": \"g1\"}\n");
        assert_eq!(c.arbiter().move_announced_at(&e7e5()), None);
        // Reported by the speaker: its record's time.
        let (c, _) = run("{\"t\": 5321, \"spoken\": 2}\n");
        assert_eq!(c.arbiter().move_announced_at(&e7e5()), Some(5321));
        // Per ear (issue 29): the mover's output counts, another's not.
        let (c, _) = run("{\"t\": 5100, \"spoken\": 2, \"by\": \"w\"}\n");
        assert_eq!(
            c.arbiter().move_announced_at(&e7e5()),
            None,
            "White's output is not the ear that matters for Black's move"
        );
        let (c, _) = run(
            "{\"t\": 5100, \"spoken\": 2, \"by\": \"b\"}\n{\"t\": 9000, \"spoken\": 2, \"by\": \"w\"}\n",
        );
        assert_eq!(c.arbiter().move_announced_at(&e7e5()), Some(5100));
        let (c, _) = run("{\"t\": 5321, \"spoken\": 1}\n");
        assert_eq!(
            c.arbiter().move_announced_at(&e7e5()),
            None,
            "n 1 is White's move"
        );
    }
}
