//! Forced moves and standing orders (`RULES.md`, "Standing orders and forced moves"):
//! scenarios through the given/when/then harness, and properties over bot games.

use super::super::*;
use super::properties::disguise_state;
use super::scenarios::tie_of_two;
use super::support::*;
use crate::games::testing::bot_game_positions;
use crate::games::{Forced, Reason, Rules, Seat, Viewer};
use Colour::*;

fn forced(state: &State, seat: Seat) -> Option<Forced<Command>> {
    FlyingDutchman::forced(state, seat)
}

/// The forced move of `seat`: its command and reason; and `decide` accepts it.
fn assert_forced(state: &State, seat: Seat, command: Command, reason: Reason) {
    let f = forced(state, seat).unwrap_or_else(|| panic!("seat {seat} has a choice"));
    assert_eq!((&f.command, &f.reason), (&command, &reason));
    when(state, seat, command).then_accepted();
}

// ---------------------------------------------------------------- forced moves

#[test]
fn a_player_with_nothing_to_act_with_must_pass() {
    let mut state = new_game(3);
    set_horseshoes(&mut state, 0, &[]);
    state.players[0].smith_cards = 0;
    // A Kontor card is still an action.
    assert_eq!(forced(&state, 0), None);
    state.players[0].kontor_cards = 0;
    assert_forced(
        &state,
        0,
        Command::Pass,
        Reason::new("only_pass")
            .with("kontor_cards", 0)
            .with("share_stack", 3),
    );
    // A single horseshoe is a choice: bid it or pass.
    set_horseshoes(&mut state, 0, &[30]);
    assert_eq!(forced(&state, 0), None);
    // Only the seat to act is ever forced.
    set_horseshoes(&mut state, 1, &[]);
    state.players[1].smith_cards = 0;
    state.players[1].kontor_cards = 0;
    assert_eq!(forced(&state, 1), None);
}

#[test]
fn a_tied_player_without_horseshoes_must_drop_out_of_the_extra_round() {
    let mut state = tie_of_two();
    act(&mut state, 0, declare("BLU_2"));
    act(&mut state, 1, declare("GRN_2"));
    act(&mut state, 0, Command::NoAgreement);
    assert_eq!(FlyingDutchman::pending(&state), [0, 1]);
    assert_eq!(forced(&state, 1), None);
    set_horseshoes(&mut state, 1, &[]);
    assert_eq!(forced(&state, 0), None);
    assert_forced(&state, 1, Command::DropOut, Reason::new("no_horseshoes"));
}

#[test]
fn a_kontor_return_is_never_forced_for_it_would_show_the_hand() {
    // Six players: five cards of each colour, so a hand of five reds is possible and
    // leaves one return, but playing it at once would tell everyone the hand.
    let mut state = new_game(6);
    set_hands(
        &mut state,
        &[
            (0, &[Red, Red, Red]),
            (1, &[Blue, Blue, Blue]),
            (2, &[Green, Green, Green]),
            (3, &[Yellow, Yellow, Yellow]),
            (4, &[Orange, Orange, Orange]),
            (5, &[Violet, Violet, Violet]),
        ],
    );
    // The two reds left go on top of the stack.
    state
        .share_stack
        .make_contiguous()
        .sort_by_key(|&c| c != Red);
    act(&mut state, 0, Command::UseKontor);
    assert_eq!(state.players[0].shares, [Red; 5]);
    assert_eq!(forced(&state, 0), None);
}

#[test]
fn the_standard_board_never_leaves_a_single_destination() {
    // Every space has three lines or more, so a move or a declaration is never forced
    // there; the rule (`only_destination`) is for a board with two-line spaces.
    for space in 0..board().len() {
        let here = SpaceId(space as u8);
        assert!(board().adjacent(here).len() >= 3, "{}", here.name());
    }
}

/// Whether `legal` leaves the seat exactly one command (a Kontor return with five cards
/// of one colour counts as a choice: `forced` never plays it).
fn one_choice(legal: &Legal) -> bool {
    match legal.decision {
        Decision::None | Decision::ReturnShares | Decision::Negotiate => false,
        Decision::Action => legal.commands == [CommandKind::Pass],
        Decision::Move | Decision::Declare => legal.destinations.len() == 1,
        Decision::ExtraRound => legal.commands == [CommandKind::DropOut],
        Decision::IslandIncome => legal.income.is_empty(),
    }
}

/// Over bot games of every table size: a move is forced exactly when `legal` leaves one
/// command, `decide` accepts it, and whether it is forced is the same in every position
/// that looks the same to a spectator (only public facts decide it).
#[test]
fn a_move_is_forced_exactly_when_the_rules_leave_one_and_everyone_can_see_it() {
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    for seats in 3..=6 {
        for game in 0..25 {
            let seed = 37_000 + u64::from(seats) * 100 + game;
            let mut failure = None;
            bot_game_positions::<FlyingDutchman>(&Options::default(), seats, game, seed, |s| {
                let disguised = disguise_state(s, Viewer::Spectator);
                for seat in 0..seats {
                    let f = forced(s, seat);
                    if f.is_some() != one_choice(&FlyingDutchman::legal(s, seat)) {
                        failure.get_or_insert(format!("seat {seat}: forced {f:?}"));
                    }
                    if f != forced(&disguised, seat) {
                        failure.get_or_insert(format!("seat {seat}: forced tells a secret"));
                    }
                    if let Some(f) = f {
                        *seen.entry(f.reason.code.clone()).or_default() += 1;
                        if when(s, seat, f.command.clone()).result().is_err() {
                            failure.get_or_insert(format!("{f:?} is refused"));
                        }
                    }
                }
            });
            assert_eq!(failure, None, "{seats} seats, seed {seed}");
        }
    }
    assert!(seen.contains_key("only_pass"), "{seen:?}");
}

#[test]
fn auto_codes_are_unique_and_documented() {
    let codes: Vec<&str> = FlyingDutchman::AUTO_CODES.iter().map(|(c, _)| *c).collect();
    let unique: std::collections::BTreeSet<&str> = codes.iter().copied().collect();
    assert_eq!(unique.len(), codes.len());
    assert!(FlyingDutchman::AUTO_CODES.iter().all(|(c, m)| !m.is_empty()
        && c.chars().all(|ch| ch.is_ascii_lowercase() || ch == '_')));
}
