//! One shutdown for the whole process: SIGTERM and Ctrl-C (SIGINT) set one
//! [`Shutdown`]; everything that runs until the end waits on its
//! [`ShutdownSignal`]. The order of the stop is the composition root's
//! ([`super::run`]): sources, board loop (drained, journal synced and
//! closed), servers and uplinks, threads joined.
//!
//! [`Joinable`] is a thread that can be joined by a deadline: the process
//! must end within [`GRACE`] of the signal even when a thread is stuck in a
//! read nobody can interrupt (it is then left to the process's exit, and
//! the log says so).

use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// How long the whole stop may take, from the signal to the exit.
pub const GRACE: Duration = Duration::from_millis(1500);

/// The process's one shutdown trigger.
#[derive(Debug, Clone)]
pub struct Shutdown {
    tx: watch::Sender<bool>,
}

/// A waiter on a [`Shutdown`].
#[derive(Debug, Clone)]
pub struct ShutdownSignal {
    rx: watch::Receiver<bool>,
}

impl Default for Shutdown {
    fn default() -> Self {
        Shutdown::new()
    }
}

impl Shutdown {
    /// A trigger not yet pulled.
    pub fn new() -> Shutdown {
        Shutdown {
            tx: watch::channel(false).0,
        }
    }

    /// Pulls the trigger (again is harmless).
    pub fn trigger(&self) {
        self.tx.send_replace(true);
    }

    /// A waiter.
    pub fn signal(&self) -> ShutdownSignal {
        ShutdownSignal {
            rx: self.tx.subscribe(),
        }
    }

    /// Pulls the trigger on SIGTERM or SIGINT (Ctrl-C); the listener runs
    /// on `rt`. Errors: the signal handlers cannot be installed.
    pub fn on_signals(&self, rt: &tokio::runtime::Handle) -> std::io::Result<()> {
        use tokio::signal::unix::{signal, SignalKind};
        let _guard = rt.enter();
        let mut term = signal(SignalKind::terminate())?;
        let mut int = signal(SignalKind::interrupt())?;
        let me = self.clone();
        rt.spawn(async move {
            let which = tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = int.recv() => "SIGINT",
            };
            tracing::info!("{which}: stopping");
            me.trigger();
        });
        Ok(())
    }
}

impl ShutdownSignal {
    /// Whether the trigger has been pulled.
    pub fn is_set(&self) -> bool {
        *self.rx.borrow()
    }

    /// Waits until the trigger is pulled (at once when it was).
    pub async fn wait(&mut self) {
        // An error means the trigger is gone: nobody can stop us any more,
        // so wait forever rather than stop.
        if self.rx.wait_for(|s| *s).await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// A named thread whose end can be awaited with a deadline.
#[derive(Debug)]
pub struct Joinable<T> {
    name: String,
    handle: JoinHandle<T>,
    /// Disconnected when the thread has ended (its sender is dropped then,
    /// also on a panic).
    ended: mpsc::Receiver<()>,
}

impl<T: Send + 'static> Joinable<T> {
    /// Starts `f` on a thread named `name`.
    pub fn spawn(
        name: &str,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> std::io::Result<Joinable<T>> {
        let (tx, ended) = mpsc::channel::<()>();
        let handle = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || {
                let _ended = tx;
                f()
            })?;
        Ok(Joinable {
            name: name.to_owned(),
            handle,
            ended,
        })
    }

    /// The thread's result when it ends by `deadline`; an error when it
    /// panicked or is still running then (it is left to the process's exit).
    pub fn join_by(self, deadline: Instant) -> Result<T, Unjoined> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.ended.recv_timeout(left) {
            Err(RecvTimeoutError::Disconnected) => self
                .handle
                .join()
                .map_err(|_| Unjoined::Panicked(self.name)),
            Ok(()) | Err(RecvTimeoutError::Timeout) => Err(Unjoined::Running(self.name)),
        }
    }
}

/// A [`Joinable`] thread that could not be joined: its name and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unjoined {
    /// It panicked.
    #[error("thread {0} panicked")]
    Panicked(String),
    /// It was still running at the deadline (left to the process's exit).
    #[error("thread {0} did not end in time; left to the exit")]
    Running(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_is_joined_by_its_deadline_or_left() {
        let t = Joinable::spawn("quick", || 7).unwrap();
        assert_eq!(t.join_by(Instant::now() + Duration::from_secs(5)), Ok(7));
        let (tx, rx) = mpsc::channel::<()>();
        let stuck = Joinable::spawn("stuck", move || rx.recv().is_ok()).unwrap();
        assert_eq!(
            stuck.join_by(Instant::now()),
            Err(Unjoined::Running("stuck".into()))
        );
        drop(tx);
        let panics = Joinable::spawn("panics", || panic!("on purpose")).unwrap();
        assert_eq!(
            panics.join_by(Instant::now() + Duration::from_secs(5)),
            Err(Unjoined::Panicked("panics".into()))
        );
    }

    #[tokio::test]
    async fn every_waiter_sees_the_trigger() {
        let s = Shutdown::new();
        let mut a = s.signal();
        let b = s.signal();
        assert!(!b.is_set());
        s.trigger();
        a.wait().await;
        assert!(b.is_set());
    }
}
