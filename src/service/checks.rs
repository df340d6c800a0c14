//! The system checks of `eboard doctor` that need no part of the game:
//! free space for the journal, the system time's synchronisation, the
//! audio outputs. Each returns a [`Finding`]; the composition root
//! (`app::doctor`) adds the checks that need the configuration.

use serde::Serialize;
use std::path::Path;

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Fine.
    Ok,
    /// Works, but look at it.
    Warn,
    /// Would fail during the round: `eboard doctor` exits non-zero.
    Fail,
    /// Not applicable to this config (or left out with `--skip`).
    Skip,
}

impl Status {
    /// `ok`, `warn`, `FAIL`, `skip` as the table shows them.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Fail => "FAIL",
            Status::Skip => "skip",
        }
    }
}

/// One row of the doctor's table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The check's name (`config`, `disk`, `time`, …).
    pub check: String,
    /// How it came out.
    pub status: Status,
    /// What was found, for people (one line).
    pub detail: String,
}

impl Finding {
    /// A finding of `check`.
    pub fn new(check: &str, status: Status, detail: impl Into<String>) -> Finding {
        Finding {
            check: check.to_owned(),
            status,
            detail: detail.into(),
        }
    }
}

/// Bytes free for an unprivileged writer on the file system holding
/// `path` (statvfs(3) `f_bavail * f_frsize`). `path` need not exist yet:
/// its nearest existing ancestor is asked.
pub fn free_bytes(path: &Path) -> std::io::Result<(u64, std::path::PathBuf)> {
    let mut p = path.to_path_buf();
    while !p.exists() {
        if !p.pop() {
            p = std::path::PathBuf::from(".");
            break;
        }
    }
    if p.as_os_str().is_empty() {
        p = std::path::PathBuf::from(".");
    }
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    // SAFETY: statvfs(3) writes into the zeroed struct we own; the path is
    // a NUL-terminated string that outlives the call.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut s) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok((s.f_bavail as u64 * s.f_frsize as u64, p))
}

/// The journal's disk: at least `min_free` bytes free where `dir` is.
pub fn disk(dir: &Path, min_free: u64) -> Finding {
    match free_bytes(dir) {
        Ok((free, at)) => {
            let mb = |b: u64| b / 1_000_000;
            let detail = format!(
                "{} MB free at {} (need {} MB)",
                mb(free),
                at.display(),
                mb(min_free)
            );
            let status = if free >= min_free {
                Status::Ok
            } else {
                Status::Fail
            };
            Finding::new("disk", status, detail)
        }
        Err(e) => Finding::new("disk", Status::Fail, format!("{}: {e}", dir.display())),
    }
}

/// The kernel's view of the clock's synchronisation: adjtimex(2) with no
/// change (`modes = 0`). `STA_UNSYNC` in `status`, or the return value
/// `TIME_ERROR`, means the clock is not synchronised (an NTP daemon such
/// as systemd-timesyncd or chrony clears it once it has set the time); the
/// same source as `timedatectl show -p NTPSynchronized` (systemd-timedated
/// reads `adjtimex` too). Returns the status word and the state.
///
/// The system call itself, not glibc's `adjtimex(3)`: glibc implements
/// that with `clock_adjtime(CLOCK_REALTIME, …)`, a call the unit's
/// system-call filter does not allow (it allows `adjtimex` alone, whose
/// changes the kernel refuses without CAP_SYS_TIME; docs/service.md).
pub fn kernel_time_status() -> std::io::Result<(i32, i32)> {
    // SAFETY: adjtimex(2) with modes = 0 only reads into the struct we own,
    // which lives for the duration of the call.
    let mut t: libc::timex = unsafe { std::mem::zeroed() };
    let state = unsafe { libc::syscall(libc::SYS_adjtimex, &mut t as *mut libc::timex) };
    if state < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok((t.status, state as i32))
}

/// The file systemd-timesyncd creates once it has synchronised the clock
/// since boot (systemd-timesyncd.service(8)).
pub const TIMESYNC_SYNCHRONIZED: &str = "/run/systemd/timesync/synchronized";

/// Where the sync state came from ([`clock_synchronised`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncSource {
    /// adjtimex(2), read-only.
    Adjtimex,
    /// adjtimex refused (a seccomp filter such as systemd's
    /// `ProtectClock=yes` gives EPERM even for a read): systemd-timesyncd's
    /// file [`TIMESYNC_SYNCHRONIZED`] instead.
    TimesyncdFile,
}

/// Whether the wall clock is synchronised: the kernel's word (adjtimex(2)
/// read-only, [`kernel_time_status`]); when a sandbox refuses that call
/// (EPERM: systemd's `ProtectClock=` filter refuses adjtimex whatever its
/// modes), whether systemd-timesyncd has synchronised it since boot
/// (`timesync_file`, normally [`TIMESYNC_SYNCHRONIZED`], exists). Errors
/// (adjtimex failing otherwise, or refused with no timesyncd file) name
/// the call and what to change.
pub fn clock_synchronised(timesync_file: &Path) -> Result<(bool, SyncSource), String> {
    match kernel_time_status() {
        Ok((status, state)) => Ok((is_synchronised(status, state), SyncSource::Adjtimex)),
        Err(e) if e.raw_os_error() == Some(libc::EPERM) => {
            if timesync_file.exists() {
                Ok((true, SyncSource::TimesyncdFile))
            } else {
                Err(format!(
                    "adjtimex: {e} (a sandbox refuses it: ProtectClock=yes in the unit?) and no {} \
                     (systemd-timesyncd has not synchronised the clock)",
                    timesync_file.display()
                ))
            }
        }
        Err(e) => Err(format!("adjtimex: {e}")),
    }
}

/// Whether the adjtimex status word `status` and return value `state`
/// say the clock is synchronised.
pub fn is_synchronised(status: i32, state: i32) -> bool {
    state != libc::TIME_ERROR && status & libc::STA_UNSYNC == 0
}

/// System time synchronised (a Pi has no real-time clock: until NTP has
/// set the time, the journal's wall clock and the clocks' start are wrong).
pub fn time() -> Finding {
    match kernel_time_status() {
        Ok((status, state)) if is_synchronised(status, state) => Finding::new(
            "time",
            Status::Ok,
            "system clock synchronised (adjtimex: STA_UNSYNC clear)",
        ),
        Err(e) if e.raw_os_error() == Some(libc::EPERM) => {
            match clock_synchronised(Path::new(TIMESYNC_SYNCHRONIZED)) {
                Ok((true, _)) => Finding::new(
                    "time",
                    Status::Ok,
                    format!("system clock synchronised ({TIMESYNC_SYNCHRONIZED}; adjtimex: {e})"),
                ),
                Ok((false, _)) => Finding::new("time", Status::Fail, format!("adjtimex: {e}")),
                Err(msg) => Finding::new("time", Status::Fail, msg),
            }
        }
        Ok((status, state)) => Finding::new(
            "time",
            Status::Fail,
            format!(
                "system clock NOT synchronised (adjtimex status {status:#x}, state {state}): \
                 enable NTP (timedatectl set-ntp true) and check the network"
            ),
        ),
        Err(e) => Finding::new("time", Status::Fail, format!("adjtimex: {e}")),
    }
}

/// The ALSA playback devices in `/proc/asound/pcm`'s text (lines such as
/// `00-00: bcm2835 Headphones : bcm2835 Headphones : playback 8`).
pub fn playback_devices(proc_asound_pcm: &str) -> Vec<String> {
    proc_asound_pcm
        .lines()
        .filter(|l| l.contains("playback"))
        .map(|l| l.split(" : ").next().unwrap_or(l).trim().to_owned())
        .collect()
}

/// Whether `program` is an executable file on `PATH`.
pub fn on_path(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|d| {
            std::fs::metadata(d.join(program))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}

/// Audio for a game with a visually impaired player, the programs and the
/// sound card: espeak-ng (package `espeak-ng`) and aplay (package
/// `alsa-utils`) installed, and an ALSA playback device present (`pcm` is
/// `/proc/asound/pcm`'s text, `None` when the file is missing: no sound
/// card driver). The outputs themselves are tried by playing on each
/// (`eboard doctor`'s audio check, issue 29): a device that is not a card
/// (an ALSA plugin) passes that way.
pub fn audio(espeak: bool, aplay: bool, pcm: Option<&str>) -> Finding {
    let devices = pcm.map(playback_devices).unwrap_or_default();
    match (espeak, aplay, devices.is_empty()) {
        (true, true, false) => Finding::new(
            "audio",
            Status::Ok,
            format!("espeak-ng, aplay; playback: {}", devices.join(", ")),
        ),
        (false, _, _) => Finding::new(
            "audio",
            Status::Fail,
            "espeak-ng is not installed (apt-get install espeak-ng)",
        ),
        (true, false, _) => Finding::new(
            "audio",
            Status::Fail,
            "aplay is not installed (apt-get install alsa-utils): the announcements cannot be played",
        ),
        (true, true, true) => Finding::new(
            "audio",
            Status::Fail,
            "no ALSA playback device (/proc/asound/pcm): connect a speaker or headphones",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsync_is_read_from_status_and_state() {
        assert!(is_synchronised(0, libc::TIME_OK));
        assert!(!is_synchronised(libc::STA_UNSYNC, libc::TIME_OK));
        assert!(!is_synchronised(0, libc::TIME_ERROR));
        // The kernel answers here (whatever its state).
        assert!(kernel_time_status().is_ok());
    }

    #[test]
    fn playback_devices_of_a_pi() {
        let pcm = "00-00: bcm2835 Headphones : bcm2835 Headphones : playback 8\n\
                   01-00: USB Audio : USB Audio : playback 1 : capture 1\n\
                   02-00: Mic : Mic : capture 1\n";
        assert_eq!(
            playback_devices(pcm),
            ["00-00: bcm2835 Headphones", "01-00: USB Audio"]
        );
        assert_eq!(audio(true, true, Some(pcm)).status, Status::Ok);
        assert!(audio(true, false, Some(pcm)).detail.contains("alsa-utils"));
        assert_eq!(
            audio(true, true, Some("02-00: Mic : Mic : capture 1\n")).status,
            Status::Fail
        );
        assert_eq!(audio(true, true, None).status, Status::Fail);
        assert_eq!(audio(false, true, Some(pcm)).status, Status::Fail);
    }

    #[test]
    fn disk_needs_the_threshold() {
        let dir = std::env::temp_dir().join("eboard-no-such-dir/journal");
        let f = disk(&dir, 1);
        assert_eq!(f.status, Status::Ok, "{f:?}");
        let f = disk(&dir, u64::MAX);
        assert_eq!(f.status, Status::Fail, "{f:?}");
    }
}
