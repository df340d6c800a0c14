//! The DGT driver's settings ([`DgtConfig`], times in ms) and its counters
//! ([`DgtStats`]).

/// Settings of the DGT driver. Times in ms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DgtConfig {
    /// White sits on the clock's left side.
    pub white_on_left: bool,
    /// Wait for a clock ack before resending, ms (PicoChess: 2000).
    pub ack_timeout_ms: u64,
    /// Attempts per command in all, ≥ 1 (PicoChess gives up after 3).
    pub attempts: u32,
    /// Ask the board for the time (`0x41`) after this long without a byte, ms.
    pub keepalive_ms: u64,
    /// Report the clock offline after this long without a byte, ms.
    pub offline_after_ms: u64,
    /// How long a move's text stays on the display before the times come
    /// back, ms; 0 shows no move text.
    pub move_text_ms: u64,
    /// Send `END` after every `SETNRUN` (PicoChess `dgt/hw.py`: "this is
    /// needed for some(!) clocks", unless its `disable_end` option).
    pub end_after_setnrun: bool,
}

impl Default for DgtConfig {
    fn default() -> Self {
        DgtConfig {
            white_on_left: true,
            ack_timeout_ms: 2000,
            attempts: 3,
            keepalive_ms: 1000,
            offline_after_ms: 5000,
            move_text_ms: 2000,
            end_after_setnrun: true,
        }
    }
}

/// Counters for tests and diagnostics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DgtStats {
    /// Board messages received.
    pub frames: u64,
    /// Bytes thrown away while resyncing.
    pub discarded_bytes: u64,
    /// `BWTIME` messages that did not decode.
    pub invalid_messages: u64,
    /// Clock commands written (first attempts and resends).
    pub commands_sent: u64,
    /// Resends after a lost ack or an error ack.
    pub resends: u64,
    /// Commands acknowledged.
    pub acked: u64,
    /// Commands given up.
    pub given_up: u64,
    /// Acks that matched no command in flight (late or duplicate).
    pub stray_acks: u64,
    /// Time messages that cannot be real (a time going up, a fall of over
    /// an hour: [`TimeFilter`]); their lever was not read.
    pub implausible_times: u64,
    /// The board's version (`DGT_MSG_VERSION`: major, minor), once it
    /// answered the handshake.
    pub board_version: Option<(u8, u8)>,
}
