//! `eboard relay`: three board daemons merged into one feed, boards in order.

use crate::common;

use common::*;
use serde_json::Value;

#[test]
fn three_boards_merged_in_board_order() {
    let dir = tempdir("relay");
    let mut boards = Vec::new();
    // Started out of order: the relay orders them.
    for b in [2u32, 3, 1] {
        let d = dir.join(format!("b{b}"));
        std::fs::create_dir_all(&d).unwrap();
        let trace = opera_trace(&d, u64::from(b));
        let cfg = config(&d, 1, b, "");
        boards.push(run_board(&d, &cfg, Some(&trace), &["--speed", "60"]));
    }
    let urls: Vec<String> = boards
        .iter()
        .map(|r| format!("http://{}", r.addr))
        .collect();
    let mut args = vec!["relay"];
    args.extend(urls.iter().map(String::as_str));
    let relay = spawn(&args, &[], &dir);
    let stream = SseReader::open(&relay.addr, "/events", &[]);

    let pgn = poll(60, "three results at the relay", || {
        let p = get(&relay.addr, "/games.pgn");
        (p.matches("[Result \"1-0\"]").count() == 3).then_some(p)
    });
    let rounds: Vec<&str> = pgn.lines().filter(|l| l.starts_with("[Round ")).collect();
    assert_eq!(
        rounds,
        ["[Round \"1.1\"]", "[Round \"1.2\"]", "[Round \"1.3\"]"]
    );
    if python_chess().is_some() {
        let games = parse_pgn_with_python(&pgn);
        assert_eq!(games.as_array().unwrap().len(), 3);
        for g in games.as_array().unwrap() {
            assert_eq!(g["moves"].as_array().unwrap().len(), 33);
        }
    }
    let t: Value = serde_json::from_str(&get(&relay.addr, "/tournament.json")).unwrap();
    assert_eq!(t["rounds"][0]["count"], 3);
    let idx: Value = serde_json::from_str(&get(&relay.addr, "/round-1/index.json")).unwrap();
    let p = idx["pairings"].as_array().unwrap();
    assert_eq!(p.len(), 3);
    assert!(p.iter().all(|x| x["white"]["lname"] == "Morphy"));
    for b in 1..=3 {
        let g: Value =
            serde_json::from_str(&get(&relay.addr, &format!("/round-1/game-{b}.json"))).unwrap();
        assert_eq!(g["moves"].as_array().unwrap().len(), 33);
        assert_eq!(g["serialNr"], format!("eboard-1-{b}"));
    }
    // The relay's stream carries every board's moves.
    let mut ended = std::collections::HashSet::new();
    let msgs = stream.until(30, |v| {
        if v["type"] == "game_end" {
            ended.insert(v["game"].as_str().unwrap().to_owned());
        }
        ended.len() == 3
    });
    for b in ["1.1", "1.2", "1.3"] {
        assert!(msgs
            .iter()
            .any(|(_, v)| v["type"] == "move" && v["game"] == b));
    }
    // A relay has no arbiter API.
    assert_eq!(
        request(&relay.addr, "POST", "/arbiter/pause", &[ARBITER_AUTH], "").0,
        404
    );
    std::fs::remove_dir_all(&dir).ok();
}
