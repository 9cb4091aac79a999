//! Bots that play through the API like any third-party client: they read their own view's
//! `legal` field and build an action from it, nothing else.

use crate::support::*;
use kontor::games::GameRng;
use serde_json::{Value, json};
use uuid::Uuid;

/// Everything one seat was sent while playing: its game views and its action results.
#[derive(Default)]
pub struct Seen {
    /// (seat, the game detail the seat received)
    pub views: Vec<(usize, Value)>,
    /// (seat, whether the game had ended, the events of an accepted action as returned to the
    /// seat or a page of the seat's event log read during the game)
    pub action_events: Vec<(usize, bool, Value)>,
}

pub type Chooser = fn(&Value, &Value, &mut GameRng) -> Value;

fn pick<'a>(items: &'a [Value], rng: &mut GameRng) -> &'a Value {
    rng.pick(items).expect("a non-empty choice")
}

/// A random legal Flying Dutchman action, from the seat's `legal` (and its game detail).
pub fn flying_dutchman(legal: &Value, detail: &Value, rng: &mut GameRng) -> Value {
    let me = detail["your_seat"].as_u64().unwrap();
    let offers = legal["offers"].as_array().cloned().unwrap_or_default();
    let open_to_me = |list: &str| -> Vec<Value> {
        offers
            .iter()
            .filter(|o| {
                !o[list]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|s| s.as_u64() == Some(me))
            })
            .cloned()
            .collect()
    };
    let mine: Vec<Value> = offers
        .iter()
        .filter(|o| o["by"].as_u64() == Some(me))
        .cloned()
        .collect();
    let commands: Vec<Value> = legal["commands"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| match c.as_str().unwrap() {
            "accept_offer" => !open_to_me("accepted_by").is_empty(),
            "reject_offer" => !open_to_me("rejected_by").is_empty(),
            "withdraw_offer" => !mine.is_empty(),
            _ => true,
        })
        .cloned()
        .collect();
    assert!(
        !commands.is_empty(),
        "a pending seat has something to do: {legal}"
    );
    let command = pick(&commands, rng).as_str().unwrap().to_string();
    match command.as_str() {
        "return_shares" => {
            let cards = legal["returnable"].as_array().unwrap();
            let first = rng.index(cards.len());
            let mut second = rng.index(cards.len() - 1);
            if second >= first {
                second += 1;
            }
            json!({"type": "return_shares", "cards": [cards[first], cards[second]]})
        }
        "bid" => {
            let mut horseshoes: Vec<Value> = legal["horseshoes"].as_array().unwrap().clone();
            rng.shuffle(&mut horseshoes);
            let wanted = 1 + rng.index(horseshoes.len().min(3));
            let mut bid = Vec::new();
            let mut gold = false;
            for h in horseshoes {
                if bid.len() == wanted {
                    break;
                }
                if h["gold"].as_bool().unwrap() {
                    if gold {
                        continue;
                    }
                    gold = true;
                    bid.push(json!({"value": h["value"], "sign": "plus"}));
                } else {
                    let sign = if rng.chance(1, 3) { "minus" } else { "plus" };
                    bid.push(json!({"value": h["value"], "sign": sign}));
                }
            }
            json!({"type": "bid", "horseshoes": bid})
        }
        "move" | "declare" => {
            json!({"type": command, "to": pick(legal["destinations"].as_array().unwrap(), rng)})
        }
        "make_offer" => {
            json!({"type": "make_offer", "to": pick(legal["destinations"].as_array().unwrap(), rng), "payments": []})
        }
        "accept_offer" => {
            json!({"type": "accept_offer", "offer": pick(&open_to_me("accepted_by"), rng)["id"]})
        }
        "reject_offer" => {
            json!({"type": "reject_offer", "offer": pick(&open_to_me("rejected_by"), rng)["id"]})
        }
        "withdraw_offer" => json!({"type": "withdraw_offer", "offer": pick(&mine, rng)["id"]}),
        "take_income" => {
            json!({"type": "take_income", "colour": pick(legal["income"].as_array().unwrap(), rng)["colour"]})
        }
        plain => json!({"type": plain}),
    }
}

/// A random legal Steel Driver action.
pub fn steel_driver(legal: &Value, _detail: &Value, rng: &mut GameRng) -> Value {
    let number = |v: &Value| v.as_u64().unwrap();
    match legal["step"].as_str().unwrap() {
        "open_auction" => {
            let companies = legal["companies"].as_array().unwrap();
            let (min, max) = (number(&legal["min_bid"]), number(&legal["max_bid"]));
            let can_open = !companies.is_empty() && max >= min;
            if can_open && (!legal["can_pass"].as_bool().unwrap() || rng.chance(2, 3)) {
                let bid = min + rng.below((max.min(min + 4) - min + 1) as u32) as u64;
                json!({"type": "open_auction", "company": pick(companies, rng), "bid": bid})
            } else {
                json!({"type": "pass_pawn"})
            }
        }
        "bid" => {
            if legal["can_bid"].as_bool().unwrap() && rng.chance(1, 2) {
                let min = number(&legal["min_bid"]);
                let top = number(&legal["cubes"]).min(min + 2);
                json!({"type": "bid", "bid": min + rng.below((top - min + 1) as u32) as u64})
            } else {
                json!({"type": "pass_bid"})
            }
        }
        "build" => match legal["links"].as_array().unwrap().as_slice() {
            [] => json!({"type": "pass_build"}),
            links => json!({"type": "build", "link": pick(links, rng)["link"]}),
        },
        "choose_path" => {
            let options = legal["options"].as_array().unwrap().len();
            json!({"type": "choose_path", "index": rng.index(options)})
        }
        "take_goods" => match legal["goods"].as_array().unwrap().as_slice() {
            [] => json!({"type": "pass_delivery"}),
            goods => json!({"type": "take_goods", "city": pick(goods, rng)["city"]}),
        },
        other => panic!("a pending seat cannot be told to {other}: {legal}"),
    }
}

/// Plays a started game to its end: every pending seat reads its view and acts. Returns what
/// each seat was sent. Panics if a bot's action built from `legal` is refused.
pub async fn play_to_end(
    app: &TestApp,
    game: Uuid,
    players: &[User],
    choose: Chooser,
    seed: u64,
) -> Seen {
    play(app, game, players, choose, seed, usize::MAX).await
}

/// Plays until `actions` actions were accepted or the game ended.
pub async fn play(
    app: &TestApp,
    game: Uuid,
    players: &[User],
    choose: Chooser,
    seed: u64,
    actions: usize,
) -> Seen {
    let mut rng = GameRng::from_u64(seed);
    let mut seen = Seen::default();
    let mut accepted = 0;
    for _ in 0..20_000 {
        if accepted == actions {
            return seen;
        }
        let detail = app
            .get(&format!("/games/{game}"))
            .as_user(&players[0])
            .send()
            .await;
        let detail = detail.assert_ok();
        if detail["status"] == "finished" {
            return seen;
        }
        let pending: Vec<usize> = detail["pending"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_u64().unwrap() as usize)
            .collect();
        assert!(
            !pending.is_empty(),
            "an active game waits for someone: {detail}"
        );
        let seat = pending[rng.index(pending.len())];
        let mine = app
            .get(&format!("/games/{game}"))
            .as_user(&players[seat])
            .send()
            .await;
        let mine = mine.assert_ok().clone();
        seen.views.push((seat, mine.clone()));
        let action = choose(&mine["legal"], &mine, &mut rng);
        let version = mine["version"].as_i64().unwrap();
        let key = Uuid::new_v4().to_string();
        let send = || {
            app.act(&players[seat], game)
                .key(&key)
                .version(version)
                .send(&action)
        };
        let reply = send().await;
        match reply.status.as_u16() {
            200 => {
                accepted += 1;
                let ended = reply.body["status"] == "finished";
                // Now and then, and at the end, the request is sent again: its answer is
                // rebuilt from the log (`service::play::actions::replay`), and must be the
                // very answer first sent, byte for byte, for this seat's eyes only.
                if accepted % 4 == 1 || ended {
                    let again = send().await;
                    assert_eq!(again.status, 200, "{}", again.text);
                    assert_eq!(again.headers["idempotent-replayed"], "true");
                    assert_eq!(again.text, reply.text, "the retry's answer differs");
                }
                seen.action_events
                    .push((seat, ended, reply.body["events"].clone()));
                if !ended && rng.chance(1, 20) {
                    let page = app
                        .get(&format!("/games/{game}/events?limit=1000"))
                        .as_user(&players[seat])
                        .send()
                        .await;
                    seen.action_events
                        .push((seat, false, page.assert_ok()["items"].clone()));
                }
            }
            409 => continue,
            _ => panic!(
                "seat {seat} played {action} from legal {}: {}",
                mine["legal"], reply.text
            ),
        }
    }
    panic!("the game did not end within 20000 actions");
}
