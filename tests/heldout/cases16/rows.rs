//! Session 16's held-out cases for point 5: the 2023 Guidelines III.4
//! request (five seconds) granted, accepted as a draw and refused for each
//! of its conditions, and not granted twice nor with two minutes added.

use crate::common::heldout::{case, hdr, run, E4E5};
use serde_json::json;

/// Point 5: 2023 Guidelines III.4, "If the player having the move has less
/// than two minutes left on his/her clock, he/she may request that an
/// increment extra five seconds be introduced for both players. This
/// constitutes the offer of a draw. If the offer refused, and the arbiter
/// agrees to the request, the clocks shall then be set with the extra
/// time; the opponent shall be awarded two extra minutes and the game
/// shall continue." After 1. e4 e5 White thinks from 2.5 s; at 800 s
/// (`900`) he has 898.5 − 797.5 = 101 s.
#[test]
fn s16_point_5_five_seconds_on_request() {
    let tc = |tc: &str, mode: &str| hdr(tc, json!({"mode": mode}));
    let asked = |t: u64, by: &str, extra: &str| {
        format!("{E4E5}{t} arbiter increment by={by}{extra} author=IA\n")
    };
    // Granted, then White's 2. Nf3 and Black's 2… Nc6 (2 s, +5 s).
    let granted = format!(
        "{}801000 lift g1\n801200 place f3\n801500 press w\n803000 lift b8\n803200 place c6\n803500 press b",
        asked(800_000, "w", "")
    );
    run(vec![
        // Black's 899 s + 120 s; his next move is credited five seconds.
        case(
            "16-5a 2023 III.4 granted: two minutes and five seconds",
            "fide-2023",
            tc("900", "rapid"),
            granted,
            &[
                "ruling.action=increment",
                "clock.black_ms=1019000",
                "clock.t=803500&black_ms=1022000",
            ],
            &["ruling_refused", "game_end"],
        ),
        // "This constitutes the offer of a draw": accepted, a draw.
        case(
            "16-5b 2023 III.4 the offer accepted",
            "fide-2023",
            tc("900", "rapid"),
            asked(800_000, "w", " offer=accepted"),
            &["game_end.result=1/2-1/2", "game_end.reason=agreement"],
            &["clock.black_ms=1019000"],
        ),
        // "the player having the move": Black is not.
        case(
            "16-5c 2023 III.4 asked by the player not on move",
            "fide-2023",
            tc("900", "rapid"),
            asked(800_000, "b", ""),
            &["ruling_refused.action=increment", "ruling_refused.reason~ "],
            &["ruling.action=increment", "game_end"],
        ),
        // III.2.2 "only to standard chess and rapid chess games without
        // increment and not to blitz games": blitz (300 s).
        case(
            "16-5d 2023 III.2.2 no five seconds in blitz",
            "fide-2023",
            tc("300", "blitz"),
            asked(200_000, "w", ""),
            &["ruling_refused.action=increment"],
            &["ruling.action=increment", "clock.black_ms=419000"],
        ),
        // III.2.2 "without increment": 900+10, White has 918.5 − 817.5 =
        // 101 s at 820 s.
        case(
            "16-5e 2023 III.2.2 no five seconds with an increment",
            "fide-2023",
            tc("900+10", "rapid"),
            asked(820_000, "w", ""),
            &["ruling_refused.action=increment"],
            &["ruling.action=increment"],
        ),
        // III.2.1 "The Guidelines below concerning the final period of the
        // game": `2/300:600`, White's second move is in the first period
        // (101 s left at 200 s).
        case(
            "16-5f 2023 III.2.1 not before the final period",
            "fide-2023",
            tc("2/300:600", "rapid"),
            asked(200_000, "w", ""),
            &["ruling_refused.action=increment"],
            &["ruling.action=increment"],
        ),
        // The rule is 2023's: the 2009 Laws know only the §10.2 claim.
        case(
            "16-5g 2009 no five seconds on request",
            "fide-2009",
            tc("900", "rapid"),
            asked(800_000, "w", ""),
            &["ruling_refused.action=increment"],
            &["ruling.action=increment", "clock.black_ms=1019000"],
        ),
        // 5.2.3 "The game is drawn upon agreement between the two players
        // during the game, provided both players have made at least one
        // move": after 1. e4 e5 it holds.
        case(
            "16-5h 2023 5.2.3 an agreement once both moved",
            "fide-2023",
            tc("5400+30", "standard"),
            format!("{E4E5}3000 offer w\n3500 accept b"),
            &[
                "game_end.result=1/2-1/2",
                "game_end.reason=agreement",
                "game_end.article=5.2.3",
            ],
            &["irregularity.article=5.2.3"],
        ),
        // 9.1.2.1 (fide-2023.md §2.8: an offer "cannot be withdrawn. It
        // lapses on acceptance, oral rejection, rejection by touching a
        // piece … or the game ending"): Black offers before his first move,
        // plays e5; White accepts before touching a piece: both have moved.
        case(
            "16-5i 2023 5.2.3 an offer before Black's move accepted after it",
            "fide-2023",
            tc("5400+30", "standard"),
            "1000 lift e2\n1200 place e4\n1500 press w\n1800 offer b\n2000 lift e7\n2200 place e5\n2500 press b\n3000 accept w",
            &["game_end.result=1/2-1/2", "game_end.reason=agreement"],
            &["irregularity.article=5.2.3"],
        ),
    ]);
}

/// Point 5, a second set of III.4: "has less than two minutes left" —
/// with 201 s left it is refused; once the five seconds are introduced the
/// game has an increment (III.2.2 "without increment"): a second request
/// is refused and Black gets no second two minutes.
#[test]
fn s16_point_5_five_seconds_not_twice_nor_with_two_minutes() {
    let rapid = || hdr("900", json!({"mode": "rapid"}));
    let twice = format!(
        "{E4E5}800000 arbiter increment by=w author=IA\n801000 lift g1\n801200 place f3\n801500 press w\n\
         803000 lift b8\n803200 place c6\n803500 press b\n805000 arbiter increment by=w author=IA"
    );
    run(vec![
        case(
            "16-5j 2023 III.4 two minutes or more left",
            "fide-2023",
            rapid(),
            format!("{E4E5}700000 arbiter increment by=w author=IA"),
            &["ruling_refused.action=increment"],
            &["ruling.action=increment"],
        ),
        case(
            "16-5k 2023 III.4 a second request",
            "fide-2023",
            rapid(),
            twice,
            &[
                "ruling.action=increment",
                "clock.t=803500&black_ms=1022000",
                "ruling_refused.action=increment",
            ],
            &["clock.black_ms=1142000"],
        ),
    ]);
}
