//! The checks that need more than the config's text (the files it
//! names, the consumers' own rules), moved here from `config`'s tests
//! with the same inputs and assertions.
use super::*;
use crate::clock::open::DeviceSpec;
use crate::config::{Config, ConfigFileError};
use crate::model::{BoardId, ClockStartAt};
use crate::mqtt::{self};

fn parse(text: &str) -> Config {
    Config::parse(text, "board.toml").unwrap()
}

fn resolve(text: &str) -> Result<Startup, ConfigFileError> {
    Startup::resolve(&parse(text))
}

#[test]
fn the_clock_waits_for_the_start_on_the_sensors_unless_configured() {
    let none = parse("");
    assert_eq!(clock_start_at(&none, true), ClockStartAt::ArbiterOrPress);
    assert_eq!(clock_start_at(&none, false), ClockStartAt::RoundStart);
    let set = parse("[clock]\nstart_at = \"round_start\"\n");
    assert_eq!(clock_start_at(&set, true), ClockStartAt::RoundStart);
    let e = Config::parse("[clock]\nstart_at = \"soon\"\n", "board.toml").unwrap_err();
    assert_eq!((e.line, e.key.as_str()), (Some(2), "clock.start_at"), "{e}");
    assert!(e.message.contains("arbiter_or_press"), "{e}");
}

#[test]
fn the_feeds_carry_the_pgn_time_control_without_the_start_suffix() {
    // `@base` (online style) is eboard's own; the live page and the
    // LiveChess feed get the PGN tag, as the PGN writes it.
    for (text, tag) in [
        ("5400+30@base", "5400+30"),
        ("40/5400+30:1800+30", "40/5400+30:1800+30"),
    ] {
        let c = parse(&format!("[event]\ntime_control = \"{text}\"\n"));
        let info = game_info(&c, &game_header(&c, None), 0, 1.0, 0);
        assert_eq!(info.time_control.as_deref(), Some(tag), "{text}");
    }
}

#[test]
fn appendix_e_header_and_clock_device() {
    let c = parse("[game]\nvi_player = \"b\"\n[board]\ntactile_hw = \"hw/tactile-matrix.toml\"\n[clock]\ndevice = \"dgt3000\"\nport = \"/dev/ttyACM0\"\n");
    let h = game_header(&c, None);
    assert_eq!(h.boards, vec![BoardId::Main, BoardId::Tactile]);
    assert_eq!(h.vi_player, Some(shakmaty::Color::Black));
    assert!(matches!(
        clock_device(&c).unwrap(),
        DeviceSpec::Dgt3000 { .. }
    ));
    let c = parse("[clock]\ndevice = \"builtin\"\nwhite_pin = 17\n");
    assert_eq!(clock_device(&c).unwrap_err().key, "clock.black_pin");
}

#[test]
fn a_full_file_makes_the_round_header() {
    let c = parse("[event]\nname = \"DM 2026\"\n\n[game]\nround = 3\nboard = 2\n");
    assert_eq!(game_header(&c, None).round.as_deref(), Some("3.2"));
    assert_eq!(game_header(&c, None).event.as_deref(), Some("DM 2026"));
}

#[test]
fn mqtt_login_and_ca_files_name_their_keys() {
    let e = resolve("[mqtt]\nurl = \"mqtts://broker:70000\"\n").unwrap_err();
    assert_eq!((e.line, e.key.as_str()), (Some(2), "mqtt.url"), "{e}");
    let e = resolve("[mqtt]\nurl = \"mqtt://u:p@broker\"\n").unwrap_err();
    assert!(e.message.contains("logs"), "says why: {e}");
    let e = resolve("[mqtt]\nurl = \"mqtts://broker\"\n\nca_file = \"/nonexistent/ca.pem\"\n")
        .unwrap_err();
    assert_eq!((e.line, e.key.as_str()), (Some(4), "mqtt.ca_file"), "{e}");
    assert!(e.message.contains("/nonexistent/ca.pem"), "{e}");
    assert!(e
        .to_string()
        .starts_with("board.toml:4: key 'mqtt.ca_file': "));
    if std::env::var_os(mqtt::PASSWORD_ENV).is_none() {
        let e = resolve("[mqtt]\nurl = \"mqtt://broker\"\npassword = \"x\"\n").unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (Some(3), "mqtt.password"), "{e}");
    }
    let e = resolve("[lichess]\nround_id = \"AbCd1234\"\nca_file = \"/nonexistent/ca.pem\"\n")
        .unwrap_err();
    assert_eq!(
        (e.line, e.key.as_str()),
        (Some(3), "lichess.ca_file"),
        "{e}"
    );
    assert!(e
        .to_string()
        .starts_with("board.toml:3: key 'lichess.ca_file': "));
    let e = resolve(
        "[lichess]\nround_id = \"AbCd1234\"\nbase_url = \"http://h\"\nca_file = \"x.pem\"\n",
    )
    .unwrap_err();
    assert!(e.message.contains("https://"), "{e}");
}

#[test]
fn game_settings_errors_name_the_key_line() {
    let e = resolve("[event]\ntime_control = \"forty moves\"\n").unwrap_err();
    assert_eq!(
        (e.line, e.key.as_str()),
        (Some(2), "event.time_control"),
        "{e}"
    );
}

#[test]
fn the_dsu_regulations_give_15_minutes_default_time_under_any_edition() {
    // DSU 004 §11 (seed 004): 15 minutes after the round's announced
    // start, whatever the Laws' edition; the 2023 Laws alone give zero
    // (6.7.1), and an invitation's own default_time_min wins.
    let header = |event: &str| game_header(&parse(&format!("[event]\n{event}")), None);
    assert_eq!(header("rules = \"fide-2023\"\n").default_time_ms, None);
    assert_eq!(
        header("rules = \"fide-2023\"\nregulations = \"dsu-004\"\n").default_time_ms,
        Some(15 * 60_000)
    );
    assert_eq!(
        header("rules = \"fide-2001\"\nregulations = \"dsu-004\"\n").default_time_ms,
        Some(15 * 60_000)
    );
    assert_eq!(
        header("regulations = \"dsu-004\"\ndefault_time_min = 30\n").default_time_ms,
        Some(30 * 60_000)
    );
}
