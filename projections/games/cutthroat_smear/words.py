"""Cutthroat Smear in a card player's words, for the text hand history (`GameRules.words`,
`projections/core/speech.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from projections.core.speech import SUIT_NAMES, Phrase, Speaker, Words, play_words, trick_won


def _deal(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
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


def _pass(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return f"{s.who(d.get('seat'))} passes{_bidding(s, r)}"


def _play(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any], lead: bool) -> str:
    """A play; the first of the hand (the pitch) names the trump suit."""
    words = play_words(s, d, lead)
    if "trump" in r:
        words += f": {SUIT_NAMES.get(str(r['trump']), r['trump'])} are trump"
    return words


def _trick_end(s: Speaker, r: Mapping[str, Any]) -> str | None:
    words = trick_won(s, r)
    if words is None:
        return None
    if "trick_game_value" in r:
        words += f" (game value {r['trick_game_value']})"
    if "jack_won_by" in r:
        words += f"; {s.who(r['jack_won_by'])} takes the jack"
    return words


PHRASES: dict[str, Phrase] = {"deal": _deal, "bid": _bid, "pass": _pass}

WORDS = Words(phrases=PHRASES, trick_play=_play, trick_end=_trick_end)
