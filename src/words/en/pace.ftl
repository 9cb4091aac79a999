## What the server played for a player on its own while they were away (forced moves, moves
## their standing orders played, orders dropped), in the turn mail, the "game over" mail and
## the digest's line. Texts are placed as they are: $command and $reason are the messages
## below, already in words.

# The short summary beside the headline: $what (orders: some move was an order's; forced:
# all were forced; changed: only orders were dropped), $moves.
pace-summary =
    { $what ->
        [changed] your standing orders changed
        [orders] your orders played { $moves } { $moves ->
            [one] move
           *[other] moves
        } while you were away
       *[forced] the server played { $moves } forced { $moves ->
            [one] move
           *[other] moves
        } for you
    }

# The digest's line of a turn or "game over" notice with news: $headline, $summary.
pace-news-line = { $headline } ({ $summary })

# The paragraph before the list: $count (all news since the last mail), $shown (how many the
# list shows when it shows fewer; none: it shows all).
pace-intro = Since your last turn mail, the server played for you or changed your standing orders ({ $count } in all{ $shown ->
        [none] {""}
       *[other] , the latest { $shown }
    }):

# One piece of news: $kind (forced, played, dropped), $command, $reason, $version.
pace-line =
    { $kind ->
        [forced] You had to { $command }: { $reason } (version { $version }).
        [played] Played by your order: { $command } (version { $version }).
       *[dropped] Your order was dropped: { $reason }; decide yourself.
    }

# Why a move was forced or an order dropped: $code, with the parameters it has ($company,
# $high_bid, $cubes, $link, $city, $to, $count, $message; ? where the news lacks one);
# $raw: a code this server has no words for.
pace-reason =
    { $code ->
        [no_cubes] you hold no cubes
        [cannot_outbid] you cannot outbid { $high_bid } for { $company } (you hold { $cubes } cubes)
        [cannot_build] { $company } has no link it may build
        [only_link] { $link } was the only link { $company } could build
        [only_path] one transcontinental path was left
        [no_goods] { $company } can take no goods cube
        [only_goods] the goods cube of { $city } was the only one { $company } could take
        [outbid] the high bid for { $company } reached { $high_bid }, your limit
        [only_pass] you hold no horseshoe, smith card or usable Kontor card
        [only_destination] { $to } was the only place the ghost ship could go
        [no_horseshoes] you hold no horseshoe
        [no_shares] you hold no share card
        [bids_before] { $count } players before you bid this round, more than your order allows
        [refused] the rules refused its move ({ $message })
        [undone] an undo took back your moves
        [invalid_now] after an undo it no longer fits ({ $message })
        [seat_left] you left the game
       *[other] ({ $raw })
    }

# A command in words: $game (steel-driver for Steel Driver's own commands, else other: The
# Flying Dutchman's and those every game shares), $type, with the fields it has ($company, $bid, $link, $city, $to, $colour); $raw: a type
# this server has no words for, its underscores as spaces.
pace-command =
    { $game ->
        [steel-driver] { $type ->
            [pass_pawn] pass the pawn
            [open_auction] open an auction for { $company } at { $bid }
            [bid] bid { $bid }
            [pass_bid] pass in the auction
            [build] build { $link }
            [pass_build] build nothing
            [choose_path] choose the transcontinental path
            [take_goods] take the goods cube of { $city }
            [pass_delivery] take no goods cube
           *[other] { $raw }
        }
       *[other] { $type ->
            [pass] pass
            [use_kontor] use the Kontor
            [use_smith] use the smith
            [bid] place your sealed bid
            [return_shares] return two share cards
            [move] move the ghost ship to { $to }
            [declare] declare { $to }
            [make_offer] offer { $to }
            [accept_offer] accept an offer
            [drop_out] drop out of the extra round
            [take_income] take income ({ $colour })
            [decline_income] take no income
           *[other] { $raw }
        }
    }
