//! The words a person reads: the languages Kontor writes in, and how a player is named.

pub mod language;

/// How a player is named in a mail: the display name beside the username, which stays the
/// identifier (`Anna K. (anna)`).
pub fn player_name(username: &str, display_name: Option<&str>) -> String {
    match display_name {
        Some(display) if display != username => format!("{display} ({username})"),
        _ => username.to_string(),
    }
}
