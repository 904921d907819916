"""Events in a card player's words, for the text hand history: `Anna leads K♥ and shows the marriage`.

The words of a game's own events are the game's declaration (`GameRules.words`, a `Words` of
`projections/core/speech.py`, which says what these lines are and the helpers they are made with); this
module adds the words of the events every game has (notes, claims, corrections, a voided hand) and
picks each event's phrase. It names no game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from events.cards import pretty
from projections.core.rules import GameRules
from projections.core.speech import HIDDEN, Phrase, Words

# what the text history and the exports write with, from the core's helpers
from projections.core.speech import Speaker as Speaker
from projections.core.speech import Units as Units
from projections.core.speech import cards_text as cards_text
from projections.core.speech import display_names as display_names
from projections.core.speech import prose as prose

#: suits in the order a hand is shown (black, red, black, red, as a bridge diagram)
SUIT_ORDER = "SHCD"


def points_word(rules: GameRules[Any]) -> str:
    """What the game's score-line points count, for people (`Words.points`: `points`, `game points`...)."""
    return rules.words.points


def sorted_hand(words: Words, codes: Sequence[Any]) -> str:
    """A hand sorted by suit, high to low in each by the game's ranks (`Words.ranks`): `A♠ 10♠ K♠  Q♥  J♦`,
    suits two spaces apart."""
    ranks = words.ranks
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


def _generic(s: Speaker, event_type: str, d: Mapping[str, Any]) -> str:
    """An event no phrase knows: its actor, its type and its fields, plainly."""
    actor = f"{s.who(d['seat'])} " if "seat" in d else ""
    rest = " ".join(f"{k} {prose(str(v))}" for k, v in d.items() if k != "seat")
    return prose(f"{actor}{event_type.replace('_', ' ')} {rest}")


def phrase(s: Speaker, event_type: str, data: Mapping[str, Any], result: Mapping[str, Any], *, lead: bool) -> str:
    """The words of one event (`lead`: a trick game's play that opens a trick)."""
    words = s.words
    if event_type == "play" and words.trick_play is not None:
        return prose(words.trick_play(s, data, result, lead))
    found = words.phrases.get(event_type) or COMMON.get(event_type)
    if found is None:
        return _generic(s, event_type, data)
    return found(s, data, result)


def trick_end(s: Speaker, result: Mapping[str, Any]) -> str | None:
    """The line after a trick's last card in a trick game (`Words.trick_end`); None mid-trick, or when the
    game has no tricks."""
    return None if s.words.trick_end is None else s.words.trick_end(s, result)
