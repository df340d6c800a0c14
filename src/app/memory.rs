//! Memory given back (issue 28): the allocator keeps what a thousand
//! departed stream clients freed (their connections' buffers) in its free
//! lists, so the process's resident size stays at its peak. While the
//! server runs, every [`TRIM_EVERY`] the free memory is returned to the
//! system (glibc's `malloc_trim`; elsewhere nothing is done).

use std::time::Duration;

/// How often free memory is returned to the system while serving.
pub const TRIM_EVERY: Duration = Duration::from_secs(10);

/// Returns the allocator's free memory to the system (glibc: every arena's
/// free pages, `malloc_trim(0)`); whether any was returned.
pub fn give_back() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: malloc_trim only walks the allocator's own free lists
        // under its locks; no pointer of ours is involved.
        unsafe { libc::malloc_trim(0) == 1 }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

/// Gives free memory back every [`TRIM_EVERY`], forever (run it beside the
/// server, dropped with it). The trim runs on a blocking thread: it walks
/// every arena's free pages, which under a connection flood takes tens of
/// milliseconds, and the future calling this one shares its task with the
/// listener's accept loop (`app::serve_until`): run inline, every trim held
/// every new connection back for as long (issue 26, the slow spectator
/// request). Its duration is logged at debug.
pub async fn give_back_periodically() {
    let mut every = tokio::time::interval(TRIM_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        let started = std::time::Instant::now();
        let returned = tokio::task::spawn_blocking(give_back)
            .await
            .unwrap_or(false);
        tracing::debug!(
            ms = started.elapsed().as_secs_f64() * 1000.0,
            returned,
            "memory: free pages returned to the system (malloc_trim)"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rss_kib() -> Option<u64> {
        let s = std::fs::read_to_string("/proc/self/status").ok()?;
        s.lines()
            .find(|l| l.starts_with("VmRSS:"))?
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    }

    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn freed_buffers_are_returned_to_the_system() {
        // Many small buffers (as connections' are), freed out of order so
        // the heap's top stays in use: without a trim the pages stay.
        let before = rss_kib().unwrap();
        let mut bufs: Vec<Vec<u8>> = (0..4000).map(|i| vec![i as u8; 16 * 1024]).collect();
        let keep = bufs.split_off(3999);
        drop(bufs);
        let held = rss_kib().unwrap();
        give_back();
        let after = rss_kib().unwrap();
        drop(keep);
        assert!(
            after + 32 * 1024 < held,
            "RSS {before} KiB before, {held} KiB holding, {after} KiB after the trim"
        );
    }
}
