"""What every use case shares: the service's recorder and store, and who asks.

The reader of a use case is a `projections.reading.visibility.Reader`: an `api.auth.Principal` for the
API, or the CLI's `Operator` (here), who holds the database and sees everything, in one club or in
every club. Every use case group of `api/service/` subclasses `Service`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Self

from events.errors import InvalidEventError, TablebookError
from events.store import GameRecord, Store
from projections.core.recorder import Recorder
from projections.reading.visibility import Reader


@dataclass(frozen=True, slots=True)
class Operator:
    """The CLI's reader: whoever holds the database sees everything, in one club or (None) in every club."""

    club_id: int | None = None
    club: str | None = None
    actor: str = "cli"
    role: str = "operator"

    @property
    def is_share(self) -> bool:
        return False

    @property
    def sees_everything(self) -> bool:
        return True

    def require(self, *roles: str) -> None:
        """The operator may do anything a key may."""


#: the operator of every club
OPERATOR = Operator()


def own_club(reader: Reader) -> int:
    """The reader's club, for a write (a game, an import, a share link belongs to one club)."""
    if reader.club_id is None:
        raise InvalidEventError("name the club to write into", field="club")
    return reader.club_id


class Service:
    """The recorder and the store every use case works on; each group of use cases (`api/service/*.py`) is
    a subclass, and `Tablebook` is all of them."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        #: the store under the recorder; the API's credential check (`api.auth.authenticate`) reads keys there
        self.store: Store = recorder.store

    @classmethod
    def open(cls, store: Store) -> Self:
        """A service on a new recorder (its own state cache) over `store`."""
        return cls(Recorder(store))

    def club_id(self, name: str) -> int | None:
        """The id of an existing club, or None (a read never creates a club)."""
        found = self.store.clubs().get(name)
        return None if found is None else int(found)

    def ensure_club(self, name: str) -> int:
        """The id of the club called `name`, created if needed."""
        return self.store.ensure_club(name)

    def _club_name(self, reader: Reader, game: GameRecord) -> str:
        return reader.club if reader.club is not None else self.store.club_name(game.club_id)

    def _players(self, game_id: str, reader: Reader) -> Sequence[str] | None:
        """The game's players, to render a message with (None if the game cannot be read: `seat N` then)."""
        try:
            return list(self.recorder.live(game_id, reader.club_id).game.players)
        except TablebookError:
            return None
