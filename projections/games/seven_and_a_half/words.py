"""Seven and a Half in a card player's words, for the text hand history (`GameRules.words`,
`projections/core/speech.py`); totals in half points and stakes in chips, as the game's units say."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from projections.core.speech import Phrase, Speaker, Words, card_text


def _bet(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    banker = f" (the banker is {s.who(r['banker'])})" if "banker" in r else ""
    return f"{s.who(d.get('seat'))} bets {s.value('amount', d.get('amount'))}{banker}"


def _deal(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
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


PHRASES: dict[str, Phrase] = {
    "bet": _bet,
    "deal": _deal,
    "hit": _hit,
    "stand": _stand,
    "flip": _flip,
    "split": _split,
    "bank_passed": _bank_passed,
}

#: a score line's points are chips won or paid
WORDS = Words(phrases=PHRASES, points="chips")
