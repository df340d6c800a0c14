//! `eboard doctor` on what the board talks to: a real mosquitto with a
//! password file (accepted, refused, unreachable), the HTTPS certificate's
//! fingerprint and console secrets kept on a board, and lichess's token
//! and round checked over TLS against a fake lichess. The configuration's
//! checks are `tests/doctor.rs`.

use crate::common;

use common::doctor::{doctor, row};
use common::mosquitto::broker_with;
use common::*;
use serde_json::Value;
use std::process::Command;

#[test]
fn the_broker_is_checked_with_the_configured_login() {
    let dir = tempdir("doctor-mqtt");
    let passwd = dir.join("passwd");
    let Some(mut broker) = ({
        if common::mosquitto::mosquitto_or_skip().is_none() {
            None
        } else {
            let out = Command::new("mosquitto_passwd")
                .args(["-b", "-c"])
                .arg(&passwd)
                .args(["board1", "board1-pw"])
                .output()
                .expect("mosquitto_passwd (Debian package mosquitto)");
            assert!(out.status.success());
            broker_with(
                &dir,
                &format!(
                    "password_file {}\nallow_anonymous false\n",
                    passwd.display()
                ),
            )
        }
    }) else {
        return;
    };
    let url = broker.url();
    let mqtt = |pw: &str| {
        format!("\n[mqtt]\nurl = \"{url}\"\nusername = \"board1\"\npassword = \"{pw}\"\n")
    };
    let cfg = config(&dir, 1, 1, &mqtt("board1-pw"));
    let (code, v, _) = doctor(&dir, &cfg, &[]);
    assert_eq!(row(&v, "mqtt").0, "ok", "{v}");
    assert!(row(&v, "mqtt").1.contains("user \"board1\""), "{v}");
    assert_eq!(code, 0, "{v}");

    let cfg = config(&dir, 1, 1, &mqtt("wrong"));
    let (code, v, _) = doctor(&dir, &cfg, &[]);
    assert_eq!(code, 1);
    let (status, detail) = row(&v, "mqtt");
    assert_eq!(status, "fail");
    assert!(
        detail.contains("refused the credentials of user \"board1\""),
        "{detail}"
    );

    // Unreachable: the broker stopped.
    broker.kill();
    let cfg = config(&dir, 1, 1, &mqtt("board1-pw"));
    let (code, v, _) = doctor(&dir, &cfg, &["--timeout", "3"]);
    assert_eq!(code, 1);
    let (status, detail) = row(&v, "mqtt");
    assert_eq!(status, "fail");
    assert!(
        detail.contains(&format!("127.0.0.1:{}", broker.port)),
        "{detail}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 24.11 and 24.10: the doctor shows the fingerprint of the HTTPS
/// certificate the board made and printed at its start (the one the
/// arbiter's phone checks), and warns of console accounts' secrets on a
/// board, naming the key.
#[test]
fn the_certificates_fingerprint_and_secrets_on_a_board() {
    let dir = tempdir("doctor-https");
    let hash = common::console::secret_hash("a long pass phrase");
    let cfg = config(
        &dir,
        1,
        1,
        &format!(
            "\n[[arbiter.accounts]]\nname = \"IA Hansen\"\nsecret_hash = \"{hash}\"\n\n\
             [[arbiter.accounts]]\nname = \"Hall relay\"\nrole = \"relay\"\ntoken = \"{}\"\n",
            common::console::RELAY_TOKEN
        ),
    );
    let jd = dir.join("var");
    let (_, v, _) = doctor(&dir, &cfg, &[]);
    let (status, detail) = row(&v, "https");
    assert_eq!(status, "ok", "{detail}");
    assert!(detail.contains("no certificate yet"), "{detail}");
    let (status, detail) = row(&v, "secrets");
    assert_eq!(status, "warn", "{detail}");
    assert!(
        detail.contains("arbiter.accounts.1") && detail.contains("IA Hansen"),
        "{detail}"
    );
    assert!(
        !detail.contains("Hall relay"),
        "the relay's account belongs there: {detail}"
    );
    // The board makes its certificate at start and prints its fingerprint.
    let mut board = run_board(&dir, &cfg, None, &["--journal-dir", jd.to_str().unwrap()]);
    let printed = poll(20, "the board's fingerprint", || {
        let log = std::fs::read_to_string(&board.stderr).ok()?;
        let at = log.find("fingerprint=")? + "fingerprint=".len();
        Some(log[at..].chars().take(95).collect::<String>())
    });
    assert!(board.stderr.exists());
    board.kill();
    assert!(
        std::fs::read_to_string(&board.stderr)
            .unwrap()
            .contains("key 'arbiter.accounts.1'"),
        "the board warns at start too"
    );
    let (code, v, _) = doctor(&dir, &cfg, &[]);
    let (status, detail) = row(&v, "https");
    assert_eq!(status, "ok", "{detail}");
    assert!(
        detail.contains(&format!("SHA-256 {printed}")),
        "{printed} / {detail}"
    );
    assert_eq!(code, 0, "a warning is not a failure: {v}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A lichess for the doctor, over HTTPS with the test CA's certificate
/// (lichess's API, <https://lichess.org/api>): `POST /api/token/test`
/// (the body: tokens, comma-separated) answers each token's user and
/// scopes, or `null` for a token lichess does not know; `GET
/// /api/broadcast/{tour slug}/{round slug}/{round id}` the round and its
/// tour, 404 for an unknown round.
fn fake_lichess_for_doctor() -> axum::Router {
    use axum::http::StatusCode;
    use axum::routing::{get, post};
    axum::Router::new()
        .route(
            "/api/token/test",
            post(|body: String| async move {
                let known = |t: &str| match t {
                    "lip_Rw9vTq4XnB2kZs7M" => serde_json::json!({
                        "userId": "ia-hansen", "scopes": "study:read,study:write", "expires": null
                    }),
                    "lip_Hc3pLd8YwQ5tJv1N" => serde_json::json!({
                        "userId": "ia-hansen", "scopes": "challenge:read", "expires": null
                    }),
                    _ => Value::Null,
                };
                let m: serde_json::Map<String, Value> = body
                    .split(',')
                    .map(|t| (t.to_owned(), known(t)))
                    .collect();
                axum::Json(Value::Object(m))
            }),
        )
        .route(
            "/api/broadcast/{tour}/{round}/{id}",
            get(
                |axum::extract::Path((_, _, id)): axum::extract::Path<(String, String, String)>| async move {
                    if id == "AbCd1234" {
                        Ok(axum::Json(serde_json::json!({
                            "round": {"id": "AbCd1234", "name": "Round 3", "slug": "round-3"},
                            "tour": {"id": "TourId99", "name": "DM 2026", "slug": "dm-2026"}
                        })))
                    } else {
                        Err(StatusCode::NOT_FOUND)
                    }
                },
            ),
        )
}

#[test]
fn the_lichess_token_and_round_are_checked_over_tls() {
    let dir = tempdir("doctor-lichess");
    let pki = common::tls::test_pki(&dir);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (port, _) = common::tls::serve_https(&rt, &pki, fake_lichess_for_doctor());
    let lichess = |round: &str, token: &str, ca: bool| {
        let ca = if ca {
            format!("ca_file = \"{}\"\n", pki.ca.display())
        } else {
            String::new()
        };
        format!(
            "\n[lichess]\nround_id = \"{round}\"\ntoken = \"{token}\"\nbase_url = \"https://localhost:{port}\"\n{ca}"
        )
    };
    let check = |extra: String| {
        let cfg = config(&dir, 1, 1, &extra);
        let (code, v, out) = doctor(&dir, &cfg, &[]);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!stderr.contains("panicked"), "{stderr}");
        let (status, detail) = row(&v, "lichess");
        (code, status, detail)
    };

    let (code, status, detail) = check(lichess("AbCd1234", "lip_Rw9vTq4XnB2kZs7M", true));
    assert_eq!((code, status.as_str()), (0, "ok"), "{detail}");
    assert!(
        detail.contains("ia-hansen")
            && detail.contains("study:write")
            && detail.contains("\"Round 3\"")
            && detail.contains("\"DM 2026\""),
        "{detail}"
    );

    // Each failure names what is wrong and its remedy.
    let (code, status, detail) = check(lichess("AbCd1234", "lip_Zz0000000000000x", true));
    assert_eq!((code, status.as_str()), (1, "fail"), "{detail}");
    assert!(
        detail.contains("not valid") && detail.contains("/account/oauth/token/create"),
        "{detail}"
    );
    let (_, status, detail) = check(lichess("AbCd1234", "lip_Hc3pLd8YwQ5tJv1N", true));
    assert_eq!(status, "fail", "{detail}");
    assert!(
        detail.contains("lacks the scope study:write") && detail.contains("challenge:read"),
        "{detail}"
    );
    let (_, status, detail) = check(lichess("Nope5678", "lip_Rw9vTq4XnB2kZs7M", true));
    assert_eq!(status, "fail", "{detail}");
    assert!(
        detail.contains("no broadcast round Nope5678") && detail.contains("round_id"),
        "{detail}"
    );
    let (_, status, detail) = check(lichess("AbCd1234", "lip_Rw9vTq4XnB2kZs7M", false));
    assert_eq!(status, "fail", "{detail}");
    assert!(
        detail.contains("certificate is refused") && detail.contains("[lichess] ca_file"),
        "{detail}"
    );
    drop(rt);
    std::fs::remove_dir_all(&dir).ok();
}
