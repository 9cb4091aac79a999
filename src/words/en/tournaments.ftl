## The tournament notices. Each has $name (the tournament's), $game, $with, $round of $rounds,
## $players (how many entered), $standing (yes when the reader's $position and $points are
## known; $placed, in a subject, when $position and $players are), $round_deadline with $round_deadline_in and $tournament_link (each none when not
## known).

notice-tournament_started =
    .label = "tournament started" mails
    .subject = The tournament “{ $name }” of { $game } has started
    .body =
        the tournament <b>{ $name }</b> has started: { $rounds } rounds of <b>{ $game }</b> among { $players } players.

        Your first-round game is seated: <b>{ $game }</b>{ $with }.

        { tournament-round-ends }

        { tournament-page }

# $previous_round: the round before this one.
notice-tournament_round =
    .label = "next round" mails
    .subject = Round { $round } of “{ $name }”: your table of { $game } is seated
    .body =
        round { $round } of { $rounds } of <b>{ $name }</b> is seated. You play <b>{ $game }</b>{ $with }.

        { $standing ->
            [yes] After round { $previous_round } you stand { NUMBER($position, type: "ordinal") ->
                [one] { $position }st
                [two] { $position }nd
                [few] { $position }rd
               *[other] { $position }th
            } of { $players } with { $points } points.
           *[no] {""}
        }

        { tournament-round-ends }

        { tournament-page }

# $withdrawn: yes when the reader withdrew; $podium: yes when the top of the standings follows.
notice-tournament_finished =
    .label = final tournament standings
    .subject =
        { $placed ->
            [yes] “{ $name }” ({ $game }) is over: you placed { NUMBER($position, type: "ordinal") ->
                [one] { $position }st
                [two] { $position }nd
                [few] { $position }rd
               *[other] { $position }th
            } of { $players }
           *[no] “{ $name }” ({ $game }) is over
        }
    .body =
        <b>{ $name }</b> is over after { $rounds } rounds.

        { $standing ->
            [yes] You placed <b>{ NUMBER($position, type: "ordinal") ->
                [one] { $position }st
                [two] { $position }nd
                [few] { $position }rd
               *[other] { $position }th
            }</b> of { $players } with { $points } points.
           *[no] {""}
        }

        { $withdrawn ->
            [yes] You withdrew: your place counts the points of the rounds you played.
           *[no] {""}
        }

        { $podium ->
            [yes] The top of the final standings:
           *[no] {""}
        }

        <podium/>

        { tournament-page }

# $seats: how many a table needs; $organiser: yes when the reader organised it.
notice-tournament_cancelled =
    .label = "tournament cancelled" mails
    .subject = The tournament “{ $name }” of { $game } is cancelled: too few entered
    .body =
        the tournament <b>{ $name }</b> of <b>{ $game }</b> is cancelled: when entry closed, { $players } had entered, and a table needs { $seats }. No game was created.

        { $organiser ->
            [yes] You organised it: a new tournament with a longer entry window may gather more players.
           *[no] {""}
        }

        { tournament-page }

# A line of the top of the final standings.
podium-line = { $place }. { $name } — { $points } points

tournament-round-ends =
    { $round_deadline ->
        [none] {""}
       *[other] The round ends when all its games are over, or at <b>{ $round_deadline }</b> ({ $round_deadline_in }): a game still running then goes on but no longer counts.
    }

tournament-page =
    { $tournament_link ->
        [none] {""}
       *[other] Standings and every table: <a { $tournament_link }>the tournament's page</a>.
    }
