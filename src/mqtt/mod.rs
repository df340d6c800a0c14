//! MQTT: a board daemon publishes its public (delayed) feed to a broker
//! ([`publish`]), through a store-and-forward queue on disk ([`outbox`]);
//! `eboard relay --mqtt` rebuilds every board's game from the broker and
//! serves the merged feeds ([`relay`]).
//!
//! Length: the broker address, the login and TLS options, the topics and
//! the wire format, with their tests; the uplink, the relay, the queue and
//! the signed rulings are submodules.
//!
//! Topics, one tree per event, round and board:
//!
//! - `{prefix}/{event}/{round}/{board}/events` (QoS 1): one message per
//!   public message of the board's stream, as [`Wire`] JSON: `seq` is the
//!   message's index in the board's public stream (from 1), the key a
//!   consumer dedupes and orders by; the last message of each decision
//!   carries the board's [`Snapshot`] after it;
//! - `{prefix}/{event}/{round}/{board}/snapshot` (QoS 1, retained): the
//!   latest snapshot (PGN in `snapshot.pgn`, the live page's JSON state in
//!   `snapshot.state`), so a late subscriber has the game at once.
//!
//! Per table (`docs/event.md`): `{prefix}/{event}/board/{board}/config`
//! (retained: the board's game from `eboard event`), `…/command` and
//! `…/reply` (signed rulings and their answers: [`command`]), and with
//! `[mqtt] arbiter_channel` the board's undelayed arbiter channel on
//! `…/arbiter/events`, `…/arbiter/snapshot` and the retained list of the
//! game's alerts `…/arbiter/alerts` ([`alert_list`]) ([`arbiter`]: for the
//! console's relay only, behind the broker's ACL).
//!
//! `{event}` is the event's name made topic-safe by [`slug`]. On the
//! public topics only what the public feeds show is published: the
//! messages are taken after the transmission delay.

pub mod alert_list;
pub mod arbiter;
pub mod command;
pub mod outbox;
pub mod publish;
pub mod refresh;
pub mod relay;
pub mod status;
mod stream;

use crate::broadcast::public::Snapshot;
use serde::Deserialize;
use serde_json::Value;

/// The default first topic level.
pub const DEFAULT_PREFIX: &str = "eboard";

/// The largest MQTT packet sent or accepted, bytes (a snapshot is a few KiB).
pub const MAX_PACKET: usize = 1 << 20;

/// The default port of `mqtt://` (plain TCP).
pub const DEFAULT_PORT: u16 = 1883;
/// The default port of `mqtts://` (TLS).
pub const DEFAULT_TLS_PORT: u16 = 8883;
/// The environment variable whose password wins over `[mqtt] password`
/// (when set and not empty).
pub const PASSWORD_ENV: &str = "EBOARD_MQTT_PASSWORD";

/// The login and trust settings of a broker connection: `[mqtt]`'s
/// `username`, `password` and `ca_file`, or `eboard relay`'s flags (the
/// composition root, [`crate::app`], fills it in from either).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Security {
    /// The MQTT username (absent: no login).
    pub username: Option<String>,
    /// The password; [`PASSWORD_ENV`] wins when set and not empty.
    pub password: Option<String>,
    /// A PEM file of extra trusted CA certificates for `mqtts://` (the
    /// webpki roots are always trusted), relative to the working directory.
    pub ca_file: Option<String>,
}

impl std::fmt::Debug for Security {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Security")
            .field("username", &self.username)
            .field("password", &self.password.as_ref().map(|_| "…"))
            .field("ca_file", &self.ca_file)
            .finish()
    }
}

/// The broker to connect to: host, port and transport from its URL
/// ([`BrokerAddr::parse`]), the login and the extra trusted roots from the
/// [`Security`] settings ([`BrokerAddr::from_settings`]). [`BrokerAddr::options`] turns
/// it into the MQTT client's options, for the uplink and the relay alike.
#[derive(Clone, PartialEq, Eq)]
pub struct BrokerAddr {
    /// Host name or IP address (with TLS, the name the broker's certificate
    /// must be valid for).
    pub host: String,
    /// TCP port (default 1883, with TLS 8883).
    pub port: u16,
    /// `mqtts://`: TLS, the broker's certificate checked against the webpki
    /// roots and [`BrokerAddr::ca`].
    pub tls: bool,
    /// The username and password sent in CONNECT (never from the URL).
    pub login: Option<Login>,
    /// Extra trusted roots for TLS (`[mqtt] ca_file`), DER.
    pub ca: Vec<rustls::pki_types::CertificateDer<'static>>,
}

/// An MQTT username and password (the password is never printed).
#[derive(Clone, PartialEq, Eq)]
pub struct Login {
    /// The username.
    pub username: String,
    /// The password (may be empty: then none is sent).
    pub password: String,
}

impl std::fmt::Debug for Login {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Login")
            .field("username", &self.username)
            .field("password", &"…")
            .finish()
    }
}

impl std::fmt::Debug for BrokerAddr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrokerAddr")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("tls", &self.tls)
            .field("login", &self.login)
            .field("ca", &self.ca.len())
            .finish()
    }
}

impl std::fmt::Display for BrokerAddr {
    /// `host:port` (`[v6 address]:port`), with ` (TLS)` for `mqtts://`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)?;
        } else {
            write!(f, "{}:{}", self.host, self.port)?;
        }
        if self.tls {
            f.write_str(" (TLS)")?;
        }
        Ok(())
    }
}

impl BrokerAddr {
    /// Parses `mqtt://host[:port]` or `tcp://host[:port]` (plain TCP, port
    /// default 1883) or `mqtts://host[:port]` (TLS, port default 8883),
    /// with the `url` crate (host names, IPv4 and `[IPv6]` addresses). A
    /// trailing `/` is allowed; a path, query or fragment is not.
    /// Credentials in the URL are refused: URLs end up in logs, process
    /// lists and error messages; they go in `[mqtt] username` and
    /// `password` (or `EBOARD_MQTT_PASSWORD`).
    ///
    /// Errors quote the URL (its credentials replaced by `…`) and say which
    /// part is wrong and what a good URL looks like.
    pub fn parse(url: &str) -> Result<BrokerAddr, String> {
        let shown = redact_userinfo(url);
        let bad = |why: &str| {
            format!(
                "\"{shown}\": {why}; give mqtt://host:port or mqtts://host:port, e.g. mqtt://127.0.0.1:1883"
            )
        };
        let u = url::Url::parse(url.trim()).map_err(|e| match e {
            url::ParseError::InvalidPort => bad("the port is a number 1..=65535"),
            url::ParseError::EmptyHost => bad("no host"),
            url::ParseError::RelativeUrlWithoutBase => bad("no scheme"),
            e => bad(&format!("the host: {e}")),
        })?;
        let tls = match u.scheme() {
            "mqtts" => true,
            "mqtt" | "tcp" => false,
            _ => {
                return Err(bad(
                    "only mqtt:// (or tcp://, plain TCP) and mqtts:// (TLS) are supported",
                ))
            }
        };
        if !u.username().is_empty() || u.password().is_some() {
            return Err(format!(
                "\"{shown}\": credentials in the URL are refused (the URL ends up in logs and \
                 process lists): give [mqtt] username and password, or the password in {PASSWORD_ENV}"
            ));
        }
        let host = match u.host() {
            // An mqtt:// host is opaque to the URL standard: anything not
            // ASCII comes back percent-encoded, not as an IDNA name.
            Some(url::Host::Domain(d)) if d.contains('%') => {
                return Err(bad(
                    "the host: a name beyond ASCII is given in its xn-- (punycode) form",
                ))
            }
            Some(url::Host::Domain(d)) if !d.is_empty() => d.to_owned(),
            Some(url::Host::Ipv4(a)) => a.to_string(),
            Some(url::Host::Ipv6(a)) => a.to_string(),
            _ => return Err(bad("no host")),
        };
        if !matches!(u.path(), "" | "/") || u.query().is_some() || u.fragment().is_some() {
            return Err(bad("no path or options"));
        }
        let port = match u.port() {
            Some(0) => return Err(bad("the port is a number 1..=65535")),
            Some(p) => p,
            None if tls => DEFAULT_TLS_PORT,
            None => DEFAULT_PORT,
        };
        Ok(BrokerAddr {
            host,
            port,
            tls,
            login: None,
            ca: Vec::new(),
        })
    }

    /// The broker of `url` with `security`: its login (`password` replaced
    /// by `env_password` when that is set and not empty: the daemon passes
    /// `EBOARD_MQTT_PASSWORD`) and its `ca_file` read (file I/O: called at
    /// start-up).
    ///
    /// Errors are (key, what is wrong): `url`, `username`, `password`,
    /// `ca_file` (unreadable, no certificate, or given without TLS).
    pub fn from_settings(
        url: &str,
        security: &Security,
        env_password: Option<String>,
    ) -> Result<BrokerAddr, (&'static str, String)> {
        let mut b = BrokerAddr::parse(url).map_err(|e| ("url", e))?;
        let password = env_password
            .filter(|p| !p.is_empty())
            .or_else(|| security.password.clone());
        match (&security.username, password) {
            (Some(u), _) if u.is_empty() => {
                return Err((
                    "username",
                    "an empty username: give one or leave the key out".into(),
                ))
            }
            (Some(u), p) => {
                b.login = Some(Login {
                    username: u.clone(),
                    password: p.unwrap_or_default(),
                })
            }
            (None, Some(_)) => {
                return Err((
                    "password",
                    format!(
                        "a password ([mqtt] password or {PASSWORD_ENV}) needs a username \
                         ([mqtt] username, or the relay's --mqtt-username)"
                    ),
                ))
            }
            (None, None) => {}
        }
        // Issue 18 §2: no secret crosses the network in clear. Over plain
        // TCP a password goes only to a broker on this host.
        if !b.tls && !b.is_local() && b.login.as_ref().is_some_and(|l| !l.password.is_empty()) {
            return Err((
                "url",
                format!(
                    "\"{url}\": a password over plain mqtt:// would cross the network in clear; \
                     use mqtts://{}:8883 (TLS, docs/mqtt.md), or a broker on this host",
                    b.host
                ),
            ));
        }
        if let Some(f) = &security.ca_file {
            if !b.tls {
                return Err((
                    "ca_file",
                    format!("\"{f}\": a CA file is for TLS: the url must be mqtts://host:port"),
                ));
            }
            b.ca = crate::tls::load_ca_file(std::path::Path::new(f)).map_err(|e| ("ca_file", e))?;
        }
        Ok(b)
    }

    /// Whether the broker is on this host: `localhost`, 127.0.0.0/8 or `::1`
    /// (plain TCP to it does not cross the network).
    pub fn is_local(&self) -> bool {
        self.host == "localhost"
            || self
                .host
                .trim_matches(|c| c == '[' || c == ']')
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    }

    /// The MQTT client's options for this broker, for the uplink and the
    /// relay alike: client id, keep-alive [`publish::KEEP_ALIVE`], a clean
    /// session, packets up to [`MAX_PACKET`], the login, and with `mqtts://`
    /// TLS trusting the webpki roots and [`BrokerAddr::ca`] (ring provider).
    pub fn options(&self, client_id: String) -> Result<rumqttc::MqttOptions, String> {
        let mut o = rumqttc::MqttOptions::new(client_id, self.host.clone(), self.port);
        o.set_keep_alive(publish::KEEP_ALIVE)
            .set_clean_session(true)
            .set_max_packet_size(MAX_PACKET, MAX_PACKET);
        if let Some(l) = &self.login {
            o.set_credentials(l.username.clone(), l.password.clone());
        }
        if self.tls {
            let config = crate::tls::client_config(&self.ca)?;
            o.set_transport(rumqttc::Transport::tls_with_config(
                rumqttc::TlsConfiguration::Rustls(config),
            ));
        }
        Ok(o)
    }

    /// What a connection error means for the operator: a refused login
    /// names the username and where the password comes from, a refused
    /// certificate says why and points to `ca_file`; anything else is the
    /// error with its causes.
    pub fn explain(&self, e: &rumqttc::ConnectionError) -> String {
        use rumqttc::ConnectReturnCode as Code;
        match e {
            rumqttc::ConnectionError::ConnectionRefused(
                code @ (Code::BadUserNamePassword | Code::NotAuthorized),
            ) => match &self.login {
                Some(l) => format!(
                    "the broker refused the credentials of user \"{}\" ({code:?}): check [mqtt] \
                     username and password (or {PASSWORD_ENV}) against the broker's password file",
                    l.username
                ),
                None => format!(
                    "the broker refused the connection without credentials ({code:?}): \
                     give [mqtt] username and password"
                ),
            },
            _ => match crate::tls::certificate_problem(e) {
                Some(why) => format!(
                    "the broker's TLS certificate is refused: {why}; if the broker's \
                     certificate is signed by a private CA, give that CA's certificate \
                     (PEM) as [mqtt] ca_file ({})",
                    crate::tls::error_chain(e)
                ),
                None => crate::tls::error_chain(e),
            },
        }
    }
}

/// `url` with anything between `://` and `@` replaced by `…`.
fn redact_userinfo(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => format!("{}…{}", &url[..s + 3], &url[at..]),
        _ => url.to_owned(),
    }
}

/// Checks a topic prefix: not empty, no wildcards (`+`, `#`), no empty level.
pub fn check_prefix(p: &str) -> Result<(), String> {
    if p.is_empty() || p.contains(['+', '#', '\0']) || p.split('/').any(str::is_empty) {
        return Err(format!(
            "\"{p}\": a topic prefix is one or more non-empty levels without + or #, e.g. \"eboard\""
        ));
    }
    Ok(())
}

/// An event name as one topic level: ASCII letters and digits lower-cased,
/// anything else `-` (`DM 2026` → `dm-2026`); no name: `event`.
pub fn slug(name: Option<&str>) -> String {
    match name {
        Some(n) if !n.trim().is_empty() => n
            .trim()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect(),
        _ => "event".to_owned(),
    }
}

/// One board's topics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardTopics {
    /// The sequence-numbered public messages.
    pub events: String,
    /// The retained latest snapshot.
    pub snapshot: String,
}

impl BoardTopics {
    /// The topics of board `board` of round `round` of `event` (a name, slugged).
    pub fn new(prefix: &str, event: Option<&str>, round: u32, board: u32) -> BoardTopics {
        let base = format!("{prefix}/{}/{round}/{board}", slug(event));
        BoardTopics {
            events: format!("{base}/events"),
            snapshot: format!("{base}/snapshot"),
        }
    }
}

/// A message on a board's topics (public, or its arbiter channel's).
#[derive(Debug, Clone, Deserialize)]
pub struct Wire {
    /// Index of the message in the board's stream, from 1 (0: an
    /// out-of-band message, [`Wire::oob`]).
    pub seq: u64,
    /// The board's stream: the Unix time in ms its game started (a new game
    /// on the same topics starts a new stream).
    pub epoch: u64,
    /// Round time of the decision, ms.
    pub t: u64,
    /// The public message (absent on the snapshot topic).
    #[serde(default)]
    pub msg: Option<Value>,
    /// The board's snapshot after the decision (on the last message of a decision).
    #[serde(default)]
    pub snapshot: Option<Snapshot>,
    /// On the public snapshot topic: the board also publishes its arbiter
    /// channel ([`arbiter`]; absent: false).
    #[serde(default)]
    pub arbiter_channel: bool,
    /// On the arbiter channel: an out-of-band message's number in its
    /// board's run [`Wire::boot`], from 1 (an alert that a replay of the
    /// journal does not regenerate: not in the sequence).
    #[serde(default)]
    pub oob: Option<u64>,
    /// With [`Wire::oob`]: the board's run (random), so numbers of two runs
    /// are told apart.
    #[serde(default)]
    pub boot: Option<u64>,
}

/// The JSON of an events message (`msg` and `snapshot` are JSON text already).
pub fn wire_json(
    seq: u64,
    epoch: u64,
    t: u64,
    msg: Option<&str>,
    snapshot: Option<&str>,
) -> String {
    format!(
        "{{\"seq\":{seq},\"epoch\":{epoch},\"t\":{t},\"msg\":{},\"snapshot\":{}}}",
        msg.unwrap_or("null"),
        snapshot.unwrap_or("null")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broker_urls() {
        let b = BrokerAddr::parse("mqtt://127.0.0.1:1884").unwrap();
        assert_eq!((b.host.as_str(), b.port, b.tls), ("127.0.0.1", 1884, false));
        assert_eq!(BrokerAddr::parse("tcp://broker/").unwrap().port, 1883);
        let b = BrokerAddr::parse("mqtts://broker.example").unwrap();
        assert_eq!((b.port, b.tls), (8883, true));
        assert_eq!(BrokerAddr::parse("mqtts://h:8884").unwrap().port, 8884);
        assert_eq!(b.to_string(), "broker.example:8883 (TLS)");
        assert!(BrokerAddr::parse("ssl://h:8883").is_err());
        assert!(BrokerAddr::parse("mqtt://h:0").is_err());
        let e = BrokerAddr::parse("mqtts://h:65536").unwrap_err();
        assert!(e.contains("1..=65535"), "{e}");
        assert!(BrokerAddr::parse("mqtt://:1883").is_err());
        let e = BrokerAddr::parse("mqtt://u:secret@h:1883").unwrap_err();
        assert!(e.contains("credentials in the URL are refused"), "{e}");
        assert!(e.contains("logs") && !e.contains("secret"), "{e}");
        // Each error names the URL and the part that is wrong.
        for (url, part) in [
            ("ssl://h:8883", "only mqtt://"),
            ("mqtt://h:0", "1..=65535"),
            ("mqtt://h:port", "1..=65535"),
            ("mqtt://", "no host"),
            ("mqtt:h", "no host"),
            ("broker:1883", "only mqtt://"),
            ("127.0.0.1:1883", "no scheme"),
            ("mqtt://h/topic", "no path or options"),
            ("mqtt://h?client_id=x", "no path or options"),
            ("mqtt://h#x", "no path or options"),
            ("mqtt://bro ker", "the host"),
            ("mqtt://bücher.example", "xn--"),
        ] {
            let e = BrokerAddr::parse(url).unwrap_err();
            assert!(e.contains(&format!("\"{url}\"")), "{url}: {e}");
            assert!(e.contains(part), "{url}: {e}");
            assert!(e.contains("e.g. mqtt://127.0.0.1:1883"), "{url}: {e}");
        }
        // A password is never echoed, whatever else is wrong.
        for url in ["ssl://u:pw@h", "mqtt://u:pw@h:99999", "mqtt://:pw@h/x"] {
            let e = BrokerAddr::parse(url).unwrap_err();
            assert!(!e.contains("pw"), "{url}: {e}");
        }
        let b = BrokerAddr::parse("mqtts://[::1]:8884").unwrap();
        assert_eq!((b.host.as_str(), b.port), ("::1", 8884));
        assert_eq!(b.to_string(), "[::1]:8884 (TLS)");
        let b = BrokerAddr::parse("MQTT://Broker.Example:1884").unwrap();
        assert_eq!(
            (b.host.as_str(), b.port, b.tls),
            ("Broker.Example", 1884, false)
        );
    }

    #[test]
    fn logins_and_options() {
        let sec = |u: Option<&str>, p: Option<&str>| Security {
            username: u.map(str::to_owned),
            password: p.map(str::to_owned),
            ca_file: None,
        };
        let b =
            BrokerAddr::from_settings("mqtts://h", &sec(Some("board"), Some("cfg")), None).unwrap();
        assert_eq!(b.login.as_ref().unwrap().password, "cfg");
        assert!(
            !format!("{b:?}").contains("cfg"),
            "the password is not printed"
        );
        // The environment's password wins when set and not empty.
        let b = BrokerAddr::from_settings(
            "mqtts://h",
            &sec(Some("board"), Some("cfg")),
            Some("env".into()),
        )
        .unwrap();
        assert_eq!(b.login.unwrap().password, "env");
        let b = BrokerAddr::from_settings(
            "mqtts://h",
            &sec(Some("board"), Some("cfg")),
            Some(String::new()),
        )
        .unwrap();
        assert_eq!(b.login.unwrap().password, "cfg");
        assert_eq!(
            BrokerAddr::from_settings("mqtt://h", &sec(None, Some("p")), None)
                .unwrap_err()
                .0,
            "password"
        );
        assert_eq!(
            BrokerAddr::from_settings("mqtt://h", &sec(Some(""), None), None)
                .unwrap_err()
                .0,
            "username"
        );
        let ca = Security {
            ca_file: Some("/nonexistent/ca.pem".into()),
            ..Default::default()
        };
        let e = BrokerAddr::from_settings("mqtt://h", &ca, None).unwrap_err();
        assert_eq!(e.0, "ca_file");
        assert!(e.1.contains("mqtts://"), "{}", e.1);
        let e = BrokerAddr::from_settings("mqtts://h", &ca, None).unwrap_err();
        assert!(e.1.contains("cannot read"), "{}", e.1);

        let o = BrokerAddr::from_settings("mqtts://h", &sec(Some("u"), Some("p")), None)
            .unwrap()
            .options("id".into())
            .unwrap();
        assert_eq!(o.broker_address(), ("h".to_owned(), 8883));
        assert!(matches!(o.transport(), rumqttc::Transport::Tls(_)));
        assert_eq!(o.credentials(), Some(rumqttc::Login::new("u", "p")));
        let o = BrokerAddr::parse("mqtt://h")
            .unwrap()
            .options("id".into())
            .unwrap();
        assert!(matches!(o.transport(), rumqttc::Transport::Tcp));
        assert!(o.credentials().is_none());
    }

    #[test]
    fn a_password_never_goes_over_plain_tcp_to_another_host() {
        let sec = Security {
            username: Some("board1".into()),
            password: Some("s3cret-but-long-enough".into()),
            ca_file: None,
        };
        let (key, e) = BrokerAddr::from_settings("mqtt://broker.example", &sec, None).unwrap_err();
        assert_eq!(key, "url");
        assert!(
            e.contains("in clear") && e.contains("mqtts://broker.example:8883"),
            "{e}"
        );
        assert!(BrokerAddr::from_settings("mqtts://broker.example", &sec, None).is_ok());
        assert!(BrokerAddr::from_settings("mqtt://127.0.0.1:1883", &sec, None).is_ok());
        assert!(BrokerAddr::from_settings("mqtt://localhost", &sec, None).is_ok());
        let no_password = Security {
            password: None,
            ..sec
        };
        assert!(BrokerAddr::from_settings("mqtt://broker.example", &no_password, None).is_ok());
    }

    #[test]
    fn refusals_are_explained() {
        use rumqttc::{ConnectReturnCode, ConnectionError};
        let mut b = BrokerAddr::parse("mqtts://h").unwrap();
        b.login = Some(Login {
            username: "board".into(),
            password: "x".into(),
        });
        let m = b.explain(&ConnectionError::ConnectionRefused(
            ConnectReturnCode::NotAuthorized,
        ));
        assert!(
            m.contains("refused the credentials of user \"board\""),
            "{m}"
        );
        let tls = ConnectionError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer),
        ));
        let m = b.explain(&tls);
        assert!(m.contains("certificate") && m.contains("ca_file"), "{m}");
    }

    #[test]
    fn topics_and_prefixes() {
        let t = BoardTopics::new("eboard", Some("DM 2026"), 3, 12);
        assert_eq!(t.events, "eboard/dm-2026/3/12/events");
        assert_eq!(t.snapshot, "eboard/dm-2026/3/12/snapshot");
        assert_eq!(slug(None), "event");
        assert!(check_prefix("club/eboard").is_ok());
        assert!(check_prefix("a/+").is_err());
        assert!(check_prefix("a//b").is_err());
        assert!(check_prefix("").is_err());
    }

    #[test]
    fn wire_round_trip() {
        let w: Wire =
            serde_json::from_str(&wire_json(7, 1, 2, Some("{\"type\":\"move\"}"), None)).unwrap();
        assert_eq!((w.seq, w.epoch, w.t), (7, 1, 2));
        assert_eq!(w.msg.unwrap()["type"], "move");
        assert!(w.snapshot.is_none());
    }
}
