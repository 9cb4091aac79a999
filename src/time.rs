//! Where the server's "now" comes from when it decides something by time.
//!
//! Whatever waits for time to pass asks the instance's [`Clock`] instead of the system clock or
//! SQL's `now()`: when a turn clock, a bot's move or a rules timer is due, when a reminder
//! goes out, when a failed mail is tried again or an abandoned lease expires, the hour of the
//! daily digest, the age of finished mail that housekeeping deletes. The queries that decide
//! take that time as a parameter. So tests move time forward instead of sleeping through it.
//!
//! A configuration read from the environment (or a file) always has the system clock: there
//! is no setting for another. A clock that can be moved exists only where a program builds one
//! through this library ([`TestClock`]) and puts it into a [`crate::config::Config`] itself, as
//! the integration tests do.
//!
//! Still on the system clock, on purpose: live presence (a stream's heartbeat is real time),
//! the login throttle's window (and the mail limits that share its table), access and refresh
//! token expiry (a mailed link's expiry does follow the instance's clock), and vacations
//! (whether one runs now is decided inside the game head's query; a moved clock only ever
//! runs ahead of the system's, so a vacation that began by the system clock has begun for it
//! too). Bookkeeping columns such as
//! `updated_at` take the database's `now()` unless a statement already binds the clock.

use chrono::{DateTime, Utc};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

/// The instance's source of "now". Cheap to clone; clones share the same time.
#[derive(Clone, Default)]
pub struct Clock {
    /// `None`: the system clock. Otherwise microseconds that a [`TestClock`] has put it ahead
    /// of the system clock (so it never runs behind what PostgreSQL's `now()` says).
    ahead: Option<Arc<AtomicI64>>,
}

impl Clock {
    /// The system clock.
    pub fn system() -> Self {
        Self::default()
    }

    /// Now, to the microsecond: PostgreSQL keeps microseconds, so a time written and read back
    /// compares equal to the one kept in memory.
    pub fn now(&self) -> DateTime<Utc> {
        let ahead = self
            .ahead
            .as_ref()
            .map_or(0, |ahead| ahead.load(Ordering::SeqCst));
        let micros = Utc::now().timestamp_micros().saturating_add(ahead);
        DateTime::from_timestamp_micros(micros).unwrap_or_else(Utc::now)
    }
}

/// Shows which clock it is (and how far a test has moved it), never anything else.
impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.ahead {
            None => f.write_str("System"),
            Some(ahead) => write!(
                f,
                "Test(+{:?})",
                Duration::from_micros(ahead.load(Ordering::SeqCst).max(0) as u64)
            ),
        }
    }
}

/// A clock for tests: the system clock, moved forward by hand. Hand [`TestClock::clock`] to
/// the server's configuration; [`TestClock::advance`] then moves the time of every worker and
/// request of that server at once.
#[derive(Clone, Default)]
pub struct TestClock {
    ahead: Arc<AtomicI64>,
}

impl TestClock {
    /// A clock that starts at the system's time.
    pub fn new() -> Self {
        Self::default()
    }

    /// The clock to put into a configuration.
    pub fn clock(&self) -> Clock {
        Clock {
            ahead: Some(self.ahead.clone()),
        }
    }

    /// Moves the time forward by `by` (it never goes back).
    pub fn advance(&self, by: Duration) {
        let micros = i64::try_from(by.as_micros()).unwrap_or(i64::MAX);
        self.ahead.fetch_add(micros, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_clock_moves_every_clone_and_the_system_clock_does_not_move() {
        let test = TestClock::new();
        let clock = test.clock();
        let copy = clock.clone();
        let system = Clock::system();
        let before = clock.now();
        test.advance(Duration::from_secs(3600));
        assert!(copy.now() - before >= chrono::Duration::seconds(3600));
        assert!(copy.now() - system.now() >= chrono::Duration::seconds(3599));
        assert!(system.now() - Utc::now() < chrono::Duration::seconds(1));
        assert_eq!(format!("{system:?}"), "System");
        assert_eq!(format!("{copy:?}"), "Test(+3600s)");
        assert_eq!(
            clock.now().timestamp_subsec_nanos() % 1000,
            0,
            "microseconds"
        );
    }

    #[test]
    fn a_configuration_read_from_settings_has_the_system_clock() {
        let config = crate::config::Config::from_map(&Default::default()).unwrap();
        assert_eq!(format!("{:?}", config.clock), "System");
        assert!(format!("{config:?}").contains("clock: System"));
    }
}
