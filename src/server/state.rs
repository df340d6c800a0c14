//! What every handler of the server shares ([`AppState`]): the public
//! channel, a board's arbiter side and the console, if any.

use crate::broadcast::delay::Channel;
use crate::console::board::ArbiterAccess;
use crate::console::state::Console;
use std::sync::Arc;

/// What the handlers share.
#[derive(Debug, Clone)]
pub struct AppState {
    /// The public (delayed) channel.
    pub public: Arc<Channel>,
    /// The arbiter's side (a relay has none).
    pub arbiter: Option<ArbiterAccess>,
    /// The arbiter's console: accounts, sessions, the alert queue (a relay's
    /// also forwards rulings to the boards).
    pub console: Option<Arc<Console>>,
}

impl AppState {
    /// The undelayed channel the arbiter reads: the board's, or the relay's
    /// merge of every board's.
    pub fn arbiter_channel(&self) -> Option<&Channel> {
        self.arbiter
            .as_ref()
            .map(|a| a.channel.as_ref())
            .or_else(|| self.console.as_ref().map(|c| c.channel.as_ref()))
    }
}
