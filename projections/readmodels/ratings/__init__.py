"""Ratings: a read model of the events, one rating model per game shape, every change explained.

The library is `openskill` (Weng-Lin Bayesian ratings, MIT, kept up to date, typed), model
`BradleyTerryFull`: each player has a `mu` (skill) and a `sigma` (how unsure it is), and a result updates
everyone in it by comparing *every pair* of sides by rank, which is exactly the "every player against every
other by final rank" the clubs asked for, while its expected result for a pair is the same logistic of the
rating difference that each change's explanation shows (so the numbers a player reads are the model's own).
It handles teams (Gin's captain and sitter) and ties (a draw in Seven and a Half) with no special cases, and
unlike Elo it knows how unsure a new player's rating is: a rating is **provisional** while
`sigma > PROVISIONAL_SIGMA` (about the first ten results), shown with a `?`. Leaderboards order by the
conservative `ordinal` (`mu - 3 sigma`) so that a newcomer with two lucky wins does not top the table; the
rating shown is `mu`.

One rating per game shape (`pool`), as each game declares it (`GameRules.rating`, a `Rating` of
`projections/core/rating.py`: its pools, whether its results settle per hand, how a stored result reads as
matches, what of a hand its results need), so that nothing here names a game. The games' own modules say what
they rate (`projections/games/<game>/readmodels.py`).

The package, by concern:

- `declared.py`: what is rated and read (`RATED`, `POOLS`, the log filter `READS`, `context_of`, `matches_of`),
  and what a page shows of a rating (`is_provisional`, `ordinal`);
- `maths.py`: the rating update and the expected results: the library's own (`update`, `expected_results`, the
  ceiling `python -m bench.ratings` times) and the same numbers on plain floats (`rated`, `rated_pair`);
- `changes.py`: one result as its explained `rating_change` rows (`rate`);
- `correction.py`: a retract of a rated result re-derives the later ratings from that point (`Correction`,
  `matches_of_rows`);
- `projection.py`: `RatingsModel`, which follows the log from its checkpoint, or rebuilds from zero.
"""

from projections.core.rating import HandContext as HandContext
from projections.core.rating import Match as Match
from projections.readmodels.ratings.changes import ChangeRow as ChangeRow
from projections.readmodels.ratings.changes import Ratings as Ratings
from projections.readmodels.ratings.changes import rate as rate
from projections.readmodels.ratings.correction import Correction as Correction
from projections.readmodels.ratings.correction import Decoded as Decoded
from projections.readmodels.ratings.correction import PlayerCorrection as PlayerCorrection
from projections.readmodels.ratings.correction import matches_of_rows as matches_of_rows
from projections.readmodels.ratings.declared import FLAG as FLAG
from projections.readmodels.ratings.declared import NAME as NAME
from projections.readmodels.ratings.declared import POOLS as POOLS
from projections.readmodels.ratings.declared import PROVISIONAL_SIGMA as PROVISIONAL_SIGMA
from projections.readmodels.ratings.declared import RATED as RATED
from projections.readmodels.ratings.declared import READS as READS
from projections.readmodels.ratings.declared import Progress as Progress
from projections.readmodels.ratings.declared import context_of as context_of
from projections.readmodels.ratings.declared import is_provisional as is_provisional
from projections.readmodels.ratings.declared import matches_of as matches_of
from projections.readmodels.ratings.declared import ordinal as ordinal
from projections.readmodels.ratings.declared import rating_of as rating_of
from projections.readmodels.ratings.maths import MODEL as MODEL
from projections.readmodels.ratings.maths import expected_results as expected_results
from projections.readmodels.ratings.maths import update as update
from projections.readmodels.ratings.projection import RatingsModel as RatingsModel
