//! A venue's Wi-Fi as one IPv6 /64 in the tests (issue 41 §1, §4): a
//! network namespace of the test's own thread with 2001:db8:41:64::/64
//! routed to `lo` and `ip_nonlocal_bind`, so any address of the /64 can be
//! a client ([`in_venue_64`]); connections and requests from a chosen
//! address, over plain HTTP or TLS ([`connect_from`], [`plain_from`],
//! [`tls_from`]).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// The board's address in the venue's /64 ([`in_venue_64`]).
pub const VENUE_BOARD: &str = "[2001:db8:41:64::1]:8080";

/// Runs `test` in a thread of its own in a network namespace of its own
/// (`unshare(CLONE_NEWNET)`: the daemons it starts and their sockets are in
/// it) with the venue's /64 on `lo`; skipped (failed under CI) where no
/// namespace can be made.
pub fn in_venue_64(test: impl FnOnce() + Send + 'static) {
    std::thread::spawn(move || {
        // SAFETY: unshare(2) with a flag only changes this thread's namespaces.
        if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
            let e = std::io::Error::last_os_error();
            super::skip_or_fail_under_ci(&format!(
                "no network namespace (unshare: {e}; needs CAP_SYS_ADMIN)"
            ));
            return;
        }
        for cmd in [
            "ip link set lo up",
            "ip -6 addr add 2001:db8:41:64::1/64 dev lo nodad",
            "ip -6 route add local 2001:db8:41:64::/64 dev lo table local",
            "sysctl -qw net.ipv6.ip_nonlocal_bind=1",
        ] {
            if let Err(e) = net_setup(cmd) {
                super::skip_or_fail_under_ci(&format!("the /64 on lo cannot be set up: {e}"));
                return;
            }
        }
        test();
    })
    .join()
    .unwrap();
}

/// A connection from `source` to `to` (None when it cannot be made).
pub fn connect_from(source: std::net::IpAddr, to: SocketAddr) -> Option<TcpStream> {
    let domain = socket2::Domain::for_address(to);
    let sock = socket2::Socket::new(domain, socket2::Type::STREAM, None).ok()?;
    sock.bind(&SocketAddr::new(source, 0).into()).ok()?;
    sock.connect_timeout(&to.into(), Duration::from_secs(5))
        .ok()?;
    Some(sock.into())
}

/// The status of a whole HTTP answer (0: none, the connection closed or reset).
pub fn status_of(answer: &[u8]) -> u16 {
    std::str::from_utf8(answer.get(9..12).unwrap_or(b"000"))
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

/// `GET path` over plain HTTP from `source`: the status (0: refused).
pub fn plain_from(source: std::net::IpAddr, to: SocketAddr, path: &str) -> u16 {
    let Some(mut s) = connect_from(source, to) else {
        return 0;
    };
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let req = format!("GET {path} HTTP/1.0\r\nHost: x\r\n\r\n");
    if s.write_all(req.as_bytes()).is_err() {
        return 0;
    }
    let mut got = Vec::new();
    let _ = s.read_to_end(&mut got);
    status_of(&got)
}

/// `GET path` with the bearer `token` over TLS from `source`, trusting
/// only the daemon's own certificate (kept in `dir`): the status (0: the
/// connection refused or the handshake cut).
pub fn tls_from(
    dir: &std::path::Path,
    source: std::net::IpAddr,
    to: SocketAddr,
    path: &str,
    token: &str,
) -> u16 {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, ServerName};
    let pem = std::fs::read(dir.join("eboard-tls-cert.pem")).expect("the certificate is kept");
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_slice(&pem).unwrap())
        .unwrap();
    let config = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let Some(tcp) = connect_from(source, to) else {
        return 0;
    };
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    let conn = rustls::ClientConnection::new(std::sync::Arc::new(config), name).unwrap();
    let mut tls = rustls::StreamOwned::new(conn, tcp);
    let req = format!("GET {path} HTTP/1.0\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n");
    if tls.write_all(req.as_bytes()).is_err() {
        return 0;
    }
    let mut got = Vec::new();
    let _ = tls.read_to_end(&mut got);
    status_of(&got)
}

/// Runs `cmd` (an `ip` or `sysctl` command line) in this thread's network
/// namespace; its error, if it failed.
pub fn net_setup(cmd: &str) -> Result<(), String> {
    let mut words = cmd.split_whitespace();
    let out = std::process::Command::new(words.next().unwrap())
        .args(words)
        .output()
        .map_err(|e| format!("`{cmd}`: {e}"))?;
    match out.status.success() {
        true => Ok(()),
        false => Err(format!(
            "`{cmd}`: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
    }
}
