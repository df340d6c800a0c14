//! The lichess push against a local endpoint that answers as lila's
//! `RelayPush` does (`modules/relay/src/main/RelayPush.scala`, the reply
//! `{"games": [{"tags", "moves"} | {"tags", "error"}]}` of
//! `JsonView.scala`): a partial rejection is alerted and logged per game,
//! retryable failures are retried with jitter, permanent ones stop the
//! push, games without names are filled from the pairing or withheld, a
//! big round is split under the body limit, and every request names
//! eboard in its User-Agent.

use eboard::broadcast::delay::Channel;
use eboard::broadcast::lichess_push::{self, Options, PushStatus, PushTarget};
use eboard::broadcast::public::Snapshot;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// How the fake lichess answers.
#[derive(Clone, Default)]
struct Behaviour {
    /// Answer these statuses first, in order (with their body).
    first: Vec<(u16, &'static str)>,
    /// Games (their `Round` tag) answered with a per-game error.
    reject_rounds: Vec<&'static str>,
    /// Answer every push with the upstream-URL failure.
    upstream: bool,
}

/// One request as received.
#[derive(Debug, Clone)]
struct Call {
    user_agent: String,
    authorization: String,
    body: String,
}

#[derive(Default)]
struct Fake {
    behaviour: Behaviour,
    calls: Vec<Call>,
}

fn tag(pgn: &str, name: &str) -> String {
    eboard::broadcast::lichess_reply::tag(pgn, name)
        .unwrap_or("")
        .to_owned()
}

/// The games of a multi-game PGN body, as lila's `MultiPgn.split` cuts it
/// (at each `[Event` after a blank line).
fn split_games(body: &str) -> Vec<String> {
    let mut games: Vec<String> = Vec::new();
    for part in body.split("\n\n[Event ") {
        if games.is_empty() {
            games.push(part.to_owned());
        } else {
            games.push(format!("[Event {part}"));
        }
    }
    games.into_iter().filter(|g| !g.trim().is_empty()).collect()
}

fn answer(fake: &mut Fake, body: &str) -> (u16, String) {
    let n = fake.calls.len();
    if let Some((status, text)) = fake.behaviour.first.get(n - 1) {
        return (*status, (*text).to_owned());
    }
    if fake.behaviour.upstream {
        return (
            200,
            json!({"games": [{"tags": {}, "error": "The relay has an upstream URL, and cannot be pushed to."}]})
                .to_string(),
        );
    }
    let games: Vec<Value> = split_games(body)
        .iter()
        .map(|g| {
            let tags = json!({
                "Event": tag(g, "Event"), "Round": tag(g, "Round"),
                "White": tag(g, "White"), "Black": tag(g, "Black"),
            });
            if fake
                .behaviour
                .reject_rounds
                .contains(&tag(g, "Round").as_str())
            {
                json!({"tags": tags, "error": "Illegal move: e2e5 (ply 3)"})
            } else {
                json!({"tags": tags, "moves": g.matches("[%clk").count()})
            }
        })
        .collect();
    (200, json!({ "games": games }).to_string())
}

/// Serves the fake lichess on a free port of 127.0.0.1.
async fn serve(fake: Arc<Mutex<Fake>>) -> String {
    use axum::extract::{Path, State};
    use axum::http::{HeaderMap, StatusCode};
    let app = axum::Router::new()
        .route(
            "/api/broadcast/round/{id}/push",
            axum::routing::post(
                |State(f): State<Arc<Mutex<Fake>>>,
                 Path(_id): Path<String>,
                 headers: HeaderMap,
                 body: String| async move {
                    let h = |k: &str| {
                        headers
                            .get(k)
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or("")
                            .to_owned()
                    };
                    let mut f = f.lock().unwrap();
                    f.calls.push(Call {
                        user_agent: h("user-agent"),
                        authorization: h("authorization"),
                        body: body.clone(),
                    });
                    let (status, text) = answer(&mut f, &body);
                    (
                        StatusCode::from_u16(status).unwrap(),
                        [("content-type", "application/json")],
                        text,
                    )
                },
            ),
        )
        .with_state(fake);
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(l, app).await });
    format!("http://{addr}")
}

/// A game's snapshot: `moves` moves with clocks, the PGN's White / Black
/// as given (`?` for none) and the pairing's names.
fn snapshot(
    board: u32,
    pgn_names: (&str, &str),
    pairing: (Option<&str>, Option<&str>),
    moves: usize,
) -> Snapshot {
    let mut movetext = String::new();
    for i in 0..moves {
        let san = if i % 4 < 2 {
            ["Nf3", "Nf6"][i % 2]
        } else {
            ["Ng1", "Ng8"][i % 2]
        };
        if i % 2 == 0 {
            movetext.push_str(&format!("{}. ", i / 2 + 1));
        }
        movetext.push_str(&format!("{san} {{[%clk 1:30:00]}} "));
    }
    let pgn = format!(
        "[Event \"Test\"]\n[Site \"Aarhus\"]\n[Date \"2026.11.23\"]\n[Round \"1.{board}\"]\n\
         [White \"{}\"]\n[Black \"{}\"]\n[Result \"*\"]\n\n{movetext}*\n\n",
        pgn_names.0, pgn_names.1
    );
    let player =
        |n: Option<&str>| json!({"name": n, "fide_id": null, "title": null, "federation": null});
    serde_json::from_value(json!({
        "seq": 1, "t": 0,
        "info": {
            "round": 1, "board": board, "event": "Test", "site": null, "country": null,
            "website": null, "date": null, "mode": "standard", "time_control": null,
            "white": player(pairing.0), "black": player(pairing.1),
            "started_at_unix_ms": 0, "speed": 1.0, "delay_ms": 0
        },
        "pgn": pgn, "game": {"live": true}, "pairing": {}, "state": {}
    }))
    .unwrap()
}

fn named(board: u32, moves: usize) -> Snapshot {
    snapshot(
        board,
        ("Sørensen, Jens", "Æbelø, Anne"),
        (Some("Sørensen, Jens"), Some("Æbelø, Anne")),
        moves,
    )
}

fn target(base: &str) -> PushTarget {
    PushTarget {
        base_url: base.to_owned(),
        round_id: "AbCd1234".into(),
        token: "lip_test".into(),
        extra_roots: vec![],
    }
}

fn fast(alerts: Option<Arc<Channel>>) -> Options {
    Options {
        alerts,
        retry_min: Duration::from_millis(20),
        retry_max: Duration::from_millis(80),
        jitter_seed: Some(17),
        ..Options::default()
    }
}

/// Waits (at most 20 s) until the status satisfies `ok`.
async fn until(
    rx: &mut watch::Receiver<PushStatus>,
    what: &str,
    ok: impl Fn(&PushStatus) -> bool,
) -> PushStatus {
    let end = Instant::now() + Duration::from_secs(20);
    loop {
        if ok(&rx.borrow()) {
            return rx.borrow().clone();
        }
        let left = end.saturating_duration_since(Instant::now());
        assert!(
            !left.is_zero(),
            "timed out waiting for {what}: {:?}",
            rx.borrow()
        );
        let _ = tokio::time::timeout(left, rx.changed()).await;
    }
}

/// Waits (bounded, 20 s) for the push task to end: its status sender is
/// dropped, so nothing is pushed any more (no sleep to watch for silence).
async fn push_ended(rx: &mut watch::Receiver<PushStatus>) {
    let end = Instant::now() + Duration::from_secs(20);
    loop {
        let left = end.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, rx.changed()).await {
            Ok(Err(_)) => return,
            Ok(Ok(())) => continue,
            Err(_) => panic!("the push did not stop: {:?}", rx.borrow()),
        }
    }
}

/// A push under test: the fake lichess, the boards' public channel, the
/// arbiter's channel (its alerts), and the push's status.
struct Push {
    fake: Arc<Mutex<Fake>>,
    public: Arc<Channel>,
    arbiter: Arc<Channel>,
    rx: watch::Receiver<PushStatus>,
}

/// Serves a fake lichess that behaves as `behaviour`, publishes the boards
/// with `boards`, and starts pushing them with [`fast`] options (alerts to
/// the arbiter's channel) changed by `options`.
async fn start_push(
    behaviour: Behaviour,
    boards: impl FnOnce(&Channel),
    options: impl FnOnce(Options) -> Options,
) -> Push {
    let fake = Arc::new(Mutex::new(Fake {
        behaviour,
        ..Default::default()
    }));
    let base = serve(fake.clone()).await;
    let public = Arc::new(Channel::new());
    let arbiter = Arc::new(Channel::with_backlog());
    boards(&public);
    let rx = lichess_push::start_with(
        &tokio::runtime::Handle::current(),
        target(&base),
        public.clone(),
        options(fast(Some(arbiter.clone()))),
    )
    .unwrap();
    Push {
        fake,
        public,
        arbiter,
        rx,
    }
}

/// The alerts published on the arbiter's channel so far.
fn alerts(ch: &Channel) -> Vec<Value> {
    ch.backlog()
        .iter()
        .map(|m| serde_json::from_str::<Value>(&m.json).unwrap())
        .collect()
}

fn publish(ch: &Channel, s: Snapshot) {
    ch.publish(1, Some(Arc::new(s)), &[]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_rejected_by_lichess_is_alerted_and_the_others_pass() {
    let Push {
        fake,
        public,
        arbiter,
        mut rx,
    } = start_push(
        Behaviour {
            reject_rounds: vec!["1.2"],
            ..Default::default()
        },
        |public| {
            for b in 1..=3 {
                publish(public, named(b, 6));
            }
        },
        |o| o,
    )
    .await;
    let s = until(&mut rx, "the first push", |s| s.pushed >= 1).await;
    assert_eq!((s.games, s.moves), (2, 12), "{s:?}");
    assert_eq!(s.rejected.len(), 1, "{s:?}");
    assert_eq!(s.rejected[0].game.as_deref(), Some("1.2"));
    assert!(s.rejected[0].error.contains("Illegal move"), "{s:?}");
    let a = alerts(&arbiter);
    assert_eq!(a.len(), 1, "one alert: {a:?}");
    assert_eq!(a[0]["type"], "uplink_alert");
    assert_eq!(a[0]["game"], "1.2");
    let text = a[0]["error"].as_str().unwrap();
    assert!(
        text.contains("lichess rejected game 1.2") && text.contains("Sørensen, Jens"),
        "{text}"
    );
    // The next change pushes again; the same rejection is not alerted twice.
    publish(&public, named(1, 8));
    let s = until(&mut rx, "the second push", |s| s.pushed >= 2).await;
    assert_eq!(s.rejected.len(), 1);
    assert_eq!(
        alerts(&arbiter).len(),
        1,
        "alerted once per game and reason"
    );
    let calls = fake.lock().unwrap().calls.clone();
    assert_eq!(calls.len(), 2, "no resend of an unchanged round");
    for c in &calls {
        assert_eq!(c.user_agent, lichess_push::USER_AGENT);
        assert!(c.user_agent.starts_with("eboard/"), "{}", c.user_agent);
        assert_eq!(c.authorization, "Bearer lip_test");
    }
    assert!(calls[1].body.contains("4. Ng1"), "the new move went out");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retryable_failures_are_retried_and_permanent_ones_stop() {
    // 503 and 429 are retried (jittered, seeded); then the push goes through.
    let Push { fake, mut rx, .. } = start_push(
        Behaviour {
            first: vec![(503, "busy"), (429, "slow down"), (502, "")],
            ..Default::default()
        },
        |public| {
            publish(public, named(1, 2));
        },
        |o| o,
    )
    .await;
    let s = until(&mut rx, "a push after the retries", |s| s.pushed == 1).await;
    assert_eq!(s.failures, 3, "{s:?}");
    assert_eq!(fake.lock().unwrap().calls.len(), 4);
    assert!(s.stopped.is_none());

    // 401: the token is refused; no retry, the push stops for good.
    for (status, word) in [(401, "study:write"), (404, "round_id")] {
        let Push {
            fake,
            public,
            arbiter,
            mut rx,
        } = start_push(
            Behaviour {
                first: vec![(status, "{\"error\":\"No such token\"}")],
                ..Default::default()
            },
            |public| {
                publish(public, named(1, 2));
            },
            |o| o,
        )
        .await;
        let s = until(&mut rx, "the stop", |s| s.stopped.is_some()).await;
        assert!(s.stopped.as_deref().unwrap().contains(word), "{s:?}");
        publish(&public, named(1, 4));
        push_ended(&mut rx).await;
        assert_eq!(
            fake.lock().unwrap().calls.len(),
            1,
            "HTTP {status}: not retried"
        );
        let a = alerts(&arbiter);
        assert_eq!(a.len(), 1, "{a:?}");
        assert_eq!(a[0]["action"], "pushing stopped");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_with_a_source_url_stops_the_push() {
    let Push {
        fake,
        public,
        arbiter,
        mut rx,
    } = start_push(
        Behaviour {
            upstream: true,
            ..Default::default()
        },
        |public| {
            publish(public, named(1, 2));
        },
        |o| o,
    )
    .await;
    let s = until(&mut rx, "the stop", |s| s.stopped.is_some()).await;
    assert!(s.stopped.unwrap().contains("upstream URL"));
    assert_eq!(s.pushed, 0, "a 200 that took nothing is no success");
    publish(&public, named(1, 4));
    push_ended(&mut rx).await;
    assert_eq!(fake.lock().unwrap().calls.len(), 1);
    assert_eq!(alerts(&arbiter).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_without_names_are_filled_from_the_pairing_or_withheld() {
    let Push {
        fake,
        arbiter,
        mut rx,
        ..
    } = start_push(
        Behaviour::default(),
        |public| {
            // Board 1: names in the PGN. Board 2: "?" in the PGN, names in the
            // pairing. Board 3: no names anywhere.
            publish(public, named(1, 2));
            publish(
                public,
                snapshot(2, ("?", "?"), (Some("Hansen, Ib"), Some("Holm, Eva")), 2),
            );
            publish(
                public,
                snapshot(3, ("?", "Berg, Ole"), (None, Some("Berg, Ole")), 2),
            );
        },
        |o| o,
    )
    .await;
    let s = until(&mut rx, "the push", |s| s.pushed == 1).await;
    assert_eq!(s.games, 2, "{s:?}");
    assert_eq!(s.withheld.len(), 1);
    assert_eq!(s.withheld[0].game, "1.3");
    assert!(s.withheld[0].why.contains("no name for White"), "{s:?}");
    let body = fake.lock().unwrap().calls[0].body.clone();
    assert!(
        body.contains("[White \"Hansen, Ib\"]\n[Black \"Holm, Eva\"]"),
        "{body}"
    );
    assert!(
        !body.contains("\"?\""),
        "no game with a ? name sent: {body}"
    );
    assert!(!body.contains("[Round \"1.3\"]"));
    let a = alerts(&arbiter);
    assert_eq!(a.len(), 1, "{a:?}");
    assert_eq!(a[0]["game"], "1.3");
    assert!(a[0]["error"]
        .as_str()
        .unwrap()
        .contains("[game.white] name"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_big_round_is_split_under_the_body_limit() {
    let limit = 40 * 1024;
    let Push { fake, mut rx, .. } = start_push(
        Behaviour::default(),
        |public| {
            // 40 games of 120 plies (about 100 KB): over a 40 KiB limit, three pushes.
            for b in 1..=40 {
                publish(public, named(b, 120));
            }
        },
        |o| Options {
            max_body: limit,
            ..o
        },
    )
    .await;
    until(&mut rx, "the push", |s| s.pushed == 1).await;
    let calls = fake.lock().unwrap().calls.clone();
    let total: usize = calls.iter().map(|c| c.body.len()).sum();
    assert!(
        total > 2 * limit,
        "the round is bigger than two bodies: {total}"
    );
    assert!(
        calls.len() >= total.div_ceil(limit),
        "{} bodies",
        calls.len()
    );
    let mut rounds = Vec::new();
    for c in &calls {
        assert!(c.body.len() <= limit, "{} bytes", c.body.len());
        for g in split_games(&c.body) {
            rounds.push(tag(&g, "Round"));
        }
    }
    let want: Vec<String> = (1..=40).map(|b| format!("1.{b}")).collect();
    assert_eq!(rounds, want, "every game once, in order");
    // The default limit is under lila's 512 KiB (play.http.parser.maxMemoryBuffer).
    const { assert!(lichess_push::MAX_BODY < 512 * 1024) };
}
