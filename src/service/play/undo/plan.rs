//! The pure decisions of undo: whether a seat may take moves back now, to where, and who
//! must consent; answering and withdrawing a request. The service appends what they decide.

use super::timeline::{Batch, Target, Timeline};
use crate::games::Seat;
use crate::words::catalogue::{self, Args};
use crate::words::key;
use crate::words::language::Language;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

/// The table's undo setting (`undo` among a game's options).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = UndoPolicy)]
pub enum Policy {
    /// No undo.
    None,
    /// A seat may take back its own moves since the last barrier, as long as nobody else
    /// acted since.
    Own,
    /// As `own`, and beyond it with the consent of every seat whose moves would be undone.
    Consent,
}

impl Policy {
    /// The name of the setting among the game's options.
    pub const SETTING: &'static str = "undo";
    /// The setting of a new game unless its creator chooses another.
    pub const FOR_NEW_GAMES: Policy = Policy::Own;

    /// The setting of a stored game (or its start event's options): `none` when absent.
    pub fn of(options: &Value) -> Self {
        options
            .get(Self::SETTING)
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or(Policy::None)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Policy::None => "none",
            Policy::Own => "own",
            Policy::Consent => "consent",
        }
    }
}

/// What an undo comes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Plan {
    /// Take back every effective event after `to_version` now (`kontor.rewound` with no
    /// request): only the caller's own moves are in range.
    Rewind { to_version: i64 },
    /// Ask `needs` (the other seats with moves in range, ascending) to accept
    /// (`kontor.undo_requested`). The seats of `bots` (played by the bot; among `needs`)
    /// accept at once in the same append; when they are all of `needs` the rewind follows in
    /// that append too (see [`Plan::rewinds_at_once`]).
    Ask {
        to_version: i64,
        needs: Vec<Seat>,
        bots: Vec<Seat>,
    },
}

impl Plan {
    pub fn to_version(&self) -> i64 {
        match self {
            Plan::Rewind { to_version } | Plan::Ask { to_version, .. } => *to_version,
        }
    }

    /// Whether the rewind is appended now (no consent needed, or only bots' consent).
    pub fn rewinds_at_once(&self) -> bool {
        match self {
            Plan::Rewind { .. } => true,
            Plan::Ask { needs, bots, .. } => needs.iter().all(|s| bots.contains(s)),
        }
    }
}

/// What an answer to a request comes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A no: `kontor.undo_answered {accept: false}` ends the request.
    Declined,
    /// A yes, and `waiting` must still answer.
    Accepted { waiting: Vec<Seat> },
    /// The last yes: `kontor.undo_answered {accept: true}` then `kontor.rewound {request}`
    /// by the requester `by_seat`, in one append.
    Rewind {
        to_version: i64,
        by_seat: Seat,
        request: i64,
    },
}

/// Why an undo, an answer or a withdrawal is refused. Each has a stable code (see
/// [`Refusal::code`]) and a message a person understands ([`Refusal::message`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message())]
pub enum Refusal {
    /// The table's policy is `none`, or the game is not being played (`undo_disabled`).
    Disabled,
    /// The caller has no move to take back (`undo_nothing_to_undo`).
    NothingToUndo,
    /// The caller has moves since the barrier, but only other seats moved after
    /// `to_version` (`undo_not_own_moves`).
    NotOwnMoves { to_version: i64 },
    /// Another seat declined the caller's last request, and nothing moved since: one declined
    /// request per position (`undo_declined`). `declined_at` is the answer's version.
    Declined { declined_at: i64 },
    /// The undo would reach back across the barrier ending at `barrier_version`
    /// (`undo_barrier`).
    Barrier {
        barrier_version: i64,
        barrier: &'static str,
    },
    /// The version sent is not the game's (`undo_stale`).
    Stale { current_version: i64 },
    /// Under `own`, others' moves are in range (`undo_needs_consent`).
    NeedsConsent { needs: Vec<Seat> },
    /// Another request is open (`undo_request_open`).
    RequestOpen { request: i64 },
    /// No open request is named `request`, or none is open (`undo_no_request`).
    NoRequest,
    /// A seat other than the requester tries to withdraw the request (`undo_no_request`).
    NotYourRequest,
    /// The answering seat is not asked, or answered already (`undo_not_asked`).
    NotAsked,
    /// `to_version` (`version`) is no place for an undo to land, for the reason `why`; the
    /// latest end of a move before it is `before` (`invalid_undo`, 422, with `reason`).
    NoTarget {
        version: i64,
        why: NoTarget,
        before: i64,
    },
    /// `to_version` is out of range (`invalid_undo`, 422).
    Invalid { detail: String },
}

/// Why a version is no place for an undo to land (`reason` of `invalid_undo`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoTarget {
    /// An undo's own event (a request, an answer, a withdrawal, a lapse, a rewind).
    UndoEvent,
    /// A move an earlier undo took back.
    Undone,
    /// The middle of a move.
    MidMove,
    /// Nothing was played after it.
    NothingAfter,
}

impl NoTarget {
    pub fn as_str(self) -> &'static str {
        match self {
            NoTarget::UndoEvent => "undo_event",
            NoTarget::Undone => "undone",
            NoTarget::MidMove => "mid_move",
            NoTarget::NothingAfter => "nothing_after",
        }
    }
}

impl Refusal {
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::Disabled => "undo_disabled",
            Refusal::NothingToUndo => "undo_nothing_to_undo",
            Refusal::NotOwnMoves { .. } => "undo_not_own_moves",
            Refusal::Declined { .. } => "undo_declined",
            Refusal::Barrier { .. } => "undo_barrier",
            Refusal::Stale { .. } => "undo_stale",
            Refusal::NeedsConsent { .. } => "undo_needs_consent",
            Refusal::RequestOpen { .. } => "undo_request_open",
            Refusal::NoRequest | Refusal::NotYourRequest => "undo_no_request",
            Refusal::NotAsked => "undo_not_asked",
            Refusal::NoTarget { .. } | Refusal::Invalid { .. } => "invalid_undo",
        }
    }

    /// The words of the refusals whose words are the catalogue's (src/words/*/elsewhere.ftl), in
    /// `language`; `None` for the others.
    pub fn words(&self, language: Language) -> Option<String> {
        let (key, args) = match *self {
            Refusal::NotOwnMoves { to_version } => (
                key!("refusal-undo-not-own-moves"),
                Args::new().number("to_version", to_version),
            ),
            Refusal::Declined { declined_at } => (
                key!("refusal-undo-declined"),
                Args::new().number("declined_at", declined_at),
            ),
            Refusal::NoTarget {
                version,
                why,
                before,
            } => (
                key!("refusal-undo-target"),
                Args::new()
                    .choice("why", why.as_str())
                    .number("version", version)
                    .number("before", before),
            ),
            _ => return None,
        };
        Some(catalogue::say(language, key, &args))
    }

    pub fn message(&self) -> String {
        if let Some(words) = self.words(Language::En) {
            return words;
        }
        match self {
            Refusal::Disabled => {
                "Moves cannot be taken back in this game (its table allows no undo, or it is \
                 not being played)."
                    .to_string()
            }
            Refusal::NothingToUndo => "You have no move to take back.".to_string(),
            Refusal::Barrier {
                barrier_version,
                barrier,
            } => format!(
                "That would take back what happened at version {barrier_version} ({barrier}), \
                 which can no longer be undone."
            ),
            Refusal::Stale { current_version } => format!(
                "The game has moved on: it is at version {current_version} now. Look again \
                 before taking a move back."
            ),
            Refusal::NeedsConsent { needs } => format!(
                "Other players have moved since (seats {}); this table only lets you take back \
                 your own moves.",
                seats_list(needs)
            ),
            Refusal::RequestOpen { request } => {
                format!("Another undo request ({request}) is waiting for answers.")
            }
            Refusal::NoRequest => "There is no such open undo request.".to_string(),
            Refusal::NotYourRequest => {
                "Only the player who asked may withdraw the undo request.".to_string()
            }
            Refusal::NotAsked => {
                "You are not asked to answer this undo request, or you answered it already."
                    .to_string()
            }
            Refusal::Invalid { detail } => detail.clone(),
            Refusal::NotOwnMoves { .. } | Refusal::Declined { .. } | Refusal::NoTarget { .. } => {
                unreachable!("in the catalogue")
            }
        }
    }
}

fn seats_list(seats: &[Seat]) -> String {
    seats
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Decides an undo by `by_seat` of the game read as `timeline`, at `at_version` (the version
/// the caller saw), back to `to_version` (`None`: to just before the caller's latest move).
/// `bot_seats` are the seats the bot plays (a bot seat, or one abandoned to the bot).
/// The caller checked that `by_seat` is a seat of the game.
pub fn plan(
    timeline: &Timeline,
    policy: Policy,
    by_seat: Seat,
    at_version: i64,
    to_version: Option<i64>,
    bot_seats: &[Seat],
) -> Result<Plan, Refusal> {
    let version = timeline.version();
    if policy == Policy::None || version == 0 || timeline.finished() {
        return Err(Refusal::Disabled);
    }
    if at_version != version {
        return Err(Refusal::Stale {
            current_version: version,
        });
    }
    if let Some(open) = timeline.open_request() {
        return Err(Refusal::RequestOpen { request: open.seq });
    }
    let (barrier_version, barrier) = timeline.last_barrier();
    let across = Refusal::Barrier {
        barrier_version,
        barrier,
    };
    let since = timeline.since_barrier();
    let target = match to_version {
        None => {
            let Some(latest) = since.iter().rposition(|b| b.seat() == Some(by_seat)) else {
                // A move of the caller's behind the barrier: say which barrier.
                return Err(
                    if timeline
                        .effective_batches()
                        .any(|b| b.seat() == Some(by_seat))
                    {
                        across
                    } else {
                        Refusal::NothingToUndo
                    },
                );
            };
            match latest {
                0 => barrier_version,
                i => since[i - 1].last,
            }
        }
        Some(t) => {
            if !(0..version).contains(&t) {
                return Err(Refusal::Invalid {
                    detail: format!(
                        "to_version must be a version before the game's current one ({version}), \
                         not {t}"
                    ),
                });
            }
            if t < barrier_version {
                return Err(across);
            }
            if let Some(why) = not_a_target(timeline, t) {
                return Err(Refusal::NoTarget {
                    version: t,
                    why,
                    before: timeline.boundary_before(t),
                });
            }
            t
        }
    };
    let mine_since = since.iter().any(|b| b.seat() == Some(by_seat));
    let range: Vec<&Batch> = since.into_iter().filter(|b| b.last > target).collect();
    if range.is_empty() {
        return Err(Refusal::NoTarget {
            version: target,
            why: NoTarget::NothingAfter,
            before: timeline.boundary_before(target),
        });
    }
    if !range.iter().any(|b| b.seat() == Some(by_seat)) {
        return Err(if mine_since {
            Refusal::NotOwnMoves { to_version: target }
        } else {
            Refusal::NothingToUndo
        });
    }
    let mut others: Vec<Seat> = range
        .iter()
        .filter_map(|b| b.seat())
        .filter(|&s| s != by_seat)
        .collect();
    others.sort_unstable();
    others.dedup();
    if others.is_empty() {
        return Ok(Plan::Rewind { to_version: target });
    }
    match policy {
        Policy::Consent => {
            if let Some(decline) = timeline.declined_here(by_seat) {
                return Err(Refusal::Declined {
                    declined_at: decline.seq,
                });
            }
            Ok(Plan::Ask {
                to_version: target,
                bots: others
                    .iter()
                    .copied()
                    .filter(|s| bot_seats.contains(s))
                    .collect(),
                needs: others,
            })
        }
        _ => Err(Refusal::NeedsConsent { needs: others }),
    }
}

/// Why version `t` (in range, not before the barrier) is no place for an undo to land;
/// `None` when it is one (the end of a move).
fn not_a_target(timeline: &Timeline, t: i64) -> Option<NoTarget> {
    match timeline.target(t) {
        Target::Boundary => None,
        Target::UndoEvent => Some(NoTarget::UndoEvent),
        Target::Undone => Some(NoTarget::Undone),
        Target::MidMove => Some(NoTarget::MidMove),
    }
}

/// Decides the answer `accept` of `seat` to the request `request` of the game read as
/// `timeline`.
pub fn answer(
    timeline: &Timeline,
    seat: Seat,
    request: i64,
    accept: bool,
) -> Result<Answer, Refusal> {
    let open = timeline
        .open_request()
        .filter(|o| o.seq == request)
        .ok_or(Refusal::NoRequest)?;
    if !open.needs.contains(&seat) || open.accepted.contains(&seat) {
        return Err(Refusal::NotAsked);
    }
    if !accept {
        return Ok(Answer::Declined);
    }
    let waiting: Vec<Seat> = open.waiting().into_iter().filter(|&s| s != seat).collect();
    if waiting.is_empty() {
        Ok(Answer::Rewind {
            to_version: open.to_version,
            by_seat: open.by_seat,
            request,
        })
    } else {
        Ok(Answer::Accepted { waiting })
    }
}

/// Decides the withdrawal by `by_seat` of the request `request` of the game read as
/// `timeline`: `Ok` when it is open and theirs.
pub fn withdraw(timeline: &Timeline, by_seat: Seat, request: i64) -> Result<(), Refusal> {
    let open = timeline
        .open_request()
        .filter(|o| o.seq == request)
        .ok_or(Refusal::NoRequest)?;
    if open.by_seat != by_seat {
        return Err(Refusal::NotYourRequest);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::play::events::PlatformEvent;
    use crate::service::play::undo::timeline::tests::Log;

    fn planned(
        log: &Log,
        policy: Policy,
        seat: Seat,
        to: Option<i64>,
        bots: &[Seat],
    ) -> Result<Plan, Refusal> {
        plan(
            &log.timeline().unwrap(),
            policy,
            seat,
            log.version(),
            to,
            bots,
        )
    }

    #[test]
    fn a_seat_takes_back_its_own_last_move_at_once() {
        let mut log = Log::started();
        let a = log.command(0, "move", 1);
        log.command(1, "move", 2);
        for policy in [Policy::Own, Policy::Consent] {
            assert_eq!(
                planned(&log, policy, 1, None, &[]),
                Ok(Plan::Rewind { to_version: a })
            );
        }
        // Several own moves in a row, back to the first of them.
        let b = log.command(1, "move", 1);
        assert_eq!(
            planned(&log, Policy::Own, 1, None, &[]),
            Ok(Plan::Rewind { to_version: b - 1 })
        );
        assert_eq!(
            planned(&log, Policy::Own, 1, Some(a), &[]),
            Ok(Plan::Rewind { to_version: a })
        );
    }

    #[test]
    fn others_moves_in_range_need_consent() {
        let mut log = Log::started();
        log.command(0, "move", 1);
        log.command(1, "move", 1);
        log.command(2, "move", 1);
        assert_eq!(
            planned(&log, Policy::Own, 0, None, &[]),
            Err(Refusal::NeedsConsent { needs: vec![1, 2] })
        );
        let asked = planned(&log, Policy::Consent, 0, None, &[2]).unwrap();
        assert_eq!(
            asked,
            Plan::Ask {
                to_version: 2,
                needs: vec![1, 2],
                bots: vec![2]
            }
        );
        assert!(!asked.rewinds_at_once());
        let bots_only = planned(&log, Policy::Consent, 0, None, &[1, 2]).unwrap();
        assert!(bots_only.rewinds_at_once());
    }

    #[test]
    fn no_undo_reaches_across_a_barrier() {
        let mut log = Log::started();
        let a = log.command(0, "move", 1);
        let drew = log.command(1, "draw", 1);
        log.command(2, "move", 1);
        assert_eq!(
            planned(&log, Policy::Consent, 0, None, &[]),
            Err(Refusal::Barrier {
                barrier_version: drew,
                barrier: "draw"
            })
        );
        assert_eq!(
            planned(&log, Policy::Consent, 2, Some(a), &[]),
            Err(Refusal::Barrier {
                barrier_version: drew,
                barrier: "draw"
            })
        );
        // Right after the barrier is fine.
        assert_eq!(
            planned(&log, Policy::Consent, 2, Some(drew), &[]),
            Ok(Plan::Rewind { to_version: drew })
        );
        // The setup deals: before any move nobody may undo.
        let log = Log::started();
        assert_eq!(
            planned(&log, Policy::Own, 0, None, &[]),
            Err(Refusal::NothingToUndo)
        );
    }

    #[test]
    fn stale_disabled_invalid_and_open_requests_are_refused() {
        let mut log = Log::started();
        let a = log.command(0, "move", 2);
        log.command(1, "move", 1);
        let t = log.timeline().unwrap();
        assert_eq!(
            plan(&t, Policy::Own, 1, a, None, &[]),
            Err(Refusal::Stale {
                current_version: log.version()
            })
        );
        assert_eq!(
            planned(&log, Policy::None, 1, None, &[]),
            Err(Refusal::Disabled)
        );
        assert!(matches!(
            planned(&log, Policy::Own, 1, Some(a - 1), &[]),
            Err(Refusal::NoTarget {
                why: NoTarget::MidMove,
                ..
            })
        ));
        assert!(matches!(
            planned(&log, Policy::Own, 1, Some(log.version()), &[]),
            Err(Refusal::Invalid { .. })
        ));
        assert!(matches!(
            planned(&log, Policy::Own, 1, Some(-1), &[]),
            Err(Refusal::Invalid { .. })
        ));
        // Seat 2 never moved.
        assert_eq!(
            planned(&log, Policy::Consent, 2, None, &[]),
            Err(Refusal::NothingToUndo)
        );
        // Seat 1 may not take back only seat 0's move, and is told so (not "nothing").
        let mut log2 = Log::started();
        let own = log2.command(1, "move", 1);
        log2.command(0, "move", 1);
        assert_eq!(
            planned(&log2, Policy::Consent, 1, Some(own), &[]),
            Err(Refusal::NotOwnMoves { to_version: own })
        );
        let q = log.request(0, 2, vec![1]);
        assert_eq!(
            planned(&log, Policy::Consent, 1, None, &[]),
            Err(Refusal::RequestOpen { request: q })
        );
        // A finished game takes nothing back.
        let mut ended = Log::started();
        ended.command(0, "move", 1);
        ended.push(
            "kontor.game_ended",
            serde_json::json!({"type": "kontor.game_ended"}),
            None,
        );
        assert_eq!(
            planned(&ended, Policy::Consent, 0, None, &[]),
            Err(Refusal::Disabled)
        );
    }

    #[test]
    fn a_target_that_is_no_move_is_named_for_what_it_is() {
        let mut log = Log::started();
        let a = log.command(0, "move", 2);
        log.command(1, "move", 1);
        let q = log.request(0, a, vec![1]);
        let no = log.answer(q, 1, false);
        log.command(2, "move", 1);
        let at = |t: i64| match planned(&log, Policy::Consent, 2, Some(t), &[]) {
            Err(refusal @ Refusal::NoTarget { .. }) => refusal.message(),
            other => panic!("{other:?}"),
        };
        assert!(at(q).contains("an undo's own event"), "{}", at(q));
        assert!(at(no).contains("an undo's own event"), "{}", at(no));
        assert!(at(q).contains(&format!("version {}", q - 1)), "{}", at(q));
        assert!(
            at(a - 1).contains("in the middle of a move"),
            "{}",
            at(a - 1)
        );
        // Taken back: the moves a rewind undid are no target either.
        let mut log = Log::started();
        log.command(0, "move", 1);
        let b = log.command(0, "move", 1);
        log.platform(
            PlatformEvent::Rewound {
                from_version: b,
                to_version: b - 1,
                by_seat: 0,
                request: None,
            },
            None,
        );
        log.command(0, "move", 1);
        match planned(&log, Policy::Own, 0, Some(b), &[]) {
            Err(refusal @ Refusal::NoTarget { .. }) => {
                let words = refusal.message();
                assert!(words.contains("taken back by an earlier undo"), "{words}");
                // In Japanese too, from the catalogue.
                let ja = refusal.words(Language::Ja).unwrap();
                assert!(ja.contains(&b.to_string()) && ja != words, "{ja}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_declined_request_is_not_asked_again_before_the_next_move() {
        let mut log = Log::started();
        log.command(0, "move", 1);
        let mine = log.command(1, "move", 1);
        log.command(2, "move", 1);
        let q = log.request(1, mine - 1, vec![2]);
        let no = log.answer(q, 2, false);
        assert_eq!(
            planned(&log, Policy::Consent, 1, None, &[]),
            Err(Refusal::Declined { declined_at: no })
        );
        // Another seat may still ask; the pause is the requester's.
        assert!(matches!(
            planned(&log, Policy::Consent, 2, None, &[]),
            Ok(Plan::Rewind { .. })
        ));
        assert!(matches!(
            planned(&log, Policy::Consent, 0, None, &[]),
            Ok(Plan::Ask { .. })
        ));
        // A withdrawal is the asker's own choice: no pause.
        let mut other = Log::started();
        other.command(0, "move", 1);
        other.command(1, "move", 1);
        let w = other.request(0, 2, vec![1]);
        other.platform(
            PlatformEvent::UndoWithdrawn {
                request: w,
                by_seat: 0,
            },
            None,
        );
        assert!(planned(&other, Policy::Consent, 0, None, &[]).is_ok());
        // The next move lifts it.
        log.command(0, "move", 1);
        assert!(matches!(
            planned(&log, Policy::Consent, 1, None, &[]),
            Ok(Plan::Ask { .. })
        ));
    }

    #[test]
    fn answers_and_withdrawals() {
        let mut log = Log::started();
        log.command(0, "move", 1);
        log.command(1, "move", 1);
        log.command(2, "move", 1);
        let q = log.request(0, 2, vec![1, 2]);
        let t = log.timeline().unwrap();
        assert_eq!(answer(&t, 0, q, true), Err(Refusal::NotAsked));
        assert_eq!(answer(&t, 1, q + 1, true), Err(Refusal::NoRequest));
        assert_eq!(answer(&t, 1, q, false), Ok(Answer::Declined));
        assert_eq!(
            answer(&t, 1, q, true),
            Ok(Answer::Accepted { waiting: vec![2] })
        );
        assert_eq!(withdraw(&t, 1, q), Err(Refusal::NotYourRequest));
        assert_eq!(withdraw(&t, 0, q), Ok(()));
        log.answer(q, 1, true);
        let t = log.timeline().unwrap();
        assert_eq!(answer(&t, 1, q, true), Err(Refusal::NotAsked));
        assert_eq!(
            answer(&t, 2, q, true),
            Ok(Answer::Rewind {
                to_version: 2,
                by_seat: 0,
                request: q
            })
        );
        log.platform(
            PlatformEvent::UndoWithdrawn {
                request: q,
                by_seat: 0,
            },
            None,
        );
        let t = log.timeline().unwrap();
        assert_eq!(answer(&t, 2, q, true), Err(Refusal::NoRequest));
        assert_eq!(withdraw(&t, 0, q), Err(Refusal::NoRequest));
    }

    #[test]
    fn every_refusal_has_a_code_and_a_message() {
        for refusal in [
            Refusal::Disabled,
            Refusal::NothingToUndo,
            Refusal::NotOwnMoves { to_version: 2 },
            Refusal::Declined { declined_at: 7 },
            Refusal::Barrier {
                barrier_version: 3,
                barrier: "draw",
            },
            Refusal::Stale { current_version: 4 },
            Refusal::NeedsConsent { needs: vec![1] },
            Refusal::RequestOpen { request: 5 },
            Refusal::NoRequest,
            Refusal::NotYourRequest,
            Refusal::NotAsked,
            Refusal::Invalid {
                detail: "x".to_string(),
            },
        ] {
            assert!(!refusal.code().is_empty() && !refusal.message().is_empty());
        }
        assert_eq!(Policy::of(&serde_json::json!({})), Policy::None);
        assert_eq!(
            Policy::of(&serde_json::json!({"undo": "consent"})),
            Policy::Consent
        );
    }
}
