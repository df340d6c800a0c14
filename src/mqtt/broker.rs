//! The broker: its address, TLS and login, parsed from an `mqtt://` or `mqtts://` URL.

use super::*;

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
pub(super) fn redact_userinfo(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => format!("{}…{}", &url[..s + 3], &url[at..]),
        _ => url.to_owned(),
    }
}
