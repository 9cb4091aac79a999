"""Plays whole games of both kinds through a client that openapi-python-client generated from
the committed description, with nothing but its calls and models: no raw HTTP, no dicts for
commands. tests/api/client.rs generates the client, type-checks this file against it with
mypy --strict, and runs it against a test server.

    python play.py <base URL> <seed> '{"<kind>": ["<command type>", ...], ...}'

First it parses answers carrying an error code and an event type the description does not
list (as a later Kontor may send them): the client must keep them. Each seat follows a simple
policy over what `legal` offers, seeded so that a failure can be replayed; a command type it
has not sent yet is preferred where it is offered. Whole games of each kind are played until
every command type listed for it has been sent or played by the server as forced (read from
the finished game's export), at most MAX_GAMES.
It also sets, edits and cancels a standing order and sees one play. Prints one JSON line per
game: its id, kind, version, the command types sent, those the server played as forced, and
the rule refusals met (the policy may pick a bid the rules refuse); and for the first finished game of
each kind one line of its audit through the generated calls: exported, verified, imported.

    python play.py <base URL> <seed> '<commands>' '{"kind": "<kind>", "players": [{"name", "token"}, ...]}'

With the fourth argument (verified players, the first may organise), it first reads the kind's
leaderboard and runs a tournament of those players up to its first round, and prints what it
read of both (a line `leaderboard`, a line `tournament`) for the test to compare with the
server's own.
"""

from __future__ import annotations

import datetime
import json
import random
import sys
import uuid
from io import BytesIO
from typing import Any, TypeVar, Union

from kontor_api_client import AuthenticatedClient, Client
from kontor_api_client.api.accounts import login, register
from kontor_api_client.api.chat import chat_messages, chat_overview, send_chat_message
from kontor_api_client.api.audit import event_log, export_game, import_game, verification, verify_upload
from kontor_api_client.api.lobby import create_game, join_game, list_games, start_game
from kontor_api_client.api.play import get_game, submit_action, undo
from kontor_api_client.api.players import leaderboard
from kontor_api_client.api.tournaments import create_tournament, get_tournament, join_tournament, start_tournament
from kontor_api_client.models import (
    ActionRequest,
    ActionResult,
    ChatMessage,
    ChatOverview,
    ChatPage,
    CreateGameRequest,
    CreateGameRequestKind,
    EventOut,
    EventPage,
    EventType,
    FlyingDutchmanAcceptOffer,
    FlyingDutchmanAcceptOfferType,
    FlyingDutchmanBid,
    FlyingDutchmanBidType,
    FlyingDutchmanDeclare,
    FlyingDutchmanDeclareType,
    FlyingDutchmanDeclineIncome,
    FlyingDutchmanDeclineIncomeType,
    FlyingDutchmanDropOut,
    FlyingDutchmanDropOutType,
    FlyingDutchmanBidHorseshoe,
    FlyingDutchmanCommandKind,
    FlyingDutchmanDecision,
    FlyingDutchmanPaymentTerm,
    FlyingDutchmanSign,
    FlyingDutchmanLegal,
    FlyingDutchmanMakeOffer,
    FlyingDutchmanMakeOfferType,
    FlyingDutchmanMove,
    FlyingDutchmanMoveType,
    FlyingDutchmanNoAgreement,
    FlyingDutchmanNoAgreementType,
    FlyingDutchmanPass,
    FlyingDutchmanPassType,
    FlyingDutchmanRejectOffer,
    FlyingDutchmanRejectOfferType,
    FlyingDutchmanReturnShares,
    FlyingDutchmanReturnSharesType,
    FlyingDutchmanTakeIncome,
    FlyingDutchmanTakeIncomeType,
    FlyingDutchmanUseKontor,
    FlyingDutchmanUseKontorType,
    FlyingDutchmanUseSmith,
    FlyingDutchmanUseSmithType,
    FlyingDutchmanWithdrawOffer,
    FlyingDutchmanWithdrawOfferType,
    FlyingDutchmanGameDetail,
    FlyingDutchmanGameSummary,
    FlyingDutchmanOutcome,
    GamePage,
    GameStatus,
    ListView,
    LoginRequest,
    PlatformErrorCode,
    Problem,
    RegisterRequest,
    SteelDriverBid,
    SteelDriverBidType,
    SteelDriverBuild,
    SteelDriverBuildType,
    SteelDriverChoosePath,
    SteelDriverChoosePathType,
    SteelDriverGameDetail,
    SteelDriverGameSummary,
    SteelDriverLegalBid,
    SteelDriverLegalBuild,
    SteelDriverLegalChoosePath,
    SteelDriverLegalOpenAuction,
    SteelDriverLegalTakeGoods,
    SteelDriverOpenAuction,
    SteelDriverOpenAuctionType,
    SteelDriverPassBid,
    SteelDriverPassBidType,
    SteelDriverPassBuild,
    SteelDriverPassBuildType,
    SteelDriverPassDelivery,
    SteelDriverPassDeliveryType,
    SteelDriverPassPawn,
    SteelDriverPassPawnType,
    SteelDriverTakeGoods,
    SteelDriverOutcome,
    SteelDriverTakeGoodsType,
    TokenPair,
    UnknownEvent,
    UserProfile,
    Verification,
    SendRequest,
)
from kontor_api_client.models import UndoBody, UndoOutcome, UndoPolicy, UndoStatus
from kontor_api_client.api.play import cancel_order, edit_order, list_orders, set_order
from kontor_api_client.models import (
    AutoKind,
    CommandRecord,
    ExportEvent,
    NewsKind,
    OrderRequest,
    Orders,
    SteelDriverOrderPassPawn,
    SteelDriverOrderPassPawnType,
    SteelDriverOrderProxyBid,
    SteelDriverOrderProxyBidType,
)
from kontor_api_client.models import (
    CreateTournamentRequest,
    Leaderboard,
    LeaderboardKind,
    StandingLine,
    Tournament,
    TournamentTable,
)
from kontor_api_client.types import UNSET, File, Response, Unset

# A game's detail and its summary are its game's own, told apart by `kind`.
Detail = Union[FlyingDutchmanGameDetail, SteelDriverGameDetail]
Summary = Union[FlyingDutchmanGameSummary, SteelDriverGameSummary]

Command = Union[
    FlyingDutchmanAcceptOffer,
    FlyingDutchmanBid,
    FlyingDutchmanDeclare,
    FlyingDutchmanDeclineIncome,
    FlyingDutchmanDropOut,
    FlyingDutchmanMakeOffer,
    FlyingDutchmanMove,
    FlyingDutchmanNoAgreement,
    FlyingDutchmanPass,
    FlyingDutchmanRejectOffer,
    FlyingDutchmanReturnShares,
    FlyingDutchmanTakeIncome,
    FlyingDutchmanUseKontor,
    FlyingDutchmanUseSmith,
    FlyingDutchmanWithdrawOffer,
    SteelDriverBid,
    SteelDriverBuild,
    SteelDriverChoosePath,
    SteelDriverOpenAuction,
    SteelDriverPassBid,
    SteelDriverPassBuild,
    SteelDriverPassDelivery,
    SteelDriverPassPawn,
    SteelDriverTakeGoods,
]

# More decisions than any game of these sizes takes; reaching it means the game is stuck.
MAX_STEPS = 5000
# Games of one kind played to see each of its command types sent at least once.
MAX_GAMES = 12
# The Flying Dutchman's commands that only a negotiation (a tie of bids) offers.
NEGOTIATION = {"make_offer", "reject_offer", "withdraw_offer", "accept_offer", "no_agreement"}

T = TypeVar("T")


def parsed(response: Response[T | Problem], what: str) -> T:
    """The typed body of a successful answer; a problem (or nothing parsed) ends the run."""
    body = response.parsed
    if body is None or isinstance(body, Problem):
        raise SystemExit(f"{what}: {response.status_code} {response.content!r}")
    return body


def summary(response: Response[Summary | Problem], what: str) -> Summary:
    """A game's summary from a successful answer (`parsed` cannot infer a union)."""
    body = response.parsed
    if not isinstance(body, (FlyingDutchmanGameSummary, SteelDriverGameSummary)):
        raise SystemExit(f"{what}: {response.status_code} {response.content!r}")
    return body


class Player:
    def __init__(self, base: str, name: str) -> None:
        password = f"{name}-Correct-Horse-7"
        anonymous = Client(base_url=base)
        profile = parsed(
            register.sync_detailed(
                client=anonymous,
                body=RegisterRequest(username=name, email=f"{name}@example.org", password=password),
            ),
            "register",
        )
        assert isinstance(profile, UserProfile) and profile.username == name
        tokens = parsed(
            login.sync_detailed(client=anonymous, body=LoginRequest(username=name, password=password)),
            "login",
        )
        assert isinstance(tokens, TokenPair)
        self.name = name
        self.client = AuthenticatedClient(base_url=base, token=tokens.access_token)

    def game(self, game_id: uuid.UUID) -> Detail:
        detail = parsed(get_game.sync_detailed(game_id, client=self.client), "get game")
        assert isinstance(detail, (FlyingDutchmanGameDetail, SteelDriverGameDetail)), detail
        return detail


def fd_command(
    legal: FlyingDutchmanLegal,
    seat: int,
    turns: dict[int, tuple[int, int]],
    missing: set[str],
    rng: random.Random,
) -> Command:
    """One of the commands `legal` offers, with arguments taken from it; one of the `missing`
    types where it is offered (negotiations and extra rounds come too seldom to wait for)."""
    offered = set(legal.commands)
    decision = legal.decision
    K = FlyingDutchmanCommandKind
    if decision != FlyingDutchmanDecision.NEGOTIATE:
        turns.pop(seat, None)
    if decision == FlyingDutchmanDecision.ACTION:
        if K.USE_KONTOR in offered and ("use_kontor" in missing or rng.random() < 0.2):
            return FlyingDutchmanUseKontor(type_=FlyingDutchmanUseKontorType.USE_KONTOR)
        if K.USE_SMITH in offered and ("use_smith" in missing or rng.random() < 0.2):
            return FlyingDutchmanUseSmith(type_=FlyingDutchmanUseSmithType.USE_SMITH)
        if K.PASS in offered and (K.BID not in offered or rng.random() < 0.5):
            return FlyingDutchmanPass(type_=FlyingDutchmanPassType.PASS)
        return fd_bid(legal, missing, rng)
    if decision == FlyingDutchmanDecision.EXTRA_ROUND:
        if K.BID in offered and "drop_out" not in missing and rng.random() < 0.5:
            return fd_bid(legal, missing, rng)
        return FlyingDutchmanDropOut(type_=FlyingDutchmanDropOutType.DROP_OUT)
    if decision == FlyingDutchmanDecision.RETURN_SHARES:
        return FlyingDutchmanReturnShares(
            type_=FlyingDutchmanReturnSharesType.RETURN_SHARES,
            cards=rng.sample(legal.returnable, 2),
        )
    if decision == FlyingDutchmanDecision.MOVE:
        return FlyingDutchmanMove(type_=FlyingDutchmanMoveType.MOVE, to=rng.choice(legal.destinations))
    if decision == FlyingDutchmanDecision.DECLARE:
        return FlyingDutchmanDeclare(
            type_=FlyingDutchmanDeclareType.DECLARE, to=rng.choice(legal.destinations)
        )
    if decision == FlyingDutchmanDecision.NEGOTIATE:
        turn, patience = turns.get(seat, (0, rng.choice([1, 10, 10])))
        turns[seat] = (turn + 1, patience)
        return fd_negotiate(legal, seat, turn, patience, missing, rng)
    if decision == FlyingDutchmanDecision.ISLAND_INCOME:
        if legal.income and "decline_income" not in missing and rng.random() < 0.8:
            return FlyingDutchmanTakeIncome(
                type_=FlyingDutchmanTakeIncomeType.TAKE_INCOME, colour=rng.choice(legal.income).colour
            )
        return FlyingDutchmanDeclineIncome(type_=FlyingDutchmanDeclineIncomeType.DECLINE_INCOME)
    raise SystemExit(f"seat {seat} is pending without a decision: {legal.to_dict()}")


def fd_bid(legal: FlyingDutchmanLegal, missing: set[str], rng: random.Random) -> FlyingDutchmanBid:
    """A bid of one or two horseshoes, never two gold ones (the gold one counts plus); often
    the lowest silver one alone, which ties with the others' and leads to negotiations (always,
    while a negotiation's command has not been sent)."""
    silver = sorted((h for h in legal.horseshoes if not h.gold), key=lambda h: h.value)
    gold = [h for h in legal.horseshoes if h.gold]
    if silver and (NEGOTIATION & missing or rng.random() < 0.5):
        lowest = FlyingDutchmanBidHorseshoe(value=silver[0].value, sign=FlyingDutchmanSign.PLUS)
        return FlyingDutchmanBid(type_=FlyingDutchmanBidType.BID, horseshoes=[lowest])
    picks = rng.sample(silver, min(len(silver), rng.randint(1, 2)))
    if gold and (not picks or rng.random() < 0.3):
        picks = picks[:1] + [rng.choice(gold)]
    horseshoes = [
        FlyingDutchmanBidHorseshoe(
            value=h.value,
            sign=FlyingDutchmanSign.PLUS
            if h.gold or rng.random() < 0.7
            else FlyingDutchmanSign.MINUS,
        )
        for h in picks
    ]
    return FlyingDutchmanBid(type_=FlyingDutchmanBidType.BID, horseshoes=horseshoes)


def fd_negotiate(
    legal: FlyingDutchmanLegal, seat: int, turn: int, patience: int, missing: set[str], rng: random.Random
) -> Command:
    """The seat's `turn`-th command of this negotiation: an offer, a rejection of another's,
    taking its own back and offering anew, then acceptances, and no agreement once its
    `patience` is spent; so every negotiation command is sent and every negotiation ends. A
    rejection or a withdrawal not sent yet goes first wherever it can."""
    K = FlyingDutchmanCommandKind
    offered = set(legal.commands)
    if turn >= patience:
        return FlyingDutchmanNoAgreement(type_=FlyingDutchmanNoAgreementType.NO_AGREEMENT)
    mine = [o for o in legal.offers if o.by == seat]
    open_to_me = [
        o for o in legal.offers if o.by != seat and seat not in o.accepted_by and seat not in o.rejected_by
    ]
    if K.REJECT_OFFER in offered and open_to_me and (turn == 1 or "reject_offer" in missing):
        return FlyingDutchmanRejectOffer(type_=FlyingDutchmanRejectOfferType.REJECT_OFFER, offer=open_to_me[0].id)
    if K.WITHDRAW_OFFER in offered and mine and (turn == 2 or "withdraw_offer" in missing):
        return FlyingDutchmanWithdrawOffer(type_=FlyingDutchmanWithdrawOfferType.WITHDRAW_OFFER, offer=mine[0].id)
    if K.ACCEPT_OFFER in offered and open_to_me and turn >= 3:
        return FlyingDutchmanAcceptOffer(type_=FlyingDutchmanAcceptOfferType.ACCEPT_OFFER, offer=open_to_me[0].id)
    if K.MAKE_OFFER in offered and not mine:
        to = rng.choice(legal.promise_limits)
        payments = []
        if legal.payees and to.available > 0:
            payments.append(
                FlyingDutchmanPaymentTerm(seat=rng.choice(legal.payees), amount=rng.randint(1, min(5, to.available)))
            )
        return FlyingDutchmanMakeOffer(type_=FlyingDutchmanMakeOfferType.MAKE_OFFER, to=to.to, payments=payments)
    if K.WITHDRAW_OFFER in offered and mine:
        return FlyingDutchmanWithdrawOffer(type_=FlyingDutchmanWithdrawOfferType.WITHDRAW_OFFER, offer=mine[0].id)
    return FlyingDutchmanNoAgreement(type_=FlyingDutchmanNoAgreementType.NO_AGREEMENT)


def sd_command(detail: SteelDriverGameDetail, rng: random.Random) -> Command:
    legal = detail.legal
    if isinstance(legal, SteelDriverLegalOpenAuction):
        if legal.companies and legal.max_bid >= legal.min_bid and (not legal.can_pass or rng.random() < 0.8):
            return SteelDriverOpenAuction(
                type_=SteelDriverOpenAuctionType.OPEN_AUCTION,
                company=rng.choice(legal.companies),
                bid=rng.randint(legal.min_bid, min(legal.max_bid, legal.min_bid + 3)),
            )
        return SteelDriverPassPawn(type_=SteelDriverPassPawnType.PASS_PAWN)
    if isinstance(legal, SteelDriverLegalBid):
        if legal.can_bid and (not legal.can_pass or rng.random() < 0.4):
            return SteelDriverBid(type_=SteelDriverBidType.BID, bid=rng.randint(legal.min_bid, legal.cubes))
        return SteelDriverPassBid(type_=SteelDriverPassBidType.PASS_BID)
    if isinstance(legal, SteelDriverLegalBuild):
        if legal.links:
            return SteelDriverBuild(type_=SteelDriverBuildType.BUILD, link=rng.choice(legal.links).link)
        return SteelDriverPassBuild(type_=SteelDriverPassBuildType.PASS_BUILD)
    if isinstance(legal, SteelDriverLegalTakeGoods):
        if legal.goods:
            return SteelDriverTakeGoods(type_=SteelDriverTakeGoodsType.TAKE_GOODS, city=rng.choice(legal.goods).city)
        return SteelDriverPassDelivery(type_=SteelDriverPassDeliveryType.PASS_DELIVERY)
    if isinstance(legal, SteelDriverLegalChoosePath):
        return SteelDriverChoosePath(
            type_=SteelDriverChoosePathType.CHOOSE_PATH, index=rng.randrange(len(legal.options))
        )
    raise SystemExit(f"a pending seat has nothing to do: {detail.to_dict()}")


def play(base: str, kind: CreateGameRequestKind, seats: int, missing: set[str], rng: random.Random) -> dict[str, Any]:
    tag = uuid.uuid4().hex[:8]
    players = [Player(base, f"py{tag}{n}") for n in range(seats)]
    host = players[0]
    created = summary(
        create_game.sync_detailed(client=host.client, body=CreateGameRequest(kind=kind, seats=seats)),
        "create game",
    )
    for guest in players[1:]:
        joined = summary(join_game.sync_detailed(created.id, client=guest.client), "join")
        assert joined.id == created.id
    # A game starts by itself once its last seat is taken; the host starts it otherwise.
    if host.game(created.id).status == GameStatus.OPEN:
        started = summary(start_game.sync_detailed(created.id, client=host.client), "start")
        assert started.status == GameStatus.ACTIVE

    if kind == CreateGameRequestKind.FLYING_DUTCHMAN:
        talk(players, created.id)

    sent: set[str] = set()
    refused: dict[str, int] = {}
    # Commands each seat sent in the negotiation under way, and how many it will send.
    negotiating: dict[int, tuple[int, int]] = {}
    by_seat = {host.game(created.id).your_seat: host}
    for guest in players[1:]:
        by_seat[guest.game(created.id).your_seat] = guest
    detail = host.game(created.id)
    for _ in range(MAX_STEPS):
        if detail.status == GameStatus.FINISHED:
            break
        assert detail.pending, f"an active game with no pending seat: {detail.to_dict()}"
        seat = rng.choice(detail.pending)
        player = by_seat[seat]
        mine = player.game(created.id)
        # The detail is the game's own (told apart by `kind`): its legal actions are typed.
        if isinstance(mine, FlyingDutchmanGameDetail):
            assert isinstance(mine.legal, FlyingDutchmanLegal), mine.to_dict()
            command: Command = fd_command(mine.legal, seat, negotiating, missing - sent, rng)
        else:
            command = sd_command(mine, rng)
        answer = submit_action.sync_detailed(
            created.id,
            client=player.client,
            body=ActionRequest(action=command, version=mine.version),
            idempotency_key=uuid.uuid4().hex,
        )
        result = answer.parsed
        if isinstance(result, Problem):
            # A rule refusal of a command the simple policy chose badly (a bid the rules
            # refuse) is fine: the seat chooses again. Anything else is a failure.
            assert answer.status_code == 422, f"{command.to_dict()}: {answer.content!r}"
            refused[command.type_.value] = refused.get(command.type_.value, 0) + 1
        else:
            assert isinstance(result, ActionResult), answer.content
            sent.add(command.type_.value)
        detail = host.game(created.id)
    else:
        raise SystemExit(f"the game did not finish within {MAX_STEPS} decisions")

    report = parsed(verification.sync_detailed(created.id, client=host.client), "verification")
    assert isinstance(report, Verification) and report.verified, report.to_dict()
    events = all_events(host, created.id)
    assert [e.seq for e in events] == list(range(1, detail.version + 1)), "the log has gaps"
    assert events[-1].type_ == EventType.KONTOR_GAME_ENDED
    # Every event of the log is of a known type, parsed as its own model.
    unknown = [e.to_dict() for e in events if isinstance(e.data, UnknownEvent)]
    assert not unknown, unknown
    # The outcome is the game's own, in the detail and in the lobby's list.
    own = FlyingDutchmanOutcome if kind == CreateGameRequestKind.FLYING_DUTCHMAN else SteelDriverOutcome
    assert isinstance(detail.outcome, own), detail.to_dict()
    listed = [g for g in finished_games(host) if g.id == created.id]
    assert len(listed) == 1 and isinstance(listed[0].outcome, own), [g.to_dict() for g in listed]
    return {
        "game": str(created.id),
        "kind": kind.value,
        "version": detail.version,
        "sent": sorted(sent),
        "forced": sorted(forced_types(host, created.id)),
        "refused": refused,
    }


def forced_types(player: Player, game_id: uuid.UUID) -> set[str]:
    """The command types the server played as forced in a finished game, as its complete
    export records them (a company that cannot build passes: no client ever sends that)."""
    exported = parsed(export_game.sync_detailed(game_id, client=player.client), "export")
    assert isinstance(exported, File)
    lines = exported.payload.read().decode().splitlines()[1:]
    commands = [ExportEvent.from_dict(json.loads(line)).command for line in lines]
    return {
        str(c.action["type"]) for c in commands if isinstance(c, CommandRecord) and c.auto == AutoKind.FORCED
    }


def take_back(base: str) -> dict[str, Any]:
    """A misclick taken back through the generated calls: in a Steel Driver game (a new table
    allows undoing one's own moves) the seat to act opens an auction, sees it may take it
    back, does (`rewound`, the game as it was), and a retry gets the same answer."""
    tag = uuid.uuid4().hex[:8]
    players = [Player(base, f"pu{tag}{n}") for n in range(3)]
    host = players[0]
    created = summary(
        create_game.sync_detailed(
            client=host.client, body=CreateGameRequest(kind=CreateGameRequestKind.STEEL_DRIVER, seats=3)
        ),
        "create game",
    )
    for guest in players[1:]:
        summary(join_game.sync_detailed(created.id, client=guest.client), "join")
    by_seat = {p.game(created.id).your_seat: p for p in players}
    player = by_seat[host.game(created.id).pending[0]]
    before = player.game(created.id)
    assert isinstance(before, SteelDriverGameDetail), before.to_dict()
    assert before.undo.policy == UndoPolicy.OWN, before.undo.to_dict()
    assert not isinstance(before.undo.can_undo_to, int), before.undo.to_dict()
    legal = before.legal
    assert isinstance(legal, SteelDriverLegalOpenAuction), before.to_dict()
    opened = submit_action.sync_detailed(
        created.id,
        client=player.client,
        body=ActionRequest(
            action=SteelDriverOpenAuction(
                type_=SteelDriverOpenAuctionType.OPEN_AUCTION, company=legal.companies[0], bid=legal.min_bid
            ),
            version=before.version,
        ),
        idempotency_key=uuid.uuid4().hex,
    )
    assert isinstance(opened.parsed, ActionResult), opened.content
    after = player.game(created.id)
    assert after.undo.can_undo_to == before.version and after.undo.needs == [], after.undo.to_dict()
    outcomes = [
        parsed(undo.sync_detailed(created.id, client=player.client, body=UndoBody(at_version=after.version)), "undo")
        for _ in range(2)
    ]
    for outcome in outcomes:
        assert isinstance(outcome, UndoOutcome), outcome
        assert outcome.status == UndoStatus.REWOUND and outcome.version == after.version + 1, outcome.to_dict()
    again = player.game(created.id)
    assert again.version == after.version + 1, again.to_dict()
    assert again.pending == before.pending and again.view == before.view, again.to_dict()
    events = all_events(player, created.id)
    assert events[-1].type_ == EventType.KONTOR_REWOUND, events[-1].to_dict()
    assert [e.seq for e in events if e.undone is True] == list(range(before.version + 1, after.version + 1))
    return {"game": str(created.id), "rewound": [before.version, after.version, again.version]}


def standing_orders(base: str) -> dict[str, Any]:
    """Standing orders through the generated calls, in a Steel Driver game: the seat after the
    pawn holder sets a proxy bid (checked on its view), changes its limit, cancels it, all
    without moving the game's version; then orders to pass the pawn this round, which plays
    the moment the holder passes: its own log marks the move as played by its order, another
    seat's log shows it as a click, and its orders say what it played."""
    tag = uuid.uuid4().hex[:8]
    players = [Player(base, f"po{tag}{n}") for n in range(3)]
    host = players[0]
    created = summary(
        create_game.sync_detailed(
            client=host.client, body=CreateGameRequest(kind=CreateGameRequestKind.STEEL_DRIVER, seats=3)
        ),
        "create game",
    )
    for guest in players[1:]:
        summary(join_game.sync_detailed(created.id, client=guest.client), "join")
    by_seat = {p.game(created.id).your_seat: p for p in players}
    before = host.game(created.id)
    assert isinstance(before, SteelDriverGameDetail), before.to_dict()
    holder_seat = before.pending[0]
    holder, owner, other = (by_seat[(holder_seat + i) % 3] for i in range(3))
    round_ = before.view.round_ if not isinstance(before.view, Unset) and before.view is not None else 1
    company = before.view.companies[0].company if before.view else None
    assert company is not None

    def orders(response: Response[Orders | Problem], what: str) -> Orders:
        body = parsed(response, what)
        assert isinstance(body, Orders), body
        return body

    proxy = SteelDriverOrderProxyBid(
        type_=SteelDriverOrderProxyBidType.PROXY_BID, round_=round_, company=company, limit=3, pass_when_outbid=True
    )
    set_once = orders(set_order.sync_detailed(created.id, client=owner.client, body=OrderRequest(order=proxy)), "set order")
    assert [o.order for o in set_once.orders] == [proxy], set_once.to_dict()
    order_id = set_once.orders[0].id
    proxy.limit = 5
    edited = orders(
        edit_order.sync_detailed(created.id, order_id, client=owner.client, body=OrderRequest(order=proxy)), "edit order"
    )
    assert edited.orders[0].id == order_id and edited.orders[0].order == proxy, edited.to_dict()
    assert orders(list_orders.sync_detailed(created.id, client=other.client), "others' orders").orders == []
    cancelled = orders(cancel_order.sync_detailed(created.id, order_id, client=owner.client), "cancel order")
    assert cancelled.orders == [], cancelled.to_dict()
    assert host.game(created.id).version == before.version, "an order moved the game's version"

    pass_pawn = SteelDriverOrderPassPawn(type_=SteelDriverOrderPassPawnType.PASS_PAWN, round_=round_)
    orders(set_order.sync_detailed(created.id, client=owner.client, body=OrderRequest(order=pass_pawn)), "set order")
    answer = submit_action.sync_detailed(
        created.id,
        client=holder.client,
        body=ActionRequest(action=SteelDriverPassPawn(type_=SteelDriverPassPawnType.PASS_PAWN), version=before.version),
        idempotency_key=uuid.uuid4().hex,
    )
    assert isinstance(answer.parsed, ActionResult), answer.content
    mine = [e for e in all_events(owner, created.id) if e.auto == AutoKind.ORDER]
    assert len(mine) == 1 and mine[0].actor == (holder_seat + 1) % 3, [e.to_dict() for e in mine]
    seen_by_other = [e for e in all_events(other, created.id) if e.seq == mine[0].seq]
    assert len(seen_by_other) == 1 and isinstance(seen_by_other[0].auto, Unset), seen_by_other[0].to_dict()
    news = orders(list_orders.sync_detailed(created.id, client=owner.client), "orders").news
    assert [n.kind for n in news] == [NewsKind.PLAYED], [n.to_dict() for n in news]
    return {"orders": str(created.id), "played": mine[0].seq}


def talk(players: list[Player], game_id: uuid.UUID) -> None:
    """A word at the table through the generated calls: sent once under its key (a retry
    answers the same message), read back by another seat in the channel's page and found in its
    overview."""
    speaker, listener = players[0], players[1]
    text = f"good luck, {listener.name}\nand have fun"
    key = uuid.uuid4().hex
    sent = [
        parsed(
            send_chat_message.sync_detailed(
                game_id, "table", client=speaker.client, body=SendRequest(text=text), idempotency_key=key
            ),
            "send chat message",
        )
        for _ in range(2)
    ]
    assert all(isinstance(m, ChatMessage) for m in sent), sent
    first, retried = sent
    assert retried.id == first.id and first.text == text and first.channel == "table", first.to_dict()
    page = parsed(chat_messages.sync_detailed(game_id, "table", client=listener.client), "chat page")
    assert isinstance(page, ChatPage), page
    assert [m.id for m in page.items] == [first.id], page.to_dict()
    assert page.items[0].author.username == speaker.name, page.to_dict()
    overview = parsed(chat_overview.sync_detailed(game_id, client=listener.client), "chat overview")
    assert isinstance(overview, ChatOverview), overview
    table = [c for c in overview.channels if c.channel == "table"]
    assert len(table) == 1 and table[0].can_write and table[0].last_id == first.id, overview.to_dict()


def finished_games(player: Player) -> list[Summary]:
    """The player's finished games, every page."""
    games: list[Summary] = []
    cursor: str | Unset = UNSET
    while True:
        page = parsed(
            list_games.sync_detailed(client=player.client, view=ListView.FINISHED, cursor=cursor), "finished games"
        )
        assert isinstance(page, GamePage)
        games.extend(page.items)
        if not isinstance(page.next_cursor, str):
            return games
        cursor = page.next_cursor


def audit(base: str, game_id: uuid.UUID) -> dict[str, Any]:
    """A finished game's log exported, verified and imported through the generated calls, by
    someone who did not play (the export of a finished game is complete for anyone)."""
    auditor = Player(base, f"audit{uuid.uuid4().hex[:8]}")
    exported = parsed(export_game.sync_detailed(game_id, client=auditor.client), "export")
    assert isinstance(exported, File)
    log = exported.payload.read()
    lines = log.decode().splitlines()
    assert json.loads(lines[0])["format"] == "kontor-game-log", lines[0]

    def upload() -> File:
        return File(payload=BytesIO(log), file_name=f"kontor-{game_id}.ndjson")

    checked = parsed(verify_upload.sync_detailed(client=auditor.client, body=upload()), "verify")
    assert isinstance(checked, Verification) and checked.verified, checked.to_dict()
    sandbox = summary(import_game.sync_detailed(client=auditor.client, body=upload()), "import")
    assert sandbox.sandbox and sandbox.imported_from == game_id, sandbox.to_dict()
    assert sandbox.status == GameStatus.FINISHED and sandbox.version == len(lines) - 1
    return {
        "audit": str(game_id),
        "lines": len(lines),
        "verified": checked.verified,
        "sandbox": str(sandbox.id),
        "imported_from": str(sandbox.imported_from),
    }


def additions_are_kept() -> None:
    """Answers with a code and an event type this client was not generated with, as a later
    Kontor may send them (new codes and event types are additive): parsed, kept as they came,
    and written back unchanged; known values still parse as their types."""
    problem = {
        "type": "urn:kontor:problem:a_code_from_later",
        "title": "Unprocessable Entity",
        "status": 422,
        "detail": "a refusal this client does not know yet",
        "code": "a_code_from_later",
        "request_id": "r-1",
    }
    parsed_problem = Problem.from_dict(problem)
    assert parsed_problem.code == "a_code_from_later" and not isinstance(parsed_problem.code, PlatformErrorCode)
    assert parsed_problem.to_dict() == problem, parsed_problem.to_dict()
    assert isinstance(Problem.from_dict({**problem, "code": "game_full"}).code, PlatformErrorCode)
    later = {
        "seq": 14,
        "type": "kontor.a_later_event",
        "actor": None,
        # (As Python writes a time back; the server's `Z` is the same instant.)
        "at": "2026-12-01T12:00:00+00:00",
        "data": {"type": "kontor.a_later_event", "seat": 1, "news": ["a", 2]},
    }
    answer = {"version": 14, "status": "active", "pending": [0], "events": [later]}
    result = ActionResult.from_dict(answer)
    event = result.events[0]
    assert event.type_ == "kontor.a_later_event" and not isinstance(event.type_, EventType)
    assert isinstance(event.data, UnknownEvent) and event.data["news"] == ["a", 2], event.data
    assert result.to_dict() == answer, result.to_dict()
    known = EventOut.from_dict({**later, "type": "kontor.seat_left", "data": {"type": "kontor.seat_left", "seat": 1, "policy": "bot"}})
    assert isinstance(known.type_, EventType) and not isinstance(known.data, UnknownEvent), known


def all_events(player: Player, game_id: uuid.UUID) -> list[EventOut]:
    """The whole log, page by page as `next_after` says."""
    events: list[EventOut] = []
    after: int | Unset = UNSET
    while True:
        page = parsed(event_log.sync_detailed(game_id, client=player.client, after=after, limit=1000), "events")
        assert isinstance(page, EventPage)
        events.extend(page.items)
        if not isinstance(page.next_after, int):
            return events
        after = page.next_after


def standing(base: str, setup: dict[str, Any]) -> list[dict[str, Any]]:
    """The kind's leaderboard, every page; then a tournament of the given players (the first
    organises it, the others enter), started early by its organiser, read back: its standings
    and its first round's tables, each game one its players can open."""
    kind: str = setup["kind"]
    clients = [
        (p["name"], AuthenticatedClient(base_url=base, token=p["token"])) for p in setup["players"]
    ]
    (organiser, host), guests = clients[0], clients[1:]
    board: list[dict[str, Any]] = []
    cursor: str | Unset = UNSET
    while True:
        page = parsed(leaderboard.sync_detailed(LeaderboardKind(kind), client=host, limit=2, cursor=cursor), "leaderboard")
        assert isinstance(page, Leaderboard), page
        board.extend(
            {"position": e.position, "username": e.username, "rating": e.rating, "games": e.games}
            for e in page.items
        )
        if not isinstance(page.next_cursor, str):
            break
        cursor = page.next_cursor

    closes = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=7)
    created = parsed(
        create_tournament.sync_detailed(
            client=host,
            body=CreateTournamentRequest(
                name="Python cup",
                kind=kind,
                format_="swiss",
                seats_per_table=len(clients),
                rounds=2,
                entry_closes_at=closes,
                max_players=len(clients),
            ),
        ),
        "create tournament",
    )
    assert isinstance(created, Tournament) and created.status == "entry", created
    assert created.organiser == organiser, created.to_dict()
    for name, client in clients:
        entered = parsed(join_tournament.sync_detailed(created.id, client=client), "join tournament")
        assert isinstance(entered, Tournament) and name in [p.username for p in entered.players], entered.to_dict()
    started = parsed(start_tournament.sync_detailed(created.id, client=host), "start tournament")
    assert isinstance(started, Tournament) and started.status == "running", started.to_dict()
    read = parsed(get_tournament.sync_detailed(created.id, client=guests[0][1]), "get tournament")
    assert isinstance(read, Tournament), read
    assert read.current_round == 1 and len(read.rounds_played) == 1, read.to_dict()
    standings: list[StandingLine] = read.standings
    tables: list[TournamentTable] = read.rounds_played[0].tables
    for table in tables:
        seated = {s.username for s in table.seats}
        for name, client in clients:
            if name in seated:
                game = parsed(get_game.sync_detailed(table.game_id, client=client), "tournament game")
                assert isinstance(game, (FlyingDutchmanGameDetail, SteelDriverGameDetail)), game
                assert game.status == GameStatus.ACTIVE and game.your_seat is not None, game.to_dict()
    return [
        {"leaderboard": board},
        {
            "tournament": str(read.id),
            "standings": [{"position": s.position, "username": s.username, "points": s.points} for s in standings],
            "tables": [{"game_id": str(t.game_id), "seats": [s.username for s in t.seats]} for t in tables],
        },
    ]


def main() -> None:
    base, seed, wanted = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
    rng = random.Random(seed)
    additions_are_kept()
    if len(sys.argv) > 4:
        for line in standing(base, json.loads(sys.argv[4])):
            print(json.dumps(line), flush=True)
    print(json.dumps(take_back(base)), flush=True)
    print(json.dumps(standing_orders(base)), flush=True)
    for kind, seats in [(CreateGameRequestKind.FLYING_DUTCHMAN, 4), (CreateGameRequestKind.STEEL_DRIVER, 4)]:
        # Whole games of the kind until every one of its command types has been sent.
        missing = set(wanted[kind.value])
        for n in range(MAX_GAMES):
            game = play(base, kind, seats, missing, rng)
            print(json.dumps(game), flush=True)
            if n == 0:
                print(json.dumps(audit(base, uuid.UUID(game["game"]))), flush=True)
            missing -= set(game["sent"]) | set(game["forced"])
            if not missing:
                break


if __name__ == "__main__":
    main()
