//! Time controls and the deadlines they arm.
//!
//! A game may have a time control, chosen at creation: time per move, optionally a time bank
//! (time beyond the move's own that a seat may use over the whole game) and optionally no
//! clock at weekends. Every seat that must act has one armed deadline; a reminder goes out
//! when 80% of its time is used; when it passes, the game's policy plays for the seat. A seat
//! on vacation starts its clock when the vacation ends.

use super::error::Error;
use crate::store::append::{Clocks, Deadline};
use crate::store::deadlines::DeadlineKind;
use chrono::{DateTime, Datelike, Duration, TimeZone, Utc, Weekday};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// What happens to a seat after `abandon_after` consecutive timeouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AbandonPolicy {
    /// The seat is marked abandoned and the sensible bot plays it until its player returns.
    Bot,
    /// The seat is forfeited: the bot plays it out so the game can go on, and it ranks last.
    Forfeit,
}

/// A game's time control, stored with every default filled in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"seconds_per_move": 259200, "bank_seconds": 604800, "weekends_paused": true, "abandon_after": 3, "on_abandon": "bot"}))]
pub struct TimeControl {
    pub seconds_per_move: i64,
    /// The time bank each seat starts with; 0 = none.
    pub bank_seconds: i64,
    /// Saturdays and Sundays (UTC) do not count.
    pub weekends_paused: bool,
    /// Consecutive timeouts after which the seat is abandoned.
    pub abandon_after: i32,
    pub on_abandon: AbandonPolicy,
}

/// A time control as a client asks for it.
#[derive(Clone, Debug, Default, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"days_per_move": 3, "bank_days": 7, "weekends_paused": true}))]
pub struct TimeControlRequest {
    /// Whole days per move, 1–14 (e.g. 1, 2, 3, 5, 7).
    pub days_per_move: Option<u32>,
    /// Or seconds per move, 60–1209600 (for bot arenas and tests).
    pub seconds_per_move: Option<i64>,
    /// A time bank in days, 0–30 (default 0).
    pub bank_days: Option<u32>,
    /// Or in seconds, 0–2592000.
    pub bank_seconds: Option<i64>,
    /// Do not count Saturdays and Sundays (UTC); default false.
    pub weekends_paused: Option<bool>,
    /// Consecutive timeouts before the seat is abandoned, 1–10 (default 3).
    pub abandon_after: Option<i32>,
    /// `bot` (default) or `forfeit`.
    pub on_abandon: Option<AbandonPolicy>,
}

const DAY: i64 = 86_400;

/// What a time control may ask for (the API description publishes these ranges).
pub const DAYS_PER_MOVE: std::ops::RangeInclusive<u32> = 1..=14;
pub const MAX_SECONDS_PER_MOVE: i64 = 14 * DAY;
pub const MAX_BANK_DAYS: u32 = 30;
pub const MAX_BANK_SECONDS: i64 = 30 * DAY;
pub const ABANDON_AFTER: std::ops::RangeInclusive<i32> = 1..=10;

fn invalid(field: &str, detail: &str) -> Error {
    Error::invalid_field(format!("time_control.{field}"), detail)
}

impl TimeControlRequest {
    /// Validates the request. `min_seconds_per_move` is 60 in production; tests lower it.
    pub fn validate(self, min_seconds_per_move: i64) -> Result<TimeControl, Error> {
        let seconds_per_move = match (self.days_per_move, self.seconds_per_move) {
            (Some(days), None) if DAYS_PER_MOVE.contains(&days) => i64::from(days) * DAY,
            (Some(_), None) => return Err(invalid("days_per_move", "days_per_move is 1 to 14")),
            (None, Some(secs)) if (min_seconds_per_move..=MAX_SECONDS_PER_MOVE).contains(&secs) => {
                secs
            }
            (None, Some(_)) => {
                return Err(invalid(
                    "seconds_per_move",
                    &format!(
                        "seconds_per_move is {min_seconds_per_move} to {MAX_SECONDS_PER_MOVE}"
                    ),
                ));
            }
            (Some(_), Some(_)) => {
                return Err(invalid(
                    "days_per_move",
                    "give days_per_move or seconds_per_move, not both",
                ));
            }
            (None, None) => {
                return Err(invalid(
                    "days_per_move",
                    "a time control needs days_per_move (or seconds_per_move)",
                ));
            }
        };
        let bank_seconds = match (self.bank_days, self.bank_seconds) {
            (None, None) => 0,
            (Some(days), None) if days <= MAX_BANK_DAYS => i64::from(days) * DAY,
            (None, Some(secs)) if (0..=MAX_BANK_SECONDS).contains(&secs) => secs,
            (Some(_), Some(_)) => {
                return Err(invalid(
                    "bank_days",
                    "give bank_days or bank_seconds, not both",
                ));
            }
            (Some(_), None) => {
                return Err(invalid(
                    "bank_days",
                    &format!("a time bank is 0 to {MAX_BANK_DAYS} days"),
                ));
            }
            (None, Some(_)) => {
                return Err(invalid(
                    "bank_seconds",
                    &format!("a time bank is 0 to {MAX_BANK_SECONDS} seconds"),
                ));
            }
        };
        let abandon_after = self.abandon_after.unwrap_or(3);
        if !ABANDON_AFTER.contains(&abandon_after) {
            return Err(invalid("abandon_after", "abandon_after is 1 to 10"));
        }
        Ok(TimeControl {
            seconds_per_move,
            bank_seconds,
            weekends_paused: self.weekends_paused.unwrap_or(false),
            abandon_after,
            on_abandon: self.on_abandon.unwrap_or(AbandonPolicy::Bot),
        })
    }
}

fn is_weekend(at: DateTime<Utc>) -> bool {
    matches!(at.weekday(), Weekday::Sat | Weekday::Sun)
}

fn next_midnight(at: DateTime<Utc>) -> DateTime<Utc> {
    let date = at.date_naive() + chrono::Days::new(1);
    Utc.from_utc_datetime(&date.and_hms_opt(0, 0, 0).expect("midnight exists"))
}

/// The instant at which `seconds` of clock time have passed since `start`; with
/// `weekends_paused`, Saturdays and Sundays (UTC) do not count.
pub fn advance(start: DateTime<Utc>, seconds: i64, weekends_paused: bool) -> DateTime<Utc> {
    if !weekends_paused {
        return start + Duration::seconds(seconds);
    }
    let mut at = start;
    let mut left = seconds;
    loop {
        if is_weekend(at) {
            at = next_midnight(at);
            continue;
        }
        let until_midnight = (next_midnight(at) - at).num_seconds();
        if left <= until_midnight {
            return at + Duration::seconds(left);
        }
        left -= until_midnight;
        at = next_midnight(at);
    }
}

/// Clock time between two instants (weekdays only with `weekends_paused`).
pub fn elapsed(from: DateTime<Utc>, to: DateTime<Utc>, weekends_paused: bool) -> i64 {
    if to <= from {
        return 0;
    }
    if !weekends_paused {
        return (to - from).num_seconds();
    }
    let mut at = from;
    let mut counted = 0;
    while at < to {
        let next = next_midnight(at).min(to);
        if !is_weekend(at) {
            counted += (next - at).num_seconds();
        }
        at = next;
    }
    counted
}

pub use crate::store::seats::SeatClock;

/// The seat number of a rules timer's deadline.
pub const TIMER_SEAT: i16 = -1;

/// What one appended command does to the clocks.
#[derive(Debug, Default, PartialEq)]
pub struct Plan {
    pub arm: Vec<Deadline>,
    pub disarm: Vec<i16>,
    /// Seats whose time bank changed: (seat, seconds left).
    pub banks: Vec<(i16, i64)>,
    /// Seats whose turn begins now and who play themselves: they get "your turn".
    pub new_turns: Vec<i16>,
}

impl Plan {
    pub fn clocks(&self) -> Clocks<'_> {
        Clocks {
            arm: &self.arm,
            disarm: &self.disarm,
        }
    }
}

/// Works out the clocks after a command. `before`/`after`: the pending seats; `actor`: the
/// seat that acted (it starts a new turn if it must act again); `timer`: the rules timer now
/// named by the rules (key, seconds) and `armed_timer`: the key of the one armed.
#[allow(clippy::too_many_arguments)]
pub fn plan(
    control: Option<&TimeControl>,
    seats: &[SeatClock],
    before: &[i16],
    after: &[i16],
    actor: Option<i16>,
    timer: Option<(&str, u64)>,
    armed_timer: Option<&str>,
    now: DateTime<Utc>,
) -> Plan {
    let mut plan = Plan::default();
    let seat_of = |seat: i16| seats.iter().find(|s| s.seat == seat);
    for &seat in after {
        let new_turn = !before.contains(&seat) || actor == Some(seat);
        if !new_turn {
            continue;
        }
        let Some(clock) = seat_of(seat) else { continue };
        if clock.played_by_bot() {
            plan.arm.push(Deadline {
                seat,
                kind: DeadlineKind::Bot,
                turn_started_at: now,
                due_at: now,
                remind_at: None,
                timer_key: None,
            });
            continue;
        }
        plan.new_turns.push(seat);
        match control {
            Some(control) => {
                let start = clock.vacation_until.filter(|v| *v > now).unwrap_or(now);
                let budget = control.seconds_per_move + clock.bank_secs.unwrap_or(0);
                plan.arm.push(Deadline {
                    seat,
                    kind: DeadlineKind::Turn,
                    turn_started_at: start,
                    due_at: advance(start, budget, control.weekends_paused),
                    remind_at: Some(advance(start, budget * 4 / 5, control.weekends_paused)),
                    timer_key: None,
                });
            }
            None if before.contains(&seat) => plan.disarm.push(seat),
            None => {}
        }
    }
    for &seat in before {
        if !after.contains(&seat) {
            plan.disarm.push(seat);
        }
    }
    // The acting seat pays for time over its move's allowance from its bank.
    if let (Some(control), Some(actor)) = (control, actor)
        && control.bank_seconds > 0
        && let Some(clock) = seat_of(actor)
        && let (Some(started), Some(bank)) = (clock.turn_started_at, clock.bank_secs)
    {
        let over = elapsed(started, now, control.weekends_paused) - control.seconds_per_move;
        if over > 0 {
            plan.banks.push((actor, (bank - over).max(0)));
        }
    }
    match (timer, armed_timer) {
        (Some((key, _)), Some(armed)) if key == armed => {}
        (Some((key, after_secs)), _) => plan.arm.push(Deadline {
            seat: TIMER_SEAT,
            kind: DeadlineKind::Timer,
            turn_started_at: now,
            due_at: now + Duration::seconds(after_secs as i64),
            remind_at: None,
            timer_key: Some(key.to_string()),
        }),
        (None, Some(_)) => plan.disarm.push(TIMER_SEAT),
        (None, None) => {}
    }
    plan.disarm.sort();
    plan.disarm.dedup();
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::seats::SeatState;
    use uuid::Uuid;

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().unwrap()
    }

    fn control(bank: i64, weekends_paused: bool) -> TimeControl {
        TimeControl {
            seconds_per_move: DAY,
            bank_seconds: bank,
            weekends_paused,
            abandon_after: 3,
            on_abandon: AbandonPolicy::Bot,
        }
    }

    fn seat(seat: i16) -> SeatClock {
        SeatClock {
            seat,
            user_id: Uuid::nil(),
            state: SeatState::Active,
            bank_secs: None,
            timeouts: 0,
            vacation_until: None,
            turn_started_at: None,
        }
    }

    #[test]
    fn weekends_do_not_count_when_paused() {
        // Friday 2026-11-27 18:00 + one day of clock = Monday 18:00.
        let friday = at("2026-11-27T18:00:00Z");
        assert_eq!(advance(friday, DAY, true), at("2026-11-30T18:00:00Z"));
        assert_eq!(advance(friday, DAY, false), at("2026-11-28T18:00:00Z"));
        // A start on Saturday counts from Monday midnight.
        assert_eq!(
            advance(at("2026-11-28T10:00:00Z"), 3600, true),
            at("2026-11-30T01:00:00Z")
        );
        assert_eq!(elapsed(friday, at("2026-11-30T18:00:00Z"), true), DAY);
        assert_eq!(elapsed(friday, at("2026-11-30T18:00:00Z"), false), 3 * DAY);
    }

    #[test]
    fn a_new_turn_arms_a_deadline_and_a_reminder_at_four_fifths() {
        let now = at("2026-11-25T12:00:00Z");
        let plan = plan(
            Some(&control(0, false)),
            &[seat(0), seat(1)],
            &[0],
            &[1],
            Some(0),
            None,
            None,
            now,
        );
        assert_eq!(plan.disarm, vec![0]);
        assert_eq!(plan.new_turns, vec![1]);
        assert_eq!(plan.arm[0].due_at, now + Duration::seconds(DAY));
        assert_eq!(
            plan.arm[0].remind_at,
            Some(now + Duration::seconds(DAY * 4 / 5))
        );
    }

    #[test]
    fn seats_still_pending_keep_their_clocks_and_the_actor_starts_again() {
        let now = at("2026-11-25T12:00:00Z");
        let plan = plan(
            Some(&control(0, false)),
            &[seat(0), seat(1), seat(2)],
            &[0, 1, 2],
            &[0, 1, 2],
            Some(1),
            None,
            None,
            now,
        );
        assert_eq!(plan.arm.iter().map(|d| d.seat).collect::<Vec<_>>(), vec![1]);
        assert!(plan.disarm.is_empty());
    }

    #[test]
    fn overtime_comes_out_of_the_bank_and_vacations_delay_the_start() {
        let now = at("2026-11-25T12:00:00Z");
        let mut actor = seat(0);
        actor.bank_secs = Some(2 * DAY);
        actor.turn_started_at = Some(now - Duration::seconds(DAY + 3600));
        let mut away = seat(1);
        away.vacation_until = Some(now + Duration::seconds(5 * DAY));
        away.bank_secs = Some(DAY);
        let plan = plan(
            Some(&control(2 * DAY, false)),
            &[actor, away],
            &[0],
            &[1],
            Some(0),
            None,
            None,
            now,
        );
        assert_eq!(plan.banks, vec![(0, 2 * DAY - 3600)]);
        assert_eq!(
            plan.arm[0].turn_started_at,
            now + Duration::seconds(5 * DAY)
        );
        assert_eq!(plan.arm[0].due_at, now + Duration::seconds(7 * DAY));
    }

    #[test]
    fn bots_are_due_at_once_and_rules_timers_are_armed_once() {
        let now = at("2026-11-25T12:00:00Z");
        let mut bot = seat(1);
        bot.state = SeatState::Abandoned;
        let plan1 = plan(
            None,
            &[seat(0), bot],
            &[0],
            &[1],
            Some(0),
            Some(("t1", 60)),
            None,
            now,
        );
        assert_eq!(plan1.arm[0].kind, DeadlineKind::Bot);
        assert_eq!(plan1.arm[0].due_at, now);
        assert!(plan1.new_turns.is_empty(), "no mail for a bot's turn");
        assert_eq!(plan1.arm[1].timer_key.as_deref(), Some("t1"));
        let plan2 = plan(
            None,
            &[seat(0)],
            &[0],
            &[0],
            None,
            Some(("t1", 60)),
            Some("t1"),
            now,
        );
        assert!(plan2.arm.is_empty());
        let plan3 = plan(None, &[seat(0)], &[0], &[0], None, None, Some("t1"), now);
        assert_eq!(plan3.disarm, vec![TIMER_SEAT]);
    }

    #[test]
    fn requests_are_validated() {
        let ok = TimeControlRequest {
            days_per_move: Some(3),
            bank_days: Some(7),
            ..Default::default()
        }
        .validate(60)
        .unwrap();
        assert_eq!(ok.seconds_per_move, 3 * DAY);
        assert_eq!(ok.bank_seconds, 7 * DAY);
        assert!(
            TimeControlRequest {
                days_per_move: Some(0),
                ..Default::default()
            }
            .validate(60)
            .is_err()
        );
        assert!(
            TimeControlRequest {
                seconds_per_move: Some(5),
                ..Default::default()
            }
            .validate(60)
            .is_err()
        );
        assert!(TimeControlRequest::default().validate(60).is_err());
    }
}
