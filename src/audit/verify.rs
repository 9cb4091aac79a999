//! Fairness verification of a finished game's complete export.
//!
//! The server committed to a secret seed (its SHA-256 is public from the creation of the
//! game) and every random draw comes from the documented RNG keyed by that seed, the seat
//! nonces and the step (see `games::rng`). Once the seed is revealed, this re-derives the
//! whole game: it re-runs the setup and re-decides every recorded command with the generator
//! of its step, and requires the recorded events to be exactly those. A changed roll, deal or
//! shuffle, a seed that does not match the commitment, or an event no command explains is
//! reported with the sequence number of the first event that does not match.

use super::{ExportEvent, ExportHeader};
use crate::games::rng::{GameRng, commitment};
use crate::games::{GameKind, Rules, Seat};
use crate::service::play::rank_forfeits_last;
use crate::service::{PlatformEvent, is_platform_event};
use crate::with_rules;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

/// The result of a verification.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"verified": false, "kind": "flying-dutchman", "events_checked": 41, "commands_checked": 17,
    "failure": {"seq": 42, "reason": "the recorded event differs from what the seed and the command give"}}))]
pub struct Verification {
    /// True when every event is exactly what the seed, the nonces and the commands give.
    pub verified: bool,
    pub kind: String,
    /// Events confirmed before the first mismatch (all of them when verified).
    pub events_checked: usize,
    pub commands_checked: usize,
    pub failure: Option<Failure>,
}

/// The first thing that does not match.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Failure {
    /// The sequence number of the first event that does not match, if one is to blame.
    pub seq: Option<i64>,
    pub reason: String,
}

impl Failure {
    fn at(seq: i64, reason: impl Into<String>) -> Self {
        Self {
            seq: Some(seq),
            reason: reason.into(),
        }
    }

    fn general(reason: impl Into<String>) -> Self {
        Self {
            seq: None,
            reason: reason.into(),
        }
    }
}

#[derive(Default)]
struct Progress {
    events: usize,
    commands: usize,
}

/// Verifies a parsed export.
pub fn verify_export(header: &ExportHeader, events: &[ExportEvent]) -> Verification {
    let mut progress = Progress::default();
    let result = match GameKind::parse(&header.kind) {
        None => Err(Failure::general(format!(
            "unknown game kind {:?}",
            header.kind
        ))),
        Some(kind) => with_rules!(kind, R => verify::<R>(header, events, &mut progress)),
    };
    Verification {
        verified: result.is_ok(),
        kind: header.kind.clone(),
        events_checked: progress.events,
        commands_checked: progress.commands,
        failure: result.err(),
    }
}

fn seed_of(header: &ExportHeader) -> Result<[u8; 32], Failure> {
    if !header.complete {
        return Err(Failure::general(
            "this export is redacted for one viewer; only a complete log (exported after the \
             game ended) can be verified",
        ));
    }
    let hex_seed = header
        .seed
        .as_deref()
        .ok_or_else(|| Failure::general("the game has not ended, so its seed is still secret"))?;
    let bytes = hex::decode(hex_seed)
        .ok()
        .filter(|b| b.len() == 32)
        .ok_or_else(|| Failure::general("the seed is not 32 bytes of hex"))?;
    let mut seed = [0u8; 32];
    seed.copy_from_slice(&bytes);
    Ok(seed)
}

/// Checks that the recorded event is the one the seed and the command give, then applies it.
fn apply_recorded<R: Rules>(
    state: &mut R::State,
    event: &R::Event,
    recorded: &ExportEvent,
) -> Result<(), Failure> {
    let expected = serde_json::to_value(event).expect("events serialise");
    if expected != recorded.event.data {
        return Err(mismatch(
            recorded.event.seq,
            &expected,
            &recorded.event.data,
        ));
    }
    R::evolve(state, event);
    Ok(())
}

fn mismatch(seq: i64, expected: &Value, recorded: &Value) -> Failure {
    Failure::at(
        seq,
        format!(
            "the recorded event differs from what the seed and the command give: expected {}, \
             recorded {}",
            abbreviate(expected),
            abbreviate(recorded)
        ),
    )
}

fn abbreviate(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 300 {
        format!("{}…", text.chars().take(300).collect::<String>())
    } else {
        text
    }
}

fn verify<R: Rules>(
    header: &ExportHeader,
    events: &[ExportEvent],
    progress: &mut Progress,
) -> Result<(), Failure> {
    let seed = seed_of(header)?;
    for (index, line) in events.iter().enumerate() {
        if line.event.seq != index as i64 + 1 {
            return Err(Failure::at(
                line.event.seq,
                format!(
                    "expected sequence number {}: the log has a gap or a duplicate",
                    index + 1
                ),
            ));
        }
    }
    let ended_seq = events.last().map(|e| e.event.seq).unwrap_or(0);
    if commitment(&seed) != header.seed_commitment {
        return Err(Failure::at(
            ended_seq,
            "the revealed seed does not match the commitment published before the game",
        ));
    }
    let first = events
        .first()
        .ok_or_else(|| Failure::general("the export has no events"))?;
    let Ok(PlatformEvent::GameStarted {
        options,
        seats,
        seed_commitment,
        nonces,
        ..
    }) = serde_json::from_value::<PlatformEvent>(first.event.data.clone())
    else {
        return Err(Failure::at(1, "the first event is not kontor.game_started"));
    };
    if seed_commitment != header.seed_commitment {
        return Err(Failure::at(
            1,
            "the start event commits to a different seed",
        ));
    }
    progress.events = 1;
    let options: R::Options = serde_json::from_value(options)
        .map_err(|e| Failure::at(1, format!("the options do not decode: {e}")))?;
    let seat_count = u8::try_from(seats.len()).map_err(|_| Failure::at(1, "too many seats"))?;

    // The setup, re-derived with the generator of step 2.
    let mut rng = GameRng::for_step(&seed, &nonces, 2);
    let setup = R::setup(&options, seat_count, &mut rng);
    let mut index = 1;
    let mut state = R::State::default();
    for event in &setup {
        let recorded = events
            .get(index)
            .ok_or_else(|| Failure::general("the log ends inside the setup"))?;
        apply_recorded::<R>(&mut state, event, recorded)?;
        index += 1;
        progress.events += 1;
    }

    // Every command, re-decided with the generator of its step. A command's batch may begin
    // with platform events (a timeout, an abandonment) before the rules' events.
    let mut ended = false;
    let mut forfeited: Vec<Seat> = Vec::new();
    let platform = |line: &ExportEvent| -> Result<Option<PlatformEvent>, Failure> {
        if !is_platform_event(&line.event.kind) {
            return Ok(None);
        }
        serde_json::from_value::<PlatformEvent>(line.event.data.clone())
            .map(Some)
            .map_err(|_| Failure::at(line.event.seq, "a platform event does not decode"))
    };
    while index < events.len() {
        let line = &events[index];
        let seq = line.event.seq;
        if let Some(record) = &line.command {
            let command: R::Command =
                serde_json::from_value(record.action.clone()).map_err(|e| {
                    Failure::at(seq, format!("the recorded command does not decode: {e}"))
                })?;
            let mut rng = GameRng::for_step(&seed, &nonces, seq as u64);
            let decided = R::decide(&state, record.actor, &command, &mut rng).map_err(|e| {
                Failure::at(seq, format!("the rules refuse the recorded command: {e}"))
            })?;
            let mut at = index;
            while let Some(next) = events.get(at)
                && let Some(event) = platform(next)?
                && !matches!(event, PlatformEvent::GameEnded { .. })
            {
                if let PlatformEvent::SeatAbandoned { seat, policy } = &event
                    && policy == "forfeit"
                {
                    forfeited.push(*seat);
                }
                at += 1;
                progress.events += 1;
            }
            for event in &decided {
                let recorded = events
                    .get(at)
                    .filter(|r| at == index || r.command.is_none())
                    .filter(|r| !is_platform_event(&r.event.kind))
                    .ok_or_else(|| {
                        Failure::at(seq, "the log lacks events this command produces")
                    })?;
                apply_recorded::<R>(&mut state, event, recorded)?;
                progress.events += 1;
                at += 1;
            }
            index = at;
            progress.commands += 1;
            continue;
        }
        match platform(line)? {
            Some(PlatformEvent::GameEnded {
                outcome,
                seed: revealed,
            }) => {
                if Some(revealed.as_str()) != header.seed.as_deref() {
                    return Err(Failure::at(seq, "the final event reveals a different seed"));
                }
                let mut expected = R::outcome(&state);
                if let Some(expected) = &mut expected {
                    rank_forfeits_last(expected, &forfeited);
                }
                if expected.as_ref() != Some(&outcome) {
                    return Err(Failure::at(
                        seq,
                        "the recorded result is not the result of the game",
                    ));
                }
                ended = true;
            }
            Some(PlatformEvent::GameStarted { .. }) => {
                return Err(Failure::at(seq, "a second kontor.game_started event"));
            }
            // Seat changes outside a command (a player returning) draw nothing.
            Some(_) => {}
            None => {
                return Err(Failure::at(seq, "no recorded command explains this event"));
            }
        }
        index += 1;
        progress.events += 1;
    }
    if !ended {
        return Err(Failure::general("the log has no kontor.game_ended event"));
    }
    Ok(())
}
