//! How each event changes the position: `evolve`, in place, never random, never failing on
//! an event that `decide` or `setup` produced.

use super::protocol::Event;
use super::state::{Auction, BonusChoice, Phase, Player, ROUNDS, State};
use crate::games::Outcome;

impl State {
    /// Applies one event in place.
    pub fn apply(&mut self, event: &Event) {
        match event {
            Event::GameStarted {
                seats,
                options,
                first_player,
            } => {
                *self = State {
                    seats: *seats,
                    map: options.map.clone(),
                    players: vec![Player::default(); usize::from(*seats)],
                    pawn: *first_player,
                    ..State::default()
                };
            }
            Event::RoundStarted { round, cubes } => {
                self.round = *round;
                self.phase = Phase::Auction;
                self.pawn_passes = 0;
                for player in &mut self.players {
                    player.cubes += cubes;
                }
                self.cubes_handed_out += cubes * u32::from(self.seats);
            }
            Event::PawnPassed { to, .. } => {
                self.pawn = *to;
                self.pawn_passes += 1;
            }
            Event::AuctionOpened { seat, company, bid } => {
                self.auction = Some(Auction {
                    company: *company,
                    opener: *seat,
                    high_bid: *bid,
                    high_bidder: *seat,
                    to_act: self.left_of(*seat),
                    out: 0,
                });
            }
            Event::BidPlaced { seat, bid } => {
                if let Some(auction) = self.auction.as_mut() {
                    auction.high_bid = *bid;
                    auction.high_bidder = *seat;
                }
                self.next_bidder();
            }
            Event::BidPassed { seat } => {
                if let Some(auction) = self.auction.as_mut() {
                    auction.out |= 1 << seat;
                }
                self.next_bidder();
            }
            Event::AuctionWon {
                seat,
                company,
                price,
                pawn_to,
            } => {
                let player = &mut self.players[usize::from(*seat)];
                player.cubes -= price;
                player.shares[company.index()] += 1;
                let c = self.company_mut(*company);
                c.cubes += price;
                c.controller = Some(*seat);
                c.last_controller = Some(*seat);
                c.shares_sold += 1;
                self.auction = None;
                self.pawn = *pawn_to;
                self.pawn_passes = 0;
            }
            Event::AuctionPhaseEnded { .. } => {
                self.phase = Phase::Building;
                self.auction = None;
                self.turns.start();
            }
            Event::LinkBuilt {
                company,
                link,
                cost,
                profit,
                ..
            } => {
                let ends = link.link().ends_mask();
                let c = self.company_mut(*company);
                c.cubes -= cost;
                c.links |= link.bit();
                c.cities |= ends;
                c.profit += profit;
                self.cubes_spent += cost;
                self.turns.advance();
            }
            Event::TranscontinentalTie { company, options } => {
                self.bonus_choice = Some(BonusChoice {
                    company: *company,
                    options: options.clone(),
                });
            }
            Event::TranscontinentalBonus { path, bonuses, .. } => {
                for bonus in bonuses {
                    self.company_mut(bonus.company).profit += bonus.amount;
                }
                self.bonus_choice = None;
                self.transcontinental = Some(path.clone());
                self.bonuses_paid += 1;
            }
            Event::CompanyPassed { company, .. } | Event::DeliveryPassed { company, .. } => {
                self.turns.pass(*company);
            }
            Event::DividendsPaid { payments, .. } | Event::FinalDividendsPaid { payments } => {
                for payment in payments {
                    self.players[usize::from(payment.seat)].money += payment.amount;
                }
            }
            Event::RoundEnded { round, order } => {
                self.turns.next_round(order);
                let last = *round >= ROUNDS;
                for c in &mut self.companies {
                    c.profit = 0;
                    if !last {
                        c.controller = None;
                    }
                }
            }
            Event::BoxesEmptied { cubes } => {
                for entry in cubes {
                    self.company_mut(entry.company).cubes -= entry.amount;
                    self.cubes_removed += entry.amount;
                }
            }
            Event::GoodsPlaced { cities } => {
                self.goods = cities.iter().fold(0, |m, c| m | c.bit());
            }
            Event::DeliveryControl { controllers } => {
                for (c, seat) in self.companies.iter_mut().zip(controllers) {
                    c.delivery_controller = *seat;
                }
                self.phase = Phase::Delivery;
                self.turns.start();
            }
            Event::GoodsTaken {
                company,
                city,
                colour,
            } => {
                self.goods &= !city.bit();
                self.company_mut(*company).goods[colour.index()] += 1;
                self.turns.advance();
            }
            Event::FinalProfits { profits } => {
                for p in profits {
                    self.company_mut(p.company).final_profit = p.profit;
                }
            }
            Event::GameEnded {
                scores,
                ranks,
                winners,
                ..
            } => {
                self.phase = Phase::Finished;
                self.turns.active = None;
                self.outcome = Some(Outcome {
                    scores: scores.iter().map(|&s| Some(i64::from(s))).collect(),
                    ranks: ranks.clone(),
                    winners: winners.clone(),
                });
            }
        }
    }

    /// After a bid or a pass in an auction: the next seat clockwise still in, other than the
    /// high bidder, is to act. (When only the high bidder is left, `AuctionWon` follows.)
    fn next_bidder(&mut self) {
        let seats = self.seats;
        if let Some(a) = self.auction.as_mut() {
            let mut seat = a.to_act;
            for _ in 0..seats {
                seat = (seat + 1) % seats;
                if a.out & (1 << seat) == 0 && seat != a.high_bidder {
                    a.to_act = seat;
                    return;
                }
            }
            a.to_act = a.high_bidder;
        }
    }
}
