//! The live page's first paint from a relay of many boards (issue 42 §7):
//! 20 board daemons (the Opera Game, each from its own simulated trace, at
//! ×`EBOARD_BENCH_SPEED`) and one relay merging them, in this process on
//! loopback; then headless Chromium (the tests' DevTools driver,
//! `tests/common/browser.rs`) opens the relay's `/` `EBOARD_BENCH_PAINTS`
//! times, each in a fresh tab, and reads the page's own timing:
//! `performance.getEntriesByType('paint')` (first-contentful-paint) and
//! the navigation entry (`responseStart`: the time to the first byte;
//! `domContentLoadedEventEnd`; the HTML's size). The page embeds the
//! games' states (`src/server/page.rs`), so the first paint already shows
//! every board: the figure is that of the page a spectator opens.
//!
//! `cargo bench --bench first_paint` — knobs: `EBOARD_BENCH_BOARDS` (20),
//! `EBOARD_BENCH_SPEED` (50: the games are over in about 6 s, the page then
//! shows them whole), `EBOARD_BENCH_PAINTS` (10), `EBOARD_BENCH_HOG` (`1`:
//! one core kept busy by a thread of the bench while the pages load, as
//! the broadcast bench does). Skipped, saying why, without Chromium or
//! python3. Target (issue 42 §7): first contentful paint under 200 ms.

#[allow(dead_code)] // the latency clients are the other benches'
mod common;

/// The tests' Chromium driver (its DevTools steps and helpers); it takes
/// [`unique`] and [`skip_or_fail_under_ci`] from here, as from the tests'
/// `common`.
#[allow(dead_code)]
#[path = "../tests/common/browser.rs"]
mod browser;

/// A number not given out before in this process (profile names).
fn unique() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Says why the bench is skipped (a bench never fails for a missing
/// program).
fn skip_or_fail_under_ci(missing: &str) {
    println!("skipped: {missing}");
}

use common::env;
use std::time::{Duration, Instant};

/// The steps in the tab (python, after the driver's `CDP_PAGE`): `runs`
/// fresh tabs on the relay's page, each waiting for its first contentful
/// paint and every board drawn; the timings of each.
const STEPS: &str = r#"
runs = int(sys.argv[4])
boards = int(sys.argv[5])
with steps() as res:
    res["runs"] = []
    for i in range(runs):
        tab()
        call("Performance.enable", session=s)
        call("Page.navigate", {"url": url}, s)
        wait("performance.getEntriesByType('paint').some((e) => e.name === 'first-contentful-paint')", "the first contentful paint", 30)
        wait("document.readyState === 'complete'", "the page loaded", 30)
        res["runs"].append(js("""(() => {
            const p = Object.fromEntries(performance.getEntriesByType('paint').map((e) => [e.name, e.startTime]));
            const n = performance.getEntriesByType('navigation')[0];
            return {fcp: p['first-contentful-paint'], fp: p['first-paint'],
                    ttfb: n.responseStart, response_end: n.responseEnd,
                    dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd,
                    script: (performance.getEntriesByName('live:script')[0] || {}).startTime,
                    drawn: (performance.getEntriesByName('live:drawn')[0] || {}).startTime,
                    bytes: n.transferSize, html: document.documentElement.outerHTML.length,
                    resources: performance.getEntriesByType('resource').map((e) => [e.name.replace(/^.*\//, '/'), e.startTime, e.responseEnd])};
        })()"""))
        m = {x["name"]: x["value"] for x in call("Performance.getMetrics", session=s)["metrics"]}
        res["runs"][-1]["renderer"] = {k: m.get(k) for k in ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration")}
        call("Target.closeTarget", {"targetId": call("Target.getTargetInfo", session=s)["targetInfo"]["targetId"]})
"#;

fn main() {
    let Some(chrome) = browser::chromium_and_python() else {
        return;
    };
    let boards = env("EBOARD_BENCH_BOARDS", 20);
    let speed = env("EBOARD_BENCH_SPEED", 50) as f64;
    let runs = env("EBOARD_BENCH_PAINTS", 10);
    let hog = std::env::var("EBOARD_BENCH_HOG").is_ok_and(|v| v == "1");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // The relay's readers on a thread of their own, as the product's.
    let readers = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let round = common::round::Round::start(&rt, boards, speed);
    round.go();
    let relay = common::round::serve_relay(&rt, &readers, round.urls.clone());
    // The games over (33 moves each) and merged by the relay.
    let end = Instant::now() + Duration::from_secs(120);
    loop {
        let view = relay.channel.view.borrow().clone();
        let over = view
            .games
            .iter()
            .filter(|g| g.state.value()["result"] != "*")
            .count();
        if over == boards {
            break;
        }
        assert!(
            Instant::now() < end,
            "only {over} of {boards} games over at the relay after 120 s"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let hogging = hog.then(|| common::cpu_hog(stop.clone()));
    let dir = std::env::temp_dir().join(format!("eboard-first-paint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("none.log");
    let out = browser::run_steps(
        &chrome,
        &format!("http://{}/", relay.addr),
        &dir,
        STEPS,
        &[&runs.to_string(), &boards.to_string()],
        &log,
    );
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    if let Some(h) = hogging {
        let _ = h.join();
    }
    std::fs::remove_dir_all(&dir).ok();
    let runs = out["runs"].as_array().cloned().unwrap_or_default();
    // The page's times are ms since its navigation started (µs kept).
    let ms = |k: &str| -> Vec<u64> {
        runs.iter()
            .filter_map(|r| r[k].as_f64())
            .map(|v| (v * 1000.0) as u64)
            .collect()
    };
    println!(
        "first paint of the relay's page, {boards} boards (games over), {} loads, {}:",
        runs.len(),
        if hog {
            "one core kept busy by a CPU hog thread of the bench"
        } else {
            "no hog"
        }
    );
    println!("  {}", common::load());
    for (what, key) in [
        ("first contentful paint", "fcp"),
        ("time to the first byte (responseStart)", "ttfb"),
        ("the HTML read (responseEnd)", "response_end"),
        ("the page's script running (its mark live:script)", "script"),
        ("the embedded games drawn (live:drawn)", "drawn"),
        ("DOMContentLoaded done", "dcl"),
    ] {
        println!("  {what}: {}", spread(&ms(key)));
    }
    for r in runs.iter().take(2) {
        println!(
            "  load: resources (name, start, end ms) {}; the renderer's busy time (s) {}",
            r["resources"], r["renderer"]
        );
    }
    if let Some(r) = runs.first() {
        println!(
            "  the page: {} bytes over the wire, {} characters of HTML (states embedded)",
            r["bytes"], r["html"]
        );
    }
    std::process::exit(0);
}

/// `first, median, max` of times in µs, as ms, and how many.
fn spread(us: &[u64]) -> String {
    let mut v = us.to_vec();
    v.sort_unstable();
    let ms = |x: Option<&u64>| x.map_or(f64::NAN, |x| *x as f64 / 1000.0);
    format!(
        "first load {:.1} ms, median {:.1} ms, max {:.1} ms ({} loads)",
        ms(us.first()),
        ms(v.get(v.len() / 2)),
        ms(v.last()),
        v.len()
    )
}
