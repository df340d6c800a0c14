//! One audio output per listener (issue 14 item 6): each player hears the
//! announcements meant for him in his own headphones — two ALSA devices
//! (two USB headsets), or one stereo device split left and right — with his
//! own speed, volume and voice variant; the arbiter's device, when there is
//! one, hears everything.
//!
//! An announcement is synthesised once per listener (espeak-ng `--stdout`,
//! 16-bit mono), scaled to his volume and placed on his channels of a
//! 16-bit stereo WAV per device; every device's WAV is played by `aplay
//! -D DEVICE` (package `alsa-utils`) at once. The real length of the speech
//! is the longest device's audio (frames / rate): E2.3c's "announced"
//! instant is its start plus this length.

use super::tts::{Espeak, TtsError};
use super::Lang;
use shakmaty::Color;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::str::FromStr;
use std::time::{Duration, Instant};

/// Which channels of a stereo device a listener hears on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Channel {
    /// Both (a device of his own).
    #[default]
    Both,
    /// The left channel (a stereo pair shared with the other player).
    Left,
    /// The right channel.
    Right,
}

impl Channel {
    fn left(self) -> bool {
        self != Channel::Right
    }
    fn right(self) -> bool {
        self != Channel::Left
    }
}

impl FromStr for Channel {
    type Err = String;
    fn from_str(s: &str) -> Result<Channel, String> {
        match s {
            "both" => Ok(Channel::Both),
            "left" => Ok(Channel::Left),
            "right" => Ok(Channel::Right),
            _ => Err(format!("\"{s}\" is not one of both, left, right")),
        }
    }
}

/// One listener's output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listener {
    /// The ALSA device (`aplay -D`, e.g. `plughw:CARD=Headset,DEV=0`);
    /// `None`: the default device.
    pub device: Option<String>,
    /// The channels he hears on.
    pub channel: Channel,
    /// Speed, words per minute (espeak-ng `-s`; default 175).
    pub speed_wpm: Option<u32>,
    /// Volume in per cent of espeak-ng's level, 0 to 200 (samples scaled,
    /// clipped at full scale).
    pub volume_percent: u32,
    /// espeak-ng voice variant (`f3`, `m2`, …) added to the game's voice.
    pub variant: Option<String>,
}

impl Default for Listener {
    fn default() -> Listener {
        Listener {
            device: None,
            channel: Channel::Both,
            speed_wpm: None,
            volume_percent: 100,
            variant: None,
        }
    }
}

/// Who listens where: the two players and, optionally, the arbiter.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Routing {
    /// White's output.
    pub white: Listener,
    /// Black's output.
    pub black: Listener,
    /// The arbiter's output (hears every announcement on both channels).
    pub arbiter: Option<Listener>,
}

/// One announcement to play: the `announce` event's fields.
#[derive(Debug, Clone, Copy)]
pub struct Utterance<'a> {
    /// The phrase.
    pub text: &'a str,
    /// Its SSML when it mixes languages (spoken instead of `text`).
    pub ssml: Option<&'a str>,
    /// The game's language.
    pub lang: Lang,
    /// The one player it is for; `None`: both.
    pub to: Option<Color>,
}

/// A listener of an output: one of the players, or the arbiter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ear {
    /// A player (his own output, or his channel of a shared one).
    Player(Color),
    /// The arbiter's output.
    Arbiter,
}

/// The audio of one device: a 16-bit stereo WAV.
#[derive(Debug, Clone)]
pub struct DeviceAudio {
    /// The device (`None`: default).
    pub device: Option<String>,
    /// The WAV file's bytes.
    pub wav: Vec<u8>,
    /// Its length.
    pub length: Duration,
    /// Who hears it on this device, each with the length of his own audio
    /// (his speed; at most [`DeviceAudio::length`]).
    pub ears: Vec<(Ear, Duration)>,
}

/// One device's end of playing an announcement ([`Routing::play_each`]).
#[derive(Debug)]
pub struct Played<'a> {
    /// What was played.
    pub audio: &'a DeviceAudio,
    /// `Ok` when the player program exited successfully (its audio has
    /// been played: `aplay` drains the device before it exits); the error
    /// otherwise (the program missing, the device refused).
    pub result: Result<(), TtsError>,
    /// When the player program exited.
    pub at: Instant,
}

impl Played<'_> {
    /// When `ear` heard the end of his audio on this device: the device's
    /// end less the silence after his own audio (his channel of a device
    /// shared with a slower listener ends earlier). `None` when he does not
    /// listen here or the device failed.
    pub fn heard_at(&self, ear: Ear) -> Option<Instant> {
        if self.result.is_err() {
            return None;
        }
        let (_, own) = self.audio.ears.iter().find(|(e, _)| *e == ear)?;
        let after = self.audio.length.saturating_sub(*own);
        Some(self.at.checked_sub(after).unwrap_or(self.at))
    }
}

impl Routing {
    /// The listeners of `to` with the channel each hears on (the arbiter:
    /// both).
    fn hearers(&self, to: Option<Color>) -> Vec<(&Listener, Channel, Ear)> {
        let mut v = Vec::with_capacity(3);
        if to != Some(Color::Black) {
            v.push((&self.white, self.white.channel, Ear::Player(Color::White)));
        }
        if to != Some(Color::White) {
            v.push((&self.black, self.black.channel, Ear::Player(Color::Black)));
        }
        if let Some(a) = &self.arbiter {
            v.push((a, Channel::Both, Ear::Arbiter));
        }
        v
    }

    /// Renders `u` for every device that has a listener of it (devices in
    /// the order white, black, arbiter). Each listener's speech is
    /// synthesised at once (one espeak-ng per listener, in parallel).
    pub fn render(&self, tts: &Espeak, u: &Utterance<'_>) -> Result<Vec<DeviceAudio>, TtsError> {
        let hearers = self.hearers(u.to);
        let synthesised: Vec<Result<_, TtsError>> = std::thread::scope(|scope| {
            let jobs: Vec<_> = hearers
                .iter()
                .map(|(l, _, _)| {
                    let mut e = tts.clone();
                    e.speed_wpm = l.speed_wpm.or(tts.speed_wpm);
                    e.variant = l.variant.clone().or_else(|| tts.variant.clone());
                    scope.spawn(move || match u.ssml {
                        Some(m) => e.synthesize_ssml(m, u.lang),
                        None => e.synthesize(u.text, u.lang),
                    })
                })
                .collect();
            jobs.into_iter()
                .map(|j| {
                    j.join().unwrap_or_else(|_| {
                        Err(TtsError::BadOutput {
                            program: "espeak-ng".into(),
                            reason: "the synthesis thread panicked".into(),
                        })
                    })
                })
                .collect()
        });
        // Per device: its listeners' samples with their channels, the rate.
        type Parts = Vec<(Vec<i16>, Channel, Ear)>;
        let mut devices: Vec<(Option<String>, Parts, u32)> = Vec::new();
        for ((l, channel, ear), syn) in hearers.into_iter().zip(synthesised) {
            let syn = syn?;
            let gain = f64::from(l.volume_percent.min(200)) / 100.0;
            let pcm: Vec<i16> = syn
                .pcm()
                .into_iter()
                .map(|s| (f64::from(s) * gain).round().clamp(-32768.0, 32767.0) as i16)
                .collect();
            match devices.iter_mut().find(|d| d.0 == l.device) {
                Some(d) => d.1.push((pcm, channel, ear)),
                None => {
                    devices.push((l.device.clone(), vec![(pcm, channel, ear)], syn.sample_rate))
                }
            }
        }
        let secs = |frames: usize, rate: u32| {
            if rate == 0 {
                Duration::ZERO
            } else {
                Duration::from_secs_f64(frames as f64 / f64::from(rate))
            }
        };
        Ok(devices
            .into_iter()
            .map(|(device, parts, rate)| {
                let frames = parts.iter().map(|p| p.0.len()).max().unwrap_or(0);
                let mut lr = vec![[0i32; 2]; frames];
                for (pcm, ch, _) in &parts {
                    for (i, s) in pcm.iter().enumerate() {
                        if ch.left() {
                            lr[i][0] += i32::from(*s);
                        }
                        if ch.right() {
                            lr[i][1] += i32::from(*s);
                        }
                    }
                }
                DeviceAudio {
                    device,
                    wav: stereo_wav(&lr, rate),
                    length: secs(frames, rate),
                    ears: parts
                        .iter()
                        .map(|(pcm, _, ear)| (*ear, secs(pcm.len(), rate)))
                        .collect(),
                }
            })
            .collect())
    }

    /// Renders `u` and plays it on every device at once with `aplay`;
    /// returns when all have finished, with the speech's real length (the
    /// longest device's audio), or the first error.
    pub fn play(&self, tts: &Espeak, u: &Utterance<'_>) -> Result<Duration, TtsError> {
        self.play_each(tts, u, |_| {})
    }

    /// Renders `u` and plays it on every device in parallel: one `aplay`
    /// per device, all started together, each fed by a thread of its own
    /// (so no device waits for another's audio to be consumed: issue 29);
    /// `done` is called as each device finishes, in the order they finish
    /// (each listener's own instant: [`Played::heard_at`]). Returns when
    /// all have finished: the longest device's length, or the first error
    /// (every device is still played and reported).
    pub fn play_each(
        &self,
        tts: &Espeak,
        u: &Utterance<'_>,
        done: impl FnMut(Played<'_>),
    ) -> Result<Duration, TtsError> {
        let audio = self.render(tts, u)?;
        play_rendered(&audio, done)
    }
}

/// Plays rendered audio ([`Routing::render`]) on every device in parallel,
/// as [`Routing::play_each`] does.
pub fn play_rendered(
    audio: &[DeviceAudio],
    done: impl FnMut(Played<'_>),
) -> Result<Duration, TtsError> {
    play_rendered_until(audio, done, || false)
}

/// [`play_rendered`], stopped early when `interrupt` (asked every 10 ms)
/// says so: the players still playing are ended (SIGTERM) and reported
/// with [`TtsError::Interrupted`] (an answer on demand cut short by the
/// next event or a new query, issue 29).
pub fn play_rendered_until(
    audio: &[DeviceAudio],
    mut done: impl FnMut(Played<'_>),
    mut interrupt: impl FnMut() -> bool,
) -> Result<Duration, TtsError> {
    let mut first_err: Option<TtsError> = None;
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Result<(), TtsError>, Instant)>();
        // Every player program first, then their feeding: the outputs
        // start together.
        let children: Vec<_> = audio.iter().map(aplay_start).collect();
        let pids: Vec<Option<u32>> = children
            .iter()
            .map(|c| c.as_ref().ok().map(std::process::Child::id))
            .collect();
        for (i, (child, a)) in children.into_iter().zip(audio).enumerate() {
            let tx = tx.clone();
            scope.spawn(move || {
                let r = child.and_then(|c| aplay_feed(c, a));
                let _ = tx.send((i, r, Instant::now()));
            });
        }
        drop(tx);
        let mut finished = vec![false; audio.len()];
        let mut stopped = false;
        loop {
            let (i, result, at) = match rx.recv_timeout(Duration::from_millis(10)) {
                Ok(x) => x,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    if !stopped && interrupt() {
                        stopped = true;
                        for (pid, f) in pids.iter().zip(&finished) {
                            if let (Some(pid), false) = (pid, f) {
                                // SAFETY: kill(2) on a child not yet reaped
                                // (its feeder thread waits for it).
                                unsafe { libc::kill(*pid as libc::pid_t, libc::SIGTERM) };
                            }
                        }
                    }
                    continue;
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            };
            finished[i] = true;
            let result = match result {
                Err(_) if stopped => Err(TtsError::Interrupted),
                r => r,
            };
            if let Err(e) = &result {
                first_err.get_or_insert_with(|| e.duplicate());
            }
            done(Played {
                audio: &audio[i],
                result,
                at,
            });
        }
    });
    match first_err {
        Some(e) => Err(e),
        None => Ok(audio.iter().map(|a| a.length).max().unwrap_or_default()),
    }
}

/// Starts `aplay` on the device, reading a WAV from its standard input.
fn aplay_start(a: &DeviceAudio) -> Result<std::process::Child, TtsError> {
    let mut cmd = Command::new("aplay");
    cmd.arg("-q");
    if let Some(d) = &a.device {
        cmd.arg("-D").arg(d);
    }
    cmd.arg("-t")
        .arg("wav")
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    cmd.spawn().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            TtsError::NotInstalled {
                program: "aplay".into(),
            }
        } else {
            TtsError::Io {
                what: "aplay".into(),
                source: e,
            }
        }
    })
}

/// Feeds the WAV to a started `aplay` and waits for it to have played it.
fn aplay_feed(mut child: std::process::Child, a: &DeviceAudio) -> Result<(), TtsError> {
    let device = a.device.as_deref().unwrap_or("default");
    if let Some(mut stdin) = child.stdin.take() {
        // A player that refused the device exits early: the broken pipe is
        // reported with its own message below.
        let _ = stdin.write_all(&a.wav);
    }
    let out = child.wait_with_output().map_err(|e| TtsError::Io {
        what: format!("aplay -D {device}"),
        source: e,
    })?;
    if out.status.success() {
        Ok(())
    } else {
        Err(TtsError::NoAudioDevice {
            detail: format!(
                "aplay -D {device}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        })
    }
}

/// A 16-bit stereo PCM WAV of `frames` ([left, right], clipped) at `rate`.
pub fn stereo_wav(frames: &[[i32; 2]], rate: u32) -> Vec<u8> {
    let data_len = (frames.len() * 4) as u32;
    let mut w = Vec::with_capacity(44 + frames.len() * 4);
    w.extend_from_slice(b"RIFF");
    w.extend_from_slice(&(36 + data_len).to_le_bytes());
    w.extend_from_slice(b"WAVEfmt ");
    w.extend_from_slice(&16u32.to_le_bytes());
    w.extend_from_slice(&1u16.to_le_bytes()); // PCM
    w.extend_from_slice(&2u16.to_le_bytes()); // channels
    w.extend_from_slice(&rate.to_le_bytes());
    w.extend_from_slice(&(rate * 4).to_le_bytes()); // bytes per second
    w.extend_from_slice(&4u16.to_le_bytes()); // block align
    w.extend_from_slice(&16u16.to_le_bytes()); // bits per sample
    w.extend_from_slice(b"data");
    w.extend_from_slice(&data_len.to_le_bytes());
    for [l, r] in frames {
        for s in [l, r] {
            let s = (*s).clamp(-32768, 32767) as i16;
            w.extend_from_slice(&s.to_le_bytes());
        }
    }
    w
}

impl DeviceAudio {
    /// Writes the WAV to `path`.
    pub fn write(&self, path: &Path) -> Result<(), TtsError> {
        std::fs::write(path, &self.wav).map_err(|e| TtsError::Io {
            what: path.display().to_string(),
            source: e,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stereo_header_is_well_formed() {
        let w = stereo_wav(&[[1, -1], [40_000, -40_000]], 22_050);
        assert_eq!(w.len(), 44 + 8);
        assert_eq!(&w[0..4], b"RIFF");
        assert_eq!(u32::from_le_bytes([w[24], w[25], w[26], w[27]]), 22_050);
        // Clipped at full scale.
        assert_eq!(i16::from_le_bytes([w[48], w[49]]), 32767);
        assert_eq!(i16::from_le_bytes([w[50], w[51]]), -32768);
    }

    #[test]
    fn who_hears_what() {
        let r = Routing {
            white: Listener {
                channel: Channel::Left,
                ..Listener::default()
            },
            black: Listener {
                channel: Channel::Right,
                ..Listener::default()
            },
            arbiter: Some(Listener {
                device: Some("arbiter".into()),
                ..Listener::default()
            }),
        };
        assert_eq!(r.hearers(None).len(), 3);
        let to_black = r.hearers(Some(Color::Black));
        assert_eq!(to_black.len(), 2);
        assert_eq!(to_black[0].1, Channel::Right);
        assert_eq!(to_black[1].1, Channel::Both);
        assert_eq!("left".parse::<Channel>(), Ok(Channel::Left));
        assert!("middle"
            .parse::<Channel>()
            .unwrap_err()
            .contains("both, left, right"));
    }
}
