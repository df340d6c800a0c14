use super::*;

#[test]
fn reads_the_contract_example() {
    let text = r#"{"trace": 1, "time_control": "5400+30"}
{"t": 1000, "lift": "e2"}
{"t": 1400, "place": "e4"}
{"t": 1405, "lift": "e4"}
{"t": 1410, "place": "e4"}
{"t": 1900, "press": "w"}
"#;
    let tr = Trace::parse(text).unwrap();
    assert_eq!(tr.header.time_control.as_deref(), Some("5400+30"));
    assert_eq!(tr.records.len(), 5);
    assert_eq!(tr.records[0].kind, RecordKind::Lift(Square::E2));
    assert_eq!(tr.records[4].kind, RecordKind::Press(Color::White));
}

#[test]
fn every_record_kind_round_trips() {
    let text = r#"{"t":1,"lift":"a1","board":"tactile"}
{"t":2,"place":"e4","color":"w"}
{"t":3,"place":"e8","piece":"q"}
{"t":4,"frame":"000000000000ffff"}
{"t":5,"press":"b"}
{"t":6,"promote":"n"}
{"t":7,"claim":"threefold","by":"w"}
{"t":8,"offer":"draw","by":"w"}
{"t":9,"accept":"draw","by":"b"}
{"t":10,"decline":"draw","by":"b"}
{"t":11,"resign":"b"}
{"t":12,"adjust":"w"}
{"t":13,"arbiter":"restore"}
{"t":14,"arbiter":"clock","white_ms":60000,"black_ms":120000,"author":"IA Hansen"}
{"t":15,"arbiter":"result","result":"1/2-1/2"}
{"t":16,"arbiter":"position","fen":"8/8/8/8/8/8/8/K6k w - - 0 1"}
{"t":17,"arbiter":"pause"}
{"t":18,"query":"piece","by":"b","piece":"N"}
{"t":19,"arbiter":"increment","by":"w","offer":"accepted"}
{"t":20,"arbiter":"time_control","control":"40/5400+30:1800+30","from_move":12,"white_ms":60000,"black_ms":70000}
{"t":21,"arbiter":"downtime","charge":"nobody","ms":180000,"author":"eboard (downtime)"}
"#;
    let tr = Trace::parse(text).unwrap();
    assert_eq!(tr.records.len(), 21);
    let mut out = Vec::new();
    tr.write(&mut out).unwrap();
    let again = Trace::parse(std::str::from_utf8(&out).unwrap()).unwrap();
    assert_eq!(again.records, tr.records);
    assert_eq!(
        tr.records[2].kind,
        RecordKind::Place {
            square: Square::E8,
            color: Some(Color::Black),
            piece: Some(Piece::from_char('q').unwrap())
        }
    );
    assert_eq!(tr.records[0].board, BoardId::Tactile);
    assert_eq!(tr.records[3].kind, RecordKind::Frame(0xffff));
    // The arbiter record's `offer` (parsed since session 16) survives the
    // write: 2023 Guidelines III.4 "This constitutes the offer of a draw".
    assert!(matches!(
        &again.records[18].kind,
        RecordKind::Arbiter { action: ArbiterAction::Increment(r), .. } if r.accepted
    ));
}

#[test]
fn an_endless_line_is_an_error_naming_it_and_memory_stays_bounded() {
    // 20 MB without a newline (an endless line on stdin), then a good
    // record: line 1 is refused as soon as it passes the limit, the
    // record after it is read as line 2, and the reader never holds
    // more than the limit.
    let endless = std::io::Read::take(std::io::repeat(b'x'), 20_000_000);
    let rest = std::io::Read::chain(endless, &b"\n{\"t\":5,\"lift\":\"e2\"}\n"[..]);
    let mut r = TraceReader::new(std::io::BufReader::new(rest));
    let e = r.next_line().unwrap().unwrap_err();
    assert_eq!(e.line, 1, "{e}");
    assert!(e.message.contains("longer than 65536 bytes"), "{e}");
    assert!(
        r.buf.capacity() <= 2 * MAX_LINE_BYTES,
        "{}",
        r.buf.capacity()
    );
    match r.next_line() {
        Some(Ok(Line::Record(rec))) => assert_eq!((rec.t, r.line()), (5, 2)),
        other => panic!("{other:?}"),
    }
    assert!(r.next_line().is_none());
    // A line just at the limit is read (as what it is: bad JSON here).
    let text = format!("{}\n", " ".repeat(MAX_LINE_BYTES - 2) + "{}");
    let e = TraceReader::new(text.as_bytes())
        .next_line()
        .unwrap()
        .unwrap_err();
    assert!(e.message.contains("missing key 't'"), "{e}");
    // Bytes that are not UTF-8 name the line.
    let e = TraceReader::new(&b"{\"t\":1}\n\xff\xfe\n"[..]).next_line();
    assert!(e.is_some());
    let mut r = TraceReader::new(&b"\n\xff\xfe\n"[..]);
    let e = r.next_line().unwrap().unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.message.contains("not UTF-8"), "{e}");
}

#[test]
fn errors_name_the_line_and_key() {
    let cases = [
        ("{\"t\":1,\"jump\":\"e2\"}", 1, "unknown record kind"),
        (
            "{\"t\":1,\"lift\":\"e2\"}\n{\"t\":0,\"lift\":\"e4\"}",
            2,
            "earlier",
        ),
        ("{\"t\":1,\"lift\":\"e9\"}", 1, "'lift'"),
        ("{\"lift\":\"e2\"}", 1, "missing key 't'"),
        (
            "{\"t\":1,\"lift\":\"e2\"}\n\n{\"t\":1,\"press\":\"x\"}",
            3,
            "'press'",
        ),
        ("{\"t\":1,\"frame\":\"ffff\"}", 1, "16 hex digits"),
        ("{\"t\":1, \"lift\": ", 1, "malformed JSON"),
        ("{\"t\":1,\"lift\":\"e2\"}\n{\"trace\":1}", 2, "header"),
        ("{\"trace\":1,\"sensing\":\"sonar\"}", 1, "'sensing'"),
        ("{\"t\":1,\"claim\":\"ugly\",\"by\":\"w\"}", 1, "'claim'"),
        ("{\"t\":1,\"lift\":\"e2\",\"place\":\"e4\"}", 1, "two kinds"),
        (
            "{\"t\":1,\"arbiter\":\"clock\",\"white_ms\":5}",
            1,
            "'black_ms'",
        ),
        (
            "{\"t\":1,\"arbiter\":\"clock\",\"white_ms\":9223372036854775808,\"black_ms\":5}",
            1,
            "key 'white_ms': 9223372036854775808 ms is more than a clock",
        ),
        (
            "{\"t\":18446744073709551615,\"lift\":\"e2\"}",
            1,
            "key 't': 18446744073709551615 ms is past the latest",
        ),
        (
            "{\"t\":1,\"arbiter\":\"result\",\"result\":\"2-0\"}",
            1,
            "'result'",
        ),
        ("{\"t\":-5,\"lift\":\"e2\"}", 1, "'t'"),
    ];
    for (text, line, needle) in cases {
        let e = Trace::parse(text).unwrap_err();
        assert_eq!(e.line, line, "{text}: {e}");
        assert!(e.to_string().contains(needle), "{text}: {e}");
    }
}

#[test]
fn unknown_fields_are_ignored() {
    let tr = Trace::parse("{\"t\":1,\"lift\":\"e2\",\"sensor_id\":17,\"note\":\"x\"}").unwrap();
    assert_eq!(tr.records[0].kind, RecordKind::Lift(Square::E2));
}

#[test]
fn events_serialise_with_type_after_t() {
    let e = Event {
        t: 1900,
        kind: EventKind::Clock {
            white_ms: 5_428_100,
            black_ms: 5_400_000,
        },
    };
    assert_eq!(
        e.to_json(),
        r#"{"t":1900,"type":"clock","white_ms":5428100,"black_ms":5400000}"#
    );
}
