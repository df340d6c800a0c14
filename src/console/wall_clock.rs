//! The wall clock the console keeps its times in (alerts, acknowledgements,
//! sessions): Unix ms. Injected as `now_ms` everywhere below it; read here.

/// The wall clock, Unix ms (alert and session times).
pub fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
