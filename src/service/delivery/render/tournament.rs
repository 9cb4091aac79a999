//! The variables of the tournament mails ("the tournament has started", "your next round is
//! seated", "the final standings", "the tournament is cancelled"; their sentences are the
//! catalogue's `tournaments.ftl`). Their data is described at
//! [`Notice::tournament_round`](crate::service::notices::Notice::tournament_round),
//! [`Notice::tournament_finished`](crate::service::notices::Notice::tournament_finished) and
//! [`Notice::tournament_cancelled`](crate::service::notices::Notice::tournament_cancelled); delivery
//! adds `tournament_link`.

use super::document::{Block, Span};
use super::{NoticeContext, int_field, str_field, time_field};
use crate::key;
use crate::words::catalogue::{Args, say};
use crate::words::language::Language;
use crate::words::phrases::{from_now, when};
use serde_json::Value;

/// `args` with the tournament's variables added.
pub(super) fn args(args: Args, ctx: &NoticeContext) -> Args {
    let data = ctx.data;
    let round = int_field(data, "round").unwrap_or(1);
    let position = int_field(data, "position");
    let points = int_field(data, "points");
    let deadline = time_field(data, "round_deadline");
    let podium = data["podium"].as_array().is_some_and(|p| !p.is_empty());
    args.text("name", str_field(data, "name").unwrap_or("?"))
        .number("round", round)
        .number("previous_round", round - 1)
        .number("rounds", int_field(data, "rounds").unwrap_or(round))
        .number("players", int_field(data, "players").unwrap_or(0))
        .flag("standing", position.is_some() && points.is_some())
        .flag(
            "placed",
            position.is_some() && int_field(data, "players").is_some(),
        )
        .maybe_number("position", position)
        .maybe_number("points", points)
        .number("seats", int_field(data, "seats_per_table").unwrap_or(3))
        .flag("organiser", data["organiser"].as_bool() == Some(true))
        .flag("withdrawn", data["withdrawn"].as_bool() == Some(true))
        .flag("podium", podium)
        .maybe_text(
            "round_deadline",
            deadline.map(|at| when(at, ctx.zone, ctx.language)),
        )
        .maybe_text(
            "round_deadline_in",
            deadline.map(|at| from_now(at, ctx.now, ctx.language)),
        )
        .maybe_text("tournament_link", str_field(data, "tournament_link"))
}

/// The first places of the final standings, as a list.
pub(super) fn podium(data: &Value, language: Language) -> Vec<Block> {
    let Some(podium) = data["podium"].as_array().filter(|p| !p.is_empty()) else {
        return Vec::new();
    };
    vec![Block::List(
        podium
            .iter()
            .enumerate()
            .map(|(index, line)| {
                let args = Args::new()
                    .number("place", index as i64 + 1)
                    .text("name", line["name"].as_str().unwrap_or("?"))
                    .number("points", line["points"].as_i64().unwrap_or(0));
                vec![Span::Text(say(language, key!("podium-line"), &args))]
            })
            .collect(),
    )]
}
