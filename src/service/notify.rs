//! systemd's service notification protocol, sd_notify(3), over the Unix
//! datagram socket systemd names in `NOTIFY_SOCKET` (a path, or an
//! abstract socket when it starts with `@`). One datagram a message, each a
//! newline-separated list of `KEY=VALUE` assignments: `READY=1`,
//! `STOPPING=1`, `WATCHDOG=1`, `STATUS=…`.
//!
//! The watchdog (`WatchdogSec=` in the unit): systemd passes the interval
//! as `WATCHDOG_USEC` (µs) and, when it is meant for one process only,
//! `WATCHDOG_PID`; the service must send `WATCHDOG=1` more often than the
//! interval, sd_watchdog_enabled(3) recommends every half of it.
//!
//! No crate: `std::os::unix::net::UnixDatagram` and Linux's abstract
//! addresses are all the protocol needs. Outside systemd (no
//! `NOTIFY_SOCKET`) nothing is sent. Sources: sd_notify(3),
//! sd_watchdog_enabled(3), systemd.service(5) `Type=notify`, `WatchdogSec=`
//! (see `docs/service.md`).

use std::os::unix::net::UnixDatagram;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Where notifications go: the socket of `NOTIFY_SOCKET`.
#[derive(Debug)]
pub struct Notifier {
    socket: UnixDatagram,
    target: Target,
}

#[derive(Debug, Clone)]
enum Target {
    Path(PathBuf),
    Abstract(Vec<u8>),
}

impl Notifier {
    /// The notifier of `notify_socket` (`NOTIFY_SOCKET`'s value): `None`
    /// when unset or empty (not started by systemd with `Type=notify`).
    /// Errors: the local socket cannot be created.
    pub fn new(notify_socket: Option<&str>) -> std::io::Result<Option<Notifier>> {
        let Some(v) = notify_socket.filter(|v| !v.is_empty()) else {
            return Ok(None);
        };
        let target = match v.strip_prefix('@') {
            Some(name) => Target::Abstract(name.as_bytes().to_vec()),
            None => Target::Path(PathBuf::from(v)),
        };
        Ok(Some(Notifier {
            socket: UnixDatagram::unbound()?,
            target,
        }))
    }

    /// The notifier of this process's `NOTIFY_SOCKET`.
    pub fn from_env() -> std::io::Result<Option<Notifier>> {
        Notifier::new(std::env::var("NOTIFY_SOCKET").ok().as_deref())
    }

    /// Sends one message (`READY=1`, `WATCHDOG=1\nSTATUS=…`). Errors: the
    /// socket refused it (systemd gone, the path wrong).
    pub fn send(&self, message: &str) -> std::io::Result<()> {
        match &self.target {
            Target::Path(p) => self.socket.send_to(message.as_bytes(), p).map(|_| ()),
            Target::Abstract(name) => {
                use std::os::linux::net::SocketAddrExt;
                let addr = std::os::unix::net::SocketAddr::from_abstract_name(name)?;
                self.socket
                    .send_to_addr(message.as_bytes(), &addr)
                    .map(|_| ())
            }
        }
    }

    /// Sends `message`, logging a failure (a notification is never worth
    /// stopping the board for).
    pub fn tell(&self, message: &str) {
        if let Err(e) = self.send(message) {
            tracing::warn!("systemd notification {:?}: {e}", first_line(message));
        }
    }
}

fn first_line(m: &str) -> &str {
    m.lines().next().unwrap_or("")
}

/// The watchdog interval systemd asks for: `WATCHDOG_USEC` (µs), when
/// `WATCHDOG_PID` is unset or names `pid`; `None` otherwise (no
/// `WatchdogSec=`, or meant for another process). An unreadable value is
/// `None` as well, as sd_watchdog_enabled(3) treats it.
pub fn watchdog_interval(
    usec: Option<&str>,
    watchdog_pid: Option<&str>,
    pid: u32,
) -> Option<Duration> {
    if let Some(p) = watchdog_pid {
        if p.trim().parse::<u32>().ok()? != pid {
            return None;
        }
    }
    let us: u64 = usec?.trim().parse().ok()?;
    (us > 0).then(|| Duration::from_micros(us))
}

/// The board loop's keep-alive: `WATCHDOG=1` at most every half of the
/// interval, sent only from where [`Watchdog::feed`] is called (the board
/// loop: a hung loop stops feeding and systemd restarts the service).
#[derive(Debug)]
pub struct Watchdog {
    notifier: Notifier,
    every: Duration,
    last: Option<Instant>,
}

impl Watchdog {
    /// A watchdog sending to `notifier` every half of `interval`.
    pub fn new(notifier: Notifier, interval: Duration) -> Watchdog {
        Watchdog {
            notifier,
            every: interval / 2,
            last: None,
        }
    }

    /// This process's watchdog: `NOTIFY_SOCKET` and `WATCHDOG_USEC` /
    /// `WATCHDOG_PID` set by systemd; `None` without them.
    pub fn from_env() -> Option<Watchdog> {
        let env = |k: &str| std::env::var(k).ok();
        let interval = watchdog_interval(
            env("WATCHDOG_USEC").as_deref(),
            env("WATCHDOG_PID").as_deref(),
            std::process::id(),
        )?;
        match Notifier::from_env() {
            Ok(Some(n)) => Some(Watchdog::new(n, interval)),
            Ok(None) => None,
            Err(e) => {
                tracing::warn!("systemd watchdog: {e}");
                None
            }
        }
    }

    /// How often `WATCHDOG=1` is sent (half the interval).
    pub fn period(&self) -> Duration {
        self.every
    }

    /// Called at every turn of the loop at the monotonic time `now`: sends
    /// `WATCHDOG=1` when the last one is a period old (or none was sent).
    /// Returns whether it sent.
    pub fn feed(&mut self, now: Instant) -> bool {
        if self
            .last
            .is_some_and(|l| now.saturating_duration_since(l) < self.every)
        {
            return false;
        }
        self.last = Some(now);
        self.notifier.tell("WATCHDOG=1");
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn socket(name: &str) -> (UnixDatagram, PathBuf) {
        let p = std::env::temp_dir().join(format!("eboard-notify-{name}-{}", std::process::id()));
        let _ = std::fs::remove_file(&p);
        let s = UnixDatagram::bind(&p).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        (s, p)
    }

    fn recv(s: &UnixDatagram) -> String {
        let mut buf = [0u8; 256];
        let n = s.recv(&mut buf).unwrap();
        String::from_utf8_lossy(&buf[..n]).into_owned()
    }

    #[test]
    fn no_socket_no_notifier() {
        assert!(Notifier::new(None).unwrap().is_none());
        assert!(Notifier::new(Some("")).unwrap().is_none());
    }

    #[test]
    fn messages_reach_a_path_socket() {
        let (s, p) = socket("path");
        let n = Notifier::new(Some(p.to_str().unwrap())).unwrap().unwrap();
        n.send("READY=1\nSTATUS=ready").unwrap();
        assert_eq!(recv(&s), "READY=1\nSTATUS=ready");
        std::fs::remove_file(&p).unwrap();
    }

    #[test]
    fn messages_reach_an_abstract_socket() {
        use std::os::linux::net::SocketAddrExt;
        let name = format!("eboard-notify-abstract-{}", std::process::id());
        let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
        let s = UnixDatagram::bind_addr(&addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let n = Notifier::new(Some(&format!("@{name}"))).unwrap().unwrap();
        n.send("STOPPING=1").unwrap();
        assert_eq!(recv(&s), "STOPPING=1");
    }

    #[test]
    fn the_interval_is_for_this_process_only() {
        let d = Some(Duration::from_secs(10));
        assert_eq!(watchdog_interval(Some("10000000"), None, 7), d);
        assert_eq!(watchdog_interval(Some("10000000"), Some("7"), 7), d);
        assert_eq!(watchdog_interval(Some("10000000"), Some("8"), 7), None);
        assert_eq!(watchdog_interval(Some("0"), None, 7), None);
        assert_eq!(watchdog_interval(Some("ten"), None, 7), None);
        assert_eq!(watchdog_interval(None, None, 7), None);
    }

    #[test]
    fn the_watchdog_is_fed_every_half_interval() {
        let (s, p) = socket("watchdog");
        let n = Notifier::new(Some(p.to_str().unwrap())).unwrap().unwrap();
        let mut w = Watchdog::new(n, Duration::from_millis(1000));
        let t0 = Instant::now();
        assert!(w.feed(t0));
        assert!(!w.feed(t0 + Duration::from_millis(499)));
        assert!(w.feed(t0 + Duration::from_millis(500)));
        assert!(!w.feed(t0 + Duration::from_millis(900)));
        assert!(w.feed(t0 + Duration::from_millis(1000)));
        for _ in 0..3 {
            assert_eq!(recv(&s), "WATCHDOG=1");
        }
        s.set_nonblocking(true).unwrap();
        let mut buf = [0u8; 64];
        assert!(s.recv(&mut buf).is_err(), "only three were sent");
        std::fs::remove_file(&p).unwrap();
    }
}
