//! The uplinks' checks, with the configured credentials and TLS set-up
//! as the daemon and the relay use them: the MQTT broker (a CONNACK) and
//! lichess (the token's user and scope, the broadcast round).

use super::super::settings::Startup;
use crate::broadcast::lichess_push::{self, PushTarget};
use crate::service::checks::{Finding, Status};
use serde_json::Value;
use std::time::Duration;

/// The broker accepts a connection with the configured login (TLS and
/// the extra CA included): a CONNACK within `timeout`.
pub(super) fn mqtt(st: &Startup, timeout: Duration) -> Finding {
    const C: &str = "mqtt";
    let Some(up) = &st.mqtt else {
        return Finding::new(C, Status::Skip, "no [mqtt]");
    };
    let b = &up.broker;
    let where_ = format!(
        "{}://{}:{}",
        if b.tls { "mqtts" } else { "mqtt" },
        b.host,
        b.port
    );
    let opts = match b.options(format!("eboard-doctor-{}", std::process::id())) {
        Ok(o) => o,
        Err(e) => return Finding::new(C, Status::Fail, format!("{where_}: {e}")),
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return Finding::new(C, Status::Fail, format!("runtime: {e}")),
    };
    let result = rt.block_on(async {
        let (client, mut ev) = rumqttc::AsyncClient::new(opts, 4);
        let r = tokio::time::timeout(timeout, async {
            loop {
                match ev.poll().await {
                    Ok(rumqttc::Event::Incoming(rumqttc::Packet::ConnAck(_))) => return Ok(()),
                    Ok(_) => {}
                    Err(e) => return Err(b.explain(&e)),
                }
            }
        })
        .await;
        let _ = client.try_disconnect();
        r
    });
    match result {
        Ok(Ok(())) => Finding::new(
            C,
            Status::Ok,
            format!(
                "{where_} accepted {}",
                b.login
                    .as_ref()
                    .map_or("an anonymous login".to_owned(), |l| format!(
                        "user \"{}\"",
                        l.username
                    ))
            ),
        ),
        Ok(Err(e)) => Finding::new(C, Status::Fail, format!("{where_}: {e}")),
        Err(_) => Finding::new(
            C,
            Status::Fail,
            format!("{where_}: no answer within {} s", timeout.as_secs()),
        ),
    }
}

/// lichess (or the configured `base_url`), with the push's own HTTP
/// client ([`lichess_push::client`]: the webpki roots and `ca_file`):
/// `POST /api/token/test` names the token's user and scopes — the push
/// needs `study:write` — and `GET /api/broadcast/-/-/{round_id}` finds the
/// round and its tour (lichess's API, <https://lichess.org/api>, "Test
/// multiple OAuth tokens" and "Get a broadcast round"). Each failure names
/// its remedy; the token itself is never printed.
pub(super) fn lichess(st: &Startup, timeout: Duration) -> Finding {
    const C: &str = "lichess";
    let Some(t) = &st.lichess else {
        return Finding::new(C, Status::Skip, "no [lichess]");
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return Finding::new(C, Status::Fail, format!("runtime: {e}")),
    };
    // reqwest's connector is made inside the runtime (outside it, building
    // the client panicked: "there is no reactor running").
    match rt.block_on(async {
        let client = lichess_push::client(t, timeout)?;
        lichess_check(&client, t).await
    }) {
        Ok(s) => Finding::new(C, Status::Ok, s),
        Err(e) => Finding::new(C, Status::Fail, e),
    }
}

/// Where a token with the push's scope is made (lichess's token page with
/// the scope ticked).
fn token_page(base: &str) -> String {
    format!(
        "make one at {base}/account/oauth/token/create?scopes[]=study:write&description=eboard \
         (the scope \"Create, update, delete studies and broadcasts\") and give it as [lichess] \
         token or EBOARD_LICHESS_TOKEN"
    )
}

/// The token's user and scopes, then the round: a line for the `ok` row,
/// or what is wrong with its remedy.
async fn lichess_check(client: &reqwest::Client, t: &PushTarget) -> Result<String, String> {
    let base = &t.base_url;
    let url = format!("{base}/api/token/test");
    let answer = client
        .post(&url)
        .header("content-type", "text/plain")
        .body(t.token.clone())
        .send()
        .await
        .map_err(|e| lichess_push::request_error(&format!("POST {url}"), &e.without_url()))?;
    let status = answer.status();
    if !status.is_success() {
        return Err(format!("POST {url}: HTTP {status}"));
    }
    let tested: Value = answer
        .text()
        .await
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
        .map_err(|e| format!("POST {url}: the answer is not lichess's JSON: {e}"))?;
    let Some(info) = tested.get(&t.token).filter(|i| !i.is_null()) else {
        return Err(format!(
            "the token is not valid at {base} (unknown, expired or revoked): {}",
            token_page(base)
        ));
    };
    let user = info["userId"].as_str().unwrap_or("?");
    let scopes = info["scopes"].as_str().unwrap_or("");
    if !scopes.split(',').any(|s| s.trim() == "study:write") {
        return Err(format!(
            "the token of {user} lacks the scope study:write (it has: {}): the push would be \
             refused; {}",
            if scopes.is_empty() { "none" } else { scopes },
            token_page(base)
        ));
    }
    let id = &t.round_id;
    let url = format!("{base}/api/broadcast/-/-/{id}");
    let answer = client
        .get(&url)
        .bearer_auth(&t.token)
        .send()
        .await
        .map_err(|e| lichess_push::request_error(&format!("GET {url}"), &e.without_url()))?;
    let status = answer.status();
    if status.as_u16() == 404 {
        return Err(format!(
            "no broadcast round {id} at {base}: [lichess] round_id is the round's id, the last 8 \
             characters of the round's address ({base}/broadcast/<tour>/<round>/<round id>); \
             create the broadcast and its round at {base}/broadcast/new"
        ));
    }
    if !status.is_success() {
        return Err(format!("GET {url}: HTTP {status}"));
    }
    let round: Value = answer
        .text()
        .await
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
        .map_err(|e| format!("GET {url}: the answer is not lichess's JSON: {e}"))?;
    let name = |v: &Value| v["name"].as_str().unwrap_or("?").to_owned();
    Ok(format!(
        "token of {user} with study:write; round {id} is \"{}\" of \"{}\" at {base}",
        name(&round["round"]),
        name(&round["tour"])
    ))
}
