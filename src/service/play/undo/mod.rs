//! Undo: taking moves back by appending events, never by deleting them (issue 23).
//!
//! The log stays append-only. A `kontor.rewound` event at sequence `r` with `to_version = t`
//! undoes every event with `t < seq < r`: the game is again exactly as it was at `t`. The
//! undone events stay in the log, marked as undone in the history views.
//!
//! * [`timeline`]: the pure reading of a log as undo sees it: which events are *effective*
//!   (count for the game's state) and which are undone, the batches (the start, each command,
//!   each standalone platform event) with their actors, the last barrier, the open request,
//!   and the RNG key of the next step.
//! * [`plan`]: the pure decisions: may this seat take moves back now, to where, and who must
//!   consent; answering and withdrawing a request. The service writes what they decide.
//! * [`apply`]: the service: asking, answering, withdrawing, lapsing and rewinding under
//!   the game's row lock, with the open request's projection, clocks, mail and live notes.

pub mod plan;
pub mod timeline;

pub use plan::{Answer, Plan, Policy, Refusal, answer, plan, withdraw};
pub use timeline::{
    Batch, Decline, Line, OpenRequest, Rewind, Skip, Target, Timeline, TimelineError,
};

/// Whether an event of type `kind` belongs to the undo family (`kontor.undo_*`,
/// `kontor.rewound`): these are never effective, they only say what is undone and who asked.
pub fn is_undo_event(kind: &str) -> bool {
    kind.starts_with("kontor.undo_") || kind == "kontor.rewound"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::steel_driver::SteelDriver;
    use crate::games::{Actor, BotLevel, GameRng, Rules, Seat};
    use crate::service::play::events::PlatformEvent;
    use crate::service::play::log::fold_effective;
    use crate::store::events::EventRow;
    use chrono::DateTime;

    fn row(seq: i64, kind: &str, payload: serde_json::Value) -> EventRow {
        EventRow {
            seq,
            kind: kind.to_string(),
            payload,
            audience: None,
            actor: None,
            created_at: DateTime::UNIX_EPOCH,
            auto: None,
        }
    }

    /// A start and `commands` random bot commands of a three-seat Steel Driver game, as
    /// stored rows; with the last seq of each batch.
    fn played(commands: usize) -> (Vec<EventRow>, Vec<i64>) {
        let options = SteelDriver::parse_options(&serde_json::json!({}), 3).unwrap();
        let mut rng = GameRng::from_u64(5);
        let mut rows = vec![row(
            1,
            "kontor.game_started",
            serde_json::json!({"type": "kontor.game_started"}),
        )];
        let mut state = <SteelDriver as Rules>::State::default();
        for event in SteelDriver::setup(&options, 3, &mut rng) {
            SteelDriver::evolve(&mut state, &event);
            let payload = serde_json::to_value(&event).unwrap();
            let kind = payload["type"].as_str().unwrap().to_string();
            rows.push(row(rows.len() as i64 + 1, &kind, payload));
        }
        let mut boundaries = vec![rows.len() as i64];
        for _ in 0..commands {
            let Some(&seat) = SteelDriver::pending(&state).first() else {
                break;
            };
            let command =
                SteelDriver::bot_command(&state, seat as Seat, BotLevel::Random, &mut rng);
            let events =
                SteelDriver::decide(&state, Actor::Seat(seat), &command, &mut rng).unwrap();
            for event in events {
                SteelDriver::evolve(&mut state, &event);
                let payload = serde_json::to_value(&event).unwrap();
                let kind = payload["type"].as_str().unwrap().to_string();
                rows.push(row(rows.len() as i64 + 1, &kind, payload));
            }
            boundaries.push(rows.len() as i64);
        }
        (rows, boundaries)
    }

    fn rewind(rows: &mut Vec<EventRow>, to_version: i64) -> i64 {
        let seq = rows.len() as i64 + 1;
        let event = PlatformEvent::Rewound {
            from_version: seq - 1,
            to_version,
            by_seat: 0,
            request: None,
        };
        rows.push(row(
            seq,
            "kontor.rewound",
            serde_json::to_value(&event).unwrap(),
        ));
        seq
    }

    #[test]
    fn a_fold_skips_what_a_rewind_took_back_and_history_keeps_it() {
        let (mut rows, boundaries) = played(8);
        let target = boundaries[4];
        let end = *boundaries.last().unwrap();
        let at_end = fold_effective::<SteelDriver>(&rows, end).unwrap();
        let at_target = fold_effective::<SteelDriver>(&rows, target).unwrap();
        let r = rewind(&mut rows, target);
        // The rewind's state is the target's.
        assert_eq!(fold_effective::<SteelDriver>(&rows, r).unwrap(), at_target);
        // A version inside the undone range is shown as it was then.
        assert_eq!(fold_effective::<SteelDriver>(&rows, end).unwrap(), at_end);
        // Play goes on from the target: the undone events stay skipped.
        let (replayed, _) = played(8);
        let next = replayed[target as usize].clone();
        rows.push(row(r + 1, &next.kind, next.payload.clone()));
        let mut expected = at_target.clone();
        SteelDriver::evolve(
            &mut expected,
            &serde_json::from_value(next.payload).unwrap(),
        );
        assert_eq!(
            fold_effective::<SteelDriver>(&rows, r + 1).unwrap(),
            expected
        );
        // The marks of the history views.
        let skip = Skip::of(rows.iter().map(|r| (r.seq, r.kind.as_str(), &r.payload))).unwrap();
        let mut out: Vec<crate::service::play::log::EventOut> = rows
            .iter()
            .map(|r| crate::service::play::log::EventOut {
                seq: r.seq,
                kind: r.kind.clone(),
                actor: None,
                at: r.created_at,
                data: r.payload.clone(),
                undone: false,
                auto: None,
                reason: None,
            })
            .collect();
        crate::service::play::log::mark_undone(&mut out, &skip, r + 1);
        for event in &out {
            assert_eq!(
                event.undone,
                event.seq > target && event.seq < r,
                "{}",
                event.seq
            );
        }
        // Serialised, only the undone ones say so.
        let text = serde_json::to_value(&out[0]).unwrap();
        assert!(text.get("undone").is_none());
        let text = serde_json::to_value(&out[target as usize]).unwrap();
        assert_eq!(text["undone"], true);
    }

    #[test]
    fn snapshots_are_kept_at_every_rewind() {
        use crate::store::events::ladder;
        assert_eq!(ladder(70, &[]), vec![32, 64, 70]);
        assert_eq!(ladder(70, &[40, 64]), vec![32, 40, 64, 70]);
        assert_eq!(ladder(30, &[12]), vec![12, 30]);
    }
}
