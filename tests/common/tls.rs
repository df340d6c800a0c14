//! TLS for the tests' own servers: a test CA with a server certificate it
//! signs (for `localhost` and `127.0.0.1`), and an HTTPS listener for an
//! axum app (a fake lichess, a fake endpoint) on a port of 127.0.0.1.
//! Used by the broker's TLS test (`mqtt.rs`, as PEM files for mosquitto),
//! the lichess push over TLS (`mqtt.rs`) and the doctor's lichess check
//! (`doctor.rs`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio_rustls::rustls;

/// A test CA and a server certificate it signs (for 127.0.0.1 and
/// localhost), as PEM files and DER.
pub struct TestPki {
    /// The CA's certificate (PEM): what `ca_file` names.
    pub ca: PathBuf,
    /// The server's certificate and key (PEM), for mosquitto.
    pub cert: PathBuf,
    pub key: PathBuf,
    pub cert_der: Vec<u8>,
    pub key_der: Vec<u8>,
}

/// Makes the CA and the server certificate, written as `ca.pem`,
/// `server.pem` and `server.key` in `dir`.
pub fn test_pki(dir: &Path) -> TestPki {
    use rcgen::{
        BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose,
        IsCa, KeyPair, KeyUsagePurpose,
    };
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "eboard test CA");
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
    let mut params =
        CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()]).unwrap();
    params
        .distinguished_name
        .push(DnType::CommonName, "localhost");
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let key = KeyPair::generate().unwrap();
    let cert = params.signed_by(&key, &ca).unwrap();
    let pki = TestPki {
        ca: dir.join("ca.pem"),
        cert: dir.join("server.pem"),
        key: dir.join("server.key"),
        cert_der: cert.der().to_vec(),
        key_der: key.serialize_der(),
    };
    std::fs::write(&pki.ca, ca.pem()).unwrap();
    std::fs::write(&pki.cert, cert.pem()).unwrap();
    std::fs::write(&pki.key, key.serialize_pem()).unwrap();
    pki
}

/// A TLS listener for axum: handshakes that fail are recorded, not served.
struct TlsListener {
    tcp: tokio::net::TcpListener,
    acceptor: tokio_rustls::TlsAcceptor,
    failed: Arc<Mutex<Vec<String>>>,
}

impl axum::serve::Listener for TlsListener {
    type Io = tokio_rustls::server::TlsStream<tokio::net::TcpStream>;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let Ok((tcp, addr)) = self.tcp.accept().await else {
                continue;
            };
            match self.acceptor.accept(tcp).await {
                Ok(tls) => return (tls, addr),
                Err(e) => self.failed.lock().unwrap().push(e.to_string()),
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.tcp.local_addr()
    }
}

/// An HTTPS server on 127.0.0.1 with `pki`'s server certificate, serving
/// `app` on `rt`: its port, and the handshakes that failed (their errors,
/// in order).
pub fn serve_https(
    rt: &tokio::runtime::Runtime,
    pki: &TestPki,
    app: axum::Router,
) -> (u16, Arc<Mutex<Vec<String>>>) {
    let server = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(
        vec![pki.cert_der.clone().into()],
        rustls::pki_types::PrivatePkcs8KeyDer::from(pki.key_der.clone()).into(),
    )
    .unwrap();
    let failed = Arc::new(Mutex::new(Vec::new()));
    let listener = TlsListener {
        tcp: rt
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap(),
        acceptor: tokio_rustls::TlsAcceptor::from(Arc::new(server)),
        failed: failed.clone(),
    };
    let port = listener.tcp.local_addr().unwrap().port();
    rt.spawn(async move { axum::serve(listener, app).await });
    (port, failed)
}
