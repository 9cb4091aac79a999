//! The pure core of ratings: whether a finished game is rated, and its ranks, judged from its
//! log alone; the Weng–Lin update; the displayed number. No I/O, no clock.
//!
//! **Abandoning costs the abandoner, and pays no one.** A seat abandoned (and not returned)
//! or left by the end was played by the bot: what happened on the board says nothing of its
//! player against the others, and a win over it is not one. So the seats played to the end
//! are rated among themselves by the game's own ranks, as if the others had not sat down; each
//! abandoned seat is rated as having lost to every one of them (its update alone: theirs do
//! not move for it). A player left alone at a table moves nothing; a game that no seat played
//! to the end is unrated. Two throwaway accounts that let the bot play for them can take
//! their own ratings down, not raise anyone's (issue 36).

use crate::games::Outcome;
use crate::service::play::events::{PlatformEvent, SeatInfo};
use crate::service::play::table;
use crate::service::play::undo::Policy;
use crate::store::events::EventRow;
use chrono::{DateTime, Utc};
use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};
use uuid::Uuid;

/// The version of the judgement (what is rated, and how), stored with each judged game
/// (`rating_games.judge_version`). Raise it whenever [`judge`] or [`rate`] change what they
/// make of a log: the rating worker then rebuilds every judgement made by an older version
/// before it judges anything new (`ratings::bring_up_to_date`), so that the ratings stay the
/// projection `kontor ratings rebuild --check` recomputes. 1: the first judge (issue 24); 2:
/// abandoned seats lose alone, the others are rated among themselves (issue 36).
pub const JUDGE_VERSION: i16 = 2;

/// What a finished game comes to for the ratings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Judgement {
    /// It moves its players' ratings: the user of each seat (in seat order), its rank (1 =
    /// best; tied seats share a rank; the abandoned last), and whether it was abandoned (see
    /// [`rate`]).
    Rated {
        kind: String,
        users: Vec<Uuid>,
        ranks: Vec<u16>,
        abandoned: Vec<bool>,
    },
    /// It moves nothing, for `reason`.
    Unrated { kind: String, reason: Unrated },
}

/// Why a game is not rated (stored in `rating_games.reason`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unrated {
    /// The table was not created rated.
    NotRatedTable,
    /// An imported game (a sandbox).
    Sandbox,
    /// A seat was played by the bot from the start.
    BotSeat,
    /// Players could take moves back by consent.
    UndoConsent,
    /// A seat was abandoned or left before every seat had made a move of its own.
    FirstRound,
    /// No seat was played to the end by its player.
    Abandoned,
    /// The log has no start or no result (no finished game has such a log).
    NoResult,
}

impl Unrated {
    pub fn as_str(self) -> &'static str {
        match self {
            Unrated::NotRatedTable => "not_rated_table",
            Unrated::Sandbox => "sandbox",
            Unrated::BotSeat => "bot_seat",
            Unrated::UndoConsent => "undo_consent",
            Unrated::FirstRound => "first_round",
            Unrated::Abandoned => "abandoned",
            Unrated::NoResult => "no_result",
        }
    }
}

impl Judgement {
    pub fn kind(&self) -> &str {
        match self {
            Judgement::Rated { kind, .. } | Judgement::Unrated { kind, .. } => kind,
        }
    }

    /// The reason it is unrated, `None` when rated.
    pub fn reason(&self) -> Option<Unrated> {
        match self {
            Judgement::Rated { .. } => None,
            Judgement::Unrated { reason, .. } => Some(*reason),
        }
    }
}

/// Judges a finished game from its log (`events`, in order) and whether it is a sandbox.
///
/// A move is a seat's own when it is a rules event caused by that seat (`actor`) while its
/// player held it: not in the batch of a `kontor.turn_timed_out` of that seat (the policy
/// played it), nor while the seat was abandoned or left (the bot played it). A move later
/// taken back by an undo still counts: the player was there and moved.
pub fn judge(events: &[EventRow], sandbox: bool) -> Judgement {
    let start = events.first().and_then(platform);
    let Some(PlatformEvent::GameStarted {
        kind,
        options,
        seats,
        ..
    }) = start
    else {
        return Judgement::Unrated {
            kind: String::new(),
            reason: Unrated::NoResult,
        };
    };
    let unrated = |reason| Judgement::Unrated {
        kind: kind.clone(),
        reason,
    };
    let outcome = events.iter().rev().find_map(|e| match platform(e) {
        Some(PlatformEvent::GameEnded { outcome, .. }) => Some(outcome),
        _ => None,
    });
    let Some(outcome) = outcome.filter(|o| !seats.is_empty() && o.ranks.len() == seats.len())
    else {
        return unrated(Unrated::NoResult);
    };
    if sandbox {
        return unrated(Unrated::Sandbox);
    }
    if !table::is_rated(&options) {
        return unrated(Unrated::NotRatedTable);
    }
    if seats.iter().any(|s: &SeatInfo| s.bot) {
        return unrated(Unrated::BotSeat);
    }
    if Policy::of(&options) == Policy::Consent {
        return unrated(Unrated::UndoConsent);
    }
    let Some(gone) = seats_gone(events, seats.len()) else {
        return unrated(Unrated::FirstRound);
    };
    if gone.iter().all(|&g| g) {
        return unrated(Unrated::Abandoned);
    }
    let mut by_seat: Vec<&SeatInfo> = seats.iter().collect();
    by_seat.sort_by_key(|s| s.seat);
    Judgement::Rated {
        kind,
        users: by_seat.iter().map(|s| s.user_id).collect(),
        ranks: ranks_with_leavers_last(&outcome, &gone),
        abandoned: gone,
    }
}

fn platform(event: &EventRow) -> Option<PlatformEvent> {
    if !crate::service::play::events::is_platform_event(&event.kind) {
        return None;
    }
    serde_json::from_value(event.payload.clone()).ok()
}

/// Which seats are gone at the end (left, or abandoned and not returned), or `None` when a
/// seat was abandoned or left before every seat had made a move of its own.
fn seats_gone(events: &[EventRow], seat_count: usize) -> Option<Vec<bool>> {
    let mut moved = vec![false; seat_count];
    let mut by_bot = vec![false; seat_count];
    let mut left = vec![false; seat_count];
    // The seats whose turn timed out in the batch being read (a batch's events share their
    // time: one append).
    let mut timed_out: Vec<usize> = Vec::new();
    let mut batch_at: Option<DateTime<Utc>> = None;
    for event in events {
        if batch_at != Some(event.created_at) {
            batch_at = Some(event.created_at);
            timed_out.clear();
        }
        let seat_of = |seat: crate::games::Seat| usize::from(seat).min(seat_count - 1);
        match platform(event) {
            Some(PlatformEvent::TurnTimedOut { seat, .. }) => timed_out.push(seat_of(seat)),
            Some(PlatformEvent::SeatAbandoned { seat, .. }) => {
                if moved.contains(&false) {
                    return None;
                }
                by_bot[seat_of(seat)] = true;
            }
            Some(PlatformEvent::SeatLeft { seat, .. }) => {
                if moved.contains(&false) {
                    return None;
                }
                by_bot[seat_of(seat)] = true;
                left[seat_of(seat)] = true;
            }
            Some(PlatformEvent::SeatReturned { seat }) if !left[seat_of(seat)] => {
                by_bot[seat_of(seat)] = false;
            }
            _ => {}
        }
        if crate::service::play::events::is_platform_event(&event.kind) {
            continue;
        }
        if let Some(actor) = event.actor.and_then(|a| usize::try_from(a).ok())
            && actor < seat_count
            && !by_bot[actor]
            && !timed_out.contains(&actor)
        {
            moved[actor] = true;
        }
    }
    Some(by_bot)
}

/// The engine's ranks with every seat in `gone` ranked last, tied with each other, below
/// everyone else; the others keep their order (ties share a rank: one more than the number of
/// seats ranked strictly above).
pub fn ranks_with_leavers_last(outcome: &Outcome, gone: &[bool]) -> Vec<u16> {
    let stayed: Vec<usize> = (0..outcome.ranks.len())
        .filter(|&s| !gone.get(s).copied().unwrap_or(false))
        .collect();
    (0..outcome.ranks.len())
        .map(|s| {
            if !stayed.contains(&s) {
                return stayed.len() as u16 + 1;
            }
            let above = stayed
                .iter()
                .filter(|&&o| outcome.ranks[o] < outcome.ranks[s])
                .count();
            above as u16 + 1
        })
        .collect()
}

/// A player's rating in one game kind: Weng–Lin's μ (skill) and σ (uncertainty).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    pub mu: f64,
    pub sigma: f64,
}

impl Rating {
    /// A player's rating before their first rated game: μ = 25, σ = 25/3.
    pub fn initial() -> Self {
        let r = WengLinRating::new();
        Rating {
            mu: r.rating,
            sigma: r.uncertainty,
        }
    }
}

/// The ratings after a game: each seat a team of one, `ranks` (1 = best, ties share a rank),
/// Weng–Lin with the `skillratings` crate's defaults (β = 25/6, κ = 1e-6).
pub fn update(before: &[Rating], ranks: &[u16]) -> Vec<Rating> {
    let teams: Vec<[WengLinRating; 1]> = before
        .iter()
        .map(|r| {
            [WengLinRating {
                rating: r.mu,
                uncertainty: r.sigma,
            }]
        })
        .collect();
    let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
        .iter()
        .zip(ranks)
        .map(|(team, &rank)| (&team[..], MultiTeamOutcome::new(usize::from(rank))))
        .collect();
    weng_lin_multi_team(&input, &WengLinConfig::new())
        .into_iter()
        .map(|team| Rating {
            mu: team[0].rating,
            sigma: team[0].uncertainty,
        })
        .collect()
}

/// The ratings after a rated game, by seat: `None` for a seat this game does not rate. The
/// seats not `abandoned` are rated among themselves by `ranks` (if there are two or more of
/// them); each abandoned seat is rated as having lost to all of those (its own update only, if
/// there is one of them): so nobody's rating moves for having "beaten" a seat the bot played.
pub fn rate(before: &[Rating], ranks: &[u16], abandoned: &[bool]) -> Vec<Option<Rating>> {
    let played: Vec<usize> = (0..before.len())
        .filter(|&s| !abandoned.get(s).copied().unwrap_or(false))
        .collect();
    let mut after = vec![None; before.len()];
    if played.len() >= 2 {
        let rated = update(
            &played.iter().map(|&s| before[s]).collect::<Vec<_>>(),
            &played.iter().map(|&s| ranks[s]).collect::<Vec<_>>(),
        );
        for (&seat, rating) in played.iter().zip(rated) {
            after[seat] = Some(rating);
        }
    }
    if !played.is_empty() {
        let last = played.len() as u16 + 1;
        for seat in (0..before.len()).filter(|s| !played.contains(s)) {
            let mut table = vec![before[seat]];
            let mut table_ranks = vec![last];
            for &other in &played {
                table.push(before[other]);
                table_ranks.push(ranks[other]);
            }
            after[seat] = Some(update(&table, &table_ranks)[0]);
        }
    }
    after
}

/// The number shown for a rating: round(1000 + 40·(μ − 3σ)), a conservative estimate (a new
/// player's μ − 3σ is 0: 1000).
pub fn display(rating: Rating) -> i32 {
    (1000.0 + 40.0 * (rating.mu - 3.0 * rating.sigma)).round() as i32
}

/// Rated games a player needs before their rating stops being provisional.
pub const PROVISIONAL_GAMES: i32 = 5;
/// The uncertainty above which a rating is provisional.
pub const PROVISIONAL_SIGMA: f64 = 5.0;

/// Whether a rating is still provisional: fewer than [`PROVISIONAL_GAMES`] rated games, or σ
/// above [`PROVISIONAL_SIGMA`].
pub fn provisional(games: i32, sigma: f64) -> bool {
    games < PROVISIONAL_GAMES || sigma > PROVISIONAL_SIGMA
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use serde_json::{Value, json};

    /// A log under construction: each `push` is its own batch (its own time) unless `same`.
    struct Log {
        rows: Vec<EventRow>,
        tick: i64,
    }

    fn user(seat: usize) -> Uuid {
        Uuid::from_u128(seat as u128 + 1)
    }

    impl Log {
        fn started(seats: usize, options: Value, bots: &[usize]) -> Self {
            let seats: Vec<Value> = (0..seats)
                .map(|s| json!({"seat": s, "user_id": user(s), "username": format!("p{s}"), "bot": bots.contains(&s)}))
                .collect();
            let mut log = Log {
                rows: Vec::new(),
                tick: 0,
            };
            log.push(
                None,
                json!({"type": "kontor.game_started", "kind": "steel-driver", "rules_version": 1,
                       "options": options, "seats": seats, "seed_commitment": "00", "nonces": []}),
            );
            log
        }

        fn at(&self) -> DateTime<Utc> {
            Utc.timestamp_opt(1_700_000_000 + self.tick, 0).unwrap()
        }

        fn push(&mut self, actor: Option<i16>, payload: Value) -> &mut Self {
            self.tick += 1;
            self.same(actor, payload)
        }

        /// An event in the same batch as the one before.
        fn same(&mut self, actor: Option<i16>, payload: Value) -> &mut Self {
            self.rows.push(EventRow {
                seq: self.rows.len() as i64 + 1,
                kind: payload["type"].as_str().unwrap().to_string(),
                payload,
                audience: None,
                actor,
                created_at: self.at(),
                auto: None,
            });
            self
        }

        fn moves(&mut self, seats: usize) -> &mut Self {
            for s in 0..seats {
                self.push(Some(s as i16), json!({"type": "passed"}));
            }
            self
        }

        fn ended(&mut self, ranks: &[u8]) -> Vec<EventRow> {
            self.push(
                None,
                json!({"type": "kontor.game_ended", "seed": "00",
                       "outcome": {"scores": vec![Value::Null; ranks.len()], "ranks": ranks, "winners": []}}),
            );
            self.rows.clone()
        }
    }

    fn rated() -> Value {
        json!({"rated": true, "undo": "own"})
    }

    fn ranks_of(judgement: Judgement) -> Vec<u16> {
        match judgement {
            Judgement::Rated { ranks, users, .. } => {
                assert_eq!(users, (0..ranks.len()).map(user).collect::<Vec<_>>());
                ranks
            }
            other => panic!("not rated: {other:?}"),
        }
    }

    fn reason_of(judgement: Judgement) -> Unrated {
        judgement.reason().expect("unrated")
    }

    #[test]
    fn a_rated_table_takes_the_engines_ranks_with_ties() {
        let log = Log::started(4, rated(), &[]).moves(4).ended(&[2, 1, 2, 4]);
        assert_eq!(ranks_of(judge(&log, false)), vec![2, 1, 2, 4]);
    }

    #[test]
    fn unrated_tables_bots_consent_and_sandboxes_are_not_rated() {
        let plain = Log::started(3, json!({"undo": "own"}), &[])
            .moves(3)
            .ended(&[1, 2, 3]);
        assert_eq!(reason_of(judge(&plain, false)), Unrated::NotRatedTable);
        let explicit = Log::started(3, json!({"rated": false}), &[])
            .moves(3)
            .ended(&[1, 2, 3]);
        assert_eq!(reason_of(judge(&explicit, false)), Unrated::NotRatedTable);
        let bot = Log::started(3, rated(), &[1]).moves(3).ended(&[1, 2, 3]);
        assert_eq!(reason_of(judge(&bot, false)), Unrated::BotSeat);
        let consent = Log::started(3, json!({"rated": true, "undo": "consent"}), &[])
            .moves(3)
            .ended(&[1, 2, 3]);
        assert_eq!(reason_of(judge(&consent, false)), Unrated::UndoConsent);
        let fine = Log::started(3, rated(), &[]).moves(3).ended(&[1, 2, 3]);
        assert_eq!(reason_of(judge(&fine, true)), Unrated::Sandbox);
        assert_eq!(reason_of(judge(&fine[..2], false)), Unrated::NoResult);
    }

    #[test]
    fn a_seat_gone_before_every_seat_moved_makes_the_game_unrated() {
        // Seat 2 never moved when seat 1 was abandoned.
        let early = Log::started(3, rated(), &[])
            .moves(2)
            .push(
                None,
                json!({"type": "kontor.seat_abandoned", "seat": 1, "policy": "bot"}),
            )
            .moves(3)
            .ended(&[1, 2, 3]);
        assert_eq!(reason_of(judge(&early, false)), Unrated::FirstRound);
        // A seat leaving (a deleted account) early: the same.
        let left = Log::started(3, rated(), &[])
            .push(
                None,
                json!({"type": "kontor.seat_left", "seat": 0, "policy": "bot"}),
            )
            .moves(3)
            .ended(&[1, 2, 3]);
        assert_eq!(reason_of(judge(&left, false)), Unrated::FirstRound);
        // Seat 2's only "moves" were played for it when its time ran out: not its own.
        let timed_out = Log::started(3, rated(), &[])
            .moves(2)
            .push(None, json!({"type": "kontor.turn_timed_out", "seat": 2, "consecutive": 1, "played": "bot"}))
            .same(Some(2), json!({"type": "passed"}))
            .push(None, json!({"type": "kontor.seat_abandoned", "seat": 2, "policy": "forfeit"}))
            .moves(3)
            .ended(&[1, 2, 3]);
        assert_eq!(reason_of(judge(&timed_out, false)), Unrated::FirstRound);
    }

    #[test]
    fn leavers_and_the_abandoned_are_ranked_last_after_everyone_moved() {
        // Seat 0 won on the board but was abandoned (not returned): last. Seat 3 left: last,
        // tied with seat 0. The others keep their order.
        let log = Log::started(4, rated(), &[])
            .moves(4)
            .push(
                None,
                json!({"type": "kontor.seat_abandoned", "seat": 0, "policy": "bot"}),
            )
            .push(
                None,
                json!({"type": "kontor.seat_left", "seat": 3, "policy": "forfeit"}),
            )
            .moves(4)
            .ended(&[1, 3, 2, 4]);
        assert_eq!(ranks_of(judge(&log, false)), vec![3, 2, 1, 3]);
        // An abandoned seat whose player returned keeps its rank.
        let back = Log::started(3, rated(), &[])
            .moves(3)
            .push(
                None,
                json!({"type": "kontor.seat_abandoned", "seat": 0, "policy": "bot"}),
            )
            .push(None, json!({"type": "kontor.seat_returned", "seat": 0}))
            .moves(3)
            .ended(&[1, 2, 2]);
        assert_eq!(ranks_of(judge(&back, false)), vec![1, 2, 2]);
    }

    fn abandoned_of(judgement: Judgement) -> Vec<bool> {
        match judgement {
            Judgement::Rated { abandoned, .. } => abandoned,
            other => panic!("not rated: {other:?}"),
        }
    }

    /// Two throwaway seats make a move each, then the bot plays them (and wins, as the bots
    /// did in the attack): the engine ranks them above the one who stayed.
    fn farmed() -> Vec<EventRow> {
        Log::started(3, rated(), &[])
            .moves(3)
            .push(
                None,
                json!({"type": "kontor.seat_abandoned", "seat": 1, "policy": "bot"}),
            )
            .push(
                None,
                json!({"type": "kontor.seat_abandoned", "seat": 2, "policy": "bot"}),
            )
            .moves(3)
            .ended(&[3, 1, 2])
    }

    #[test]
    fn abandoned_seats_lose_alone_and_raise_no_one() {
        let judgement = judge(&farmed(), false);
        assert_eq!(abandoned_of(judgement.clone()), vec![false, true, true]);
        assert_eq!(ranks_of(judgement), vec![1, 2, 2]);
        // The one who stayed is not rated at all: no one played against them.
        let after = rate(&[Rating::initial(); 3], &[1, 2, 2], &[false, true, true]);
        assert_eq!(after[0], None);
        // The abandoners lose, each as if beaten by the one who stayed.
        for seat in [1, 2] {
            let lost = after[seat].expect("rated");
            assert!(lost.mu < 25.0, "{lost:?}");
            assert_eq!(
                Some(lost),
                Some(update(&[Rating::initial(); 2], &[2, 1])[0]),
                "a loss to the one seat that stayed"
            );
        }
        // With two who stayed, they are rated between themselves by the game's ranks, exactly
        // as a game of the two of them; the abandoner's loss moves neither.
        let four = [
            Rating::initial(),
            Rating {
                mu: 30.0,
                sigma: 6.0,
            },
            Rating::initial(),
            Rating {
                mu: 20.0,
                sigma: 7.0,
            },
        ];
        let after = rate(&four, &[3, 1, 3, 2], &[true, false, true, false]);
        let pair = update(&[four[1], four[3]], &[1, 2]);
        assert_eq!(after[1], Some(pair[0]));
        assert_eq!(after[3], Some(pair[1]));
        let alone = update(&[four[0], four[1], four[3]], &[3, 1, 2]);
        assert_eq!(after[0], Some(alone[0]));
        // No abandoner: the plain update of everyone.
        let plain = rate(&[Rating::initial(); 3], &[2, 1, 3], &[false; 3]);
        let all = update(&[Rating::initial(); 3], &[2, 1, 3]);
        assert_eq!(plain, all.into_iter().map(Some).collect::<Vec<_>>());
    }

    #[test]
    fn a_game_no_seat_played_to_the_end_is_unrated() {
        let log = Log::started(3, rated(), &[])
            .moves(3)
            .push(
                None,
                json!({"type": "kontor.seat_abandoned", "seat": 0, "policy": "bot"}),
            )
            .push(
                None,
                json!({"type": "kontor.seat_left", "seat": 1, "policy": "bot"}),
            )
            .push(
                None,
                json!({"type": "kontor.seat_abandoned", "seat": 2, "policy": "forfeit"}),
            )
            .moves(3)
            .ended(&[1, 2, 3]);
        assert_eq!(reason_of(judge(&log, false)), Unrated::Abandoned);
    }

    #[test]
    fn the_display_is_conservative_and_new_players_are_provisional() {
        assert_eq!(display(Rating::initial()), 1000);
        assert!(provisional(0, 25.0 / 3.0));
        assert!(provisional(4, 3.0));
        assert!(provisional(9, 5.5));
        assert!(!provisional(5, 5.0));
        // Winning raises the winner, losing lowers the loser, everyone grows more certain.
        let after = update(&[Rating::initial(); 3], &[1, 2, 3]);
        assert!(after[0].mu > 25.0 && after[2].mu < 25.0);
        assert!(after.iter().all(|r| r.sigma < 25.0 / 3.0));
        // A tie of everyone moves no μ.
        let tied = update(&[Rating::initial(); 3], &[1, 1, 1]);
        assert!(tied.iter().all(|r| (r.mu - 25.0).abs() < 1e-12));
    }
}
