//! The certificate the HTTP listener answers HTTPS with (issue 18 §2,
//! `docs/server.md`): the organiser's own (PEM files), or one made on the
//! first start and kept beside the journal, whose SHA-256 fingerprint is
//! printed and logged so the arbiter's phone and the relay can pin it.
//!
//! The key is an ECDSA P-256 key made by rcgen with *ring* (as the rest of
//! the TLS stack, [`crate::tls`]); the made certificate names `localhost`,
//! the host's name (and `NAME.local`, mDNS), 127.0.0.1 and ::1.

use super::listener::Tls;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::path::Path;
use std::sync::Arc;

/// The file names of a made certificate and its key in its directory.
pub const CERT_FILE: &str = "eboard-tls-cert.pem";
/// See [`CERT_FILE`].
pub const KEY_FILE: &str = "eboard-tls-key.pem";

/// The largest PEM file read, bytes.
const MAX_PEM: u64 = 1 << 20;

fn read_bounded(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let cannot = |e: std::io::Error| format!("cannot read \"{}\": {e}", path.display());
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .map_err(cannot)?
        .take(MAX_PEM + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_PEM {
        return Err(format!(
            "\"{}\" is larger than {MAX_PEM} bytes: not a PEM certificate or key",
            path.display()
        ));
    }
    Ok(bytes)
}

/// SHA-256 of `der`, as `AB:CD:…` (what browsers and `openssl x509
/// -fingerprint -sha256` show).
pub fn fingerprint(der: &[u8]) -> String {
    let d = ring::digest::digest(&ring::digest::SHA256, der);
    d.as_ref()
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// The listener's TLS from a certificate chain and a key (PEM files).
///
/// Errors name the file and what is wrong: unreadable, no certificate, no
/// private key, or a key that does not fit the certificate.
pub fn from_files(cert: &Path, key: &Path) -> Result<Tls, String> {
    let cert_pem = read_bounded(cert)?;
    let key_pem = read_bounded(key)?;
    from_pem(
        &cert_pem,
        &key_pem,
        &format!("\"{}\"", cert.display()),
        &format!("\"{}\"", key.display()),
    )
}

/// The listener's TLS from a PEM certificate chain and key; errors name
/// them as `cert_name` and `key_name`.
fn from_pem(
    cert_pem: &[u8],
    key_pem: &[u8],
    cert_name: &str,
    key_name: &str,
) -> Result<Tls, String> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(cert_pem)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{cert_name}: not a PEM certificate chain: {e}"))?;
    if chain.is_empty() {
        return Err(format!(
            "{cert_name} holds no certificate (-----BEGIN CERTIFICATE-----)"
        ));
    }
    let key_der = PrivateKeyDer::from_pem_slice(key_pem)
        .map_err(|e| format!("{key_name}: no private key in it (PEM): {e}"))?;
    let print = fingerprint(&chain[0]);
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_no_client_auth()
        .with_single_cert(chain, key_der)
        .map_err(|e| {
            format!("{cert_name} and {key_name}: the key does not serve the certificate: {e}")
        })?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Tls {
        config: Arc::new(config),
        fingerprint: print,
    })
}

/// The names a made certificate carries.
fn names() -> Vec<String> {
    let mut names = vec!["localhost".to_owned()];
    if let Some(h) = hostname() {
        names.push(format!("{h}.local"));
        names.insert(0, h);
    }
    names.extend(["127.0.0.1".to_owned(), "::1".to_owned()]);
    names
}

fn hostname() -> Option<String> {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into buf.
    let r = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if r != 0 {
        return None;
    }
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    let h = std::str::from_utf8(&buf[..end]).ok()?.trim();
    (!h.is_empty() && h != "localhost").then(|| h.to_owned())
}

/// The listener's TLS from the certificate kept in `dir`, made there first
/// when absent (`dir` is created; the key is written mode 0600). Returns
/// the TLS and whether the certificate was made now.
///
/// Errors name the file: it cannot be written, or what is there is damaged
/// (then move it away and a new one is made).
pub fn kept_in(dir: &Path) -> Result<(Tls, bool), String> {
    let cert = dir.join(CERT_FILE);
    let key = dir.join(KEY_FILE);
    if cert.exists() || key.exists() {
        return from_files(&cert, &key).map(|t| (t, false)).map_err(|e| {
            format!(
                "{e} (move {} and {} away to have a new certificate made)",
                cert.display(),
                key.display()
            )
        });
    }
    let (cert_pem, key_pem) = make()?;
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create \"{}\": {e}", dir.display()))?;
    crate::disk::write_private(&key, key_pem.as_bytes())?;
    std::fs::write(&cert, cert_pem)
        .map_err(|e| format!("cannot write \"{}\": {e}", cert.display()))?;
    from_files(&cert, &key).map(|t| (t, true))
}

/// A certificate made for this process only (no directory to keep it in):
/// its fingerprint changes at every start.
pub fn ephemeral() -> Result<Tls, String> {
    let (cert_pem, key_pem) = make()?;
    from_pem(
        cert_pem.as_bytes(),
        key_pem.as_bytes(),
        "the made certificate",
        "its key",
    )
}

/// A self-signed certificate and its key (PEM).
fn make() -> Result<(String, String), String> {
    let made = rcgen::generate_simple_self_signed(names())
        .map_err(|e| format!("cannot make a TLS certificate: {e}"))?;
    Ok((made.cert.pem(), made.signing_key.serialize_pem()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_made_certificate_is_kept_and_its_fingerprint_stays() {
        let dir = std::env::temp_dir().join(format!("eboard-cert-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (first, made) = kept_in(&dir).unwrap();
        assert!(made);
        assert_eq!(first.fingerprint.len(), 32 * 3 - 1);
        let (again, made) = kept_in(&dir).unwrap();
        assert!(!made);
        assert_eq!(first.fingerprint, again.fingerprint);
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(dir.join(KEY_FILE)).unwrap().permissions(),
        );
        assert_eq!(mode & 0o777, 0o600);
        // A damaged key is named, with what to do.
        std::fs::write(dir.join(KEY_FILE), "garbage").unwrap();
        let e = kept_in(&dir).unwrap_err();
        assert!(e.contains(KEY_FILE) && e.contains("move"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn files_that_are_not_a_certificate_are_named() {
        let dir = std::env::temp_dir().join(format!("eboard-cert-test2-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (c, k) = (dir.join("c.pem"), dir.join("k.pem"));
        std::fs::write(&c, "not pem").unwrap();
        std::fs::write(&k, "not pem").unwrap();
        let e = from_files(&c, &k).unwrap_err();
        assert!(e.contains("c.pem") && e.contains("no certificate"), "{e}");
        let e = from_files(&dir.join("absent.pem"), &k).unwrap_err();
        assert!(e.contains("absent.pem") && e.contains("cannot read"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
