"""Schnapsen in a card player's words, for the text hand history (`GameRules.words`, `projections/core/speech.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from projections.core.speech import SUIT_NAMES, Phrase, Speaker, Words, card_text, play_words, trick_won


def _deal(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return f"{s.who(d.get('dealer'))} deals; trump {card_text(d.get('trump_card'))} turned up"


def _play(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any], lead: bool) -> str:
    words = play_words(s, d, lead)
    marriage = r.get("marriage")
    if d.get("marriage") and isinstance(marriage, Mapping):
        suit = SUIT_NAMES.get(str(marriage.get("suit")), str(marriage.get("suit")))
        words += f" and shows the marriage in {suit} ({marriage.get('points')})"
    return words


def _trick_end(s: Speaker, r: Mapping[str, Any]) -> str | None:
    words = trick_won(s, r)
    if words is None:
        return None
    if "trick_points" in r:
        words += f": {r['trick_points']} points"
    if "marriages_credited" in r:
        words += f"; marriages credited {r['marriages_credited']}"
    return words


def _draw(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    left = f" ({r['talon']} left in the talon)" if "talon" in r else ""
    return f"{s.who(d.get('seat'))} draws {card_text(d.get('card'))}{left}"


def _exchange(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    swap = f": takes {card_text(r['took'])}, gives {card_text(r['gave'])}" if "took" in r and "gave" in r else ""
    return f"{s.who(d.get('seat'))} exchanges the trump jack{swap}"


def _close(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return f"{s.who(d.get('seat'))} closes the talon"


PHRASES: dict[str, Phrase] = {"deal": _deal, "draw": _draw, "exchange_trump": _exchange, "close": _close}

#: the ten ranks under the ace; a score line's points are game points
WORDS = Words(phrases=PHRASES, ranks="ATKQJ", points="game points", trick_play=_play, trick_end=_trick_end)
