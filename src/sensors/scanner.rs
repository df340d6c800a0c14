//! The scanner: read the sensor array, classify (active level or
//! calibrated ADC thresholds), map sensor indices to squares, debounce, and
//! hand out the changes as trace records at the injected time `t` (ms).
//!
//! Nothing here allocates after construction: [`Scanner::scan`] returns a
//! [`Changes`] value (bitboards) that iterates into records.

use super::calibration::{Calibration, HealthReport, IssueKind, Orientation, SensorIssue};
use super::debounce::{Changes, Debouncer, Sample, DEFAULT_DEBOUNCE};
use super::hw::HwDesign;
use super::mcp3008::FULL_SCALE;
use super::{RawScan, ReadingKind, SensorArray};
use crate::trace::BoardId;
use shakmaty::Square;

/// Default scan rate, Hz.
pub const DEFAULT_RATE_HZ: u32 = 100;

/// Scan rate and debounce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScannerConfig {
    /// Scans per second (default 100).
    pub rate_hz: u32,
    /// Consecutive equal scans before a square changes (default 3).
    pub debounce: u8,
}

impl Default for ScannerConfig {
    fn default() -> Self {
        ScannerConfig {
            rate_hz: DEFAULT_RATE_HZ,
            debounce: DEFAULT_DEBOUNCE,
        }
    }
}

impl ScannerConfig {
    /// The scan period, ms (at least 1).
    pub fn period_ms(&self) -> u64 {
        (1000 / u64::from(self.rate_hz.max(1))).max(1)
    }
}

/// Why a scanner cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScannerError {
    /// ADC boards need thresholds.
    #[error("{0}: a colour-sensing (ADC) board needs a calibration file (eboard calibrate)")]
    NeedsCalibration(String),
    /// The calibration was made for another design.
    #[error("calibration is for design '{found}', the hw file is '{expected}'")]
    WrongDesign {
        /// The hw file's design name.
        expected: String,
        /// The calibration's.
        found: String,
    },
    /// The driver reads another kind than the design says.
    #[error("the driver reads {found:?} values, the design needs {expected:?}")]
    WrongDriver {
        /// What the design needs.
        expected: ReadingKind,
        /// What the driver reads.
        found: ReadingKind,
    },
}

// One per scanner; boxing the thresholds would add an indirection per scan.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
enum Classifier {
    Digital {
        /// XOR mask making 1 = magnet.
        invert: u64,
    },
    Analog {
        low: [u16; 64],
        high: [u16; 64],
        baseline: [u16; 64],
        white_low: bool,
    },
}

/// Turns scans of one board into debounced changes.
#[derive(Debug)]
pub struct Scanner<A> {
    array: A,
    raw: RawScan,
    classifier: Classifier,
    /// Sensor index → square (hw map, then calibrated orientation).
    map: [u8; 64],
    identity: bool,
    debouncer: Debouncer,
    board: BoardId,
    config: ScannerConfig,
    /// Analog: scans with a code at either rail (0 or 1023), per sensor.
    rail: [u16; 64],
    scans: u64,
}

impl<A: SensorArray> Scanner<A> {
    /// A scanner for `design` read through `array`; `calibration` sets the
    /// orientation (and, for ADC boards, the thresholds: required there);
    /// `initial` is what the board is expected to show at the start (changes
    /// are reported against it; see [`Sample::from_board`]).
    pub fn new(
        array: A,
        design: &HwDesign,
        calibration: Option<&Calibration>,
        config: ScannerConfig,
        initial: Sample,
    ) -> Result<Scanner<A>, ScannerError> {
        let expected = if design.is_analog() {
            ReadingKind::Analog
        } else {
            ReadingKind::Digital
        };
        if array.kind() != expected {
            return Err(ScannerError::WrongDriver {
                expected,
                found: array.kind(),
            });
        }
        if let Some(c) = calibration {
            if c.design != design.name {
                return Err(ScannerError::WrongDesign {
                    expected: design.name.clone(),
                    found: c.design.clone(),
                });
            }
        }
        let orientation = calibration.map_or(Orientation::Identity, |c| c.orientation);
        let map: [u8; 64] = std::array::from_fn(|i| orientation.apply(design.map[i]) as u8);
        let identity = map.iter().enumerate().all(|(i, &s)| i == s as usize);
        let classifier = match design.bus.active_low() {
            Some(active_low) => Classifier::Digital {
                invert: if active_low { !0 } else { 0 },
            },
            None => {
                let a = calibration
                    .and_then(|c| c.analog.as_ref())
                    .ok_or_else(|| ScannerError::NeedsCalibration(design.shown()))?;
                Classifier::Analog {
                    low: a.low_array(),
                    high: a.high_array(),
                    baseline: a.baseline_array(),
                    white_low: a.white_reads_low,
                }
            }
        };
        let colour = matches!(classifier, Classifier::Analog { .. });
        Ok(Scanner {
            array,
            raw: RawScan::default(),
            classifier,
            map,
            identity,
            debouncer: Debouncer::new(initial, config.debounce, colour),
            board: design.board,
            config,
            rail: [0; 64],
            scans: 0,
        })
    }

    /// Configures the chips (call once before scanning).
    pub fn init(&mut self) -> Result<(), A::Error> {
        self.array.init()
    }

    /// The scan period, ms.
    pub fn period_ms(&self) -> u64 {
        self.config.period_ms()
    }

    /// The configuration.
    pub fn config(&self) -> ScannerConfig {
        self.config
    }

    /// The driver (e.g. to reach a simulated bus).
    pub fn array_mut(&mut self) -> &mut A {
        &mut self.array
    }

    /// The last raw scan.
    pub fn raw(&self) -> &RawScan {
        &self.raw
    }

    /// The debounced state.
    pub fn stable(&self) -> Sample {
        self.debouncer.stable()
    }

    /// Squares whose change awaits more equal scans.
    pub fn pending(&self) -> u64 {
        self.debouncer.pending()
    }

    /// Sets the debounced state without records (e.g. to the first scan).
    pub fn reset(&mut self, s: Sample) {
        self.debouncer.reset(s);
    }

    /// Reads and classifies one scan, without debounce.
    pub fn sample(&mut self) -> Result<Sample, A::Error> {
        self.array.read(&mut self.raw)?;
        self.scans += 1;
        let (present, white) = match &self.classifier {
            Classifier::Digital { invert } => (self.raw.bits ^ invert, 0),
            Classifier::Analog {
                low,
                high,
                white_low,
                ..
            } => {
                let (mut lo, mut hi) = (0u64, 0u64);
                for i in 0..64 {
                    let v = self.raw.levels[i];
                    lo |= u64::from(v < low[i]) << i;
                    hi |= u64::from(v > high[i]) << i;
                    if v == 0 || v >= FULL_SCALE {
                        self.rail[i] = self.rail[i].saturating_add(1);
                    }
                }
                (lo | hi, if *white_low { lo } else { hi })
            }
        };
        Ok(Sample {
            occupied: self.to_squares(present),
            white: if white == 0 {
                0
            } else {
                self.to_squares(white)
            },
        })
    }

    fn to_squares(&self, bits: u64) -> u64 {
        if self.identity {
            return bits;
        }
        let mut out = 0u64;
        let mut m = bits;
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            out |= 1 << self.map[i];
        }
        out
    }

    /// One scan at time `t` (ms): read, classify, map, debounce. The
    /// returned changes iterate into lift / place records stamped `t`.
    pub fn scan(&mut self, t: u64) -> Result<Changes, A::Error> {
        let s = self.sample()?;
        Ok(self.debouncer.update(t, self.board, s))
    }

    /// Sensor health while running: squares that flickered at least
    /// `flicker_limit` times (runs abandoned by the debounce), ADC sensors
    /// that hit a rail, and ADC sensors on squares the board shows empty
    /// whose last reading drifted more than half way to a threshold.
    /// Cheap enough to call every few seconds.
    pub fn health(&self, flicker_limit: u16) -> HealthReport {
        let mut r = HealthReport::default();
        let sensor_of = |sq: u8| self.map.iter().position(|&s| s == sq).unwrap_or(0) as u8;
        for (sq, &n) in self.debouncer.flicker().iter().enumerate() {
            if n >= flicker_limit {
                r.issues.push(SensorIssue::new(
                    sensor_of(sq as u8),
                    Square::new(sq as u32),
                    IssueKind::Noisy,
                    format!("{n} flickers since the last check"),
                ));
            }
        }
        if let Classifier::Analog {
            low,
            high,
            baseline,
            ..
        } = &self.classifier
        {
            let occupied = self.debouncer.stable().occupied;
            for i in 0..64 {
                let sq = self.map[i];
                if self.rail[i] > 0 {
                    r.issues.push(SensorIssue::new(
                        i as u8,
                        Square::new(u32::from(sq)),
                        IssueKind::Stuck,
                        format!("ADC code at a rail in {} scans", self.rail[i]),
                    ));
                } else if occupied >> sq & 1 == 0 && self.scans > 0 {
                    let v = i32::from(self.raw.levels[i]);
                    let b = i32::from(baseline[i]);
                    let half_lo = (b - i32::from(low[i])) / 2;
                    let half_hi = (i32::from(high[i]) - b) / 2;
                    if v < b - half_lo || v > b + half_hi {
                        r.issues.push(SensorIssue::new(
                            i as u8,
                            Square::new(u32::from(sq)),
                            IssueKind::Drift,
                            format!("empty square reads {v}, baseline {b}: recalibrate"),
                        ));
                    }
                }
            }
        }
        r
    }

    /// Zeroes the flicker and rail counters (after a health check).
    pub fn clear_health(&mut self) {
        self.debouncer.clear_flicker();
        self.rail = [0; 64];
    }
}
