//! Limits against abuse and of uploads, each a setting.

use super::Values;
use anyhow::bail;

/// The limits of uploaded exports (`KONTOR_UPLOADS_MAX`, `KONTOR_UPLOADS_MAX_PER_USER`,
/// `KONTOR_IMPORTS_PER_DAY`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UploadLimits {
    /// Uploads read and checked at once on this server.
    pub at_once: usize,
    /// Uploads of one user read and checked at once on this server.
    pub at_once_per_user: usize,
    /// Games one user may import within 24 hours.
    pub imports_per_day: u32,
}

impl UploadLimits {
    pub(super) fn from_values(values: &Values) -> anyhow::Result<Self> {
        let at_once: u32 = values.number("KONTOR_UPLOADS_MAX")?;
        let at_once_per_user: u32 = values.number("KONTOR_UPLOADS_MAX_PER_USER")?;
        if at_once == 0 || at_once_per_user == 0 {
            bail!("KONTOR_UPLOADS_MAX and KONTOR_UPLOADS_MAX_PER_USER must be at least 1");
        }
        Ok(Self {
            at_once: at_once as usize,
            at_once_per_user: at_once_per_user as usize,
            imports_per_day: values.number("KONTOR_IMPORTS_PER_DAY")?,
        })
    }
}

/// Volume limits against abuse (each a setting; beyond one, 429 with `Retry-After`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VolumeLimits {
    /// Accounts registered from one client address per hour (each mails the typed address).
    pub registrations_per_address_hour: u32,
    /// Games one user created that wait for players (open) at once.
    pub open_games_per_user: u32,
    /// Verification and change-of-address links mailed to one address per day, whichever
    /// accounts ask.
    pub verify_mails_per_address_day: u32,
    /// Invitations one user makes per day.
    pub invitations_per_user_day: u32,
    /// Invitation mails to one invitee per day (beyond, the invitation stands, unmailed).
    pub invitation_mails_per_invitee_day: u32,
    /// Chat messages one user may send in one game in a burst (`KONTOR_CHAT_BURST`).
    pub chat_burst: u32,
    /// Seconds after which one more chat message is allowed (token bucket refill).
    pub chat_interval_secs: u32,
    /// Chat messages one user may send in one game within 24 hours.
    pub chat_daily_max: u32,
}

impl VolumeLimits {
    pub(super) fn from_values(values: &Values<'_>) -> anyhow::Result<Self> {
        let at_least_one = |key: &str| -> anyhow::Result<u32> {
            let n: u32 = values.number(key)?;
            if n == 0 {
                bail!("{key} must be at least 1");
            }
            Ok(n)
        };
        Ok(Self {
            registrations_per_address_hour: at_least_one("KONTOR_REGISTRATIONS_PER_ADDRESS")?,
            open_games_per_user: at_least_one("KONTOR_OPEN_GAMES_PER_USER")?,
            verify_mails_per_address_day: at_least_one("KONTOR_VERIFY_MAILS_PER_ADDRESS")?,
            invitations_per_user_day: at_least_one("KONTOR_INVITATIONS_PER_DAY")?,
            invitation_mails_per_invitee_day: at_least_one("KONTOR_INVITATION_MAILS_PER_INVITEE")?,
            chat_burst: at_least_one("KONTOR_CHAT_BURST")?,
            chat_interval_secs: values.number("KONTOR_CHAT_INTERVAL_SECS")?,
            chat_daily_max: at_least_one("KONTOR_CHAT_DAILY_MAX")?,
        })
    }
}
