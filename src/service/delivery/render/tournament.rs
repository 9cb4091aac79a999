//! The tournament mails: "the tournament has started", "your next round is seated", "the
//! final standings" and "the tournament is cancelled", in English and Japanese. Their data is
//! described at [`Notice::tournament_round`](crate::service::notices::Notice::tournament_round),
//! [`Notice::tournament_finished`](crate::service::notices::Notice::tournament_finished) and
//! [`Notice::tournament_cancelled`](crate::service::notices::Notice::tournament_cancelled); delivery
//! adds `tournament_link`.

use super::{
    Block, NoticeContext, b, from_now, from_now_ja, int_field, link, ordinal, str_field, t, when,
};
use crate::service::notices::NoticeKind;
use crate::words::language::Language;
use chrono::{DateTime, Utc};
use serde_json::Value;

fn name(ctx: &NoticeContext) -> String {
    str_field(ctx.data, "name").unwrap_or("?").to_string()
}

fn round_deadline(data: &Value) -> Option<DateTime<Utc>> {
    str_field(data, "round_deadline")
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|d| d.with_timezone(&Utc))
}

/// The subject of a tournament mail.
pub(super) fn headline(ctx: &NoticeContext, game: &str) -> String {
    let name = name(ctx);
    let round = int_field(ctx.data, "round").unwrap_or(1);
    let placed = int_field(ctx.data, "position").zip(int_field(ctx.data, "players"));
    match (ctx.language, ctx.kind) {
        (Language::En, NoticeKind::TournamentStarted) => {
            format!("The tournament \u{201c}{name}\u{201d} of {game} has started")
        }
        (Language::En, NoticeKind::TournamentRound) => {
            format!("Round {round} of \u{201c}{name}\u{201d}: your table of {game} is seated")
        }
        (Language::En, NoticeKind::TournamentCancelled) => {
            format!("The tournament \u{201c}{name}\u{201d} of {game} is cancelled: too few entered")
        }
        (Language::En, _) => match placed {
            Some((position, players)) => format!(
                "\u{201c}{name}\u{201d} ({game}) is over: you placed {} of {players}",
                ordinal(position as u64)
            ),
            None => format!("\u{201c}{name}\u{201d} ({game}) is over"),
        },
        (Language::Ja, NoticeKind::TournamentStarted) => {
            format!("トーナメント「{name}」（{game}）が始まりました")
        }
        (Language::Ja, NoticeKind::TournamentRound) => {
            format!("トーナメント「{name}」（{game}）の第{round}ラウンドの卓が決まりました")
        }
        (Language::Ja, NoticeKind::TournamentCancelled) => {
            format!("トーナメント「{name}」（{game}）は参加者が足りず中止になりました")
        }
        (Language::Ja, _) => match placed {
            Some((position, players)) => {
                format!("トーナメント「{name}」（{game}）が終わりました: {players}人中{position}位")
            }
            None => format!("トーナメント「{name}」（{game}）が終わりました"),
        },
    }
}

/// The body of a tournament mail (before the game's button and the footer).
pub(super) fn blocks(ctx: &NoticeContext, game: &str, with: &str) -> Vec<Block> {
    match ctx.language {
        Language::En => blocks_en(ctx, game, with),
        Language::Ja => blocks_ja(ctx, game, with),
    }
}

fn blocks_en(ctx: &NoticeContext, game: &str, with: &str) -> Vec<Block> {
    let en = Language::En;
    let name = name(ctx);
    let round = int_field(ctx.data, "round").unwrap_or(1);
    let rounds = int_field(ctx.data, "rounds").unwrap_or(round);
    let players = int_field(ctx.data, "players").unwrap_or(0);
    let mut blocks = Vec::new();
    match ctx.kind {
        NoticeKind::TournamentStarted => {
            blocks.push(Block::Para(vec![
                t("the tournament "),
                b(&name),
                t(format!(" has started: {rounds} rounds of ")),
                b(game),
                t(format!(" among {players} players.")),
            ]));
            blocks.push(Block::Para(vec![
                t("Your first-round game is seated: "),
                b(game),
                t(format!("{with}.")),
            ]));
        }
        NoticeKind::TournamentRound => {
            blocks.push(Block::Para(vec![
                t(format!("round {round} of {rounds} of ")),
                b(&name),
                t(" is seated. You play "),
                b(game),
                t(format!("{with}.")),
            ]));
            if let (Some(position), Some(points)) = (
                int_field(ctx.data, "position"),
                int_field(ctx.data, "points"),
            ) {
                blocks.push(Block::Para(vec![t(format!(
                    "After round {} you stand {} of {players} with {points} points.",
                    round - 1,
                    ordinal(position as u64)
                ))]));
            }
        }
        NoticeKind::TournamentCancelled => {
            let seats = int_field(ctx.data, "seats_per_table").unwrap_or(3);
            blocks.push(Block::Para(vec![
                t("the tournament "),
                b(&name),
                t(" of "),
                b(game),
                t(format!(
                    " is cancelled: when entry closed, {players} had entered, and a table \
                     needs {seats}. No game was created."
                )),
            ]));
            if ctx.data["organiser"].as_bool() == Some(true) {
                blocks.push(Block::Para(vec![t(
                    "You organised it: a new tournament with a longer entry window may \
                     gather more players.",
                )]));
            }
        }
        _ => {
            blocks.push(Block::Para(vec![
                b(&name),
                t(format!(" is over after {rounds} rounds.")),
            ]));
            if let (Some(position), Some(points)) = (
                int_field(ctx.data, "position"),
                int_field(ctx.data, "points"),
            ) {
                blocks.push(Block::Para(vec![
                    t("You placed "),
                    b(ordinal(position as u64)),
                    t(format!(" of {players} with {points} points.")),
                ]));
            }
            if ctx.data["withdrawn"].as_bool() == Some(true) {
                blocks.push(Block::Para(vec![t(
                    "You withdrew: your place counts the points of the rounds you played.",
                )]));
            }
            push_podium(
                &mut blocks,
                ctx.data,
                "The top of the final standings:",
                |p| format!("{p} points"),
            );
        }
    }
    if matches!(
        ctx.kind,
        NoticeKind::TournamentStarted | NoticeKind::TournamentRound
    ) && let Some(at) = round_deadline(ctx.data)
    {
        blocks.push(Block::Para(vec![
            t("The round ends when all its games are over, or at "),
            b(when(at, ctx.zone, en)),
            t(format!(
                " ({}): a game still running then goes on but no longer counts.",
                from_now(at, ctx.now)
            )),
        ]));
    }
    if let Some(url) = str_field(ctx.data, "tournament_link") {
        blocks.push(Block::Para(vec![
            t("Standings and every table: "),
            link("the tournament's page", url),
            t("."),
        ]));
    }
    blocks
}

fn blocks_ja(ctx: &NoticeContext, game: &str, with: &str) -> Vec<Block> {
    let ja = Language::Ja;
    let name = name(ctx);
    let round = int_field(ctx.data, "round").unwrap_or(1);
    let rounds = int_field(ctx.data, "rounds").unwrap_or(round);
    let players = int_field(ctx.data, "players").unwrap_or(0);
    let mut blocks = Vec::new();
    match ctx.kind {
        NoticeKind::TournamentStarted => {
            blocks.push(Block::Para(vec![
                t("トーナメント「"),
                b(&name),
                t("」が始まりました（"),
                b(game),
                t(format!("、全{rounds}ラウンド、{players}人参加）。")),
            ]));
            blocks.push(Block::Para(vec![
                t("第1ラウンドのあなたのゲーム: "),
                b(game),
                t(format!("{with}。")),
            ]));
        }
        NoticeKind::TournamentRound => {
            blocks.push(Block::Para(vec![
                t("トーナメント「"),
                b(&name),
                t(format!("」の第{round}ラウンド（全{rounds}ラウンド）の卓が決まりました。あなたのゲーム: ")),
                b(game),
                t(format!("{with}。")),
            ]));
            if let (Some(position), Some(points)) = (
                int_field(ctx.data, "position"),
                int_field(ctx.data, "points"),
            ) {
                blocks.push(Block::Para(vec![t(format!(
                    "第{}ラウンドを終えて、あなたは{players}人中{position}位（{points}点）です。",
                    round - 1
                ))]));
            }
        }
        NoticeKind::TournamentCancelled => {
            let seats = int_field(ctx.data, "seats_per_table").unwrap_or(3);
            blocks.push(Block::Para(vec![
                t("トーナメント「"),
                b(&name),
                t("」（"),
                b(game),
                t(format!(
                    "）は中止になりました。参加受付の締切までに{players}人が参加しましたが、\
                     1卓には{seats}人が必要です。ゲームは作られていません。"
                )),
            ]));
            if ctx.data["organiser"].as_bool() == Some(true) {
                blocks.push(Block::Para(vec![t(
                    "あなたが主催したトーナメントです。参加受付の期間を長くして新しく開くと、より多くのプレイヤーが集まるかもしれません。",
                )]));
            }
        }
        _ => {
            blocks.push(Block::Para(vec![
                t("トーナメント「"),
                b(&name),
                t(format!("」が全{rounds}ラウンドを終えました。")),
            ]));
            if let (Some(position), Some(points)) = (
                int_field(ctx.data, "position"),
                int_field(ctx.data, "points"),
            ) {
                blocks.push(Block::Para(vec![
                    t(format!("あなたの最終順位は{players}人中")),
                    b(format!("{position}位")),
                    t(format!("（{points}点）です。")),
                ]));
            }
            if ctx.data["withdrawn"].as_bool() == Some(true) {
                blocks.push(Block::Para(vec![t(
                    "あなたは途中で棄権しました。順位は棄権までのラウンドの得点によります。",
                )]));
            }
            push_podium(&mut blocks, ctx.data, "最終順位の上位:", |p| {
                format!("{p}点")
            });
        }
    }
    if matches!(
        ctx.kind,
        NoticeKind::TournamentStarted | NoticeKind::TournamentRound
    ) && let Some(at) = round_deadline(ctx.data)
    {
        blocks.push(Block::Para(vec![
            t("このラウンドは、すべてのゲームが終わるか、"),
            b(when(at, ctx.zone, ja)),
            t(format!(
                "（{}）に終わります。その時点で続いているゲームは続きますが、得点には数えません。",
                from_now_ja(at, ctx.now)
            )),
        ]));
    }
    if let Some(url) = str_field(ctx.data, "tournament_link") {
        blocks.push(Block::Para(vec![
            t("順位表とすべての卓: "),
            link("トーナメントのページ", url),
        ]));
    }
    blocks
}

/// The first places of the final standings, as a list.
fn push_podium(blocks: &mut Vec<Block>, data: &Value, title: &str, points: impl Fn(i64) -> String) {
    let Some(podium) = data["podium"].as_array().filter(|p| !p.is_empty()) else {
        return;
    };
    blocks.push(Block::Para(vec![t(title)]));
    blocks.push(Block::List(
        podium
            .iter()
            .enumerate()
            .map(|(index, line)| {
                vec![t(format!(
                    "{}. {} — {}",
                    index + 1,
                    line["name"].as_str().unwrap_or("?"),
                    points(line["points"].as_i64().unwrap_or(0))
                ))]
            })
            .collect(),
    ));
}
