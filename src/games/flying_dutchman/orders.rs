//! Moves the server plays on its own (`RULES.md`, "Standing orders and forced moves"):
//! forced moves, where the rules leave a pending seat exactly one command and everybody can
//! see that they do.

use super::decide::is_pending;
use super::protocol::Command;
use super::state::{PASS_LIMIT, Phase, State};
use crate::games::{Forced, Reason, Seat};

/// Every reason code of a forced move or a dropped order, with its meaning.
pub const AUTO_CODES: &[(&str, &str)] = &[
    (
        "only_pass",
        "Forced: the player holds no horseshoe, no smith card and no usable Kontor card \
         (`kontor_cards`, `share_stack`), so passes.",
    ),
    (
        "only_destination",
        "Forced: `to` is the one space the ghost ship may move to (moving or declaring).",
    ),
    (
        "no_horseshoes",
        "Forced: in an extra round the player holds no horseshoe, so drops out.",
    ),
    (
        "no_shares",
        "Forced: a mover on an island holds no share card, so takes no income.",
    ),
];

fn forced(command: Command, reason: Reason) -> Option<Forced<Command>> {
    Some(Forced { command, reason })
}

/// The one command `seat` may play now, when it is pending and the rules leave it no other.
///
/// Only public facts decide it (counts of cards and horseshoes, the share stack's size, the
/// board), so a move played at once tells nobody anything. That is why a Kontor return is
/// never forced here: five cards of one colour leave one return, but playing it at once
/// would show the hand.
pub fn forced_move(state: &State, seat: Seat) -> Option<Forced<Command>> {
    if usize::from(seat) >= state.players.len() || !is_pending(state, seat) {
        return None;
    }
    let p = &state.players[usize::from(seat)];
    let only_destination = |declare: bool| {
        let mut destinations = state.destinations();
        let to = destinations.next()?;
        if destinations.next().is_some() {
            return None;
        }
        let name = to.name().to_string();
        let command = if declare {
            Command::Declare { to: name.clone() }
        } else {
            Command::Move { to: name.clone() }
        };
        forced(command, Reason::new("only_destination").with("to", name))
    };
    match &state.phase {
        Phase::Action { .. } => {
            let kontor = p.kontor_cards > 0 && state.share_stack.len() >= 2;
            let none = !kontor && p.smith_cards == 0 && p.horseshoes.is_empty();
            debug_assert!(!none || p.horseshoes.len() <= PASS_LIMIT);
            none.then(|| Forced {
                command: Command::Pass,
                reason: Reason::new("only_pass")
                    .with("kontor_cards", p.kontor_cards)
                    .with("share_stack", state.share_stack.len()),
            })
        }
        Phase::Move { .. } => only_destination(false),
        Phase::Declaration { .. } => only_destination(true),
        Phase::ExtraRound { .. } if p.horseshoes.is_empty() => {
            forced(Command::DropOut, Reason::new("no_horseshoes"))
        }
        Phase::IslandIncome { .. } if p.shares.is_empty() => {
            forced(Command::DeclineIncome, Reason::new("no_shares"))
        }
        Phase::KontorReturn { .. }
        | Phase::Negotiation { .. }
        | Phase::ExtraRound { .. }
        | Phase::IslandIncome { .. }
        | Phase::NotStarted
        | Phase::Resolving
        | Phase::Finished { .. } => None,
    }
}
