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
    let b = BrokerAddr::from_settings("mqtts://h", &sec(Some("board"), Some("cfg")), None).unwrap();
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
