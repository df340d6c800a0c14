//! Session 18's held-out cases for point 1: 2023 Guidelines III.4 / III.5
//! and 2009 §10.2 with a delay in the final period, and a delay in one
//! period only.

use crate::common::heldout::{case, hdr, run, E4E5};
use serde_json::json;

/// Point 1: 2023 Guidelines III.2.2 "The Guidelines below … shall only
/// apply to standard chess and rapid chess games without increment and not
/// to blitz games"; the Glossary (`fide-2023.md` §2.5, U3): "increment: an
/// amount of time (from 2 to 60 seconds) added from the start before each
/// move … in either delay or cumulative mode". So a final period with a US
/// delay (`900d5`) or a Bronstein delay (`900b5`) is a game *with*
/// increment: III.4 ("he/she may request that an increment extra five
/// seconds be introduced for both players") and III.5 (the claim) do not
/// apply. 2009 §10.2 (seed 002) "Hvis spilleren som er i trækket har mindre
/// end to minutter tilbage på sit ur, kan han kræve remis før hans vinge
/// falder" has no such condition: the claim is referred, and the 2009 Laws
/// have no five seconds on request at all. At 800 s White has about 100 s.
#[test]
fn s18_point_1_five_seconds_on_request_with_a_delay() {
    let tc = |tc: &str| hdr(tc, json!({"mode": "rapid"}));
    let asked = |extra: &str| format!("{E4E5}800000 arbiter increment by=w{extra} author=IA\n");
    let claim = format!("{E4E5}800000 claim insufficient_losing_chances w");
    let mut cases = Vec::new();
    for delay in ["900d5", "900b5"] {
        cases.push(case(
            "18-1a 2023 III.2.2 no five seconds where a delay is given",
            "fide-2023",
            tc(delay),
            asked(""),
            &[
                "ruling_refused.action=increment",
                "ruling_refused.reason~delay",
            ],
            &[
                "ruling.action=increment",
                "clock.black_ms=1019000",
                "game_end",
            ],
        ));
        cases.push(case(
            "18-1b 2023 III.2.2 the request as a delay asked in a delayed period",
            "fide-2023",
            tc(delay),
            asked(" mode=delay"),
            &["ruling_refused.action=increment"],
            &["ruling.action=increment", "game_end"],
        ));
        cases.push(case(
            "18-1c 2023 III.2.2 no III.5 claim where a delay is given",
            "fide-2023",
            tc(delay),
            claim.clone(),
            &["claim.upheld=false", "claim.consequence~III.2.2"],
            &["claim.consequence~referred", "game_end"],
        ));
        cases.push(case(
            "18-1d 2009 10.2 the claim with a delay is referred",
            "fide-2009",
            tc(delay),
            claim.clone(),
            &["claim.consequence~referred"],
            &["game_end"],
        ));
        cases.push(case(
            "18-1e 2009 no five seconds on request with a delay",
            "fide-2009-no",
            tc(delay),
            asked(""),
            &["ruling_refused.action=increment"],
            &["ruling.action=increment"],
        ));
    }
    // III.4 without a delay, the arbiter choosing the delay (U7): the
    // opponent's two minutes (899 + 120 s).
    cases.push(case(
        "18-1f 2023 III.4 granted as a delay",
        "fide-2023",
        tc("900"),
        asked(" mode=delay"),
        &["ruling.action=increment", "clock.black_ms=1019000"],
        &["ruling_refused", "game_end"],
    ));
    run(cases);
}

/// Point 1, a second set: a delay only in one period of `1/300…:900…`.
/// III.2.1 "The Guidelines below concerning the final period of the game
/// …"; III.4 "the player having the move has less than two minutes left"
/// — the five seconds change the final period's clock, so *reading
/// chosen*: what the final period adds decides (a delay in the first
/// period only does not make the final period one with increment). After
/// the moves 1. e4 e5 the second period has begun for both; at 1 102.5 s White has
/// about 100 s. And III.4 granted as a 5 s delay: White's 2. Nf3 1.5 s
/// after the ruling costs him nothing (U7: "the clock counts down only
/// after the delay"), Black's 2… Nc6 in 2 s neither.
#[test]
fn s18_point_1_a_delay_in_one_period_only() {
    let tc = |tc: &str| hdr(tc, json!({"mode": "rapid"}));
    let asked = |extra: &str| format!("{E4E5}1102500 arbiter increment by=w{extra} author=IA\n");
    run(vec![
        case(
            "18-1g 2023 III.2.1 a delay in the first period only: granted",
            "fide-2023",
            tc("1/300d5:900"),
            asked(""),
            &["ruling.action=increment"],
            &["ruling_refused", "game_end"],
        ),
        case(
            "18-1h 2023 III.2.2 a delay in the final period: refused",
            "fide-2023",
            tc("1/300:900d5"),
            asked(""),
            &["ruling_refused.action=increment", "ruling_refused.reason~III.2.2"],
            &["ruling.action=increment", "game_end"],
        ),
        case(
            "18-1i 2023 III.5 a delay in the final period: no claim",
            "fide-2023",
            tc("1/300:900b5"),
            format!("{E4E5}1102500 claim insufficient_losing_chances w"),
            &["claim.upheld=false", "claim.consequence~III.2.2"],
            &["claim.consequence~referred"],
        ),
        // Standard play (`3600d5`, one hour): at 3 500 s White has about
        // 100 s; III.2.2 names standard chess too.
        case(
            "18-1k 2023 III.2.2 standard play with a delay: refused",
            "fide-2023",
            hdr("3600d5", json!({"mode": "standard"})),
            format!("{E4E5}3500000 arbiter increment by=w author=IA\n"),
            &["ruling_refused.action=increment", "ruling_refused.reason~III.2.2"],
            &["ruling.action=increment", "game_end"],
        ),
        case(
            "18-1l 2023 III.4 standard play without a delay: granted",
            "fide-2023",
            hdr("3600", json!({"mode": "standard"})),
            format!("{E4E5}3500000 arbiter increment by=w author=IA\n"),
            &["ruling.action=increment", "clock.black_ms=3719000"],
            &["ruling_refused", "game_end"],
        ),
        case(
            "18-1m 2009 10.2 standard play with a delay: referred",
            "fide-2009",
            hdr("3600d5", json!({"mode": "standard"})),
            format!("{E4E5}3500000 claim insufficient_losing_chances w"),
            &["claim.consequence~referred"],
            &["game_end"],
        ),
        // Once the five seconds are introduced the game has an increment
        // (session 16's reading, 16-5k): no III.5 claim after them, as a
        // delay or cumulative.
        case(
            "18-1n 2023 III.2.2 no III.5 claim once a 5 s delay was introduced",
            "fide-2023",
            tc("900"),
            format!(
                "{E4E5}800000 arbiter increment by=w mode=delay author=IA\n\
                 800500 claim insufficient_losing_chances w"
            ),
            &["ruling.action=increment", "claim.consequence~III.2.2"],
            &["claim.consequence~referred"],
        ),
        case(
            "18-1o 2023 III.2.2 no III.5 claim once 5 s per move were introduced",
            "fide-2023",
            tc("900"),
            format!(
                "{E4E5}800000 arbiter increment by=w author=IA\n\
                 800500 claim insufficient_losing_chances w"
            ),
            &["ruling.action=increment", "claim.consequence~III.2.2"],
            &["claim.consequence~referred"],
        ),
        case(
            "18-1j 2023 III.4 granted as a delay: the next moves inside it",
            "fide-2023",
            tc("900"),
            format!(
                "{E4E5}800000 arbiter increment by=w mode=delay author=IA\n801000 lift g1\n801200 place f3\n\
                 801500 press w\n802000 lift b8\n802200 place c6\n803500 press b\n"
            ),
            &[
                "ruling.action=increment",
                "clock.t=801500&white_ms=101000&black_ms=1019000",
                "clock.t=803500&black_ms=1019000",
            ],
            &["ruling_refused", "game_end"],
        ),
    ]);
}
