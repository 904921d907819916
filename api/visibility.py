"""Who sees which cards, and which hashes: see `projections/visibility.py`, where the rules now live.

They moved there so that the application service (`projections/service.py`) decides what a reader
may see for the API and the CLI alike, at the game's head in the database (`Recorder.live` and
`Recorder.read`), as before. These names stay importable from here for the routes that still use
them directly (the live stream).
"""

from __future__ import annotations

from projections.visibility import (
    Reader,
    Sight,
    first_hidden_hand,
    live_hand,
    shown_envelopes,
    sight_of,
    sight_over,
    viewpoint_for,
    withheld,
)

__all__ = [
    "Reader",
    "Sight",
    "first_hidden_hand",
    "live_hand",
    "shown_envelopes",
    "sight_of",
    "sight_over",
    "viewpoint_for",
    "withheld",
]
