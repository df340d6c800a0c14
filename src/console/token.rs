//! A token's strength (issue 26 §4, issue 41 §4; `docs/server.md`, "Token
//! strength"): at least [`MIN_TOKEN_BITS`] random bits by length and
//! alphabet, no pattern zxcvbn finds, no pass phrase; and a fresh one as
//! `eboard token` makes it. Uses nothing else of the console.

use rand::RngCore;

/// The least entropy of a token, bits.
pub const MIN_TOKEN_BITS: usize = 128;

/// The least zxcvbn estimate of a token's guesses, log10: zxcvbn's
/// ceiling (its count of guesses is a `u64`, about 10^19.3), which every
/// random token of 20 characters or more reaches; a pattern, a sequence,
/// a repetition or dictionary words keep it below.
pub const MIN_TOKEN_GUESSES_LOG10: f64 = 19.0;

/// The shortest dictionary word counted in a pass phrase, characters
/// ([`check_token`]): a random token holds two- and three-letter words by
/// chance, a pass phrase holds words.
pub const MIN_WORD: usize = 4;

/// How many characters of `body` (base64 or hex, so ASCII) lie in
/// dictionary words of [`MIN_WORD`] letters or more, by zxcvbn's matching
/// over overlapping windows of 20 characters (zxcvbn's count of guesses is
/// a saturating `u64`, so for a whole long pass phrase every reading ties
/// at its ceiling and the sequence it returns says nothing of the words),
/// and of each run of letters between digits and separators.
fn worded(body: &str) -> usize {
    use zxcvbn::matching::patterns::MatchPattern as P;
    const WINDOW: usize = 20;
    const STEP: usize = 10;
    let mut covered = vec![false; body.len()];
    let mut start = 0;
    loop {
        let end = (start + WINDOW).min(body.len());
        let Some(window) = body.get(start..end) else {
            break;
        };
        for m in zxcvbn::zxcvbn(window, &[]).sequence() {
            if matches!(m.pattern, P::Dictionary(_)) && m.j + 1 - m.i >= MIN_WORD {
                for c in covered.iter_mut().skip(start + m.i).take(m.j + 1 - m.i) {
                    *c = true;
                }
            }
        }
        if end == body.len() {
            break;
        }
        start += STEP;
    }
    // And each piece between separators that is one word ("tree-7-house"):
    // zxcvbn's reading of a window may take a short word for brute force.
    let mut at = 0;
    for piece in body.split(|c: char| !c.is_ascii_alphabetic()) {
        let n = piece.len();
        if n >= MIN_WORD {
            let e = zxcvbn::zxcvbn(piece, &[]);
            if let [m] = e.sequence() {
                if matches!(m.pattern, P::Dictionary(_)) {
                    covered[at..at + n].iter_mut().for_each(|c| *c = true);
                }
            }
        }
        at += n + 1;
    }
    covered.iter().filter(|c| **c).count()
}

/// Checks that `token` carries at least [`MIN_TOKEN_BITS`] bits when
/// random — hex digits count 4 bits, base64 / base64url characters 6;
/// other characters (spaces, punctuation) are refused — and that it has
/// no pattern: zxcvbn's estimate (Dropbox's entropy estimator: sequences,
/// repeats, keyboard walks, dictionary words) must reach
/// [`MIN_TOKEN_GUESSES_LOG10`] — and that it is no pass phrase: dictionary
/// words of [`MIN_WORD`] letters or more (zxcvbn's matches, l33t and
/// reversed ones included) make up less than half of it (hex tokens, whose
/// alphabet holds no phrase but l33t lookalikes, are not asked this). The
/// error says how to make a good one.
pub fn check_token(token: &str) -> Result<(), String> {
    let body = token.trim_end_matches('=');
    let hex = body.chars().all(|c| c.is_ascii_hexdigit());
    let b64 = body
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '-' | '_'));
    let bits = if hex {
        4 * body.len()
    } else if b64 {
        6 * body.len()
    } else {
        0
    };
    let mut distinct: Vec<char> = body.chars().collect();
    distinct.sort_unstable();
    distinct.dedup();
    let how = "make one with `eboard token` or `openssl rand -base64 32`";
    if bits < MIN_TOKEN_BITS || distinct.len() < 8 {
        return Err(format!(
            "the token is too weak ({} characters{}): a token needs at least {MIN_TOKEN_BITS} random bits \
             (22 base64url characters or 32 hex digits); {how}",
            token.chars().count(),
            if hex || b64 { "" } else { ", not base64 or hex" }
        ));
    }
    let estimate = zxcvbn::zxcvbn(body, &[]);
    use zxcvbn::matching::patterns::MatchPattern as P;
    // A pass phrase ("correct-horse-battery-staple-…"): enough words push
    // zxcvbn's estimate to its ceiling, yet each word is one of some
    // thousands, not 6 random bits a character (issue 41 §4).
    let chars = body.chars().count();
    let worded = if hex { 0 } else { worded(body) };
    if worded * 2 >= chars {
        return Err(format!(
            "the token is not random: it is a pass phrase ({worded} of its {chars} characters are \
             dictionary words, each one of some thousands: far fewer guesses than {MIN_TOKEN_BITS} \
             random bits); {how}"
        ));
    }
    if estimate.guesses_log10() < MIN_TOKEN_GUESSES_LOG10 {
        let mut patterns: Vec<&str> = estimate
            .sequence()
            .iter()
            .filter_map(|m| match m.pattern {
                P::Dictionary(_) => Some("a dictionary word"),
                P::Spatial(_) => Some("a keyboard walk"),
                P::Repeat(_) => Some("a repetition"),
                P::Sequence(_) => Some("a sequence"),
                P::Regex(_) => Some("a regular pattern"),
                P::Date(_) => Some("a date"),
                _ => None,
            })
            .collect();
        patterns.dedup();
        return Err(format!(
            "the token is not random: it has a pattern ({}; about 10^{:.0} guesses by zxcvbn's estimate, \
             a random token needs 10^{MIN_TOKEN_GUESSES_LOG10:.0} or more); {how}",
            if patterns.is_empty() {
                "too few kinds of character".to_owned()
            } else {
                patterns.join(", ")
            },
            estimate.guesses_log10()
        ));
    }
    Ok(())
}

/// A fresh token of 256 random bits (64 hex digits), as `eboard token` prints it.
pub fn new_token() -> String {
    let mut b = [0u8; 32];
    rand::rng().fill_bytes(&mut b);
    b.iter().map(|x| format!("{x:02x}")).collect()
}
