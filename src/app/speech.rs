//! The daemon's speaker (`[event] speak = true`, `docs/voice.md`): every
//! `announce` event is played on its listeners' outputs
//! ([`crate::voice::output`]), on a thread of its own (the board loop never
//! waits for a sound device).
//!
//! Each player's output reports on its own: when his output has played an
//! announcement, a `spoken` record naming him (`{"spoken": n, "by": "b"}`)
//! goes into the board loop (E2.3c: the move counts as announced when the
//! player who must press has heard it, issue 29; the journal keeps the
//! record, so a replay times it as heard). An output that cannot play (the
//! player program missing, the device refused) reports nothing for its
//! listener and raises a `speech_alert` on the arbiter's channel at once
//! (his right to the announcement is at stake; the arbiter may pause the
//! game), with the package to install in the log and the alert.
//!
//! Order: what concerns both players (moves, rulings) is played before
//! answers on demand (E2.9d), each in its order, and an answer playing is
//! cut short by anything new (the next event, a new query): a query never
//! delays a move's announcement.

use super::daemon::EventObserver;
use super::shutdown::Joinable;
use crate::broadcast::delay::Channel;
use crate::config::Config;
use crate::console::board::ArbiterCommand;
use crate::model::Lang;
use crate::trace::{Event, EventKind, RecordKind};
use crate::voice::output::{play_rendered_until, Ear, Played, Utterance};
use crate::voice::tts::{package_of, Espeak, TtsError};
use shakmaty::Color;
use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};

/// Where the speaker reports, set once the daemon runs: the board loop's
/// command channel (the `spoken` records) and the arbiter's channel (the
/// alerts).
#[derive(Default)]
pub(super) struct Links {
    /// The board loop's commands.
    pub commands: Option<tokio::sync::mpsc::Sender<ArbiterCommand>>,
    /// The arbiter's channel.
    pub alerts: Option<Arc<Channel>>,
}

/// The speaker's links, shared with its thread.
pub(super) type Sink = Arc<Mutex<Links>>;

/// One announcement queued for the speaker.
pub(super) struct Queued {
    /// The `announce` event's `n` (0: words of the daemon's own).
    pub n: u64,
    /// The phrase.
    pub text: String,
    /// Its SSML, when it mixes languages.
    pub ssml: Option<String>,
    /// The game's language.
    pub lang: Lang,
    /// The one player it is for; `None`: both.
    pub to: Option<Color>,
    /// Report its end to the board loop (`spoken`: an announcement of the
    /// controller's); false for words of the daemon's own (the pairing).
    pub report: bool,
}

/// The running speaker.
pub(super) struct Speaker {
    /// Its thread (ends when the observer is dropped, after the
    /// announcement it is playing).
    pub thread: Joinable<()>,
    /// Hands each `announce` event to the thread.
    pub observer: EventObserver,
    /// Its links, to set once the daemon runs.
    pub sink: Sink,
    /// Words of the daemon's own (the pairing).
    pub say: std::sync::mpsc::Sender<Queued>,
}

/// The name of a listener's output in logs and alerts.
fn ear_name(ear: Ear) -> &'static str {
    match ear {
        Ear::Player(Color::White) => "white",
        Ear::Player(Color::Black) => "black",
        Ear::Arbiter => "arbiter",
    }
}

/// The `speech_alert` for the arbiter's channel (`docs/trace-extensions.md`):
/// which outputs (`white`, `black`, `arbiter`), the device, the
/// announcement not heard (`n`, `text`; absent at the start), the error and
/// what to do.
pub(super) fn speech_alert(
    outputs: &[&str],
    device: Option<&str>,
    said: Option<(u64, &str)>,
    error: &TtsError,
) -> String {
    let action = match error.package() {
        Some(p) => format!(
            "install the package {p} (apt-get install {p}); until then the players do not hear \
             the announcements: announce them yourself or pause the game"
        ),
        None => "check the output's device (eboard doctor plays a test on each); until then \
                 its listeners do not hear the announcements: announce them yourself or pause \
                 the game"
            .to_owned(),
    };
    let mut v = serde_json::json!({
        "type": "speech_alert",
        "outputs": outputs,
        "device": device.unwrap_or("default"),
        "error": error.to_string(),
        "action": action,
    });
    if let Some((n, text)) = said {
        v["n"] = serde_json::Value::from(n);
        v["text"] = serde_json::Value::from(text);
    }
    v.to_string()
}

/// Publishes an alert on the arbiter's channel (logged at warn too).
fn alert(sink: &Sink, msg: String) {
    tracing::warn!("speech alert: {msg}");
    let ch = sink.lock().ok().and_then(|l| l.alerts.clone());
    match ch {
        Some(ch) => ch.publish(0, None, &[Arc::from(msg)]),
        None => tracing::warn!("speech: the arbiter's channel is not open yet; alert only logged"),
    }
}

/// The programs the speech needs, checked once the daemon runs: a missing
/// `espeak-ng` or `aplay` is alerted at once, before any announcement.
pub(super) fn check_programs(sink: &Sink) {
    let missing = |program: &str| {
        std::process::Command::new(program)
            .arg("--version")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
    };
    for program in ["espeak-ng", "aplay"] {
        if missing(program) {
            let e = TtsError::NotInstalled {
                program: program.to_owned(),
            };
            tracing::error!(
                "speech: {program} is not installed (package {}): nobody hears the announcements",
                package_of(program)
            );
            alert(sink, speech_alert(&["white", "black"], None, None, &e));
        }
    }
}

/// Reports that `by` has heard announcement `n` on his output (`heard`),
/// or that his output could not play it (an `unheard` record, E2.3: his
/// press is then no clock started before the announcement).
fn report(sink: &Sink, n: u64, by: Color, heard: bool) {
    let sender = sink.lock().ok().and_then(|l| l.commands.clone());
    if let Some(s) = sender {
        let (reply, _) = tokio::sync::oneshot::channel();
        let kind = if heard {
            RecordKind::Spoken { n, by: Some(by) }
        } else {
            RecordKind::Unheard { n, by }
        };
        let cmd = ArbiterCommand { kind, reply };
        if let Err(e) = s.try_send(cmd) {
            tracing::warn!("speech: cannot report announcement {n} (heard: {heard}): {e}");
        }
    }
}

/// With `[event] speak = true`: the speaker and its thread.
pub(super) fn speaker(cfg: &Config) -> Option<Speaker> {
    if cfg.event.speak != Some(true) {
        return None;
    }
    let routing = super::settings::voice_routing(cfg);
    let sink: Sink = Default::default();
    let links = sink.clone();
    let (tx, rx) = std::sync::mpsc::channel::<Queued>();
    let thread = Joinable::spawn("eboard-speech", move || {
        let tts = Espeak::new();
        // The outputs failing now (by device): alerted once per failure,
        // again after they have played.
        let mut failing: HashSet<String> = HashSet::new();
        let mut queue: VecDeque<Queued> = VecDeque::new();
        loop {
            if queue.is_empty() {
                match rx.recv() {
                    Ok(q) => queue.push_back(q),
                    Err(_) => break,
                }
            }
            while let Ok(q) = rx.try_recv() {
                queue.push_back(q);
            }
            // What concerns both players (moves, rulings) before answers on
            // demand, each kind in its order: a query never delays a
            // move's announcement (issue 29).
            let next = queue.iter().position(|q| q.to.is_none()).unwrap_or(0);
            let Some(q) = queue.remove(next) else {
                continue;
            };
            let answer = q.to.is_some();
            let u = Utterance {
                text: &q.text,
                ssml: q.ssml.as_deref(),
                lang: q.lang,
                to: q.to,
            };
            let mut on_done = |p: Played<'_>| {
                let device = p.audio.device.clone().unwrap_or_else(|| "default".into());
                let outputs: Vec<&str> = p.audio.ears.iter().map(|(e, _)| ear_name(*e)).collect();
                match &p.result {
                    Ok(()) => {
                        if failing.remove(&device) {
                            tracing::info!("speech: {device} plays again");
                        }
                        if q.report {
                            for (ear, _) in &p.audio.ears {
                                if let (Ear::Player(c), Some(_)) = (ear, p.heard_at(*ear)) {
                                    report(&links, q.n, *c, true);
                                }
                            }
                        }
                    }
                    Err(TtsError::Interrupted) => {
                        tracing::debug!(n = q.n, "speech: answer interrupted");
                    }
                    Err(e) => {
                        if let Some(pkg) = e.package() {
                            tracing::error!("speech: {e} (package {pkg})");
                        }
                        if q.report {
                            for (ear, _) in &p.audio.ears {
                                if let Ear::Player(c) = ear {
                                    report(&links, q.n, *c, false);
                                }
                            }
                        }
                        if failing.insert(device.clone()) {
                            alert(
                                &links,
                                speech_alert(&outputs, Some(&device), Some((q.n, &q.text)), e),
                            );
                        }
                    }
                }
            };
            let audio = match routing.render(&tts, &u) {
                Ok(a) => a,
                Err(e) => {
                    // Nothing can be played: every listener is without it.
                    tracing::error!("speech: announcement {}: {e}", q.n);
                    if q.report {
                        for c in [Color::White, Color::Black] {
                            report(&links, q.n, c, false);
                        }
                    }
                    if failing.insert("espeak-ng".into()) {
                        alert(
                            &links,
                            speech_alert(&["white", "black"], None, Some((q.n, &q.text)), &e),
                        );
                    }
                    continue;
                }
            };
            // An answer is cut short by anything new: the next event or a
            // new query.
            let mut arrived = false;
            let interrupt = || {
                while let Ok(x) = rx.try_recv() {
                    queue.push_back(x);
                    arrived = true;
                }
                answer && arrived
            };
            match play_rendered_until(&audio, &mut on_done, interrupt) {
                Ok(len) => tracing::debug!(n = q.n, ms = len.as_millis() as u64, "spoken"),
                Err(TtsError::Interrupted) => {}
                Err(e) => tracing::warn!("speech: announcement {}: {e}", q.n),
            }
            failing.remove("espeak-ng");
        }
    })
    .map_err(|e| tracing::warn!("speech: cannot start its thread: {e}"))
    .ok()?;
    let say = tx.clone();
    let observer: EventObserver = Box::new(move |e: &Event| {
        if let EventKind::Announce {
            text,
            lang,
            n,
            to,
            ssml,
            ..
        } = &e.kind
        {
            let _ = tx.send(Queued {
                n: *n,
                text: text.clone(),
                ssml: ssml.clone(),
                lang: *lang,
                to: to.map(|b| b.0),
                report: true,
            });
        }
    });
    Some(Speaker {
        thread,
        observer,
        sink,
        say,
    })
}
