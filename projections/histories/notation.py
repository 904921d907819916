"""The value notation of the text hand history: JSON values written for people, read back exactly.

- a card or any other plain word is written bare: `KH`, `b1`, `stock`, `J`, `Inès`;
- numbers as in JSON (`12`, `-3`, `1.5`); `true`, `false`, `null`;
- any other string as a JSON string literal: `"disputes trick 4"`;
- a list in brackets, items separated by spaces: `[KH QH TD]`, `[[KH QH] [TD AC]]`;
- an object in braces, `key=value` pairs separated by spaces: `{0=KH 1=QS}`.

`format_value` and `parse_value` are inverse on every JSON value the events
hold: `parse_value(format_value(v)) == v`, with the same types (an integer
stays an integer, a string that looks like a number is quoted).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

#: a bare word: letters (any script), digits, `_ . - + # /` (no spaces, brackets, quotes, `=`, `:` or `;`)
BARE = re.compile(r"[\w.+#/-]+")
NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
KEYWORDS = {"true": True, "false": False, "null": None}
#: the longest number read, in characters: an event's integers have at most 10 digits, and a longer number
#: is refused with its column (Python converts at most 4,300 digits, orjson reads a long one as infinity)
MAX_NUMBER = 32
#: lists and objects nest at most this deep (events nest three levels at most)
MAX_DEPTH = 32
#: a token: a JSON string, a punctuation mark, or a bare word
_TOKEN = re.compile(r'\s*(?:(?P<string>"(?:[^"\\]|\\.)*")|(?P<punct>=>|[\[\]{}=:;])|(?P<word>[^\s\[\]{}=:;"]+))')


class NotationError(ValueError):
    """Text that is not in the notation; `column` is where (0-based) it went wrong."""

    def __init__(self, message: str, column: int) -> None:
        super().__init__(message)
        self.column = column


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "string", "punct" or "word"
    text: str
    column: int


def is_bare(text: str) -> bool:
    """May `text` be written without quotes and read back as the same string?"""
    return bool(BARE.fullmatch(text)) and not NUMBER.fullmatch(text) and text not in KEYWORDS


def format_string(text: str) -> str:
    return text if is_bare(text) else orjson.dumps(text).decode()


def format_key(key: str) -> str:
    """An object's key: always a string when read back, so a bare number needs no quotes."""
    return key if BARE.fullmatch(key) else orjson.dumps(key).decode()


def format_value(value: Any) -> str:
    """A JSON value in the notation (one line: strings' newlines are escaped)."""
    if value is True or value is False or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    if isinstance(value, int | float):
        return orjson.dumps(value).decode()
    if isinstance(value, str):
        return format_string(value)
    if isinstance(value, list | tuple):
        return "[" + " ".join(format_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + " ".join(f"{format_key(str(k))}={format_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"not a JSON value: {value!r}")


def tokenize(text: str, start: int = 0) -> Iterator[Token]:
    """The tokens of a line from `start`.

    Raises:
        NotationError: a character no token starts with (an unterminated string, say).
    """
    pos = start
    while pos < len(text):
        if text[pos:].isspace():
            return
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            where = len(text) - len(text[pos:].lstrip())
            raise NotationError(f"unreadable text at {text[where : where + 12]!r}", where)
        kind = match.lastgroup or "word"
        yield Token(kind, match.group(kind), match.start(kind))
        pos = match.end()


def word_value(text: str, column: int = 0) -> Any:
    """The value of a bare word: a number, true/false/null, or the word itself.

    Raises:
        NotationError: a number of more than MAX_NUMBER characters, or one out of a double's range.
    """
    if text in KEYWORDS:
        return KEYWORDS[text]
    if NUMBER.fullmatch(text):
        return number_value(text, column)
    return text


def number_value(text: str, column: int) -> int | float:
    """A JSON number written in `text` (which NUMBER matches), bounded in length and range."""
    if len(text) > MAX_NUMBER:
        raise NotationError(f"a number of {len(text):,} characters: at most {MAX_NUMBER} are read", column)
    try:
        value: int | float = orjson.loads(text)
    except orjson.JSONDecodeError:
        raise NotationError(f"the number {text} is out of range", column) from None
    return value


class Reader:
    """Reads values from a list of tokens, left to right."""

    def __init__(self, tokens: list[Token], end: int) -> None:
        self.tokens = tokens
        self.index = 0
        self.end = end
        self.depth = 0

    def peek(self) -> Token | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def next(self, what: str) -> Token:
        token = self.peek()
        if token is None:
            raise NotationError(f"the line ends where {what} was expected", self.end)
        self.index += 1
        return token

    def value(self) -> Any:
        token = self.next("a value")
        if token.kind == "string":
            return string_value(token)
        if token.kind == "word":
            return word_value(token.text, token.column)
        if token.text in ("[", "{"):
            if self.depth >= MAX_DEPTH:
                raise NotationError(f"lists and objects nest more than {MAX_DEPTH} deep", token.column)
            self.depth += 1
            try:
                return self._container(token)
            finally:
                self.depth -= 1
        raise NotationError(f"expected a value, found {token.text!r}", token.column)

    def _container(self, token: Token) -> Any:
        if token.text == "[":
            items = []
            while not self._closes("]"):
                items.append(self.value())
            return items
        if token.text == "{":
            obj: dict[str, Any] = {}
            while not self._closes("}"):
                key = self.next("a key")
                if key.kind == "punct":
                    raise NotationError(f"expected a key, found {key.text!r}", key.column)
                name = string_value(key) if key.kind == "string" else key.text
                equals = self.next("'='")
                if equals.text != "=":
                    raise NotationError(f"expected '=' after the key {name!r}", equals.column)
                if name in obj:
                    raise NotationError(f"the key {name!r} is given twice", key.column)
                obj[name] = self.value()
            return obj
        raise AssertionError(token)  # pragma: no cover - value() passes only brackets

    def _closes(self, bracket: str) -> bool:
        token = self.peek()
        if token is None:
            raise NotationError(f"missing {bracket!r}", self.end)
        if token.kind == "punct" and token.text == bracket:
            self.index += 1
            return True
        return False


def string_value(token: Token) -> str:
    try:
        value = orjson.loads(token.text)
    except orjson.JSONDecodeError as exc:
        raise NotationError(f"a bad string literal: {exc}", token.column) from None
    assert isinstance(value, str)
    return value


def parse_value(text: str) -> Any:
    """The one value written in `text`.

    Raises:
        NotationError: not exactly one value in the notation.
    """
    tokens = list(tokenize(text))
    reader = Reader(tokens, len(text))
    value = reader.value()
    extra = reader.peek()
    if extra is not None:
        raise NotationError(f"unexpected {extra.text!r} after the value", extra.column)
    return value
