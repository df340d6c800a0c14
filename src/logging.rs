//! The binary's log: every `tracing` event of the program, written to
//! standard error (standard output carries command output such as
//! `eboard replay --json` and the `eboard: serving http://…` line).
//!
//! - The level comes from `RUST_LOG` (`tracing_subscriber::EnvFilter`
//!   syntax, e.g. `RUST_LOG=debug` or `RUST_LOG=info,eboard::mqtt=debug`;
//!   targets are module paths); unset or unreadable, it is `info`.
//! - On a terminal or into a file ([`LogStyle::Plain`]): one line an event,
//!   `2026-05-01T12:00:00.123456Z  WARN torn last line … file=…`, with
//!   colours only when standard error is a terminal.
//! - Under systemd ([`LogStyle::Journald`]: `JOURNAL_STREAM` names the
//!   stream standard error is): no timestamp (the journal stamps each line),
//!   no colours and no level word, each line opened by its syslog priority
//!   (`<4>` for a warning, sd-daemon(3)), which journald turns into the
//!   entry's priority (`journalctl -p warning` finds the warnings; the
//!   level is not written twice). A failed command's last line
//!   ([`fatal_line`]) has the same form, at priority err.
//!
//! [`init`] is called once by `main`; the library only emits events.
//!
//! Depends on nothing of the product: it is at the bottom of
//! docs/dev/architecture.md's map. It must not depend on any other module
//! (`config` included: the level comes from `RUST_LOG`).

use std::fmt;
use tracing::{Level, Subscriber};
use tracing_subscriber::filter::{EnvFilter, LevelFilter};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields, MakeWriter};
use tracing_subscriber::registry::LookupSpan;

/// How the log's lines look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogStyle {
    /// A terminal or a file: a timestamp on each line; `ansi`: colours.
    Plain {
        /// Colour the levels (standard error is a terminal).
        ansi: bool,
    },
    /// systemd's journal: no timestamp, no colours, a `<N>` priority prefix.
    Journald,
}

impl LogStyle {
    /// The style for a process whose environment has `journal_stream`
    /// (`JOURNAL_STREAM`: `device:inode` of the journal's stream, set by
    /// systemd) and whose standard error is the file `stderr_id` (`device,
    /// inode`; `None` when unknown) and `stderr_is_terminal`.
    ///
    /// Journald when `JOURNAL_STREAM` names standard error, or is set while
    /// standard error cannot be checked; plain otherwise (a program started
    /// by a service with its standard error redirected elsewhere inherits
    /// the variable but does not write to the journal).
    pub fn detect(
        journal_stream: Option<&str>,
        stderr_id: Option<(u64, u64)>,
        stderr_is_terminal: bool,
    ) -> LogStyle {
        let to_journal = journal_stream.is_some_and(|v| match stderr_id {
            None => true,
            Some(id) => parse_journal_stream(v) == Some(id),
        });
        if to_journal {
            LogStyle::Journald
        } else {
            LogStyle::Plain {
                ansi: stderr_is_terminal,
            }
        }
    }

    /// The style for this process (environment and standard error).
    pub fn of_this_process() -> LogStyle {
        use std::io::IsTerminal;
        let journal = std::env::var("JOURNAL_STREAM").ok();
        LogStyle::detect(
            journal.as_deref(),
            stderr_id(),
            std::io::stderr().is_terminal(),
        )
    }
}

/// `JOURNAL_STREAM`'s `device:inode`.
fn parse_journal_stream(v: &str) -> Option<(u64, u64)> {
    let (dev, ino) = v.trim().split_once(':')?;
    Some((dev.parse().ok()?, ino.parse().ok()?))
}

/// Device and inode of standard error.
fn stderr_id() -> Option<(u64, u64)> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let fd = std::io::stderr().as_fd().try_clone_to_owned().ok()?;
    let meta = std::fs::File::from(fd).metadata().ok()?;
    Some((meta.dev(), meta.ino()))
}

/// The filter: `RUST_LOG` when it is set, its unreadable directives
/// dropped; `info` when it is unset or empty.
pub fn filter(rust_log: Option<&str>) -> EnvFilter {
    let builder = EnvFilter::builder().with_default_directive(LevelFilter::INFO.into());
    match rust_log.map(str::trim).filter(|v| !v.is_empty()) {
        Some(v) => builder.parse_lossy(v),
        None => builder.parse_lossy(""),
    }
}

/// The syslog priority of a level (sd-daemon(3): `<3>` error … `<7>` debug).
pub fn syslog_priority(level: &Level) -> u8 {
    match *level {
        Level::ERROR => 3,
        Level::WARN => 4,
        Level::INFO => 6,
        Level::DEBUG | Level::TRACE => 7,
    }
}

/// A line format with the event's syslog priority in front.
struct PriorityPrefix<F>(F);

impl<S, N, F> FormatEvent<S, N> for PriorityPrefix<F>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
    F: FormatEvent<S, N>,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &tracing::Event<'_>,
    ) -> fmt::Result {
        write!(writer, "<{}>", syslog_priority(event.metadata().level()))?;
        self.0.format_event(ctx, writer, event)
    }
}

/// Installs the log for this process (style [`LogStyle::of_this_process`],
/// filter from `RUST_LOG`), writing to standard error. A second call, or a
/// call after another subscriber was installed, changes nothing.
pub fn init() {
    init_with(
        LogStyle::of_this_process(),
        filter(std::env::var("RUST_LOG").ok().as_deref()),
    );
}

/// Installs the log with `style` and `filter` (see [`init`]). Records of
/// the `log` crate (rumqttc, rustls and other dependencies log through it)
/// are forwarded into the same subscriber, under the same filter.
pub fn init_with(style: LogStyle, filter: EnvFilter) {
    use tracing_subscriber::util::SubscriberInitExt;
    let _ = subscriber(style, filter, std::io::stderr).try_init();
}

/// The subscriber [`init_with`] installs, writing to `writer`.
pub fn subscriber<W>(
    style: LogStyle,
    filter: EnvFilter,
    writer: W,
) -> Box<dyn Subscriber + Send + Sync>
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_target(false);
    match style {
        LogStyle::Plain { ansi } => Box::new(builder.with_ansi(ansi).finish()),
        LogStyle::Journald => {
            let format = tracing_subscriber::fmt::format()
                .without_time()
                .with_ansi(false)
                .with_level(false)
                .with_target(false);
            Box::new(
                builder
                    .with_ansi(false)
                    .event_format(PriorityPrefix(format))
                    .finish(),
            )
        }
    }
}

/// The last line of a failed command, `error` with its context chain
/// (`{:#}`): `eboard: ERROR` on a terminal or in a file; under systemd
/// (`Journald`) the same text opened by `<3>` (sd-daemon(3): priority
/// err), so that `journalctl -u eboard -p err` shows why the service
/// failed (journald stores unprefixed lines at priority info).
pub fn fatal_line(style: LogStyle, error: &dyn fmt::Display) -> String {
    // An error may quote what was read (a name, a key): its control
    // characters are shown escaped, never acted on by the terminal or the
    // journal (issue 41; [`crate::model::text`]).
    let text = crate::model::text::escape_controls_but_newlines(&format!("{error:#}")).into_owned();
    match style {
        LogStyle::Journald => {
            // One journal entry per line: a message of several lines keeps
            // its priority on each.
            text.lines()
                .enumerate()
                .map(|(i, l)| {
                    if i == 0 {
                        format!("<3>eboard: {l}")
                    } else {
                        format!("<3>{l}")
                    }
                })
                .collect::<Vec<_>>()
                .join("\n")
        }
        LogStyle::Plain { .. } => format!("eboard: {text}"),
    }
}

/// A log writer into memory, shared by its clones: the lines a subscriber
/// built with it wrote, for tests and tools that show the log.
#[derive(Clone, Debug, Default)]
pub struct MemoryWriter(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl MemoryWriter {
    /// What was written so far (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        let bytes = self.0.lock().map(|b| b.clone()).unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

impl std::io::Write for MemoryWriter {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut buf) = self.0.lock() {
            buf.extend_from_slice(b);
        }
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for MemoryWriter {
    type Writer = MemoryWriter;
    fn make_writer(&'a self) -> MemoryWriter {
        self.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journald_only_when_the_stream_is_standard_error() {
        let journald = LogStyle::detect(Some("8:1234"), Some((8, 1234)), false);
        assert_eq!(journald, LogStyle::Journald);
        assert_eq!(
            LogStyle::detect(Some("8:1234"), Some((8, 99)), true),
            LogStyle::Plain { ansi: true },
            "inherited by a process writing elsewhere"
        );
        assert_eq!(
            LogStyle::detect(Some("8:1234"), None, false),
            LogStyle::Journald
        );
        assert_eq!(
            LogStyle::detect(Some("garbage"), Some((8, 1234)), false),
            LogStyle::Plain { ansi: false }
        );
        assert_eq!(
            LogStyle::detect(None, Some((8, 1234)), false),
            LogStyle::Plain { ansi: false }
        );
    }

    #[test]
    fn filters_default_to_info() {
        for unset in [None, Some(""), Some("  ")] {
            assert_eq!(filter(unset).max_level_hint(), Some(LevelFilter::INFO));
        }
        assert_eq!(
            filter(Some("debug")).max_level_hint(),
            Some(LevelFilter::DEBUG)
        );
        assert_eq!(
            filter(Some("warn,eboard::mqtt=trace")).max_level_hint(),
            Some(LevelFilter::TRACE)
        );
        assert_eq!(
            filter(Some("eboard=warn")).max_level_hint(),
            Some(LevelFilter::WARN),
            "the default is only for what RUST_LOG leaves out"
        );
    }

    fn render(style: LogStyle, rust_log: &str) -> String {
        let buf = MemoryWriter::default();
        let s = subscriber(style, filter(Some(rust_log)), buf.clone());
        tracing::subscriber::with_default(s, || {
            tracing::warn!(file = "j.jsonl.events", "torn last line dropped");
            tracing::debug!("not shown at info");
        });
        buf.text()
    }

    #[test]
    fn lines_for_the_journal_and_for_a_terminal() {
        let j = render(LogStyle::Journald, "info");
        assert_eq!(
            j, "<4>torn last line dropped file=\"j.jsonl.events\"\n",
            "the priority once, no level word after it"
        );
        let p = render(LogStyle::Plain { ansi: false }, "info");
        assert_eq!(p.lines().count(), 1, "{p}");
        assert!(
            p.starts_with("20") && p.contains("Z  WARN torn last line"),
            "{p}"
        );
        assert!(!p.contains('\u{1b}'), "no colours: {p}");
        let d = render(LogStyle::Plain { ansi: true }, "debug");
        assert!(
            d.contains('\u{1b}') && d.contains("not shown at info"),
            "{d}"
        );
    }

    #[test]
    fn a_fatal_error_is_at_priority_err_under_systemd() {
        let e = anyhow_like("config.toml:12: key 'game.rounds': unknown key");
        assert_eq!(
            fatal_line(LogStyle::Journald, &e),
            "<3>eboard: config.toml:12: key 'game.rounds': unknown key"
        );
        assert_eq!(
            fatal_line(LogStyle::Plain { ansi: true }, &e),
            "eboard: config.toml:12: key 'game.rounds': unknown key"
        );
        let two = anyhow_like("first\nsecond");
        assert_eq!(
            fatal_line(LogStyle::Journald, &two),
            "<3>eboard: first\n<3>second"
        );
    }

    fn anyhow_like(s: &str) -> impl fmt::Display + '_ {
        struct D<'a>(&'a str);
        impl fmt::Display for D<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.0)
            }
        }
        D(s)
    }

    #[test]
    fn priorities() {
        assert_eq!(syslog_priority(&Level::ERROR), 3);
        assert_eq!(syslog_priority(&Level::WARN), 4);
        assert_eq!(syslog_priority(&Level::INFO), 6);
        assert_eq!(syslog_priority(&Level::TRACE), 7);
    }
}
