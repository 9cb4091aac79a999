## What leaves the server other than mail: push notifications, webhook summaries, the
## calendar feed.

# The body of the test notification a device asks for (Settings → Push).
push-test = Notifications reach this device.
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

## Refusals the web client shows as the server wrote them, in the language the request asks
## for (Accept-Language). $detail: what the outbound client's check names (an address, the
## URL parser's reason).

refusal-webhook-url =
    the URL cannot be used: { $reason ->
        [insecure_url] only https:// URLs are allowed
        [blocked_address] { $detail } is not a public internet address
        [unresolvable] the host name could not be resolved: { $detail }
       *[invalid_url] not a usable URL: { $detail }
    }
refusal-webhook-event-type = { $event_type } is not an event type; use one of { $types }
refusal-too-many-test-sends = your account has used its test sends for this hour (push and webhook together); try again in { $minutes } minutes
refusal-too-many-webhooks = an account may have { $max } webhook endpoints; delete one first
refusal-webhook-not-found = no webhook endpoint or delivery of yours with this id
refusal-delivery-under-way = the delivery is still being tried; redeliver it once it has succeeded or failed

refusal-push-endpoint =
    { $problem ->
        [too_long] the endpoint is longer than 2048 characters
        [not_absolute] the endpoint is not an absolute URL
        [not_https] the endpoint must be an https:// URL
        [credentials] the endpoint must not carry a user or password
        [no_host] the endpoint has no host
       *[not_public] the endpoint must be on a public host of a push service
    }
refusal-push-p256dh = keys.p256dh is not a P-256 public key (65 bytes, base64url)
refusal-push-auth = keys.auth is not 16 bytes in base64url
refusal-too-many-push-subscriptions = you already have { $max } push subscriptions; remove one you no longer use first
refusal-push-subscription-not-found = you have no push subscription with this id

## Refusals of undo (POST /games/{id}/undo). $to_version, $version, $before, $declined_at:
## versions of the game's log. $why: why a version is no place for an undo to land.

refusal-undo-not-own-moves = only other players moved after version { $to_version }: an undo takes back a move of your own (and, with their consent, what others played after it)
refusal-undo-declined = your last undo request was declined (version { $declined_at }) and nobody has moved since: ask again after the next move
refusal-undo-target =
    { $why ->
        [undo_event] version { $version } is an undo's own event (a request, an answer or a rewind), not a move: an undo goes back to the end of a move, such as version { $before }
        [undone] version { $version } was taken back by an earlier undo: an undo goes back to the end of a move still in effect, such as version { $before }
        [nothing_after] nothing was played after version { $version }: there is nothing to take back to it
       *[mid_move] version { $version } is in the middle of a move; an undo goes back to the end of a move, such as version { $before }
    }
