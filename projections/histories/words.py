"""Events in a card player's words, for the text hand history: `Anna leads K♥ and shows the marriage`.

These lines are for people only: the text history carries each event in its compact bracketed form
beside them (`[2. Anna: play KH marriage]`), and that is what an import reads (`text.py`). So a phrase
here may leave a field out or add a derived fact that helps a reader (the trick's winner, a 7½ total),
but it never has to be parsed back.

Values are in the game's units (`Units`): Seven and a Half totals in half points (`7½`), stakes in
chips, Schnapsen's totals as game points still to go. Seats are the players' names, cards glyphs
(`10♦`). A prose line never holds a square bracket: a name or a note's text is written with `(`/`)`
instead, so that the only `[` of a body line is the one that starts its event.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from events.cards import RANKS, SUIT_SYMBOLS, pretty
from projections.core import phrases
from projections.core.rules import GameRules

HIDDEN = "??"
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
#: suits in the order a hand is shown (black, red, black, red, as a bridge diagram)
SUIT_ORDER = "SHCD"
#: ranks high to low, per game (Schnapsen's ten ranks under the ace; Gin's ace is low)
RANK_ORDER = {"schnapsen": "ATKQJ", "gin-rummy-3": "KQJT98765432A"}
DEFAULT_RANKS = "AKQJT98765432"
#: units a game's `GameRules.units` may not declare yet (H0 adds the field; the game owners fill it)
FALLBACK_UNITS: Mapping[str, Mapping[str, str]] = {
    "seven-and-a-half": {
        "total": "half",
        "banker_total": "half",
        "amount": "chips",
        "points": "chips",
        "totals": "chips",
    },
    "schnapsen": {"totals": "to_go"},
}
#: what a game's score-line points count, for people
POINTS_WORD = {"schnapsen": "game points", "seven-and-a-half": "chips"}


def prose(text: str) -> str:
    """One line for people: whitespace runs as one space, square brackets as round ones."""
    return " ".join(text.split()).replace("[", "(").replace("]", ")")


@dataclass(frozen=True, slots=True)
class Units:
    """How a game's values read: `units` maps a field (or `points`, `totals`) to `half`, `chips`, `to_go`."""

    units: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, rules: GameRules[Any]) -> Units:
        declared: Mapping[str, str] = getattr(rules, "units", None) or {}
        return cls({**FALLBACK_UNITS.get(rules.kind, {}), **declared})

    def text(self, key: str, value: Any, *, signed: bool = False) -> str:
        """`value` of the field `key` in its unit: `phrases.value_text`, the one formatter of values."""
        return phrases.value_text(self.units.get(key, ""), value, signed=signed)


def is_card(code: Any) -> bool:
    return isinstance(code, str) and len(code) == 2 and code[0] in RANKS and code[1] in SUIT_SYMBOLS


def card_text(code: Any) -> str:
    """A card's glyphs (`10♦`); a hidden card `??`; anything else as it is, for people."""
    if is_card(code):
        return pretty(str(code))
    if code in (None, "", "?", HIDDEN):
        return HIDDEN
    return prose(str(code))


def cards_text(codes: Any) -> str:
    if not isinstance(codes, list | tuple):
        return card_text(codes)
    return " ".join(card_text(c) for c in codes) if codes else "none"


def sorted_hand(kind: str, codes: Sequence[Any]) -> str:
    """A hand sorted by suit, high to low in each (`A♠ 10♠ K♠  Q♥  J♦`), suits two spaces apart."""
    ranks = RANK_ORDER.get(kind, DEFAULT_RANKS)
    known = [c for c in codes if isinstance(c, str) and len(c) == 2 and c[1] in SUIT_ORDER and c[0] in ranks]
    groups = []
    for suit in SUIT_ORDER:
        cards = sorted((c for c in known if c[1] == suit), key=lambda c: ranks.index(c[0]))
        if cards:
            groups.append(" ".join(pretty(c) for c in cards))
    hidden = len(codes) - len(known)
    if hidden:
        groups.append(" ".join([HIDDEN] * hidden))
    return "  ".join(groups)


def display_names(players: Sequence[str]) -> tuple[str, ...]:
    """The players' names as the words say them: on one line, without brackets; a name two seats share
    (or a blank one) with its seat, `Ruby (#1)`, as the bracketed events write it."""
    shown = [prose(name) for name in players]
    return tuple(f"{name} (#{seat})" if not name or shown.count(name) > 1 else name for seat, name in enumerate(shown))


@dataclass(frozen=True, slots=True)
class Speaker:
    """What the phrases of one game need: its kind, its players' names, its units."""

    kind: str
    players: tuple[str, ...]
    units: Units

    @classmethod
    def of(cls, rules: GameRules[Any], players: Sequence[str]) -> Speaker:
        return cls(rules.kind, display_names(players), Units.of(rules))

    def who(self, seat: Any) -> str:
        if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(self.players):
            return self.players[seat]
        if isinstance(seat, str) and seat.isdigit():
            return self.who(int(seat))
        return f"seat {seat}"

    def value(self, key: str, value: Any, *, signed: bool = False) -> str:
        """A value in its unit; a seat (a fact the game declares a seat) as the player's name."""
        if self.units.units.get(key) == "seat":
            return self.who(value)
        return self.units.text(key, value, signed=signed)

    def per_seat(self, values: Mapping[str, Any] | Sequence[Any], key: str, *, signed: bool = False) -> str:
        """`Anna +3, Ben 0` from a per-seat object (`{"0": 3}`) or tuple."""
        items = values.items() if isinstance(values, Mapping) else enumerate(values)
        return ", ".join(f"{self.who(s)} {self.value(key, v, signed=signed)}" for s, v in items)

    def render(self, text: str) -> str:
        """A marked text of the rules (`{seat:1} closed the talon`) with the names, glyphs and units."""
        return prose(phrases.render(text, self.players))


Phrase = Callable[[Speaker, Mapping[str, Any], Mapping[str, Any]], str]


# --------------------------------------------------------------------------- every game


def _note(s: Speaker, data: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    ref = f" (on event {data['ref']})" if "ref" in data else ""
    return f"Note{ref}: “{prose(str(data.get('text', '')))}”"


def _claim(s: Speaker, data: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    points = data.get("points")
    said = s.per_seat(points, "claimed") if isinstance(points, Mapping) else prose(str(points))
    return f"Score claimed for hand {data.get('hand')}: {said}"


def _retract(s: Speaker, data: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    reason = f": {prose(str(data['reason']))}" if data.get("reason") else ""
    return f"Correction: the game goes back to event {data.get('to_seq')}{reason}"


def _voided(s: Speaker, data: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    reason = f": {prose(str(data['reason']))}" if data.get("reason") else ""
    return f"The hand is voided{reason}"


COMMON: dict[str, Phrase] = {
    "note": _note,
    "score_claimed": _claim,
    "retract": _retract,
    "hand_voided": _voided,
    "session_closed": lambda s, d, r: "The session is closed",
}


# --------------------------------------------------------------------------- Schnapsen


def _schnapsen_deal(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return f"{s.who(d.get('dealer'))} deals; trump {card_text(d.get('trump_card'))} turned up"


def _trick_play(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any], lead: bool) -> str:
    verb = "leads" if lead else "plays"
    words = f"{s.who(d.get('seat'))} {verb} {card_text(d.get('card'))}"
    marriage = r.get("marriage")
    if d.get("marriage") and isinstance(marriage, Mapping):
        suit = SUIT_NAMES.get(str(marriage.get("suit")), str(marriage.get("suit")))
        words += f" and shows the marriage in {suit} ({marriage.get('points')})"
    return words


def _schnapsen_draw(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    left = f" ({r['talon']} left in the talon)" if "talon" in r else ""
    return f"{s.who(d.get('seat'))} draws {card_text(d.get('card'))}{left}"


def _exchange(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    swap = f": takes {card_text(r['took'])}, gives {card_text(r['gave'])}" if "took" in r and "gave" in r else ""
    return f"{s.who(d.get('seat'))} exchanges the trump jack{swap}"


def _close(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return f"{s.who(d.get('seat'))} closes the talon"


SCHNAPSEN: dict[str, Phrase] = {
    "deal": _schnapsen_deal,
    "draw": _schnapsen_draw,
    "exchange_trump": _exchange,
    "close": _close,
}


# --------------------------------------------------------------------------- Cutthroat Smear


def _smear_deal(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    first = f"; {s.who(r['first_to_speak'])} speaks first" if "first_to_speak" in r else ""
    return f"{s.who(d.get('dealer'))} deals{first}"


def _bidding(s: Speaker, r: Mapping[str, Any]) -> str:
    if r.get("thrown_in"):
        return "; everyone passed: the hand is thrown in"
    if r.get("bidding_over") and "bidder" in r:
        return f"; {s.who(r['bidder'])} wins the bid at {r.get('high_bid')}"
    return ""


def _bid(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return f"{s.who(d.get('seat'))} bids {d.get('amount')}{_bidding(s, r)}"


def _smear_pass(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return f"{s.who(d.get('seat'))} passes{_bidding(s, r)}"


SMEAR: dict[str, Phrase] = {"deal": _smear_deal, "bid": _bid, "pass": _smear_pass}


# --------------------------------------------------------------------------- Casino


def _casino_deal(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    which = f" (deal {r['deal']}{', the last' if r.get('last_deal') else ''})" if "deal" in r else ""
    return f"{s.who(d.get('dealer'))} deals{which}"


def _take_text(take: Any) -> str:
    items = take if isinstance(take, list) else [take]
    return " ".join(card_text(t) if is_card(t) or t == HIDDEN else f"build {t}" for t in items)


def _capture(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    words = f"{s.who(d.get('seat'))} plays {card_text(d.get('card'))} and captures {_take_text(d.get('take'))}"
    if r.get("sweep"):
        words += ": a sweep"
    if r.get("three_faces"):
        words += " (three of a kind)"
    return words


def _build(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    kind = "a multiple build" if r.get("multiple") else "a build"
    name = f" {r['build']}" if "build" in r else ""
    groups = r.get("groups")
    shown = (
        " + ".join(f"({cards_text(g)})" for g in groups)
        if isinstance(groups, list) and groups
        else cards_text(r.get("cards", d.get("onto")))
    )
    return (
        f"{s.who(d.get('seat'))} puts {card_text(d.get('card'))} on {_take_text(d.get('onto'))}: "
        f"{kind}{name} of {d.get('value', r.get('value'))}, {shown}"
    )


def _trail(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return f"{s.who(d.get('seat'))} trails {card_text(d.get('card'))}"


CASINO: dict[str, Phrase] = {"deal": _casino_deal, "capture": _capture, "build": _build, "trail": _trail}


# --------------------------------------------------------------------------- Gin Rummy for three


def _roles(s: Speaker, r: Mapping[str, Any]) -> str:
    if not all(k in r for k in ("box", "captain", "sitter")):
        return ""
    return f"box {s.who(r['box'])}, captain {s.who(r['captain'])}, {s.who(r['sitter'])} sits out"


def _cut(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    roles = _roles(s, r)
    return f"The cut: {cards_text(d.get('cards'))}" + (f"; {roles}" if roles else "")


def _gin_deal(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    roles = _roles(s, r)
    return f"Deal; upcard {card_text(d.get('upcard'))}" + (f"; {roles}" if roles else "")


def _gin_pass(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    if "offer_to" in r:
        return f"{s.who(d.get('seat'))} passes the upcard; it is offered to {s.who(r['offer_to'])}"
    if r.get("stock_only"):
        return f"{s.who(d.get('seat'))} passes the upcard too; the first draw is from the stock"
    return f"{s.who(d.get('seat'))} passes"


def _gin_draw(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    if d.get("source") == "discard":
        what = "the upcard" if r.get("upcard") else "from the discard pile"
        return f"{s.who(d.get('seat'))} takes {card_text(d.get('card'))} ({what})"
    left = f" ({r['stock']} left)" if "stock" in r else ""
    return f"{s.who(d.get('seat'))} draws {card_text(d.get('card'))} from the stock{left}"


def _gin_discard(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return f"{s.who(d.get('seat'))} discards {card_text(d.get('card'))}"


def _melds(melds: Any) -> str:
    if not isinstance(melds, list) or not melds:
        return "no melds"
    return " · ".join(cards_text(m) for m in melds)


def _knock(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    verb = "goes gin" if r.get("gin") else "knocks"
    deadwood = (
        f"; deadwood {cards_text(r.get('deadwood_cards', []))} = {r['deadwood']}"
        if "deadwood" in r and not r.get("gin")
        else ""
    )
    melds = r.get("melds", d.get("melds"))
    return f"{s.who(d.get('seat'))} {verb}, discarding {card_text(d.get('discard'))}: {_melds(melds)}{deadwood}"


def _lay_off(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    words = f"{s.who(d.get('seat'))} shows {_melds(d.get('melds'))}"
    layoffs = r.get("layoffs", d.get("layoffs"))
    if isinstance(layoffs, list) and layoffs:
        each = []
        for item in layoffs:
            if isinstance(item, Mapping):
                onto = f" on {cards_text(item['onto'])}" if "onto" in item else f" on meld {item.get('meld')}"
                each.append(f"{card_text(item.get('card'))}{onto}")
        words += "; lays off " + ", ".join(each)
    else:
        words += "; lays off nothing"
    if "outcome" in r:
        scorer = f": {s.who(r['scorer'])} scores" if "scorer" in r else ""
        words += f" — {prose(str(r['outcome']))}{scorer}"
        if "knocker_deadwood" in r and "defender_deadwood" in r:
            words += f" (deadwood {r['knocker_deadwood']} against {r['defender_deadwood']})"
    return words


GIN: dict[str, Phrase] = {
    "cut": _cut,
    "deal": _gin_deal,
    "pass": _gin_pass,
    "draw": _gin_draw,
    "discard": _gin_discard,
    "knock": _knock,
    "lay_off": _lay_off,
}


# --------------------------------------------------------------------------- Seven and a Half


def _bet(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    banker = f" (the banker is {s.who(r['banker'])})" if "banker" in r else ""
    return f"{s.who(d.get('seat'))} bets {s.value('amount', d.get('amount'))}{banker}"


def _half_deal(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return "One card to each"


def _total(s: Speaker, r: Mapping[str, Any]) -> str:
    if "total" not in r:
        return ""
    words = f": {s.value('total', r['total'])}"
    if r.get("seven_and_a_half"):
        words += ", seven and a half!"
    elif r.get("bust"):
        words += ", bust"
    return words


def _banker_end(s: Speaker, r: Mapping[str, Any]) -> str:
    if "banker_total" not in r:
        return ""
    state = " (bust)" if r.get("banker_bust") else ""
    words = f"; the banker ends on {s.value('banker_total', r['banker_total'])}{state}"
    if "next_banker" in r:
        words += f"; {s.who(r['next_banker'])} holds the bank next"
    return words


def _hit(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    down = " face down" if d.get("face_down") else ""
    return f"{s.who(d.get('seat'))} hits {card_text(d.get('card'))}{down}{_total(s, r)}{_banker_end(s, r)}"


def _stand(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    on = f" on {s.value('total', r['total'])}" if "total" in r else ""
    return f"{s.who(d.get('seat'))} stands{on}{_banker_end(s, r)}"


def _flip(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return f"{s.who(d.get('seat'))} turns the face-down card up{_total(s, r)}"


def _split(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return f"{s.who(d.get('seat'))} splits"


def _bank_passed(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return f"The bank passes to {s.who(d.get('to'))}"


HALF: dict[str, Phrase] = {
    "bet": _bet,
    "deal": _half_deal,
    "hit": _hit,
    "stand": _stand,
    "flip": _flip,
    "split": _split,
    "bank_passed": _bank_passed,
}

GAMES: Mapping[str, Mapping[str, Phrase]] = {
    "schnapsen": SCHNAPSEN,
    "cutthroat-smear": SMEAR,
    "casino": CASINO,
    "gin-rummy-3": GIN,
    "seven-and-a-half": HALF,
}


def _generic(s: Speaker, event_type: str, d: Mapping[str, Any]) -> str:
    """An event no phrase knows: its actor, its type and its fields, plainly."""
    actor = f"{s.who(d['seat'])} " if "seat" in d else ""
    rest = " ".join(f"{k} {prose(str(v))}" for k, v in d.items() if k != "seat")
    return prose(f"{actor}{event_type.replace('_', ' ')} {rest}")


def phrase(s: Speaker, event_type: str, data: Mapping[str, Any], result: Mapping[str, Any], *, lead: bool) -> str:
    """The words of one event (`lead`: a trick game's play that opens a trick)."""
    if event_type == "play" and s.kind in ("schnapsen", "cutthroat-smear"):
        words = _trick_play(s, data, result, lead)
        if "trump" in result and s.kind == "cutthroat-smear":
            words += f": {SUIT_NAMES.get(str(result['trump']), result['trump'])} are trump"
        return prose(words)
    found = GAMES.get(s.kind, {}).get(event_type) or COMMON.get(event_type)
    if found is None:
        return _generic(s, event_type, data)
    return found(s, data, result)


def trick_end(s: Speaker, result: Mapping[str, Any]) -> str | None:
    """The line after a trick's last card: who won it and what it was worth; None mid-trick."""
    if "trick_winner" not in result:
        return None
    words = f"{s.who(result['trick_winner'])} wins the trick"
    if "trick_points" in result:
        words += f": {result['trick_points']} points"
    if "trick_game_value" in result:
        words += f" (game value {result['trick_game_value']})"
    if "jack_won_by" in result:
        words += f"; {s.who(result['jack_won_by'])} takes the jack"
    if "marriages_credited" in result:
        words += f"; marriages credited {result['marriages_credited']}"
    return words
