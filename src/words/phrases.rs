//! The phrases many texts share, built from the catalogue: a moment, how far off it is, a day,
//! a list of names.

use super::catalogue::{Args, say};
use super::key;
use super::language::Language;
use chrono::{DateTime, Datelike, NaiveDate, Utc};
use chrono_tz::Tz;

/// An instant as the reader reads it: in their time zone, which is named.
pub fn when(at: DateTime<Utc>, zone: Tz, language: Language) -> String {
    let local = at.with_timezone(&zone);
    let args = Args::new()
        .number("weekday", i64::from(local.weekday().number_from_monday()))
        .number("day", i64::from(local.day()))
        .number("month", i64::from(local.month()))
        .number("year", i64::from(local.year()))
        .text("time", local.format("%H:%M").to_string())
        .text("zone", zone.name());
    say(language, key!("datetime"), &args)
}

/// A day ("2026-12-01").
pub fn day(date: NaiveDate, language: Language) -> String {
    let args = Args::new()
        .number("day", i64::from(date.day()))
        .number("month", i64::from(date.month()))
        .number("year", i64::from(date.year()));
    say(language, key!("date"), &args)
}

/// How far off `at` is from `now`: "in 5 hours", "in 3 days", "now".
pub fn from_now(at: DateTime<Utc>, now: DateTime<Utc>, language: Language) -> String {
    let minutes = (at - now).num_minutes();
    let (unit, count) = match minutes {
        i64::MIN..=0 => ("now", 0),
        1..=89 => ("minutes", minutes),
        90..=2159 => ("hours", (minutes + 30) / 60),
        _ => ("days", (minutes + 720) / 1440),
    };
    let args = Args::new().choice("unit", unit).number("count", count);
    say(language, key!("from-now"), &args)
}

/// Names joined by the language's separator ("a, b, c").
pub fn joined(list: &[String], language: Language) -> String {
    list.join(&say(language, key!("list-comma"), &Args::new()))
}

/// A list of names: "a, b and c".
pub fn names(list: &[String], language: Language) -> String {
    match list {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => {
            let args = Args::new()
                .text("init", joined(init, language))
                .text("last", last.as_str());
            say(language, key!("list-and"), &args)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_in_both_languages() {
        let now: DateTime<Utc> = "2026-12-01T07:00:00Z".parse().unwrap();
        let hours = |h| now + chrono::Duration::hours(h);
        assert_eq!(from_now(hours(5), now, Language::En), "in 5 hours");
        assert_eq!(from_now(hours(72), now, Language::En), "in 3 days");
        assert_eq!(from_now(hours(-1), now, Language::En), "now");
        assert_eq!(
            from_now(now + chrono::Duration::minutes(1), now, Language::En),
            "in 1 minute"
        );
        assert_eq!(from_now(hours(5), now, Language::Ja), "5時間後");
        let list = ["a".to_string(), "b".into(), "c".into()];
        assert_eq!(names(&list, Language::En), "a, b and c");
        assert_eq!(names(&list, Language::Ja), "a、b、c");
        assert_eq!(names(&list[..1], Language::En), "a");
        assert_eq!(
            when(now, "Europe/Berlin".parse().unwrap(), Language::En),
            "Tue, 1 Dec 2026 08:00 Europe/Berlin"
        );
        assert_eq!(
            when(now, Tz::Asia__Tokyo, Language::Ja),
            "2026年12月1日（火）16:00（Asia/Tokyo）"
        );
        let date: NaiveDate = "2026-03-04".parse().unwrap();
        assert_eq!(day(date, Language::En), "2026-03-04");
        assert_eq!(day(date, Language::Ja), "2026年3月4日");
    }
}
