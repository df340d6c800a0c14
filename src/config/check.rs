//! The checks serde cannot make: the values of the sections against each
//! other and against what the Laws and the devices allow.

use super::*;

impl Config {
    /// Checks the values serde cannot: (table, key, message).
    pub(super) fn check(&self) -> Result<(), (&'static str, &'static str, String)> {
        let e = &self.event;
        if let Some(d) = &e.date {
            let ok = d.len() == 10
                && d.char_indices().all(|(i, c)| {
                    if i == 4 || i == 7 {
                        c == '.'
                    } else {
                        c.is_ascii_digit() || c == '?'
                    }
                });
            if !ok {
                return Err((
                    "event",
                    "date",
                    format!("\"{d}\": write the date as YYYY.MM.DD (PGN), e.g. \"2026.04.03\""),
                ));
            }
        }
        if let Some(d) = e.delay {
            if d > MAX_DELAY_S {
                return Err((
                    "event",
                    "delay",
                    format!("{d} s: the delay must be 0..={MAX_DELAY_S} seconds"),
                ));
            }
        }
        if let Some(m) = e.default_time_min {
            // A whole session at most (the 2001 texts' one hour is the
            // longest the Laws give).
            if m > 24 * 60 {
                return Err((
                    "event",
                    "default_time_min",
                    format!("{m} min: the default time must be 0..=1440 minutes (0: any lateness loses, 6.7.1)"),
                ));
            }
        }
        if let Some(s) = &e.session_start {
            instant::parse_rfc3339(s).map_err(|m| ("event", "session_start", m))?;
        }
        if let Some(z) = &e.time_zone {
            zone::EventZone::named(z).map_err(|m| ("event", "time_zone", m))?;
        }
        if let Some(v) = &self.game.vi_player {
            if !["w", "b"].contains(&v.as_str()) {
                return Err(("game", "vi_player", format!("\"{v}\": allowed are w, b")));
            }
        }
        if self.board.tactile_hw.is_some() && self.game.vi_player.is_none() {
            return Err((
                "board",
                "tactile_hw",
                "a tactile board needs [game] vi_player, the colour who plays on it".into(),
            ));
        }
        if let Some(w) = &self.clock.wall_clock {
            if !["ntp", "rtc"].contains(&w.as_str()) {
                return Err((
                    "clock",
                    "wall_clock",
                    format!("\"{w}\": allowed are ntp, rtc"),
                ));
            }
        }
        let sv = &self.server;
        if let Some(t) = &sv.tls {
            if !["auto", "files", "off"].contains(&t.as_str()) {
                return Err((
                    "server",
                    "tls",
                    format!("\"{t}\": allowed are auto, files, off"),
                ));
            }
            if t == "files" && (sv.tls_cert.is_none() || sv.tls_key.is_none()) {
                return Err((
                    "server",
                    "tls",
                    "tls = \"files\" needs tls_cert and tls_key (PEM files)".into(),
                ));
            }
        }
        if (sv.tls_cert.is_some() || sv.tls_key.is_some()) && sv.tls.as_deref() != Some("files") {
            let key = if sv.tls_cert.is_some() {
                "tls_cert"
            } else {
                "tls_key"
            };
            return Err((
                "server",
                key,
                "set tls = \"files\" to serve this certificate".into(),
            ));
        }
        for (key, v, range) in [
            ("idle_timeout_s", sv.idle_timeout_s, 1..=600),
            ("write_timeout_s", sv.write_timeout_s, 1..=3600),
            ("stream_lease_s", sv.stream_lease_s, 1..=3600),
        ] {
            if let Some(v) = v {
                if !range.contains(&v) {
                    return Err((
                        "server",
                        key,
                        format!(
                            "{v}: allowed are {}..={} seconds",
                            range.start(),
                            range.end()
                        ),
                    ));
                }
            }
        }
        if let Some(0) = sv.max_connections {
            return Err(("server", "max_connections", "0: at least 1".into()));
        }
        if self.player.token.is_some() && self.game.vi_player.is_none() {
            return Err((
                "player",
                "token",
                "the player's device needs [game] vi_player, the colour who uses it".into(),
            ));
        }
        for (table, l) in [
            ("voice.white", &self.voice.white),
            ("voice.black", &self.voice.black),
            ("voice.arbiter", &self.voice.arbiter),
        ] {
            let Some(l) = l else { continue };
            if let Some(c) = &l.channel {
                if !["both", "left", "right"].contains(&c.as_str()) {
                    return Err((
                        table,
                        "channel",
                        format!("\"{c}\": allowed are both, left, right"),
                    ));
                }
            }
            if let Some(s) = l.speed {
                if !(80..=450).contains(&s) {
                    return Err((
                        table,
                        "speed",
                        format!("{s}: espeak-ng speaks 80..=450 words per minute"),
                    ));
                }
            }
            if let Some(v) = l.volume {
                if v > 200 {
                    return Err((
                        table,
                        "volume",
                        format!("{v}: the volume is 0..=200 per cent"),
                    ));
                }
            }
            if let Some(v) = &l.variant {
                if v.is_empty()
                    || !v
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                {
                    return Err((
                        table,
                        "variant",
                        format!("\"{v}\": a variant name such as f3 or m2"),
                    ));
                }
            }
        }
        if self.game.round == 0 {
            return Err(("game", "round", "rounds count from 1".into()));
        }
        if self.game.board == 0 {
            return Err(("game", "board", "boards count from 1".into()));
        }
        for (table, p) in [
            ("game.white", &self.game.white),
            ("game.black", &self.game.black),
        ] {
            if let Some(t) = &p.title {
                if !TITLES.contains(&t.as_str()) {
                    return Err((
                        table,
                        "title",
                        format!("\"{t}\": allowed are {}", TITLES.join(", ")),
                    ));
                }
            }
            if p.fide_id == Some(0) {
                return Err((table, "fide_id", "a FIDE id is a positive number".into()));
            }
            if let Some(f) = &p.federation {
                if f.len() != 3 || !f.chars().all(|c| c.is_ascii_uppercase()) {
                    return Err((
                        table,
                        "federation",
                        format!("\"{f}\": three capital letters (DEN, NOR, ...)"),
                    ));
                }
            }
        }
        if self.board.source == SourceKind::Hw && self.board.hw.is_none() {
            return Err((
                "board",
                "hw",
                "source = \"hw\" needs the hardware description file: hw = \"hw/….toml\"".into(),
            ));
        }
        if self.clock.device == ClockDevice::Dgt3000 && self.clock.port.is_none() {
            return Err((
                "clock",
                "port",
                "device = \"dgt3000\" needs its port, e.g. port = \"/dev/i2c-1\"".into(),
            ));
        }
        if let Some(w) = self.mqtt.as_ref().and_then(|m| m.board_config_wait) {
            if w > 600 {
                return Err((
                    "mqtt",
                    "board_config_wait",
                    format!("{w} s: start-up waits 0..=600 seconds"),
                ));
            }
        }
        if let Some(m) = &self.mqtt {
            for k in m.command_keys.iter().flatten() {
                if k.len() != 64 || !k.chars().all(|c| c.is_ascii_hexdigit()) {
                    return Err((
                        "mqtt",
                        "command_keys",
                        format!("\"{k}\": an Ed25519 public key is 64 hex digits (eboard rule --keygen prints one)"),
                    ));
                }
            }
            if let Some(w) = m.command_window {
                if !(1..=3600).contains(&w) {
                    return Err((
                        "mqtt",
                        "command_window",
                        format!("{w} s: the window is 1..=3600 seconds"),
                    ));
                }
            }
        }
        if let Some(l) = &self.lichess {
            if l.round_id.len() != 8 || !l.round_id.chars().all(|c| c.is_ascii_alphanumeric()) {
                return Err((
                    "lichess",
                    "round_id",
                    format!(
                        "\"{}\": a lichess round id is 8 letters and digits",
                        l.round_id
                    ),
                ));
            }
            if let Some(u) = &l.base_url {
                if !(u.starts_with("http://") || u.starts_with("https://")) {
                    return Err((
                        "lichess",
                        "base_url",
                        format!("\"{u}\": give http(s)://host, e.g. \"https://lichess.org\""),
                    ));
                }
            }
        }
        Ok(())
    }
}
