//! Verification of logs with undos: games played through the pure step with the real
//! engines, with own undos, consented ones, declined and lapsed requests; tampered rewinds;
//! and the promise that taking a move back never changes a later draw.

use super::verify::{rederive, verify_export};
use super::{CommandRecord, EXPORT_FORMAT, EXPORT_FORMAT_VERSION, ExportEvent, ExportHeader};
use crate::games::flying_dutchman::FlyingDutchman;
use crate::games::rng::commitment;
use crate::games::steel_driver::SteelDriver;
use crate::games::{Actor, BotLevel, GameRng, Rules, Seat, Viewer};
use crate::service::play::actions::{Origin, Submission};
use crate::service::play::events::{PlatformEvent, SeatInfo, UndoLapse, is_platform_event};
use crate::service::play::log::EventOut;
use crate::service::play::step::{self, Game};
use crate::service::play::undo::{Line, Plan, Policy, Timeline, plan};
use crate::store::events::NewEvent;
use crate::store::games::{GameHead, SeatRow, Status};
use crate::store::seats::{SeatClock, SeatState};
use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use uuid::Uuid;

const SEATS: i16 = 3;

fn at() -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000, 0).unwrap()
}

fn user(seat: i16) -> Uuid {
    Uuid::from_u128(0x2000 + seat as u128)
}

/// A game of `R` played through the pure step, with its log as a complete export's lines.
struct Played<R: Rules> {
    head: GameHead,
    clocks: Vec<SeatClock>,
    state: R::State,
    lines: Vec<ExportEvent>,
}

impl<R: Rules> Played<R> {
    /// Starts a game whose table's undo setting is `undo` (`None`: no setting, as a game
    /// stored before undo existed).
    fn begin(undo: Option<&str>) -> Self {
        let options = R::parse_options(&json!({}), SEATS as u8).expect("default options");
        let seed = [9u8; 32];
        let head = GameHead {
            id: Uuid::from_u128(77),
            kind: R::KIND.to_string(),
            rules_version: R::RULES_VERSION as i32,
            options: serde_json::to_value(options).unwrap(),
            seat_count: SEATS,
            visibility: "public".to_string(),
            status: Status::Open,
            version: 0,
            created_by: user(0),
            seed: seed.to_vec(),
            seed_commitment: commitment(&seed),
            nonces: None,
            pending_seats: Vec::new(),
            outcome: None,
            sandbox: false,
            imported_from: None,
            time_control: None,
            created_at: at(),
            started_at: None,
            finished_at: None,
            turn_started_at: None,
            undone_events: 0,
        };
        let seats: Vec<SeatRow> = (0..SEATS)
            .map(|seat| SeatRow {
                seat,
                user_id: user(seat),
                username: format!("player{seat}"),
                display_name: None,
                nonce: format!("nonce {seat}"),
                state: SeatState::Active,
                deadline: None,
            })
            .collect();
        let clocks: Vec<SeatClock> = (0..SEATS)
            .map(|seat| SeatClock {
                seat,
                user_id: user(seat),
                state: SeatState::Active,
                bank_secs: None,
                timeouts: 0,
                vacation_until: None,
                turn_started_at: None,
            })
            .collect();
        let start = step::start::<R>(&head, &seats, &clocks, at()).unwrap();
        let mut played = Played {
            state: serde_json::from_value(start.state).unwrap(),
            clocks,
            lines: Vec::new(),
            head: head.clone(),
        };
        for event in &start.events {
            played.push(event, None);
        }
        // The table's setting is the platform's: the start event records it with the options.
        if let Some(undo) = undo {
            played.head.options["undo"] = json!(undo);
            played.lines[0].event.data["options"]["undo"] = json!(undo);
        }
        played.head.status = Status::Active;
        played.head.version = start.version;
        played.head.pending_seats = start.pending;
        played.head.nonces = Some(start.nonces);
        played
    }

    fn push(&mut self, event: &NewEvent, command: Option<CommandRecord>) -> i64 {
        let seq = self.lines.len() as i64 + 1;
        self.lines.push(ExportEvent {
            event: EventOut {
                seq,
                kind: event.kind.clone(),
                actor: event.actor,
                at: at(),
                data: event.payload.clone(),
                undone: false,
                auto: None,
                reason: None,
            },
            command,
        });
        seq
    }

    fn version(&self) -> i64 {
        self.head.version
    }

    fn finished(&self) -> bool {
        self.head.status == Status::Finished
    }

    fn timeline(&self) -> Timeline {
        Timeline::of::<R>(&lines_of(&self.lines)).expect("the log reads")
    }

    /// What a seat's bot would do now (the system's timer when nobody must act).
    fn bot(&self, rng: &mut GameRng) -> (Actor, R::Command) {
        match R::pending(&self.state).first() {
            Some(&seat) => (
                Actor::Seat(seat),
                R::bot_command(&self.state, seat, BotLevel::Random, rng),
            ),
            None => (
                Actor::System,
                R::timer(&self.state).expect("a timer").command,
            ),
        }
    }

    /// Decides `command` by `actor` (after `preface`) without playing it.
    fn decide(
        &self,
        actor: Actor,
        command: &R::Command,
        preface: Vec<PlatformEvent>,
    ) -> step::Decision<R::State> {
        let game = Game {
            head: &self.head,
            seats: &self.clocks,
            armed_timer: None,
            orders: &[],
            orders_revision: None,
        };
        let submission = Submission {
            actor,
            command,
            origin: Origin::default(),
            preface,
            seat_updates: Vec::new(),
        };
        step::decide::<R>(game, self.state.clone(), submission, at()).expect("a legal command")
    }

    /// Plays `command` by `actor`, lapsing an open request first.
    fn play(&mut self, actor: Actor, command: &R::Command) {
        let preface = match self.timeline().open_request() {
            Some(open) => vec![PlatformEvent::UndoLapsed {
                request: open.seq,
                reason: UndoLapse::Moved,
            }],
            None => Vec::new(),
        };
        let decision = self.decide(actor, command, preface);
        // The command, and the forced moves the server played after it, each on its first
        // event.
        for (event, seq) in decision.events.iter().zip(decision.first_seq..) {
            let record = decision
                .commands
                .iter()
                .find(|c| c.first_seq == seq)
                .map(|c| {
                    CommandRecord::new(
                        c.seat.map_or(Actor::System, |s| Actor::Seat(s as Seat)),
                        c.command.clone(),
                        c.auto.as_ref(),
                    )
                });
            self.push(event, record);
        }
        assert_eq!(decision.version, self.lines.len() as i64);
        self.head.version = decision.version;
        self.head.undone_events = decision.undone_events;
        self.head.pending_seats = decision.pending;
        self.head.status = decision.status;
        self.state = decision.state;
        assert_eq!(self.head.undone_events, self.timeline().undone_count());
    }

    /// Appends `event` as it is, whether the log still reads or not.
    fn push_raw(&mut self, event: &PlatformEvent) {
        self.push(&event.to_new_event(), None);
        self.head.version += 1;
    }

    /// Appends undo events (no command) and follows a rewind among them.
    fn undo(&mut self, events: &[PlatformEvent]) {
        for event in events {
            self.push(&event.to_new_event(), None);
        }
        let timeline = self.timeline();
        self.head.version = timeline.version();
        self.head.undone_events = timeline.undone_count();
        if events
            .iter()
            .any(|e| matches!(e, PlatformEvent::Rewound { .. }))
        {
            let lines = lines_of(&self.lines);
            self.state = R::fold(
                timeline
                    .effective_rules(&lines)
                    .iter()
                    .map(|l| serde_json::from_value::<R::Event>(l.payload.clone()).unwrap())
                    .collect::<Vec<_>>()
                    .iter(),
            );
            self.head.pending_seats = R::pending(&self.state).into_iter().map(i16::from).collect();
        }
    }

    fn rewound(&self, to_version: i64, by_seat: Seat, request: Option<i64>) -> PlatformEvent {
        PlatformEvent::Rewound {
            from_version: self.version(),
            to_version,
            by_seat,
            request,
        }
    }

    fn requested(&self, by_seat: Seat, to_version: i64, needs: Vec<Seat>) -> PlatformEvent {
        PlatformEvent::UndoRequested {
            by_seat,
            at_version: self.version(),
            to_version,
            needs,
            deadline: at() + chrono::Duration::hours(24),
        }
    }

    /// The complete export (the seed revealed even if the game runs on: a failure before
    /// the end is reported where it is).
    fn export(&self) -> (ExportHeader, Vec<ExportEvent>) {
        let header = ExportHeader {
            format: EXPORT_FORMAT.to_string(),
            format_version: EXPORT_FORMAT_VERSION,
            game_id: self.head.id,
            kind: R::KIND.to_string(),
            rules_version: self.head.rules_version,
            status: self.head.status.as_str().to_string(),
            seats: (0..SEATS)
                .map(|seat| SeatInfo {
                    seat: seat as Seat,
                    user_id: user(seat),
                    username: format!("player{seat}"),
                    bot: false,
                })
                .collect(),
            options: self.head.options.clone(),
            seed_commitment: self.head.seed_commitment.clone(),
            nonces: self.head.nonces.clone(),
            seed: Some(hex::encode(&self.head.seed)),
            viewer: Viewer::Omniscient,
            complete: true,
            version: self.version(),
            sandbox: false,
            exported_at: at(),
        };
        (header, self.lines.clone())
    }

    /// The rules events that count, in order.
    fn effective_rules(&self) -> Vec<Value> {
        let timeline = self.timeline();
        self.lines
            .iter()
            .filter(|l| timeline.effective(l.event.seq) && !is_platform_event(&l.event.kind))
            .map(|l| l.event.data.clone())
            .collect()
    }
}

fn lines_of(lines: &[ExportEvent]) -> Vec<Line<'_>> {
    lines
        .iter()
        .map(|e| Line {
            seq: e.event.seq,
            kind: &e.event.kind,
            payload: &e.event.data,
            command: e.command.as_ref().map(|c| c.actor),
        })
        .collect()
}

/// How many undos of each sort a played game has.
#[derive(Debug, Default)]
struct Undos {
    own: usize,
    consented: usize,
    declined: usize,
    lapsed: usize,
    /// Lapsed because a seat changed hands first (its player left).
    lapsed_by_seat: usize,
    withdrawn: usize,
}

/// Plays a whole game of `R` with random bots under the `consent` policy, and whenever the
/// seat that just moved may take moves back, sometimes does: at once when only its own moves
/// are in range, else by a request that is accepted, declined, withdrawn, or lapsed by the
/// next move or by a seat's player leaving first.
fn play_with_undos<R: Rules>(seed: u64) -> (Played<R>, Undos) {
    let mut game = Played::<R>::begin(Some("consent"));
    let mut bots = GameRng::from_u64(seed);
    let mut dice = GameRng::from_u64(seed + 1);
    let mut undos = Undos::default();
    let mut count = 0;
    for _ in 0..20_000 {
        if game.finished() {
            return (game, undos);
        }
        let (actor, command) = game.bot(&mut bots);
        game.play(actor, &command);
        if game.finished() || count >= 40 || dice.below(3) != 0 {
            continue;
        }
        // Any seat may ask: the one that just moved takes its move back at once, another
        // asks the seats that moved after it.
        let seat = dice.below(SEATS as u32) as Seat;
        let timeline = game.timeline();
        let Ok(planned) = plan(&timeline, Policy::Consent, seat, game.version(), None, &[]) else {
            continue;
        };
        count += 1;
        match planned {
            Plan::Rewind { to_version } => {
                undos.own += 1;
                let rewound = game.rewound(to_version, seat, None);
                game.undo(&[rewound]);
            }
            Plan::Ask {
                to_version, needs, ..
            } => {
                let request = game.requested(seat, to_version, needs.clone());
                game.undo(&[request]);
                let q = game.version();
                match dice.below(4) {
                    0 => {
                        undos.declined += 1;
                        game.undo(&[PlatformEvent::UndoAnswered {
                            request: q,
                            seat: needs[0],
                            accept: false,
                        }]);
                    }
                    1 => {
                        undos.withdrawn += 1;
                        game.undo(&[PlatformEvent::UndoWithdrawn {
                            request: q,
                            by_seat: seat,
                        }]);
                    }
                    // Lapsed by the next move, or by a seat changing hands first (its player
                    // leaves; the bot plays it on).
                    2 => {
                        undos.lapsed += 1;
                        // Every other lapse, the first included.
                        if undos.lapsed % 2 == 1 {
                            undos.lapsed_by_seat += 1;
                            game.undo(&[PlatformEvent::UndoLapsed {
                                request: q,
                                reason: UndoLapse::Seat,
                            }]);
                            game.push_raw(&PlatformEvent::SeatLeft {
                                seat: needs[0],
                                policy: "bot".to_string(),
                            });
                        }
                    }
                    _ => {
                        undos.consented += 1;
                        let mut events: Vec<PlatformEvent> = needs
                            .iter()
                            .map(|&s| PlatformEvent::UndoAnswered {
                                request: q,
                                seat: s,
                                accept: true,
                            })
                            .collect();
                        let mut rewound = game.rewound(to_version, seat, Some(q));
                        if let PlatformEvent::Rewound { from_version, .. } = &mut rewound {
                            *from_version += events.len() as i64;
                        }
                        events.push(rewound);
                        game.undo(&events);
                    }
                }
            }
        }
    }
    panic!("{} did not end", R::KIND);
}

fn assert_verifies(header: &ExportHeader, lines: &[ExportEvent]) {
    let verification = verify_export(header, lines);
    assert!(
        verification.verified,
        "{:?} at {:?}",
        verification.failure,
        verification
            .failure
            .as_ref()
            .and_then(|f| f.seq)
            .and_then(|s| lines.get(s as usize - 1))
            .map(|l| (&l.event.kind, &l.event.data))
    );
}

fn finished_games_with_undos_verify_and_round_trip<R: Rules>() {
    let mut seen = Undos::default();
    for seed in 1..=4 {
        let (game, undos) = play_with_undos::<R>(seed);
        let (header, lines) = game.export();
        assert_verifies(&header, &lines);
        // The import stores the log as re-derived: exactly the recorded lines, and its own
        // export verifies again.
        let derived = rederive::<R>(&header, &lines).unwrap();
        assert_eq!(derived.events.len(), lines.len());
        for (event, line) in derived.events.iter().zip(&lines) {
            assert_eq!(
                (&event.kind, &event.payload, event.actor),
                (&line.event.kind, &line.event.data, line.event.actor)
            );
        }
        assert_eq!(derived.state, game.state);
        let mut again: Vec<ExportEvent> = derived
            .events
            .iter()
            .zip(1..)
            .map(|(event, seq)| ExportEvent {
                event: EventOut {
                    seq,
                    kind: event.kind.clone(),
                    actor: event.actor,
                    at: at(),
                    data: event.payload.clone(),
                    undone: game.timeline().undone(seq),
                    auto: None,
                    reason: None,
                },
                command: None,
            })
            .collect();
        for command in &derived.commands {
            again[command.first_seq as usize - 1].command = Some(CommandRecord::new(
                command.seat.map_or(Actor::System, Actor::Seat),
                command.action.clone(),
                command.auto.as_ref(),
            ));
        }
        // The `undone` marks the export may carry are ignored.
        assert!(again.iter().any(|e| e.event.undone) || undos.own + undos.consented == 0);
        assert_verifies(&header, &again);
        seen.own += undos.own;
        seen.consented += undos.consented;
        seen.declined += undos.declined;
        seen.lapsed += undos.lapsed;
        seen.lapsed_by_seat += undos.lapsed_by_seat;
        seen.withdrawn += undos.withdrawn;
    }
    assert!(
        seen.own > 0
            && seen.consented > 0
            && seen.declined > 0
            && seen.lapsed > 0
            && seen.lapsed_by_seat > 0
            && seen.withdrawn > 0,
        "{seen:?}"
    );
}

#[test]
fn finished_flying_dutchman_games_with_undos_verify_and_round_trip() {
    finished_games_with_undos_verify_and_round_trip::<FlyingDutchman>();
}

#[test]
fn finished_steel_driver_games_with_undos_verify_and_round_trip() {
    finished_games_with_undos_verify_and_round_trip::<SteelDriver>();
}

/// Plays with bots until `ready` says the game is where a test wants it.
fn play_until<R: Rules>(
    game: &mut Played<R>,
    bots: &mut GameRng,
    ready: impl Fn(&Played<R>) -> bool,
) {
    for _ in 0..5_000 {
        if ready(game) {
            return;
        }
        assert!(!game.finished(), "the game ended first");
        let (actor, command) = game.bot(bots);
        game.play(actor, &command);
    }
    panic!("never ready");
}

/// Replaces the data of line `seq` with `data`.
fn tampered(lines: &[ExportEvent], seq: i64, data: Value) -> Vec<ExportEvent> {
    let mut lines = lines.to_vec();
    lines[seq as usize - 1].event.data = data;
    lines
}

fn fails_at(header: &ExportHeader, lines: &[ExportEvent], seq: i64, reason: &str) {
    let verification = verify_export(header, lines);
    let failure = verification.failure.expect("it fails");
    assert_eq!(failure.seq, Some(seq), "{failure:?}");
    assert!(failure.reason.contains(reason), "{failure:?}");
}

/// The seats whose moves are effective after the last barrier, in order.
fn movers<R: Rules>(game: &Played<R>) -> Vec<Seat> {
    game.timeline()
        .since_barrier()
        .iter()
        .filter_map(|b| b.seat())
        .collect()
}

#[test]
fn tampered_rewinds_fail_verification() {
    // A position where two seats moved after the last barrier (an auction's bids).
    let mut bots = GameRng::from_u64(3);
    let mut game = Played::<SteelDriver>::begin(Some("consent"));
    play_until(&mut game, &mut bots, |g| {
        let m = movers(g);
        m.len() >= 2 && m[m.len() - 1] != m[m.len() - 2] && g.timeline().last_barrier().1 != "start"
    });
    let timeline = game.timeline();
    let since = timeline.since_barrier();
    let last = since[since.len() - 1].clone();
    let before_last = since[since.len() - 2].clone();
    let (barrier, kind) = timeline.last_barrier();
    let mover = last.seat().unwrap();
    // The honest own undo of the last move verifies up to the end of the log.
    let mut honest = Played::<SteelDriver> {
        head: game.head.clone(),
        clocks: game.clocks.clone(),
        state: game.state.clone(),
        lines: game.lines.clone(),
    };
    let rewound = honest.rewound(before_last.last, mover, None);
    honest.undo(&[rewound]);
    let r = honest.version();
    let (header, lines) = honest.export();
    let baseline = verify_export(&header, &lines);
    assert_eq!(
        baseline.failure.map(|f| (f.seq, f.reason)),
        Some((None, "the log has no kontor.game_ended event".to_string()))
    );
    let with = |to_version: i64, request: Option<i64>| {
        serde_json::to_value(PlatformEvent::Rewound {
            from_version: r - 1,
            to_version,
            by_seat: mover,
            request,
        })
        .unwrap()
    };
    // Back across the barrier.
    let earlier = timeline
        .effective_batches()
        .rfind(|b| b.last < barrier)
        .unwrap()
        .last;
    fails_at(
        &header,
        &tampered(&lines, r, with(earlier, None)),
        r,
        &format!("({kind}), which can no longer be undone"),
    );
    // Into the middle of a batch: the barrier's batch has several events.
    let barrier_batch = timeline
        .effective_batches()
        .find(|b| b.last == barrier)
        .unwrap();
    if barrier_batch.first < barrier_batch.last {
        fails_at(
            &header,
            &tampered(&lines, r, with(barrier - 1, None)),
            r,
            "can no longer be undone",
        );
    }
    // Back over another seat's move without its consent.
    fails_at(
        &header,
        &tampered(&lines, r, with(before_last.first - 1, None)),
        r,
        "without their consent",
    );
    // A rewind naming a request that was never made.
    fails_at(
        &header,
        &tampered(&lines, r, with(before_last.last, Some(3))),
        r,
        "not the open request",
    );
    // The same honest undo under a table that allows none (or says nothing: none).
    for undo in [json!("none"), Value::Null] {
        let mut lines = lines.clone();
        let mut header = header.clone();
        if undo.is_null() {
            lines[0].event.data["options"]
                .as_object_mut()
                .unwrap()
                .remove("undo");
            header.options.as_object_mut().unwrap().remove("undo");
        } else {
            lines[0].event.data["options"]["undo"] = undo.clone();
            header.options["undo"] = undo;
        }
        fails_at(&header, &lines, r, "allows no undo");
    }
    // Under `own`, a request is not the table's way.
    let mut own_lines = game.lines.clone();
    let mut own_header = header.clone();
    own_lines[0].event.data["options"]["undo"] = json!("own");
    own_header.options["undo"] = json!("own");
    let mut asking = Played::<SteelDriver> {
        head: game.head.clone(),
        clocks: game.clocks.clone(),
        state: game.state.clone(),
        lines: own_lines,
    };
    let request = asking.requested(
        mover,
        before_last.first - 1,
        vec![before_last.seat().unwrap()],
    );
    asking.undo(&[request]);
    let (_, lines) = asking.export();
    own_header.version = asking.version();
    fails_at(&own_header, &lines, asking.version(), "only its own moves");
}

#[test]
fn a_consented_rewind_needs_every_answer_and_the_right_seats() {
    let mut bots = GameRng::from_u64(3);
    let mut game = Played::<SteelDriver>::begin(Some("consent"));
    play_until(&mut game, &mut bots, |g| {
        let m = movers(g);
        m.len() >= 2 && m[m.len() - 1] != m[m.len() - 2]
    });
    let since = game
        .timeline()
        .since_barrier()
        .into_iter()
        .cloned()
        .collect::<Vec<_>>();
    let last = &since[since.len() - 1];
    let before_last = &since[since.len() - 2];
    let (asker, other) = (before_last.seat().unwrap(), last.seat().unwrap());
    let to = before_last.first - 1;
    // Asking the wrong seats.
    let mut wrong = Played::<SteelDriver> {
        head: game.head.clone(),
        clocks: game.clocks.clone(),
        state: game.state.clone(),
        lines: game.lines.clone(),
    };
    let stranger = (0..SEATS as Seat)
        .find(|&s| s != asker && s != other)
        .unwrap();
    let request = wrong.requested(asker, to, vec![stranger]);
    let bad = serde_json::to_value(&request).unwrap();
    let honest_request = wrong.requested(asker, to, vec![other]);
    wrong.undo(&[honest_request]);
    let q = wrong.version();
    let (header, lines) = wrong.export();
    fails_at(
        &header,
        &tampered(&lines, q, bad),
        q,
        "the moves it takes back",
    );
    // A rewind before the answer.
    let early = wrong.rewound(to, asker, Some(q));
    wrong.push_raw(&early);
    let (mut header, lines) = wrong.export();
    header.version = wrong.version();
    fails_at(&header, &lines, wrong.version(), "before seats [");
}

#[test]
fn taking_a_move_back_and_playing_on_draws_exactly_as_without_the_misclick() {
    for seed in 1..=4 {
        same_draws::<FlyingDutchman>(seed);
    }
}

/// Plays one game twice with the same bots: the second time, now and then, the seat to act
/// first plays another move (a "misclick" that reveals and draws nothing), takes it back at
/// once, and then plays the move of the first game. Every later event, every draw included,
/// is the same as in the game without misclicks.
fn same_draws<R: Rules>(seed: u64) {
    let mut plain = Played::<R>::begin(Some("own"));
    let mut clumsy = Played::<R>::begin(Some("own"));
    let mut bots = GameRng::from_u64(seed);
    let mut other = GameRng::from_u64(seed + 100);
    let mut misclicks = 0;
    // The plain game's version at the first misclick.
    let mut first = None;
    for _ in 0..20_000 {
        if plain.finished() {
            break;
        }
        let (actor, command) = plain.bot(&mut bots);
        if let Actor::Seat(seat) = actor
            && misclicks < 25
            && other.below(3) == 0
        {
            let wrong = R::bot_command(&clumsy.state, seat, BotLevel::Random, &mut other);
            let decision = clumsy.decide(actor, &wrong, Vec::new());
            let draws_nothing = decision.status == Status::Active
                && decision.events.iter().all(|e| {
                    is_platform_event(&e.kind)
                        || R::barrier(&serde_json::from_value(e.payload.clone()).unwrap()).is_none()
                });
            if wrong != command && draws_nothing {
                clumsy.play(actor, &wrong);
                let timeline = clumsy.timeline();
                match plan(&timeline, Policy::Own, seat, clumsy.version(), None, &[]) {
                    Ok(Plan::Rewind { to_version }) => {
                        let rewound = clumsy.rewound(to_version, seat, None);
                        clumsy.undo(&[rewound]);
                        misclicks += 1;
                        first.get_or_insert(plain.version());
                    }
                    other => panic!("the misclick cannot be taken back: {other:?}"),
                }
                // Exactly the misclick was taken back.
                assert_eq!(clumsy.effective_rules(), plain.effective_rules());
                assert_eq!(clumsy.state, plain.state);
            }
        }
        plain.play(actor, &command);
        clumsy.play(actor, &command);
        assert_eq!(clumsy.effective_rules(), plain.effective_rules());
    }
    assert!(plain.finished() && clumsy.finished());
    assert!(misclicks > 0, "no misclick was made");
    // Something was drawn after the first misclick: a later draw that stayed the same.
    let first = first.unwrap();
    let drawn_after = plain.lines[first as usize..]
        .iter()
        .filter(|l| !is_platform_event(&l.event.kind))
        .filter(|l| {
            let event: R::Event = serde_json::from_value(l.event.data.clone()).unwrap();
            matches!(
                R::barrier(&event),
                Some("draw" | "roll" | "shuffle" | "deal")
            )
        })
        .count();
    assert!(drawn_after > 0, "nothing was drawn after a misclick");
    assert_eq!(clumsy.state, plain.state);
    assert!(clumsy.head.undone_events > 0);
    let (header, lines) = clumsy.export();
    assert_verifies(&header, &lines);
}
