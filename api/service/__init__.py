"""The application service: every use case of the API and of the CLI, written once.

A route is its dependencies, one call of `Tablebook`, and the response; a CLI command is its options,
calls of the same `Tablebook`, and the printing. So there is one export renderer, one single-file
import, one bulk import, one visibility decision per read, one demo recorder.

One module per group of use cases, each a subclass of `base.Service` (the recorder and its store);
`Tablebook` is all of them:

- `games.py`: create, read, list and search games; `appends.py`: appends (and corrections);
- `reading.py`: events, the table at a seq, the score, the offer of what may come next, a live
  stream's pages; `replays.py`: a hand frame by frame, and the replay page's other reads;
- `review.py`: a finished hand's decisions reviewed (what each choice cost, the best one);
- `audits.py`: verify, audit, claims; `deals.py`: server deals and the fairness report;
- `exports.py`, `imports.py`: hand histories out and in;
- `players.py`: players, their pages, standings, erasure; `shares.py`: share links;
- `tournaments.py`: events (club evenings, tournaments), their movements, duplicate boards and results;
- `profiles.py`: the games' options and the clubs' rule profiles; `rescore.py`: re-scoring;
- `demo.py`: demo games; and beside them `base.py` (the service, the CLI's `Operator`) and
  `documents.py` (a game as the API shows it, page cursors, messages rendered with the players).

Nothing here knows HTTP or the terminal: the service sits on `projections.core.recorder.Recorder` (the
write side and folded reads) and the store, decides visibility with `projections/reading/visibility.py`,
and the caller passes its `Reader` (an `api.auth.Principal`, or the CLI's `Operator`). Every read that
decides what a reader may see does so at the game's head in the database (`Recorder.live` /
`Recorder.read`), never at a cached head alone. Every method is blocking (database and folds): the API
calls them from plain `def` routes, which FastAPI runs in its threadpool, never on the event loop (but
`Appends.append_if_free`).
"""

from __future__ import annotations

from api.service.appends import CORRECTIONS, INLINE_BATCH, Appends, body_hash
from api.service.audits import Audits
from api.service.base import OPERATOR, Operator, Service, own_club
from api.service.deals import Deals
from api.service.demo import DEMO_BATCH, DEMO_EVENTS, Demo
from api.service.documents import decode_cursor, encode_cursor, game_public, named_report, rendered_error
from api.service.exports import Export, Exports
from api.service.games import Games
from api.service.imports import ClubChoice, ImportResult, Imports
from api.service.players import Players
from api.service.profiles import HouseRules
from api.service.reading import Reading, Scored
from api.service.replays import Replays
from api.service.rescore import Rescoring
from api.service.review import Reviews
from api.service.shares import Shares
from api.service.tournaments import Tournaments
from projections.reading.visibility import Reader

__all__ = [
    "CORRECTIONS",
    "DEMO_BATCH",
    "DEMO_EVENTS",
    "INLINE_BATCH",
    "OPERATOR",
    "ClubChoice",
    "Export",
    "ImportResult",
    "Operator",
    "Reader",
    "Scored",
    "Service",
    "Tablebook",
    "body_hash",
    "decode_cursor",
    "encode_cursor",
    "game_public",
    "named_report",
    "own_club",
    "rendered_error",
]


class Tablebook(
    Games,
    Appends,
    Reading,
    Replays,
    Reviews,
    Audits,
    Deals,
    Tournaments,
    Exports,
    Imports,
    Players,
    Shares,
    HouseRules,
    Rescoring,
    Demo,
):
    """The use cases, on one `Recorder` (and its store): `Tablebook(recorder)`, or `Tablebook.open(store)`."""
