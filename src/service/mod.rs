//! Running as a system service: systemd's notification protocol and
//! watchdog ([`notify`]), the system checks of the operator's health check
//! (`eboard doctor`: [`checks`], disk, time sync, audio; the doctor itself
//! is `app::doctor`), the man pages and shell completions of the package
//! (`eboard generate`, in `main.rs`); the journal's rotation per game is
//! `journal::rotate`. `docs/service.md` describes the unit, the package and
//! the sources they follow.
//!
//! Depends on nothing of the product: it is at the bottom of
//! docs/dev/architecture.md's map. It must not depend on `app` (whose
//! doctor and board loop use it), `config`, `journal` or any other module:
//! the checks that need the configuration are `app::doctor`'s.

pub mod checks;
pub mod notify;
