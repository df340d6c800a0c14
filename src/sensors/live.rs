//! The live board as a record source: a thread scans the sensor array at the
//! configured rate and hands the debounced lift/place records to the daemon,
//! which stamps them with the round clock (time is injected in one place).
//!
//! The hardware is opened inside the scanning thread (rppal's handles stay on
//! the thread that uses them); the daemon holds only the receiving end.

use super::scanner::Scanner;
use super::SensorArray;
use crate::trace::Record;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Records from a scanning thread; ends when the thread stops (an error is
/// passed on as the last item).
pub struct LiveSource {
    rx: mpsc::Receiver<Result<Record, String>>,
}

impl LiveSource {
    /// Starts scanning: `open` builds the scanner on the scanning thread;
    /// `period_ms` is the scan period. `t` in the records is ms since the
    /// start of scanning (the daemon restamps them with round time).
    pub fn start<A, F>(open: F, period_ms: u64) -> LiveSource
    where
        A: SensorArray,
        F: FnOnce() -> Result<Scanner<A>, String> + Send + 'static,
    {
        let (tx, rx) = mpsc::sync_channel(256);
        let spawned = std::thread::Builder::new()
            .name("eboard-scan".into())
            .spawn(move || {
                let mut scanner = match open() {
                    Ok(s) => s,
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                };
                let start = Instant::now();
                let period = Duration::from_millis(period_ms.max(1));
                let mut next = start;
                loop {
                    let t = start.elapsed().as_millis() as u64;
                    match scanner.scan(t) {
                        Ok(changes) => {
                            for r in changes {
                                if tx.send(Ok(r)).is_err() {
                                    return;
                                }
                            }
                        }
                        Err(e) => {
                            let _ = tx.send(Err(format!("sensor scan failed: {e:?}")));
                            return;
                        }
                    }
                    next += period;
                    let now = Instant::now();
                    if next > now {
                        std::thread::sleep(next - now);
                    } else {
                        next = now;
                    }
                }
            });
        if let Err(e) = spawned {
            let (etx, erx) = mpsc::sync_channel(1);
            let _ = etx.send(Err(format!("cannot start the scanning thread: {e}")));
            return LiveSource { rx: erx };
        }
        LiveSource { rx }
    }
}

impl Iterator for LiveSource {
    type Item = Result<Record, String>;

    fn next(&mut self) -> Option<Self::Item> {
        self.rx.recv().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sensors::debounce::Sample;
    use crate::sensors::hw::HwDesign;
    use crate::sensors::scanner::ScannerConfig;
    use crate::sensors::{RawScan, ReadingKind};
    use crate::trace::RecordKind;

    /// A digital array whose bits change after a number of reads.
    struct Scripted {
        reads: u32,
        before: u64,
        after: u64,
    }

    impl SensorArray for Scripted {
        type Error = ();
        fn kind(&self) -> ReadingKind {
            ReadingKind::Digital
        }
        fn read(&mut self, raw: &mut RawScan) -> Result<(), ()> {
            self.reads += 1;
            raw.bits = if self.reads > 5 {
                self.after
            } else {
                self.before
            };
            Ok(())
        }
    }

    #[test]
    fn scans_become_records_and_open_errors_end_the_source() {
        let design = HwDesign::parse(
            include_str!("../../hw/hc165-chain.toml"),
            "hc165-chain.toml",
        )
        .unwrap();
        let start = shakmaty::Board::default();
        let initial = Sample::from_board(&start, false);
        // Raw levels for the start position through the design's map.
        let mut before = 0u64;
        let mut lifted = 0u64;
        for (i, sq) in design.map.iter().enumerate() {
            let occupied = start.occupied().contains(*sq);
            let high = occupied != design.bus.active_low().unwrap_or(false);
            if high {
                before |= 1 << i;
            }
            if *sq == shakmaty::Square::E2 {
                lifted = 1 << i;
            }
        }
        let after = before ^ lifted;
        let d = design.clone();
        let mut src = LiveSource::start(
            move || {
                Scanner::new(
                    Scripted {
                        reads: 0,
                        before,
                        after,
                    },
                    &d,
                    None,
                    ScannerConfig::default(),
                    initial,
                )
                .map_err(|e| e.to_string())
            },
            1,
        );
        let r = src.next().unwrap().unwrap();
        assert_eq!(r.kind, RecordKind::Lift(shakmaty::Square::E2));
        let mut failing = LiveSource::start::<Scripted, _>(|| Err("no SPI".into()), 1);
        assert_eq!(failing.next(), Some(Err("no SPI".into())));
        assert_eq!(failing.next(), None);
    }
}
