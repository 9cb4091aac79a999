//! The words a person reads: the languages Kontor writes in, the message catalogue with every
//! sentence in each ([`catalogue`], the `.ftl` files in `en/` and `ja/`), the phrases many
//! texts share, and how a player is named.

pub mod catalogue;
pub mod language;
pub mod phrases;

/// Marks a catalogue key in the code (`key!("mail-greeting")`): a test finds every key so
/// marked and fails on one the catalogue lacks. `{kind}` in a key stands for each notice
/// kind's name.
#[macro_export]
macro_rules! key {
    ($key:literal) => {
        $key
    };
}
pub use crate::key;

/// How a player is named in a mail: the display name beside the username, which stays the
/// identifier (`Anna K. (anna)`).
pub fn player_name(username: &str, display_name: Option<&str>) -> String {
    match display_name {
        Some(display) if display != username => format!("{display} ({username})"),
        _ => username.to_string(),
    }
}
