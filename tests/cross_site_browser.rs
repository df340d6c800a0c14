//! Cross-site requests refused, in a real browser (issue 26 §5): headless
//! Chromium logs in to a board's console (its session cookie is
//! `SameSite=Strict`), then opens a page served by another origin on the
//! same host — another port, so the same *site*, and the browser sends
//! the cookie along — which tries to rule: a `text/plain` pause, a
//! form-encoded resume, a `text/plain` `/arbiter/command`, a bodiless
//! pause, and a real HTML form submitted to `/arbiter/pause`. None is
//! applied (the board's journal holds no pause) and each is logged as
//! refused. Back on the console, the same pause sent by the console's own
//! page (JSON, same origin) is applied. And such a page cannot frame the
//! logged-in console (issue 41 §3). Skipped (with the reason printed)
//! when Chromium or python3 is missing, unless `CI` is set.

use crate::common;

use common::console::*;
use common::*;
use serde_json::Value;
use std::path::Path;

/// The attacker's web server, for the steps below: `serve_page(html)`
/// serves `html` on a port of its own on 127.0.0.1 and returns its URL.
const SERVE_PAGE_PY: &str = r##"
import http.server, socketserver, threading
def serve_page(html):
    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            b = html.encode()
            self.send_response(200); self.send_header("Content-Type", "text/html"); self.send_header("Content-Length", str(len(b)))
            self.end_headers(); self.wfile.write(b)
        def log_message(self, *a): pass
    srv = socketserver.TCPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return "http://127.0.0.1:%d/" % srv.server_address[1]
"##;

/// After the console login (`argv[4]`, `argv[5]`), serves the attacker's
/// page on a port of its own, opens it, waits for its five attempts, then
/// rules from the console page itself. Prints `{"attacks", "own"}`.
const CDP_PY: &str = r##"
board = sys.argv[6]
ATTACK = """<!doctype html><meta charset=utf-8><title>not the console</title>
<iframe name=sink></iframe>
<form id=f method=POST action="BOARD/arbiter/pause" target=sink enctype="text/plain">
<input name='{"expect":{"ply":0},"x":"' value='"}'></form>
<script>
const tries = [
  ["/arbiter/pause", "text/plain", '{"expect":{"ply":0}}'],
  ["/arbiter/resume", "application/x-www-form-urlencoded", "expect=1"],
  ["/arbiter/command", "text/plain", '{"action":"pause","expect":{"ply":0},"id":"evil-1"}'],
  ["/arbiter/pause", null, null],
];
window.done = Promise.all(tries.map(([path, type, body]) =>
  fetch("BOARD" + path, {method: "POST", mode: "no-cors", credentials: "include",
    headers: type ? {"Content-Type": type} : {}, body: body || undefined})
    .then(() => "sent", (e) => "error: " + e)))
  .then((r) => { document.getElementById("f").submit(); return r; });
</script>""".replace("BOARD", board)
evil = serve_page(ATTACK)
with steps() as res:
    console_page(1024, 768, False)
    call("Page.navigate", {"url": evil}, s)
    wait("document.title == 'not the console' && !!window.done", "the attacker's page")
    attacks = js("window.done")
    # The form's submission lands in the iframe (refused: a JSON error).
    sink = wait("(() => { try { return window.frames.sink.document.body.innerText; } catch (e) { return 'cross-origin frame'; } })()", "the form's answer")
    time.sleep(1)
    call("Page.navigate", {"url": url}, s)
    log_in(name, secret)
    own = js("fetch('/arbiter/pause', {method: 'POST', credentials: 'same-origin', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({expect: {ply: 0}})}).then((r) => r.status)")
    res.update({"attacks": attacks, "sink": sink, "own": own})
"##;

/// A board in `dir` with IA Hansen's account (`extra`: more `eboard run`
/// flags), and Chromium's `steps` run on its console with his name, secret
/// and the board's address: their result, and the board (still running).
fn console_steps(chrome: &Path, dir: &Path, extra: &[&str], steps: &str) -> (Value, Running) {
    let cfg = config(dir, 1, 1, &named_account("IA Hansen", SECRET));
    let run = run_board(dir, &cfg, None, extra);
    let board = format!("http://{}", run.addr);
    let url = format!("{board}/console");
    let steps = format!("{SERVE_PAGE_PY}{steps}");
    let r = run_steps(
        chrome,
        &url,
        dir,
        &steps,
        &["IA Hansen", SECRET, &board],
        &run.stderr,
    );
    (r, run)
}

#[test]
fn a_page_of_another_origin_cannot_rule_with_the_arbiters_cookie() {
    let Some(chrome) = chromium_and_python() else {
        return;
    };
    let dir = tempdir("cross-site-browser");
    let journal = dir.join("j.jsonl");
    let (r, run) = console_steps(
        &chrome,
        &dir,
        &["--journal", journal.to_str().unwrap()],
        CDP_PY,
    );
    let stderr = std::fs::read_to_string(&run.stderr).unwrap_or_default();
    println!("{r}");
    assert_eq!(r["attacks"].as_array().map(Vec::len), Some(4), "{r}");
    // Five attempts reached the board with the cookie and were refused.
    let refused = stderr.matches("cross-site request refused").count();
    assert!(refused >= 5, "{refused} refusals logged: {stderr}");
    // Chromium marks them as from the same site, not the same origin.
    assert!(stderr.contains("Sec-Fetch-Site is same-site"), "{stderr}");
    // The console's own request is applied: the only pause in the journal.
    assert_eq!(r["own"], 200, "{r}\n{stderr}");
    let rulings: Vec<Value> = journal_records(&journal)
        .into_iter()
        .filter(|v| v.get("arbiter").is_some())
        .collect();
    assert_eq!(rulings.len(), 1, "{rulings:?}");
    assert_eq!(rulings[0]["arbiter"], "pause");
    assert_eq!(rulings[0]["author"], "IA Hansen");
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 26 §6: a plain-HTTP proxy on the board's host makes its clients
/// look like loopback; a request it forwarded (it says so in its headers)
/// is refused on the arbiter's routes, the public feeds still pass.
#[test]
fn a_request_forwarded_in_clear_is_refused_on_the_arbiters_routes() {
    let dir = tempdir("forwarded-clear");
    let cfg = config(&dir, 1, 1, "");
    let run = run_board(&dir, &cfg, None, &[]);
    let a = run.addr.as_str();
    assert_eq!(http(a, "GET", "/arbiter/state", &[ARBITER_AUTH], "").0, 200);
    for h in [
        "X-Forwarded-For",
        "Forwarded",
        "X-Real-IP",
        "X-Forwarded-Proto",
    ] {
        let (s, _, b) = http(
            a,
            "GET",
            "/arbiter/state",
            &[ARBITER_AUTH, (h, "192.0.2.9")],
            "",
        );
        assert_eq!(s, 403, "{h}: {b}");
        assert!(b.contains("HTTPS end to end"), "{b}");
        assert_eq!(
            http(a, "GET", "/games.pgn", &[(h, "192.0.2.9")], "").0,
            200,
            "{h}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// After the console login, serves a page on a port of its own that frames
/// the console and, beside it, the public live page; prints the frames'
/// URLs as Chromium loaded them (`unreachableUrl`: refused).
const FRAMER_PY: &str = r##"
board = sys.argv[6]
FRAMER = """<!doctype html><meta charset=utf-8><title>framer</title>
<iframe id=console src="BOARD/console" width=600 height=400></iframe>
<iframe id=live src="BOARD/" width=600 height=400></iframe>""".replace("BOARD", board)
evil = serve_page(FRAMER)
with steps() as res:
    console_page(1024, 768, False)
    call("Page.navigate", {"url": evil}, s)
    wait("document.title == 'framer'", "the framing page")
    def frames():
        tree = call("Page.getFrameTree", {}, s)["frameTree"]
        return [{"url": c["frame"].get("url", ""), "unreachable": c["frame"].get("unreachableUrl", "")}
                for c in tree.get("childFrames", [])]
    deadline = time.time() + 20
    while time.time() < deadline:
        f = frames()
        if len(f) == 2 and all(x["url"] not in ("", "about:blank") for x in f):
            break
        time.sleep(0.2)
    res.update({"frames": frames()})
"##;

/// Issue 41 §3: another page cannot frame the logged-in console
/// (clickjacking): Chromium refuses the frame by the console's
/// `X-Frame-Options` / CSP `frame-ancestors`, while the public live page
/// in the frame beside it loads (broadcasters embed it).
#[test]
fn another_page_cannot_frame_the_console_the_live_page_it_can() {
    let Some(chrome) = chromium_and_python() else {
        return;
    };
    let dir = tempdir("framed-console");
    let (r, run) = console_steps(&chrome, &dir, &[], FRAMER_PY);
    let board = format!("http://{}", run.addr);
    let url = format!("{board}/console");
    println!("{r}");
    let frames = r["frames"].as_array().cloned().unwrap_or_default();
    assert_eq!(frames.len(), 2, "{r}");
    let (console, live) = (&frames[0], &frames[1]);
    assert_ne!(
        console["url"],
        Value::from(url.as_str()),
        "the console loaded in another page's frame: {r}"
    );
    assert_eq!(console["unreachable"], Value::from(url.as_str()), "{r}");
    assert_eq!(live["url"], Value::from(format!("{board}/")), "{r}");
    std::fs::remove_dir_all(&dir).ok();
}
