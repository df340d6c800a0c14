//! The built-in clock: one press button per player on GPIO, and a 16×2
//! character LCD (HD44780) behind a PCF8574 I2C "backpack", driven by the Pi.
//!
//! Everything is generic over the embedded-hal 1.0 traits
//! ([`InputPin`], [`I2c`], [`DelayNs`]); the Pi backend supplies them.
//!
//! # Buttons
//!
//! Each button is read once per [`ClockDevice::poll`]; a new level counts
//! only after [`BuiltinConfig::debounce_polls`] consecutive equal reads
//! ([`Debouncer`]). The press is the debounced change to "pressed".
//!
//! # Display
//!
//! The HD44780 4-bit protocol is written here directly over [`I2c`] (no
//! driver crate: the well-kept ones either still target embedded-hal 0.2,
//! e.g. `hd44780-driver` 0.4, or bring a larger API than the two rows we
//! need, e.g. `i2c-character-display`; owning the bytes also lets the
//! tests assert them exactly).
//!
//! PCF8574 backpack wiring (the common one, e.g. on "LCM1602 IIC" boards):
//! `P0` = RS, `P1` = R/W (always 0: write only), `P2` = E, `P3` = backlight,
//! `P4..P7` = D4..D7. Every byte written to the PCF8574 sets its 8 pins.
//! One HD44780 byte is sent as two nibbles, high first, each latched by a
//! falling edge of E: `[n|E, n]` with `n = nibble << 4 | BL | RS`
//! (HD44780U datasheet, Hitachi ADE-207-272, "Interfacing to a 4-bit MPU").
//! At the PCF8574's 100 kHz each byte takes ≥ 90 µs, longer than the
//! 37 µs a write or command needs, so no busy-flag polling is done; clear
//! (1.52 ms) and the power-on steps are waited for with [`DelayNs`].
//!
//! Initialisation (datasheet figure 24, 4-bit): wait > 40 ms; nibble `0x3`,
//! wait > 4.1 ms; nibble `0x3`, wait > 100 µs; nibble `0x3`; nibble `0x2`
//! (4-bit mode); then commands `0x28` (2 lines, 5×8 font), `0x0c` (display
//! on, no cursor), `0x01` (clear, wait 2 ms), `0x06` (increment, no shift).
//!
//! Screen: row 0 is the left and the right player's time as `H:MM:SS`
//! with a two-character middle: `< ` left runs, ` >` right runs, `||`
//! paused: `"1:30:28< 1:30:00"` (the whole seconds left, truncated, as a
//! chess clock shows them: [`hms_text`]). Row 1 is the last move's text. A row is
//! written (DDRAM address command `0x80 | addr`, then 16 characters, as one
//! I2C write) only when its text changes, i.e. once a second while a clock
//! runs.

use super::device::{ClockDevice, ClockDeviceError, ClockFace, ClockInput};
use embedded_hal::delay::DelayNs;
use embedded_hal::digital::InputPin;
use embedded_hal::i2c::I2c;
use shakmaty::Color;

/// PCF8574 pin P0: HD44780 register select (1 = data).
pub const LCD_RS: u8 = 0x01;
/// PCF8574 pin P2: HD44780 enable (latches on the falling edge).
pub const LCD_EN: u8 = 0x04;
/// PCF8574 pin P3: backlight on.
pub const LCD_BACKLIGHT: u8 = 0x08;
/// The backpack's usual I2C address (PCF8574; 0x3f on a PCF8574A).
pub const LCD_DEFAULT_ADDR: u8 = 0x27;
/// Characters per row.
pub const LCD_COLS: usize = 16;

/// Counts consecutive equal reads before a level change is believed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Debouncer {
    stable: bool,
    count: u8,
    needed: u8,
}

impl Debouncer {
    /// Starts at `initial`; a change needs `needed` (≥ 1) consecutive reads.
    pub fn new(needed: u8, initial: bool) -> Debouncer {
        Debouncer {
            stable: initial,
            count: 0,
            needed: needed.max(1),
        }
    }

    /// The believed level.
    pub fn level(&self) -> bool {
        self.stable
    }

    /// Takes one raw read; returns the new level when it changes.
    pub fn update(&mut self, raw: bool) -> Option<bool> {
        if raw == self.stable {
            self.count = 0;
            return None;
        }
        self.count += 1;
        if self.count >= self.needed {
            self.stable = raw;
            self.count = 0;
            return Some(raw);
        }
        None
    }
}

/// The two PCF8574 bytes that latch one nibble (`nibble` in 0..16).
pub fn lcd_nibble(nibble: u8, rs: bool, backlight: bool) -> [u8; 2] {
    let n = (nibble << 4) | if backlight { LCD_BACKLIGHT } else { 0 } | if rs { LCD_RS } else { 0 };
    [n | LCD_EN, n]
}

/// The four PCF8574 bytes that send one HD44780 byte (high nibble first).
pub fn lcd_byte(value: u8, rs: bool, backlight: bool) -> [u8; 4] {
    let [a, b] = lcd_nibble(value >> 4, rs, backlight);
    let [c, d] = lcd_nibble(value & 0x0f, rs, backlight);
    [a, b, c, d]
}

/// The HD44780 character for `c`: printable ASCII except `\` and `~`,
/// which the A00 character ROM replaces (¥, →); anything else is `?`.
pub fn lcd_char(c: char) -> u8 {
    match c {
        ' '..='}' if c != '\\' => c as u8,
        _ => b'?',
    }
}

/// An HD44780 16×2 LCD behind a PCF8574 at `addr`.
#[derive(Debug)]
pub struct Lcd1602<I2C> {
    i2c: I2C,
    addr: u8,
    backlight: bool,
}

impl<I2C: I2c> Lcd1602<I2C> {
    /// The display at `addr`, backlight on; call [`Lcd1602::init`] first.
    pub fn new(i2c: I2C, addr: u8) -> Self {
        Lcd1602 {
            i2c,
            addr,
            backlight: true,
        }
    }

    /// The bus back.
    pub fn release(self) -> I2C {
        self.i2c
    }

    fn nibble(&mut self, n: u8) -> Result<(), I2C::Error> {
        self.i2c
            .write(self.addr, &lcd_nibble(n, false, self.backlight))
    }

    /// Sends one command byte (RS = 0).
    pub fn command(&mut self, cmd: u8) -> Result<(), I2C::Error> {
        self.i2c
            .write(self.addr, &lcd_byte(cmd, false, self.backlight))
    }

    /// Power-on initialisation to 4-bit, 2 lines, display on, cleared.
    pub fn init<D: DelayNs>(&mut self, delay: &mut D) -> Result<(), I2C::Error> {
        delay.delay_ms(50);
        self.nibble(0x3)?;
        delay.delay_us(4500);
        self.nibble(0x3)?;
        delay.delay_us(150);
        self.nibble(0x3)?;
        delay.delay_us(150);
        self.nibble(0x2)?;
        self.command(0x28)?;
        self.command(0x0c)?;
        self.command(0x01)?;
        delay.delay_ms(2);
        self.command(0x06)
    }

    /// Writes a whole row (0 or 1) in one I2C transaction: the DDRAM
    /// address command, then the 16 characters.
    pub fn write_row(&mut self, row: u8, text: &[u8; LCD_COLS]) -> Result<(), I2C::Error> {
        let addr = if row == 0 { 0x00 } else { 0x40 };
        let mut bytes = Vec::with_capacity(4 * (LCD_COLS + 1));
        bytes.extend_from_slice(&lcd_byte(0x80 | addr, false, self.backlight));
        for &c in text {
            bytes.extend_from_slice(&lcd_byte(c, true, self.backlight));
        }
        self.i2c.write(self.addr, &bytes)
    }
}

/// Settings of the built-in clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltinConfig {
    /// Consecutive equal reads for a button change (≥ 1); with a 10 ms poll,
    /// 3 reads = 20–30 ms of stable contact.
    pub debounce_polls: u8,
    /// Buttons pull the pin low when pressed (pull-up wiring).
    pub active_low: bool,
    /// White's time is on the left of the display.
    pub white_on_left: bool,
    /// The PCF8574's I2C address.
    pub lcd_addr: u8,
}

impl Default for BuiltinConfig {
    fn default() -> Self {
        BuiltinConfig {
            debounce_polls: 3,
            active_low: true,
            white_on_left: true,
            lcd_addr: LCD_DEFAULT_ADDR,
        }
    }
}

/// `H:MM:SS` for `ms` as a chess clock shows it, the whole seconds left
/// (truncated, [`super::fmt_hms`]), capped at 9:59:59
/// ([`super::MAX_DISPLAY_S`]).
pub fn hms_text(ms: u64) -> String {
    super::fmt_hms((ms / 1000).min(super::MAX_DISPLAY_S) * 1000)
}

/// Row 0 of the screen for `face` at `now_ms` (module docs).
pub fn times_row(face: &ClockFace, now_ms: u64, white_on_left: bool) -> [u8; LCD_COLS] {
    let (w, b) = face.times_at(now_ms);
    let (l, r) = if white_on_left { (w, b) } else { (b, w) };
    let mid = match face.running {
        None => "||",
        Some(c) if (c == Color::White) == white_on_left => "< ",
        Some(_) => " >",
    };
    row_text(&format!("{}{}{}", hms_text(l), mid, hms_text(r)))
}

/// `text` as a 16-character row: mapped by [`lcd_char`], cut or padded
/// with spaces.
pub fn row_text(text: &str) -> [u8; LCD_COLS] {
    let mut row = [b' '; LCD_COLS];
    for (slot, c) in row.iter_mut().zip(text.chars()) {
        *slot = lcd_char(c);
    }
    row
}

/// Two GPIO buttons and the LCD, as a [`ClockDevice`].
pub struct BuiltinClock<W, B, I2C> {
    white: W,
    black: B,
    lcd: Lcd1602<I2C>,
    cfg: BuiltinConfig,
    buttons: [Debouncer; 2],
    face: Option<ClockFace>,
    move_row: [u8; LCD_COLS],
    written: [Option<[u8; LCD_COLS]>; 2],
    ok: bool,
    name: String,
}

impl<W: InputPin, B: InputPin, I2C: I2c> BuiltinClock<W, B, I2C> {
    /// Takes the two buttons and the display's bus, and initialises the
    /// display (blocking for about 57 ms through `delay`).
    pub fn new<D: DelayNs>(
        white: W,
        black: B,
        i2c: I2C,
        delay: &mut D,
        cfg: BuiltinConfig,
    ) -> Result<Self, ClockDeviceError> {
        let name = format!("built-in clock (LCD at I2C {:#04x})", cfg.lcd_addr);
        let mut lcd = Lcd1602::new(i2c, cfg.lcd_addr);
        lcd.init(delay).map_err(|e| ClockDeviceError::Bus {
            device: name.clone(),
            what: format!("I2C init of the LCD at {:#04x}", cfg.lcd_addr),
            detail: format!("{e:?}"),
        })?;
        Ok(BuiltinClock {
            white,
            black,
            lcd,
            buttons: [Debouncer::new(cfg.debounce_polls, false); 2],
            cfg,
            face: None,
            move_row: [b' '; LCD_COLS],
            written: [None, None],
            ok: true,
            name,
        })
    }

    /// The parts back: buttons and the display's bus.
    pub fn release(self) -> (W, B, I2C) {
        (self.white, self.black, self.lcd.release())
    }

    fn read_pressed(&mut self, color: Color) -> Result<bool, ClockDeviceError> {
        let high = match color {
            Color::White => self.white.is_high().map_err(|e| format!("{e:?}")),
            Color::Black => self.black.is_high().map_err(|e| format!("{e:?}")),
        };
        match high {
            Ok(h) => Ok(h != self.cfg.active_low),
            Err(detail) => {
                self.ok = false;
                Err(ClockDeviceError::Bus {
                    device: self.name.clone(),
                    what: format!("reading {color:?}'s button"),
                    detail,
                })
            }
        }
    }

    fn write_row(&mut self, row: usize, text: [u8; LCD_COLS]) -> Result<(), ClockDeviceError> {
        if self.written[row] == Some(text) {
            return Ok(());
        }
        match self.lcd.write_row(row as u8, &text) {
            Ok(()) => {
                self.written[row] = Some(text);
                self.ok = true;
                Ok(())
            }
            Err(e) => {
                self.ok = false;
                Err(ClockDeviceError::Bus {
                    device: self.name.clone(),
                    what: format!("I2C write of row {row} to {:#04x}", self.cfg.lcd_addr),
                    detail: format!("{e:?}"),
                })
            }
        }
    }

    fn refresh(&mut self, now_ms: u64) -> Result<(), ClockDeviceError> {
        if let Some(face) = self.face {
            let row = times_row(&face, now_ms, self.cfg.white_on_left);
            self.write_row(0, row)?;
        }
        self.write_row(1, self.move_row)
    }
}

impl<W: InputPin, B: InputPin, I2C: I2c> ClockDevice for BuiltinClock<W, B, I2C> {
    fn name(&self) -> &str {
        &self.name
    }

    fn poll(&mut self, now_ms: u64) -> Result<Vec<ClockInput>, ClockDeviceError> {
        let mut out = Vec::new();
        for (i, color) in [Color::White, Color::Black].into_iter().enumerate() {
            let pressed = self.read_pressed(color)?;
            if self.buttons[i].update(pressed) == Some(true) {
                out.push(ClockInput::Press {
                    by: color,
                    t_ms: now_ms,
                });
            }
        }
        self.refresh(now_ms)?;
        Ok(out)
    }

    fn set_times(&mut self, now_ms: u64, face: ClockFace) -> Result<(), ClockDeviceError> {
        self.face = Some(face);
        self.refresh(now_ms)
    }

    fn show_move(&mut self, now_ms: u64, text: &str) -> Result<(), ClockDeviceError> {
        self.move_row = row_text(text);
        self.refresh(now_ms)
    }

    fn stop(&mut self, now_ms: u64) -> Result<(), ClockDeviceError> {
        if let Some(face) = self.face {
            self.face = Some(face.stopped_at(now_ms));
        }
        self.refresh(now_ms)
    }

    fn is_online(&self) -> bool {
        self.ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debounce_needs_consecutive_reads() {
        let mut d = Debouncer::new(3, false);
        assert_eq!(d.update(true), None);
        assert_eq!(d.update(false), None); // bounce resets
        assert_eq!(d.update(true), None);
        assert_eq!(d.update(true), None);
        assert_eq!(d.update(true), Some(true));
        assert_eq!(d.update(true), None);
        assert!(d.level());
    }

    #[test]
    fn nibble_bytes_follow_the_backpack_wiring() {
        // 'N' = 0x4e with RS and backlight: 0x4d/0x49 then 0xed/0xe9.
        assert_eq!(lcd_byte(b'N', true, true), [0x4d, 0x49, 0xed, 0xe9]);
        assert_eq!(lcd_nibble(0x3, false, true), [0x3c, 0x38]);
    }

    #[test]
    fn times_row_layout() {
        let f = ClockFace {
            white_ms: 5_428_100,
            black_ms: 5_400_000,
            running: Some(Color::White),
            at_ms: 0,
        };
        assert_eq!(&times_row(&f, 0, true), b"1:30:28< 1:30:00");
        assert_eq!(&times_row(&f, 0, false), b"1:30:00 >1:30:28");
        assert_eq!(
            &times_row(&f.stopped_at(100), 100, true),
            b"1:30:28||1:30:00"
        );
        assert_eq!(&row_text("Nf3 \\ ü"), b"Nf3 ? ?         ");
    }

    /// The LCD shows the whole seconds left, truncated, as a chess clock
    /// does (issue 40 §9: an IA read 1:17:18 on the DGT clock where eboard
    /// showed 1:17:19); the last second shows 0:00:00 before the flag falls.
    #[test]
    fn the_lcd_shows_the_whole_seconds_left() {
        assert_eq!(hms_text(4_638_900), "1:17:18");
        assert_eq!(hms_text(4_638_000), "1:17:18");
        assert_eq!(hms_text(900), "0:00:00");
        assert_eq!(hms_text(0), "0:00:00");
        assert_eq!(
            hms_text(36_000_000),
            "9:59:59",
            "capped at the display's most"
        );
        let f = ClockFace {
            white_ms: 4_638_900,
            black_ms: 900,
            running: Some(Color::Black),
            at_ms: 0,
        };
        assert_eq!(&times_row(&f, 0, true), b"1:17:18 >0:00:00");
    }
}
