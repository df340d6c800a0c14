//! The arbiter's console in the tests: the accounts' secrets, a pass
//! phrase's hash as `eboard token --hash` makes it, a login, and a
//! journal's records (docs/console.md).

use super::{cdp_script, eboard_with_input, http, spawn, Running};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// The pass phrase of the tests' arbiter, IA Hansen.
pub const SECRET: &str = "correct horse battery staple";
/// The relay's token on the boards (an account of role `relay`).
pub const RELAY_TOKEN: &str = "c157a79031e1c40f85931829bc5fc552";
/// The pass phrase of the tests' deputy, Deputy Dam (role `deputy`).
pub const DEPUTY_SECRET: &str = "deputy sees everything";

/// The `[[arbiter.accounts]]` of the console tests: IA Hansen (arbiter,
/// [`SECRET`]), Deputy Dam (deputy, [`DEPUTY_SECRET`]) when `deputy`, and
/// the hall's relay ([`RELAY_TOKEN`]). Each secret hashed as `eboard token
/// --hash` does.
pub fn accounts(deputy: bool) -> String {
    let mut a = format!(
        "[[arbiter.accounts]]\nname = \"IA Hansen\"\nsecret_hash = \"{}\"\n\n",
        secret_hash(SECRET)
    );
    if deputy {
        a.push_str(&format!(
            "[[arbiter.accounts]]\nname = \"Deputy Dam\"\nrole = \"deputy\"\nsecret_hash = \"{}\"\n\n",
            secret_hash(DEPUTY_SECRET)
        ));
    }
    a.push_str(&format!(
        "[[arbiter.accounts]]\nname = \"Hall relay\"\nrole = \"relay\"\ntoken = \"{RELAY_TOKEN}\"\n"
    ));
    a
}

/// An HTTP relay (`eboard relay --config DIR/relay.toml` made by
/// [`relay_config`] with `accounts`) following `boards` by their
/// addresses, started in `dir`.
pub fn relay_over(dir: &Path, accounts: &str, boards: &[&Running]) -> Running {
    let cfg = relay_config(dir, accounts);
    let urls: Vec<String> = boards
        .iter()
        .map(|r| format!("http://{}", r.addr))
        .collect();
    let mut args = vec!["relay", "--config", cfg.to_str().unwrap()];
    args.extend(urls.iter().map(String::as_str));
    spawn(&args, &[], dir)
}

/// The python3 command of a console test's browser steps: [`CDP_PAGE`]
/// then `steps` (which print one JSON object last, as [`CDP_PAGE`]'s
/// `steps()` does), Chromium `chrome` on `url` with its profile in
/// `DIR/profile`, `args` after (`sys.argv[4:]`). Not started.
pub fn console_steps_command(
    chrome: &Path,
    url: &str,
    dir: &Path,
    steps: &str,
    args: &[&str],
) -> Command {
    let mut c = Command::new("python3");
    c.args(["-c", &cdp_script(&format!("{CDP_PAGE}{steps}"))])
        .arg(chrome)
        .arg(url)
        .arg(dir.join("profile"))
        .args(args);
    c
}

/// Runs a console test's browser steps ([`console_steps_command`]).
/// Panics, with python's stderr, what was printed and the log `log` (the
/// relay's or the board's stderr file), when the run fails; the printed
/// JSON otherwise.
pub fn run_console_steps(
    chrome: &Path,
    url: &str,
    dir: &Path,
    steps: &str,
    args: &[&str],
    log: &Path,
) -> Value {
    let out = console_steps_command(chrome, url, dir, steps, args)
        .output()
        .expect("run python3");
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

/// The argon2id hash of `secret`, as `eboard token --hash` prints it.
pub fn secret_hash(secret: &str) -> String {
    let out = eboard_with_input(&["token", "--hash"], &format!("{secret}\n"));
    assert!(out.status.success(), "{out:?}");
    let h = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    assert!(h.starts_with("$argon2id$"), "{h}");
    h
}

/// Logs `name` in with `secret` at `addr` (`POST /console/login`, 200
/// expected); the whole `Set-Cookie` value.
pub fn login_set_cookie(addr: &str, name: &str, secret: &str) -> String {
    let body = serde_json::json!({"name": name, "secret": secret}).to_string();
    let (status, head, b) = http(addr, "POST", "/console/login", &[], &body);
    assert_eq!(status, 200, "{b}");
    head.lines()
        .find_map(|l| l.strip_prefix("set-cookie: "))
        .expect("a session cookie")
        .to_owned()
}

/// [`login_set_cookie`]'s `name=value`, for a `Cookie` header.
pub fn login(addr: &str, name: &str, secret: &str) -> String {
    login_set_cookie(addr, name, secret)
        .split(';')
        .next()
        .unwrap()
        .to_owned()
}

/// A journal's records (lines that are JSON), in order.
pub fn journal_records(journal: &Path) -> Vec<Value> {
    std::fs::read_to_string(journal)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// `DIR/relay.toml` for `eboard relay --config`: the relay's token on the
/// boards ([`RELAY_TOKEN`]) and `accounts` (its console's
/// `[[arbiter.accounts]]`, or more `[arbiter]` keys first).
pub fn relay_config(dir: &Path, accounts: &str) -> std::path::PathBuf {
    let p = dir.join("relay.toml");
    std::fs::write(
        &p,
        format!("[arbiter]\nrelay_token = \"{RELAY_TOKEN}\"\n{accounts}"),
    )
    .unwrap();
    p
}

/// A console's Ed25519 signing key made by `eboard rule --keygen` at
/// `DIR/NAME`: (its file, its public key in hex for `[mqtt] command_keys`).
pub fn console_key(dir: &Path, name: &str) -> (std::path::PathBuf, String) {
    let key = dir.join(name);
    let pk = super::eboard_ok(&["rule", "--keygen", key.to_str().unwrap()]);
    let pk = pk.trim().to_owned();
    assert_eq!(pk.len(), 64, "{pk}");
    (key, pk)
}

/// A board's config (round 1, `board`) following the broker at `url` and
/// taking rulings signed by public key `pk` (`[mqtt] command_keys`), with
/// `extra` keys of `[mqtt]` after.
pub fn signed_board_config(
    dir: &Path,
    url: &str,
    board: u32,
    pk: &str,
    extra: &str,
) -> std::path::PathBuf {
    super::config(
        dir,
        1,
        board,
        &format!("[mqtt]\nurl = \"{url}\"\ncommand_keys = [\"{pk}\"]\n{extra}"),
    )
}

/// A trace (`DIR/illegal.jsonl`, time control 5400+30) in which White
/// plays e2-e5, an illegal move, at `at_ms` of round time (lifted, placed
/// 200 ms later, the clock pressed 200 ms after that) and leaves it on the
/// board: the arbiter must restore.
pub fn illegal_trace(dir: &Path, at_ms: u64) -> std::path::PathBuf {
    let t = dir.join("illegal.jsonl");
    let text = super::TraceBuilder::new()
        .header("time_control", "5400+30")
        .lift(at_ms, "e2")
        .place(at_ms + 200, "e5")
        .press(at_ms + 400, "w")
        .text();
    std::fs::write(&t, text).unwrap();
    t
}

/// The arguments of `eboard rule`: a ruling `action` on board `board` of
/// the event "DM 2026" by `arbiter`, id `id`, signed with the key file
/// `key`, sent over the broker at `url`.
pub fn rule_args(
    key: &Path,
    url: &str,
    board: u32,
    action: &str,
    arbiter: &str,
    id: &str,
) -> Vec<String> {
    [
        "rule",
        "--key",
        key.to_str().unwrap(),
        "--mqtt",
        url,
        "--event",
        "DM 2026",
        "--board",
        &board.to_string(),
        "--action",
        action,
        "--arbiter",
        arbiter,
        "--id",
        id,
        // Pause and resume do not depend on the position: ply 0 holds.
        "--expect",
        "{\"ply\": 0}",
    ]
    .map(str::to_owned)
    .to_vec()
}

/// Python steps after [`super::CDP_DRIVER`] for the console's browser
/// tests: `page(width, height, mobile)` opens a tab of that viewport (CSS
/// px) on `url` and sets `s` (its session); `js(expr)` evaluates in it;
/// `wait(expr, what)` polls until truthy (bounded, naming `what` and the
/// page's text on timeout); `click(selector)` / `click_el(expr)` press the
/// element's centre with the mouse; `type_into(selector, text)` types;
/// `log_in(name, secret)`; `button_in(scope_selector, text_start)`: the JS
/// expression of the first button there whose text starts so;
/// `with steps() as res:` runs a test's steps (the indented block) that
/// fill the dict `res`, prints `res` as JSON when they end or fail (so a
/// failure shows what was seen so far) and closes Chromium.
pub const CDP_PAGE: &str = r##"
import contextlib
s = None
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
    box = js("(() => { const e = " + expr + "; e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
    for t in ("mousePressed", "mouseReleased"):
        call("Input.dispatchMouseEvent", {"type": t, "x": box[0], "y": box[1], "button": "left", "clickCount": 1}, s)
def click(selector):
    click_el("document.querySelector(%s)" % json.dumps(selector))
def type_into(selector, text):
    click(selector)
    js("document.querySelector(%s).value = ''" % json.dumps(selector))
    if text: call("Input.insertText", {"text": text}, s)
def button_in(scope, start):
    return "Array.from(document.querySelectorAll(%s)).find((b) => b.textContent.startsWith(%s))" % (json.dumps(scope + " button"), json.dumps(start))
def viewport(width, height, mobile):
    call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 2 if mobile else 1, "mobile": mobile}, s)
def page(width, height, mobile, before=None):
    global s
    target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
    s = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    call("Page.enable", session=s)
    call("Runtime.enable", session=s)
    if before: call("Page.addScriptToEvaluateOnNewDocument", {"source": before}, s)
    viewport(width, height, mobile)
    call("Page.navigate", {"url": url}, s)
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
