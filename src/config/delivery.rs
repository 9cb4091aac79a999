//! Deliveries to addresses users give (webhooks, Web Push): how many requests a worker keeps
//! in flight, how many of them one owner or one host may have, and how many test sends an
//! account may ask for.

use super::Values;
use anyhow::bail;

/// `KONTOR_DELIVERY_CONCURRENCY`, `KONTOR_DELIVERY_PER_OWNER`, `KONTOR_DELIVERY_PER_HOST`,
/// `KONTOR_TEST_SENDS_PER_HOUR`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeliveryLimits {
    /// Requests one worker (webhooks, push: each its own) keeps in flight.
    pub at_once: usize,
    /// Of those, the most that are one owner's.
    pub per_owner: usize,
    /// Of those, the most that go to one host.
    pub per_host: usize,
    /// Test sends (webhook and push together) one account may ask for per hour.
    pub test_sends_per_hour: u32,
}

impl DeliveryLimits {
    pub(super) fn from_values(values: &Values<'_>) -> anyhow::Result<Self> {
        let at_once: u32 = values.number("KONTOR_DELIVERY_CONCURRENCY")?;
        let per_owner: u32 = values.number("KONTOR_DELIVERY_PER_OWNER")?;
        let per_host: u32 = values.number("KONTOR_DELIVERY_PER_HOST")?;
        if !(1..=256).contains(&at_once) {
            bail!("KONTOR_DELIVERY_CONCURRENCY must be between 1 and 256");
        }
        if per_owner == 0 || per_owner > at_once || per_host == 0 || per_host > at_once {
            bail!(
                "KONTOR_DELIVERY_PER_OWNER and KONTOR_DELIVERY_PER_HOST must be at least 1 and at most KONTOR_DELIVERY_CONCURRENCY"
            );
        }
        let test_sends_per_hour: u32 = values.number("KONTOR_TEST_SENDS_PER_HOUR")?;
        if test_sends_per_hour == 0 {
            bail!("KONTOR_TEST_SENDS_PER_HOUR must be at least 1");
        }
        Ok(Self {
            at_once: at_once as usize,
            per_owner: per_owner as usize,
            per_host: per_host as usize,
            test_sends_per_hour,
        })
    }
}
