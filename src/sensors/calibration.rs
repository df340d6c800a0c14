//! Calibration and sensor health.
//!
//! Length: one file because the calibration flow, its file format and the
//! health report share one data model; about a fifth is tests.
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
//! 4. **Put it back**.
//!
//! The result is a [`Calibration`] file (TOML, `calibration/`). While the
//! daemon runs, [`Scanner::health`](super::Scanner::health) reports
//! flickering, railed or drifting sensors.

use super::hw::HwDesign;
use super::mcp3008::FULL_SCALE;
use super::{RawScan, ReadingKind, SensorArray};
use serde::{Deserialize, Serialize};
use shakmaty::{Board, Square};
use std::io::{BufRead, Write};
use std::path::Path;

pub use crate::board::Orientation;

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

/// A calibration step: what the operator is asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Remove every piece.
    EmptyBoard,
    /// Set up the initial position, White at the near side.
    StartPosition,
    /// Lift the white pawn from e2 and hold it above the board.
    LiftE2,
    /// Put the pawn back on e2.
    Done,
}

impl Step {
    /// The instruction shown on the terminal.
    pub fn instruction(self) -> &'static str {
        match self {
            Step::EmptyBoard => "Remove every piece from the board, then press Enter.",
            Step::StartPosition => {
                "Set up the initial position (White on ranks 1-2, as you will play), then press Enter."
            }
            Step::LiftE2 => {
                "Lift the white pawn from e2 (the king's pawn) and hold it well above the board, then press Enter."
            }
            Step::Done => "Put the pawn back on e2. Calibration done.",
        }
    }
}

/// Who carries out the steps: a person at a terminal, or a simulated board.
pub trait Operator {
    /// Carries out `step`; returns when the board shows it.
    fn perform(&mut self, step: Step) -> Result<(), CalError>;
}

/// Prompts on a terminal and waits for Enter.
pub struct TerminalOperator<R, W> {
    input: R,
    output: W,
}

impl<R: BufRead, W: Write> TerminalOperator<R, W> {
    /// Prompts on `output`, reads Enter from `input`.
    pub fn new(input: R, output: W) -> Self {
        TerminalOperator { input, output }
    }
}

impl<R: BufRead, W: Write> Operator for TerminalOperator<R, W> {
    fn perform(&mut self, step: Step) -> Result<(), CalError> {
        let io = |e: std::io::Error| CalError::Io(format!("terminal: {e}"));
        writeln!(self.output, "{}", step.instruction()).map_err(io)?;
        self.output.flush().map_err(io)?;
        if step != Step::Done {
            let mut line = String::new();
            if self.input.read_line(&mut line).map_err(io)? == 0 {
                return Err(CalError::Io("terminal: input closed".to_owned()));
            }
        }
        Ok(())
    }
}

/// Per-sensor statistics over the samples of one step.
struct Stats {
    active: [u32; 64],
    min: [u16; 64],
    max: [u16; 64],
    sum: [u32; 64],
    n: u32,
}

fn take<A: SensorArray>(array: &mut A, n: u32) -> Result<Stats, CalError> {
    let mut s = Stats {
        active: [0; 64],
        min: [u16::MAX; 64],
        max: [0; 64],
        sum: [0; 64],
        n,
    };
    let mut raw = RawScan::default();
    for _ in 0..n {
        array
            .read(&mut raw)
            .map_err(|e| CalError::Sensor(format!("{e:?}")))?;
        for i in 0..64 {
            s.active[i] += (raw.bits >> i & 1) as u32;
            let v = raw.levels[i];
            s.min[i] = s.min[i].min(v);
            s.max[i] = s.max[i].max(v);
            s.sum[i] += u32::from(v);
        }
    }
    Ok(s)
}

impl Stats {
    fn mean(&self, i: usize) -> i32 {
        (self.sum[i] / self.n.max(1)) as i32
    }
    /// Digital: the sensor saw a magnet in most samples (after `invert`).
    fn magnet(&self, i: usize, active_low: bool) -> bool {
        let high = self.active[i] * 2 > self.n;
        high != active_low
    }
    fn flickers(&self, i: usize) -> bool {
        self.active[i] != 0 && self.active[i] != self.n
    }
}

fn median(mut v: Vec<i32>) -> i32 {
    if v.is_empty() {
        return 0;
    }
    v.sort_unstable();
    v[v.len() / 2]
}

/// Runs the calibration flow on `array` for `design`, taking `samples`
/// reads per step (50 at 100 Hz is half a second).
pub fn calibrate<A: SensorArray>(
    array: &mut A,
    design: &HwDesign,
    operator: &mut dyn Operator,
    samples: u32,
) -> Result<Calibration, CalError> {
    let samples = samples.max(1);
    array
        .init()
        .map_err(|e| CalError::Sensor(format!("init: {e:?}")))?;
    let analog = array.kind() == ReadingKind::Analog;
    let active_low = design.bus.active_low().unwrap_or(false);
    let mut issues: Vec<(u8, IssueKind, String)> = Vec::new();

    operator.perform(Step::EmptyBoard)?;
    let empty = take(array, samples)?;
    operator.perform(Step::StartPosition)?;
    let start = take(array, samples)?;
    operator.perform(Step::LiftE2)?;
    let lifted = take(array, samples)?;
    operator.perform(Step::Done)?;

    // Which sensors see a piece, in each step.
    let (present_start, present_lifted, m_abs);
    if analog {
        let delta = |s: &Stats, i: usize| s.mean(i) - empty.mean(i);
        let mut mags: Vec<i32> = (0..64).map(|i| delta(&start, i).abs()).collect();
        mags.sort_unstable_by(|a, b| b.cmp(a));
        // Typical response: the median of the 32 strongest (the pieces).
        m_abs = mags[15].max(1);
        let on = |s: &Stats, i: usize| delta(s, i).abs() * 4 > m_abs;
        present_start = (0..64).fold(0u64, |a, i| a | u64::from(on(&start, i)) << i);
        present_lifted = (0..64).fold(0u64, |a, i| a | u64::from(on(&lifted, i)) << i);
        for i in 0..64 {
            let e = empty.mean(i);
            if e <= 2 || e >= i32::from(FULL_SCALE) - 2 {
                issues.push((
                    i as u8,
                    IssueKind::Stuck,
                    format!("empty board reads {e} (a rail)"),
                ));
            }
        }
    } else {
        m_abs = 0;
        present_start = (0..64).fold(0u64, |a, i| a | u64::from(start.magnet(i, active_low)) << i);
        present_lifted = (0..64).fold(0u64, |a, i| {
            a | u64::from(lifted.magnet(i, active_low)) << i
        });
        for i in 0..64 {
            if empty.magnet(i, active_low) {
                issues.push((
                    i as u8,
                    IssueKind::Stuck,
                    "sees a magnet on the empty board".into(),
                ));
            } else if empty.flickers(i) || start.flickers(i) {
                issues.push((
                    i as u8,
                    IssueKind::Noisy,
                    "changes while nothing moves".into(),
                ));
            }
        }
    }

    // The lifted pawn.
    let went = present_start & !present_lifted;
    let came = present_lifted & !present_start;
    if went.count_ones() != 1 || came != 0 {
        return Err(CalError::Unexpected(format!(
            "lifting the pawn from e2 changed {} sensor(s) off and {} on: one sensor should go off. \
             Lift only that pawn and hold it well away from the board",
            went.count_ones(),
            came.count_ones()
        )));
    }
    let e2_sensor = went.trailing_zeros() as usize;
    let sensed_sq = |i: usize| design.map[i];
    let occ_sensed = (0..64).fold(0u64, |a, i| {
        a | (present_start >> i & 1) << sensed_sq(i) as u32
    });
    let start_occ = Board::default().occupied().0;
    let (orientation, mismatches) = Orientation::ALL
        .iter()
        .filter(|o| o.apply(sensed_sq(e2_sensor)) == Square::E2)
        .map(|&o| (o, (o.apply_bits(occ_sensed) ^ start_occ).count_ones()))
        .min_by_key(|&(_, n)| n)
        .ok_or_else(|| CalError::Unexpected("no orientation puts the lifted pawn on e2".into()))?;
    if mismatches > 8 {
        return Err(CalError::Unexpected(format!(
            "the board does not show the initial position ({mismatches} squares differ in the best orientation): \
             check the set-up and the hw map"
        )));
    }
    let game_sq = |i: usize| orientation.apply(sensed_sq(i));
    let white_start = Board::default().white().0;
    let mut untested = Vec::new();
    for i in 0..64 {
        let sq = game_sq(i);
        let expected = start_occ >> sq as u32 & 1 == 1;
        let seen = present_start >> i & 1 == 1;
        if !expected {
            untested.push(sq);
            if seen && !analog && !issues.iter().any(|x| x.0 == i as u8) {
                issues.push((
                    i as u8,
                    IssueKind::Stuck,
                    "sees a magnet on an empty square".into(),
                ));
            }
        } else if !seen && !analog {
            issues.push((
                i as u8,
                IssueKind::Stuck,
                "sees no magnet under a piece".into(),
            ));
        }
    }

    let mut analog_cal = None;
    if analog {
        let delta = |i: usize| start.mean(i) - empty.mean(i);
        let is_white = |i: usize| white_start >> game_sq(i) as u32 & 1 == 1;
        let under = |i: usize| start_occ >> game_sq(i) as u32 & 1 == 1;
        let wd: Vec<i32> = (0..64)
            .filter(|&i| under(i) && is_white(i))
            .map(delta)
            .collect();
        let bd: Vec<i32> = (0..64)
            .filter(|&i| under(i) && !is_white(i))
            .map(delta)
            .collect();
        let (wmed, bmed) = (median(wd), median(bd));
        let white_reads_low = wmed < bmed;
        if Some(white_reads_low) != design.bus.white_reads_low() {
            issues.push((
                e2_sensor as u8,
                IssueKind::Reversed,
                "white pieces read on the other side of the baseline than the hw file declares \
                 (magnet polarity convention or sensor orientation): using what was measured"
                    .into(),
            ));
        }
        let (mut baseline, mut low, mut high, mut noise) = (vec![], vec![], vec![], vec![]);
        for i in 0..64 {
            let b = empty.mean(i);
            let nz = i32::from(empty.max[i].saturating_sub(empty.min[i]));
            let d = delta(i);
            // This sensor's own response where a piece stood on it, else the
            // typical one of that colour.
            let (mut w, mut k) = (wmed, bmed);
            if under(i) {
                let mag = d.abs();
                let right_side = if is_white(i) {
                    (d < 0) == (wmed < 0)
                } else {
                    (d < 0) == (bmed < 0)
                };
                if mag * 10 < m_abs {
                    issues.push((
                        i as u8,
                        IssueKind::Stuck,
                        format!("no response to a piece ({d:+} codes)"),
                    ));
                } else if !right_side {
                    issues.push((
                        i as u8,
                        IssueKind::Reversed,
                        format!("reads the other colour ({d:+} codes)"),
                    ));
                } else {
                    if mag * 2 < m_abs {
                        issues.push((
                            i as u8,
                            IssueKind::Weak,
                            format!("response {mag} codes, typical {m_abs}"),
                        ));
                    }
                    if is_white(i) {
                        w = d;
                    } else {
                        k = d;
                    }
                }
            }
            if nz * 4 > m_abs {
                issues.push((
                    i as u8,
                    IssueKind::Noisy,
                    format!("{nz} codes peak to peak on the empty board"),
                ));
            }
            let (lo_d, hi_d) = if white_reads_low { (w, k) } else { (k, w) };
            let margin = nz + 2;
            let lo = (b + lo_d / 2)
                .min(b - margin)
                .clamp(0, i32::from(FULL_SCALE));
            let hi = (b + hi_d / 2)
                .max(b + margin)
                .clamp(0, i32::from(FULL_SCALE));
            baseline.push(b as u16);
            low.push(lo as u16);
            high.push(hi as u16);
            noise.push(nz as u16);
        }
        analog_cal = Some(AnalogCal {
            white_reads_low,
            baseline,
            low,
            high,
            noise,
        });
    }

    issues.sort_by_key(|x| x.0);
    issues.dedup_by_key(|x| (x.0, x.1));
    let health = HealthReport {
        issues: issues
            .into_iter()
            .map(|(s, k, d)| SensorIssue::new(s, game_sq(s as usize), k, d))
            .collect(),
        untested: untested.iter().map(|s| s.to_string()).collect(),
    };
    Ok(Calibration {
        design: design.name.clone(),
        orientation,
        samples,
        analog: analog_cal,
        health,
    })
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
