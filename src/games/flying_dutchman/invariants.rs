//! The facts of section 9 of the rules, checked on any state.

use super::board::{Colour, board};
use super::protocol::ExtraChoice;
use super::state::{ALL_HORSESHOES, Phase, START_KONTOR_CARDS, START_SMITH_CARDS, State};
use super::view::{pending, promised};

/// Checks the invariants of a state once the first round has started (the setup events
/// build the position one by one and are checked as a whole): horseshoes conserved (hands +
/// pool + bids + unused + out of play = the 60 horseshoes, face for face), N − 1 cards of
/// each colour, 3 cards in every active hand after a full action, markers never past the round
/// marker, one ship landing per round-marker step, money only moved by the rules, and a
/// consistent step.
pub fn check_invariants(state: &State) -> Result<(), String> {
    if state.round == 0 {
        return Ok(());
    }
    let n = state.players.len();
    if !(3..=6).contains(&n) {
        return Err(format!("{n} players"));
    }

    // Horseshoes: every face accounted for exactly once.
    let mut counts = [0i32; 49];
    for &h in &ALL_HORSESHOES {
        counts[usize::from(h)] += 1;
    }
    // `place` is only formatted when something is wrong.
    let mut take = |h: u8, place: &dyn Fn() -> String| -> Result<(), String> {
        let slot = counts
            .get_mut(usize::from(h))
            .ok_or_else(|| format!("horseshoe {h} in {} does not exist", place()))?;
        *slot -= 1;
        if *slot < 0 {
            return Err(format!("one horseshoe {h} too many (found in {})", place()));
        }
        Ok(())
    };
    for (i, p) in state.players.iter().enumerate() {
        for &h in &p.horseshoes {
            take(h, &|| format!("seat {i}'s hand"))?;
        }
        for h in p.bid.iter().flatten() {
            take(h.value, &|| format!("seat {i}'s bid"))?;
        }
        if !p.horseshoes.is_sorted() {
            return Err(format!("seat {i}'s horseshoes are not sorted"));
        }
    }
    if let Phase::ExtraRound { choices, .. } = &state.phase {
        for choice in choices.iter().flatten() {
            if let ExtraChoice::Bid { horseshoes } = choice {
                for h in horseshoes {
                    take(h.value, &|| "an extra-round bid".into())?;
                }
            }
        }
    }
    for &h in &state.pool {
        take(h, &|| "the pool".into())?;
    }
    for &h in &state.unused {
        take(h, &|| "the unused horseshoes".into())?;
    }
    for &h in &state.spent {
        take(h, &|| "this round's revealed bids".into())?;
    }
    if let Some(face) = counts.iter().position(|&c| c != 0) {
        return Err(format!("horseshoe {face} is missing"));
    }
    if state.unused.len() != 60 - 10 * n {
        return Err(format!(
            "{} unused horseshoes, expected {}",
            state.unused.len(),
            60 - 10 * n
        ));
    }

    // Share cards: N − 1 of each colour in play (hands, bankrupt hands, stack).
    for colour in Colour::ALL {
        let in_hands: usize = state.players.iter().map(|p| p.count(colour)).sum();
        let in_stack = state.share_stack.iter().filter(|&&c| c == colour).count();
        if in_hands + in_stack != n - 1 {
            return Err(format!(
                "{} {colour:?} cards in play, expected {}",
                in_hands + in_stack,
                n - 1
            ));
        }
    }
    let drawn = if matches!(state.phase, Phase::KontorReturn { .. }) {
        2
    } else {
        0
    };
    if state.share_stack.len() != 3 * n - 6 - drawn {
        return Err(format!(
            "the share stack has {} cards, expected {}",
            state.share_stack.len(),
            3 * n - 6 - drawn
        ));
    }
    for (i, p) in state.players.iter().enumerate() {
        let exchanging =
            matches!(state.phase, Phase::KontorReturn { seat } if usize::from(seat) == i);
        let expected = if exchanging { 5 } else { 3 };
        if p.shares.len() != expected {
            return Err(format!(
                "seat {i} holds {} share cards, expected {expected}",
                p.shares.len()
            ));
        }
        if p.smith_cards > START_SMITH_CARDS || p.kontor_cards > START_KONTOR_CARDS {
            return Err(format!("seat {i} has too many smith or Kontor cards"));
        }
        if p.active() {
            if p.coins < 0 {
                return Err(format!("seat {i} has {} ducats", p.coins));
            }
        } else if p.coins != 0 || p.smith_cards != 0 || p.kontor_cards != 0 || p.bid.is_some() {
            return Err(format!(
                "bankrupt seat {i} still holds coins, cards or a bid"
            ));
        }
    }

    // Markers and landings.
    let track = state.options.value_track;
    let last = track.last();
    if state.round_marker > last {
        return Err(format!(
            "the round marker is past the track ({})",
            state.round_marker
        ));
    }
    for colour in Colour::ALL {
        let m = state.markers[colour.index()];
        if m > state.round_marker {
            return Err(format!(
                "the {colour:?} marker (chest {}) passed the round marker (chest {})",
                state.chest(m),
                state.chest(state.round_marker)
            ));
        }
        if m == 0 {
            return Err(format!("the {colour:?} marker was left on chest 0"));
        }
    }
    if state.round_marker - track.start() != state.ship_landings {
        return Err(format!(
            "{} ship landings but the round marker moved {} chests",
            state.ship_landings,
            state.round_marker - track.start()
        ));
    }
    if state.ship_landings > 16 {
        return Err(format!("{} ship landings", state.ship_landings));
    }

    // Money: only the bank and the agreed payments move it.
    let start = state.options.edition.starting_ducats();
    let total: i64 = state.players.iter().map(|p| p.coins).sum();
    let expected = start * n as i64 - state.paid_to_bank + state.taken_from_bank;
    if total != expected {
        return Err(format!(
            "players hold {total} ducats; the bank's ledger says {expected}"
        ));
    }

    // The ghost ship.
    let ghost = state.ghost.ok_or("the ghost ship is nowhere")?;
    if let Some(prev) = state.previous {
        if !board().adjacent(prev).contains(&ghost) {
            return Err("the ghost ship jumped".into());
        }
    } else if ghost != board().start() {
        return Err("the ghost ship left Holland without a previous space".into());
    }

    // The step.
    match &state.phase {
        Phase::Finished { reason } => {
            use super::protocol::EndReason;
            let left = state.active_count();
            let ok = match reason {
                EndReason::RoundMarkerAt18 => state.round_marker == last && left >= 2,
                EndReason::LastPlayerStanding => left == 1,
                EndReason::AllBankrupt => left == 0,
            };
            if !ok {
                return Err(format!(
                    "the game ended ({reason:?}) with {left} players left"
                ));
            }
        }
        phase => {
            if state.active_count() < 2 && !matches!(phase, Phase::Resolving) {
                return Err("the game goes on with fewer than two players".into());
            }
            if !state.active(state.start_player) && !matches!(phase, Phase::Resolving) {
                return Err("the start player is bankrupt".into());
            }
            if state.round_marker == last && !matches!(phase, Phase::Resolving) {
                return Err("the round marker is on 18 but the game goes on".into());
            }
            for seat in pending(state) {
                if !state.active(seat) {
                    return Err(format!("bankrupt seat {seat} is pending"));
                }
            }
            if let Phase::Negotiation { tie, offers, .. } = phase {
                for o in offers {
                    if !o.accepted_by.contains(&o.by) {
                        return Err(format!("offer {} is not accepted by its maker", o.id));
                    }
                    if o.accepted_by
                        .iter()
                        .chain(&o.rejected_by)
                        .any(|s| !tie.contains(s))
                    {
                        return Err(format!("offer {} answered from outside the tie", o.id));
                    }
                    let coins = state.players[usize::from(o.by)].coins;
                    if promised(offers, o.by, o.to) > coins {
                        return Err(format!("seat {} promised more than it holds", o.by));
                    }
                }
            }
        }
    }
    Ok(())
}
