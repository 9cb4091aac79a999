//! The deadline calendar: a private iCalendar feed (RFC 5545) per player, at a URL whose
//! token is its only credential, so that a calendar program can subscribe to it.
//!
//! The feed holds one event per running game where it is the player's move now: the games
//! of the lobby's `my_turn` list (the most urgent first, at most [`FEED_GAMES`]), each as
//! that list shows it to the player, so nothing reaches the feed that the lobby does not
//! show them. Only current moves are listed: which seat moves after the current ones is the
//! rules' business and is not known truthfully without playing the moves out.
//!
//! An event with a deadline starts at the deadline (a moment: no end, as RFC 5545 reads a
//! `DTSTART` without `DTEND`) and has an alarm an hour before; one without (a game without a
//! time limit) is an all-day event on the day, in the player's time zone, when the move
//! became theirs. `UID` is `{game}-{seat}@kontor`; `SEQUENCE` is the game's version and
//! `DTSTAMP`/`LAST-MODIFIED` the time the turn began, so an event changes as its game moves
//! and the same game state always gives the same bytes (and the same `ETag`).
//!
//! The rendering ([`render`]) is pure; [`feed`] reads what it needs.

use super::render::{game_name_in, zone};
use crate::auth::{self, CALENDAR_FEED_PREFIX};
use crate::config::Config;
use crate::key;
use crate::service::play::error::Error;
use crate::service::play::lobby::{self, GameSummary, ListQuery, ListView};
use crate::store::calendar as feeds;
use crate::store::seats::SeatState;
use crate::store::users;
use crate::words::catalogue::{Args, say};
use crate::words::language::Language;
use crate::words::phrases::joined;
use crate::words::player_name;
use chrono::{DateTime, Days, NaiveDate, Utc};
use chrono_tz::Tz;
use icalendar::{Alarm, Calendar, Component, Event, EventLike, Property, Trigger};
use sqlx::PgPool;
use uuid::Uuid;

/// The most games a feed lists (the most urgent first): one page of the lobby's list.
pub const FEED_GAMES: u32 = 100;

/// How often calendar programs are asked to fetch the feed again.
pub const REFRESH_INTERVAL: &str = "PT15M";

/// How long before a deadline the event's alarm goes off.
const ALARM_BEFORE: chrono::Duration = chrono::Duration::hours(1);

/// Whether `token` has the shape of a feed's token (the prefix and 43 base64url characters).
fn well_formed(token: &str) -> bool {
    token
        .strip_prefix(CALENDAR_FEED_PREFIX)
        .is_some_and(|rest| {
            rest.len() == 43
                && rest
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

/// The feed whose token is `token`, rendered; `None` for a token of no feed (unknown,
/// replaced, revoked, malformed or of a deleted account) — all alike.
pub async fn feed(pool: &PgPool, config: &Config, token: &str) -> Result<Option<String>, Error> {
    if !well_formed(token) {
        return Ok(None);
    }
    let Some(user) = feeds::owner(pool, &auth::token_hash(token)).await? else {
        return Ok(None);
    };
    let Some((_, language, time_zone)) = users::mail_locale(pool, user).await? else {
        return Ok(None);
    };
    let query = ListQuery {
        view: Some(ListView::MyTurn),
        kind: None,
        status: None,
        result: None,
        tournament_games: None,
        limit: Some(FEED_GAMES),
        cursor: None,
    };
    let page = lobby::list(pool, user, query).await?;
    let base = config.public_base_url();
    let moves: Vec<Move> = page
        .items
        .iter()
        .filter_map(|game| Move::of(game, user, config.notify.game_link(&base, game.id)))
        .collect();
    let language = Language::parse(&language).unwrap_or_default();
    Ok(Some(render(&moves, language, zone(&time_zone))))
}

/// One move the player has to make, as the lobby shows it to them.
#[derive(Clone, Debug, PartialEq)]
pub struct Move {
    pub game_id: Uuid,
    pub seat: i16,
    pub kind: String,
    /// The other players' names (`Anna K. (anna)`), in seat order.
    pub opponents: Vec<String>,
    /// When the seat's time runs out; `None` in a game without a time limit.
    pub deadline: Option<DateTime<Utc>>,
    /// When the move became the player's (the game's turn began).
    pub since: DateTime<Utc>,
    /// The game's version: the event's `SEQUENCE`.
    pub version: i64,
    /// The game's page.
    pub link: String,
}

impl Move {
    /// The move `user` has in `game`, if it is theirs now (a forfeited seat moves no more:
    /// the bot plays it out).
    pub fn of(game: &GameSummary, user: Uuid, link: String) -> Option<Move> {
        let seat = game.seats.iter().find(|s| s.user_id == user)?;
        if !game.your_turn || seat.state == SeatState::Forfeited {
            return None;
        }
        Some(Move {
            game_id: game.id,
            seat: seat.seat,
            kind: game.kind.clone(),
            opponents: game
                .seats
                .iter()
                .filter(|s| s.user_id != user)
                .map(|s| player_name(&s.username, s.display_name.as_deref()))
                .collect(),
            deadline: seat.deadline,
            since: game
                .turn_started_at
                .or(game.started_at)
                .unwrap_or(game.created_at),
            version: game.version,
            link,
        })
    }
}

/// `Your move: The Flying Dutchman vs anna, bert`.
pub fn summary(mv: &Move, language: Language) -> String {
    let opponents = (!mv.opponents.is_empty()).then(|| joined(&mv.opponents, language));
    let args = Args::new()
        .text("game", game_name_in(&mv.kind, language))
        .maybe_text("opponents", opponents);
    say(language, key!("calendar-summary"), &args)
}

fn description(mv: &Move, language: Language) -> String {
    let args = Args::new()
        .flag("deadline", mv.deadline.is_some())
        .text("link", mv.link.as_str());
    say(language, key!("calendar-description"), &args)
}

/// The day the move became the player's, in their time zone.
fn day_of(at: DateTime<Utc>, zone: Tz) -> NaiveDate {
    at.with_timezone(&zone).date_naive()
}

fn event(mv: &Move, language: Language, zone: Tz) -> Event {
    let summary = summary(mv, language);
    let mut event = Event::new();
    event
        .uid(&format!("{}-{}@kontor", mv.game_id, mv.seat))
        .timestamp(mv.since)
        .last_modified(mv.since)
        .sequence(u32::try_from(mv.version).unwrap_or(u32::MAX))
        .summary(&summary)
        .description(&description(mv, language))
        .url(&mv.link)
        // A move to make takes no time in the player's day: it never shows them busy.
        .add_property("TRANSP", "TRANSPARENT");
    match mv.deadline {
        Some(deadline) => {
            let mut alarm = Alarm::display(&summary, Trigger::from(-ALARM_BEFORE));
            // The crate writes a DTSTAMP and a UID into every component it is not given them
            // for (the time of writing, a random UUID): given fixed ones, the same game state
            // gives the same bytes (RFC 9074 gives an alarm a UID).
            alarm
                .timestamp(mv.since)
                .uid(&format!("{}-{}-alarm@kontor", mv.game_id, mv.seat));
            event.starts(deadline).alarm(alarm);
        }
        None => {
            let day = day_of(mv.since, zone);
            let next = day.checked_add_days(Days::new(1)).unwrap_or(day);
            event.starts(day).ends(next);
        }
    }
    event.done()
}

/// The feed of `moves` (in their order), in `language`; days in `zone`.
pub fn render(moves: &[Move], language: Language, zone: Tz) -> String {
    let mut calendar = Calendar::empty();
    calendar
        .append_property(Property::new("VERSION", "2.0"))
        .append_property(Property::new("PRODID", "-//Kontor//Deadline calendar//EN"))
        .append_property(Property::new("CALSCALE", "GREGORIAN"))
        .append_property(Property::new("METHOD", "PUBLISH"))
        .name(&say(language, key!("calendar-name"), &Args::new()))
        .append_property(
            Property::new("REFRESH-INTERVAL", REFRESH_INTERVAL)
                .append_parameter(("VALUE", "DURATION"))
                .done(),
        )
        .append_property(Property::new("X-PUBLISHED-TTL", REFRESH_INTERVAL));
    for mv in moves {
        calendar.push(event(mv, language, zone));
    }
    calendar.done().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn a_move(deadline: Option<DateTime<Utc>>) -> Move {
        Move {
            game_id: Uuid::from_u128(0x0191f3a4_6f0e_7c5e_9d43_2f0c8a1b2c3d),
            seat: 2,
            kind: "flying-dutchman".to_string(),
            opponents: vec!["Anna K. (anna)".to_string(), "bert".to_string()],
            deadline,
            since: Utc.with_ymd_and_hms(2026, 12, 1, 23, 30, 0).unwrap(),
            version: 42,
            link: "https://kontor.example/games/0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3d".to_string(),
        }
    }

    /// The content lines with their folds undone (RFC 5545 §3.1).
    fn unfolded(text: &str) -> Vec<String> {
        text.replace("\r\n ", "")
            .split("\r\n")
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn a_deadline_is_a_moment_with_an_alarm() {
        let deadline = Utc.with_ymd_and_hms(2026, 12, 3, 18, 0, 0).unwrap();
        let text = render(&[a_move(Some(deadline))], Language::En, Tz::UTC);
        let lines = unfolded(&text);
        for expected in [
            "BEGIN:VCALENDAR",
            "VERSION:2.0",
            "X-WR-CALNAME:Kontor — your moves",
            "REFRESH-INTERVAL;VALUE=DURATION:PT15M",
            "X-PUBLISHED-TTL:PT15M",
            "UID:0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3d-2@kontor",
            "DTSTART:20261203T180000Z",
            "DTSTAMP:20261201T233000Z",
            "LAST-MODIFIED:20261201T233000Z",
            "SEQUENCE:42",
            "SUMMARY:Your move: The Flying Dutchman vs Anna K. (anna)\\, bert",
            "URL:https://kontor.example/games/0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3d",
            "BEGIN:VALARM",
            "END:VCALENDAR",
        ] {
            assert!(lines.iter().any(|l| l == expected), "{expected} in\n{text}");
        }
        assert!(!lines.iter().any(|l| l.starts_with("DTEND")), "{text}");
        assert!(text.ends_with("END:VCALENDAR\r\n"));
    }

    #[test]
    fn no_deadline_is_the_day_the_move_became_yours_in_your_zone() {
        let text = render(&[a_move(None)], Language::En, Tz::UTC);
        let lines = unfolded(&text);
        assert!(lines.iter().any(|l| l == "DTSTART;VALUE=DATE:20261201"));
        assert!(lines.iter().any(|l| l == "DTEND;VALUE=DATE:20261202"));
        assert!(!lines.iter().any(|l| l == "BEGIN:VALARM"));
        // 23:30 UTC is already the next day in Tokyo.
        let text = render(&[a_move(None)], Language::En, Tz::Asia__Tokyo);
        assert!(
            unfolded(&text)
                .iter()
                .any(|l| l == "DTSTART;VALUE=DATE:20261202")
        );
    }

    #[test]
    fn japanese_feeds_speak_japanese_and_lines_fold_at_75_octets() {
        let deadline = Utc.with_ymd_and_hms(2026, 12, 3, 18, 0, 0).unwrap();
        let text = render(&[a_move(Some(deadline))], Language::Ja, Tz::UTC);
        assert!(unfolded(&text).iter().any(
            |l| l == "SUMMARY:あなたの手番: さまよえるオランダ人（Anna K. (anna)、bertと対戦）"
        ));
        for line in text.split("\r\n") {
            assert!(line.len() <= 75, "{line:?} is {} octets", line.len());
        }
    }

    #[test]
    fn the_same_moves_give_the_same_bytes() {
        let deadline = Utc.with_ymd_and_hms(2026, 12, 3, 18, 0, 0).unwrap();
        let moves = [a_move(Some(deadline)), a_move(None)];
        assert_eq!(
            render(&moves, Language::En, Tz::UTC),
            render(&moves, Language::En, Tz::UTC)
        );
        let mut moved = moves.clone();
        moved[1].version += 1;
        assert_ne!(
            render(&moves, Language::En, Tz::UTC),
            render(&moved, Language::En, Tz::UTC)
        );
    }

    #[test]
    fn only_tokens_of_the_right_shape_are_looked_up() {
        assert!(well_formed(&auth::random_token(CALENDAR_FEED_PREFIX)));
        assert!(!well_formed("kontor_cal_short"));
        assert!(!well_formed(&auth::random_token(auth::API_TOKEN_PREFIX)));
        assert!(!well_formed(&format!(
            "{CALENDAR_FEED_PREFIX}{}",
            "é".repeat(43)
        )));
    }
}
