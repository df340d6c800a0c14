//! A mosquitto broker on loopback for the MQTT tests (Debian's package,
//! started by the test on a free port with its own config, killed when
//! dropped).

use super::poll;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A mosquitto process on 127.0.0.1:`port` (no persistence: a restart
/// loses the retained messages, which the boards publish again).
pub struct Broker {
    child: Option<Child>,
    pub port: u16,
    conf: PathBuf,
}

pub fn mosquitto() -> Option<PathBuf> {
    ["/usr/sbin/mosquitto", "/usr/bin/mosquitto"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

/// `None` with a message (the test is skipped) when mosquitto is not
/// installed; a failure when `CI` is set.
pub fn mosquitto_or_skip() -> Option<PathBuf> {
    let found = mosquitto();
    if found.is_none() {
        super::skip_or_fail_under_ci("mosquitto is not installed (apt-get install mosquitto)");
    }
    found
}

/// The broker, or `None` (skipped) when mosquitto is not installed.
pub fn broker(dir: &Path) -> Option<Broker> {
    broker_with(dir, "allow_anonymous true\n")
}

/// The broker with `listener_conf` (the listener's options: TLS, login)
/// after its `listener` line.
pub fn broker_with(dir: &Path, listener_conf: &str) -> Option<Broker> {
    broker_with_queue(dir, listener_conf, 10_000)
}

/// [`broker_with`], at most `max_queued` messages queued per client
/// (mosquitto.conf(5) `max_queued_messages`: beyond it, QoS 1 messages
/// for that client are dropped).
pub fn broker_with_queue(dir: &Path, listener_conf: &str, max_queued: u32) -> Option<Broker> {
    mosquitto_or_skip()?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let conf = dir.join("mosquitto.conf");
    std::fs::write(
        &conf,
        format!(
            "listener {port} 127.0.0.1\n{listener_conf}persistence false\n\
             max_queued_messages {max_queued}\n"
        ),
    )
    .unwrap();
    let mut b = Broker {
        child: None,
        port,
        conf,
    };
    b.start();
    Some(b)
}

impl Broker {
    pub fn start(&mut self) {
        let child = Command::new(mosquitto().unwrap())
            .arg("-c")
            .arg(&self.conf)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start mosquitto");
        self.child = Some(child);
        let port = self.port;
        poll(10, "mosquitto listening", || {
            TcpStream::connect(("127.0.0.1", port)).ok()
        });
    }

    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    pub fn url(&self) -> String {
        format!("mqtt://127.0.0.1:{}", self.port)
    }

    /// SIGHUP: mosquitto reads its password file again.
    pub fn reload(&self) {
        let pid = self.child.as_ref().expect("running").id();
        // SAFETY: kill(2) on the broker process this test started.
        let rc = unsafe { libc::kill(pid as libc::pid_t, libc::SIGHUP) };
        assert_eq!(rc, 0, "SIGHUP to mosquitto");
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Adds `user` with `password` to mosquitto's password file `file`
/// (`mosquitto_passwd -b`, `-c` when `create`: a new file).
pub fn mosquitto_passwd(file: &Path, user: &str, password: &str, create: bool) {
    let mut cmd = Command::new("mosquitto_passwd");
    cmd.arg("-b");
    if create {
        cmd.arg("-c");
    }
    let out = cmd
        .arg(file)
        .args([user, password])
        .output()
        .expect("mosquitto_passwd (Debian package mosquitto)");
    assert!(
        out.status.success(),
        "mosquitto_passwd: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The broker as `docs/mqtt.md` tells an organiser to set it up: no
/// anonymous clients, a password file of `users` (name, password) and the
/// ACL `acl` (mosquitto.conf(5) `acl_file` syntax); `None` (skipped)
/// without mosquitto.
pub fn broker_with_acl(dir: &Path, users: &[(&str, &str)], acl: &str) -> Option<Broker> {
    mosquitto_or_skip()?;
    let passwd = dir.join("passwd");
    for (i, (user, password)) in users.iter().enumerate() {
        mosquitto_passwd(&passwd, user, password, i == 0);
    }
    let acl_file = dir.join("acl");
    std::fs::write(&acl_file, acl).unwrap();
    broker_with(
        dir,
        &format!(
            "allow_anonymous false\npassword_file {}\nacl_file {}\n",
            passwd.display(),
            acl_file.display()
        ),
    )
}

/// The broker over TLS (the test CA's certificate for `localhost` and
/// 127.0.0.1: `ca.pem`, `server.pem`, `server.key` in `dir`) with the
/// logins `users` (name, password) and no anonymous client, as
/// `docs/mqtt.md` has an organiser run it (its ACL: [`broker_with_acl`]);
/// `None` (skipped) without mosquitto.
pub fn tls_broker(dir: &Path, users: &[(&str, &str)]) -> Option<(Broker, super::tls::TestPki)> {
    mosquitto_or_skip()?;
    let pki = super::tls::test_pki(dir);
    let passwd = dir.join("passwd");
    for (i, (user, password)) in users.iter().enumerate() {
        mosquitto_passwd(&passwd, user, password, i == 0);
    }
    let broker = broker_with(
        dir,
        &format!(
            "certfile {}\nkeyfile {}\nrequire_certificate false\npassword_file {}\nallow_anonymous false\n",
            pki.cert.display(),
            pki.key.display(),
            passwd.display()
        ),
    )?;
    Some((broker, pki))
}

/// The ACL of `docs/mqtt.md` ("The arbiter channel") for the tables
/// `tables` of round 1 of the event `dm-2026`: [`docs_acl_round`].
pub fn docs_acl(tables: &[u32], more: &str) -> String {
    docs_acl_round(1, tables, more)
}

/// The ACL of `docs/mqtt.md` ("The arbiter channel", as its generator
/// writes it with `ROUND`) for the tables `tables` of round `round` of the
/// event `dm-2026`: each board `boardN` writes only its own game's public
/// topics (`round`/N, issue 41) and its table's topics (its presence
/// `status` among them) and reads its configuration and commands;
/// `console` (the console's relay) reads every table's public and arbiter
/// topics and writes the commands; `more` is appended (other users).
pub fn docs_acl_round(round: u32, tables: &[u32], more: &str) -> String {
    let mut a = String::from("# eboard: DM 2026 (docs/mqtt.md)\n");
    for n in tables {
        a.push_str(&format!(
            "user board{n}\n\
             topic write eboard/dm-2026/{round}/{n}/events\n\
             topic write eboard/dm-2026/{round}/{n}/snapshot\n\
             topic write eboard/dm-2026/board/{n}/arbiter/#\n\
             topic write eboard/dm-2026/board/{n}/reply\n\
             topic write eboard/dm-2026/board/{n}/status\n\
             topic read eboard/dm-2026/board/{n}/config\n\
             topic read eboard/dm-2026/board/{n}/command\n\n"
        ));
    }
    a.push_str(
        "user console\n\
         topic read eboard/dm-2026/+/+/events\n\
         topic read eboard/dm-2026/+/+/snapshot\n\
         topic read eboard/dm-2026/board/+/arbiter/#\n\
         topic read eboard/dm-2026/board/+/reply\n\
         topic read eboard/dm-2026/board/+/status\n\
         topic write eboard/dm-2026/board/+/command\n\n",
    );
    a.push_str(more);
    a
}

/// The broker of `docs/mqtt.md` for the tables `tables` of `dm-2026`: the
/// logins `console` and `boardN` (one a table) and `more_users`, each with
/// the password `USER-pw`; the ACL [`docs_acl`] with `more_acl` (the other
/// users' rules). `None` (skipped) without mosquitto.
pub fn docs_broker(
    dir: &Path,
    tables: &[u32],
    more_users: &[&str],
    more_acl: &str,
) -> Option<Broker> {
    docs_broker_round(dir, 1, tables, more_users, more_acl)
}

/// [`docs_broker`] for round `round` ([`docs_acl_round`]).
pub fn docs_broker_round(
    dir: &Path,
    round: u32,
    tables: &[u32],
    more_users: &[&str],
    more_acl: &str,
) -> Option<Broker> {
    let names: Vec<String> = std::iter::once("console".to_owned())
        .chain(more_users.iter().map(|u| (*u).to_owned()))
        .chain(tables.iter().map(|n| format!("board{n}")))
        .collect();
    let passwords: Vec<String> = names.iter().map(|u| format!("{u}-pw")).collect();
    let users: Vec<(&str, &str)> = names
        .iter()
        .map(String::as_str)
        .zip(passwords.iter().map(String::as_str))
        .collect();
    broker_with_acl(dir, &users, &docs_acl_round(round, tables, more_acl))
}

/// A board's `[mqtt]` section for table `n` under [`docs_broker`]'s login
/// (`boardN`, `boardN-pw`) at the broker `url`, with the keys `more` after.
pub fn board_mqtt(url: &str, n: u32, more: &str) -> String {
    format!("[mqtt]\nurl = \"{url}\"\nusername = \"board{n}\"\npassword = \"board{n}-pw\"\n{more}")
}

/// Publishes `messages` (topic, payload, retained) at QoS 1 to the broker
/// on 127.0.0.1:`port` logged in as `user` (password `USER-pw`, as
/// [`docs_broker`] makes them), in order, and waits (at most 60 s) until
/// the broker acknowledged each one. mosquitto acknowledges a publication
/// its ACL drops too (`docs/mqtt.md`, "ACL"), so this says nothing about
/// what was delivered.
pub fn publish_as(port: u16, user: &str, messages: &[(String, Vec<u8>, bool)]) {
    use rumqttc::{Client, Event, Packet, QoS};
    let (client, mut conn) = Client::new(login(port, user, "publish"), 64);
    let want = messages.len();
    let to_send = messages.to_vec();
    // The client lives until every acknowledgement is in (its requests
    // closed would end the connection).
    let sender = std::thread::spawn(move || {
        for (topic, payload, retain) in to_send {
            if client
                .publish(topic, QoS::AtLeastOnce, retain, payload)
                .is_err()
            {
                break;
            }
        }
        client
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut acked = 0;
    for ev in conn.iter() {
        assert!(
            std::time::Instant::now() < deadline,
            "{acked} of {want} publications acknowledged as {user}"
        );
        match ev {
            Ok(Event::Incoming(Packet::PubAck(_))) => acked += 1,
            Ok(_) => {}
            Err(e) => panic!("publishing as {user}: {e}"),
        }
        if acked == want {
            break;
        }
    }
    let client = sender.join().unwrap();
    let _ = client.disconnect();
}

/// The options of a test client logged in as `user` (password `USER-pw`)
/// at 127.0.0.1:`port`: packets up to 4 MiB, keep-alive 5 s.
fn login(port: u16, user: &str, what: &str) -> rumqttc::MqttOptions {
    let mut o = rumqttc::MqttOptions::new(
        format!("{what}-{user}-{}", rand::random::<u32>()),
        "127.0.0.1",
        port,
    );
    o.set_credentials(user, format!("{user}-pw"));
    o.set_max_packet_size(4 << 20, 4 << 20);
    o.set_keep_alive(std::time::Duration::from_secs(5));
    o
}

/// The retained message on `topic` (JSON), read as `user` (password
/// `USER-pw`) from the broker on 127.0.0.1:`port`, once there is one (at
/// most 30 s).
pub fn retained_json(port: u16, user: &str, topic: &str) -> serde_json::Value {
    use rumqttc::{Client, Event, Packet, QoS};
    let (client, mut conn) = Client::new(login(port, user, "read"), 16);
    client.subscribe(topic, QoS::AtLeastOnce).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    for ev in conn.iter() {
        assert!(
            std::time::Instant::now() < deadline,
            "no retained message on {topic}"
        );
        if let Ok(Event::Incoming(Packet::Publish(p))) = ev {
            if let Ok(v) = serde_json::from_slice(&p.payload) {
                let _ = client.disconnect();
                return v;
            }
        }
    }
    panic!("the connection reading {topic} ended");
}
