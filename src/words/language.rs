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
}
