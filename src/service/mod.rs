//! Running as a system service: systemd's notification protocol and
//! watchdog ([`notify`]), the operator's health check (`eboard doctor`,
//! [`doctor`]), the man pages and shell completions of the package
//! (`eboard generate`, in `main.rs`), and the journal's rotation per game
//! ([`rotate`]). `docs/service.md` describes the unit, the package and the
//! sources they follow.

pub mod checks;
pub mod notify;
