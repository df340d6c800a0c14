//! The hall display `GET /hall` for the venue's screen (issue 42 §4;
//! `docs/hall.md`): the event and its round, the round's boards (players,
//! clocks with the running one marked, the last move, the result once the
//! arbiter confirmed it) in pages of twelve, and the standings
//! (`/standings.json`, marked provisional), at 1920×1080 and readable at
//! five metres. Plain HTML, CSS and JavaScript built into the binary (no
//! external assets), reading public routes only (`/boards.json`,
//! `/events`, `/standings.json`): the same transmission delay as every
//! public feed, stated on the page. After a restart of the relay the page
//! reads the boards and the standings again by itself and shows
//! "Reconnecting…" while away, never a blank screen.

use super::state::AppState;
use axum::extract::State;
use axum::response::Response;
use std::sync::Arc;

const HTML: &str = include_str!("assets/hall.html");
/// The page's script as served: the clock readouts as a clock shows them
/// (`clock-text.js`, shared with the live page and the console), the
/// stream and a game's state from its messages (`feed.js`, shared with
/// the live page), the page.
const JS: &str = concat!(
    include_str!("assets/clock-text.js"),
    include_str!("assets/feed.js"),
    include_str!("assets/hall.js")
);
const CSS: &str = include_str!("assets/hall.css");

/// `GET /hall`: the page with the public states of the games embedded, so
/// its first paint shows the boards before any network round trip; its
/// style and script inlined as the live page's ([`super::page::document`]).
pub async fn page(State(s): State<Arc<AppState>>) -> Response {
    let view = s.public.view.borrow().clone();
    let states: Vec<&serde_json::Value> = view.games.iter().map(|g| g.state.value()).collect();
    super::page::document(HTML, CSS, JS, &states, "en")
}

/// `GET /hall.js`.
pub async fn script() -> Response {
    super::page::asset(super::page::JS_TYPE, JS)
}

/// `GET /hall.css`.
pub async fn style() -> Response {
    super::page::asset(super::page::CSS_TYPE, CSS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Public routes only, nothing from the net (no CDN, no web font).
    #[test]
    fn the_hall_reads_public_routes_only_and_nothing_from_the_net() {
        for text in [HTML, include_str!("assets/hall.js"), CSS] {
            assert!(!text.contains("http://") && !text.contains("https://"));
            assert!(!text.contains("/arbiter/") && !text.contains("/console"));
            assert!(!text.contains("@import") && !text.contains("url("));
        }
        for route in ["/boards.json", "/standings.json", "/events"] {
            assert!(JS.contains(route), "{route}");
        }
    }

    /// Its style and script are inlined as the live page's (issue 42 §7).
    #[test]
    fn the_halls_assets_can_be_inlined() {
        super::super::page::assert_inlinable(HTML, CSS, JS);
    }
}
