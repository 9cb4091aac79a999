//! What each viewer may see (section 7 of the rules): views, redacted events, legal choices,
//! pending seats.

use super::board::{BoardRef, Colour, SpaceId, board};
use super::decide::{Proj, is_pending, scores};
use super::protocol::{ActionTaken, BidHorseshoe, Command, Event, ExtraChoice, Offer, RevealedBid};
use super::protocol::{EndReason, MoveReason, Options};
use super::state::{Phase, State, is_gold};
use crate::games::{Outcome, Seat, Viewer};
use serde::Serialize;
use utoipa::ToSchema;

/// A colour's marker on the value track.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = FdMarker)]
pub struct MarkerView {
    pub colour: Colour,
    /// The chest the marker stands on: the colour's current value.
    pub value: u8,
}

/// One player as a viewer may see them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = FdPlayerView)]
pub struct PlayerView {
    pub seat: Seat,
    pub coins: i64,
    pub bankrupt: bool,
    pub share_count: u8,
    /// Horseshoes behind the player's screen (a sealed extra-round bid included; a bid of the
    /// action step is counted in `action` instead).
    pub horseshoe_count: u8,
    pub smith_cards: u8,
    pub kontor_cards: u8,
    /// What the player did this round.
    pub action: Option<ActionTaken>,
    /// Share cards: the viewer's own, a bankrupt player's (public), everyone's at the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shares: Option<Vec<Colour>>,
    /// Horseshoe faces in hand: the viewer's own, or a bankrupt player's (public).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub horseshoes: Option<Vec<u8>>,
    /// The viewer's own sealed bid of this round's action step, until the reveal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sealed_bid: Option<Vec<BidHorseshoe>>,
    /// The viewer's own secret extra-round choice, until the reveal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extra_choice: Option<ExtraChoice>,
}

/// A tied player's declared destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = FdDeclaration)]
pub struct Declaration {
    pub seat: Seat,
    pub to: SpaceId,
}

/// The current step of the round (public).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(tag = "step", rename_all = "snake_case")]
#[schema(as = FdStep)]
pub enum StepView {
    NotStarted,
    /// Between two events of one command (never seen between commands).
    Resolving,
    /// `seat` chooses an action.
    Action {
        seat: Seat,
    },
    /// `seat` is exchanging share cards (drew two, returns two).
    KontorExchange {
        seat: Seat,
    },
    /// `seat` alone moves the ghost ship.
    Move {
        seat: Seat,
        reason: MoveReason,
    },
    /// The tied players declare destinations in turn; `next` is to declare.
    Declaration {
        tie: Vec<Seat>,
        declarations: Vec<Declaration>,
        next: Seat,
    },
    /// The tied players negotiate.
    Negotiation {
        tie: Vec<Seat>,
        declarations: Vec<Declaration>,
        offers: Vec<Offer>,
        deadline_secs: u32,
    },
    /// The tied players secretly drop out or bid again; `chosen` have made their choice.
    ExtraRound {
        tie: Vec<Seat>,
        chosen: Vec<Seat>,
    },
    /// The movers on an island each may take income; `decided` have.
    IslandIncome {
        movers: Vec<Seat>,
        decided: Vec<Seat>,
    },
    Finished {
        reason: EndReason,
    },
}

/// What nobody sees while the game runs (omniscient views only).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = FdHiddenView)]
pub struct HiddenView {
    /// Top first.
    pub share_stack: Vec<Colour>,
    /// In order; the smith split takes from the end.
    pub pool: Vec<u8>,
    pub unused: Vec<u8>,
}

/// The position as one viewer may see it.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = FdView)]
pub struct View {
    /// The seat this view belongs to; absent for spectators and omniscient views.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
    pub options: Options,
    pub board: BoardRef,
    pub round: u32,
    pub start_player: Seat,
    pub die_a: u8,
    pub die_b: u8,
    pub lucky_number: u8,
    /// The chests of the value track, in order.
    pub value_track: Vec<u8>,
    pub markers: Vec<MarkerView>,
    /// The chest of the round marker; the game ends when it reaches 18.
    pub round_marker: u8,
    pub ship_landings: u8,
    pub ghost_ship: Option<SpaceId>,
    /// The space the ghost ship came from (it may not go back there).
    pub previous_space: Option<SpaceId>,
    pub share_stack_size: u8,
    pub pool_size: u8,
    pub unused_horseshoes: u8,
    pub players: Vec<PlayerView>,
    pub step: StepView,
    /// The latest bids revealed this round.
    pub last_reveal: Vec<RevealedBid>,
    /// Omniscient views only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hidden: Option<HiddenView>,
    /// Once the game has ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
}

fn sees_private(viewer: Viewer, seat: Seat) -> bool {
    match viewer {
        Viewer::Omniscient => true,
        Viewer::Seat(s) => s == seat,
        Viewer::Spectator => false,
    }
}

pub(super) fn view(state: &State, viewer: Viewer) -> View {
    let finished = state.finished();
    let players = state
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let seat = i as Seat;
            let own = sees_private(viewer, seat);
            let extra = match &state.phase {
                Phase::ExtraRound { tie, choices } => tie
                    .iter()
                    .position(|&s| s == seat)
                    .and_then(|k| choices[k].as_ref()),
                _ => None,
            };
            let sealed_extra = match extra {
                Some(ExtraChoice::Bid { horseshoes }) => horseshoes.len(),
                _ => 0,
            };
            PlayerView {
                seat,
                coins: p.coins,
                bankrupt: !p.active(),
                share_count: p.shares.len() as u8,
                horseshoe_count: (p.horseshoes.len() + sealed_extra) as u8,
                smith_cards: p.smith_cards,
                kontor_cards: p.kontor_cards,
                action: p.action,
                shares: (own || !p.active() || finished).then(|| p.shares.clone()),
                horseshoes: (own || !p.active()).then(|| p.horseshoes.clone()),
                sealed_bid: if own { p.bid.clone() } else { None },
                extra_choice: if own { extra.cloned() } else { None },
            }
        })
        .collect();
    let declarations = |tie: &[Seat], declared: &[SpaceId]| {
        tie.iter()
            .zip(declared)
            .map(|(&seat, &to)| Declaration { seat, to })
            .collect::<Vec<_>>()
    };
    let step = match &state.phase {
        Phase::NotStarted => StepView::NotStarted,
        Phase::Resolving => StepView::Resolving,
        Phase::Action { seat } => StepView::Action { seat: *seat },
        Phase::KontorReturn { seat } => StepView::KontorExchange { seat: *seat },
        Phase::Move { seat, reason } => StepView::Move {
            seat: *seat,
            reason: *reason,
        },
        Phase::Declaration { tie, declared } => StepView::Declaration {
            tie: tie.clone(),
            declarations: declarations(tie, declared),
            next: tie[declared.len().min(tie.len() - 1)],
        },
        Phase::Negotiation {
            tie,
            declared,
            offers,
            ..
        } => StepView::Negotiation {
            tie: tie.clone(),
            declarations: declarations(tie, declared),
            offers: offers.clone(),
            deadline_secs: state.options.negotiation_deadline_secs,
        },
        Phase::ExtraRound { tie, choices } => StepView::ExtraRound {
            tie: tie.clone(),
            chosen: tie
                .iter()
                .zip(choices)
                .filter(|(_, c)| c.is_some())
                .map(|(&s, _)| s)
                .collect(),
        },
        Phase::IslandIncome { movers, decided } => StepView::IslandIncome {
            movers: movers.clone(),
            decided: movers
                .iter()
                .zip(decided)
                .filter(|(_, d)| **d)
                .map(|(&s, _)| s)
                .collect(),
        },
        Phase::Finished { reason } => StepView::Finished { reason: *reason },
    };
    View {
        seat: match viewer {
            Viewer::Seat(s) => Some(s),
            _ => None,
        },
        options: state.options,
        board: BoardRef(board()),
        round: state.round,
        start_player: state.start_player,
        die_a: state.dice[0],
        die_b: state.dice[1],
        lucky_number: state.lucky_number,
        value_track: state.options.value_track.chests().to_vec(),
        markers: Colour::ALL
            .iter()
            .map(|&colour| MarkerView {
                colour,
                value: state.chest(state.markers[colour.index()]),
            })
            .collect(),
        round_marker: state.chest(state.round_marker),
        ship_landings: state.ship_landings,
        ghost_ship: state.ghost,
        previous_space: state.previous,
        share_stack_size: state.share_stack.len() as u8,
        pool_size: state.pool.len() as u8,
        unused_horseshoes: state.unused.len() as u8,
        players,
        step,
        last_reveal: state.last_reveal.clone(),
        hidden: (viewer == Viewer::Omniscient).then(|| HiddenView {
            share_stack: state.share_stack.iter().copied().collect(),
            pool: state.pool.clone(),
            unused: state.unused.clone(),
        }),
        outcome: outcome(state),
    }
}

pub(super) fn outcome(state: &State) -> Option<Outcome> {
    if !state.finished() {
        return None;
    }
    let s = scores(state, &Proj::of(state));
    Some(Outcome {
        scores: s.scores,
        ranks: s.ranks,
        winners: s.winners,
    })
}

/// The event as `viewer` may see it: secrets of others (and of the hidden piles) removed.
pub(super) fn redact(event: &Event, viewer: Viewer) -> Option<Event> {
    if viewer == Viewer::Omniscient {
        return Some(event.clone());
    }
    let own = |seat: &Seat| sees_private(viewer, *seat);
    let redacted = match event {
        Event::Dealt {
            seat,
            share_count,
            horseshoe_count,
            ..
        } if !own(seat) => Event::Dealt {
            seat: *seat,
            share_count: *share_count,
            horseshoe_count: *horseshoe_count,
            shares: None,
            horseshoes: None,
        },
        Event::HiddenPilesFormed {
            share_stack_size,
            pool_size,
            unused_size,
            ..
        } => Event::HiddenPilesFormed {
            share_stack_size: *share_stack_size,
            pool_size: *pool_size,
            unused_size: *unused_size,
            share_stack: None,
            pool: None,
            unused: None,
        },
        Event::KontorUsed { seat, .. } if !own(seat) => Event::KontorUsed {
            seat: *seat,
            drawn: None,
        },
        Event::SharesReturned { seat, .. } if !own(seat) => Event::SharesReturned {
            seat: *seat,
            cards: None,
        },
        Event::BidPlaced { seat, size, .. } if !own(seat) => Event::BidPlaced {
            seat: *seat,
            size: *size,
            horseshoes: None,
        },
        Event::HorseshoesDrawn { seat, count, .. } if !own(seat) => Event::HorseshoesDrawn {
            seat: *seat,
            count: *count,
            horseshoes: None,
        },
        Event::ExtraChoiceMade { seat, .. } if !own(seat) => Event::ExtraChoiceMade {
            seat: *seat,
            choice: None,
        },
        Event::PoolRefilled { added, size, .. } => Event::PoolRefilled {
            added: *added,
            size: *size,
            pool: None,
        },
        other => other.clone(),
    };
    Some(redacted)
}

/// Who must (or may) act now. In a negotiation every member of the tie may act; those who
/// accept no standing offer yet come first (the negotiation waits for them).
pub(super) fn pending(state: &State) -> Vec<Seat> {
    match &state.phase {
        Phase::Action { seat } | Phase::KontorReturn { seat } | Phase::Move { seat, .. } => {
            vec![*seat]
        }
        Phase::Declaration { tie, declared } => {
            tie.get(declared.len()).copied().into_iter().collect()
        }
        Phase::Negotiation { tie, offers, .. } => {
            let accepts_some = |s: Seat| offers.iter().any(|o| o.accepted_by.contains(&s));
            let mut seats: Vec<Seat> = tie.iter().copied().filter(|&s| !accepts_some(s)).collect();
            seats.extend(tie.iter().copied().filter(|&s| accepts_some(s)));
            seats
        }
        Phase::ExtraRound { tie, choices } => tie
            .iter()
            .zip(choices)
            .filter(|(_, c)| c.is_none())
            .map(|(&s, _)| s)
            .collect(),
        Phase::IslandIncome { movers, decided } => movers
            .iter()
            .zip(decided)
            .filter(|(_, d)| !**d)
            .map(|(&s, _)| s)
            .collect(),
        Phase::NotStarted | Phase::Resolving | Phase::Finished { .. } => Vec::new(),
    }
}

/// The kind of decision a seat faces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = FdDecision)]
pub enum Decision {
    /// Nothing to do now.
    #[default]
    None,
    /// Choose an action: Kontor exchange, smith, bid or pass.
    Action,
    /// Return two of the five share cards.
    ReturnShares,
    /// Move the ghost ship.
    Move,
    /// Declare a destination in a tie.
    Declare,
    /// Negotiate in a tie.
    Negotiate,
    /// Secretly drop out or bid again.
    ExtraRound,
    /// Take island income with one share card, or decline.
    IslandIncome,
}

/// The type of a command (its `type` tag).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = FdCommandKind)]
pub enum CommandKind {
    UseKontor,
    ReturnShares,
    UseSmith,
    Bid,
    Pass,
    Move,
    Declare,
    MakeOffer,
    AcceptOffer,
    RejectOffer,
    WithdrawOffer,
    NoAgreement,
    DropOut,
    TakeIncome,
    DeclineIncome,
}

/// A horseshoe the seat may bid (its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = FdHorseshoe)]
pub struct HorseshoeView {
    /// The face, which is also how a bid names it.
    pub value: u8,
    pub gold: bool,
}

/// The coins a seat may still promise in offers for one destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = FdPromiseLimit)]
pub struct PromiseLimit {
    pub to: SpaceId,
    pub available: i64,
}

/// A share card the seat may show for island income, and what it pays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = FdIncomeChoice)]
pub struct IncomeChoice {
    pub colour: Colour,
    pub amount: i64,
}

/// What one seat may do now. Empty when it has nothing to do.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = FdLegal)]
pub struct Legal {
    pub decision: Decision,
    /// The commands this seat may send now.
    pub commands: Vec<CommandKind>,
    /// The lucky number a bid must not exceed (while bidding).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lucky_number: Option<u8>,
    /// The seat's horseshoes that may be bid (at most one gold per bid).
    pub horseshoes: Vec<HorseshoeView>,
    /// Where the ghost ship may go (move, declare, make_offer).
    pub destinations: Vec<SpaceId>,
    /// The five cards of which two must be returned.
    pub returnable: Vec<Colour>,
    /// Standing offers (negotiation).
    pub offers: Vec<Offer>,
    /// Offers this seat accepts (its own included).
    pub accepted: Vec<u32>,
    /// Offers this seat rejected.
    pub rejected: Vec<u32>,
    /// Seats an offer may pay (negotiation).
    pub payees: Vec<Seat>,
    /// Coins still available to promise, per destination (negotiation).
    pub promise_limits: Vec<PromiseLimit>,
    /// Share cards that may be shown for island income.
    pub income: Vec<IncomeChoice>,
}

pub(super) fn legal(state: &State, seat: Seat) -> Legal {
    let mut legal = Legal::default();
    if usize::from(seat) >= state.players.len() || !is_pending(state, seat) {
        return legal;
    }
    let p = &state.players[usize::from(seat)];
    let horseshoes = || {
        p.horseshoes
            .iter()
            .map(|&value| HorseshoeView {
                value,
                gold: is_gold(value),
            })
            .collect::<Vec<_>>()
    };
    match &state.phase {
        Phase::Action { .. } => {
            legal.decision = Decision::Action;
            if p.kontor_cards > 0 && state.share_stack.len() >= 2 {
                legal.commands.push(CommandKind::UseKontor);
            }
            if p.smith_cards > 0 {
                legal.commands.push(CommandKind::UseSmith);
            }
            if !p.horseshoes.is_empty() {
                legal.commands.push(CommandKind::Bid);
            }
            if p.horseshoes.len() <= super::state::PASS_LIMIT {
                legal.commands.push(CommandKind::Pass);
            }
            legal.lucky_number = Some(state.lucky_number);
            legal.horseshoes = horseshoes();
        }
        Phase::KontorReturn { .. } => {
            legal.decision = Decision::ReturnShares;
            legal.commands.push(CommandKind::ReturnShares);
            legal.returnable = p.shares.clone();
        }
        Phase::Move { .. } => {
            legal.decision = Decision::Move;
            legal.commands.push(CommandKind::Move);
            legal.destinations = state.destinations().collect();
        }
        Phase::Declaration { .. } => {
            legal.decision = Decision::Declare;
            legal.commands.push(CommandKind::Declare);
            legal.destinations = state.destinations().collect();
        }
        Phase::Negotiation { tie, offers, .. } => {
            legal.decision = Decision::Negotiate;
            let mine = offers.iter().filter(|o| o.by == seat).count();
            if mine < super::state::MAX_STANDING_OFFERS {
                legal.commands.push(CommandKind::MakeOffer);
            }
            if offers
                .iter()
                .any(|o| o.by != seat && !o.accepted_by.contains(&seat))
            {
                legal.commands.push(CommandKind::AcceptOffer);
            }
            if offers
                .iter()
                .any(|o| o.by != seat && !o.rejected_by.contains(&seat))
            {
                legal.commands.push(CommandKind::RejectOffer);
            }
            if mine > 0 {
                legal.commands.push(CommandKind::WithdrawOffer);
            }
            legal.commands.push(CommandKind::NoAgreement);
            legal.destinations = state.destinations().collect();
            legal.offers = offers.clone();
            legal.accepted = offers
                .iter()
                .filter(|o| o.accepted_by.contains(&seat))
                .map(|o| o.id)
                .collect();
            legal.rejected = offers
                .iter()
                .filter(|o| o.rejected_by.contains(&seat))
                .map(|o| o.id)
                .collect();
            legal.payees = tie.iter().copied().filter(|&s| s != seat).collect();
            legal.promise_limits = legal
                .destinations
                .iter()
                .map(|&to| PromiseLimit {
                    to,
                    available: p.coins - promised(offers, seat, to),
                })
                .collect();
        }
        Phase::ExtraRound { .. } => {
            legal.decision = Decision::ExtraRound;
            if !p.horseshoes.is_empty() {
                legal.commands.push(CommandKind::Bid);
            }
            legal.commands.push(CommandKind::DropOut);
            legal.lucky_number = Some(state.lucky_number);
            legal.horseshoes = horseshoes();
        }
        Phase::IslandIncome { .. } => {
            legal.decision = Decision::IslandIncome;
            legal.commands.push(CommandKind::TakeIncome);
            legal.commands.push(CommandKind::DeclineIncome);
            let mut colours = p.shares.clone();
            colours.sort_unstable();
            colours.dedup();
            legal.income = colours
                .into_iter()
                .map(|colour| IncomeChoice {
                    colour,
                    amount: state.value(colour),
                })
                .collect();
        }
        Phase::NotStarted | Phase::Resolving | Phase::Finished { .. } => {}
    }
    legal
}

/// Coins `seat` has promised in standing offers for `to`.
pub(super) fn promised(offers: &[Offer], seat: Seat, to: SpaceId) -> i64 {
    offers
        .iter()
        .filter(|o| o.by == seat && o.to == to)
        .flat_map(|o| o.payments.iter())
        .fold(0i64, |sum, p| sum.saturating_add(p.amount))
}

/// The plain pass where the rules allow one.
pub(super) fn pass_command(state: &State, seat: Seat) -> Option<Command> {
    if !is_pending(state, seat) {
        return None;
    }
    match &state.phase {
        Phase::Action { .. } => (state.players[usize::from(seat)].horseshoes.len()
            <= super::state::PASS_LIMIT)
            .then_some(Command::Pass),
        Phase::Negotiation { .. } => Some(Command::NoAgreement),
        Phase::ExtraRound { .. } => Some(Command::DropOut),
        Phase::IslandIncome { .. } => Some(Command::DeclineIncome),
        _ => None,
    }
}
