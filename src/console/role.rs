//! Who an account is and what it may do: its [`Role`] and, once
//! authenticated, [`Who`] (the name journaled as a ruling's author).

/// What an account may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Sees everything and rules.
    Arbiter,
    /// Sees everything, rules nothing (403).
    Deputy,
    /// A relay: reads the arbiter's channel and forwards rulings on behalf
    /// of a named arbiter (the board journals that name).
    Relay,
}

impl Role {
    /// The config's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Arbiter => "arbiter",
            Role::Deputy => "deputy",
            Role::Relay => "relay",
        }
    }
}

impl std::str::FromStr for Role {
    type Err = String;
    fn from_str(s: &str) -> Result<Role, String> {
        match s {
            "arbiter" => Ok(Role::Arbiter),
            "deputy" => Ok(Role::Deputy),
            "relay" => Ok(Role::Relay),
            _ => Err(format!("\"{s}\" is not one of arbiter, deputy, relay")),
        }
    }
}

/// An authenticated account: the name journaled as the author, and what it may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Who {
    /// The account's name.
    pub name: String,
    /// Its role.
    pub role: Role,
}
