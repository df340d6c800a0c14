use super::*;
use crate::broadcast::bound::Paired;
use crate::broadcast::public::GameInfo;
use crate::model::Player;
use serde_json::json;

fn snap(round: u32, board: u32, white: &str, black: &str) -> Snapshot {
    let mut info = GameInfo::bare(round, board);
    info.white.name = Some(white.to_owned());
    info.black.name = Some(black.to_owned());
    Snapshot {
        seq: 1,
        t: 0,
        info,
        pgn: Default::default(),
        game: json!({}).into(),
        pairing: json!({}),
        state: json!({}).into(),
        outline: None,
    }
}

fn msg(game: &str) -> Arc<str> {
    Arc::from(json!({"type": "move", "game": game}).to_string())
}

/// The bindings of `sources` with the alerts collected.
fn binding(
    sources: &[(&str, Table)],
    pairings: Option<Pairings>,
) -> (Binding, Arc<Mutex<Vec<String>>>) {
    let alerts: Arc<Mutex<Vec<String>>> = Arc::default();
    let a = alerts.clone();
    let bind = Bind {
        pairings,
        alert: Some(Arc::new(move |m: Arc<str>| {
            a.lock().unwrap().push(m.to_string())
        })),
        ..Bind::default()
    };
    let s: Vec<(String, Table)> = sources.iter().map(|(u, t)| (u.to_string(), *t)).collect();
    (Binding::new(bind, &s).unwrap(), alerts)
}

#[test]
fn a_board_argument_gives_its_table() {
    assert_eq!(
        split_source("http://h:1").unwrap(),
        (Table::Any, "http://h:1")
    );
    assert_eq!(
        split_source("2=http://h:1").unwrap(),
        (Table::Board(2), "http://h:1")
    );
    assert_eq!(
        split_source("3.2=https://h:1#sha256=AB").unwrap(),
        (Table::Game(3, 2), "https://h:1#sha256=AB")
    );
    assert!(split_source("0=http://h:1").is_err());
    assert!(split_source("x.2=http://h:1")
        .unwrap_err()
        .contains("3.2=URL"));
    let two = Binding::new(
        Bind::default(),
        &[
            ("http://a".into(), Table::Board(2)),
            ("http://b".into(), Table::Game(1, 2)),
        ],
    );
    assert!(two.err().unwrap().contains("both given table 2"));
}

#[test]
fn a_bare_url_is_bound_to_the_first_board_it_reports() {
    let (b, alerts) = binding(&[("http://a", Table::Any), ("http://b", Table::Any)], None);
    // A's first message waits for its snapshot.
    assert!(b.message("http://a", msg("1.1")).is_none());
    let t = b.snapshots("http://a", vec![snap(1, 1, "W", "B")]);
    assert_eq!(t.snapshots.len(), 1);
    assert_eq!(t.release.len(), 1);
    assert!(b.message("http://a", msg("1.1")).is_some());
    // Board 2's game from A: refused, alerted, nothing held.
    assert!(b.message("http://a", msg("1.2")).is_none());
    assert!(b
        .snapshots("http://a", vec![snap(1, 2, "X", "Y")])
        .snapshots
        .is_empty());
    let said = alerts.lock().unwrap().clone();
    assert_eq!(said.len(), 1, "one alert per source and window: {said:?}");
    assert!(
        said[0].contains("game 1.2 (board 2), not board 1's"),
        "{}",
        said[0]
    );
    // B reports board 1 too: refused (A holds it); board 2 it may.
    assert!(b
        .snapshots("http://b", vec![snap(1, 1, "W", "B")])
        .snapshots
        .is_empty());
    assert_eq!(
        b.snapshots("http://b", vec![snap(1, 2, "X", "Y")])
            .snapshots
            .len(),
        1
    );
    assert_eq!(alerts.lock().unwrap().len(), 2);
    assert!(alerts.lock().unwrap()[1].contains("reported by http://a"));
    // A new round at A's table: the old game leaves; its messages are not taken.
    assert!(b.message("http://a", msg("2.1")).is_none());
    let t = b.snapshots("http://a", vec![snap(2, 1, "W", "B")]);
    assert_eq!((t.forget, t.release.len()), (vec![(1, 1)], 1));
    assert!(b.message("http://a", msg("1.1")).is_none());
    assert_eq!(b.games_of("http://a"), ["2.1"]);
    // A message naming no game is the board's own.
    let own: Arc<str> = Arc::from("{\"type\":\"downtime\"}");
    assert!(b.message("http://a", own).is_some());
}

#[test]
fn a_configured_table_and_the_pairings_players() {
    let pairings = Pairings::new(|round, board| match (round, board) {
        (3, 2) => Paired::Players(
            Player {
                name: Some("Hansen,Anna".into()),
                fide_id: Some(1234567),
                ..Player::default()
            },
            Player {
                name: Some("Lund,Bo".into()),
                ..Player::default()
            },
        ),
        (3, _) => Paired::NoBoard(2),
        _ => Paired::Unknown,
    });
    let (b, alerts) = binding(&[("http://a", Table::Game(3, 2))], Some(pairings));
    let t = b.snapshots("http://a", vec![snap(3, 2, "Mallory, Eve", "Lund, Bo")]);
    assert!(t.snapshots.is_empty());
    assert!(
        b.message("http://a", msg("3.2")).is_none(),
        "held, not taken"
    );
    let said = alerts.lock().unwrap().clone();
    assert!(
        said[0].contains("White \\\"Mallory, Eve\\\"") && said[0].contains("FIDE 1234567"),
        "{said:?}"
    );
    let t = b.snapshots("http://a", vec![snap(3, 2, "Hansen, Anna", "Lund, Bo")]);
    assert_eq!((t.snapshots.len(), t.release.len()), (1, 1));
    // Round 4 is not this URL's (3.2=URL).
    assert!(b
        .snapshots("http://a", vec![snap(4, 2, "A", "B")])
        .snapshots
        .is_empty());
}

#[test]
fn earlier_games_stay_in_the_consoles_view_within_the_cap() {
    let (b, _) = binding(&[("http://a", Table::Any)], None);
    assert!((0..MAX_GAMES).all(|_| b.keep_retired()));
    assert!(!b.keep_retired(), "past the cap the earlier game leaves");
}

/// Held messages of the board's stream that ran ahead of and behind the
/// read of its snapshot, plies 1–3 at 1 s, 2 s, 3 s; the snapshot read
/// shows the game at 2 s.
fn held_then_snapshot(b: &Binding) -> Vec<Arc<str>> {
    for (t, ply) in [(1_000, 1), (2_000, 2), (3_000, 3)] {
        assert!(b.message("http://a", at(t, ply)).is_none(), "held");
    }
    let mut s = snap(1, 1, "W", "B");
    s.t = 2_000;
    let taken = b.snapshots("http://a", vec![s]);
    assert_eq!(taken.snapshots.len(), 1);
    taken.release
}

fn at(t: u64, ply: u32) -> Arc<str> {
    Arc::from(json!({"type": "move", "game": "1.1", "t": t, "ply": ply}).to_string())
}

#[test]
fn on_the_public_feed_held_messages_the_snapshot_shows_are_not_sent_again() {
    let (b, _) = binding(&[("http://a", Table::Board(1))], None);
    // Plies 1 and 2 are in the public snapshot: sent again, a page would
    // step back to ply 1 and mark an illegal move twice; only ply 3 is news.
    assert_eq!(held_then_snapshot(&b.public()), vec![at(3_000, 3)]);
}

#[test]
fn on_the_arbiters_feed_every_held_message_is_sent_on() {
    // His state need not show an alert of his channel: nothing held is
    // dropped (console_restart's acknowledged alerts depend on it).
    let (b, _) = binding(&[("http://a", Table::Board(1))], None);
    assert_eq!(
        held_then_snapshot(&b),
        vec![at(1_000, 1), at(2_000, 2), at(3_000, 3)]
    );
}
