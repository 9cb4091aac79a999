//! Components and the game state (the whole truth of a game; never shown as is).

use super::board::{Colour, SpaceId, board};
use super::protocol::{
    ActionTaken, BidHorseshoe, EndReason, ExtraChoice, MoveReason, Offer, Options, RevealedBid,
};
use crate::games::Seat;
use serde::{Deserialize, Serialize};

/// Die A: 1, 3, 5, 5, 7, 9.
pub const DIE_A: [u8; 6] = [1, 3, 5, 5, 7, 9];
/// Die B: 20, 20, 30, 30, 40, 40.
pub const DIE_B: [u8; 6] = [20, 20, 30, 30, 40, 40];

/// The 60 horseshoes. A horseshoe is identified by its face: silver 1, 2, 10, 20 (13, 3, 13
/// and 3 of them) and gold 21..=48 (one each). Faces never overlap between the metals, and
/// horseshoes with the same face are interchangeable, so no identifier can single out a tile.
pub const ALL_HORSESHOES: [u8; 60] = {
    let mut all = [0u8; 60];
    let mut i = 0;
    while i < 13 {
        all[i] = 1;
        all[16 + i] = 10;
        i += 1;
    }
    all[13] = 2;
    all[14] = 2;
    all[15] = 2;
    all[29] = 20;
    all[30] = 20;
    all[31] = 20;
    let mut g = 0;
    while g < 28 {
        all[32 + g] = 21 + g as u8;
        g += 1;
    }
    all
};

/// Whether a face is a gold horseshoe (21..=48).
pub fn is_gold(value: u8) -> bool {
    value >= 21
}

/// Whether a face exists among the horseshoes.
pub fn is_horseshoe(value: u8) -> bool {
    matches!(value, 1 | 2 | 10 | 20 | 21..=48)
}

pub const START_SMITH_CARDS: u8 = 3;
pub const START_KONTOR_CARDS: u8 = 3;
pub const HORSESHOES_DEALT: usize = 9;
pub const SHARES_DEALT: usize = 3;
/// A player may pass only with this many horseshoes or fewer.
pub const PASS_LIMIT: usize = 4;
/// Standing offers one member of a tie may have at once (a guard against floods; our decision).
pub const MAX_STANDING_OFFERS: usize = 5;

/// One player.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub coins: i64,
    /// Share cards in hand (3, or 5 during a Kontor exchange). A bankrupt player's cards stay
    /// here, public and out of play.
    pub shares: Vec<Colour>,
    /// Horseshoe faces in hand, sorted. Out of play (and public) once bankrupt.
    pub horseshoes: Vec<u8>,
    pub smith_cards: u8,
    pub kontor_cards: u8,
    /// What the player did this round (public).
    pub action: Option<ActionTaken>,
    /// The sealed bid of this round's action step, until the reveal.
    pub bid: Option<Vec<BidHorseshoe>>,
    /// `Some(n)`: went bankrupt at the n-th ship landing.
    pub bankrupt_at: Option<u8>,
}

impl Player {
    pub fn active(&self) -> bool {
        self.bankrupt_at.is_none()
    }

    pub fn count(&self, colour: Colour) -> usize {
        self.shares.iter().filter(|&&c| c == colour).count()
    }
}

/// The step the game is in. Transitional steps (`Resolving`) never last beyond one command.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Phase {
    #[default]
    NotStarted,
    /// `seat` chooses an action.
    Action {
        seat: Seat,
    },
    /// `seat` has drawn two share cards and must return two.
    KontorReturn {
        seat: Seat,
    },
    /// Bids were revealed or dice rolled; the next event decides what follows.
    Resolving,
    /// `seat` alone moves the ghost ship.
    Move {
        seat: Seat,
        reason: MoveReason,
    },
    /// The tied players declare destinations in turn (`tie` in seat order from the start
    /// player; `declared[i]` belongs to `tie[i]`).
    Declaration {
        tie: Vec<Seat>,
        declared: Vec<SpaceId>,
    },
    /// The tied players negotiate with offers.
    Negotiation {
        tie: Vec<Seat>,
        declared: Vec<SpaceId>,
        offers: Vec<Offer>,
        next_offer: u32,
    },
    /// The tied players secretly drop out or bid again.
    ExtraRound {
        tie: Vec<Seat>,
        choices: Vec<Option<ExtraChoice>>,
    },
    /// The movers landed on an island; each may take income with one share card.
    IslandIncome {
        movers: Vec<Seat>,
        decided: Vec<bool>,
    },
    Finished {
        reason: EndReason,
    },
}

/// The whole truth of a game. Never shown as is: see `view`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    pub options: Options,
    pub players: Vec<Player>,
    pub round: u32,
    pub start_player: Seat,
    pub dice: [u8; 2],
    pub lucky_number: u8,
    /// Value-track position of each colour's marker (index into the chests).
    pub markers: [u8; 6],
    /// Value-track position of the round marker.
    pub round_marker: u8,
    pub ghost: Option<SpaceId>,
    /// The space the ghost ship came from in its last move.
    pub previous: Option<SpaceId>,
    pub ship_landings: u8,
    /// Face down; index 0 is the top.
    pub share_stack: std::collections::VecDeque<Colour>,
    /// Face down, in shuffled order; the smith split takes from the end (the top).
    pub pool: Vec<u8>,
    /// Out of the game, unseen.
    pub unused: Vec<u8>,
    /// Horseshoes revealed in bids this round; into the pool at the clean-up.
    pub spent: Vec<u8>,
    /// The latest reveal of this round (public).
    pub last_reveal: Vec<RevealedBid>,
    pub phase: Phase,
    /// Negotiations opened so far (keys the negotiation timer).
    pub negotiations: u32,
    /// Ducats paid to the bank and taken from it so far (money conservation).
    pub paid_to_bank: i64,
    pub taken_from_bank: i64,
}

impl State {
    pub fn seats(&self) -> u8 {
        self.players.len() as u8
    }

    pub fn chest(&self, position: u8) -> u8 {
        self.options.value_track.chests()[usize::from(position)]
    }

    /// The current value of a colour.
    pub fn value(&self, colour: Colour) -> i64 {
        i64::from(self.chest(self.markers[colour.index()]))
    }

    pub fn active(&self, seat: Seat) -> bool {
        self.players
            .get(usize::from(seat))
            .is_some_and(Player::active)
    }

    pub fn active_count(&self) -> usize {
        self.players.iter().filter(|p| p.active()).count()
    }

    /// The next active seat clockwise after `seat` (may be `seat` itself if alone).
    pub fn next_active(&self, seat: Seat) -> Seat {
        let n = self.seats();
        let mut s = seat;
        for _ in 0..n {
            s = (s + 1) % n;
            if self.active(s) {
                return s;
            }
        }
        seat
    }

    /// Active seats in table order starting with the start player.
    pub fn order_from_start(&self) -> impl Iterator<Item = Seat> + '_ {
        let n = self.seats();
        (0..n)
            .map(move |i| (self.start_player + i) % n)
            .filter(|&s| self.active(s))
    }

    /// Sorts seats into table order from the start player.
    pub fn sort_from_start(&self, seats: &mut [Seat]) {
        let n = self.seats();
        let start = self.start_player;
        seats.sort_by_key(|&s| (s + n - start) % n);
    }

    pub fn finished(&self) -> bool {
        matches!(self.phase, Phase::Finished { .. })
    }

    /// Where the ghost ship may go now: adjacent, never back to the previous space.
    pub fn destinations(&self) -> impl Iterator<Item = SpaceId> + '_ {
        let here = self.ghost.unwrap_or_else(|| board().start());
        board()
            .adjacent(here)
            .iter()
            .copied()
            .filter(move |&s| Some(s) != self.previous)
    }

    /// Wealth for scoring: coins plus the current value of each held share.
    pub fn wealth(&self, seat: Seat) -> i64 {
        let p = &self.players[usize::from(seat)];
        p.coins + p.shares.iter().map(|&c| self.value(c)).sum::<i64>()
    }
}
