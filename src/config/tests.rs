use super::*;
use crate::model::WordChoice;

#[test]
fn appendix_e_and_clock_keys() {
    // The header and the clock device these keys make: app::settings' tests.
    let c = parse("[game]\nvi_player = \"b\"\n[board]\ntactile_hw = \"hw/tactile-matrix.toml\"\n[clock]\ndevice = \"dgt3000\"\nport = \"/dev/ttyACM0\"\n").unwrap();
    assert_eq!(c.game.vi_player.as_deref(), Some("b"));
    let e = parse("[board]\ntactile_hw = \"hw/tactile-matrix.toml\"\n").unwrap_err();
    assert_eq!(e.key, "board.tactile_hw");
    let e = parse("[game]\nvi_player = \"x\"\n").unwrap_err();
    assert!(e.to_string().contains("vi_player"), "{e}");
    let e = parse("[event]\nsupervision = \"some\"\n").unwrap_err();
    assert!(e.to_string().contains("supervision"), "{e}");
}

#[test]
fn voice_outputs_per_listener() {
    let c = parse(
        "[game]\nwords = \"scandinavian\"\n\
         [voice.white]\ndevice = \"pair\"\nchannel = \"left\"\n\
         [voice.black]\ndevice = \"pair\"\nchannel = \"right\"\nspeed = 220\nvolume = 140\nvariant = \"f3\"\n\
         [voice.arbiter]\n",
    )
    .unwrap();
    assert_eq!(c.game.words, Some(WordChoice::National));
    let b = c.voice.black.as_ref().unwrap();
    assert_eq!(
        (b.speed, b.volume, b.variant.as_deref()),
        (Some(220), Some(140), Some("f3"))
    );
    assert!(c.voice.arbiter.is_some());
    let e = parse("[voice.white]\nchannel = \"middle\"\n").unwrap_err();
    assert_eq!(e.key, "voice.white.channel");
    assert_eq!(e.line, Some(2));
    assert!(e.to_string().contains("both, left, right"), "{e}");
    let e = parse("[voice.black]\nvolume = 300\n").unwrap_err();
    assert_eq!(e.key, "voice.black.volume");
    let e = parse("[voice.black]\nspeed = 10\n").unwrap_err();
    assert_eq!(e.key, "voice.black.speed");
    let e = parse("[voice.black]\nvariant = \"f3; rm\"\n").unwrap_err();
    assert_eq!(e.key, "voice.black.variant");
    assert!(
        parse("[voice.black]\nloudness = 3\n").is_err(),
        "unknown key"
    );
}

fn parse(text: &str) -> Result<Config, ConfigFileError> {
    Config::parse(text, "board.toml")
}

#[test]
fn a_full_file_parses() {
    let c = parse(
        r#"
[event]
name = "DM 2026"
date = "2026.04.03"
rules = "fide-2009"
time_control = "40/5400+30:1800+30"
delay = 900

[game]
round = 3
board = 2

[game.white]
name = "Larsen, Bent"
fide_id = 1400000
title = "GM"

[arbiter]
token = "s3cret"

[board]
source = "hw"
hw = "hw/rev1.toml"

[clock]
device = "dgt3000"
port = "/dev/i2c-1"
"#,
    )
    .unwrap();
    assert_eq!(c.round_board(), "3.2");
    assert_eq!(c.event.delay, Some(900));
    assert_eq!(c.clock.device, ClockDevice::Dgt3000);
    assert_eq!(c.source.lines.get("game.white.title"), Some(&16));
    assert_eq!(c.error_at("clock.port", "x").line, Some(27));
}

#[test]
fn mqtt_login_keys_parse_and_the_password_is_not_printed() {
    // The broker's URL, login and CA file are checked at start-up, with
    // these keys' lines: app::settings' tests.
    let c =
        parse("[mqtt]\nurl = \"mqtts://broker\"\nusername = \"b1\"\npassword = \"pw\"\n").unwrap();
    assert_eq!(c.mqtt.as_ref().unwrap().url, "mqtts://broker");
    let m = c.mqtt.as_ref().unwrap();
    assert_eq!(m.username.as_deref(), Some("b1"));
    assert_eq!(m.password.as_deref(), Some("pw"));
    assert!(!format!("{c:?}").contains("pw"));
    assert_eq!(c.error_at("mqtt.password", "x").line, Some(4));
    let e = parse("[mqtt]\nurl = \"mqtt://broker\"\npasword = \"x\"\n").unwrap_err();
    assert_eq!((e.line, e.key.as_str()), (Some(3), "mqtt.pasword"), "{e}");
    assert!(e.message.contains("password"), "lists the keys: {e}");
}

#[test]
fn unknown_key_names_file_line_and_key() {
    let e = parse("[event]\nname = \"x\"\n\n[clock]\ndevise = \"dgt3000\"\n").unwrap_err();
    assert_eq!(e.line, Some(5), "{e}");
    assert_eq!(e.key, "clock.devise", "{e}");
    assert!(e.message.contains("device"), "says what is allowed: {e}");
    assert!(e
        .to_string()
        .starts_with("board.toml:5: key 'clock.devise'"));
}

#[test]
fn bad_enum_value_lists_the_allowed_ones() {
    let e = parse("[board]\nsource = \"usb\"\n").unwrap_err();
    assert_eq!((e.line, e.key.as_str()), (Some(2), "board.source"), "{e}");
    assert!(
        e.message.contains("trace") && e.message.contains("hw"),
        "{e}"
    );
}

#[test]
fn server_keys_are_checked_where_they_stand() {
    let e = parse("[event]\nname = \"x\"\n[server]\ntls = \"maybe\"\n").unwrap_err();
    assert_eq!((e.line, e.key.as_str()), (Some(4), "server.tls"), "{e}");
    assert!(e.message.contains("auto, files, off"), "{e}");
    let e = parse("[server]\ntls = \"files\"\ntls_cert = \"c.pem\"\n").unwrap_err();
    assert_eq!(e.key, "server.tls", "{e}");
    let e = parse("[server]\ntls_key = \"k.pem\"\n").unwrap_err();
    assert_eq!((e.line, e.key.as_str()), (Some(2), "server.tls_key"), "{e}");
    let e = parse("[server]\n\nidle_timeout_s = 0\n").unwrap_err();
    assert_eq!(
        (e.line, e.key.as_str()),
        (Some(3), "server.idle_timeout_s"),
        "{e}"
    );
    let c = parse("[server]\nmax_connections_per_address = 0\ntls = \"off\"\n").unwrap();
    assert_eq!(c.server.max_connections_per_address, Some(0));
}

#[test]
fn semantic_errors_name_the_key_line() {
    let e = parse("[event]\nname = \"x\"\nrules = \"fide-1999\"\n").unwrap_err();
    assert_eq!((e.line, e.key.as_str()), (Some(3), "event.rules"), "{e}");
    let e = parse("[event]\ndelay = 7200\n").unwrap_err();
    assert_eq!((e.line, e.key.as_str()), (Some(2), "event.delay"), "{e}");
    let e = parse("[game.black]\ntitle = \"Dr\"\n").unwrap_err();
    assert_eq!(
        (e.line, e.key.as_str()),
        (Some(2), "game.black.title"),
        "{e}"
    );
    assert!(e.message.contains("GM"));
    let e = parse("[event]\ndelay = \"ten\"\n").unwrap_err();
    assert_eq!((e.line, e.key.as_str()), (Some(2), "event.delay"), "{e}");
    // The player's device needs the game's VI player.
    let e = parse("[player]\nname = \"Karl\"\ntoken = \"t\"\n").unwrap_err();
    assert_eq!((e.line, e.key.as_str()), (Some(3), "player.token"), "{e}");
    let c = parse("[game]\nvi_player = \"b\"\n[player]\ntoken = \"t\"\n").unwrap();
    assert_eq!(c.player.token.as_deref(), Some("t"));
}

#[test]
fn the_rounds_scheduled_start_as_text_or_a_toml_date_time() {
    let c = parse("[event]\nsession_start = \"2026-11-26T15:00:00+01:00\"\n").unwrap();
    assert_eq!(
        c.event.session_start.as_deref(),
        Some("2026-11-26T15:00:00+01:00")
    );
    let c = parse("[event]\nsession_start = 2026-11-26T14:00:00Z\n").unwrap();
    assert_eq!(
        c.event.session_start.as_deref(),
        Some("2026-11-26T14:00:00Z")
    );
    // No offset (as text or as a TOML local date-time), a number: the
    // file's line and the key.
    for bad in [
        "\"2026-11-26T15:00:00\"",
        "2026-11-26T15:00:00",
        "\"2026-02-30T15:00:00+01:00\"",
        "1500",
    ] {
        let e = parse(&format!("[event]\nname = \"x\"\nsession_start = {bad}\n")).unwrap_err();
        assert_eq!(e.key, "event.session_start", "{bad}: {e}");
        assert_eq!(e.line, Some(3), "{bad}: {e}");
    }
}

/// `[event] time_zone` (issue 40 §9): an IANA name; a bad one is refused
/// naming the file, the key, its line and the value.
#[test]
fn the_events_time_zone_is_an_iana_name() {
    let c = parse("[event]\ntime_zone = \"Europe/Copenhagen\"\n").unwrap();
    assert_eq!(c.time_zone().name(), "Europe/Copenhagen");
    let e = parse("[event]\nname = \"x\"\ntime_zone = \"CEST+1\"\n").unwrap_err();
    assert_eq!(e.key, "event.time_zone");
    assert_eq!(e.line, Some(3));
    let text = e.to_string();
    assert!(text.contains("\"CEST+1\""), "{text}");
    assert!(text.contains("board.toml"), "{text}");
}

/// Issue 41 §3: a control character in any value (a newline that would
/// forge a PGN tag, a terminal's escape, a bidirectional override) is
/// refused with the file, the value's line and the key.
#[test]
fn control_characters_are_refused_with_file_line_and_key() {
    let forged =
        "[event]\nname = \"DM\"\n\n[game.white]\nname = \"Morphy\\\"]\\n[Result \\\"0-1\\\"]\"\n";
    let e = parse(forged).unwrap_err();
    assert_eq!(
        (e.line, e.key.as_str()),
        (Some(5), "game.white.name"),
        "{e}"
    );
    assert!(
        e.to_string()
            .starts_with("board.toml:5: key 'game.white.name': U+000A (line feed) at character 9"),
        "{e}"
    );
    for (text, key) in [
        (
            "[event]\nsite = \"Odense\\u001b]0;x\\u0007\"\n",
            "event.site",
        ),
        ("[game.black]\nname = \"\\u202eKarl\"\n", "game.black.name"),
        ("[arbiter]\nname = \"a\\tb\"\n", "arbiter.name"),
        (
            "[mqtt]\nurl = \"mqtt://b\"\ncommand_keys = [\"ab\", \"c\\u0085\"]\n",
            "mqtt.command_keys.2",
        ),
    ] {
        let e = parse(text).unwrap_err();
        assert_eq!(e.key, key, "{e}");
        assert!(
            !e.to_string().chars().any(crate::model::text::is_control),
            "{e:?}"
        );
    }
    // A multi-line string is refused too (TOML allows one; a name cannot).
    let e = parse("[game.white]\nname = \"\"\"Mor\nphy\"\"\"\n").unwrap_err();
    assert_eq!(
        (e.line, e.key.as_str()),
        (Some(2), "game.white.name"),
        "{e}"
    );
    // Names beyond ASCII are names.
    assert!(parse("[game.white]\nname = \"Hølm, Änders\"\n").is_ok());
}
