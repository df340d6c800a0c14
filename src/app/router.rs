//! A board daemon's HTTP side, shared by `eboard run` and `eboard demo`:
//! its router (the public feed, the arbiter API, the arbiter's console and
//! the visually impaired player's own device) and what the board keeps
//! across a restart besides its journal ([`Kept`]).

use super::daemon::Daemon;
use super::Anyhow;
use crate::config::Config;
use crate::console::board::ArbiterAccess;
use crate::console::command_ids::CommandIds;
use crate::console::kept::{ConsoleFiles, Damage};
use crate::server::AppState;
use anyhow::anyhow;
use std::path::Path;

/// What a board keeps across a restart besides its journal: the ids of
/// the rulings taken ([`CommandIds`], `JOURNAL.rulings`) and its console's
/// acknowledgements and sessions (`JOURNAL.acks`, `JOURNAL.sessions`,
/// [`crate::console::kept`]); in memory without a journal.
pub(crate) struct Kept {
    /// The rulings' ids, shared by `POST /arbiter/command` and the MQTT
    /// command channel.
    pub ids: std::sync::Arc<CommandIds>,
    /// The console's files.
    pub console: Option<ConsoleFiles>,
}

impl Kept {
    /// Nothing kept (the demo, a board without a journal).
    pub fn in_memory() -> Kept {
        Kept {
            ids: std::sync::Arc::new(CommandIds::in_memory()),
            console: None,
        }
    }

    /// The files beside `journal` (none: in memory), and the damage found
    /// in the ids' file. Errors name the file.
    pub(super) fn open(journal: Option<&Path>) -> anyhow::Result<(Kept, Option<Damage>)> {
        let Some(j) = journal else {
            return Ok((Kept::in_memory(), None));
        };
        let (ids, damage) =
            CommandIds::open(&crate::app::commands::rulings_path(j)).map_err(|e| anyhow!(e))?;
        Ok((
            Kept {
                ids: std::sync::Arc::new(ids),
                console: Some(ConsoleFiles::beside(j)),
            },
            damage,
        ))
    }
}

/// The router of a board: the public feed, the arbiter API and the
/// arbiter's console (its alert queue fed on `rt`), nothing kept.
pub(crate) fn daemon_router(
    d: &Daemon,
    cfg: &Config,
    rt: &tokio::runtime::Handle,
) -> anyhow::Result<axum::Router> {
    daemon_router_kept(d, cfg, rt, &Kept::in_memory())
}

/// [`daemon_router`] with what the board keeps ([`Kept`]); damaged
/// console files are set aside and alerted on the arbiter's channel.
pub(super) fn daemon_router_kept(
    d: &Daemon,
    cfg: &Config,
    rt: &tokio::runtime::Handle,
    kept: &Kept,
) -> anyhow::Result<axum::Router> {
    let accounts = crate::app::settings::console_accounts(cfg).anyhow()?;
    for w in crate::app::settings::console_secrets_on_board(cfg) {
        tracing::warn!("{w}");
    }
    let console = std::sync::Arc::new(
        crate::console::state::Console::new(accounts, d.feed.arbiter.clone(), None)
            .with_command_ids(kept.ids.clone())
            .with_pairings(cfg.arbiter.pairings.as_ref().map(std::path::PathBuf::from))
            .with_time_zone(cfg.time_zone())
            .with_event_head(crate::console::report::norm::EventHead::of(cfg)),
    );
    console.spawn_feed(rt);
    if let Some(files) = &kept.console {
        let damage = console
            .keep(files, crate::app::daemon::unix_now_ms())
            .map_err(|e| anyhow!(e))?;
        for x in damage {
            d.feed
                .arbiter
                .publish(0, None, &[std::sync::Arc::from(x.alert_json())]);
        }
    }
    Ok(crate::server::router(AppState {
        console: Some(console),
        public: d.feed.public.clone(),
        arbiter: Some(ArbiterAccess {
            channel: d.feed.arbiter.clone(),
            token: crate::console::board::arbiter_token(cfg.arbiter.token.as_deref()),
            name: cfg
                .arbiter
                .name
                .clone()
                .unwrap_or_else(|| "arbiter".to_owned()),
            commands: d.commands.clone(),
            player: player_device(cfg)?,
        }),
    }))
}

/// The visually impaired player's own device (`[player]`, E2.9d), when a
/// token is configured (`EBOARD_PLAYER_TOKEN` wins) and the game has a VI
/// player. A token under 128 random bits is refused, naming the key.
pub(super) fn player_device(
    cfg: &Config,
) -> anyhow::Result<Option<crate::console::board::PlayerDevice>> {
    let Some(token) = crate::console::board::player_token(cfg.player.token.as_deref()) else {
        return Ok(None);
    };
    crate::console::access::check_token(&token).map_err(|e| {
        let e = if std::env::var("EBOARD_PLAYER_TOKEN").is_ok_and(|t| !t.is_empty()) {
            format!("EBOARD_PLAYER_TOKEN: {e}")
        } else {
            e
        };
        anyhow::anyhow!("{}", cfg.error_at("player.token", e))
    })?;
    Ok(player_device_with(cfg, token))
}

pub(super) fn player_device_with(
    cfg: &Config,
    token: String,
) -> Option<crate::console::board::PlayerDevice> {
    let side = match cfg.game.vi_player.as_deref() {
        Some("w") => shakmaty::Color::White,
        Some("b") => shakmaty::Color::Black,
        _ => {
            tracing::warn!(
                "[player] token set but no [game] vi_player: the player's device is off"
            );
            return None;
        }
    };
    let name = cfg.player.name.clone().unwrap_or_else(|| {
        match side {
            shakmaty::Color::White => cfg.game.white.name.clone(),
            shakmaty::Color::Black => cfg.game.black.name.clone(),
        }
        .unwrap_or_else(|| "player".to_owned())
    });
    Some(crate::console::board::PlayerDevice { token, name, side })
}
