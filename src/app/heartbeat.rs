//! The journal's heartbeat: the `heartbeat` line the board loop writes to
//! the events file while a game runs, with the kernel's boot and its
//! boot-time clock, from which a restart measures its downtime
//! (`downtime.rs`).

use serde_json::Value;

/// The kernel's boot and its boot-time clock (`CLOCK_BOOTTIME`: monotonic,
/// suspend included, never set), as a heartbeat journals them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BootClock {
    /// `/proc/sys/kernel/random/boot_id`: new at every boot.
    pub boot_id: String,
    /// `CLOCK_BOOTTIME`, ms.
    pub boottime_ms: u64,
}

impl BootClock {
    /// This boot's clock now; `None` where the kernel does not tell
    /// (another system than Linux, `/proc` hidden).
    pub fn now() -> Option<BootClock> {
        let boot_id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
        let boot_id = boot_id.trim().to_owned();
        if boot_id.is_empty() {
            return None;
        }
        Some(BootClock {
            boot_id,
            boottime_ms: boottime_ms()?,
        })
    }

    /// The boot clock a heartbeat line journaled (`boot_id`, `boottime_ms`).
    pub fn of_heartbeat(v: &Value) -> Option<BootClock> {
        Some(BootClock {
            boot_id: v.get("boot_id")?.as_str()?.to_owned(),
            boottime_ms: v.get("boottime_ms")?.as_u64()?,
        })
    }
}

/// `CLOCK_BOOTTIME` now, ms (`None` where the kernel refuses it).
pub fn boottime_ms() -> Option<u64> {
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes one timespec into `ts`, a valid
        // pointer for the call's duration.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut ts) };
        if rc != 0 || ts.tv_sec < 0 {
            return None;
        }
        Some(ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000)
    }
}

/// The `heartbeat` line of the journal's events file at round time `t`
/// (ms), with the boot clock read at the same moment.
pub fn heartbeat_line(t: u64, boot: Option<&BootClock>) -> String {
    let mut v = serde_json::json!({"type": "heartbeat", "t": t});
    if let Some(b) = boot {
        v["boot_id"] = Value::from(b.boot_id.as_str());
        v["boottime_ms"] = Value::from(b.boottime_ms);
    }
    v.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boot(id: &str, ms: u64) -> BootClock {
        BootClock {
            boot_id: id.to_owned(),
            boottime_ms: ms,
        }
    }

    #[test]
    fn a_heartbeat_line_carries_the_boot_clock() {
        let l = heartbeat_line(7, Some(&boot("x", 9)));
        let v: Value = serde_json::from_str(&l).unwrap();
        assert_eq!(v["type"], "heartbeat");
        assert_eq!(BootClock::of_heartbeat(&v), Some(boot("x", 9)));
        let bare: Value = serde_json::from_str(&heartbeat_line(7, None)).unwrap();
        assert_eq!(BootClock::of_heartbeat(&bare), None);
        // On Linux the kernel tells.
        if cfg!(target_os = "linux") {
            let a = BootClock::now().expect("boot_id and CLOCK_BOOTTIME");
            let b = BootClock::now().unwrap();
            assert_eq!(a.boot_id, b.boot_id);
            assert!(b.boottime_ms >= a.boottime_ms);
        }
    }
}
