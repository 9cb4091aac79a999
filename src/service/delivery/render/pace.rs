//! What the server played for a player on its own while they were away (issue 37), in their
//! turn mail, their "game over" mail and the digest: forced moves ("you had to pass: you
//! cannot outbid 7"), moves their standing orders played, and orders dropped, with the
//! reason. The notice's data carries it as `auto: {"count", "news": [the latest 10]}` (see
//! `service::play::auto::News`); only the seat's own news is ever in its notices.
//!
//! The words are kept here, apart, until they move into the message catalogue.

use super::document::{Block, Span};
use super::{NoticeContext, str_field};
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
    let dropped = list.iter().any(|n| n["kind"] == "dropped");
    let moves = list.iter().filter(|n| n["kind"] != "dropped").count() as u64;
    let moves = if count as usize > list.len() {
        count
    } else {
        moves
    };
    Some(match language {
        Language::En => {
            let noun = if moves == 1 { "move" } else { "moves" };
            match (moves, orders, dropped) {
                (0, _, _) => "your standing orders changed".to_string(),
                (_, true, _) => {
                    format!("your orders played {moves} {noun} while you were away")
                }
                (_, false, _) => format!("the server played {moves} forced {noun} for you"),
            }
        }
        Language::Ja => match (moves, orders) {
            (0, _) => "指示に変更がありました".to_string(),
            (_, true) => format!("不在の間にあなたの指示で{moves}手を指しました"),
            (_, false) => format!("強制手{moves}手を自動で指しました"),
        },
    })
}

/// The paragraph and list that tell a player what happened (empty without news).
pub(super) fn blocks(ctx: &NoticeContext) -> Vec<Block> {
    let Some((count, list)) = news(ctx.data) else {
        return Vec::new();
    };
    let game = kind(ctx);
    let language = ctx.language;
    let intro = match language {
        Language::En => format!(
            "Since your last turn mail, the server played for you or changed your standing orders ({count} in all{}):",
            if count as usize > list.len() {
                format!(", the latest {}", list.len())
            } else {
                String::new()
            }
        ),
        Language::Ja => format!(
            "前回の手番メール以降、サーバーがあなたの代わりに指した手と指示の変更（全{count}件{}）:",
            if count as usize > list.len() {
                format!("、最新{}件", list.len())
            } else {
                String::new()
            }
        ),
    };
    let lines: Vec<Vec<Span>> = list
        .iter()
        .map(|n| vec![Span::Text(line(game, n, language))])
        .collect();
    vec![Block::Para(vec![Span::Text(intro)]), Block::List(lines)]
}

/// One piece of news as a sentence.
pub fn line(game: &str, news: &Value, language: Language) -> String {
    let command = news.get("command").map(|c| command_text(game, c, language));
    let reason = news
        .get("reason")
        .map(|r| reason_text(r, language))
        .unwrap_or_default();
    let version = news["version"].as_i64().unwrap_or(0);
    match (news["kind"].as_str(), language) {
        (Some("forced"), Language::En) => format!(
            "You had to {}: {reason} (version {version}).",
            command.unwrap_or_default()
        ),
        (Some("forced"), Language::Ja) => format!(
            "{}しかありませんでした: {reason}（バージョン{version}）。",
            command.unwrap_or_default()
        ),
        (Some("played"), Language::En) => format!(
            "Played by your order: {} (version {version}).",
            command.unwrap_or_default()
        ),
        (Some("played"), Language::Ja) => format!(
            "あなたの指示で指しました: {}（バージョン{version}）。",
            command.unwrap_or_default()
        ),
        (_, Language::En) => format!("Your order was dropped: {reason}; decide yourself."),
        (_, Language::Ja) => format!("指示を取り消しました: {reason}。ご自身で決めてください。"),
    }
}

fn param(params: &Value, name: &str) -> String {
    match params.get(name) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => "?".to_string(),
        Some(other) => other.to_string(),
    }
}

/// A reason (a code and its parameters) in words.
pub fn reason_text(reason: &Value, language: Language) -> String {
    let code = reason["code"].as_str().unwrap_or("");
    let p = &reason["params"];
    let en = language == Language::En;
    match code {
        "no_cubes" if en => "you hold no cubes".into(),
        "no_cubes" => "キューブを持っていません".into(),
        "cannot_outbid" if en => format!(
            "you cannot outbid {} for {} (you hold {} cubes)",
            param(p, "high_bid"),
            param(p, "company"),
            param(p, "cubes")
        ),
        "cannot_outbid" => format!(
            "{}の最高入札{}を上回れません（キューブ{}個）",
            param(p, "company"),
            param(p, "high_bid"),
            param(p, "cubes")
        ),
        "cannot_build" if en => format!("{} has no link it may build", param(p, "company")),
        "cannot_build" => format!("{}が敷設できる路線がありません", param(p, "company")),
        "only_link" if en => format!(
            "{} was the only link {} could build",
            param(p, "link"),
            param(p, "company")
        ),
        "only_link" => format!(
            "{}が敷設できる路線は{}だけでした",
            param(p, "company"),
            param(p, "link")
        ),
        "only_path" if en => "one transcontinental path was left".into(),
        "only_path" => "大陸横断ルートは一つしか残っていませんでした".into(),
        "no_goods" if en => format!("{} can take no goods cube", param(p, "company")),
        "no_goods" => format!("{}が取れる商品キューブがありません", param(p, "company")),
        "only_goods" if en => format!(
            "the goods cube of {} was the only one {} could take",
            param(p, "city"),
            param(p, "company")
        ),
        "only_goods" => format!(
            "{}が取れる商品キューブは{}のものだけでした",
            param(p, "company"),
            param(p, "city")
        ),
        "outbid" if en => format!(
            "the high bid for {} reached {}, your limit",
            param(p, "company"),
            param(p, "high_bid")
        ),
        "outbid" => format!(
            "{}の最高入札が上限の{}に達しました",
            param(p, "company"),
            param(p, "high_bid")
        ),
        "only_pass" if en => "you hold no horseshoe, smith card or usable Kontor card".into(),
        "only_pass" => "蹄鉄も鍛冶屋カードも使えるコントールカードもありません".into(),
        "only_destination" if en => format!(
            "{} was the only place the ghost ship could go",
            param(p, "to")
        ),
        "only_destination" => format!("幽霊船の行き先は{}だけでした", param(p, "to")),
        "no_horseshoes" if en => "you hold no horseshoe".into(),
        "no_horseshoes" => "蹄鉄を持っていません".into(),
        "no_shares" if en => "you hold no share card".into(),
        "no_shares" => "株券カードを持っていません".into(),
        "bids_before" if en => format!(
            "{} players before you bid this round, more than your order allows",
            param(p, "count")
        ),
        "bids_before" => format!(
            "このラウンドであなたより前に{}人が入札しました（指示の上限を超えています）",
            param(p, "count")
        ),
        "refused" if en => format!("the rules refused its move ({})", param(p, "message")),
        "refused" => format!(
            "ルールがその手を認めませんでした（{}）",
            param(p, "message")
        ),
        "undone" if en => "an undo took back your moves".into(),
        "undone" => "手の取り消しであなたの手が戻されました".into(),
        "invalid_now" if en => format!("after an undo it no longer fits ({})", param(p, "message")),
        "invalid_now" => format!(
            "手の取り消しの後、指示が合わなくなりました（{}）",
            param(p, "message")
        ),
        "seat_left" if en => "you left the game".into(),
        "seat_left" => "ゲームから退出しました".into(),
        other if en => format!("({other})"),
        other => format!("（{other}）"),
    }
}

/// A command of `game` in words ("pass the pawn").
pub fn command_text(game: &str, command: &Value, language: Language) -> String {
    let kind = command["type"].as_str().unwrap_or("");
    let field = |name: &str| param(command, name);
    let en = language == Language::En;
    match (game, kind) {
        ("steel-driver", "pass_pawn") if en => "pass the pawn".into(),
        ("steel-driver", "pass_pawn") => "ポーンを渡す".into(),
        ("steel-driver", "open_auction") if en => {
            format!(
                "open an auction for {} at {}",
                field("company"),
                field("bid")
            )
        }
        ("steel-driver", "open_auction") => {
            format!("{}の競りを{}で始める", field("company"), field("bid"))
        }
        ("steel-driver", "bid") if en => format!("bid {}", field("bid")),
        ("steel-driver", "bid") => format!("{}を入札する", field("bid")),
        ("steel-driver", "pass_bid") if en => "pass in the auction".into(),
        ("steel-driver", "pass_bid") => "競りをパスする".into(),
        ("steel-driver", "build") if en => format!("build {}", field("link")),
        ("steel-driver", "build") => format!("{}を敷設する", field("link")),
        ("steel-driver", "pass_build") if en => "build nothing".into(),
        ("steel-driver", "pass_build") => "敷設をパスする".into(),
        ("steel-driver", "choose_path") if en => "choose the transcontinental path".into(),
        ("steel-driver", "choose_path") => "大陸横断ルートを選ぶ".into(),
        ("steel-driver", "take_goods") if en => {
            format!("take the goods cube of {}", field("city"))
        }
        ("steel-driver", "take_goods") => format!("{}の商品キューブを取る", field("city")),
        ("steel-driver", "pass_delivery") if en => "take no goods cube".into(),
        ("steel-driver", "pass_delivery") => "商品キューブを取らない".into(),
        (_, "pass") if en => "pass".into(),
        (_, "pass") => "パスする".into(),
        (_, "use_kontor") if en => "use the Kontor".into(),
        (_, "use_kontor") => "コントールを使う".into(),
        (_, "use_smith") if en => "use the smith".into(),
        (_, "use_smith") => "鍛冶屋を使う".into(),
        (_, "bid") if en => "place your sealed bid".into(),
        (_, "bid") => "封印入札をする".into(),
        (_, "return_shares") if en => "return two share cards".into(),
        (_, "return_shares") => "株券カードを2枚戻す".into(),
        (_, "move") if en => format!("move the ghost ship to {}", field("to")),
        (_, "move") => format!("幽霊船を{}へ動かす", field("to")),
        (_, "declare") if en => format!("declare {}", field("to")),
        (_, "declare") => format!("{}を宣言する", field("to")),
        (_, "make_offer") if en => format!("offer {}", field("to")),
        (_, "make_offer") => format!("{}を提案する", field("to")),
        (_, "accept_offer") if en => "accept an offer".into(),
        (_, "accept_offer") => "提案を受ける".into(),
        (_, "drop_out") if en => "drop out of the extra round".into(),
        (_, "drop_out") => "延長戦から降りる".into(),
        (_, "take_income") if en => format!("take income ({})", field("colour")),
        (_, "take_income") => format!("収入を得る（{}）", field("colour")),
        (_, "decline_income") if en => "take no income".into(),
        (_, "decline_income") => "収入を得ない".into(),
        (_, other) => other.replace('_', " "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_reason_code_of_every_game_has_words_in_both_languages() {
        use crate::games::Rules;
        let codes = crate::games::steel_driver::SteelDriver::AUTO_CODES
            .iter()
            .chain(crate::games::flying_dutchman::FlyingDutchman::AUTO_CODES)
            .chain(crate::games::auto::COMMON_CODES);
        for (code, _) in codes {
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
    }
}
