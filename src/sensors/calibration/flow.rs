//! The calibration flow ([`calibrate`]): the samples of each step, what
//! they show (orientation, thresholds, polarity) and the health report.

use super::{
    AnalogCal, CalError, Calibration, HealthReport, IssueKind, Operator, Orientation, SensorIssue,
    Step,
};
use crate::sensors::hw::HwDesign;
use crate::sensors::mcp3008::FULL_SCALE;
use crate::sensors::{RawScan, ReadingKind, SensorArray};
use shakmaty::{Board, Square};

/// The squares of ranks 3–6 (a1 = bit 0): occupied in the middle-ranks
/// step.
pub const MIDDLE_RANKS: u64 = 0x0000_FFFF_FFFF_0000;
/// Ranks 3–4: White's pieces in the middle-ranks step.
pub const MIDDLE_WHITE: u64 = 0x0000_0000_FFFF_0000;

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
    operator.perform(Step::MiddleRanks)?;
    let middle = take(array, samples)?;
    operator.perform(Step::Done)?;

    // Which sensors see a piece, in each step.
    let (present_start, present_lifted, present_middle, m_abs);
    if analog {
        let delta = |s: &Stats, i: usize| s.mean(i) - empty.mean(i);
        let mut mags: Vec<i32> = (0..64).map(|i| delta(&start, i).abs()).collect();
        mags.sort_unstable_by(|a, b| b.cmp(a));
        // Typical response: the median of the 32 strongest (the pieces).
        m_abs = mags[15].max(1);
        let on = |s: &Stats, i: usize| delta(s, i).abs() * 4 > m_abs;
        present_start = (0..64).fold(0u64, |a, i| a | u64::from(on(&start, i)) << i);
        present_lifted = (0..64).fold(0u64, |a, i| a | u64::from(on(&lifted, i)) << i);
        present_middle = (0..64).fold(0u64, |a, i| a | u64::from(on(&middle, i)) << i);
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
        present_middle = (0..64).fold(0u64, |a, i| {
            a | u64::from(middle.magnet(i, active_low)) << i
        });
        for i in 0..64 {
            if empty.magnet(i, active_low) {
                issues.push((
                    i as u8,
                    IssueKind::Stuck,
                    "sees a magnet on the empty board".into(),
                ));
            } else if empty.flickers(i) || start.flickers(i) || middle.flickers(i) {
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
    // The middle-ranks step, read in the orientation found: every piece two
    // ranks towards the middle, so ranks 3–6 are occupied, White's on 3–4.
    let (middle_occ, white_middle) = (MIDDLE_RANKS, MIDDLE_WHITE);
    let middle_mismatches = (0..64)
        .filter(|&i| (present_middle >> i & 1) != (middle_occ >> game_sq(i) as u32 & 1))
        .count();
    if middle_mismatches > 8 {
        return Err(CalError::Unexpected(format!(
            "the board does not show the pieces on ranks 3-6 ({middle_mismatches} squares differ): \
             move White's pieces from ranks 1-2 to 3-4 and Black's from 8-7 to 6-5, each on its own file"
        )));
    }
    for i in 0..64 {
        let sq = game_sq(i);
        let in_start = start_occ >> sq as u32 & 1 == 1;
        let in_middle = middle_occ >> sq as u32 & 1 == 1;
        for (step, expected, seen) in [
            (
                "the initial position",
                in_start,
                present_start >> i & 1 == 1,
            ),
            ("ranks 3-6", in_middle, present_middle >> i & 1 == 1),
        ] {
            if analog || issues.iter().any(|x| x.0 == i as u8) {
                continue;
            }
            if seen && !expected {
                issues.push((
                    i as u8,
                    IssueKind::Stuck,
                    format!("sees a magnet on an empty square ({step})"),
                ));
            } else if !seen && expected {
                issues.push((
                    i as u8,
                    IssueKind::Stuck,
                    format!("sees no magnet under a piece ({step})"),
                ));
            }
        }
    }
    // Every square held a piece in one of the two steps.
    let untested: Vec<Square> = Vec::new();

    let mut analog_cal = None;
    if analog {
        let delta = |i: usize| start.mean(i) - empty.mean(i);
        let is_white = |i: usize| white_start >> game_sq(i) as u32 & 1 == 1;
        let under = |i: usize| start_occ >> game_sq(i) as u32 & 1 == 1;
        // A sensor's own response to a piece and the piece's colour: from
        // the initial position, else from the middle-ranks step.
        let response = |i: usize| -> Option<(i32, bool)> {
            let sq = game_sq(i) as u32;
            if under(i) {
                Some((delta(i), is_white(i)))
            } else if middle_occ >> sq & 1 == 1 {
                Some((middle.mean(i) - empty.mean(i), white_middle >> sq & 1 == 1))
            } else {
                None
            }
        };
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
            // This sensor's own response where a piece stood on it, else the
            // typical one of that colour.
            let (mut w, mut k) = (wmed, bmed);
            if let Some((d, white)) = response(i) {
                let mag = d.abs();
                let right_side = if white {
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
                    if white {
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
