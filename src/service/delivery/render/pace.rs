//! What the server played for a player on its own while they were away (issue 37), in their
//! turn mail, their "game over" mail and the digest: forced moves ("you had to pass: you
//! cannot outbid 7"), moves their standing orders played, and orders dropped, with the
//! reason. The notice's data carries it as `auto: {"count", "news": [the latest 10]}` (see
//! `service::play::auto::News`); only the seat's own news is ever in its notices.
//!
//! The words are the catalogue's (`src/words/<language>/pace.ftl`); the code here picks the
//! message and its choices: a reason code or command the catalogue has no words for is
//! `other`, said with its raw name.

use super::document::{Block, Span};
use super::{NoticeContext, str_field};
use crate::key;
use crate::words::catalogue::{Args, say};
use crate::words::language::Language;
use serde_json::Value;

/// The news of a notice, if it has any: how many, and the latest.
fn news(data: &Value) -> Option<(u64, &[Value])> {
    let auto = data.get("auto")?;
    let count = auto.get("count")?.as_u64()?;
    let list = auto.get("news")?.as_array()?;
    (count > 0).then_some((count, list.as_slice()))
}

/// The game kind of a notice.
fn kind<'a>(ctx: &'a NoticeContext) -> &'a str {
    ctx.game
        .map(|g| g.kind.as_str())
        .or_else(|| str_field(ctx.data, "game_kind"))
        .unwrap_or("")
}

/// A short summary for the digest's line and the mail's subject: "your orders played 3
/// moves" (or "the server played 2 moves for you" when none was an order's).
pub fn summary(data: &Value, language: Language) -> Option<String> {
    let (count, list) = news(data)?;
    let orders = list.iter().any(|n| n["kind"] == "played");
    let moves = list.iter().filter(|n| n["kind"] != "dropped").count() as u64;
    let moves = if count as usize > list.len() {
        count
    } else {
        moves
    };
    let what = match (moves, orders) {
        (0, _) => "changed",
        (_, true) => "orders",
        (_, false) => "forced",
    };
    let args = Args::new()
        .choice("what", what)
        .number("moves", number(moves));
    Some(say(language, key!("pace-summary"), &args))
}

/// A count as the catalogue's number.
fn number(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The digest's line of a notice with news: its headline and the summary.
pub fn news_line(headline: String, summary: String, language: Language) -> String {
    let args = Args::new()
        .text("headline", headline)
        .text("summary", summary);
    say(language, key!("pace-news-line"), &args)
}

/// The paragraph and list that tell a player what happened (empty without news).
pub(super) fn blocks(ctx: &NoticeContext) -> Vec<Block> {
    let Some((count, list)) = news(ctx.data) else {
        return Vec::new();
    };
    let game = kind(ctx);
    let language = ctx.language;
    let shown = (count as usize > list.len()).then(|| number(list.len() as u64));
    let args = Args::new()
        .number("count", number(count))
        .maybe_number("shown", shown);
    let intro = say(language, key!("pace-intro"), &args);
    let lines: Vec<Vec<Span>> = list
        .iter()
        .map(|n| vec![Span::Text(line(game, n, language))])
        .collect();
    vec![Block::Para(vec![Span::Text(intro)]), Block::List(lines)]
}

/// One piece of news as a sentence.
pub fn line(game: &str, news: &Value, language: Language) -> String {
    let command = news
        .get("command")
        .map(|c| command_text(game, c, language))
        .unwrap_or_default();
    let reason = news
        .get("reason")
        .map(|r| reason_text(r, language))
        .unwrap_or_default();
    let kind = match news["kind"].as_str() {
        Some("forced") => "forced",
        Some("played") => "played",
        _ => "dropped",
    };
    let args = Args::new()
        .choice("kind", kind)
        .text("command", command)
        .text("reason", reason)
        .number("version", news["version"].as_i64().unwrap_or(0));
    say(language, key!("pace-line"), &args)
}

fn param(params: &Value, name: &str) -> String {
    match params.get(name) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => "?".to_string(),
        Some(other) => other.to_string(),
    }
}

/// `args` with each of `names` from `params` as text (`?` where it lacks one).
fn params(mut args: Args, params: &Value, names: &[&'static str]) -> Args {
    for name in names {
        args = args.text(name, param(params, name));
    }
    args
}

/// `value` as one of `known` (the words the catalogue chooses on), else `other`.
fn known(value: &str, known: impl IntoIterator<Item = &'static str>) -> &'static str {
    known.into_iter().find(|k| *k == value).unwrap_or("other")
}

/// Every reason code the catalogue has words for: each game's and the platform's.
fn reason_codes() -> impl Iterator<Item = &'static str> {
    use crate::games::Rules;
    crate::games::steel_driver::SteelDriver::AUTO_CODES
        .iter()
        .chain(crate::games::flying_dutchman::FlyingDutchman::AUTO_CODES)
        .chain(crate::games::auto::COMMON_CODES)
        .map(|(code, _)| *code)
}

/// A reason (a code and its parameters) in words.
pub fn reason_text(reason: &Value, language: Language) -> String {
    let code = reason["code"].as_str().unwrap_or("");
    let args = Args::new()
        .choice("code", known(code, reason_codes()))
        .text("raw", code);
    let names = [
        "company", "high_bid", "cubes", "link", "city", "to", "count", "message",
    ];
    let args = params(args, &reason["params"], &names);
    say(language, key!("pace-reason"), &args)
}

/// Steel Driver's own commands (its others are worded as every game's).
const STEEL_DRIVER_COMMANDS: &[&str] = &[
    "pass_pawn",
    "open_auction",
    "bid",
    "pass_bid",
    "build",
    "pass_build",
    "choose_path",
    "take_goods",
    "pass_delivery",
];

/// The commands of The Flying Dutchman and those every game shares.
const COMMON_COMMANDS: &[&str] = &[
    "pass",
    "use_kontor",
    "use_smith",
    "bid",
    "return_shares",
    "move",
    "declare",
    "make_offer",
    "accept_offer",
    "drop_out",
    "take_income",
    "decline_income",
];

/// A command of `game` in words ("pass the pawn").
pub fn command_text(game: &str, command: &Value, language: Language) -> String {
    let kind = command["type"].as_str().unwrap_or("");
    let (game, commands) = if game == "steel-driver" && STEEL_DRIVER_COMMANDS.contains(&kind) {
        ("steel-driver", STEEL_DRIVER_COMMANDS)
    } else {
        ("other", COMMON_COMMANDS)
    };
    let args = Args::new()
        .choice("game", game)
        .choice("type", known(kind, commands.iter().copied()))
        .text("raw", kind.replace('_', " "));
    let names = ["company", "bid", "link", "city", "to", "colour"];
    let args = params(args, command, &names);
    say(language, key!("pace-command"), &args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_reason_code_of_every_game_has_words_in_both_languages() {
        for code in reason_codes() {
            for language in [Language::En, Language::Ja] {
                let text = reason_text(&json!({"code": code, "params": {}}), language);
                assert!(
                    !text.starts_with('(') && !text.starts_with('（'),
                    "{code}: {text}"
                );
            }
        }
    }

    #[test]
    fn a_forced_pass_and_an_order_read_as_sentences() {
        let forced = json!({"version": 12, "kind": "forced", "command": {"type": "pass_bid"},
            "reason": {"code": "cannot_outbid", "params": {"company": "red", "high_bid": 7, "cubes": 5}}});
        assert_eq!(
            line("steel-driver", &forced, Language::En),
            "You had to pass in the auction: you cannot outbid 7 for red (you hold 5 cubes) (version 12)."
        );
        let played = json!({"version": 13, "kind": "played", "command": {"type": "pass_pawn"}});
        assert_eq!(
            line("steel-driver", &played, Language::En),
            "Played by your order: pass the pawn (version 13)."
        );
        assert!(line("steel-driver", &played, Language::Ja).contains("ポーンを渡す"));
        let data = json!({"auto": {"count": 2, "news": [forced, played]}});
        assert_eq!(
            summary(&data, Language::En).unwrap(),
            "your orders played 2 moves while you were away"
        );
        assert!(summary(&json!({}), Language::En).is_none());
        assert_eq!(
            summary(&data, Language::Ja).unwrap(),
            "不在の間にあなたの指示で2手を指しました"
        );
        assert_eq!(
            line("steel-driver", &forced, Language::Ja),
            "競りをパスするしかありませんでした: redの最高入札7を上回れません（キューブ5個）（バージョン12）。"
        );
    }

    #[test]
    fn a_dropped_order_one_forced_move_and_unknown_words_read_as_sentences() {
        let dropped = json!({"version": 3, "kind": "dropped",
            "reason": {"code": "bids_before", "params": {"count": 2}}});
        assert_eq!(
            line("steel-driver", &dropped, Language::En),
            "Your order was dropped: 2 players before you bid this round, more than your order allows; decide yourself."
        );
        let forced = json!({"version": 5, "kind": "forced", "command": {"type": "fly_away"},
            "reason": {"code": "no_wind", "params": {}}});
        assert_eq!(
            line("flying-dutchman", &forced, Language::En),
            "You had to fly away: (no_wind) (version 5)."
        );
        assert_eq!(
            line("flying-dutchman", &forced, Language::Ja),
            "fly awayしかありませんでした: （no_wind）（バージョン5）。"
        );
        let one = json!({"auto": {"count": 1, "news": [forced]}});
        assert_eq!(
            summary(&one, Language::En).unwrap(),
            "the server played 1 forced move for you"
        );
        let only_dropped = json!({"auto": {"count": 1, "news": [dropped]}});
        assert_eq!(
            summary(&only_dropped, Language::En).unwrap(),
            "your standing orders changed"
        );
        // A command every game shares reads the same in Steel Driver.
        let pass = json!({"type": "pass"});
        assert_eq!(command_text("steel-driver", &pass, Language::En), "pass");
        assert_eq!(
            command_text(
                "steel-driver",
                &json!({"type": "bid", "bid": 4}),
                Language::En
            ),
            "bid 4"
        );
        assert_eq!(
            command_text("flying-dutchman", &json!({"type": "bid"}), Language::En),
            "place your sealed bid"
        );
    }

    #[test]
    fn every_command_has_words_in_both_languages() {
        for (game, commands) in [
            ("steel-driver", STEEL_DRIVER_COMMANDS),
            ("flying-dutchman", COMMON_COMMANDS),
        ] {
            for command in commands {
                for language in Language::ALL {
                    let text = command_text(game, &json!({"type": command}), language);
                    // A type without words is said raw, in ASCII; only `pass` is its own word.
                    let raw = text == command.replace('_', " ");
                    match language {
                        Language::En => assert!(!raw || *command == "pass", "{game} {command}"),
                        Language::Ja => assert!(!text.is_ascii(), "{game} {command}: {text}"),
                    }
                }
            }
        }
    }
}
