//! The languages Kontor writes mail in.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A language of the mails and the web client.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    #[default]
    En,
    Ja,
}

impl Language {
    pub const ALL: [Language; 2] = [Language::En, Language::Ja];

    pub const fn as_str(self) -> &'static str {
        match self {
            Language::En => "en",
            Language::Ja => "ja",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Language::ALL.into_iter().find(|l| l.as_str() == text)
    }

    /// The language an `Accept-Language` header asks for first among these (its primary
    /// subtags, by weight, then order); English when it asks for none of them.
    pub fn from_accept_language(header: &str) -> Self {
        let mut best: Option<(f32, Language)> = None;
        for entry in header.split(',') {
            let mut parts = entry.split(';');
            let tag = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let weight = parts
                .find_map(|p| p.trim().strip_prefix("q="))
                .map_or(Some(1.0), |q| q.trim().parse::<f32>().ok())
                .unwrap_or(0.0);
            let primary = tag.split('-').next().unwrap_or("");
            if let Some(language) = Language::parse(primary)
                && weight > 0.0
                && best.is_none_or(|(w, _)| weight > w)
            {
                best = Some((weight, language));
            }
        }
        best.map_or(Language::En, |(_, language)| language)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_language_picks_the_first_wanted_language() {
        assert_eq!(Language::from_accept_language("ja"), Language::Ja);
        assert_eq!(
            Language::from_accept_language("ja-JP,ja;q=0.9,en;q=0.8"),
            Language::Ja
        );
        assert_eq!(
            Language::from_accept_language("en-GB, ja;q=0.5"),
            Language::En
        );
        assert_eq!(Language::from_accept_language("de, ja;q=0.3"), Language::Ja);
        assert_eq!(Language::from_accept_language("fr, *"), Language::En);
        assert_eq!(Language::from_accept_language("ja;q=0"), Language::En);
        assert_eq!(Language::from_accept_language(""), Language::En);
    }
}
