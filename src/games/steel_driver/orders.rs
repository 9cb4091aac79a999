//! Moves the server plays on its own (`RULES.md`, "Standing orders and forced moves"):
//! forced moves, where the rules leave the seat to act exactly one command.

use super::decide::{buildable, takeable};
use super::map::{CityId, LinkId, bits};
use super::protocol::Command;
use super::state::{Phase, State};
use crate::games::{Forced, Reason, Seat};

/// Every reason code of a forced move or a dropped order, with its meaning.
pub const AUTO_CODES: &[(&str, &str)] = &[
    (
        "no_cubes",
        "Forced: the pawn holder holds no cubes, so cannot open an auction and passes the pawn.",
    ),
    (
        "cannot_outbid",
        "Forced: the bidder holds no more cubes than the high bid (`high_bid`, `cubes`, \
         `company`), so passes.",
    ),
    (
        "cannot_build",
        "Forced: `company` has no link it may build (its box holds `cubes`, `track_left` pieces \
         left), so passes.",
    ),
    (
        "only_link",
        "Forced: `link` is the one link `company` may build, and it must build.",
    ),
    (
        "only_path",
        "Forced: one transcontinental path is left to choose (`index`).",
    ),
    (
        "no_goods",
        "Forced: `company` can take no goods cube, so passes for good.",
    ),
    (
        "only_goods",
        "Forced: the goods cube of `city` is the one `company` may take, and it must take one.",
    ),
];

fn forced(command: Command, reason: Reason) -> Option<Forced<Command>> {
    Some(Forced { command, reason })
}

/// The one command `seat` may play, when it is to act and the rules leave it no other.
/// Everything in Steel Driver is public, so every forced move is seen to be forced by all.
pub fn forced_move(state: &State, seat: Seat) -> Option<Forced<Command>> {
    if state.to_act() != Some(seat) {
        return None;
    }
    let cubes = state.players[usize::from(seat)].cubes;
    match state.phase {
        Phase::Auction => match &state.auction {
            None if cubes == 0 => forced(Command::PassPawn, Reason::new("no_cubes")),
            None => None,
            Some(a) if cubes <= a.high_bid => forced(
                Command::PassBid,
                Reason::new("cannot_outbid")
                    .with("company", a.company)
                    .with("high_bid", a.high_bid)
                    .with("cubes", cubes),
            ),
            Some(_) => None,
        },
        Phase::Building => {
            if let Some(choice) = &state.bonus_choice {
                return (choice.options.len() == 1).then(|| Forced {
                    command: Command::ChoosePath { index: 0 },
                    reason: Reason::new("only_path").with("index", 0),
                });
            }
            let company = state.turns.current()?;
            let links = buildable(state, company);
            match links.count_ones() {
                0 => {
                    let c = state.company(company);
                    forced(
                        Command::PassBuild,
                        Reason::new("cannot_build")
                            .with("company", company)
                            .with("cubes", c.cubes)
                            .with("track_left", c.track_left()),
                    )
                }
                1 => {
                    let link = LinkId(bits(links).next()?);
                    forced(
                        Command::Build { link },
                        Reason::new("only_link")
                            .with("company", company)
                            .with("link", link),
                    )
                }
                _ => None,
            }
        }
        Phase::Delivery => {
            let company = state.turns.current()?;
            let goods = takeable(state, company);
            match goods.count_ones() {
                0 => forced(
                    Command::PassDelivery,
                    Reason::new("no_goods").with("company", company),
                ),
                1 => {
                    let city = CityId(bits(goods).next()?);
                    forced(
                        Command::TakeGoods { city },
                        Reason::new("only_goods")
                            .with("company", company)
                            .with("city", city),
                    )
                }
                _ => None,
            }
        }
        Phase::Setup | Phase::Finished => None,
    }
}
