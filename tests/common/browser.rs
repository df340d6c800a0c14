//! A Chromium page for the browser tests: headless Chromium started with
//! [`HEADLESS_FLAGS`] and a fresh `--user-data-dir`, driven over the
//! DevTools protocol (`--remote-debugging-pipe`) by a python3 script:
//! [`CDP_DRIVER`] (the browser and `call`), [`CDP_PAGE`] (a tab and its
//! helpers: `js`, `wait`, `click`, `type_into`, `log_in`, …), then the
//! test's own steps; run with [`run_steps`] (or [`steps_command`] when the
//! test talks to it while it runs). [`headless`] runs Chromium once
//! (`--dump-dom`, `--screenshot`).

use super::{skip_or_fail_under_ci, unique};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Headless Chromium's flags in every browser test: no sandbox (root in
/// the containers), no GPU, no network of its own (QUIC, updates, sync).
pub const HEADLESS_FLAGS: [&str; 8] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// A fresh profile directory under `dir` (`--user-data-dir`: nothing of an
/// earlier run, cookies or cache, carries over).
fn profile(dir: &Path) -> PathBuf {
    dir.join(format!("profile-{}", unique()))
}

/// Chromium run once on `url` with [`HEADLESS_FLAGS`], a fresh profile
/// under `dir` and `extra` (`--dump-dom`, `--screenshot=…`); its output.
pub fn headless(chrome: &Path, dir: &Path, extra: &[&str], url: &str) -> Output {
    Command::new(chrome)
        .args(HEADLESS_FLAGS)
        .arg(format!("--user-data-dir={}", profile(dir).display()))
        .args(extra)
        .arg(url)
        .output()
        .expect("run chromium")
}

/// What a page shows, from Chromium's `--dump-dom` (`out`): the DOM
/// without its `<script>` elements. The live page's and the hall's scripts
/// are inlined into them (issue 42 §7), as the games' states always were:
/// their words (a link's text, a move) are not what the page shows.
pub fn shown_dom(out: &Output) -> String {
    let dom = String::from_utf8_lossy(&out.stdout);
    let mut shown = String::with_capacity(dom.len());
    let mut rest: &str = &dom;
    while let Some(i) = rest.find("<script") {
        shown.push_str(&rest[..i]);
        rest = rest[i..]
            .find("</script>")
            .map_or("", |j| &rest[i + j + "</script>".len()..]);
    }
    shown.push_str(rest);
    shown
}

/// Headless Chromium's path, when installed.
pub fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            let out = Command::new("which").arg(name).output().ok()?;
            out.status
                .success()
                .then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
        })
}

/// [`chromium`], or `None` after [`skip_or_fail_under_ci`] said it is
/// not installed.
pub fn chromium_or_skip() -> Option<PathBuf> {
    let found = chromium();
    if found.is_none() {
        skip_or_fail_under_ci("chromium is not installed (apt-get install -y chromium)");
    }
    found
}

/// Chromium's path when both it and python3 (which drives it over the
/// DevTools pipe, [`CDP_DRIVER`]) are installed; otherwise `None` after
/// [`skip_or_fail_under_ci`] said why.
pub fn chromium_and_python() -> Option<PathBuf> {
    let chrome = chromium_or_skip()?;
    if !Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        skip_or_fail_under_ci("python3 is not installed");
        return None;
    }
    Some(chrome)
}

/// The start of a Python script that drives headless Chromium over the
/// DevTools pipe (`--remote-debugging-pipe`: fds 3 and 4, messages ended by
/// NUL): it reads `chrome, url, profile` from `sys.argv[1:4]`, starts the
/// browser and defines `send`, `reply` and `call` (a CDP command and its
/// result). The browser tests append what they do.
pub const CDP_DRIVER: &str = r#"
import json, os, subprocess, sys, time
chrome, url, profile = sys.argv[1:4]
to_chrome_r, to_chrome_w = os.pipe()
from_chrome_r, from_chrome_w = os.pipe()
def child():
    os.dup2(to_chrome_r, 3); os.dup2(from_chrome_w, 4)
p = subprocess.Popen([chrome] + HEADLESS_FLAGS + [
    "--remote-debugging-pipe", "--user-data-dir=" + profile, "about:blank"],
    pass_fds=(3, 4), preexec_fn=child, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.close(to_chrome_r); os.close(from_chrome_w)
out = os.fdopen(to_chrome_w, "wb"); inp = os.fdopen(from_chrome_r, "rb")
buf = b""; n = [0]
def send(method, params=None, session=None):
    n[0] += 1
    msg = {"id": n[0], "method": method, "params": params or {}}
    if session: msg["sessionId"] = session
    out.write(json.dumps(msg).encode() + b"\0"); out.flush()
    return n[0]
def reply(i):
    global buf
    while True:
        while b"\0" in buf:
            raw, buf = buf.split(b"\0", 1)
            m = json.loads(raw)
            if m.get("id") == i:
                if "error" in m: raise SystemExit("CDP error: %r" % m["error"])
                return m["result"]
        chunk = os.read(inp.fileno(), 1 << 16)
        if not chunk: raise SystemExit("chromium closed the pipe")
        buf += chunk
def call(method, params=None, session=None):
    return reply(send(method, params, session))
"#;

/// [`CDP_DRIVER`] (with [`HEADLESS_FLAGS`]) followed by `rest` (a test's
/// steps).
pub fn cdp_script(rest: &str) -> String {
    let flags = serde_json::to_string(&HEADLESS_FLAGS).unwrap();
    format!("HEADLESS_FLAGS = {flags}\n{CDP_DRIVER}{rest}")
}

/// Python steps after [`CDP_DRIVER`]: `page(width, height, mobile,
/// before)` opens a tab of that viewport (CSS px) on `url` (with the
/// script `before` run ahead of the page's own) and sets `s` (its
/// session), `plain_page(before)` the same at Chromium's own size;
/// `js(expr)` evaluates in it; `wait(expr, what, secs)` polls until truthy
/// (bounded, naming `what` and the page's text on timeout);
/// `click(selector)` / `click_el(expr)` press the element's centre with the
/// mouse; `yes_at(box_id)` / `press_at(xy)` / `under(xy)`: where a
/// question's "yes" is seen, a press at a point whatever is there now, and
/// what is there; `type_into(selector, text)` types; `log_in(name,
/// secret)`; `console_page(width, height, mobile, before)`: [`page`] logged
/// in as `name`, `secret` (`sys.argv[4:6]`); `button_in(scope_selector,
/// text_start)`: the JS expression of
/// the first button there whose text starts so; `confirm_in(box_id)` /
/// `outcome_in(box_id)`: a ruling's question confirmed, its outcome;
/// `shot(name)`: a screenshot, `NAME.png` in the test's directory; `with
/// steps() as res:` runs a test's steps (the indented block) that fill the
/// dict `res`, prints `res` as JSON when they end or fail (so a failure
/// shows what was seen so far) and closes Chromium.
pub const CDP_PAGE: &str = r##"
import contextlib
s = None
# The arbiter and his pass phrase, when given (sys.argv[4:6]).
name, secret = (sys.argv[4:6] + ["", ""])[:2]
@contextlib.contextmanager
def steps():
    res = {}
    try:
        yield res
        print(json.dumps(res), flush=True)
    except SystemExit:
        print(json.dumps(res), flush=True); raise
    finally:
        p.kill()
def js(expr):
    r = call("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True}, s)
    if "exceptionDetails" in r: raise SystemExit("page error: %r" % r["exceptionDetails"])
    return r["result"].get("value")
def wait(expr, what, secs=60):
    deadline = time.time() + secs
    while True:
        v = js("(() => { try { return " + expr + "; } catch (e) { return null; } })()")
        if v: return v
        if time.time() > deadline: raise SystemExit("timed out waiting for " + what + "; page: " + (js("document.body ? document.body.innerText : ''") or ""))
        time.sleep(0.2)
def click_el(expr):
    press_at(js("(() => { const e = " + expr + "; e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"))
def click(selector):
    click_el("document.querySelector(%s)" % json.dumps(selector))
def type_into(selector, text):
    click(selector)
    js("document.querySelector(%s).value = ''" % json.dumps(selector))
    if text: call("Input.insertText", {"text": text}, s)
def button_in(scope, start):
    return "Array.from(document.querySelectorAll(%s)).find((b) => b.textContent.startsWith(%s))" % (json.dumps(scope + " button"), json.dumps(start))
def shot(name):
    # A screenshot of the page as it is now: NAME.png beside the profile
    # (the test's directory); returns its path.
    import base64
    data = call("Page.captureScreenshot", {"format": "png"}, s)["data"]
    path = os.path.join(os.path.dirname(sys.argv[3]), name + ".png")
    open(path, "wb").write(base64.b64decode(data))
    return path
def viewport(width, height, mobile):
    call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 2 if mobile else 1, "mobile": mobile}, s)
def tab(before=None):
    global s
    target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
    s = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    call("Page.enable", session=s)
    call("Runtime.enable", session=s)
    if before: call("Page.addScriptToEvaluateOnNewDocument", {"source": before}, s)
def page(width, height, mobile, before=None):
    tab(before)
    viewport(width, height, mobile)
    call("Page.navigate", {"url": url}, s)
def plain_page(before=None):
    tab(before)
    call("Page.navigate", {"url": url}, s)
def yes_at(box_id):
    # Where the arbiter sees a question's "yes" (viewport px).
    return js("(() => { const y = document.getElementById(%s).querySelector('.confirm-yes'); y.scrollIntoView({block: 'center'}); const r = y.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()" % json.dumps(box_id))
def press_at(xy):
    # His finger lands where he saw it, whatever is there now.
    for t in ("mousePressed", "mouseReleased"):
        call("Input.dispatchMouseEvent", {"type": t, "x": xy[0], "y": xy[1], "button": "left", "clickCount": 1}, s)
def under(xy):
    return js("(() => { const e = document.elementFromPoint(%f, %f); return e ? (e.className || e.tagName) + ': ' + e.textContent.slice(0, 80) : ''; })()" % (xy[0], xy[1]))
def console_page(width, height, mobile, before=None):
    # The console at `url` as the arbiter `name` (sys.argv[4], pass phrase
    # sys.argv[5]) sees it: a tab of that viewport, logged in.
    page(width, height, mobile, before)
    log_in(name, secret)
def log_in(who, secret):
    wait("(!document.getElementById('login').hidden && !!document.getElementById('name')) || document.getElementById('who').textContent.includes(%s)" % json.dumps(who), "the login form")
    if js("document.getElementById('who').textContent.includes(%s)" % json.dumps(who)): return
    type_into("#name", who); type_into("#secret", secret)
    click("#login-button")
    wait("document.getElementById('who').textContent.includes(%s)" % json.dumps(who), "the login of " + who)
def confirm_in(box_id):
    # The confirmation of a ruling: its question, then pressing its "yes".
    box = "document.getElementById(%s)" % json.dumps(box_id)
    q = wait(box + ".querySelector('.confirm .question').textContent", "the confirmation in " + box_id)
    # A click lands at the coordinates measured just before it: an alert
    # arriving in between moves the page (the alerts stand above), so the
    # click can miss. Pressed again while the question still stands (a
    # press that landed takes the question away: never applied twice).
    for _ in range(5):
        click_el(box + ".querySelector('.confirm-yes')")
        gone = time.time() + 2
        while time.time() < gone and js(box + ".querySelector('.confirm-yes') !== null"):
            time.sleep(0.1)
        if not js(box + ".querySelector('.confirm-yes') !== null"):
            break
    return q
def outcome_in(box_id):
    # The reply box's outcome, "applied: …" or "error: …" (not "Sending…").
    box = "document.getElementById(%s)" % json.dumps(box_id)
    return wait("(() => { const p = " + box + ".querySelector('p'); return p && /applied|error/.test(p.className) ? p.className.split(' ').pop() + ': ' + p.textContent : ''; })()", "the outcome in " + box_id)
"##;

/// The python3 command of a browser test's steps: [`CDP_PAGE`] then
/// `steps` (which print one JSON object last, as [`CDP_PAGE`]'s `steps()`
/// does), Chromium `chrome` on `url` with a fresh profile under `dir`,
/// `args` after (`sys.argv[4:]`). Not started.
pub fn steps_command(chrome: &Path, url: &str, dir: &Path, steps: &str, args: &[&str]) -> Command {
    let mut c = Command::new("python3");
    c.args(["-c", &cdp_script(&format!("{CDP_PAGE}{steps}"))])
        .arg(chrome)
        .arg(url)
        .arg(profile(dir))
        .args(args);
    c
}

/// The JSON that a browser run `out` printed last. Panics, with python's
/// stderr, what was printed and the log `log` (the relay's or the board's
/// stderr file), when the run failed.
pub fn steps_result(out: &Output, log: &Path) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the browser run failed: {}\nso far: {stdout}\nlog: {}",
        String::from_utf8_lossy(&out.stderr),
        std::fs::read_to_string(log).unwrap_or_default()
    );
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// Runs a browser test's steps ([`steps_command`]) to their end: the
/// printed JSON ([`steps_result`]).
pub fn run_steps(
    chrome: &Path,
    url: &str,
    dir: &Path,
    steps: &str,
    args: &[&str],
    log: &Path,
) -> Value {
    let out = steps_command(chrome, url, dir, steps, args)
        .output()
        .expect("run python3");
    steps_result(&out, log)
}

/// A FEN's placement as the live page's board shows it (`data-piece` per
/// `data-square`): every square, its piece letter or "" when empty.
pub fn fen_squares(fen: &str) -> Value {
    let mut m = serde_json::Map::new();
    for (i, row) in fen.split(' ').next().unwrap().split('/').enumerate() {
        let mut f = 0u8;
        for ch in row.chars() {
            if let Some(n) = ch.to_digit(10) {
                for _ in 0..n {
                    m.insert(format!("{}{}", (b'a' + f) as char, 8 - i), json!(""));
                    f += 1;
                }
            } else {
                m.insert(
                    format!("{}{}", (b'a' + f) as char, 8 - i),
                    json!(ch.to_string()),
                );
                f += 1;
            }
        }
    }
    Value::Object(m)
}
