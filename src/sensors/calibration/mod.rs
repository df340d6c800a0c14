//! Calibration and sensor health.
//!
//! Here: the data model (the calibration file, the health report); the
//! steps and who performs them in [`steps`], the flow in `flow`.
//!
//! The flow ([`calibrate`]), one prompt per step:
//! 1. **Empty board**: every sensor's resting reading. ADC boards: the
//!    baseline and the noise (max − min over the samples); digital boards:
//!    any sensor that sees a magnet here is stuck active.
//! 2. **Start position**: which sensors see a piece. ADC boards: each
//!    sensor's response to a white or a black magnet, hence the thresholds
//!    (half way from the baseline to the response) and the polarity actually
//!    seen. Sensors under a piece that do not respond are stuck, those with
//!    less than half the typical response are weak.
//! 3. **Lift the pawn from e2** (and hold it): the one sensor that goes
//!    quiet fixes the orientation. The start position's occupancy is the same
//!    when the board is turned 180° (and under a mirror), so occupancy alone
//!    cannot tell; with e2 known, exactly one of the eight symmetries of the
//!    square fits (digest §7.1b: orientation contrary to §2.1).
//! 4. **Put it back, and move every piece two ranks towards the middle**
//!    (White's to ranks 3–4, Black's to 6–5, each on its own file): the 32
//!    squares empty in the initial position now hold a piece, so every
//!    sensor is tested with a magnet (ADC boards: each its own response,
//!    hence its own thresholds), not only the 32 the initial position
//!    covers (issue 43 §5).
//! 5. **Put the pieces back**.
//!
//! The result is a [`Calibration`] file (TOML, `calibration/`). While the
//! daemon runs, [`Scanner::health`](super::Scanner::health) reports
//! flickering, railed or drifting sensors.

use serde::{Deserialize, Serialize};
use shakmaty::Square;
use std::path::Path;

mod flow;
mod steps;

pub use crate::board::Orientation;
pub use flow::{calibrate, MIDDLE_RANKS, MIDDLE_WHITE};
pub use steps::{Operator, Step, TerminalOperator};

/// What is wrong with a sensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IssueKind {
    /// Reads the same with and without a piece (dead, shorted, at a rail,
    /// or a digital sensor stuck active / inactive).
    Stuck,
    /// Responds, but with less than half the typical signal (sensor too deep,
    /// magnet weak): misreadings likely.
    Weak,
    /// Changes while nothing moves.
    Noisy,
    /// Reads the opposite colour (magnet upside down, or sensor reversed).
    Reversed,
    /// An empty square's reading moved away from its baseline (temperature,
    /// a stray magnet): recalibrate.
    Drift,
}

/// One finding of a health check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SensorIssue {
    /// Sensor index (hw map order).
    pub sensor: u8,
    /// The square it watches (after orientation).
    pub square: String,
    /// What is wrong.
    pub kind: IssueKind,
    /// Numbers for people.
    pub detail: String,
}

impl SensorIssue {
    /// An issue of `sensor` on `square`.
    pub fn new(sensor: u8, square: Square, kind: IssueKind, detail: String) -> SensorIssue {
        SensorIssue {
            sensor,
            square: square.to_string(),
            kind,
            detail,
        }
    }
}

/// The sensors' health.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct HealthReport {
    /// Findings, by sensor.
    #[serde(default)]
    pub issues: Vec<SensorIssue>,
    /// Squares whose response to a piece could not be tested (empty in the
    /// start position).
    #[serde(default)]
    pub untested: Vec<String>,
}

impl HealthReport {
    /// No stuck, weak, reversed or noisy sensor.
    pub fn is_healthy(&self) -> bool {
        self.issues.is_empty()
    }

    /// The issues of one kind.
    pub fn of(&self, kind: IssueKind) -> impl Iterator<Item = &SensorIssue> {
        self.issues.iter().filter(move |i| i.kind == kind)
    }

    /// One line per issue.
    pub fn describe(&self) -> String {
        if self.issues.is_empty() {
            return "all sensors healthy".to_owned();
        }
        self.issues
            .iter()
            .map(|i| {
                format!(
                    "{:?} sensor {} ({}): {}",
                    i.kind, i.sensor, i.square, i.detail
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// ADC thresholds, per sensor (sensor-index order, 64 each).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalogCal {
    /// White pieces read below the baseline (as seen, not as declared).
    pub white_reads_low: bool,
    /// Empty-square reading, ADC code.
    pub baseline: Vec<u16>,
    /// Below this: a piece of the low polarity.
    pub low: Vec<u16>,
    /// Above this: a piece of the high polarity.
    pub high: Vec<u16>,
    /// Peak-to-peak noise on the empty board, ADC codes.
    pub noise: Vec<u16>,
}

impl AnalogCal {
    fn arr(v: &[u16]) -> [u16; 64] {
        std::array::from_fn(|i| v.get(i).copied().unwrap_or(0))
    }
    /// Baselines as an array.
    pub fn baseline_array(&self) -> [u16; 64] {
        Self::arr(&self.baseline)
    }
    /// Low thresholds as an array.
    pub fn low_array(&self) -> [u16; 64] {
        Self::arr(&self.low)
    }
    /// High thresholds as an array.
    pub fn high_array(&self) -> [u16; 64] {
        Self::arr(&self.high)
    }
}

/// A calibration file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Calibration {
    /// The hw design's name.
    pub design: String,
    /// How the hw map's squares turn into the game's.
    pub orientation: Orientation,
    /// Samples averaged per step.
    pub samples: u32,
    /// ADC boards: thresholds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analog: Option<AnalogCal>,
    /// What the calibration found.
    #[serde(default)]
    pub health: HealthReport,
}

impl Calibration {
    /// Reads a calibration file; errors name the file and key.
    pub fn load(path: &Path) -> Result<Calibration, CalError> {
        let shown = path.display().to_string();
        let text =
            std::fs::read_to_string(path).map_err(|e| CalError::Io(format!("{shown}: {e}")))?;
        let c: Calibration = toml::from_str(&text)
            .map_err(|e| CalError::File(format!("{shown}: {}", e.message())))?;
        if let Some(a) = &c.analog {
            for (k, v) in [
                ("baseline", &a.baseline),
                ("low", &a.low),
                ("high", &a.high),
                ("noise", &a.noise),
            ] {
                if v.len() != 64 {
                    return Err(CalError::File(format!(
                        "{shown}: key 'analog.{k}': {} values, 64 needed",
                        v.len()
                    )));
                }
            }
        }
        Ok(c)
    }

    /// The file's text.
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).unwrap_or_default();
        format!("# eboard calibration (written by `eboard calibrate`); sensor-index order\n{body}")
    }
}

/// Why a calibration failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CalError {
    /// Reading the sensors failed.
    #[error("sensor read failed: {0}")]
    Sensor(String),
    /// The terminal or a file.
    #[error("{0}")]
    Io(String),
    /// A calibration file is malformed.
    #[error("{0}")]
    File(String),
    /// What the sensors showed does not fit the step.
    #[error("{0}")]
    Unexpected(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orientations_are_symmetries_with_inverses() {
        for o in Orientation::ALL {
            let mut seen = 0u64;
            for i in 0..64 {
                let s = Square::new(i);
                seen |= 1 << o.apply(s) as u32;
                assert_eq!(o.inverse().apply(o.apply(s)), s, "{o:?}");
            }
            assert_eq!(seen, !0);
        }
        assert_eq!(Orientation::Rot180.apply(Square::E2), Square::D7);
        assert_eq!(Orientation::FlipFiles.apply(Square::E2), Square::D2);
    }
}
