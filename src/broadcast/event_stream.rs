//! A server-sent-events byte stream read into its events ([`events`],
//! [`event_data`]), as the relay reads a board's stream: a UTF-8 character
//! split between two chunks arrives whole, and an event larger than
//! [`MAX_EVENT`] ends the stream.

use eventsource_stream::Eventsource;
use futures_util::{Stream, StreamExt};

/// The most bytes one event of a board's stream may take (a message with
/// its snapshot is a few KiB).
pub const MAX_EVENT: usize = 1 << 20;

/// The data of each event of a server-sent-events byte stream, however its
/// chunks are cut (inside a line, a `\r\n` or a UTF-8 character alike);
/// events without data (keep-alive comments) are skipped. Errors end the
/// stream: the transport's, text that is not UTF-8, or an event over
/// [`MAX_EVENT`] bytes (counted as they come, so a server cannot fill the
/// memory).
pub fn event_data<S, B, E>(bytes: S) -> impl Stream<Item = Result<String, String>>
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
    E: std::fmt::Display,
{
    events(bytes).map(|e| e.map(|e| e.data))
}

/// [`event_data`], each event whole: its `data` and the stream's last
/// `id` (WHATWG HTML §9.2.6: an event without `id:` keeps the one before).
pub fn events<S, B, E>(bytes: S) -> impl Stream<Item = Result<eventsource_stream::Event, String>>
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
    E: std::fmt::Display,
{
    let mut size = EventSize::default();
    bytes
        .map(move |chunk| {
            let chunk = chunk.map_err(|e| e.to_string())?;
            size.take(chunk.as_ref())?;
            Ok::<_, String>(chunk)
        })
        .eventsource()
        .map(|e| e.map_err(|e| e.to_string()))
}

/// The size of the event being received: bytes since the last blank line.
#[derive(Debug, Default)]
struct EventSize {
    since_blank: usize,
    after_lf: bool,
}

impl EventSize {
    /// Counts `chunk`; an error once the event is over [`MAX_EVENT`].
    fn take(&mut self, chunk: &[u8]) -> Result<(), String> {
        for &b in chunk {
            match b {
                b'\n' if self.after_lf => self.since_blank = 0,
                b'\n' => self.after_lf = true,
                b'\r' => {}
                _ => self.after_lf = false,
            }
            self.since_blank += 1;
        }
        if self.since_blank > MAX_EVENT {
            return Err(format!("an event over {MAX_EVENT} bytes"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The data of the events of `chunks`, read to the end or the first error.
    async fn read(chunks: Vec<Vec<u8>>) -> Vec<Result<String, String>> {
        let stream = futures_util::stream::iter(chunks.into_iter().map(Ok::<_, String>));
        let mut events = std::pin::pin!(event_data(stream));
        let mut got = Vec::new();
        while let Some(e) = events.next().await {
            let end = e.is_err();
            got.push(e);
            if end {
                break;
            }
        }
        got
    }

    #[tokio::test]
    async fn events_split_at_every_byte_arrive_whole() {
        let text = ": keep-alive\n\ndata: {\"white\":\"Sørensen, Jens\"}\n\n\
                    data:a\r\ndata: b\r\n\r\nevent: x\ndata: æøå ♞\n\n";
        let want: Vec<Result<String, String>> = vec![
            Ok("{\"white\":\"Sørensen, Jens\"}".into()),
            Ok("a\nb".into()),
            Ok("æøå ♞".into()),
        ];
        let bytes = text.as_bytes();
        let one_by_one = bytes.iter().map(|b| vec![*b]).collect();
        assert_eq!(read(one_by_one).await, want);
        // Every cut in two: no character is ever broken.
        for cut in 0..=bytes.len() {
            let two = vec![bytes[..cut].to_vec(), bytes[cut..].to_vec()];
            assert_eq!(read(two).await, want, "cut at byte {cut}");
        }
    }

    #[tokio::test]
    async fn oversized_events_and_bad_text_end_the_stream() {
        let big = vec![b'x'; MAX_EVENT];
        let got = read(vec![b"data: ok\n\ndata: ".to_vec(), big, b"\n\n".to_vec()]).await;
        assert_eq!(got[0], Ok("ok".to_owned()));
        let e = got.last().unwrap().as_ref().unwrap_err();
        assert!(e.contains("over 1048576 bytes"), "{e}");
        // Many small events add up to nothing.
        let many: Vec<Vec<u8>> = (0..20_000)
            .map(|_| vec![b'y'; 60])
            .map(|mut v| {
                v.splice(0..0, *b"data: ");
                v.extend_from_slice(b"\n\n");
                v
            })
            .collect();
        let got = read(many).await;
        assert_eq!(got.len(), 20_000);
        assert!(got.iter().all(|r| r.is_ok()));
        let got = read(vec![b"data: \xff\xfe\n\n".to_vec()]).await;
        assert!(got[0].is_err(), "{got:?}");
    }
}
