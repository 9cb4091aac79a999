## The daily digest. $waiting: how many games wait for the reader's move; $date the day.

digest =
    .subject =
        { $waiting ->
            [0] Your Kontor digest for { $date }
            [one] Kontor: 1 game is waiting for you
           *[other] Kontor: { $waiting } games are waiting for you
        }
    .body =
        { $waiting ->
            [0] no game is waiting for your move.
            [one] this game is waiting for your move:
           *[other] these { $waiting } games are waiting for your move:
        }

        <waiting/>

        { $news ->
            [yes] Since the last digest:
           *[no] {""}
        }

        <news/>
    .reason = You get this digest because some of your Kontor notification preferences are "digest".
    .what = the daily digest

# A game waiting for the reader: $opponents (none: nobody else), $since (none: not known), $url.
digest-waiting =
    <b>{ $game }</b>{ $opponents ->
        [none] {""}
       *[other] {" "}with { $opponents }
    }{ $since ->
        [none] {""}
       *[other] , your turn since { $since }
    }: <a { $url }>{ $url }</a>

# A notice held for the digest: its line, and the game's page ($url, none without a game).
digest-news =
    { $headline }{ $url ->
        [none] {""}
       *[other] : <a { $url }>{ $url }</a>
    }
