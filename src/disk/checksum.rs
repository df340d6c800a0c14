//! A checksum on every line of the files the daemon resumes from (the
//! journal's records, the MQTT queues, the relay's kept state), so that a
//! changed byte (an SD card's bit rot) is found on reading, never taken for
//! a different game (issue 41).
//!
//! The checksum is CRC-32C (Castagnoli, the polynomial 0x1EDC6F41 of
//! RFC 3720 §12.1 and appendix B.4, as ext4's metadata and iSCSI use it):
//! it finds every error of up to 3 bits in lines as long as the journal's,
//! and every burst of up to 32 bits.
//!
//! Two ways of carrying it:
//!
//! - on a JSON object line ([`seal_json`]), as the object's last key
//!   `"crc32c"`: the 8 lowercase hex digits of the CRC-32C of the line's
//!   bytes before `,"crc32c":"` (`{"t":5,"lift":"e2","crc32c":"1a2b3c4d"}`).
//!   A reader of the trace contract ignores the unknown key
//!   (`spec/trace-format.md`: "Unknown input fields must be ignored");
//!   `docs/trace-extensions.md` documents it;
//! - on any other text line ([`seal_text`]), as a last field
//!   `<TAB>crc32c=<8 hex>`, over the bytes before the tab.

use std::fmt::Write;

/// The key (JSON lines) and the field name (text lines) of the checksum.
pub const KEY: &str = "crc32c";

const JSON_MARK: &[u8] = b",\"crc32c\":\"";
const TEXT_MARK: &[u8] = b"\tcrc32c=";

/// The CRC-32C table (reflected polynomial 0x82F63B78), built at compile time.
const TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0x82F6_3B78
            } else {
                c >> 1
            };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

/// The CRC-32C of `bytes` (RFC 3720 appendix B.4: `crc32c(b"123456789")`
/// is `0xE3069283`).
pub fn crc32c(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for b in bytes {
        c = TABLE[((c ^ u32::from(*b)) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

/// What a line's checksum says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// The line carries a checksum and it matches: the line without it is
    /// the first `len` bytes of the line, then (JSON) its closing `}`.
    Good {
        /// The bytes the checksum covers (the line before its mark).
        len: usize,
    },
    /// The line carries a checksum (its whole mark and 8 hex digits) that
    /// does not match, or bytes follow it: the line was changed.
    Bad,
    /// The line carries no whole checksum (written before checksums, or
    /// cut before its end, or its mark itself changed).
    Missing,
}

/// `json` (one JSON object's text, not empty: `{…}`) with its checksum as
/// the last key.
pub fn seal_json(json: &str) -> String {
    let body = json.strip_suffix('}').unwrap_or(json);
    let mut s = String::with_capacity(body.len() + 24);
    s.push_str(body);
    let _ = write!(s, ",\"{KEY}\":\"{:08x}\"}}", crc32c(body.as_bytes()));
    s
}

/// `line` (text without a newline) with its checksum as a last
/// tab-separated field.
pub fn seal_text(line: &str) -> String {
    let mut s = String::with_capacity(line.len() + 18);
    s.push_str(line);
    let _ = write!(s, "\t{KEY}={:08x}", crc32c(line.as_bytes()));
    s
}

/// Checks a JSON line sealed by [`seal_json`] (without its newline).
pub fn check_json(line: &[u8]) -> Check {
    check(line, JSON_MARK, b"\"}")
}

/// Checks a text line sealed by [`seal_text`] (without its newline).
pub fn check_text(line: &[u8]) -> Check {
    check(line, TEXT_MARK, b"")
}

/// The JSON line without its checksum (the object as it was sealed) when
/// the checksum is good.
pub fn unseal_json(line: &[u8]) -> Option<Vec<u8>> {
    match check_json(line) {
        Check::Good { len } => {
            let mut v = Vec::with_capacity(len + 1);
            v.extend_from_slice(&line[..len]);
            v.push(b'}');
            Some(v)
        }
        _ => None,
    }
}

/// The text line without its checksum when the checksum is good.
pub fn unseal_text(line: &[u8]) -> Option<&[u8]> {
    match check_text(line) {
        Check::Good { len } => Some(&line[..len]),
        _ => None,
    }
}

fn check(line: &[u8], mark: &[u8], close: &[u8]) -> Check {
    // The last mark followed by 8 hex digits (a JSON string cannot hold
    // the mark: its quotes would be escaped; a text line's fields hold no
    // tab).
    let Some(at) = line.windows(mark.len()).rposition(|w| w == mark) else {
        return Check::Missing;
    };
    let digits = &line[at + mark.len()..];
    let Some(hex) = digits.get(..8) else {
        return Check::Missing;
    };
    if !hex
        .iter()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
    {
        return Check::Missing;
    }
    let rest = &digits[8..];
    if !rest.starts_with(close) {
        return Check::Missing;
    }
    if rest.len() != close.len() {
        return Check::Bad;
    }
    let want = std::str::from_utf8(hex)
        .ok()
        .and_then(|h| u32::from_str_radix(h, 16).ok());
    if want == Some(crc32c(&line[..at])) {
        Check::Good { len: at }
    } else {
        Check::Bad
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rfc_3720_check_value() {
        // RFC 3720 B.4 and the CRC catalogue's "check" of CRC-32/ISCSI.
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(crc32c(&[0u8; 32]), 0x8A91_36AA);
    }

    #[test]
    fn a_sealed_line_checks_and_every_one_bit_change_is_found() {
        let json = r#"{"t":1234,"lift":"e2"}"#;
        let sealed = seal_json(json);
        let v: serde_json::Value = serde_json::from_str(&sealed).unwrap();
        assert_eq!(v["lift"], "e2");
        assert_eq!(v[KEY].as_str().unwrap().len(), 8);
        assert_eq!(unseal_json(sealed.as_bytes()).unwrap(), json.as_bytes());
        let text = seal_text("E\t12\t{}\t");
        assert_eq!(unseal_text(text.as_bytes()).unwrap(), b"E\t12\t{}\t");
        for line in [sealed.as_bytes(), text.as_bytes()] {
            for i in 0..line.len() {
                for bit in 0..8 {
                    let mut b = line.to_vec();
                    b[i] ^= 1 << bit;
                    let c = if line == sealed.as_bytes() {
                        check_json(&b)
                    } else {
                        check_text(&b)
                    };
                    assert!(!matches!(c, Check::Good { .. }), "byte {i} bit {bit}");
                }
            }
        }
        assert_eq!(check_json(json.as_bytes()), Check::Missing);
        let mut extra = sealed.clone().into_bytes();
        extra.push(b'x');
        assert_eq!(check_json(&extra), Check::Bad);
    }
}
