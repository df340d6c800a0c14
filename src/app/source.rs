//! Where the board's records come from ([`RecordSource`]): a recorded trace
//! (a file or standard input, [`TraceSource`]), the sensors (a live source
//! of `crate::sensors`), several live sources merged ([`merge_sources`]).
//! Each runs on a thread of its own beside the board loop; standard input
//! is read so that a stop can end a read that waits ([`TraceSource::stop_handle`]).

use crate::trace::{Header, Line, Record, TraceReader};
use std::io::{BufRead, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Where the board's records come from: a blocking sequence of records in
/// round time (a recorded trace, standard input, later the sensor
/// hardware, which stamps its records with [`super::daemon::RoundClock::now_ms`]). It runs
/// on a thread of its own; each record is fed when its time has come.
pub trait RecordSource: Send {
    /// The next record; `None` at the end of input; an error ends the input.
    fn next_record(&mut self) -> Option<Result<Record, String>>;
}

impl<I: Iterator<Item = Result<Record, String>> + Send> RecordSource for I {
    fn next_record(&mut self) -> Option<Result<Record, String>> {
        self.next()
    }
}

/// Several live sources (the main and the tactile board) as one: each runs
/// on its own thread and their records arrive in the order they come.
pub fn merge_sources(
    sources: Vec<Box<dyn RecordSource>>,
) -> impl Iterator<Item = Result<Record, String>> + Send {
    let (tx, rx) = std::sync::mpsc::sync_channel(256);
    for mut src in sources {
        let tx = tx.clone();
        let _ = std::thread::Builder::new()
            .name("eboard-source-part".into())
            .spawn(move || {
                while let Some(r) = src.next_record() {
                    if tx.send(r).is_err() {
                        return;
                    }
                }
            });
    }
    rx.into_iter()
}

/// A recorded trace (a file or standard input) as a record source.
pub struct TraceSource {
    reader: TraceReader<Box<dyn BufRead + Send>>,
    name: String,
    /// The trace's header, when it has one.
    pub header: Option<Header>,
    first: Option<Record>,
    stop: Option<Arc<AtomicBool>>,
}

/// Standard input read so that a stop can end a read that waits for a
/// producer: `poll(2)` with a [`STDIN_POLL_MS`] bound between looks at the
/// stop flag; a stop reads as the end of the input.
struct StoppableStdin {
    stop: Arc<AtomicBool>,
}

/// How often a read of standard input that waits looks at its stop flag, ms.
pub const STDIN_POLL_MS: i32 = 50;

impl Read for StoppableStdin {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return Ok(0);
            }
            let mut fd = libc::pollfd {
                fd: libc::STDIN_FILENO,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd for the duration of the call.
            let ready = unsafe { libc::poll(&mut fd, 1, STDIN_POLL_MS) };
            if ready < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            if ready == 0 {
                continue;
            }
            // Readable, closed or failed: read(2) tells which. Nothing else
            // of this process reads standard input (no std buffer between).
            // SAFETY: `buf` is valid for `buf.len()` bytes.
            let n = unsafe { libc::read(libc::STDIN_FILENO, buf.as_mut_ptr().cast(), buf.len()) };
            if n < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            return Ok(n as usize);
        }
    }
}

impl TraceSource {
    /// Opens a trace file and reads its header. `-` is standard input, read
    /// lazily (a live producer may write its first line much later; a
    /// header line there is skipped: the config decides the game).
    pub fn open(path: &Path) -> Result<TraceSource, String> {
        let name = path.display().to_string();
        if path == Path::new("-") {
            let stop = Arc::new(AtomicBool::new(false));
            let stdin = StoppableStdin { stop: stop.clone() };
            return Ok(TraceSource {
                reader: TraceReader::new(Box::new(std::io::BufReader::new(stdin))),
                name: "<stdin>".into(),
                header: None,
                first: None,
                stop: Some(stop),
            });
        }
        let input: Box<dyn BufRead + Send> = Box::new(std::io::BufReader::new(
            std::fs::File::open(path).map_err(|e| format!("{name}: {e}"))?,
        ));
        TraceSource::new(input, name)
    }

    /// A trace read from `input`, named `name` in errors.
    pub fn new(input: Box<dyn BufRead + Send>, name: String) -> Result<TraceSource, String> {
        let mut reader = TraceReader::new(input);
        let (header, first) = match reader.next_line() {
            None => (None, None),
            Some(Ok(Line::Header(h))) => (Some(h), None),
            Some(Ok(Line::Record(r))) => (None, Some(r)),
            Some(Err(e)) => return Err(format!("{name}: {e}")),
        };
        Ok(TraceSource {
            reader,
            name,
            header,
            first,
            stop: None,
        })
    }

    /// For standard input: the flag that ends a read waiting for the
    /// producer (give it to [`super::daemon::Lifecycle::source_stop`]); `None` for a file,
    /// whose reads do not wait.
    pub fn stop_handle(&self) -> Option<Arc<AtomicBool>> {
        self.stop.clone()
    }
}

impl Iterator for TraceSource {
    type Item = Result<Record, String>;
    fn next(&mut self) -> Option<Self::Item> {
        if let Some(r) = self.first.take() {
            return Some(Ok(r));
        }
        loop {
            return match self.reader.next_line()? {
                Ok(Line::Record(r)) => Some(Ok(r)),
                // Only ever the first line (the reader checks).
                Ok(Line::Header(_)) => continue,
                Err(e) => Some(Err(format!("{}: {e}", self.name))),
            };
        }
    }
}

/// The game-deciding keys a recording's header and the config may both
/// set: (header key, config key, the config's value).
fn shared_keys(cfg: &crate::config::Config) -> [(&'static str, &'static str, Option<String>); 4] {
    let e = &cfg.event;
    [
        ("time_control", "event.time_control", e.time_control.clone()),
        ("start_fen", "game.start_fen", cfg.game.start_fen.clone()),
        (
            "rules",
            "event.rules",
            e.rules.map(|r| r.as_str().to_owned()),
        ),
        ("mode", "event.mode", e.mode.map(|m| m.as_str().to_owned())),
    ]
}

/// Whether two values of `key` say the same (a time control or a FEN as
/// read, not as spelled).
fn same_value(key: &str, a: &str, b: &str) -> bool {
    use crate::clock::TimeControl;
    use shakmaty::fen::Fen;
    match key {
        "time_control" => match (TimeControl::parse(a), TimeControl::parse(b)) {
            (Ok(x), Ok(y)) => x == y,
            _ => a.trim() == b.trim(),
        },
        "start_fen" => match (a.parse::<Fen>(), b.parse::<Fen>()) {
            (Ok(x), Ok(y)) => x == y,
            _ => a.trim() == b.trim(),
        },
        _ => a.trim() == b.trim(),
    }
}

/// A recording played by `eboard run --trace FILE` (`name`) is run under
/// the config, its header filling in what the config leaves unset
/// ([`super::settings::game_header`]). Where both set a key that decides
/// the game (`time_control`, `start_fen`, `rules`, `mode`) and they
/// differ, one would silently win: refused, naming both values, the
/// config's file, line and key and the trace's header key.
pub fn check_recording_header(
    cfg: &crate::config::Config,
    header: Option<&Header>,
    name: &str,
) -> Result<(), crate::config::ConfigFileError> {
    let Some(h) = header else {
        return Ok(());
    };
    let recorded = |key: &str| -> Option<String> {
        match key {
            "time_control" => h.time_control.clone(),
            "start_fen" => h.start_fen.clone(),
            "rules" => h.rules.map(|r| r.as_str().to_owned()),
            _ => h.mode.map(|m| m.as_str().to_owned()),
        }
    };
    for (key, cfg_key, configured) in shared_keys(cfg) {
        if let (Some(c), Some(r)) = (configured, recorded(key)) {
            if !same_value(key, &c, &r) {
                return Err(cfg.error_at(
                    cfg_key,
                    format!(
                        "{cfg_key} = \"{c}\", but the trace {name} was recorded with header key \
                         '{key}' = \"{r}\": the game would run under one and read as the other. \
                         Make them agree, or remove one (the config's key, to run the game as \
                         recorded)"
                    ),
                ));
            }
        }
    }
    Ok(())
}
