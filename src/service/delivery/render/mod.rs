//! The content of the mails: a subject, and one document rendered both as plain text and as
//! HTML (sent together as multipart/alternative). The sentences are the catalogue's
//! (`crate::words`, keyed by the notice kind's name); this code only gathers a notice's
//! variables from its data and puts the blocks together, the same for every language.
//! Rendering never fails: a field missing from a notice's data gives a plainer sentence.

use crate::games::GameKind;
use crate::key;
use crate::service::notices::NoticeKind;
use crate::service::notices::digest::DigestData;
use crate::words::catalogue::{Args, paragraphs, say};
use crate::words::language::Language;
use crate::words::phrases::{day, from_now, names, when};
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use document::{Block, Span, blocks, spans, to_html, to_text};
use serde_json::Value;
use uuid::Uuid;

pub mod account;
mod document;
#[cfg(test)]
mod golden;
pub mod pace;
mod tournament;

pub use document::escape_html;

/// A player of a game, as the templates need them.
#[derive(Clone, Debug)]
pub struct Player {
    pub seat: i16,
    pub user_id: Uuid,
    pub name: String,
}

/// What the database says about a game a notice is about.
#[derive(Clone, Debug)]
pub struct GameInfo {
    pub id: Uuid,
    pub kind: String,
    pub status: String,
    pub players: Vec<Player>,
    pub pending_seats: Vec<i16>,
    pub outcome: Option<Value>,
    pub turn_started_at: Option<DateTime<Utc>>,
}

impl GameInfo {
    pub fn seat_of(&self, user: Uuid) -> Option<i16> {
        self.players
            .iter()
            .find(|p| p.user_id == user)
            .map(|p| p.seat)
    }

    /// Whether `user` must act in this game now.
    pub fn is_pending(&self, user: Uuid) -> bool {
        self.status == "active"
            && self
                .seat_of(user)
                .is_some_and(|seat| self.pending_seats.contains(&seat))
    }

    /// The names of everyone seated except `user`, in seat order.
    pub fn others(&self, user: Uuid) -> Vec<String> {
        self.players
            .iter()
            .filter(|p| p.user_id != user)
            .map(|p| p.name.clone())
            .collect()
    }
}

/// A finished mail body.
#[derive(Clone, Debug)]
pub struct Rendered {
    pub subject: String,
    pub text: String,
    pub html: String,
}

/// The links every mail carries.
#[derive(Clone, Debug)]
pub struct Links {
    /// Unsubscribes from this kind of mail (also in the `List-Unsubscribe` header).
    pub unsubscribe: String,
    /// Unsubscribes from all mail.
    pub unsubscribe_all: String,
    /// The web client's settings page, where every preference can be chosen.
    pub preferences: String,
}

/// Everything a notice mail is made from.
pub struct NoticeContext<'a> {
    pub recipient_id: Uuid,
    pub recipient_name: &'a str,
    pub kind: NoticeKind,
    pub data: &'a Value,
    pub game_id: Option<Uuid>,
    pub game: Option<&'a GameInfo>,
    pub game_link: Option<String>,
    pub links: &'a Links,
    pub now: DateTime<Utc>,
    /// The recipient's language.
    pub language: Language,
    /// The recipient's time zone: dates and deadlines are shown in it.
    pub zone: Tz,
}

/// The catalogue key `pattern` (`notice-{kind}.subject`) for a notice kind.
fn kind_key(pattern: &str, kind: NoticeKind) -> String {
    pattern.replace("{kind}", kind.as_str())
}

/// A game's name in `language`, as its rules declare it ([`crate::games::Rules::NAMES`]); a
/// kind this server does not know by its identifier in words (`your game` for none).
pub fn game_name_in(kind: &str, language: Language) -> String {
    if let Some(known) = GameKind::parse(kind) {
        return known.names().get(language).to_string();
    }
    let words: Vec<String> = kind
        .split(['-', '_'])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|f| f.to_uppercase().collect::<String>() + chars.as_str())
                .unwrap_or_default()
        })
        .collect();
    if words.is_empty() {
        say(language, key!("game-unknown"), &Args::new())
    } else {
        words.join(" ")
    }
}

fn str_field<'a>(data: &'a Value, key: &str) -> Option<&'a str> {
    data.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// A whole number of the data, if it has one.
fn int_field(data: &Value, key: &str) -> Option<i64> {
    data.get(key).and_then(Value::as_i64)
}

/// A moment of the data (RFC 3339), if it has one.
fn time_field(data: &Value, key: &str) -> Option<DateTime<Utc>> {
    str_field(data, key)
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|d| d.with_timezone(&Utc))
}

fn string_list(data: &Value, key: &str) -> Option<Vec<String>> {
    data.get(key).and_then(Value::as_array).map(|items| {
        items
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    })
}

/// One row of a game's final standings.
struct Standing {
    name: String,
    score: Option<i64>,
    rank: Option<u64>,
    is_you: bool,
}

fn standings(ctx: &NoticeContext) -> Vec<Standing> {
    if let Some(rows) = ctx.data.get("standings").and_then(Value::as_array) {
        return rows
            .iter()
            .map(|row| {
                let name = str_field(row, "name")
                    .or(str_field(row, "username"))
                    .unwrap_or("?")
                    .to_string();
                Standing {
                    is_you: name == ctx.recipient_name,
                    name,
                    score: row.get("score").and_then(Value::as_i64),
                    rank: row.get("rank").and_then(Value::as_u64),
                }
            })
            .collect();
    }
    let Some(game) = ctx.game else {
        return Vec::new();
    };
    let Some(outcome) = &game.outcome else {
        return Vec::new();
    };
    let scores = outcome.get("scores").and_then(Value::as_array);
    let ranks = outcome.get("ranks").and_then(Value::as_array);
    let mut rows: Vec<Standing> = game
        .players
        .iter()
        .map(|p| {
            let at = |list: Option<&Vec<Value>>| list.and_then(|l| l.get(p.seat as usize)).cloned();
            Standing {
                name: p.name.clone(),
                score: at(scores).and_then(|v| v.as_i64()),
                rank: at(ranks).and_then(|v| v.as_u64()),
                is_you: p.user_id == ctx.recipient_id,
            }
        })
        .collect();
    rows.sort_by_key(|s| s.rank.unwrap_or(u64::MAX));
    rows
}

/// The recipient's result in words, from the data's own or the standings.
fn result_line(ctx: &NoticeContext, table: &[Standing]) -> Option<String> {
    if let Some(result) = str_field(ctx.data, "result") {
        return Some(result.to_string());
    }
    let you = table.iter().find(|s| s.is_you)?;
    let rank = you.rank?;
    let winners = |others_only: bool| -> Vec<String> {
        table
            .iter()
            .filter(|s| s.rank == Some(1) && !(others_only && s.is_you))
            .map(|s| s.name.clone())
            .collect()
    };
    let outcome = match rank {
        1 if winners(false).len() > 1 => "shared",
        1 => "won",
        _ => "placed",
    };
    let args = Args::new()
        .choice("outcome", outcome)
        .text("others", names(&winners(true), ctx.language))
        .text("winners", names(&winners(false), ctx.language))
        .number("rank", i64::try_from(rank).unwrap_or(i64::MAX))
        .number("players", table.len() as i64);
    Some(say(ctx.language, key!("game-result"), &args))
}

/// The final standings as a list.
fn standings_list(table: &[Standing], language: Language) -> Vec<Block> {
    if table.is_empty() {
        return Vec::new();
    }
    vec![Block::List(
        table
            .iter()
            .map(|s| {
                let args = Args::new()
                    .maybe_number("rank", s.rank.and_then(|r| i64::try_from(r).ok()))
                    .text("name", s.name.as_str())
                    .flag("you", s.is_you)
                    .maybe_number("score", s.score);
                vec![Span::Text(say(language, key!("standing-line"), &args))]
            })
            .collect(),
    )]
}

fn opponents(ctx: &NoticeContext) -> Vec<String> {
    string_list(ctx.data, "opponents")
        .or_else(|| ctx.game.map(|g| g.others(ctx.recipient_id)))
        .unwrap_or_default()
}

fn game_name(ctx: &NoticeContext) -> String {
    game_name_in(
        str_field(ctx.data, "game_kind")
            .or(ctx.game.map(|g| g.kind.as_str()))
            .unwrap_or(""),
        ctx.language,
    )
}

/// The others at the table after a game's name (" with anna and carla"), or nothing.
fn with_opponents(others: &[String], language: Language) -> String {
    if others.is_empty() {
        return String::new();
    }
    let args = Args::new().text("names", names(others, language));
    say(language, key!("with-opponents"), &args)
}

/// Where a mention was written: `table`, `private` or `spectators`.
fn channel(data: &Value) -> &'static str {
    match str_field(data, "channel").unwrap_or("table") {
        "spectators" => "spectators",
        c if c.starts_with("private:") => "private",
        _ => "table",
    }
}

/// The variables of a notice's messages, from its data (see the catalogue's `notices.ftl`).
fn notice_args(ctx: &NoticeContext) -> Args {
    let (data, language) = (ctx.data, ctx.language);
    let at = |key: &str| time_field(data, key).map(|at| when(at, ctx.zone, language));
    let deadline = time_field(data, "deadline");
    let table = standings(ctx);
    let seated = ctx
        .game
        .map(|g| g.others(ctx.recipient_id))
        .unwrap_or_default();
    let by = match ctx.kind {
        NoticeKind::RematchOffered => str_field(data, "offered_by"),
        _ => str_field(data, "by"),
    };
    let args = Args::new()
        .text("game", game_name(ctx))
        .text("with", with_opponents(&opponents(ctx), language))
        .flag("game_page", ctx.game_id.is_some())
        .maybe_text("deadline", deadline.map(|at| when(at, ctx.zone, language)))
        .maybe_text(
            "deadline_in",
            deadline.map(|at| from_now(at, ctx.now, language)),
        )
        .maybe_text("inviter", str_field(data, "inviter"))
        .maybe_text(
            "seated",
            (!seated.is_empty()).then(|| names(&seated, language)),
        )
        .maybe_text("result", result_line(ctx, &table))
        .flag("standings", !table.is_empty())
        .maybe_text("player", str_field(data, "player"))
        .choice(
            "policy",
            match str_field(data, "policy") {
                Some("forfeit") => "forfeit",
                _ => "bot",
            },
        )
        .maybe_text("author", str_field(data, "author"))
        .choice("channel", channel(data))
        .maybe_text("written", at("at"))
        .maybe_text("by", by)
        .maybe_text("until", at("expires_at"))
        .maybe_number("moves", int_field(data, "moves"))
        .maybe_number("yours", int_field(data, "yours"))
        .maybe_number("to_version", int_field(data, "to_version"));
    tournament::args(args, ctx)
}

/// How a person calls a kind of mail, in `language`.
pub fn kind_label(kind: NoticeKind, language: Language) -> String {
    say(
        language,
        &kind_key(key!("notice-{kind}.label"), kind),
        &Args::new(),
    )
}

/// The subject of a notice; also its one-line summary in the digest, its push notification's
/// title and its webhooks' summary.
pub fn headline(ctx: &NoticeContext) -> String {
    let key = kind_key(key!("notice-{kind}.subject"), ctx.kind);
    say(ctx.language, &key, &notice_args(ctx))
}

/// A message's text cut to `max` characters (an ellipsis marks the cut), on one line.
fn excerpt(text: &str, max: usize) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        one_line
    } else {
        one_line.chars().take(max).collect::<String>() + "…"
    }
}

/// A notice as one line of the digest: its headline, and for a mention the message too.
pub fn news_line(ctx: &NoticeContext) -> String {
    let headline = headline(ctx);
    if matches!(ctx.kind, NoticeKind::YourTurn | NoticeKind::GameOver)
        && let Some(summary) = pace::summary(ctx.data, ctx.language)
    {
        return match ctx.language {
            Language::En => format!("{headline} ({summary})"),
            Language::Ja => format!("{headline}（{summary}）"),
        };
    }
    match (ctx.kind, str_field(ctx.data, "text")) {
        (NoticeKind::ChatMention, Some(text)) => {
            let args = Args::new()
                .text("headline", headline)
                .text("excerpt", excerpt(text, 140));
            say(ctx.language, key!("mention-line"), &args)
        }
        _ => headline,
    }
}

/// The greeting every mail begins with.
fn greeting(name: &str, language: Language) -> Block {
    Block::Para(vec![Span::Text(say(
        language,
        key!("mail-greeting"),
        &Args::new().text("name", name),
    ))])
}

/// The small print: why the mail came, and the one-click unsubscribe links.
fn footer(reason: String, links: &Links, what: &str, language: Language) -> Block {
    let args = Args::new()
        .text("reason", reason)
        .text("what", what)
        .text("unsubscribe", links.unsubscribe.as_str())
        .text("unsubscribe_all", links.unsubscribe_all.as_str())
        .text("preferences", links.preferences.as_str());
    Block::Footer(
        paragraphs(language, key!("mail-footer"), &args)
            .into_iter()
            .flat_map(spans)
            .collect(),
    )
}

/// A notice mail, in the recipient's language.
pub fn notice(ctx: &NoticeContext) -> Rendered {
    let language = ctx.language;
    let args = notice_args(ctx);
    let subject = say(
        language,
        &kind_key(key!("notice-{kind}.subject"), ctx.kind),
        &args,
    );
    let body = paragraphs(
        language,
        &kind_key(key!("notice-{kind}.body"), ctx.kind),
        &args,
    );
    let table = standings(ctx);
    let mut content = vec![greeting(ctx.recipient_name, language)];
    content.extend(blocks(body, &mut |slot| match slot {
        "standings" => standings_list(&table, language),
        "quote" => vec![Block::Quote(
            ctx.data
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
        )],
        "podium" => tournament::podium(ctx.data, language),
        _ => Vec::new(),
    }));
    // What the server played for the player while they were away (their own seat's only).
    if matches!(ctx.kind, NoticeKind::YourTurn | NoticeKind::GameOver) {
        content.extend(pace::blocks(ctx));
    }
    if let Some(url) = &ctx.game_link {
        content.push(Block::Action {
            label: say(language, key!("mail-open-game"), &Args::new()),
            url: url.clone(),
        });
    }
    let label = kind_label(ctx.kind, language);
    let reason = say(
        language,
        key!("notice-reason"),
        &Args::new().text("label", label.as_str()),
    );
    content.push(footer(reason, ctx.links, &label, language));
    Rendered {
        text: to_text(&content, language),
        html: to_html(&subject, &content, language),
        subject,
    }
}

/// A stored time zone name as a zone (UTC for a name this build does not know).
pub fn zone(name: &str) -> Tz {
    name.parse().unwrap_or(Tz::UTC)
}

/// How a digest is written: the recipient's language and time zone.
#[derive(Clone, Copy, Debug)]
pub struct Locale {
    pub language: Language,
    pub zone: Tz,
}

impl Default for Locale {
    fn default() -> Self {
        Self {
            language: Language::En,
            zone: Tz::UTC,
        }
    }
}

/// The daily digest, in the recipient's language and time zone.
pub fn digest(
    recipient_name: &str,
    data: &DigestData,
    game_link: &dyn Fn(Uuid) -> String,
    links: &Links,
    locale: Locale,
) -> Rendered {
    let Locale { language, zone } = locale;
    let args = Args::new()
        .number("waiting", data.waiting.len() as i64)
        .text("date", day(data.date, language))
        .flag("news", !data.news.is_empty());
    let subject = say(language, key!("digest.subject"), &args);
    let line = |key: &str, args: &Args| -> Vec<Span> {
        paragraphs(language, key, args)
            .into_iter()
            .flat_map(spans)
            .collect()
    };
    let mut content = vec![greeting(recipient_name, language)];
    content.extend(blocks(
        paragraphs(language, key!("digest.body"), &args),
        &mut |slot| match slot {
            "waiting" if !data.waiting.is_empty() => vec![Block::List(
                data.waiting
                    .iter()
                    .map(|g| {
                        let opponents =
                            (!g.opponents.is_empty()).then(|| names(&g.opponents, language));
                        let args = Args::new()
                            .text("game", game_name_in(&g.game_kind, language))
                            .maybe_text("opponents", opponents)
                            .maybe_text("since", g.since.map(|at| when(at, zone, language)))
                            .text("url", game_link(g.game_id));
                        line(key!("digest-waiting"), &args)
                    })
                    .collect(),
            )],
            "news" if !data.news.is_empty() => vec![Block::List(
                data.news
                    .iter()
                    .map(|item| {
                        let args = Args::new()
                            .text("headline", item.headline.as_str())
                            .maybe_text("url", item.game_id.map(game_link));
                        line(key!("digest-news"), &args)
                    })
                    .collect(),
            )],
            _ => Vec::new(),
        },
    ));
    let reason = say(language, key!("digest.reason"), &Args::new());
    let what = say(language, key!("digest.what"), &Args::new());
    content.push(footer(reason, links, &what, language));
    Rendered {
        text: to_text(&content, language),
        html: to_html(&subject, &content, language),
        subject,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::notices::digest::{NewsItem, WaitingGame};
    use crate::words::player_name;
    use serde_json::json;

    fn links() -> Links {
        Links {
            unsubscribe: "https://k.example/api/v1/unsubscribe?token=a.b.c".into(),
            unsubscribe_all: "https://k.example/api/v1/unsubscribe?token=a.all.c".into(),
            preferences: "https://k.example/settings".into(),
        }
    }

    fn game(me: Uuid) -> GameInfo {
        GameInfo {
            id: Uuid::nil(),
            kind: "flying-dutchman".into(),
            status: "finished".into(),
            players: vec![
                Player {
                    seat: 0,
                    user_id: Uuid::now_v7(),
                    name: "anna".into(),
                },
                Player {
                    seat: 1,
                    user_id: me,
                    name: "bert".into(),
                },
                Player {
                    seat: 2,
                    user_id: Uuid::now_v7(),
                    name: "carla".into(),
                },
            ],
            pending_seats: vec![],
            outcome: Some(json!({"scores": [40, 31, 12], "ranks": [1, 2, 3], "winners": [0]})),
            turn_started_at: None,
        }
    }

    #[test]
    fn game_over_is_built_from_the_outcome_and_escaped() {
        let me = Uuid::now_v7();
        let info = game(me);
        let data = json!({});
        let links = links();
        let ctx = NoticeContext {
            recipient_id: me,
            recipient_name: "bert",
            kind: NoticeKind::GameOver,
            data: &data,
            game_id: Some(info.id),
            game: Some(&info),
            game_link: Some("https://k.example/games/1?a=1&b=2".into()),
            links: &links,
            now: Utc::now(),
            language: Language::En,
            zone: Tz::UTC,
        };
        let mail = notice(&ctx);
        assert_eq!(
            mail.subject,
            "The Flying Dutchman is over: anna won; you finished 2nd of 3"
        );
        assert!(mail.text.contains("2. bert (you): 31"), "{}", mail.text);
        assert!(
            mail.html
                .contains("href=\"https://k.example/games/1?a=1&amp;b=2\"")
        );
        assert!(mail.text.contains("https://k.example/games/1?a=1&b=2"));
        // Verifiable on the game's page (linked above), in words a player reads.
        assert!(
            mail.html
                .contains("verify every shuffle and roll on the game&#39;s page")
        );
        assert!(
            !["GET /api", "PUT /api", "POST /api"]
                .iter()
                .any(|call| mail.text.contains(call)),
            "{}",
            mail.text
        );
        assert!(
            mail.text.contains("https://k.example/settings"),
            "{}",
            mail.text
        );

        let hostile = json!({"inviter": "<script>alert(1)</script>"});
        let ctx = NoticeContext {
            kind: NoticeKind::Invited,
            data: &hostile,
            ..ctx
        };
        let mail = notice(&ctx);
        assert!(!mail.html.contains("<script>"));
        assert!(mail.html.contains("&lt;script&gt;"));
    }

    #[test]
    fn game_names_come_from_the_rules() {
        assert_eq!(game_name_in("steel-driver", Language::En), "Steel Driver");
        assert_eq!(
            game_name_in("flying-dutchman", Language::Ja),
            "さまよえるオランダ人"
        );
        assert_eq!(game_name_in("", Language::En), "your game");
        assert_eq!(game_name_in("", Language::Ja), "あなたのゲーム");
        assert_eq!(game_name_in("new_game-x", Language::En), "New Game X");
        assert_eq!(player_name("anna", Some("Anna K.")), "Anna K. (anna)");
        assert_eq!(player_name("anna", None), "anna");
    }

    /// Whether `text` has Japanese in it (kana or kanji).
    fn has_japanese(text: &str) -> bool {
        text.chars()
            .any(|c| matches!(c, '\u{3040}'..='\u{30ff}' | '\u{4e00}'..='\u{9fff}'))
    }

    #[test]
    fn a_turn_mail_says_what_the_server_played_in_both_languages() {
        let me = Uuid::now_v7();
        let info = game(me);
        let links = links();
        let data = json!({"auto": {"count": 2, "news": [
            {"version": 40, "kind": "played", "command": {"type": "move", "to": "kontor"}},
            {"version": 44, "kind": "forced", "command": {"type": "pass"},
             "reason": {"code": "only_pass", "params": {"kontor_cards": 0, "share_stack": 4}}},
        ]}});
        for language in Language::ALL {
            let ctx = NoticeContext {
                recipient_id: me,
                recipient_name: "bert",
                kind: NoticeKind::YourTurn,
                data: &data,
                game_id: Some(info.id),
                game: Some(&info),
                game_link: None,
                links: &links,
                now: Utc::now(),
                language,
                zone: Tz::UTC,
            };
            let mail = notice(&ctx);
            let line = news_line(&ctx);
            match language {
                Language::En => {
                    assert!(
                        mail.text
                            .contains("Played by your order: move the ghost ship to kontor"),
                        "{}",
                        mail.text
                    );
                    assert!(
                        mail.text.contains("You had to pass: you hold no horseshoe"),
                        "{}",
                        mail.text
                    );
                    assert!(mail.html.contains("Played by your order"));
                    assert!(!has_japanese(&mail.text));
                    assert!(
                        line.ends_with("(your orders played 2 moves while you were away)"),
                        "{line}"
                    );
                }
                Language::Ja => {
                    assert!(
                        mail.text.contains("あなたの指示で指しました"),
                        "{}",
                        mail.text
                    );
                    assert!(
                        mail.text.contains("パスするしかありませんでした"),
                        "{}",
                        mail.text
                    );
                    assert!(line.contains("あなたの指示で2手"), "{line}");
                }
            }
        }
    }

    #[test]
    fn every_mail_is_written_in_both_languages_with_its_unsubscribe_links() {
        let me = Uuid::now_v7();
        let info = game(me);
        let links = links();
        let deadline = "2026-12-01T12:00:00Z";
        let now: DateTime<Utc> = "2026-12-01T07:00:00Z".parse().unwrap();
        for kind in NoticeKind::ALL {
            let data = json!({"deadline": deadline, "inviter": "anna", "player": "deleted-player-3", "policy": "forfeit",
                "name": "Winter cup", "round": 2, "rounds": 3, "players": 9, "round_deadline": deadline,
                "position": 4, "points": 6, "podium": [{"name": "anna", "points": 12}],
                "tournament_link": "https://k.example/tournaments/7"});
            for language in Language::ALL {
                let zone: Tz = "Asia/Tokyo".parse().unwrap();
                let ctx = NoticeContext {
                    recipient_id: me,
                    recipient_name: "bert",
                    kind,
                    data: &data,
                    game_id: Some(info.id),
                    game: Some(&info),
                    game_link: Some("https://k.example/games/1".into()),
                    links: &links,
                    now,
                    language,
                    zone,
                };
                let mail = notice(&ctx);
                for part in [&mail.text, &mail.html] {
                    assert!(
                        part.contains(&links.unsubscribe),
                        "{kind:?} {language:?}: {part}"
                    );
                    assert!(
                        part.contains(&links.unsubscribe_all),
                        "{kind:?} {language:?}"
                    );
                    assert!(part.contains("https://k.example/games/1"));
                }
                assert!(
                    mail.html
                        .contains(&format!("lang=\"{}\"", language.as_str()))
                );
                match language {
                    Language::En => {
                        assert!(!has_japanese(&mail.subject), "{}", mail.subject);
                        assert!(!has_japanese(&mail.text), "{}", mail.text);
                        assert!(mail.text.starts_with("Hello bert,"));
                    }
                    Language::Ja => {
                        assert!(has_japanese(&mail.subject), "{kind:?}: {}", mail.subject);
                        assert!(mail.text.starts_with("bertさん"), "{}", mail.text);
                        assert!(
                            mail.subject.contains("さまよえるオランダ人"),
                            "{}",
                            mail.subject
                        );
                    }
                }
                // Deadlines are shown in the recipient's zone (12:00 UTC = 21:00 in Tokyo),
                // which is named.
                if matches!(
                    kind,
                    NoticeKind::TournamentStarted
                        | NoticeKind::TournamentRound
                        | NoticeKind::TournamentFinished
                        | NoticeKind::TournamentCancelled
                ) {
                    assert!(mail.subject.contains("Winter cup"), "{}", mail.subject);
                    assert!(mail.text.contains("https://k.example/tournaments/7"));
                    assert!(mail.html.contains("https://k.example/tournaments/7"));
                }
                if matches!(
                    kind,
                    NoticeKind::YourTurn | NoticeKind::Reminder | NoticeKind::TournamentRound
                ) {
                    assert!(mail.text.contains("21:00"), "{}", mail.text);
                    assert!(mail.text.contains("Asia/Tokyo"), "{}", mail.text);
                }
            }
        }
    }

    #[test]
    fn the_digest_is_written_in_both_languages_in_the_recipients_zone() {
        let data = DigestData {
            date: "2026-12-01".parse().unwrap(),
            waiting: vec![WaitingGame {
                game_id: Uuid::nil(),
                game_kind: "steel-driver".into(),
                opponents: vec!["anna".into(), "carla".into()],
                since: Some("2026-11-30T23:30:00Z".parse().unwrap()),
            }],
            news: vec![NewsItem {
                headline: "news".into(),
                game_id: None,
            }],
        };
        let links = links();
        let link = |id: Uuid| format!("https://k.example/games/{id}");
        let berlin: Tz = "Europe/Berlin".parse().unwrap();
        let en = digest(
            "bert",
            &data,
            &link,
            &links,
            Locale {
                language: Language::En,
                zone: berlin,
            },
        );
        assert_eq!(en.subject, "Kontor: 1 game is waiting for you");
        assert!(
            en.html.contains("Tue, 1 Dec 2026 00:30 Europe/Berlin"),
            "{}",
            en.text
        );
        assert!(en.text.contains("anna and carla"));
        let ja = digest(
            "bert",
            &data,
            &link,
            &links,
            Locale {
                language: Language::Ja,
                zone: berlin,
            },
        );
        assert!(has_japanese(&ja.subject), "{}", ja.subject);
        assert!(ja.text.contains("スチールドライバー"), "{}", ja.text);
        assert!(
            ja.text
                .contains("2026年12月1日（火）00:30（Europe/Berlin）"),
            "{}",
            ja.text
        );
        assert!(ja.text.contains("anna、carla"));
        for mail in [&en, &ja] {
            assert!(mail.text.contains(&links.unsubscribe));
            assert!(mail.html.contains(&links.unsubscribe_all));
        }
    }
}
