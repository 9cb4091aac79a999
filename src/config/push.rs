//! The Web Push settings (`KONTOR_VAPID_*`).

use super::Values;

/// The Web Push settings.
#[derive(Clone, Debug, Default)]
pub struct PushSettings {
    /// `KONTOR_VAPID_PRIVATE_KEY`; `None` = generated into the data folder.
    pub vapid_private_key: Option<String>,
    /// `KONTOR_VAPID_SUBJECT`; `None` = `mailto:` the address of `KONTOR_MAIL_FROM`.
    pub vapid_subject: Option<String>,
}

impl PushSettings {
    pub fn from_values(values: &Values<'_>) -> Self {
        Self {
            vapid_private_key: values.given("KONTOR_VAPID_PRIVATE_KEY").map(str::to_string),
            vapid_subject: values.given("KONTOR_VAPID_SUBJECT").map(str::to_string),
        }
    }

    /// The VAPID `sub` claim: the setting, else `mailto:` the sender address of the mails.
    pub fn subject(&self, mail_from: &str) -> String {
        if let Some(subject) = &self.vapid_subject {
            return subject.clone();
        }
        let address = match (mail_from.find('<'), mail_from.rfind('>')) {
            (Some(start), Some(end)) if start < end => &mail_from[start + 1..end],
            _ => mail_from.trim(),
        };
        format!("mailto:{address}")
    }
}
