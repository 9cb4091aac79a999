## The notices of a game, one message per notice kind (its name as the API spells it):
## .label is how a person calls these mails, .subject the mail's subject (also the push
## notification's title, the digest's line and the webhook's summary), .body the mail's text
## after the greeting.
##
## Every notice has $game (the game's name), $with (the others at the table, or nothing),
## $game_page (yes when the mail links the game), $deadline with $deadline_in (none when
## there is no deadline).

notice-your_turn =
    .label = "your turn" mails
    .subject = Your turn in { $game }{ $with }
    .body =
        it is your turn in <b>{ $game }</b>{ $with }.

        { $deadline ->
            [none] {""}
           *[other] Please move by <b>{ $deadline }</b> ({ $deadline_in }).
        }

notice-reminder =
    .label = deadline reminders
    .subject =
        { $deadline ->
            [none] Reminder: { $game } is waiting for your move
           *[other] Reminder: your move in { $game } is due { $deadline_in }
        }
    .body =
        your move in <b>{ $game }</b>{ $with } { $deadline ->
            [none] is still waiting.
           *[other] is due by <b>{ $deadline }</b> ({ $deadline_in }). After that the game's time-out rule applies.
        }

# $inviter: who invited (none: not known); $seated: who sits at the table already (none: nobody).
notice-invited =
    .label = invitations
    .subject =
        { $inviter ->
            [none] You are invited to play { $game }
           *[other] { $inviter } invited you to play { $game }
        }
    .body =
        <b>{ $inviter ->
            [none] another player
           *[other] { $inviter }
        }</b> invited you to play <b>{ $game }</b>.

        { $seated ->
            [none] {""}
           *[other] Seated so far: { $seated }.
        }

        { $game_page ->
            [yes] Join it from the game's page while seats are free.
           *[no] {""}
        }

notice-game_started =
    .label = "game started" mails
    .subject = { $game }{ $with } has started
    .body = your game of <b>{ $game }</b>{ $with } has started.

# $result: the reader's result (game-result, or the data's own; none: not known);
# $standings: yes when the final standings follow.
notice-game_over =
    .label = game results
    .subject =
        { $result ->
            [none] { $game }{ $with } is over
           *[other] { $game } is over: { $result }
        }
    .body =
        the game of <b>{ $game }</b>{ $with } is over{ $result ->
            [none] .
           *[other] : { $result }.
        }

        { $standings ->
            [yes] Final standings:
           *[no] {""}
        }

        <standings/>

        { $game_page ->
            [yes] The game's seed is now revealed: anyone can verify every shuffle and roll on the game's page.
           *[no] {""}
        }

# The reader's result: $outcome won, shared (the win, with $others) or placed ($rank of
# $players, $winners won).
game-result =
    { $outcome ->
        [won] you won
        [shared] you share the win with { $others }
       *[placed] { $winners } won; you finished { NUMBER($rank, type: "ordinal") ->
            [one] { $rank }st
            [two] { $rank }nd
            [few] { $rank }rd
           *[other] { $rank }th
        } of { $players }
    }

# A line of the final standings: $rank and $score may be none; $you is yes on the reader's.
standing-line =
    { $rank ->
        [none] {""}
       *[other] { $rank }.{" "}
    }{ $name }{ $you ->
        [yes] {" "}(you)
       *[no] {""}
    }{ $score ->
        [none] {""}
       *[other] : { $score }
    }

# $player: who left (none: not known); $policy: forfeit, or bot.
notice-player_left =
    .label = "a player left" mails
    .subject =
        { $player ->
            [none] A player left { $game }
           *[other] { $player } left { $game }
        }
    .body =
        <b>{ $player ->
            [none] another player
           *[other] { $player }
        }</b> deleted their account and left your game of <b>{ $game }</b>.

        { $policy ->
            [forfeit] Under the game's rule for abandoned seats the seat is forfeited: the bot plays it out and it ranks last. The game goes on.
           *[bot] Under the game's rule for abandoned seats the bot plays the seat from now on. The game goes on.
        }

# $author (none: not known); $channel: table, private or spectators; $written: when (none:
# not known). The message itself is quoted where <quote/> stands.
notice-chat_mention =
    .label = chat mentions
    .subject =
        { $author ->
            [none] A player
           *[other] { $author }
        } mentioned you { $channel ->
            [spectators] in the spectators' chat
            [private] privately
           *[table] at the table
        } in { $game }
    .body =
        <b>{ $author ->
            [none] A player
           *[other] { $author }
        }</b> mentioned you { $channel ->
            [spectators] in the spectators' chat
            [private] privately
           *[table] at the table
        } in <b>{ $game }</b>{ $with }:

        <quote/>

        { $written ->
            [none] {""}
           *[other] Written { $written }.
        }

        { $channel ->
            [private] Only the two of you can read this private channel.
           *[other] {""}
        }

        To answer, open the chat on the game's page.

# A mention in the digest: the subject and the start of the message.
mention-line = { $headline }: “{ $excerpt }”

# $by: who offers (none: not known); $until: until when answers are taken (none: not known).
notice-rematch_offered =
    .label = rematch offers
    .subject =
        { $by ->
            [none] A player
           *[other] { $by }
        } offers a rematch of { $game }
    .body =
        <b>{ $by ->
            [none] A player
           *[other] { $by }
        }</b> offers a rematch of <b>{ $game }</b>{ $with }.

        Accept or decline it on the game's page. When everyone accepts, a new game starts with the seats moved round by one{ $until ->
            [none] {""}
           *[other] {" "}(answers are taken until { $until })
        }.

# $by: who asks (none: not known); $moves: how many moves go back, $yours of them the
# reader's, $to_version the version the game goes back to (each none when not known).
notice-undo_requested =
    .label = undo requests
    .subject =
        { $by ->
            [none] A player
           *[other] { $by }
        } asks to take back moves in { $game }
    .body =
        <b>{ $by ->
            [none] A player
           *[other] { $by }
        }</b> asks to take back { $moves ->
            [none] the last moves
            [one] the last move
           *[other] the last { $moves } moves
        } of <b>{ $game }</b>{ $with }{ $yours ->
            [none] {""}
            [0] {""}
            [one] , one of them yours
           *[other] , { $yours } of them yours
        }{ $to_version ->
            [none] .
           *[other] : the game would be again as it was at version { $to_version }.
        }

        Your consent is needed: accept or decline on the game's page{ $deadline ->
            [none] .
           *[other] {" "}by <b>{ $deadline }</b> ({ $deadline_in }).
        }

        One decline ends the request and nothing is taken back. Without every answer by then, or if anyone moves meanwhile, it lapses.

# Why a notice mail came: $label is the notice kind's .label.
notice-reason = You get this mail because your Kontor preference for { $label } is "immediately".
