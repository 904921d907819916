"""Gin Rummy for three in a card player's words, for the text hand history (`GameRules.words`,
`projections/core/speech.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from projections.core.speech import Phrase, Speaker, Words, card_text, cards_text, prose


def _roles(s: Speaker, r: Mapping[str, Any]) -> str:
    if not all(k in r for k in ("box", "captain", "sitter")):
        return ""
    return f"box {s.who(r['box'])}, captain {s.who(r['captain'])}, {s.who(r['sitter'])} sits out"


def _cut(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    roles = _roles(s, r)
    return f"The cut: {cards_text(d.get('cards'))}" + (f"; {roles}" if roles else "")


def _deal(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    roles = _roles(s, r)
    return f"Deal; upcard {card_text(d.get('upcard'))}" + (f"; {roles}" if roles else "")


def _pass(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    if "offer_to" in r:
        return f"{s.who(d.get('seat'))} passes the upcard; it is offered to {s.who(r['offer_to'])}"
    if r.get("stock_only"):
        return f"{s.who(d.get('seat'))} passes the upcard too; the first draw is from the stock"
    return f"{s.who(d.get('seat'))} passes"


def _draw(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    if d.get("source") == "discard":
        what = "the upcard" if r.get("upcard") else "from the discard pile"
        return f"{s.who(d.get('seat'))} takes {card_text(d.get('card'))} ({what})"
    left = f" ({r['stock']} left)" if "stock" in r else ""
    return f"{s.who(d.get('seat'))} draws {card_text(d.get('card'))} from the stock{left}"


def _discard(s: Speaker, d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
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


PHRASES: dict[str, Phrase] = {
    "cut": _cut,
    "deal": _deal,
    "pass": _pass,
    "draw": _draw,
    "discard": _discard,
    "knock": _knock,
    "lay_off": _lay_off,
}

#: the ace is low: a hand sorts king high
WORDS = Words(phrases=PHRASES, ranks="KQJT98765432A")
