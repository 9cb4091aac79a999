//! What the server plays on its own, in the transaction of the move that caused it:
//! forced moves (issue 37). Pure and generic over the games, for the platform and for
//! `kontor simulate` alike.

use super::{Forced, Rules, Seat};

/// The first pending seat (in `Rules::pending` order) whose move is forced, with that move.
pub fn next_forced<R: Rules>(state: &R::State) -> Option<(Seat, Forced<R::Command>)> {
    R::pending(state)
        .into_iter()
        .find_map(|seat| R::forced(state, seat).map(|forced| (seat, forced)))
}
