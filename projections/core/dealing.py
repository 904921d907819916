"""Server deals (`rules/server-deal.md`): the option `dealing`, the deck of the hand being dealt, and the
cards the server fills into a dealing event. Pure: no store, no secret.

A server-dealt game's `engine.Position` carries a `DealState`: the hand whose deck is committed, its
commitment, the `seed` events added to it, how many cards have left it, and whether it is revealed.
It is folded with the game (so a `retract` rewinds it with the state: the events after it take the
same next cards again) and holds nothing secret: the server seed stays in the store
(`events/store/seeds.py`), and the shuffled deck is computed only on the write side, when a dealing
event is filled in (`fill`), through the recorder's `Dealer`.

Each game declares its dealing order (`GameRules.dealing_order`, a `DealingOrder`: which events take
cards, how the server fills them, how many they take), so nothing here names a game. The shuffle is
`projections/core/shuffle.py`. The standalone checker a player runs, `projections/fairness/fairdeal.py`,
has both again in its own file (it imports nothing of Tablebook); tests hold its shuffle and its table
of dealing orders to these (`tests/projections/test_dealing_orders.py`), so what the server deals is what
the checker expects.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from events.codec import plain
from events.common import DEAL_EVENTS, SHUFFLE_ALGORITHM
from events.errors import IllegalEventError, ImpossibleEventError, InvalidEventError, TablebookError
from events.schema import parse_event
from projections.core import registry, shuffle
from projections.core.dealing_order import DealingOrder, cards_in, named_count
from projections.core.rules import BaseState, GameRules, OptionSpec, opt_choice

#: the option every game takes: who deals, the table (the scorer enters every card) or the server
DEALING = OptionSpec(
    "table",
    opt_choice("table", "server"),
    "table: the scorer enters every card; server: the server shuffles and deals with a provably fair "
    "shuffle (rules/server-deal.md)",
)
#: the actor of the events the server appends itself
SERVER_ACTOR = "server"
#: the seeds the server adds to a deck to cut again after a tie (`cut_ties`)
RECUT = "recut {n}"


def is_server_dealt(options: Mapping[str, Any]) -> bool:
    return options.get("dealing") == "server"


@dataclass(frozen=True, slots=True)
class DealState:
    """The deck of the hand being dealt, as the record stands (public: the secret is not here)."""

    #: the hand the deck is for
    hand: int
    #: sha256 of the server seed, in hex
    commitment: str
    #: the hand's `seed` events, as the shuffle's `S:seed` strings, in seq order
    seeds: tuple[str, ...] = ()
    #: how many cards have left the deck
    taken: int = 0
    revealed: bool = False
    #: the seq of the deck's `deck_committed`
    committed_at: int = 0
    #: the seq of its last `seed` (its `deck_committed` while it has none)
    seeded_at: int = 0
    #: whether a card has ever left this deck in the record: a `retract` that puts the cards back does not
    #: undo it, so the deck's seeds are final from its first card on (`retract_reach`)
    opened: bool = False
    #: the seq of its `deck_revealed` (0 while it is secret)
    revealed_at: int = 0


#: `dealer(deal)`: the shuffled deck of `deal` (every card, the top first), from the server's secret
Dealer = Callable[[DealState], Sequence[str]]


def _order(rules: GameRules[Any]) -> DealingOrder:
    """The game's declared dealing order.

    Raises:
        ImpossibleEventError: the game declares none (no server deals it).
    """
    order = rules.dealing_order
    if order is None:
        raise ImpossibleEventError(f"{rules.title} declares no dealing order: the server cannot deal it")
    return order


def takes(kind: str, event: Mapping[str, Any]) -> tuple[str, ...]:
    """The card fields of `event` if it takes cards from the deck in game `kind` (else `()`): its dealing
    order's (`DealingOrder.fields`)."""
    order = registry.rules_for(kind).dealing_order
    return () if order is None else order.fields(event)


def taken_by(rules: GameRules[Any], state: BaseState, event: Mapping[str, Any]) -> int:
    """How many cards `event` (complete, about to be folded on `state`) takes from the deck."""
    order = rules.dealing_order
    fields = () if order is None else order.fields(event)
    if order is None or not fields:
        return 0
    count = None if order.taken is None else order.taken(state, event)
    return named_count(event, fields) if count is None else count


def on_deal_event(deal: DealState | None, event: Mapping[str, Any], seq: int) -> DealState | None:
    """The deal state after one of `DEAL_EVENTS` (already decided), appended at `seq`."""
    kind = event["type"]
    if kind == "deck_committed":
        return DealState(event["hand"], event["commitment"], committed_at=seq, seeded_at=seq)
    if deal is None:
        return None
    if kind == "seed":
        return replace(deal, seeds=(*deal.seeds, shuffle.seed_string(event)), seeded_at=seq)
    assert kind == "deck_revealed", kind
    return replace(deal, revealed=True, revealed_at=seq)


def took(deal: DealState, count: int) -> DealState:
    """The deal state after an event that took `count` cards (> 0) from the deck: opened for good."""
    return DealState(
        deal.hand, deal.commitment, deal.seeds, deal.taken + count, False, deal.committed_at, deal.seeded_at, True
    )


def after_retract(restored: DealState | None, before: DealState | None) -> DealState | None:
    """The deck after a `retract`: as it stood at the retract's `to_seq` (the cards taken since are back in
    it), still opened if it had dealt a card before the retract (its seeds stay final)."""
    if restored is None or before is None or not before.opened or restored.opened:
        return restored
    if restored.commitment != before.commitment:
        return restored
    return replace(restored, opened=True)


def retract_reach(deal: DealState | None) -> int:
    """The lowest `to_seq` a new `retract` may name in a server-dealt game (0: any).

    A committed deck is never abandoned: a retract reaches back at most to its `deck_committed` (so a
    hand is dealt again only by `hand_voided`, which reveals the deck). Once a card has left the deck,
    at most to its last `seed`: a retract never changes the seeds of a deck that has dealt, so the
    events after it take the same cards again (`server-deal.md`). A revealed deck (the game's last
    hand) is public: a retract reaches back at most to its `deck_revealed`, so no card of a public deck
    is dealt again.
    """
    if deal is None:
        return 0
    if deal.revealed:
        return deal.revealed_at
    return deal.seeded_at if deal.opened else deal.committed_at


def decide_deal_event(deal: DealState | None, raw: Any, seats: int, *, stored: bool) -> dict[str, Any]:
    """One of `DEAL_EVENTS`, checked: a client's `seed`, or (`stored`: re-deciding a record) the server's.

    Raises:
        InvalidEventError: out of shape, or `deck_committed` / `deck_revealed` sent by a client.
        ImpossibleEventError: a seed with no deck to add to, or after its first card was dealt.
    """
    event = parse_event(raw, DEAL_EVENTS, seats)
    kind = event["type"]
    if kind != "seed" and not stored:
        raise InvalidEventError(f"{kind} is appended by the server, never by a client", field="type")
    if kind == "seed":
        if deal is None or deal.revealed:
            raise ImpossibleEventError("a seed needs the hand's deck_committed first: no deck is committed now")
        if deal.taken:
            raise ImpossibleEventError(
                f"a seed is accepted before the first card of hand {deal.hand} is dealt; its cards are being dealt"
            )
        if deal.opened and not stored:
            raise ImpossibleEventError(
                f"the deck of hand {deal.hand} has dealt cards, which a retract took back: its seeds are final, "
                "and the same cards are dealt again; to deal the hand anew, void it (hand_voided): its deck is "
                "revealed and a new one committed"
            )
    elif kind == "deck_revealed" and (deal is None or deal.revealed or deal.hand != event["hand"]):
        raise ImpossibleEventError(f"hand {event['hand']}'s deck is not the one committed", field="hand")
    return event


def due_hand(rules: GameRules[Any], state: Any) -> int:
    """The hand whose deck the next dealing event takes from: the hand in progress, or between hands the
    next one, unless the game's dealing order says otherwise (`DealingOrder.due_hand`)."""
    order = rules.dealing_order
    early = None if order is None or order.due_hand is None else order.due_hand(state)
    if early is not None:
        return early
    return int(state.hand) if rules.hand_in_progress(state) else int(state.hand) + 1


@dataclass(frozen=True, slots=True)
class FollowUp:
    """What the server appends after an event: the reveal of the deck just finished, a deck for the next hand."""

    reveal: DealState | None
    commit: int | None


def follow_up(rules: GameRules[Any], state: Any, deal: DealState | None) -> FollowUp:
    """After an event that leaves the game at `state` with `deal`: reveal the deck of a hand that has ended
    (or been voided), commit one for the hand now due (none once the game has ended)."""
    due = None if rules.is_terminal(state) else due_hand(rules, state)
    reveal = deal if deal is not None and not deal.revealed and deal.hand != due else None
    live = deal is not None and not deal.revealed and reveal is None
    return FollowUp(reveal, due if due is not None and not live else None)


# --------------------------------------------------------------------------- filling in a dealing event


def fill(
    rules: GameRules[Any], state: Any, deal: DealState | None, raw: Mapping[str, Any], dealer: Dealer
) -> dict[str, Any]:
    """`raw` (a dealing event sent without its cards) with its card fields filled from the deck.

    Raises:
        InvalidEventError: a card field was sent.
        ImpossibleEventError: no deck is committed for the hand, or it has no card left.
    """
    order = _order(rules)
    event_type = raw["type"]
    fields = order.fields(raw)
    for name in fields:
        if name in raw:
            raise InvalidEventError(
                f"{name}: in a server-dealt game the server deals; send the {event_type} without its cards",
                field=name,
            )
    if deal is None or deal.revealed:
        raise ImpossibleEventError(f"no deck is committed for this {event_type}: it is not due")
    deck = list(dealer(deal))[deal.taken :]

    def cards(n: int) -> list[str]:
        if len(deck) < n:
            raise ImpossibleEventError(f"the deck of hand {deal.hand} has no card left for this {event_type}")
        taken = deck[:n]
        del deck[:n]
        return taken

    return {**raw, **order.fill(state, raw, cards)}


def stand_in(kind: str, deck: Sequence[str], taken: int) -> list[str]:
    """`deck` with the cards still in it (from `taken` on) in canonical order (game `kind`'s unshuffled deck).

    A dealing event is decided on this deck first (`engine.decide`): which cards are left is known to
    whoever has seen the record (every card but those already dealt from this deck), their order is
    not. So whether the event is refused, and with what words, depends on nothing the server has not
    shown; only an event the stand-in accepts is dealt from the real deck, and it is then appended.
    """
    order = {card: index for index, card in enumerate(_order(registry.rules_for(kind)).deck)}
    return [*deck[:taken], *sorted(deck[taken:], key=order.__getitem__)]


def batch_end(kind: str, raw_events: Sequence[Any]) -> int | None:
    """The index of the first event of a batch that the server deals (fills from the deck), or None.

    In a server-dealt game such an event ends its batch (`Recorder.append` refuses anything after it):
    an event after it would be decided on the cards just dealt, so its refusal would tell the sender a
    card of a batch that is not appended (`docs/server-deal.md`).
    """
    for index, raw in enumerate(raw_events):
        if isinstance(raw, Mapping) and isinstance(raw.get("type"), str) and takes(kind, raw):
            return index
    return None


def cut_ties(rules: GameRules[Any], state: Any, deal: DealState | None, raw: Any, dealer: Dealer) -> bool:
    """Whether the cards the deck gives `raw` now must be cut again (`DealingOrder.recut`: Gin's cut, which
    ranks the seats, needs three ranks), before any card of the deck is dealt.

    At a table the tied players cut again. The server's reading: it adds a `seed` of its own (`RECUT`,
    before any card is dealt, so the record stays checkable by `server-deal.md` alone) and cuts from the
    new deck.
    """
    order = rules.dealing_order
    if order is None or order.recut is None or not isinstance(raw, dict) or not order.fields(raw):
        return False
    if deal is None or deal.revealed or deal.taken:
        return False
    dealt = deal

    def top(n: int) -> list[str]:
        return list(dealer(dealt))[:n]

    return order.recut(state, raw, top)


_CARD = re.compile(r"\b(?:10|[2-9ATJQK])[CDHS]\b")


def scrubbed(error: TablebookError, filled: Mapping[str, Any], fields: Sequence[str]) -> TablebookError:
    """`error` (a filled event refused), with the deck's cards out of its message: an event refused shows
    nothing of the deck it would have taken (`server-deal.md`: no error message shows it)."""
    dealt = {card for name in fields for card in cards_in(filled.get(name))}

    def clean(text: str) -> str:
        return _CARD.sub(lambda m: "??" if m.group(0) in dealt else m.group(0), text)

    if isinstance(error, IllegalEventError):
        out: TablebookError = IllegalEventError(error.rule, clean(error.reason))
    else:
        out = type(error)(clean(error.message))
    out.details.update({k: clean(v) if isinstance(v, str) else v for k, v in error.details.items() if k != "rule"})
    return out


def deck_of(rules: GameRules[Any], server_seed: bytes, genesis: str, deal: DealState) -> list[str]:
    """The shuffled deck of `deal` (every card, the top first): `tablebook-shuffle-v1` of the game's deck."""
    return shuffle.shuffle(server_seed, genesis, deal.hand, deal.seeds, _order(rules).deck)


def strip_cards(kind: str, event: Mapping[str, Any]) -> dict[str, Any]:
    """A dealing event as a client of a server-dealt game sends it: without its card fields."""
    fields = takes(kind, event)
    return {k: v for k, v in event.items() if k not in fields}


def server_chance_events(rules: GameRules[Any], state: Any) -> list[dict[str, Any]]:
    """The chance events due in a server-dealt game, as a client sends them: without cards (the table pad,
    the tests). Each is the game's own `chance_events` with its card fields taken off; the same event
    twice (two random hits of one seat) is listed once."""
    out: list[dict[str, Any]] = []
    for event in rules.chance_events(state, random.Random(0)):
        bare = strip_cards(rules.kind, plain(event))
        if bare not in out:
            out.append(bare)
    return out


def committed_event(hand: int, commitment: str) -> dict[str, Any]:
    return {"type": "deck_committed", "hand": hand, "commitment": commitment, "algorithm": SHUFFLE_ALGORITHM}


def revealed_event(hand: int, server_seed: bytes) -> dict[str, Any]:
    return {"type": "deck_revealed", "hand": hand, "server_seed": server_seed.hex()}
