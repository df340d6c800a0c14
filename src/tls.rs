//! TLS for the two uplinks that leave the venue: MQTT over TLS
//! (`mqtts://`, [`crate::mqtt`]) and the lichess push
//! ([`crate::broadcast::lichess_push`]).
//!
//! Both use rustls with the *ring* crypto provider (no OpenSSL, no aws-lc:
//! the Raspberry Pi cross-build needs no C toolchain beyond gcc) and trust
//! the webpki roots compiled into the binary (Mozilla's list, as browsers
//! do), plus the certificates of an optional `ca_file`: a private CA (a
//! venue's own broker, a test) or the CA of a TLS-inspecting proxy.
//!
//! Depends on nothing of the product (a `ca_file`'s path is passed in): it
//! is at the bottom of docs/dev/architecture.md's map. It must not depend
//! on `mqtt`, `broadcast` or `server` (which use it), on `config` or on any
//! other module.

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use rustls::{ClientConfig, RootCertStore};
use std::error::Error;
use std::path::Path;
use std::sync::Arc;

/// The largest `ca_file` read, bytes (a CA bundle is a few hundred KiB).
pub const MAX_CA_FILE: u64 = 4 << 20;

/// The certificates of a PEM file (`-----BEGIN CERTIFICATE-----` sections;
/// anything else in the file, e.g. a key or comments, is skipped), each
/// checked to be usable as a trusted root.
///
/// Errors name the file and say what is wrong: it cannot be read, it is
/// not PEM, it holds no certificate, or certificate N is not valid X.509.
pub fn load_ca_file(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    use std::io::Read;
    let shown = path.display();
    let cannot = |e: std::io::Error| format!("cannot read \"{shown}\": {e}");
    // Bounded: a device or a huge file named by mistake is an error, not a hang.
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .map_err(cannot)?
        .take(MAX_CA_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_CA_FILE {
        return Err(format!(
            "\"{shown}\" is larger than {MAX_CA_FILE} bytes: not a CA file (PEM)"
        ));
    }
    let certs = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("\"{shown}\" is not valid PEM: {e}"))?;
    if certs.is_empty() {
        return Err(format!(
            "\"{shown}\" holds no certificate: give the CA's certificate in PEM \
             (-----BEGIN CERTIFICATE-----)"
        ));
    }
    for (i, c) in certs.iter().enumerate() {
        RootCertStore::empty().add(c.clone()).map_err(|e| {
            format!(
                "\"{shown}\": certificate {} of {} is not a valid X.509 certificate: {e}",
                i + 1,
                certs.len()
            )
        })?;
    }
    Ok(certs)
}

/// The crypto provider of every TLS connection: ring.
pub fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A TLS client configuration (TLS 1.2 and 1.3) trusting the webpki roots
/// and `extra` (from [`load_ca_file`]; certificates that are not usable
/// roots are skipped, [`load_ca_file`] has reported them already).
pub fn client_config(extra: &[CertificateDer<'static>]) -> Result<Arc<ClientConfig>, String> {
    let mut roots = RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    roots.add_parsable_certificates(extra.iter().cloned());
    let config = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// A pinned certificate: the SHA-256 of its DER, as `eboard run` prints it
/// (`AB:CD:…`, 32 bytes; colons and case optional).
///
/// Errors say what a pin looks like.
pub fn parse_pin(text: &str) -> Result<[u8; 32], String> {
    let hex: String = text.chars().filter(|c| *c != ':').collect();
    let bad = || {
        format!(
            "\"{text}\": a certificate pin is the SHA-256 fingerprint eboard prints at start \
             (64 hex digits, colons allowed)"
        )
    };
    if hex.len() != 64 || !hex.is_ascii() {
        return Err(bad());
    }
    let mut out = [0u8; 32];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
    }
    Ok(out)
}

/// A TLS client configuration that accepts a server whose certificate's
/// SHA-256 is one of `pins` (a board's self-signed certificate, whatever
/// name it was reached by), and any other server as [`client_config`]
/// does (the webpki roots). The server must still prove it holds the
/// certificate's key (the handshake's signature is verified).
pub fn pinned_client_config(pins: &[[u8; 32]]) -> Result<Arc<ClientConfig>, String> {
    let mut roots = RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    let webpki =
        rustls::client::WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider())
            .build()
            .map_err(|e| format!("TLS: {e}"))?;
    let verifier = PinnedOrWebpki {
        pins: pins.to_vec(),
        webpki,
        provider: provider(),
    };
    let config = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// Pinned certificates first, else the webpki roots.
#[derive(Debug)]
struct PinnedOrWebpki {
    pins: Vec<[u8; 32]>,
    webpki: Arc<rustls::client::WebPkiServerVerifier>,
    provider: Arc<rustls::crypto::CryptoProvider>,
}

impl rustls::client::danger::ServerCertVerifier for PinnedOrWebpki {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &rustls::pki_types::ServerName<'_>,
        ocsp_response: &[u8],
        now: rustls::pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        let digest = ring::digest::digest(&ring::digest::SHA256, end_entity.as_ref());
        if self.pins.iter().any(|p| p[..] == *digest.as_ref()) {
            return Ok(rustls::client::danger::ServerCertVerified::assertion());
        }
        self.webpki
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// The rustls error in `e` or its sources, looking inside `io::Error`s
/// (which hide what they wrap from `source()`), however deeply nested.
fn rustls_error<'a>(e: &'a (dyn Error + 'static)) -> Option<&'a rustls::Error> {
    if let Some(r) = e.downcast_ref::<rustls::Error>() {
        return Some(r);
    }
    if let Some(inner) = e
        .downcast_ref::<std::io::Error>()
        .and_then(|io| io.get_ref())
    {
        if let Some(r) = rustls_error(inner) {
            return Some(r);
        }
    }
    e.source().and_then(rustls_error)
}

/// Why the peer's certificate was refused, in words, when `e` (or one of
/// its sources) is a certificate error of rustls.
pub fn certificate_problem(e: &(dyn Error + 'static)) -> Option<String> {
    use rustls::CertificateError as C;
    let rustls::Error::InvalidCertificate(c) = rustls_error(e)? else {
        return None;
    };
    Some(match c {
        C::UnknownIssuer => {
            "it is not signed by a certificate authority trusted here (UnknownIssuer)".to_owned()
        }
        C::NotValidForName | C::NotValidForNameContext { .. } => {
            format!("it is not valid for this host name ({c})")
        }
        C::Expired | C::ExpiredContext { .. } => format!("it has expired ({c})"),
        C::NotValidYet | C::NotValidYetContext { .. } => {
            format!("it is not valid yet: is this machine's clock right? ({c})")
        }
        // webpki's: the peer sent a certificate authority's certificate
        // (CA:TRUE, what `openssl req -x509` makes) as its own.
        C::Other(o) if format!("{o:?}").contains("CaUsedAsEndEntity") => {
            "it is a certificate authority's certificate (CA:TRUE) used as the server's own: \
             make a CA and sign the server's certificate with it, and give the CA as ca_file \
             (docs/mqtt.md, \"The broker's certificate\") (CaUsedAsEndEntity)"
                .to_owned()
        }
        other => format!("{other:?}"),
    })
}

/// `e` and its sources, `outer: inner: …` (the HTTP and MQTT clients'
/// messages leave the cause out), without repeating a source's text that
/// its parent already shows.
pub fn error_chain(e: &(dyn Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut cur = e.source();
    while let Some(err) = cur {
        let s = err.to_string();
        if !out.contains(&s) {
            out.push_str(": ");
            out.push_str(&s);
        }
        cur = err.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_read_as_eboard_prints_them() {
        let printed = (0..32)
            .map(|i| format!("{:02X}", i * 7))
            .collect::<Vec<_>>()
            .join(":");
        let pin = parse_pin(&printed).unwrap();
        assert_eq!(pin[1], 7);
        assert_eq!(
            parse_pin(&printed.replace(':', "").to_lowercase()).unwrap(),
            pin
        );
        let e = parse_pin("AB:CD").unwrap_err();
        assert!(e.contains("64 hex digits"), "{e}");
        assert!(parse_pin(&"zz".repeat(32)).is_err());
        assert!(pinned_client_config(&[pin]).is_ok());
    }

    fn tmp(name: &str, body: &[u8]) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("eboard-tls-{}-{name}", std::process::id()));
        std::fs::write(&p, body).unwrap();
        p
    }

    #[test]
    fn ca_files_are_checked() {
        let missing = std::env::temp_dir().join("eboard-tls-no-such-file.pem");
        let e = load_ca_file(&missing).unwrap_err();
        assert!(
            e.contains("cannot read") && e.contains("no-such-file"),
            "{e}"
        );

        let e = load_ca_file(Path::new("/dev/zero")).unwrap_err();
        assert!(e.contains("larger than"), "{e}");

        let p = tmp("empty.pem", b"# nothing here\n");
        let e = load_ca_file(&p).unwrap_err();
        assert!(e.contains("holds no certificate"), "{e}");

        let p = tmp(
            "junk.pem",
            b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
        );
        let e = load_ca_file(&p).unwrap_err();
        assert!(e.contains("certificate 1 of 1"), "{e}");

        let key = rcgen::KeyPair::generate().unwrap();
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        let ca = params.self_signed(&key).unwrap();
        let p = tmp("ca.pem", format!("junk\n{}", ca.pem()).as_bytes());
        let certs = load_ca_file(&p).unwrap();
        assert_eq!(certs.len(), 1);
        assert!(client_config(&certs).is_ok());
    }

    #[test]
    fn certificate_problems_are_found_through_io_errors() {
        // As reqwest reports it: an io::Error in an io::Error.
        let e = std::io::Error::other(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer),
        ));
        let why = certificate_problem(&e).unwrap();
        assert!(why.contains("UnknownIssuer"), "{why}");
        // ia11: a broker's certificate made with `openssl req -x509` only.
        #[derive(Debug)]
        struct CaUsedAsEndEntity;
        impl std::fmt::Display for CaUsedAsEndEntity {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "CaUsedAsEndEntity")
            }
        }
        impl Error for CaUsedAsEndEntity {}
        let e = std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            rustls::Error::InvalidCertificate(rustls::CertificateError::Other(rustls::OtherError(
                std::sync::Arc::new(CaUsedAsEndEntity),
            ))),
        );
        let why = certificate_problem(&e).unwrap();
        assert!(
            why.contains("sign the server's certificate") && why.contains("ca_file"),
            "{why}"
        );
        let plain = std::io::Error::other("connection refused");
        assert!(certificate_problem(&plain).is_none());
        assert_eq!(error_chain(&plain), "connection refused");
    }
}
