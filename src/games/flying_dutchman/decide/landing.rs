//! Landing and clean-up: the ghost ship's arrival, island income, the end of a round and of
//! the game, and the [`Proj`] of numbers a command's earlier events change.

use super::super::board::{SpaceId, SpaceKind, board};
use super::super::protocol::{EndReason, Event, ShipPayment};
use super::super::state::{Phase, State};
use super::actions::roll;
use crate::games::{GameRng, Seat};

/// The numbers the events of one command may change before the round's end is decided.
#[derive(Clone, Copy)]
pub(crate) struct Proj {
    pub coins: [i64; 6],
    pub bankrupt_at: [Option<u8>; 6],
    pub markers: [u8; 6],
    pub round_marker: u8,
    pub ship_landings: u8,
}

impl Proj {
    pub fn of(state: &State) -> Proj {
        let mut coins = [0; 6];
        let mut bankrupt_at = [None; 6];
        for (i, p) in state.players.iter().enumerate() {
            coins[i] = p.coins;
            bankrupt_at[i] = p.bankrupt_at;
        }
        Proj {
            coins,
            bankrupt_at,
            markers: state.markers,
            round_marker: state.round_marker,
            ship_landings: state.ship_landings,
        }
    }

    fn active(&self, seat: Seat) -> bool {
        self.bankrupt_at[usize::from(seat)].is_none()
    }
}

/// The ghost ship has reached `to`.
pub(super) fn land(
    state: &State,
    to: SpaceId,
    movers: &[Seat],
    mut proj: Proj,
    rng: &mut GameRng,
    out: &mut Vec<Event>,
) {
    let Some(colour) = board().colour(to) else {
        debug_assert_eq!(board().kind(to), SpaceKind::Island);
        // Island: the movers decide on income; the round goes on after their choices.
        let _ = movers;
        return;
    };
    let value = state.value(colour);
    let mut payments = Vec::new();
    let mut bankrupt = Vec::new();
    for seat in 0..state.seats() {
        if !proj.active(seat) {
            continue;
        }
        let cards = state.players[usize::from(seat)].count(colour);
        if cards == 0 {
            continue;
        }
        let due = cards as i64 * value;
        let broke = proj.coins[usize::from(seat)] < due;
        payments.push(ShipPayment {
            seat,
            cards: cards as u8,
            due,
            bankrupt: broke,
        });
        if broke {
            bankrupt.push(seat);
        } else {
            proj.coins[usize::from(seat)] -= due;
        }
    }
    out.push(Event::ShipHit {
        space: to,
        colour,
        value,
        payments,
    });
    let last = state.options.value_track.last();
    proj.markers[colour.index()] = 0;
    for m in &mut proj.markers {
        *m = (*m + 1).min(last);
    }
    proj.round_marker = (proj.round_marker + 1).min(last);
    proj.ship_landings += 1;
    for &seat in &bankrupt {
        let p = &state.players[usize::from(seat)];
        out.push(Event::Bankrupt {
            seat,
            coins_lost: proj.coins[usize::from(seat)],
            shares: p.shares.clone(),
            horseshoes: p.horseshoes.clone(),
        });
        proj.coins[usize::from(seat)] = 0;
        proj.bankrupt_at[usize::from(seat)] = Some(proj.ship_landings);
    }
    let left = (0..state.seats()).filter(|&s| proj.active(s)).count();
    if left <= 1 {
        let reason = if left == 1 {
            EndReason::LastPlayerStanding
        } else {
            EndReason::AllBankrupt
        };
        out.push(game_ended(state, &proj, reason));
        return;
    }
    clean_up_and_next(state, &proj, rng, out);
}

pub(super) fn after_income(
    state: &State,
    seat: Seat,
    proj: Proj,
    rng: &mut GameRng,
    out: &mut Vec<Event>,
) {
    let Phase::IslandIncome { movers, decided } = &state.phase else {
        unreachable!("after_income is called on an island");
    };
    let all = movers.iter().zip(decided).all(|(&m, &d)| d || m == seat);
    if all {
        clean_up_and_next(state, &proj, rng, out);
    }
}

/// Clean-up (bid horseshoes into the pool, shuffled), the end check, the next round.
pub(super) fn clean_up_and_next(
    state: &State,
    proj: &Proj,
    rng: &mut GameRng,
    out: &mut Vec<Event>,
) {
    if !state.spent.is_empty() {
        let mut pool = Vec::with_capacity(state.pool.len() + state.spent.len());
        pool.extend_from_slice(&state.pool);
        pool.extend_from_slice(&state.spent);
        rng.shuffle(&mut pool);
        out.push(Event::PoolRefilled {
            added: state.spent.len() as u8,
            size: pool.len() as u8,
            pool: Some(pool),
        });
    }
    if proj.round_marker >= state.options.value_track.last() {
        out.push(game_ended(state, proj, EndReason::RoundMarkerAt18));
        return;
    }
    let n = state.seats();
    let mut start = state.start_player;
    for _ in 0..n {
        start = (start + 1) % n;
        if proj.active(start) {
            break;
        }
    }
    let (die_a, die_b) = roll(rng);
    out.push(Event::RoundStarted {
        round: state.round + 1,
        start_player: start,
        die_a,
        die_b,
        lucky_number: die_a + die_b,
    });
}

/// Final scores: wealth = coins + current value of each held share; bankrupt seats none.
pub(crate) struct Scores {
    pub scores: Vec<Option<i64>>,
    pub ranks: Vec<u8>,
    pub winners: Vec<Seat>,
}

pub(crate) fn scores(state: &State, proj: &Proj) -> Scores {
    let n = state.players.len();
    let chests = state.options.value_track.chests();
    let scores: Vec<Option<i64>> = (0..n)
        .map(|i| {
            proj.bankrupt_at[i].is_none().then(|| {
                proj.coins[i]
                    + state.players[i]
                        .shares
                        .iter()
                        .map(|c| i64::from(chests[usize::from(proj.markers[c.index()])]))
                        .sum::<i64>()
            })
        })
        .collect();
    // Survivors by wealth; then the bankrupt, those who lasted longer first (same landing:
    // same rank). Ranks are competition ranks (1, 1, 3).
    let key = |i: usize| -> (u8, i64) {
        match (scores[i], proj.bankrupt_at[i]) {
            (Some(w), _) => (1, w),
            (None, Some(at)) => (0, i64::from(at)),
            (None, None) => (0, 0),
        }
    };
    let ranks: Vec<u8> = (0..n)
        .map(|i| 1 + (0..n).filter(|&j| key(j) > key(i)).count() as u8)
        .collect();
    let winners = (0..n)
        .filter(|&i| ranks[i] == 1)
        .map(|i| i as Seat)
        .collect();
    Scores {
        scores,
        ranks,
        winners,
    }
}

pub(super) fn game_ended(state: &State, proj: &Proj, reason: EndReason) -> Event {
    let s = scores(state, proj);
    Event::GameEnded {
        reason,
        hands: state
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| proj.bankrupt_at[i].is_none().then(|| p.shares.clone()))
            .collect(),
        scores: s.scores,
        winners: s.winners,
    }
}
