## What leaves the server other than mail: push notifications, webhook summaries, the
## calendar feed.

# The body of a push notification (its title is the notice's .subject).
push-open-game = Open the game in Kontor

# A webhook's summary of "send a test event".
webhook-test = A test event from Kontor: this webhook works.

# The calendar feed's name, and each move's event: $game, $opponents (none: nobody else),
# $deadline (yes: the event is the moment the move's time runs out), $link.
calendar-name = Kontor — your moves
calendar-summary =
    { $opponents ->
        [none] Your move: { $game }
       *[other] Your move: { $game } vs { $opponents }
    }
calendar-description =
    { $deadline ->
        [yes] Your time for this move runs out now; then the game's time control plays for you.
       *[no] This game has no time limit; the move has been yours since this day.
    }
    Open the game: { $link }
