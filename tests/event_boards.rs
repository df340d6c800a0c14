//! The boards of a round configured from `eboard event`'s pairings (issue
//! 15 item 4): over a real broker (mosquitto) and from config files,
//! showing their players in `/boards.json` and the PGN and telling a
//! visually impaired player who plays; a board switched on before its
//! pairing, and a finished board taking the next round once its result is
//! confirmed. The pairing file (`tests/data/pairings-open-2026.trf`) and
//! its reading are `tests/event.rs`.

use crate::common;

use common::mosquitto::broker;
use common::pairings::TRF_FILE;
use common::*;
use serde_json::Value;
use std::path::Path;

/// The board's snapshot in `/boards.json` once the game has its `round`.
fn snapshot(addr: &str, game: &str) -> Value {
    poll(30, "the board's snapshot", || {
        let v: Value = serde_json::from_str(&get(addr, "/boards.json")).ok()?;
        v.as_array()?
            .iter()
            .find(|s| {
                s["info"]["round"]
                    .as_u64()
                    .map(|r| format!("{r}.{}", s["info"]["board"]))
                    == Some(game.to_owned())
            })
            .cloned()
    })
}

fn board_dir(dir: &Path, b: u32) -> std::path::PathBuf {
    let d = dir.join(format!("b{b}"));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn boards_started_after_the_pairing_show_their_players_from_the_broker() {
    let dir = tempdir("event-mqtt");
    let Some(broker) = broker(&dir) else {
        return;
    };
    let url = broker.url();
    // A stale configuration of a board beyond this round: cleared by --boards.
    let out = eboard_ok(&[
        "event",
        TRF_FILE,
        "--round",
        "4",
        "--event",
        "DM 2026",
        "--time-control",
        "40/5400+30:1800+30",
        "--mqtt",
        &url,
        "--boards",
        "6",
    ]);
    assert!(out.contains("published 4 board configurations"), "{out}");

    let mqtt = format!("[mqtt]\nurl = \"{url}\"\nboard_config = true\nboard_config_wait = 10\n");
    let mut boards = Vec::new();
    for b in [1u32, 2] {
        let d = board_dir(&dir, b);
        let trace = opera_trace(&d, u64::from(b));
        // The file says round 1 and Morphy - Karl: the broker's pairing wins.
        let cfg = config(&d, 1, b, &mqtt);
        let j = d.join("j.jsonl");
        boards.push(run_board(
            &d,
            &cfg,
            Some(&trace),
            &["--journal", j.to_str().unwrap(), "--speed", "30"],
        ));
    }
    let s1 = snapshot(&boards[0].addr, "4.1");
    assert_eq!(s1["info"]["white"]["name"], "Iversen,Emil");
    assert_eq!(s1["info"]["white"]["fide_id"], 1400009);
    assert_eq!(s1["info"]["black"]["title"], "WGM");
    assert_eq!(s1["info"]["black"]["rating"], 2350);
    assert_eq!(s1["info"]["time_control"], "40/5400+30:1800+30");
    let s2 = snapshot(&boards[1].addr, "4.2");
    assert_eq!(s2["info"]["white"]["name"], "Frandsen,Lars");
    assert_eq!(s2["info"]["black"]["name"], "Andersen,Mads");
    // The PGN and the LiveChess tree carry the same players.
    let pgn = get(&boards[1].addr, "/games.pgn");
    for tag in [
        "[Round \"4.2\"]",
        "[White \"Frandsen,Lars\"]",
        "[Black \"Andersen,Mads\"]",
        "[BlackFideId \"1400001\"]",
        "[BlackTitle \"GM\"]",
        "[BlackElo \"2560\"]",
        "[WhiteElo \"2210\"]",
        "[TimeControl \"40/5400+30:1800+30\"]",
    ] {
        assert!(pgn.contains(tag), "{tag} in {pgn}");
    }
    let index: Value = serde_json::from_str(&get(&boards[0].addr, "/round-4/index.json")).unwrap();
    assert_eq!(index["pairings"][0]["black"]["lname"], "Dahl");
    assert_eq!(index["pairings"][0]["black"]["fideid"], 1500004);

    // The next round published while the games go on: alerted to the
    // arbiter, never applied to the game in progress.
    poll(60, "moves on board 1", || {
        (get(&boards[0].addr, "/games.pgn").matches("[%clk").count() >= 4).then_some(())
    });
    let bearer = format!("Bearer {ARBITER_TOKEN}");
    let alerts = SseReader::open(
        &boards[0].addr,
        "/arbiter/events",
        &[("Authorization", bearer.as_str())],
    );
    eboard_ok(&[
        "event", TRF_FILE, "--round", "3", "--event", "DM 2026", "--mqtt", &url,
    ]);
    let got = alerts.until(30, |v| v["type"] == "pairing_alert");
    let (_, alert) = got
        .iter()
        .find(|(_, v)| v["type"] == "pairing_alert")
        .unwrap();
    assert_eq!(alert["game"], "4.1");
    assert!(
        alert["error"].as_str().unwrap().contains("game 3.1"),
        "{alert}"
    );
    assert!(
        alert["action"].as_str().unwrap().contains("not applied"),
        "{alert}"
    );
    let pgn = get(&boards[0].addr, "/games.pgn");
    assert!(
        pgn.contains("[White \"Iversen,Emil\"]") && pgn.contains("[Round \"4.1\"]"),
        "{pgn}"
    );
    let log = std::fs::read_to_string(&boards[0].stderr).unwrap();
    assert!(log.contains("WARN") && log.contains("pairing:"), "{log}");

    // A restarted board keeps its journaled game (4.1), though the broker
    // now has round 3's pairing: refused and alerted, never mixed.
    drop(boards);
    let d = board_dir(&dir, 1);
    let cfg = d.join("board1.toml");
    let j = d.join("j.jsonl");
    let again = run_board(&d, &cfg, None, &["--journal", j.to_str().unwrap()]);
    let s = snapshot(&again.addr, "4.1");
    assert_eq!(s["info"]["white"]["name"], "Iversen,Emil");
    let log = poll(20, "the refusal in the log", || {
        let l = std::fs::read_to_string(&again.stderr).unwrap();
        l.contains("the journal holds game 4.1").then_some(l)
    });
    assert!(log.contains("the pairing is game 3.1"), "{log}");
}

#[test]
fn a_board_without_a_broker_takes_its_config_file() {
    let dir = tempdir("event-file-board");
    let out = dir.join("round4");
    eboard_ok(&[
        "event",
        TRF_FILE,
        "--round",
        "4",
        "--out",
        out.to_str().unwrap(),
    ]);
    let d = board_dir(&dir, 3);
    let cfg = config(&d, 1, 3, "");
    let trace = opera_trace(&d, 3);
    let frag = out.join("board-3.toml");
    let b = run_board(
        &d,
        &cfg,
        Some(&trace),
        &["--pairing", frag.to_str().unwrap(), "--speed", "30"],
    );
    let s = snapshot(&b.addr, "4.3");
    assert_eq!(s["info"]["white"]["name"], "Berg,Ola");
    assert_eq!(s["info"]["black"]["name"], "Holm,Anders");
    let pgn = get(&b.addr, "/games.pgn");
    assert!(
        pgn.contains("[WhiteFideId \"1500002\"]") && pgn.contains("[WhiteTitle \"IM\"]"),
        "{pgn}"
    );
    // Another board's file is refused, naming both numbers.
    let d = board_dir(&dir, 4);
    let cfg = config(&d, 1, 4, "");
    let o = eboard_run(&cfg, &["--pairing", frag.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("the pairing is for board 3, this board is [game] board = 4"),
        "{err}"
    );
}

#[test]
fn the_vi_player_hears_who_plays_on_the_board() {
    let have = |p: &str| {
        std::process::Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success() || !o.stdout.is_empty())
    };
    if !have("espeak-ng") || !have("sox") || !have("aplay") {
        common::skip::skip_or_fail_under_ci(
            "espeak-ng, sox or aplay (alsa-utils) is not installed",
        );
        return;
    }
    let dir = tempdir("event-vi");
    let out = dir.join("round4");
    eboard_ok(&[
        "event",
        TRF_FILE,
        "--round",
        "4",
        "--out",
        out.to_str().unwrap(),
    ]);
    // Each player's device is a WAV file (ALSA's file plugin).
    let mut conf = String::new();
    for name in ["white", "black"] {
        conf.push_str(&format!(
            "pcm.{name} {{\n type file\n slave.pcm \"null\"\n file \"{}\"\n format \"wav\"\n}}\n",
            dir.join(format!("{name}.wav")).display()
        ));
    }
    let rc = dir.join("asoundrc");
    std::fs::write(&rc, conf).unwrap();
    let cfg = dir.join("board3.toml");
    std::fs::write(
        &cfg,
        "[event]\nname = \"DM 2026\"\nrules = \"fide-2009\"\nspeak = true\n\
         [game]\nboard = 3\nvi_player = \"b\"\n\
         [voice.white]\ndevice = \"white\"\n[voice.black]\ndevice = \"black\"\n",
    )
    .unwrap();
    let alsa = format!("/usr/share/alsa/alsa.conf:{}", rc.display());
    let frag = out.join("board-3.toml");
    // No records: the pairing is all there is to say.
    let b = run_board_with_env(
        &dir,
        &cfg,
        None,
        &["--pairing", frag.to_str().unwrap()],
        &[("ALSA_CONFIG_PATH", alsa.as_str())],
    );
    let log = poll(20, "the pairing said", || {
        let l = std::fs::read_to_string(&b.stderr).unwrap();
        l.contains("saying the pairing").then_some(l)
    });
    // fide-2009 speaks Danish; names as said, given name first.
    assert!(
        log.contains("saying the pairing: Runde 4, bræt 3. Hvid: Ola Berg. Sort: Anders Holm."),
        "{log}"
    );
    let black = dir.join("black.wav");
    let level = poll(30, "Black's audio", || {
        let o = std::process::Command::new("sox")
            .arg(&black)
            .args(["-n", "stat"])
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&o.stderr).to_string();
        let rms: f64 = text
            .lines()
            .find(|l| l.starts_with("RMS     amplitude"))?
            .split(':')
            .nth(1)?
            .trim()
            .parse()
            .ok()?;
        (rms > 0.02).then_some(rms)
    });
    assert!(level > 0.02);
    assert!(dir.join("white.wav").exists(), "both players hear it");
}

/// The first game of the board at `addr` when it is `want` (`round.board`).
fn first_game(addr: &str, want: &str) -> Option<Value> {
    let v: Value = serde_json::from_str(&try_get(addr, "/boards.json")?).ok()?;
    let s = v.as_array()?.first()?.clone();
    (format!("{}.{}", s["info"]["round"], s["info"]["board"]) == want).then_some(s)
}

/// GET that tolerates a board not listening (it restarts).
fn try_get(addr: &str, path: &str) -> Option<String> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .ok()?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").ok()?;
    let mut buf = String::new();
    s.read_to_string(&mut buf).ok()?;
    let (head, body) = buf.split_once("\r\n\r\n")?;
    head.contains(" 200 ").then(|| body.to_owned())
}

#[test]
fn a_board_switched_on_before_the_pairing_takes_it_when_it_comes() {
    let dir = tempdir("event-early");
    let Some(broker) = broker(&dir) else {
        return;
    };
    let url = broker.url();
    let mqtt = format!("[mqtt]\nurl = \"{url}\"\nboard_config = true\nboard_config_wait = 1\n");
    let cfg = config(&dir, 1, 2, &mqtt);
    let journal = dir.join("j.jsonl");
    let addr = free_loopback_addr();
    // Nothing on the broker yet: the board starts with its file's game.
    let board = spawn_at(
        &refs(&run_args(&cfg, None, Some(&journal), &[])),
        &addr,
        &dir,
    );
    let game = |want: &'static str| {
        let addr = addr.clone();
        move || first_game(&addr, want)
    };
    let s = poll(30, "the file's game", game("1.2"));
    assert_eq!(s["info"]["white"]["name"], "Morphy, Paul");
    // The pairing comes before any record: the board restarts with it.
    eboard_ok(&[
        "event", TRF_FILE, "--round", "4", "--event", "DM 2026", "--mqtt", &url,
    ]);
    let s = poll(30, "the pairing's game", game("4.2"));
    assert_eq!(s["info"]["white"]["name"], "Frandsen,Lars");
    assert_eq!(s["info"]["black"]["fide_id"], 1400001);
    let text = std::fs::read_to_string(&board.stderr).unwrap();
    assert!(
        text.contains("restarting to take the new pairing"),
        "{text}"
    );
    assert!(
        dir.join("j.jsonl.unplayed").exists(),
        "the unbegun journal set aside"
    );
}

/// Between rounds (issue 15: pairings in, boards configured): a board whose
/// game has ended takes the next round's pairing once the arbiter has
/// confirmed the result (DSU 004 §15), never before; the finished game is
/// archived (`--journal-dir`).
#[test]
fn a_finished_board_takes_the_next_round_once_its_result_is_confirmed() {
    let dir = tempdir("event-next-round");
    let Some(broker) = broker(&dir) else {
        return;
    };
    let url = broker.url();
    let mqtt = format!("[mqtt]\nurl = \"{url}\"\nboard_config = true\nboard_config_wait = 1\n");
    let cfg = config(&dir, 1, 2, &mqtt);
    let trace = opera_trace(&dir, 5);
    let jdir = dir.join("state");
    let addr = free_loopback_addr();
    let args = [
        "run",
        "--config",
        cfg.to_str().unwrap(),
        "--journal-dir",
        jdir.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
        "--speed",
        "100",
    ];
    let board = spawn_at(&args, &addr, &dir);
    let game = |want: &'static str| {
        let addr = addr.clone();
        move || first_game(&addr, want)
    };
    // Round 1's game is played to its end.
    poll(60, "the game's end", || {
        try_get(&addr, "/games.pgn")?
            .contains("[Result \"1-0\"]")
            .then_some(())
    });
    let bearer = format!("Bearer {ARBITER_TOKEN}");
    let alerts = SseReader::open(
        &addr,
        "/arbiter/events",
        &[("Authorization", bearer.as_str())],
    );
    // The next round is paired before the arbiter has confirmed the result:
    // not taken.
    eboard_ok(&[
        "event", TRF_FILE, "--round", "4", "--event", "DM 2026", "--mqtt", &url,
    ]);
    let got = alerts.until(30, |v| v["type"] == "pairing_alert");
    let (_, alert) = got
        .iter()
        .rev()
        .find(|(_, v)| v["type"] == "pairing_alert")
        .unwrap();
    assert!(
        alert["action"]
            .as_str()
            .unwrap()
            .contains("confirmed its result"),
        "{alert}"
    );
    assert!(game("1.2")().is_some(), "still round 1's game");
    // The board restarted now (a power cut; the next round retained on the
    // broker): the finished game is resumed for its confirmation, its
    // result still provisional, the pairing still waits.
    drop(alerts);
    drop(board);
    let board = spawn_at(&args, &addr, &dir);
    poll(30, "the resumed game's provisional result", || {
        let pgn = try_get(&addr, "/games.pgn")?;
        (pgn.contains("[Result \"1-0\"]") && pgn.contains("[ResultStatus \"provisional\"]"))
            .then_some(())
    });
    assert!(game("1.2")().is_some(), "still round 1's game");
    let text = std::fs::read_to_string(&board.stderr).unwrap();
    assert!(
        text.contains("the last game ended 1-0 and its result is not confirmed: resumed")
            && text.contains("not applied yet"),
        "{text}"
    );
    // The arbiter confirms: the board archives the game and takes round 4.
    let (status, body) = request(
        &addr,
        "POST",
        "/arbiter/confirm",
        &[("Authorization", bearer.as_str())],
        "",
    );
    assert_eq!(status, 200, "{body}");
    let s = poll(30, "the next round's game", game("4.2"));
    assert_eq!(s["info"]["white"]["name"], "Frandsen,Lars");
    let archived: Vec<_> = std::fs::read_dir(jdir.join("games"))
        .unwrap()
        .filter_map(|e| e.ok())
        .collect();
    assert_eq!(
        archived.len(),
        2,
        "the finished game's journal and events archived"
    );
    let text = std::fs::read_to_string(&board.stderr).unwrap();
    assert!(
        text.contains("restarting to take the new pairing"),
        "{text}"
    );
}
