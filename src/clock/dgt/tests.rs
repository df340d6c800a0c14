use super::*;

#[test]
fn frames_match_picochess_lengths() {
    assert_eq!(
        clock_frame(CLOCK_VERSION, &[]),
        [0x2b, 0x03, 0x03, 0x09, 0x00]
    );
    let f = clock_frame(CLOCK_SETNRUN, &[1, 30, 0, 1, 29, 59, RUN_RIGHT]);
    assert_eq!(f[1], 0x0a);
    assert_eq!(f.len(), 12);
    assert_eq!(clock_frame(CLOCK_ASCII, &[b' '; 9])[1], 0x0c);
}

#[test]
fn bwtime_times_decode_bcd() {
    // right 1:29:59, left 0:05:07, lever right down, running.
    let d = [0x01, 0x29, 0x59, 0x00, 0x05, 0x07, 0x03];
    assert_eq!(
        decode_bwtime(&d),
        Bwtime::Times(ClockTimes {
            right_ms: 5_399_000,
            left_ms: 307_000,
            status: 0x03
        })
    );
    assert_eq!(decode_bwtime(&[0; 7]), Bwtime::Empty);
    assert_eq!(
        decode_bwtime(&[0x01, 0x6a, 0x00, 0, 0, 0, 0]),
        Bwtime::Invalid
    );
    assert_eq!(
        decode_bwtime(&[0x01, 0x60, 0x00, 0, 0, 0, 0]),
        Bwtime::Invalid
    );
}

#[test]
fn bwtime_ack_decode() {
    // ack0 0x10, ack1 0x88 (bit 7 from b6 bit 5), ack2 0x05, ack3 0x31.
    let d = [0x0a, 0x10, 0x08, 0x2a, 0x05, 0x31, 0x00];
    assert_eq!(
        decode_bwtime(&d),
        Bwtime::Ack(ClockAck {
            ack0: 0x10,
            ack1: 0x88,
            ack2: 0x05,
            ack3: 0x31
        })
    );
}

#[test]
fn reader_resyncs() {
    let mut r = FrameReader::new();
    let mut got = Vec::new();
    let stream = [
        0x12, 0x7f, // stray data bytes
        0x8d, 0x00, 0x0a, 0x01, 0x02, // cut message
        0x8d, 0x00, 0x0a, 1, 2, 3, 4, 5, 6, 7, // whole
        0xff, 0x7f, 0x7f, // oversized header
        0x93, 0x00, 0x05, 3, 4, // VERSION
    ];
    for b in stream {
        if let Some(f) = r.push(b) {
            got.push(f);
        }
    }
    assert_eq!(
        got,
        vec![
            Frame {
                id: 0x8d,
                data: vec![1, 2, 3, 4, 5, 6, 7]
            },
            Frame {
                id: 0x93,
                data: vec![3, 4]
            }
        ]
    );
    assert_eq!(r.discarded(), 2 + 5 + 3);
}

#[test]
fn hms_rounds_up_and_caps() {
    assert_eq!(
        Hms::from_ms_ceil(5_428_100),
        Some(Hms { h: 1, m: 30, s: 29 })
    );
    assert_eq!(Hms::from_ms_ceil(0), Some(Hms { h: 0, m: 0, s: 0 }));
    assert_eq!(Hms::from_ms_ceil(1), Some(Hms { h: 0, m: 0, s: 1 }));
    assert!(Hms::from_ms_ceil(36_000_000).is_none());
    assert!(Hms::from_ms_ceil(35_999_000).is_some());
}
