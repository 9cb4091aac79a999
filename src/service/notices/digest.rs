//! The stored content of a digest mail (written when it is queued, rendered when it is
//! sent), and renaming a player in one not yet sent (an account deleted meanwhile).

use chrono::{DateTime, Utc};
use uuid::Uuid;

/// A game waiting for the user, as listed in the digest.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct WaitingGame {
    pub game_id: Uuid,
    pub game_kind: String,
    pub opponents: Vec<String>,
    pub since: Option<DateTime<Utc>>,
}

/// A held notice, summarised for the digest.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct NewsItem {
    pub headline: String,
    pub game_id: Option<Uuid>,
}

/// The stored content of a digest mail.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct DigestData {
    pub date: chrono::NaiveDate,
    pub waiting: Vec<WaitingGame>,
    pub news: Vec<NewsItem>,
}

/// Whether `c` may be part of a name (so a match next to it is inside a longer word).
fn name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

/// `text` with every whole-word occurrence of `old` replaced by `new`.
fn replace_word(text: &str, old: &str, new: &str) -> String {
    if old.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(old) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + old.len()..].chars().next();
        out.push_str(&rest[..at]);
        if before.is_some_and(name_char) || after.is_some_and(name_char) {
            out.push_str(old);
        } else {
            out.push_str(new);
        }
        rest = &rest[at + old.len()..];
    }
    out.push_str(rest);
    out
}

/// Renames a player in a stored digest not yet sent: `names` (as mails show them, the
/// longest first, e.g. `Quentin Q. (quentin)`, then `quentin`) become `new` in the lists of
/// opponents and in the news lines, which were written when the digest was queued.
pub fn rename_in_digest(data: &mut DigestData, names: &[String], new: &str) {
    let rename = |text: &str| {
        names
            .iter()
            .fold(text.to_string(), |text, old| replace_word(&text, old, new))
    };
    for game in &mut data.waiting {
        for opponent in &mut game.opponents {
            *opponent = rename(opponent);
        }
    }
    for item in &mut data.news {
        item.headline = rename(&item.headline);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_player_is_renamed_in_whole_words_only() {
        assert_eq!(
            replace_word("ann invited you; anna and ann", "ann", "deleted-player-1"),
            "deleted-player-1 invited you; anna and deleted-player-1"
        );
        let mut data = DigestData {
            date: "2026-12-01".parse().unwrap(),
            waiting: vec![WaitingGame {
                game_id: Uuid::nil(),
                game_kind: "steel-driver".into(),
                opponents: vec!["Quentin Q. (quentin)".into(), "quentina".into()],
                since: None,
            }],
            news: vec![NewsItem {
                headline: "quentin invited you to play Steel Driver".into(),
                game_id: None,
            }],
        };
        let names = ["Quentin Q. (quentin)".to_string(), "quentin".to_string()];
        rename_in_digest(&mut data, &names, "deleted-player-2");
        assert_eq!(data.waiting[0].opponents, ["deleted-player-2", "quentina"]);
        assert_eq!(
            data.news[0].headline,
            "deleted-player-2 invited you to play Steel Driver"
        );
    }
}
