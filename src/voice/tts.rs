//! Speech: a small adapter over `espeak-ng` (Debian package `espeak-ng`),
//! run as a subprocess, with the voices `da`, `nb`, `de`, `en`.
//!
//! Three uses: [`Espeak::speak`] to the sound device (E2.3c: the move
//! counts as made once announced; the daemon plays this into the players'
//! headphones, §12.6), [`Espeak::write_wav`] to a WAV file, and
//! [`Espeak::synthesize`], which streams the audio from `espeak-ng --stdout`
//! and measures the time from the process start to the first output byte
//! and to the first sample that is not silence (the time to audio start,
//! before the sound device's own buffering).
//!
//! The text goes to `espeak-ng` on its standard input (`--stdin`), never on
//! the command line, so a phrase cannot be read as an option. Every failure
//! is a [`TtsError`]; nothing here panics.

use super::Lang;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A sample counts as sound when its magnitude reaches this (16-bit
/// signed PCM; 328 ≈ 1 % of full scale, −40 dBFS).
pub const SOUND_THRESHOLD: i16 = 328;

/// What can go wrong when speaking.
#[derive(Debug, thiserror::Error)]
pub enum TtsError {
    /// The program is not on the `PATH` (or not at the path given); the
    /// message names its package ([`package_of`]).
    #[error(
        "{program} is not installed: install it with `apt-get install {}`",
        package_of(program)
    )]
    NotInstalled {
        /// The program looked for.
        program: String,
    },
    /// The program has no voice for the language.
    #[error("{program} has no voice `{voice}`: install the package espeak-ng-data")]
    NoVoice {
        /// The program.
        program: String,
        /// The voice asked for.
        voice: &'static str,
    },
    /// The sound device could not be opened (write a WAV file instead).
    #[error("no sound device: {detail}")]
    NoAudioDevice {
        /// espeak-ng's message.
        detail: String,
    },
    /// The program failed for another reason.
    #[error("{program} failed ({status}): {stderr}")]
    Failed {
        /// The program.
        program: String,
        /// Its exit status.
        status: String,
        /// The first line of its error output.
        stderr: String,
    },
    /// Reading or writing a file or pipe failed.
    #[error("{what}: {source}")]
    Io {
        /// The file or pipe.
        what: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The program's output was not the audio expected.
    #[error("{program}: {reason}")]
    BadOutput {
        /// The program.
        program: String,
        /// What was wrong.
        reason: String,
    },
    /// Nothing to say.
    #[error("nothing to say: the text is empty")]
    EmptyText,
    /// Cut short on purpose (an answer on demand interrupted by the next
    /// event or a new query).
    #[error("interrupted by a newer announcement")]
    Interrupted,
}

impl TtsError {
    /// The same error again (for a second owner: the log and the caller).
    pub fn duplicate(&self) -> TtsError {
        match self {
            TtsError::NotInstalled { program } => TtsError::NotInstalled {
                program: program.clone(),
            },
            TtsError::NoVoice { program, voice } => TtsError::NoVoice {
                program: program.clone(),
                voice,
            },
            TtsError::Io { what, source } => TtsError::Io {
                what: what.clone(),
                source: std::io::Error::new(source.kind(), source.to_string()),
            },
            TtsError::EmptyText => TtsError::EmptyText,
            TtsError::Interrupted => TtsError::Interrupted,
            other => TtsError::NoAudioDevice {
                detail: other.to_string(),
            },
        }
    }

    /// The Debian package that provides the missing program, when the error
    /// is a program not installed: `alsa-utils` for `aplay`, `espeak-ng`
    /// for `espeak-ng`.
    pub fn package(&self) -> Option<&'static str> {
        match self {
            TtsError::NotInstalled { program } => Some(package_of(program)),
            _ => None,
        }
    }
}

/// The Debian package of a program the speech uses: `aplay` is in
/// `alsa-utils`, everything else here is `espeak-ng`.
pub fn package_of(program: &str) -> &'static str {
    let name = Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(program);
    if name == "aplay" {
        "alsa-utils"
    } else {
        "espeak-ng"
    }
}

/// The espeak-ng voice for a language.
pub fn voice(lang: Lang) -> &'static str {
    match lang {
        Lang::Da => "da",
        Lang::Nb => "nb",
        Lang::De => "de",
        Lang::En => "en",
    }
}

/// Audio from [`Espeak::synthesize`] with its timings.
#[derive(Debug, Clone)]
pub struct Synthesis {
    /// The WAV bytes as streamed (the RIFF and data sizes in the header are
    /// espeak-ng's placeholders, not the real lengths).
    pub wav: Vec<u8>,
    /// Samples per second.
    pub sample_rate: u32,
    /// The 16-bit mono samples.
    pub samples: usize,
    /// Process start → the first byte on its standard output.
    pub first_output: Duration,
    /// Process start → the first chunk holding a sample of at least
    /// [`SOUND_THRESHOLD`]; `None` if all is silence.
    pub first_sound: Option<Duration>,
    /// Process start → the process has exited.
    pub total: Duration,
}

impl Synthesis {
    /// The 16-bit mono samples.
    pub fn pcm(&self) -> Vec<i16> {
        let start = wav_data_offset(&self.wav).unwrap_or(self.wav.len());
        self.wav[start..]
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]))
            .collect()
    }

    /// The length of the audio.
    pub fn audio_length(&self) -> Duration {
        if self.sample_rate == 0 {
            return Duration::ZERO;
        }
        Duration::from_secs_f64(self.samples as f64 / f64::from(self.sample_rate))
    }
}

/// The espeak-ng subprocess and its settings.
#[derive(Debug, Clone)]
pub struct Espeak {
    program: PathBuf,
    /// Speed in words per minute (`-s`; espeak-ng's default is 175).
    pub speed_wpm: Option<u32>,
    /// The sound device (`-d`); `None` is the default device.
    pub device: Option<String>,
    /// A voice variant added to the language's voice (`-v nb+f3`), e.g.
    /// `f3`, `m2` (espeak-ng-data/voices/!v).
    pub variant: Option<String>,
}

impl Default for Espeak {
    fn default() -> Espeak {
        Espeak::new()
    }
}

impl Espeak {
    /// `espeak-ng` from the `PATH`, default speed and device.
    pub fn new() -> Espeak {
        Espeak::with_program("espeak-ng")
    }

    /// Another program or path (a test stand-in, another build).
    pub fn with_program(program: impl Into<PathBuf>) -> Espeak {
        Espeak {
            program: program.into(),
            speed_wpm: None,
            device: None,
            variant: None,
        }
    }

    fn name(&self) -> String {
        self.program.display().to_string()
    }

    /// The version line; fails with [`TtsError::NotInstalled`] when absent.
    pub fn version(&self) -> Result<String, TtsError> {
        let out = Command::new(&self.program)
            .arg("--version")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| self.spawn_error(e))?;
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    }

    fn spawn_error(&self, e: std::io::Error) -> TtsError {
        if e.kind() == std::io::ErrorKind::NotFound {
            TtsError::NotInstalled {
                program: self.name(),
            }
        } else {
            TtsError::Io {
                what: self.name(),
                source: e,
            }
        }
    }

    /// Starts espeak-ng with the voice, the settings and `extra`, and hands
    /// it `text` on its standard input.
    fn start(&self, text: &str, lang: Lang, extra: &[&std::ffi::OsStr]) -> Result<Child, TtsError> {
        if text.trim().is_empty() {
            return Err(TtsError::EmptyText);
        }
        let mut cmd = Command::new(&self.program);
        match &self.variant {
            Some(v) => cmd.arg("-v").arg(format!("{}+{v}", voice(lang))),
            None => cmd.arg("-v").arg(voice(lang)),
        };
        if let Some(s) = self.speed_wpm {
            cmd.arg("-s").arg(s.to_string());
        }
        cmd.args(extra)
            .arg("--stdin")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().map_err(|e| self.spawn_error(e))?;
        let fed = child
            .stdin
            .take()
            .map(|mut stdin| stdin.write_all(text.as_bytes()))
            .unwrap_or(Ok(()));
        if let Err(e) = fed {
            let _ = child.kill();
            let _ = child.wait();
            return Err(TtsError::Io {
                what: format!("{} standard input", self.name()),
                source: e,
            });
        }
        Ok(child)
    }

    /// Turns a finished run into an error when it failed.
    fn check(
        &self,
        lang: Lang,
        status: std::process::ExitStatus,
        stderr: &[u8],
    ) -> Result<(), TtsError> {
        let err = String::from_utf8_lossy(stderr);
        if err.contains("voice does not exist") {
            return Err(TtsError::NoVoice {
                program: self.name(),
                voice: voice(lang),
            });
        }
        if !status.success() {
            return Err(TtsError::Failed {
                program: self.name(),
                status: status.to_string(),
                stderr: err
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("")
                    .to_owned(),
            });
        }
        Ok(())
    }

    /// Speaks `text` on the sound device and returns when it has been said.
    ///
    /// espeak-ng exits with 0 even when it cannot open the device; its own
    /// `error:` line on standard error is taken as [`TtsError::NoAudioDevice`].
    pub fn speak(&self, text: &str, lang: Lang) -> Result<(), TtsError> {
        let mut extra: Vec<&std::ffi::OsStr> = Vec::new();
        if let Some(d) = &self.device {
            extra.push("-d".as_ref());
            extra.push(d.as_ref());
        }
        let child = self.start(text, lang, &extra)?;
        let out = child.wait_with_output().map_err(|e| TtsError::Io {
            what: self.name(),
            source: e,
        })?;
        self.check(lang, out.status, &out.stderr)?;
        let err = String::from_utf8_lossy(&out.stderr);
        if let Some(line) = err
            .lines()
            .find(|l| l.trim_start().to_ascii_lowercase().starts_with("error"))
        {
            return Err(TtsError::NoAudioDevice {
                detail: line.trim().to_owned(),
            });
        }
        Ok(())
    }

    /// Writes `text` spoken to the WAV file `path` (`espeak-ng -w`; 16-bit
    /// mono PCM, 22 050 Hz with the standard voices).
    pub fn write_wav(&self, text: &str, lang: Lang, path: &Path) -> Result<(), TtsError> {
        let child = self.start(text, lang, &["-w".as_ref(), path.as_os_str()])?;
        let out = child.wait_with_output().map_err(|e| TtsError::Io {
            what: self.name(),
            source: e,
        })?;
        self.check(lang, out.status, &out.stderr)?;
        let len = std::fs::metadata(path)
            .map_err(|e| TtsError::Io {
                what: path.display().to_string(),
                source: e,
            })?
            .len();
        if len <= 44 {
            return Err(TtsError::BadOutput {
                program: self.name(),
                reason: format!("{}: no audio written ({len} bytes)", path.display()),
            });
        }
        Ok(())
    }

    /// Synthesises `text` (`espeak-ng --stdout`) and measures the time to
    /// the first output and to the first sound (see [`Synthesis`]).
    pub fn synthesize(&self, text: &str, lang: Lang) -> Result<Synthesis, TtsError> {
        self.synthesize_with(text, lang, false)
    }

    /// As [`Espeak::synthesize`], with `ssml` (a `<speak>` document, see
    /// [`crate::voice::Vocabulary::ssml`]) read as SSML (`-m`).
    pub fn synthesize_ssml(&self, ssml: &str, lang: Lang) -> Result<Synthesis, TtsError> {
        self.synthesize_with(ssml, lang, true)
    }

    fn synthesize_with(&self, text: &str, lang: Lang, markup: bool) -> Result<Synthesis, TtsError> {
        let started = Instant::now();
        let mut args: Vec<&std::ffi::OsStr> = vec!["--stdout".as_ref()];
        if markup {
            args.push("-m".as_ref());
        }
        let mut child = self.start(text, lang, &args)?;
        let mut stderr = child.stderr.take();
        let err_reader = std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(s) = stderr.as_mut() {
                let _ = s.read_to_end(&mut buf);
            }
            buf
        });
        let mut wav = Vec::with_capacity(64 * 1024);
        let mut first_output = None;
        let mut first_sound = None;
        let mut data_start: Option<usize> = None;
        let mut scanned = 0usize;
        let mut chunk = [0u8; 8192];
        let read_result = match child.stdout.as_mut() {
            Some(out) => loop {
                match out.read(&mut chunk) {
                    Ok(0) => break Ok(()),
                    Ok(n) => {
                        let now = started.elapsed();
                        first_output.get_or_insert(now);
                        wav.extend_from_slice(&chunk[..n]);
                        if data_start.is_none() {
                            data_start = wav_data_offset(&wav);
                            scanned = data_start.unwrap_or(0);
                        }
                        if let (Some(_), None) = (data_start, first_sound) {
                            while scanned + 2 <= wav.len() {
                                let s = i16::from_le_bytes([wav[scanned], wav[scanned + 1]]);
                                scanned += 2;
                                if s.unsigned_abs() >= SOUND_THRESHOLD.unsigned_abs() {
                                    first_sound = Some(now);
                                    break;
                                }
                            }
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => break Err(e),
                }
            },
            None => Ok(()),
        };
        let status = child.wait().map_err(|e| TtsError::Io {
            what: self.name(),
            source: e,
        })?;
        let total = started.elapsed();
        let err = err_reader.join().unwrap_or_default();
        read_result.map_err(|e| TtsError::Io {
            what: format!("{} standard output", self.name()),
            source: e,
        })?;
        self.check(lang, status, &err)?;
        let bad = |reason: &str| TtsError::BadOutput {
            program: self.name(),
            reason: reason.to_owned(),
        };
        let start = data_start.ok_or_else(|| bad("no WAV audio on standard output"))?;
        let sample_rate =
            wav_sample_rate(&wav).ok_or_else(|| bad("WAV header without a sample rate"))?;
        Ok(Synthesis {
            samples: (wav.len() - start) / 2,
            wav,
            sample_rate,
            first_output: first_output.unwrap_or(total),
            first_sound,
            total,
        })
    }
}

/// The offset of the samples in a RIFF/WAVE stream: after the `data`
/// chunk's header. `None` until the header is complete (or not a WAV).
fn wav_data_offset(b: &[u8]) -> Option<usize> {
    if b.len() < 12 || &b[0..4] != b"RIFF" || &b[8..12] != b"WAVE" {
        return None;
    }
    let mut at = 12usize;
    while at + 8 <= b.len() {
        let id = &b[at..at + 4];
        let size = u32::from_le_bytes([b[at + 4], b[at + 5], b[at + 6], b[at + 7]]) as usize;
        if id == b"data" {
            return Some(at + 8);
        }
        at = at.checked_add(8 + size + (size & 1))?;
    }
    None
}

/// The sample rate from the `fmt ` chunk.
fn wav_sample_rate(b: &[u8]) -> Option<u32> {
    let mut at = 12usize;
    while at + 8 <= b.len() {
        let size = u32::from_le_bytes([b[at + 4], b[at + 5], b[at + 6], b[at + 7]]) as usize;
        if &b[at..at + 4] == b"fmt " && at + 16 <= b.len() {
            return Some(u32::from_le_bytes([
                b[at + 12],
                b[at + 13],
                b[at + 14],
                b[at + 15],
            ]));
        }
        at = at.checked_add(8 + size + (size & 1))?;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_samples_of_a_streamed_header() {
        let mut h = Vec::new();
        h.extend_from_slice(b"RIFF\x24\xf0\xff\x7fWAVEfmt \x10\0\0\0\x01\0\x01\0\x22\x56\0\0\x44\xac\0\0\x02\0\x10\0data\0\xf0\xff\x7f");
        assert_eq!(wav_data_offset(&h), Some(44));
        assert_eq!(wav_sample_rate(&h), Some(22050));
        assert_eq!(wav_data_offset(&h[..30]), None);
        assert_eq!(wav_data_offset(b"not a wav file at all"), None);
    }

    #[test]
    fn a_missing_program_says_to_install_espeak_ng() {
        let e = Espeak::with_program("/nonexistent/espeak-ng-voice-test")
            .synthesize("Anna", Lang::Da)
            .unwrap_err();
        assert!(matches!(e, TtsError::NotInstalled { .. }), "{e:?}");
        assert!(e.to_string().contains("apt-get install espeak-ng"), "{e}");
    }

    #[test]
    fn empty_text_is_refused() {
        let e = Espeak::new().speak("  ", Lang::Da).unwrap_err();
        assert!(matches!(e, TtsError::EmptyText), "{e:?}");
    }
}
