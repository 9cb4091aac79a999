//! Every text the server writes for a person, rendered from fixed data in every language and
//! compared with `tests/golden/words/`: the mails of every kind (notices with their data full
//! and sparse, the digest, the account's own mails), push payloads, webhook summaries and the
//! calendar feed. A change of wording shows as a diff of those files; after a deliberate one,
//! write them anew with `KONTOR_BLESS_WORDS=1 cargo test --lib golden` and review the diff.

use super::account::{self, AccountContext};
use super::*;
use crate::service::delivery::calendar::{self, Move};
use crate::service::delivery::push::payload::{self, Source};
use crate::service::delivery::webhooks;
use crate::service::notices::account::AccountMailKind;
use crate::service::notices::digest::{NewsItem, WaitingGame};
use crate::words::catalogue::Args;
use serde_json::json;
use std::fmt::Write;
use std::path::PathBuf;

const ME: Uuid = Uuid::from_u128(0x0191f3a4_0000_7000_8000_00000000b0b0);
const GAME: Uuid = Uuid::from_u128(0x0191f3a4_6f0e_7c5e_9d43_2f0c8a1b2c3d);

fn now() -> DateTime<Utc> {
    "2026-12-01T07:00:00Z".parse().unwrap()
}

fn tokyo() -> Tz {
    "Asia/Tokyo".parse().unwrap()
}

fn links() -> Links {
    Links {
        unsubscribe: "https://k.example/api/v1/unsubscribe?token=a.b.c".into(),
        unsubscribe_all: "https://k.example/api/v1/unsubscribe?token=a.all.c".into(),
        preferences: "https://k.example/settings".into(),
    }
}

fn player(seat: i16, id: u128, name: &str) -> Player {
    Player {
        seat,
        user_id: Uuid::from_u128(id),
        name: name.into(),
    }
}

/// A game of three, `bert` (the recipient) in the middle seat.
fn game(kind: &str, status: &str, outcome: Option<Value>) -> GameInfo {
    GameInfo {
        id: GAME,
        kind: kind.into(),
        status: status.into(),
        players: vec![
            player(0, 1, "Anna K. (anna)"),
            Player {
                seat: 1,
                user_id: ME,
                name: "bert".into(),
            },
            player(2, 3, "carla"),
        ],
        pending_seats: vec![1],
        outcome,
        turn_started_at: Some("2026-11-30T23:30:00Z".parse().unwrap()),
    }
}

/// A notice to render: its name in the golden file, kind, data and game.
struct Case {
    name: &'static str,
    kind: NoticeKind,
    data: Value,
    game: Option<GameInfo>,
}

fn case(name: &'static str, kind: NoticeKind, data: Value, game: Option<GameInfo>) -> Case {
    Case {
        name,
        kind,
        data,
        game,
    }
}

fn notice_cases() -> Vec<Case> {
    let fd = || Some(game("flying-dutchman", "active", None));
    let sd = || Some(game("steel-driver", "active", None));
    let over = |ranks: Value| {
        Some(game(
            "flying-dutchman",
            "finished",
            Some(json!({"scores": [40, 31, 12], "ranks": ranks, "winners": [0]})),
        ))
    };
    let deadline = "2026-12-01T12:00:00Z";
    let tournament = json!({"name": "Winter <cup>", "round": 2, "rounds": 3, "players": 9,
        "round_deadline": deadline, "position": 4, "points": 6, "seats_per_table": 3,
        "podium": [{"name": "anna", "points": 12}, {"name": "carla", "points": 9}],
        "tournament_link": "https://k.example/tournaments/7"});
    let with = |extra: Value| {
        let mut data = tournament.clone();
        for (key, value) in extra.as_object().unwrap() {
            data[key] = value.clone();
        }
        data
    };
    let mut cases = vec![
        case(
            "your_turn",
            NoticeKind::YourTurn,
            json!({"deadline": deadline}),
            fd(),
        ),
        case(
            "your_turn/no deadline",
            NoticeKind::YourTurn,
            json!({}),
            sd(),
        ),
        case(
            "your_turn/in 40 minutes",
            NoticeKind::YourTurn,
            json!({"deadline": "2026-12-01T07:40:00Z"}),
            sd(),
        ),
        case(
            "your_turn/in 1 minute",
            NoticeKind::YourTurn,
            json!({"deadline": "2026-12-01T07:01:00Z"}),
            sd(),
        ),
        case(
            "your_turn/in 3 days",
            NoticeKind::YourTurn,
            json!({"deadline": "2026-12-04T09:00:00Z"}),
            sd(),
        ),
        case(
            "reminder",
            NoticeKind::Reminder,
            json!({"deadline": deadline}),
            fd(),
        ),
        case(
            "reminder/past",
            NoticeKind::Reminder,
            json!({"deadline": "2026-12-01T06:00:00Z"}),
            fd(),
        ),
        case(
            "reminder/no deadline",
            NoticeKind::Reminder,
            json!({}),
            fd(),
        ),
        case(
            "invited",
            NoticeKind::Invited,
            json!({"inviter": "anna"}),
            fd(),
        ),
        case("invited/no inviter", NoticeKind::Invited, json!({}), None),
        case(
            "invited/hostile",
            NoticeKind::Invited,
            json!({"inviter": "<script>alert(1)</script> & *x*"}),
            sd(),
        ),
        case("game_started", NoticeKind::GameStarted, json!({}), sd()),
        case(
            "game_started/opponents in data",
            NoticeKind::GameStarted,
            json!({"game_kind": "steel-driver", "opponents": ["x", "y", "z"]}),
            None,
        ),
        case(
            "game_over/second",
            NoticeKind::GameOver,
            json!({}),
            over(json!([1, 2, 3])),
        ),
        case(
            "game_over/won",
            NoticeKind::GameOver,
            json!({}),
            over(json!([2, 1, 3])),
        ),
        case(
            "game_over/shared",
            NoticeKind::GameOver,
            json!({}),
            over(json!([1, 1, 3])),
        ),
        case(
            "game_over/result in data",
            NoticeKind::GameOver,
            json!({"result": "a draw", "standings": [{"name": "bert", "score": 3, "rank": 1},
                {"username": "anna", "rank": 1}, {"score": 1}]}),
            None,
        ),
        case(
            "game_over/no outcome",
            NoticeKind::GameOver,
            json!({}),
            sd(),
        ),
        case(
            "player_left/forfeit",
            NoticeKind::PlayerLeft,
            json!({"player": "deleted-player-3", "policy": "forfeit"}),
            fd(),
        ),
        case(
            "player_left/bot",
            NoticeKind::PlayerLeft,
            json!({"player": "deleted-player-3", "policy": "bot"}),
            fd(),
        ),
        case(
            "player_left/sparse",
            NoticeKind::PlayerLeft,
            json!({}),
            None,
        ),
        case(
            "chat_mention/table",
            NoticeKind::ChatMention,
            json!({"author": "anna", "channel": "table", "at": "2026-12-01T06:59:00Z",
                "text": "@bert look\n\nat <this> & that"}),
            fd(),
        ),
        case(
            "chat_mention/private",
            NoticeKind::ChatMention,
            json!({"author": "anna", "channel": "private:0:1", "text": "psst @bert"}),
            fd(),
        ),
        case(
            "chat_mention/spectators",
            NoticeKind::ChatMention,
            json!({"author": "anna", "channel": "spectators", "text": "@bert hi"}),
            fd(),
        ),
        case(
            "chat_mention/sparse",
            NoticeKind::ChatMention,
            json!({}),
            None,
        ),
        case(
            "rematch_offered",
            NoticeKind::RematchOffered,
            json!({"offered_by": "anna", "expires_at": deadline}),
            over(json!([1, 2, 3])),
        ),
        case(
            "rematch_offered/sparse",
            NoticeKind::RematchOffered,
            json!({}),
            None,
        ),
        case(
            "undo_requested/one",
            NoticeKind::UndoRequested,
            json!({"by": "anna", "moves": 1, "yours": 1, "to_version": 41, "deadline": deadline}),
            sd(),
        ),
        case(
            "undo_requested/many",
            NoticeKind::UndoRequested,
            json!({"by": "anna", "moves": 3, "yours": 2, "to_version": 41, "deadline": deadline}),
            sd(),
        ),
        case(
            "undo_requested/none yours",
            NoticeKind::UndoRequested,
            json!({"by": "anna", "moves": 2, "yours": 0}),
            sd(),
        ),
        case(
            "undo_requested/sparse",
            NoticeKind::UndoRequested,
            json!({}),
            None,
        ),
        case(
            "tournament_started",
            NoticeKind::TournamentStarted,
            with(json!({"round": 1})),
            sd(),
        ),
        case(
            "tournament_round",
            NoticeKind::TournamentRound,
            tournament.clone(),
            sd(),
        ),
        case(
            "tournament_round/no standing",
            NoticeKind::TournamentRound,
            json!({"name": "Cup", "round": 2, "rounds": 3, "players": 6}),
            sd(),
        ),
        case(
            "tournament_finished",
            NoticeKind::TournamentFinished,
            with(json!({"round": 3, "position": 1})),
            None,
        ),
        case(
            "tournament_finished/withdrawn",
            NoticeKind::TournamentFinished,
            with(json!({"round": 3, "position": 2, "withdrawn": true, "podium": []})),
            None,
        ),
        case(
            "tournament_finished/no place",
            NoticeKind::TournamentFinished,
            json!({"name": "Cup", "rounds": 3, "players": 6, "game_kind": "flying-dutchman"}),
            None,
        ),
        case(
            "tournament_cancelled",
            NoticeKind::TournamentCancelled,
            json!({"name": "Cup", "players": 2, "seats_per_table": 3, "organiser": true,
                "game_kind": "steel-driver", "tournament_link": "https://k.example/tournaments/7"}),
            None,
        ),
        case(
            "tournament_cancelled/sparse",
            NoticeKind::TournamentCancelled,
            json!({}),
            None,
        ),
    ];
    // Every kind with no data at all, of a game of an unknown kind.
    for kind in NoticeKind::ALL {
        cases.push(Case {
            name: "sparse",
            kind,
            data: json!({}),
            game: Some(game("", "active", None)),
        });
    }
    cases
}

fn context<'a>(
    case: &'a Case,
    links: &'a Links,
    language: Language,
    game_link: Option<String>,
) -> NoticeContext<'a> {
    NoticeContext {
        recipient_id: ME,
        recipient_name: "bert",
        kind: case.kind,
        data: &case.data,
        game_id: case.game.as_ref().map(|g| g.id),
        game: case.game.as_ref(),
        game_link,
        links,
        now: now(),
        language,
        zone: tokyo(),
    }
}

fn mail(out: &mut String, title: &str, mail: &Rendered) {
    let _ = write!(
        out,
        "### {title}\nSubject: {}\n\n{}\n--- html\n{}\n",
        mail.subject, mail.text, mail.html
    );
}

fn notices(language: Language) -> String {
    let links = links();
    let mut out = String::new();
    for case in notice_cases() {
        let link = case
            .game
            .as_ref()
            .map(|g| format!("https://k.example/games/{}", g.id));
        let ctx = context(&case, &links, language, link);
        mail(
            &mut out,
            &format!("{} ({})", case.name, case.kind.as_str()),
            &notice(&ctx),
        );
        let _ = writeln!(out, "Digest line: {}\n", news_line(&ctx));
    }
    out
}

fn digests(language: Language) -> String {
    let links = links();
    let link = |id: Uuid| format!("https://k.example/games/{id}");
    let waiting = |kind: &str, opponents: &[&str], since: Option<&str>| WaitingGame {
        game_id: GAME,
        game_kind: kind.into(),
        opponents: opponents.iter().map(|s| s.to_string()).collect(),
        since: since.map(|s| s.parse().unwrap()),
    };
    let news = vec![
        NewsItem {
            headline: "anna mentioned you at the table in a game".into(),
            game_id: Some(GAME),
        },
        NewsItem {
            headline: "news without a game".into(),
            game_id: None,
        },
    ];
    let cases = [
        ("none", vec![], vec![]),
        (
            "one",
            vec![waiting(
                "steel-driver",
                &["anna", "carla"],
                Some("2026-11-30T23:30:00Z"),
            )],
            news.clone(),
        ),
        (
            "two",
            vec![
                waiting("flying-dutchman", &[], None),
                waiting("steel-driver", &["anna"], Some("2026-11-29T10:00:00Z")),
            ],
            vec![],
        ),
    ];
    let mut out = String::new();
    for (name, waiting, news) in cases {
        let data = DigestData {
            date: "2026-12-01".parse().unwrap(),
            waiting,
            news,
        };
        let locale = Locale {
            language,
            zone: "Europe/Berlin".parse().unwrap(),
        };
        mail(
            &mut out,
            name,
            &digest("bert", &data, &link, &links, locale),
        );
    }
    out
}

fn accounts(language: Language) -> String {
    let expires = "2026-12-01T15:00:00Z";
    let cases = [
        (
            "verify_email",
            AccountMailKind::VerifyEmail,
            json!({"token": "kontor_ve_abc", "expires_at": expires, "change": false}),
        ),
        (
            "verify_email/change",
            AccountMailKind::VerifyEmail,
            json!({"token": "kontor_ve_abc", "expires_at": expires, "change": true}),
        ),
        (
            "password_reset",
            AccountMailKind::PasswordReset,
            json!({"token": "kontor_pw_def", "expires_at": expires}),
        ),
        (
            "email_changed",
            AccountMailKind::EmailChanged,
            json!({"new_address": "n***@example.org"}),
        ),
        (
            "email_changed/done",
            AccountMailKind::EmailChanged,
            json!({"new_address": "n***@example.org", "done": true}),
        ),
        (
            "password_changed/reset",
            AccountMailKind::PasswordChanged,
            json!({"how": "reset"}),
        ),
        (
            "password_changed/changed",
            AccountMailKind::PasswordChanged,
            json!({"how": "changed"}),
        ),
        (
            "webhook_disabled/gone",
            AccountMailKind::WebhookDisabled,
            json!({"url": "https://bot.example/hook", "reason": "gone"}),
        ),
        (
            "webhook_disabled/failing",
            AccountMailKind::WebhookDisabled,
            json!({"url": "https://bot.example/hook", "reason": "failing"}),
        ),
        (
            "webhook_disabled/sparse",
            AccountMailKind::WebhookDisabled,
            json!({}),
        ),
    ];
    let mut out = String::new();
    for (name, kind, data) in cases {
        let ctx = AccountContext {
            recipient_name: "<nora>",
            data: &data,
            base_url: "https://k.example",
            zone: tokyo(),
        };
        match account::render(kind, language, &ctx) {
            Ok(rendered) => mail(&mut out, name, &rendered),
            Err(why) => {
                let _ = writeln!(out, "### {name}\nRefused: {why}\n");
            }
        }
    }
    out
}

fn pushes(language: Language) -> String {
    let mut out = String::new();
    for case in notice_cases() {
        let payload = payload::build(&Source {
            recipient_id: ME,
            recipient_name: "bert",
            kind: case.kind,
            data: &case.data,
            game_id: case.game.as_ref().map(|g| g.id),
            game: case.game.as_ref(),
            url: "https://k.example/games/1".into(),
            now: now(),
            language,
            zone: tokyo(),
        });
        let _ = writeln!(
            out,
            "### {} ({})\ntitle: {}\nbody: {}\n",
            case.name,
            case.kind.as_str(),
            payload.title,
            payload.body
        );
    }
    out
}

fn webhook_lines(language: Language) -> String {
    let mut out = String::new();
    for case in notice_cases() {
        let mut data = webhooks::notice_data(
            case.game.as_ref().map(|g| g.id),
            case.game.as_ref().map(|g| g.kind.as_str()),
            case.game
                .as_ref()
                .map(|g| format!("https://k.example/games/{}", g.id)),
            &case.data,
        );
        for name in ["author", "text"] {
            if let Some(value) = case.data.get(name) {
                data[name] = value.clone();
            }
        }
        let summary = webhooks::summary(
            case.kind,
            &case.data,
            case.game.as_ref().map(|g| g.kind.as_str()),
            (ME, "bert"),
            Locale {
                language,
                zone: tokyo(),
            },
            now(),
        );
        data["summary"] = summary.into();
        let event_type = webhooks::event_type(case.kind);
        let _ = writeln!(
            out,
            "### {} ({event_type})\n{}\n",
            case.name,
            webhooks::line(&event_type, &data)
        );
    }
    let _ = writeln!(
        out,
        "### test\n{}\n",
        webhooks::line(
            webhooks::TEST_EVENT,
            &json!({"endpoint_id": ME,
                "summary": crate::words::catalogue::say(language, key!("webhook-test"), &Args::new())})
        )
    );
    out
}

fn calendars(language: Language) -> String {
    let a_move = |kind: &str, opponents: &[&str], deadline: Option<&str>| Move {
        game_id: GAME,
        seat: 2,
        kind: kind.into(),
        opponents: opponents.iter().map(|s| s.to_string()).collect(),
        deadline: deadline.map(|d| d.parse().unwrap()),
        since: "2026-12-01T23:30:00Z".parse().unwrap(),
        version: 42,
        link: format!("https://k.example/games/{GAME}"),
    };
    let moves = [
        a_move(
            "flying-dutchman",
            &["Anna K. (anna)", "bert"],
            Some("2026-12-03T18:00:00Z"),
        ),
        a_move("steel-driver", &[], None),
    ];
    calendar::render(&moves, language, tokyo()).replace("\r\n", "\n")
}

/// The golden file `name`, compared (or written, with `KONTOR_BLESS_WORDS=1`).
fn check(name: &str, actual: &str) -> Option<String> {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "golden", "words", name]
        .iter()
        .collect();
    if std::env::var_os("KONTOR_BLESS_WORDS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return None;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if expected == actual {
        return None;
    }
    let first = expected
        .lines()
        .zip(actual.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(expected.lines().count().min(actual.lines().count()));
    Some(format!(
        "{name} differs from line {}:\n  expected: {:?}\n  actual:   {:?}",
        first + 1,
        expected.lines().nth(first).unwrap_or("<end>"),
        actual.lines().nth(first).unwrap_or("<end>")
    ))
}

#[test]
fn every_text_reads_as_the_golden_files_say() {
    type Family = (&'static str, fn(Language) -> String);
    let families: [Family; 6] = [
        ("notices", notices),
        ("digest", digests),
        ("account", accounts),
        ("push", pushes),
        ("webhooks", webhook_lines),
        ("calendar", calendars),
    ];
    let mut differences = Vec::new();
    for (family, render) in families {
        for language in Language::ALL {
            let name = format!("{family}.{}.txt", language.as_str());
            differences.extend(check(&name, &render(language)));
        }
    }
    assert!(
        differences.is_empty(),
        "{}\n(after a deliberate change: KONTOR_BLESS_WORDS=1 cargo test --lib golden, then \
         review the diff of tests/golden/words/)",
        differences.join("\n")
    );
}
