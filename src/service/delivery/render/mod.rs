//! The content of the mails: a subject, and one document rendered both as plain text and as
//! HTML (sent together as multipart/alternative). Rendering never fails: a field missing from
//! a notice's data gives a plainer sentence, not an error.

use crate::service::notices::NoticeKind;
use crate::service::notices::digest::DigestData;
use crate::words::language::Language;
use chrono::{DateTime, Datelike, Utc};
use chrono_tz::Tz;
use serde_json::Value;
use std::fmt::Write;
use uuid::Uuid;

pub mod account;
#[cfg(test)]
mod golden;
mod tournament;

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

// ---------------------------------------------------------------------------------------
// A tiny document model, rendered twice (the account's own mails use it too).

pub(super) enum Span {
    Text(String),
    Strong(String),
    Link { label: String, url: String },
}

pub(super) enum Block {
    Para(Vec<Span>),
    List(Vec<Vec<Span>>),
    /// A prominent link ("Open the game").
    Action {
        label: String,
        url: String,
    },
    /// Someone else's words, quoted as plain text (`> ` lines; a `<blockquote>` in HTML,
    /// escaped, line breaks kept).
    Quote(String),
    /// The small print at the end.
    Footer(Vec<Span>),
}

pub(super) fn t(text: impl Into<String>) -> Span {
    Span::Text(text.into())
}

fn b(text: impl Into<String>) -> Span {
    Span::Strong(text.into())
}

pub(super) fn link(label: impl Into<String>, url: impl Into<String>) -> Span {
    Span::Link {
        label: label.into(),
        url: url.into(),
    }
}

pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn spans_text(spans: &[Span]) -> String {
    let mut out = String::new();
    for span in spans {
        match span {
            Span::Text(s) | Span::Strong(s) => out.push_str(s),
            Span::Link { label, url } if label == url => out.push_str(url),
            Span::Link { label, url } => {
                let _ = write!(out, "{label} <{url}>");
            }
        }
    }
    out
}

fn spans_html(spans: &[Span]) -> String {
    let mut out = String::new();
    for span in spans {
        match span {
            Span::Text(s) => out.push_str(&escape_html(s)),
            Span::Strong(s) => {
                let _ = write!(out, "<strong>{}</strong>", escape_html(s));
            }
            Span::Link { label, url } => {
                let _ = write!(
                    out,
                    "<a href=\"{}\">{}</a>",
                    escape_html(url),
                    escape_html(label)
                );
            }
        }
    }
    out
}

/// Wraps English words at 76 characters; a word longer than that (a link) keeps its own
/// line. Japanese is not wrapped: it has no spaces to break at (a break at the spaces around
/// a Latin word would cut a sentence in odd places), and mail clients wrap it as they show it.
fn wrap(text: &str, indent: &str, language: Language) -> String {
    let width = match language {
        Language::En => 76 - indent.len(),
        Language::Ja => usize::MAX,
    };
    let length = |s: &str| s.chars().count();
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        if !line.is_empty() && length(&line) + 1 + length(word) > width {
            let _ = writeln!(out, "{indent}{line}");
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        let _ = writeln!(out, "{indent}{line}");
    }
    out
}

pub(super) fn to_text(blocks: &[Block], language: Language) -> String {
    let mut out = String::new();
    for block in blocks {
        match block {
            Block::Para(spans) => out.push_str(&wrap(&spans_text(spans), "", language)),
            Block::List(items) => {
                for item in items {
                    let wrapped = wrap(&spans_text(item), "    ", language);
                    out.push_str("  - ");
                    out.push_str(wrapped.trim_start());
                }
            }
            Block::Action { label, url } => {
                let _ = writeln!(out, "{label}:\n{url}");
            }
            Block::Quote(text) => {
                for line in text.lines() {
                    let wrapped = wrap(line, "> ", language);
                    if wrapped.is_empty() {
                        out.push_str(">\n");
                    } else {
                        out.push_str(&wrapped);
                    }
                }
            }
            Block::Footer(spans) => {
                out.push_str("-- \n");
                out.push_str(&wrap(&spans_text(spans), "", language));
            }
        }
        out.push('\n');
    }
    out.trim_end().to_string() + "\n"
}

pub(super) fn to_html(title: &str, blocks: &[Block], language: Language) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"{}\"><head><meta charset=\"utf-8\"><title>{}</title></head>\n\
         <body style=\"font-family: sans-serif; line-height: 1.5; max-width: 40em; margin: 1em auto; color: #222;\">\n",
        language.as_str(),
        escape_html(title)
    );
    for block in blocks {
        match block {
            Block::Para(spans) => {
                let _ = writeln!(out, "<p>{}</p>", spans_html(spans));
            }
            Block::List(items) => {
                out.push_str("<ul>\n");
                for item in items {
                    let _ = writeln!(out, "<li>{}</li>", spans_html(item));
                }
                out.push_str("</ul>\n");
            }
            Block::Action { label, url } => {
                let _ = writeln!(
                    out,
                    "<p><a href=\"{}\" style=\"display: inline-block; padding: 0.5em 1em; background: #2b5797; color: #fff; text-decoration: none; border-radius: 4px;\">{}</a></p>",
                    escape_html(url),
                    escape_html(label)
                );
            }
            Block::Quote(text) => {
                let lines: Vec<String> = text.lines().map(escape_html).collect();
                let _ = writeln!(
                    out,
                    "<blockquote style=\"margin: 1em 0; padding: 0.5em 1em; border-left: 3px solid #ccc; white-space: pre-wrap;\">{}</blockquote>",
                    lines.join("<br>")
                );
            }
            Block::Footer(spans) => {
                let _ = writeln!(
                    out,
                    "<hr><p style=\"font-size: small; color: #666;\">{}</p>",
                    spans_html(spans)
                );
            }
        }
    }
    out.push_str("</body></html>\n");
    out
}

// ---------------------------------------------------------------------------------------
// Wording helpers

/// `flying-dutchman` → `Flying Dutchman`.
pub fn game_title(kind: &str) -> String {
    let title = kind
        .split(['-', '_'])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|f| f.to_uppercase().collect::<String>() + chars.as_str())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ");
    if title.is_empty() {
        "your game".to_string()
    } else {
        title
    }
}

/// A game's title in `language`: the Japanese editions' names (『さまよえるオランダ人』 is
/// the 2016 Japanese edition of The Flying Dutchman).
pub fn game_title_in(kind: &str, language: Language) -> String {
    match (language, kind) {
        (Language::En, _) => game_title(kind),
        (Language::Ja, "flying-dutchman") => "さまよえるオランダ人".to_string(),
        (Language::Ja, "steel-driver") => "スチールドライバー".to_string(),
        (Language::Ja, "") => "あなたのゲーム".to_string(),
        (Language::Ja, _) => game_title(kind),
    }
}

/// `["a", "b", "c"]` → `a, b and c`.
pub fn names(list: &[String]) -> String {
    match list {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// A list of names in `language` (`a、b、c` in Japanese).
fn names_in(list: &[String], language: Language) -> String {
    match language {
        Language::En => names(list),
        Language::Ja => list.join("、"),
    }
}

fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// An instant as the recipient reads it: in their time zone, which is named.
pub(super) fn when(at: DateTime<Utc>, zone: Tz, language: Language) -> String {
    let local = at.with_timezone(&zone);
    match language {
        Language::En => format!("{} {}", local.format("%a, %-d %b %Y %H:%M"), zone.name()),
        Language::Ja => {
            const DAYS: [&str; 7] = ["月", "火", "水", "木", "金", "土", "日"];
            let day = DAYS[local.weekday().num_days_from_monday() as usize];
            format!(
                "{}（{day}）{}（{}）",
                local.format("%Y年%-m月%-d日"),
                local.format("%H:%M"),
                zone.name()
            )
        }
    }
}

/// "in 5 hours", "in 3 days", "now".
fn from_now(at: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let minutes = (at - now).num_minutes();
    match minutes {
        i64::MIN..=0 => "now".to_string(),
        1..=89 => format!("in {minutes} minute{}", if minutes == 1 { "" } else { "s" }),
        90..=2159 => format!("in {} hours", (minutes + 30) / 60),
        _ => format!("in {} days", (minutes + 720) / 1440),
    }
}

/// The same in Japanese: "5時間後", "3日後", "今".
fn from_now_ja(at: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let minutes = (at - now).num_minutes();
    match minutes {
        i64::MIN..=0 => "今".to_string(),
        1..=89 => format!("{minutes}分後"),
        90..=2159 => format!("{}時間後", (minutes + 30) / 60),
        _ => format!("{}日後", (minutes + 720) / 1440),
    }
}

fn str_field<'a>(data: &'a Value, key: &str) -> Option<&'a str> {
    data.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

fn string_list(data: &Value, key: &str) -> Option<Vec<String>> {
    data.get(key).and_then(Value::as_array).map(|items| {
        items
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    })
}

fn deadline(data: &Value) -> Option<DateTime<Utc>> {
    str_field(data, "deadline")
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|d| d.with_timezone(&Utc))
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

fn result_line(ctx: &NoticeContext, table: &[Standing]) -> Option<String> {
    if let Some(result) = str_field(ctx.data, "result") {
        return Some(result.to_string());
    }
    let you = table.iter().find(|s| s.is_you)?;
    let rank = you.rank?;
    let winners: Vec<String> = table
        .iter()
        .filter(|s| s.rank == Some(1))
        .map(|s| s.name.clone())
        .collect();
    let others: Vec<String> = table
        .iter()
        .filter(|s| s.rank == Some(1) && !s.is_you)
        .map(|s| s.name.clone())
        .collect();
    let language = ctx.language;
    Some(match (language, rank) {
        (Language::En, 1) if winners.len() > 1 => {
            format!("you share the win with {}", names(&others))
        }
        (Language::En, 1) => "you won".to_string(),
        (Language::En, n) => format!(
            "{} won; you finished {} of {}",
            names(&winners),
            ordinal(n),
            table.len()
        ),
        (Language::Ja, 1) if winners.len() > 1 => {
            format!("{}と同点で優勝しました", names_in(&others, language))
        }
        (Language::Ja, 1) => "あなたの勝ちです".to_string(),
        (Language::Ja, n) => format!(
            "{}の勝ち、あなたは{}人中{n}位でした",
            names_in(&winners, language),
            table.len()
        ),
    })
}

fn opponents(ctx: &NoticeContext) -> Vec<String> {
    string_list(ctx.data, "opponents")
        .or_else(|| ctx.game.map(|g| g.others(ctx.recipient_id)))
        .unwrap_or_default()
}

fn game_name(ctx: &NoticeContext) -> String {
    game_title_in(
        str_field(ctx.data, "game_kind")
            .or(ctx.game.map(|g| g.kind.as_str()))
            .unwrap_or(""),
        ctx.language,
    )
}

/// How a person calls a kind of mail, in `language` (English: [`NoticeKind::label`]).
pub fn kind_label(kind: NoticeKind, language: Language) -> &'static str {
    match language {
        Language::En => kind.label(),
        Language::Ja => match kind {
            NoticeKind::YourTurn => "「あなたの番」メール",
            NoticeKind::Reminder => "期限のリマインダー",
            NoticeKind::Invited => "招待のメール",
            NoticeKind::GameStarted => "「ゲーム開始」メール",
            NoticeKind::GameOver => "ゲーム結果のメール",
            NoticeKind::PlayerLeft => "「プレイヤー退出」メール",
            NoticeKind::ChatMention => "チャットのメンション",
            NoticeKind::RematchOffered => "再戦の申し込み",
            NoticeKind::UndoRequested => "手の取り消しの求め",
            NoticeKind::TournamentStarted => "「トーナメント開始」メール",
            NoticeKind::TournamentRound => "「次のラウンド」メール",
            NoticeKind::TournamentFinished => "トーナメントの最終順位",
            NoticeKind::TournamentCancelled => "「トーナメント中止」メール",
        },
    }
}

/// The subject of a notice; also its one-line summary in the digest.
pub fn headline(ctx: &NoticeContext) -> String {
    let game = game_name(ctx);
    let others = opponents(ctx);
    if ctx.language == Language::Ja {
        let with = if others.is_empty() {
            String::new()
        } else {
            format!("（{}と対戦）", names_in(&others, Language::Ja))
        };
        return match ctx.kind {
            NoticeKind::YourTurn => format!("{game}{with}であなたの番です"),
            NoticeKind::Reminder => match deadline(ctx.data) {
                Some(at) => format!(
                    "リマインダー: {game}の手番の期限は{}です",
                    from_now_ja(at, ctx.now)
                ),
                None => format!("リマインダー: {game}があなたの手を待っています"),
            },
            NoticeKind::Invited => match str_field(ctx.data, "inviter") {
                Some(inviter) => format!("{inviter}さんから{game}に招待されました"),
                None => format!("{game}に招待されました"),
            },
            NoticeKind::GameStarted => format!("{game}{with}が始まりました"),
            NoticeKind::GameOver => match result_line(ctx, &standings(ctx)) {
                Some(result) => format!("{game}が終わりました: {result}"),
                None => format!("{game}{with}が終わりました"),
            },
            NoticeKind::PlayerLeft => match str_field(ctx.data, "player") {
                Some(player) => format!("{player}が{game}から退出しました"),
                None => format!("{game}からプレイヤーが退出しました"),
            },
            NoticeKind::RematchOffered => {
                format!("{}が{game}の再戦を申し込みました", rematch_by(ctx))
            }
            NoticeKind::UndoRequested => {
                format!("{}が{game}で手の取り消しを求めています", undo_by(ctx))
            }
            NoticeKind::TournamentStarted
            | NoticeKind::TournamentRound
            | NoticeKind::TournamentFinished
            | NoticeKind::TournamentCancelled => tournament::headline(ctx, &game),
            NoticeKind::ChatMention => format!(
                "{}が{game}の{}であなたをメンションしました",
                mention_author(ctx),
                channel_phrase(ctx.data, Language::Ja)
            ),
        };
    }
    let with = if others.is_empty() {
        String::new()
    } else {
        format!(" with {}", names(&others))
    };
    match ctx.kind {
        NoticeKind::YourTurn => format!("Your turn in {game}{with}"),
        NoticeKind::Reminder => match deadline(ctx.data) {
            Some(at) => format!(
                "Reminder: your move in {game} is due {}",
                from_now(at, ctx.now)
            ),
            None => format!("Reminder: {game} is waiting for your move"),
        },
        NoticeKind::Invited => match str_field(ctx.data, "inviter") {
            Some(inviter) => format!("{inviter} invited you to play {game}"),
            None => format!("You are invited to play {game}"),
        },
        NoticeKind::GameStarted => format!("{game}{with} has started"),
        NoticeKind::GameOver => match result_line(ctx, &standings(ctx)) {
            Some(result) => format!("{game} is over: {result}"),
            None => format!("{game}{with} is over"),
        },
        NoticeKind::PlayerLeft => match str_field(ctx.data, "player") {
            Some(player) => format!("{player} left {game}"),
            None => format!("A player left {game}"),
        },
        NoticeKind::RematchOffered => format!("{} offers a rematch of {game}", rematch_by(ctx)),
        NoticeKind::UndoRequested => {
            format!("{} asks to take back moves in {game}", undo_by(ctx))
        }
        NoticeKind::TournamentStarted
        | NoticeKind::TournamentRound
        | NoticeKind::TournamentFinished
        | NoticeKind::TournamentCancelled => tournament::headline(ctx, &game),
        NoticeKind::ChatMention => format!(
            "{} mentioned you {} in {game}",
            mention_author(ctx),
            channel_phrase(ctx.data, Language::En)
        ),
    }
}

/// Who offered a rematch, as the seat shows them.
fn rematch_by(ctx: &NoticeContext) -> String {
    match (str_field(ctx.data, "offered_by"), ctx.language) {
        (Some(by), _) => by.to_string(),
        (None, Language::En) => "A player".to_string(),
        (None, Language::Ja) => "プレイヤー".to_string(),
    }
}

/// Who asks to take moves back, as the seat shows them.
fn undo_by(ctx: &NoticeContext) -> String {
    match (str_field(ctx.data, "by"), ctx.language) {
        (Some(by), _) => by.to_string(),
        (None, Language::En) => "A player".to_string(),
        (None, Language::Ja) => "プレイヤー".to_string(),
    }
}

/// A whole number of the data, if it has one.
fn int_field(data: &Value, key: &str) -> Option<i64> {
    data.get(key).and_then(Value::as_i64)
}

/// Until when a rematch offer takes answers.
fn rematch_until(data: &Value) -> Option<DateTime<Utc>> {
    str_field(data, "expires_at")
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|d| d.with_timezone(&Utc))
}

/// Who wrote the message a mention mail is about, as the seat shows them.
fn mention_author(ctx: &NoticeContext) -> String {
    match (str_field(ctx.data, "author"), ctx.language) {
        (Some(author), _) => author.to_string(),
        (None, Language::En) => "A player".to_string(),
        (None, Language::Ja) => "プレイヤー".to_string(),
    }
}

/// Where a mention was written: "at the table", "privately", "in the spectators' chat" (in
/// Japanese the noun the headline and body attach「で」or「の」to).
fn channel_phrase(data: &Value, language: Language) -> &'static str {
    let channel = str_field(data, "channel").unwrap_or("table");
    match (language, channel) {
        (Language::En, "spectators") => "in the spectators' chat",
        (Language::En, c) if c.starts_with("private:") => "privately",
        (Language::En, _) => "at the table",
        (Language::Ja, "spectators") => "観戦者チャット",
        (Language::Ja, c) if c.starts_with("private:") => "プライベートチャット",
        (Language::Ja, _) => "テーブルのチャット",
    }
}

/// The time a mentioning message was written (`at`), if the data has one.
fn mention_at(data: &Value) -> Option<DateTime<Utc>> {
    str_field(data, "at")
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|d| d.with_timezone(&Utc))
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
    match (ctx.kind, str_field(ctx.data, "text")) {
        (NoticeKind::ChatMention, Some(text)) => match ctx.language {
            Language::En => format!("{headline}: \u{201c}{}\u{201d}", excerpt(text, 140)),
            Language::Ja => format!("{headline}:「{}」", excerpt(text, 140)),
        },
        _ => headline,
    }
}

/// The small print: why the mail came, and the one-click unsubscribe links.
fn footer(reason: String, links: &Links, what: &str, language: Language) -> Block {
    match language {
        Language::En => Block::Footer(vec![
            t(format!("{reason} ")),
            link(format!("Unsubscribe from {what}"), &links.unsubscribe),
            t(" (one click, no login needed) or "),
            link("from all mail from Kontor", &links.unsubscribe_all),
            t(". "),
            link("Choose what mail you get", &links.preferences),
            t("."),
        ]),
        Language::Ja => Block::Footer(vec![
            t(reason),
            link(format!("{what}の配信を停止する"), &links.unsubscribe),
            t("（ワンクリック、ログイン不要）か、"),
            link(
                "Kontorからのすべてのメールを停止する",
                &links.unsubscribe_all,
            ),
            t("ことができます。"),
            link("受け取るメールを選ぶ", &links.preferences),
        ]),
    }
}

/// The body of a notice in Japanese (after the greeting).
fn notice_blocks_ja(ctx: &NoticeContext, game: &str, others: &[String]) -> Vec<Block> {
    let ja = Language::Ja;
    let with = if others.is_empty() {
        String::new()
    } else {
        format!("（{}と対戦）", names_in(others, ja))
    };
    let mut blocks = Vec::new();
    match ctx.kind {
        NoticeKind::TournamentStarted
        | NoticeKind::TournamentRound
        | NoticeKind::TournamentFinished
        | NoticeKind::TournamentCancelled => blocks.extend(tournament::blocks(ctx, game, &with)),
        NoticeKind::YourTurn => {
            blocks.push(Block::Para(vec![
                b(game),
                t(format!("{with}であなたの番です。")),
            ]));
            if let Some(at) = deadline(ctx.data) {
                blocks.push(Block::Para(vec![
                    b(when(at, ctx.zone, ja)),
                    t(format!(
                        "（{}）までに手を指してください。",
                        from_now_ja(at, ctx.now)
                    )),
                ]));
            }
        }
        NoticeKind::Reminder => {
            let mut spans = vec![b(game), t(format!("{with}のあなたの手番は、"))];
            match deadline(ctx.data) {
                Some(at) => {
                    spans.push(b(when(at, ctx.zone, ja)));
                    spans.push(t(format!(
                        "（{}）が期限です。過ぎるとゲームの時間切れのルールが適用されます。",
                        from_now_ja(at, ctx.now)
                    )));
                }
                None => spans.push(t("まだあなたを待っています。")),
            }
            blocks.push(Block::Para(spans));
        }
        NoticeKind::Invited => {
            let inviter = str_field(ctx.data, "inviter").unwrap_or("ほかのプレイヤー");
            blocks.push(Block::Para(vec![
                b(inviter),
                t("さんから"),
                b(game),
                t("に招待されました。"),
            ]));
            let seated = ctx
                .game
                .map(|g| g.others(ctx.recipient_id))
                .unwrap_or_default();
            if !seated.is_empty() {
                blocks.push(Block::Para(vec![t(format!(
                    "着席済み: {}",
                    names_in(&seated, ja)
                ))]));
            }
            if ctx.game_id.is_some() {
                blocks.push(Block::Para(vec![t(
                    "席が空いているうちに、ゲームのページから参加してください。",
                )]));
            }
        }
        NoticeKind::GameStarted => {
            blocks.push(Block::Para(vec![
                b(game),
                t(format!("{with}のゲームが始まりました。")),
            ]));
        }
        NoticeKind::GameOver => {
            let table = standings(ctx);
            let mut spans = vec![b(game), t(format!("{with}のゲームが終わりました"))];
            match result_line(ctx, &table) {
                Some(result) => spans.push(t(format!("。{result}。"))),
                None => spans.push(t("。")),
            }
            blocks.push(Block::Para(spans));
            if !table.is_empty() {
                blocks.push(Block::Para(vec![t("最終順位:")]));
                blocks.push(Block::List(
                    table
                        .iter()
                        .map(|s| {
                            let mut line = String::new();
                            if let Some(rank) = s.rank {
                                let _ = write!(line, "{rank}位 ");
                            }
                            line.push_str(&s.name);
                            if s.is_you {
                                line.push_str("（あなた）");
                            }
                            if let Some(score) = s.score {
                                let _ = write!(line, ": {score}");
                            }
                            vec![t(line)]
                        })
                        .collect(),
                ));
            }
            if ctx.game_id.is_some() {
                blocks.push(Block::Para(vec![t(
                    "ゲームのシードが公開されました。すべてのシャッフルとダイスを誰でも\
                     ゲームのページで検証できます。",
                )]));
            }
        }
        NoticeKind::PlayerLeft => {
            let player = str_field(ctx.data, "player").unwrap_or("ほかのプレイヤー");
            blocks.push(Block::Para(vec![
                b(player),
                t("がアカウントを削除し、"),
                b(game),
                t("のゲームから退出しました。"),
            ]));
            blocks.push(Block::Para(vec![t(
                if str_field(ctx.data, "policy") == Some("forfeit") {
                    "放棄された席のルールにより、この席は棄権となります。ボットが最後までプレイし、\
                     順位は最下位です。ゲームは続きます。"
                } else {
                    "放棄された席のルールにより、これからはボットがこの席をプレイします。\
                     ゲームは続きます。"
                },
            )]));
        }
        NoticeKind::RematchOffered => {
            blocks.push(Block::Para(vec![
                b(rematch_by(ctx)),
                t("が"),
                b(game),
                t(format!("{with}の再戦を申し込みました。")),
            ]));
            let mut spans = vec![t(
                "ゲームのページで受けるか断ってください。全員が受けると、席を一つずつずらして新しいゲームが始まります",
            )];
            if let Some(at) = rematch_until(ctx.data) {
                spans.push(t(format!("（回答の期限: {}）", when(at, ctx.zone, ja))));
            }
            spans.push(t("。"));
            blocks.push(Block::Para(spans));
        }
        NoticeKind::UndoRequested => {
            let mut spans = vec![b(undo_by(ctx)), t("が"), b(game), t(with.clone())];
            match int_field(ctx.data, "moves") {
                Some(moves) => spans.push(t(format!("の直近{moves}手"))),
                None => spans.push(t("の直近の手")),
            }
            match int_field(ctx.data, "yours") {
                Some(yours) if yours > 0 => spans.push(t(format!("（うち{yours}手はあなたの手）"))),
                _ => {}
            }
            spans.push(t("の取り消しを求めています。"));
            if let Some(to) = int_field(ctx.data, "to_version") {
                spans.push(t(format!("ゲームはバージョン{to}の状態に戻ります。")));
            }
            blocks.push(Block::Para(spans));
            let mut spans = vec![t("あなたの同意が必要です。")];
            match deadline(ctx.data) {
                Some(at) => {
                    spans.push(b(when(at, ctx.zone, ja)));
                    spans.push(t(format!(
                        "（{}）までに、ゲームのページで同意するか断ってください。",
                        from_now_ja(at, ctx.now)
                    )));
                }
                None => spans.push(t("ゲームのページで同意するか断ってください。")),
            }
            blocks.push(Block::Para(spans));
            blocks.push(Block::Para(vec![t(
                "一人でも断ると、手は取り消されません。期限までに全員が答えないか、その前に誰かが手を指すと、この求めは失効します。",
            )]));
        }
        NoticeKind::ChatMention => {
            blocks.push(Block::Para(vec![
                b(mention_author(ctx)),
                t("が"),
                b(game),
                t(format!(
                    "{with}の{}であなたをメンションしました:",
                    channel_phrase(ctx.data, ja)
                )),
            ]));
            blocks.push(Block::Quote(
                ctx.data
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
            ));
            if let Some(at) = mention_at(ctx.data) {
                blocks.push(Block::Para(vec![t(format!(
                    "{}に書かれました。",
                    when(at, ctx.zone, ja)
                ))]));
            }
            if str_field(ctx.data, "channel").is_some_and(|c| c.starts_with("private:")) {
                blocks.push(Block::Para(vec![t(
                    "プライベートチャットは、その二人の席だけが読めます。",
                )]));
            }
            blocks.push(Block::Para(vec![t(
                "返信するには、ゲームのページでチャットを開いてください。",
            )]));
        }
    }
    blocks
}

/// The body of a notice in English (after the greeting).
fn notice_blocks_en(ctx: &NoticeContext, game: &str, others: &[String]) -> Vec<Block> {
    let en = Language::En;
    let with = if others.is_empty() {
        String::new()
    } else {
        format!(" with {}", names(others))
    };
    let mut blocks = Vec::new();
    match ctx.kind {
        NoticeKind::TournamentStarted
        | NoticeKind::TournamentRound
        | NoticeKind::TournamentFinished
        | NoticeKind::TournamentCancelled => blocks.extend(tournament::blocks(ctx, game, &with)),
        NoticeKind::YourTurn => {
            blocks.push(Block::Para(vec![
                t("it is your turn in "),
                b(game),
                t(format!("{with}.")),
            ]));
            if let Some(at) = deadline(ctx.data) {
                blocks.push(Block::Para(vec![
                    t("Please move by "),
                    b(when(at, ctx.zone, en)),
                    t(format!(" ({}).", from_now(at, ctx.now))),
                ]));
            }
        }
        NoticeKind::Reminder => {
            let mut spans = vec![t("your move in "), b(game), t(format!("{with} "))];
            match deadline(ctx.data) {
                Some(at) => {
                    spans.push(t("is due by "));
                    spans.push(b(when(at, ctx.zone, en)));
                    spans.push(t(format!(
                        " ({}). After that the game's time-out rule applies.",
                        from_now(at, ctx.now)
                    )));
                }
                None => spans.push(t("is still waiting.")),
            }
            blocks.push(Block::Para(spans));
        }
        NoticeKind::Invited => {
            let inviter = str_field(ctx.data, "inviter").unwrap_or("another player");
            blocks.push(Block::Para(vec![
                b(inviter),
                t(" invited you to play "),
                b(game),
                t("."),
            ]));
            let seated = ctx
                .game
                .map(|g| g.others(ctx.recipient_id))
                .unwrap_or_default();
            if !seated.is_empty() {
                blocks.push(Block::Para(vec![t(format!(
                    "Seated so far: {}.",
                    names(&seated)
                ))]));
            }
            if ctx.game_id.is_some() {
                blocks.push(Block::Para(vec![t(
                    "Join it from the game's page while seats are free.",
                )]));
            }
        }
        NoticeKind::GameStarted => {
            blocks.push(Block::Para(vec![
                t("your game of "),
                b(game),
                t(format!("{with} has started.")),
            ]));
        }
        NoticeKind::GameOver => {
            let table = standings(ctx);
            let mut spans = vec![t("the game of "), b(game), t(format!("{with} is over"))];
            match result_line(ctx, &table) {
                Some(result) => spans.push(t(format!(": {result}."))),
                None => spans.push(t(".")),
            }
            blocks.push(Block::Para(spans));
            if !table.is_empty() {
                blocks.push(Block::Para(vec![t("Final standings:")]));
                blocks.push(Block::List(
                    table
                        .iter()
                        .map(|s| {
                            let mut line = String::new();
                            if let Some(rank) = s.rank {
                                let _ = write!(line, "{}. ", rank);
                            }
                            line.push_str(&s.name);
                            if s.is_you {
                                line.push_str(" (you)");
                            }
                            if let Some(score) = s.score {
                                let _ = write!(line, ": {score}");
                            }
                            vec![t(line)]
                        })
                        .collect(),
                ));
            }
            if ctx.game_id.is_some() {
                blocks.push(Block::Para(vec![t(
                    "The game's seed is now revealed: anyone can verify every shuffle and roll \
                     on the game's page.",
                )]));
            }
        }
        NoticeKind::PlayerLeft => {
            let player = str_field(ctx.data, "player").unwrap_or("another player");
            blocks.push(Block::Para(vec![
                b(player),
                t(" deleted their account and left your game of "),
                b(game),
                t("."),
            ]));
            blocks.push(Block::Para(vec![t(
                if str_field(ctx.data, "policy") == Some("forfeit") {
                    "Under the game's rule for abandoned seats the seat is forfeited: the bot \
                     plays it out and it ranks last. The game goes on."
                } else {
                    "Under the game's rule for abandoned seats the bot plays the seat from now \
                     on. The game goes on."
                },
            )]));
        }
        NoticeKind::RematchOffered => {
            blocks.push(Block::Para(vec![
                b(rematch_by(ctx)),
                t(" offers a rematch of "),
                b(game),
                t(format!("{with}.")),
            ]));
            let mut spans = vec![t(
                "Accept or decline it on the game's page. When everyone accepts, a new game starts with the seats moved round by one",
            )];
            if let Some(at) = rematch_until(ctx.data) {
                spans.push(t(format!(
                    " (answers are taken until {})",
                    when(at, ctx.zone, en)
                )));
            }
            spans.push(t("."));
            blocks.push(Block::Para(spans));
        }
        NoticeKind::UndoRequested => {
            let moves = match int_field(ctx.data, "moves") {
                Some(1) => "the last move".to_string(),
                Some(n) => format!("the last {n} moves"),
                None => "the last moves".to_string(),
            };
            let mut spans = vec![
                b(undo_by(ctx)),
                t(format!(" asks to take back {moves} of ")),
                b(game),
                t(with.clone()),
            ];
            match int_field(ctx.data, "yours") {
                Some(1) => spans.push(t(", one of them yours")),
                Some(n) if n > 1 => spans.push(t(format!(", {n} of them yours"))),
                _ => {}
            }
            match int_field(ctx.data, "to_version") {
                Some(to) => spans.push(t(format!(
                    ": the game would be again as it was at version {to}."
                ))),
                None => spans.push(t(".")),
            }
            blocks.push(Block::Para(spans));
            let mut spans = vec![t(
                "Your consent is needed: accept or decline on the game's page",
            )];
            match deadline(ctx.data) {
                Some(at) => {
                    spans.push(t(" by "));
                    spans.push(b(when(at, ctx.zone, en)));
                    spans.push(t(format!(" ({}).", from_now(at, ctx.now))));
                }
                None => spans.push(t(".")),
            }
            blocks.push(Block::Para(spans));
            blocks.push(Block::Para(vec![t(
                "One decline ends the request and nothing is taken back. Without every answer by then, or if anyone moves meanwhile, it lapses.",
            )]));
        }
        NoticeKind::ChatMention => {
            blocks.push(Block::Para(vec![
                b(mention_author(ctx)),
                t(format!(
                    " mentioned you {} in ",
                    channel_phrase(ctx.data, en)
                )),
                b(game),
                t(format!("{with}:")),
            ]));
            blocks.push(Block::Quote(
                ctx.data
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
            ));
            if let Some(at) = mention_at(ctx.data) {
                blocks.push(Block::Para(vec![t(format!(
                    "Written {}.",
                    when(at, ctx.zone, en)
                ))]));
            }
            if str_field(ctx.data, "channel").is_some_and(|c| c.starts_with("private:")) {
                blocks.push(Block::Para(vec![t(
                    "Only the two of you can read this private channel.",
                )]));
            }
            blocks.push(Block::Para(vec![t(
                "To answer, open the chat on the game's page.",
            )]));
        }
    }
    blocks
}

/// A notice mail, in the recipient's language.
pub fn notice(ctx: &NoticeContext) -> Rendered {
    let subject = headline(ctx);
    let game = game_name(ctx);
    let others = opponents(ctx);
    let language = ctx.language;
    let label = kind_label(ctx.kind, language);
    let mut blocks = match language {
        Language::En => vec![Block::Para(vec![t(format!(
            "Hello {},",
            ctx.recipient_name
        ))])],
        Language::Ja => vec![Block::Para(vec![t(format!(
            "{}さん、こんにちは。",
            ctx.recipient_name
        ))])],
    };
    blocks.extend(match language {
        Language::En => notice_blocks_en(ctx, &game, &others),
        Language::Ja => notice_blocks_ja(ctx, &game, &others),
    });
    if let Some(url) = &ctx.game_link {
        blocks.push(Block::Action {
            label: match language {
                Language::En => "Open the game",
                Language::Ja => "ゲームを開く",
            }
            .to_string(),
            url: url.clone(),
        });
    }
    let reason = match language {
        Language::En => format!(
            "You get this mail because your Kontor preference for {label} is \"immediately\"."
        ),
        Language::Ja => format!(
            "Kontorの{label}の設定が「すぐに送る」(immediately)なので、このメールをお送りしています。"
        ),
    };
    blocks.push(footer(reason, ctx.links, label, language));
    Rendered {
        text: to_text(&blocks, language),
        html: to_html(&subject, &blocks, language),
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
    let ja = language == Language::Ja;
    let waiting = data.waiting.len();
    let subject = match (ja, waiting) {
        (false, 0) => format!("Your Kontor digest for {}", data.date),
        (false, 1) => "Kontor: 1 game is waiting for you".to_string(),
        (false, n) => format!("Kontor: {n} games are waiting for you"),
        (true, 0) => format!(
            "Kontorのダイジェスト（{}）",
            data.date.format("%Y年%-m月%-d日")
        ),
        (true, n) => format!("Kontor: {n}件のゲームがあなたの手を待っています"),
    };
    let greeting = if ja {
        format!("{recipient_name}さん、こんにちは。")
    } else {
        format!("Hello {recipient_name},")
    };
    let mut blocks = vec![Block::Para(vec![t(greeting)])];
    if waiting > 0 {
        blocks.push(Block::Para(vec![t(match (ja, waiting) {
            (false, 1) => "this game is waiting for your move:".to_string(),
            (false, n) => format!("these {n} games are waiting for your move:"),
            (true, n) => format!("次の{n}件のゲームがあなたの手を待っています:"),
        })]));
        blocks.push(Block::List(
            data.waiting
                .iter()
                .map(|g| {
                    let mut spans = vec![b(game_title_in(&g.game_kind, language))];
                    if !g.opponents.is_empty() {
                        spans.push(t(if ja {
                            format!("（{}と対戦）", names_in(&g.opponents, language))
                        } else {
                            format!(" with {}", names(&g.opponents))
                        }));
                    }
                    if let Some(since) = g.since {
                        spans.push(t(if ja {
                            format!("、{}からあなたの番", when(since, zone, language))
                        } else {
                            format!(", your turn since {}", when(since, zone, language))
                        }));
                    }
                    spans.push(t(": "));
                    let url = game_link(g.game_id);
                    spans.push(link(url.clone(), url));
                    spans
                })
                .collect(),
        ));
    } else {
        blocks.push(Block::Para(vec![t(if ja {
            "あなたの手を待っているゲームはありません。"
        } else {
            "no game is waiting for your move."
        })]));
    }
    if !data.news.is_empty() {
        blocks.push(Block::Para(vec![t(if ja {
            "前回のダイジェストから:"
        } else {
            "Since the last digest:"
        })]));
        blocks.push(Block::List(
            data.news
                .iter()
                .map(|item| {
                    let mut spans = vec![t(&item.headline)];
                    if let Some(id) = item.game_id {
                        let url = game_link(id);
                        spans.push(t(": "));
                        spans.push(link(url.clone(), url));
                    }
                    spans
                })
                .collect(),
        ));
    }
    let (reason, what) = if ja {
        (
            "Kontorの通知設定の一部が「ダイジェスト」(digest)なので、このダイジェストをお送りしています。",
            "日次ダイジェスト",
        )
    } else {
        (
            "You get this digest because some of your Kontor notification preferences are \"digest\".",
            "the daily digest",
        )
    };
    blocks.push(footer(reason.to_string(), links, what, language));
    Rendered {
        text: to_text(&blocks, language),
        html: to_html(&subject, &blocks, language),
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
            "Flying Dutchman is over: anna won; you finished 2nd of 3"
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
    fn wording_helpers() {
        assert_eq!(game_title("steel-driver"), "Steel Driver");
        assert_eq!(game_title(""), "your game");
        assert_eq!(names(&["a".into(), "b".into(), "c".into()]), "a, b and c");
        assert_eq!(ordinal(2), "2nd");
        assert_eq!(ordinal(11), "11th");
        assert_eq!(ordinal(23), "23rd");
        let now = Utc::now();
        assert_eq!(
            from_now(now + chrono::Duration::hours(5), now),
            "in 5 hours"
        );
        assert_eq!(from_now(now + chrono::Duration::days(3), now), "in 3 days");
        assert_eq!(from_now(now - chrono::Duration::hours(1), now), "now");
        let wrapped = wrap(&"word ".repeat(40), "", Language::En);
        assert!(wrapped.lines().all(|l| l.len() <= 76));
        assert_eq!(wrapped.lines().count(), 3);
        // Counted in characters, not bytes: "München" fits as often as "Muenchen" would.
        let wrapped = wrap(&"München ".repeat(18), "", Language::En);
        assert_eq!(wrapped.lines().count(), 2, "{wrapped}");
        // Japanese is left for the mail client to wrap, Latin words in it or not.
        let sentence = "Kontor のアカウントのパスワード再設定が依頼されました。".repeat(4);
        assert_eq!(wrap(&sentence, "", Language::Ja), format!("{sentence}\n"));
        assert_eq!(
            from_now_ja(now + chrono::Duration::hours(5), now),
            "5時間後"
        );
        assert_eq!(names_in(&["a".into(), "b".into()], Language::Ja), "a、b");
        assert_eq!(
            game_title_in("flying-dutchman", Language::Ja),
            "さまよえるオランダ人"
        );
        assert_eq!(player_name("anna", Some("Anna K.")), "Anna K. (anna)");
        assert_eq!(player_name("anna", None), "anna");
    }

    /// Whether `text` has Japanese in it (kana or kanji).
    fn has_japanese(text: &str) -> bool {
        text.chars()
            .any(|c| matches!(c, '\u{3040}'..='\u{30ff}' | '\u{4e00}'..='\u{9fff}'))
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
