//! A board's MQTT uplinks, for [`super::daemon::Daemon::launch`]: the
//! public feed's (`crate::mqtt::publish`, tapping the delay line, its queue
//! `JOURNAL.mqtt`) and, with `[mqtt] arbiter_channel`, the undelayed
//! arbiter channel's (`crate::mqtt::arbiter`, tapping the feed's arbiter
//! channel once it exists, its queue `JOURNAL.mqtt-arbiter`;
//! `docs/mqtt.md`, "The arbiter channel"). The public uplink's connection
//! carries the board's presence (`crate::mqtt::status`: its will, its
//! retained online / offline status; `docs/mqtt.md`, "Board offline").

use super::settings::MqttUplink;
use crate::broadcast::delay::Channel;
use crate::broadcast::public::{GameInfo, Update};
use crate::journal;
use crate::mqtt::publish::{self, Uplink, UplinkStatus};
use std::path::{Path, PathBuf};
use tokio::sync::{mpsc, watch};

/// The uplinks of one board, the public one started.
pub(super) struct Uplinks {
    /// What the delay line hands the public uplink (`None`: no `[mqtt]`).
    pub tap: Option<mpsc::UnboundedSender<Update>>,
    /// The public uplink's status.
    pub status: Option<watch::Receiver<UplinkStatus>>,
    /// Publishes the board's offline status ("stopped") and disconnects
    /// (`None`: no `[mqtt]`).
    pub presence: Option<crate::mqtt::status::PresenceStop>,
    /// The arbiter channel's uplink, not started yet, and its queue file.
    arbiter: Option<(Uplink, Option<PathBuf>)>,
}

/// A client id for the broker: the event, round and board, `kind` (``
/// or `a-`) and a random part (unique per process).
fn client_id(info: &GameInfo, kind: &str) -> String {
    format!(
        "eboard-{}-{}-{}-{kind}{:x}",
        crate::mqtt::slug(info.event.as_deref()),
        info.round,
        info.board,
        rand::random::<u32>()
    )
}

/// Starts the public uplink of `mqtt` (none without it) for the game
/// `info`, its stream `epoch` (Unix ms: the game's start, or the restart
/// of a journal resumed up to damage), its queue beside `journal`; the
/// arbiter channel's uplink is made ready ([`Uplinks::start_arbiter`]).
/// Errors: a queue that cannot be opened, the TLS set-up.
pub(super) fn start(
    rt: &tokio::runtime::Handle,
    mqtt: Option<MqttUplink>,
    info: &GameInfo,
    epoch: u64,
    journal: Option<&Path>,
) -> Result<Uplinks, String> {
    let Some(MqttUplink {
        broker,
        prefix,
        arbiter_channel,
    }) = mqtt
    else {
        return Ok(Uplinks {
            tap: None,
            status: None,
            presence: None,
            arbiter: None,
        });
    };
    let arbiter = arbiter_channel.then(|| {
        (
            Uplink {
                broker: broker.clone(),
                client_id: client_id(info, "a-"),
                topics: crate::mqtt::arbiter::topics(&prefix, info.event.as_deref(), info.board),
                epoch,
                announce_arbiter: false,
            },
            journal.map(journal::mqtt_arbiter_path),
        )
    });
    let uplink = Uplink {
        broker,
        client_id: client_id(info, ""),
        topics: crate::mqtt::BoardTopics::new(
            &prefix,
            info.event.as_deref(),
            info.round,
            info.board,
        ),
        epoch,
        announce_arbiter: arbiter_channel,
    };
    let queue = journal.map(journal::mqtt_path);
    let presence = crate::mqtt::status::Presence::new(
        &prefix,
        info.event.as_deref(),
        info.board,
        &format!("{}.{}", info.round, info.board),
    );
    let (tx, status, presence) =
        publish::start_with_presence(rt, uplink, queue.as_deref(), presence)?;
    Ok(Uplinks {
        tap: Some(tx),
        status: Some(status),
        presence: Some(presence),
        arbiter,
    })
}

impl Uplinks {
    /// Starts the arbiter channel's uplink on the feed's arbiter `channel`
    /// (before the game's first publication: it taps the channel); its
    /// status, `None` when `[mqtt] arbiter_channel` is off. Errors: as
    /// [`start`].
    pub fn start_arbiter(
        &mut self,
        rt: &tokio::runtime::Handle,
        channel: &Channel,
    ) -> Result<Option<watch::Receiver<UplinkStatus>>, String> {
        let Some((uplink, queue)) = self.arbiter.take() else {
            return Ok(None);
        };
        let topic = uplink.topics.events.clone();
        let status = crate::mqtt::arbiter::start(rt, uplink, queue.as_deref(), channel)?;
        tracing::info!(
            "mqtt: the arbiter channel (undelayed) is published on {topic} for the console's relay"
        );
        Ok(Some(status))
    }
}

#[cfg(test)]
mod tests {
    use super::super::settings::mqtt_uplink;
    use crate::config::Config;

    fn parse(text: &str) -> Config {
        Config::parse(text, "board.toml").unwrap()
    }

    #[test]
    fn the_arbiter_channel_needs_tls_or_a_local_broker_and_a_login() {
        // Plain TCP to another host: refused even without a password.
        let e = mqtt_uplink(&parse(
            "[mqtt]\nurl = \"mqtt://hall.example\"\nusername = \"board1\"\narbiter_channel = true\n",
        ))
        .unwrap_err();
        assert_eq!(
            (e.line, e.key.as_str()),
            (Some(4), "mqtt.arbiter_channel"),
            "{e}"
        );
        assert!(
            e.message.contains("in clear") && e.message.contains("mqtts://"),
            "{e}"
        );
        // No login: refused (a password in the environment would be refused first).
        if std::env::var_os(crate::mqtt::PASSWORD_ENV).is_none() {
            let e = mqtt_uplink(&parse(
                "[mqtt]\nurl = \"mqtts://hall.example\"\narbiter_channel = true\n",
            ))
            .unwrap_err();
            assert_eq!(e.key, "mqtt.arbiter_channel", "{e}");
            assert!(e.message.contains("username"), "{e}");
        }
        // TLS with a login, or a broker on this host with a login: taken.
        for url in ["mqtts://hall.example", "mqtt://127.0.0.1:1883"] {
            let cfg = parse(&format!(
                "[mqtt]\nurl = \"{url}\"\nusername = \"board1\"\narbiter_channel = true\n"
            ));
            assert!(mqtt_uplink(&cfg).unwrap().unwrap().arbiter_channel, "{url}");
        }
        // Off by default.
        let cfg = parse("[mqtt]\nurl = \"mqtt://hall.example\"\n");
        assert!(!mqtt_uplink(&cfg).unwrap().unwrap().arbiter_channel);
    }
}
