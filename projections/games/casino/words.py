"""Casino in a card player's words, for the text hand history (`GameRules.words`, `projections/core/speech.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from projections.core.speech import HIDDEN, Phrase, Speaker, Words, card_text, cards_text, is_card


def _deal(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
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


PHRASES: dict[str, Phrase] = {"deal": _deal, "capture": _capture, "build": _build, "trail": _trail}

WORDS = Words(phrases=PHRASES)
