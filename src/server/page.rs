//! The live page: plain HTML, CSS and JavaScript built into the binary (no
//! external assets). It draws every game of the feed (board, clocks, moves,
//! the illegal-move marking) from the embedded states and `/events`: one
//! game in full (players beside their clocks, the move list to step
//! through, flip, the PGN downloads), more as the round at a glance (a
//! tile a board) with the standings of `/standings.json`.
//! `/?game=R.B` shows one game (and streams only it), `/?round=R` one round.

use super::state::AppState;
use super::subscription::FilterQuery;
use axum::extract::{Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

const HTML: &str = include_str!("assets/live.html");
/// The page's script, one file as served: the clock readouts as a clock
/// shows them (`clock-text.js`, shared with the console), the stream and
/// a game's state from its messages (`feed.js`, shared with the hall
/// display), the positions of a game's plies (`live-replay.js`), the
/// page's words (`live-words.js`), the round at a glance and the standings
/// (`live-grid.js`), the page.
const JS: &str = concat!(
    include_str!("assets/clock-text.js"),
    include_str!("assets/feed.js"),
    include_str!("assets/live-replay.js"),
    include_str!("assets/live-words.js"),
    include_str!("assets/live-grid.js"),
    include_str!("assets/live.js")
);
const CSS: &str = include_str!("assets/live.css");

/// `GET /[?game=R.B|?round=R]`: the page with the current public states of
/// the games it shows embedded, so it draws them before its first network
/// round trip; 400 naming the parameter when the filter is malformed.
pub async fn index(State(s): State<Arc<AppState>>, Query(q): Query<FilterQuery>) -> Response {
    let filter = match q.filter() {
        Ok(f) => f,
        Err(e) => return (StatusCode::BAD_REQUEST, e).into_response(),
    };
    let view = s.public.view.borrow().clone();
    let states: Vec<&serde_json::Value> = view
        .games
        .iter()
        .filter(|g| filter.follows(g.info.round, g.info.board))
        .map(|g| g.state.value())
        .collect();
    // The page's language: the event's (every game shown speaks it), else English.
    let lang = states
        .iter()
        .filter_map(|st| st["lang"].as_str())
        .reduce(|a, b| if a == b { a } else { "" })
        .filter(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphabetic()))
        .unwrap_or("en");
    document(HTML, CSS, JS, &states, lang)
}

/// A page built into the binary as served (the live page, the hall
/// display): `html` with its style `css` at `<!--STYLE-->`, the games'
/// `states` (JSON in a `<script id="initial-state">`, [`json_in_script`])
/// at `<!--STATE-->`, its script `js` at `<!--SCRIPT-->`, and `lang` as
/// the document's language. One response, nothing more to fetch before
/// the first paint: with the style and the script as two more requests,
/// a relay serving 20 boards' streams answered them 60–110 ms after the
/// page (issue 42 §7, `docs/dev/performance.md`). The assets' own routes
/// ([`asset`]) stay for other pages and tools.
pub(super) fn document(
    html: &str,
    css: &str,
    js: &str,
    states: &[&serde_json::Value],
    lang: &str,
) -> Response {
    let json = json_in_script(&serde_json::to_string(states).unwrap_or_else(|_| "[]".into()));
    let mut page = String::with_capacity(html.len() + css.len() + js.len() + json.len() + 128);
    let mut rest = html.replacen("<html lang=\"en\">", &format!("<html lang=\"{lang}\">"), 1);
    for (mark, open, text, close) in [
        ("<!--STYLE-->", "<style>", css, "</style>"),
        (
            "<!--STATE-->",
            "<script id=\"initial-state\" type=\"application/json\">",
            json.as_str(),
            "</script>",
        ),
        ("<!--SCRIPT-->", "<script>", js, "</script>"),
    ] {
        let Some((before, after)) = rest.split_once(mark) else {
            continue;
        };
        page.push_str(before);
        page.push_str(open);
        page.push_str(text);
        page.push_str(close);
        rest = after.to_owned();
    }
    page.push_str(&rest);
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8".to_owned()),
            (header::CACHE_CONTROL, "no-cache".to_owned()),
            (header::CONTENT_SECURITY_POLICY, public_csp(css, js)),
        ],
        page,
    )
        .into_response()
}

/// The public pages' Content-Security-Policy (CSP Level 3, W3C): the one
/// inline script and the one inline style of [`document`], named by their
/// SHA-256 (`'sha256-…'`, base64: a "hash-source"), run and apply, and
/// nothing else: a script put into the page some other way (a player's
/// name that escaped its JSON string) is not run. Requests, images and
/// the rest to the page's own origin; no plugin, no `<base>`. Without
/// `frame-ancestors`: broadcasters frame the live page (the console's
/// policy, `cross_site::CONSOLE_CSP`, forbids it). The hashes are made per
/// response: about 0.1 ms for the page's 60 KB.
pub(super) fn public_csp(css: &str, js: &str) -> String {
    format!(
        "default-src 'self'; script-src 'sha256-{}'; style-src 'sha256-{}'; img-src 'self' data:; \
connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'",
        sha256_base64(js),
        sha256_base64(css)
    )
}

/// `text`'s SHA-256 (FIPS 180-4) in base64 (RFC 4648 §4, padded), as a
/// CSP hash-source names an inline element by the UTF-8 of its text.
fn sha256_base64(text: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .encode(ring::digest::digest(&ring::digest::SHA256, text.as_bytes()))
}

/// An asset built into the binary, as its own route serves it (`/live.js`,
/// `/hall.css`, …): `content_type` is its MIME type with the charset.
pub(super) fn asset(content_type: &'static str, text: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], text).into_response()
}

/// The MIME type of a script asset.
pub(super) const JS_TYPE: &str = "text/javascript; charset=utf-8";

/// The MIME type of a style asset.
pub(super) const CSS_TYPE: &str = "text/css; charset=utf-8";

/// JSON text as a `<script>` element may hold it: `<`, `>` and `&` as
/// `\u003c`, `\u003e`, `\u0026`, and U+2028 / U+2029 as `\u2028` /
/// `\u2029` (JSON escapes, RFC 8259 §7: the value read is the same). No
/// name can then end the element (`</script>`) or put the HTML parser
/// into the script's "escaped" states (`<!--` then `<script>`, after which
/// the page's own `</script>` no longer ends it: the HTML Living Standard,
/// §4.12.1.3 "Restrictions for contents of script elements"), which left
/// the live page on "Connecting…" for every spectator (issue 41). These
/// characters appear in serde_json's output only inside strings.
pub fn json_in_script(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// `GET /live.js`.
pub async fn script() -> Response {
    asset(JS_TYPE, JS)
}

/// `GET /live.css`.
pub async fn style() -> Response {
    asset(CSS_TYPE, CSS)
}

/// Panics unless `css` and `js` can be inlined into `html` by
/// [`document`] (the live page's test and the hall's).
#[cfg(test)]
pub(super) fn assert_inlinable(html: &str, css: &str, js: &str) {
    for (name, text) in [("style", css), ("script", js)] {
        let lower = text.to_ascii_lowercase();
        for bad in ["</style", "</script", "<!--", "<script"] {
            assert!(!lower.contains(bad), "the {name} holds {bad}");
        }
    }
    for mark in ["<!--STYLE-->", "<!--STATE-->", "<!--SCRIPT-->"] {
        assert_eq!(html.matches(mark).count(), 1, "{mark}");
    }
    assert!(!html.contains("<link") && !html.contains("<script src"));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 24.10: the public page, served over plain HTTP on the venue's
    /// network, never invites a secret: no password field, no token, no
    /// bearer header, nothing read from the arbiter's channel.
    #[test]
    fn json_in_a_script_cannot_end_or_escape_it() {
        let names = serde_json::json!({"white": "<!--<script>", "black": "</script><b>&amp;\u{2028}\u{2029}"});
        let text = json_in_script(&names.to_string());
        for bad in ["<", ">", "&", "\u{2028}", "\u{2029}"] {
            assert!(!text.contains(bad), "{bad:?} in {text}");
        }
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, names, "the same value read back");
    }

    /// Issue 42: the page's assets are all built in; nothing is fetched
    /// from the net (no CDN, no font): the only outside address is the
    /// players' FIDE profile, a link the spectator may follow.
    #[test]
    fn the_live_page_loads_nothing_from_the_net() {
        for (name, text) in [("live.html", HTML), ("live.css", CSS)] {
            assert!(
                !text.contains("http:") && !text.contains("https:"),
                "{name}"
            );
            assert!(
                !text.contains("@import") && !text.contains("url("),
                "{name}"
            );
        }
        let outside: Vec<&str> = JS
            .match_indices("https://")
            .map(|(i, _)| &JS[i..])
            .collect();
        assert_eq!(outside.len(), 1, "{outside:?}");
        assert!(outside[0].starts_with("https://ratings.fide.com/profile/"));
        assert!(!JS.contains("http://") && !JS.contains("import("));
    }

    /// The style and the script are inlined into the page (issue 42 §7):
    /// nothing in them may end their element early or put the HTML
    /// parser into a script's escaped states (HTML Living Standard
    /// §4.12.1.3), and the page has a place for each.
    #[test]
    fn the_pages_assets_can_be_inlined() {
        assert_inlinable(HTML, CSS, JS);
    }

    /// The page as served: the style, the states and the script in it, in
    /// that order, the language set.
    #[test]
    fn a_page_is_served_whole() {
        let st =
            serde_json::json!({"type": "state", "game": "1.1", "white": {"name": "</script>"}});
        let r = document(HTML, CSS, JS, &[&st], "de");
        let body =
            futures_util::FutureExt::now_or_never(axum::body::to_bytes(r.into_body(), usize::MAX))
                .unwrap()
                .unwrap();
        let page = String::from_utf8(body.to_vec()).unwrap();
        assert!(page.starts_with("<!doctype html>\n<html lang=\"de\">"));
        let style = page
            .find(&format!("<style>{CSS}</style>"))
            .expect("the style");
        let state = page
            .find("<script id=\"initial-state\"")
            .expect("the states");
        let script = page
            .find(&format!("<script>{JS}</script>"))
            .expect("the script");
        assert!(style < state && state < script);
        assert!(!page.contains("<!--STYLE-->") && !page.contains("<!--SCRIPT-->"));
        assert_eq!(
            page.matches("</script>").count(),
            2,
            "the name stays inside its string"
        );
    }

    /// Hardening: the page's policy lets its own inline script and style
    /// in by their SHA-256 and nothing else inline. A hash of another text
    /// leaves the page dead: the browser tests (`live_page`,
    /// `hall_browser`) then fail, as they did when tried.
    #[test]
    fn the_page_runs_only_its_own_inline_script() {
        let r = document(HTML, CSS, JS, &[], "en");
        let csp = r.headers()[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap()
            .to_owned();
        let js = format!("script-src 'sha256-{}';", sha256_base64(JS));
        let css = format!("style-src 'sha256-{}';", sha256_base64(CSS));
        assert!(csp.contains(&js) && csp.contains(&css), "{csp}");
        assert!(
            !csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"),
            "{csp}"
        );
        assert!(
            !csp.contains("frame-ancestors"),
            "broadcasters frame the page"
        );
        // FIPS 180-2's example, as `printf abc | openssl dgst -sha256 -binary | base64`.
        assert_eq!(
            sha256_base64("abc"),
            "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="
        );
    }

    #[test]
    fn the_public_page_invites_no_secret() {
        let html = HTML.to_ascii_lowercase();
        assert!(!html.contains("type=\"password\""), "a password field");
        assert!(!html.contains("token"), "a token field or word");
        assert!(!html.contains("<form"), "a form");
        assert!(!JS.contains("Authorization"), "a bearer header");
        assert!(!JS.contains("/arbiter/"), "the arbiter's channel");
    }
}
