"""A club's players and standings (issue 20): one service call each.

- `GET /v1/players` (`name=`: by name or alias, any case), `POST /v1/players` (recorder). Names and
  aliases, given or searched, are normalised (`api.requests.PlayerName`): no spaces around, whitespace
  inside one space; a name of spaces only is a 422.
- `GET /v1/players/{ref}`: the player's page as data: statistics, current ratings (provisional
  marked), the rating history with each change explained, their games. `ref` is an id, or a name
  or alias only one player of the club has.
- `PATCH /v1/players/{ref}` renames; `POST /v1/players/{ref}/merge` merges into `into`;
  `DELETE /v1/players/{ref}` erases the player's names everywhere they are shown (recorder).
- `GET /v1/standings?game=...`: the leaderboard over `since`/`until` or `event`/`round`.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field, create_model

from api.deps import PrincipalDep, ServiceDep
from api.models import AUTH, BODY, Doc, errors
from api.queries import GameKind, Moment, stored_time
from api.requests import PlayerName, QueryName, StrictJSONRoute
from projections.core.registry import KINDS
from projections.readmodels.standings import POOL_TITLES, STATS

router = APIRouter(tags=["players"], route_class=StrictJSONRoute)

#: a name or alias, kept normalised (`api.requests.PlayerName`: no spaces around, whitespace inside one space)
Name = PlayerName

#: the pools a rating is kept in, as the documents name them
POOLS_TEXT = ", ".join(f"`{pool}`" for pool in POOL_TITLES)

# --------------------------------------------------------------------------- request bodies


class PlayerCreate(BaseModel):
    """A new player of the club: a name, and other names they go by."""

    model_config = ConfigDict(extra="forbid")
    name: Name = Field(examples=["Anna"])
    aliases: list[Name] = Field(
        default_factory=list,
        max_length=20,
        description="other names a game may give them (matched case-insensitively)",
        examples=[["Anni", "A. Berg"]],
    )


class PlayerRename(BaseModel):
    """A player's new name."""

    model_config = ConfigDict(extra="forbid")
    name: Name = Field(examples=["Anna M."])
    keep_alias: bool = Field(default=True, description="keep the old name as an alias")


class PlayerMerge(BaseModel):
    """The player the one in the path is merged into (and kept)."""

    model_config = ConfigDict(extra="forbid")
    into: Name = Field(description="the player kept (id, or a name only one has)", examples=["p3f9c2a1b7d04"])


# --------------------------------------------------------------------------- answers


class PlayerPublic(Doc):
    """A player's record: the names are shown wherever they sat (a game's seats refer to the id)."""

    id: str = Field(examples=["p3f9c2a1b7d04"])
    name: str = Field(description="the name shown (`(erased)`, or the replacement, once erased)", examples=["Anna"])
    aliases: list[str] = Field(description="other names that find the player", examples=[["Anni"]])
    created_at: str = Field(examples=["2026-12-01T20:15:02.123456Z"])
    merged_into: str | None = Field(description="merged: the player they are now (their games moved there)")
    erased: bool = Field(description="erased: the record keeps its id only")


class PlayerList(Doc):
    players: list[PlayerPublic] = Field(description="oldest first; merged and erased players are not listed")


class Rating(Doc):
    """A rating (openskill, Bradley-Terry): skill `mu`, uncertainty `sigma`."""

    mu: float = Field(examples=[27.412])
    sigma: float = Field(examples=[6.95])
    ordinal: float = Field(description="`mu - 3 sigma`: the conservative rating leaderboards order by")
    provisional: bool = Field(description="still uncertain (`sigma` over 6, about the first ten results)")
    results: int = Field(description="the rated results it is made of (0 in a change's before/after)")
    text: str = Field(description="`mu` to one decimal, `?` when provisional", examples=["27.4?"])


def _kind_statistics() -> type[Doc]:
    """The statistics of one game kind: the common counts, and each game's own (`STATS`), named with the kinds."""
    own: dict[str, list[str]] = {}
    for kind, labels in STATS.items():
        for label in labels:
            own.setdefault(label, []).append(kind)
    fields: dict[str, Any] = {
        label: (int | None, Field(default=None, description="hand facts at the player's seat; " + ", ".join(kinds)))
        for label, kinds in own.items()
    }
    model: type[Doc] = create_model(
        "KindStatistics",
        __base__=Doc,
        __doc__="A player's counts in one game kind: copies of a game (`copy_of`) are not counted.",
        games=(int, Field(description="games sat in")),
        finished=(int, Field(description="of which finished")),
        wins=(int, Field(description="finished games the player's seat won")),
        points=(
            int,
            Field(description="the player's final totals, in the game's unit (Schnapsen: the game points won)"),
        ),
        **fields,
    )
    return model


KindStatistics = _kind_statistics()


class Opponent(Doc):
    seat: int
    player_id: str
    name: str
    mu: float = Field(description="their rating before the result")
    sigma: float


class RatingChange(Doc):
    """One rating change, explained like a score line."""

    game_id: str
    kind: str = Field(examples=["schnapsen"])
    pool: str = Field(description=f"the rating it changed: {POOLS_TEXT}")
    hand: int
    seq: int = Field(description="the event that settled the result")
    seat: int
    opponents: list[Opponent]
    before: Rating
    after: Rating
    expected: float = Field(description="the expected result against the opponents (0 to 1)")
    actual: float = Field(description="1 won, 0 lost, 0.5 a draw; the mean over opponents by rank")
    change: float = Field(description="`after.mu - before.mu`")
    reason: str = Field(
        examples=["Anna won the game against Ben (25.0?): expected 0.50, actual 1.00, 25.0 → 27.4 (+2.4)"]
    )
    played_at: str | None = Field(description="the game's creation time")


class PlayerGame(Doc):
    """One of the player's games (newest first), linking to its replay (`/replay/{id}`)."""

    id: str
    game: str
    seat: int
    players: list[str]
    status: str = Field(description="`live` or `finished`")
    winner: int | None
    won: bool
    totals: dict[str, Any]
    created_at: str
    event: str | None
    round: str | None
    copy_of: str | None = Field(
        default=None, description="a copy (a record imported again on purpose): the original; not counted"
    )


class PlayerProfile(Doc):
    """A player's page as data."""

    player: PlayerPublic
    statistics: dict[str, KindStatistics] = Field(  # type: ignore[valid-type]
        description="per game kind (" + ", ".join(f"`{k}`" for k in KINDS) + ")"
    )
    ratings: dict[str, Rating] = Field(
        description=f"the current rating per pool the player has results in: {POOLS_TEXT}"
    )
    history: list[RatingChange] = Field(description="every rating change, oldest first")
    games: list[PlayerGame] = Field(description="at most `games=` of their games, newest first")
    games_total: int = Field(description="all their games (copies included)")


class ErasureMention(Doc):
    """Free text that mentions a name erased: hashed as written, so listed, not edited."""

    game: str
    seq: int
    type: str
    text: str


class PlayerErased(Doc):
    player: PlayerPublic
    games: list[str] = Field(description="the games that showed the player, now showing `(erased)`")
    mentions: list[ErasureMention]


class StandingRow(Doc):
    place: int = Field(examples=[1])
    player_id: str
    name: str
    rating: Rating = Field(description="after the player's last result in the range")
    change: float = Field(description="the change of `mu` over the range")
    results: int = Field(description="rated results in the range (hands, for per-hand pools)")
    games: int = Field(description="games with a rated result in the range")
    wins: int = Field(description="of which finished with the player's seat the winner")
    points: int = Field(description="their totals in those games, in the game's unit (Schnapsen: game points won)")
    score: float = Field(description="the results' sum: a win 1, a draw ½")
    expected: float = Field(description="the sum of the expected results")


class StandingsPool(Doc):
    title: str = Field(examples=["Seven and a Half, as banker"])
    standings: list[StandingRow] = Field(description="by games won, then points, then `rating.mu`, then name (`order`)")


class StandingsRange(Doc):
    since: str | None
    until: str | None
    event: str | None
    round: str | None


class Standings(Doc):
    """A club's leaderboard of one game kind: one table per pool it rates."""

    game: str = Field(examples=["casino"])
    range: StandingsRange
    model: str = Field(description="the rating model", examples=["openskill BradleyTerryFull"])
    order: str = Field(description="how the rows are ordered", examples=["games won, then points, then rating"])
    pools: dict[str, StandingsPool] = Field(description=f"by pool: {POOLS_TEXT}")


@router.get("/v1/players", response_model=PlayerList, summary="The club's players", responses=errors(*AUTH))
def list_players(
    principal: PrincipalDep,
    service: ServiceDep,
    name: Annotated[
        QueryName,
        Query(max_length=100, description="a name or alias, case-insensitive, whitespace normalised (` Anna`: Anna)"),
    ] = None,
) -> dict[str, Any]:
    """The club's players, oldest first; with `name`, those with that name or alias, in any case."""
    return {"players": [p.to_public() for p in service.players(principal, name=name)]}


@router.post(
    "/v1/players",
    status_code=201,
    response_model=PlayerPublic,
    summary="Add a player (recorder keys)",
    responses=errors(*AUTH, *BODY),
)
def create_player(body: PlayerCreate, principal: PrincipalDep, service: ServiceDep) -> dict[str, Any]:
    """A new player of the club, even if another has the same name (two people may share one): the games
    that name them later find them by name or alias (the oldest such player)."""
    return service.create_player(principal, body.name, body.aliases).to_public()


@router.get(
    "/v1/players/{ref}",
    response_model=PlayerProfile,
    response_model_exclude_unset=True,
    summary="A player's statistics, ratings and games",
    responses=errors(*AUTH, 404),
)
def get_player(
    ref: str,
    principal: PrincipalDep,
    service: ServiceDep,
    games: Annotated[int, Query(ge=0, le=1000, description="at most this many of their games, newest first")] = 100,
) -> dict[str, Any]:
    """The player's statistics per game kind, current ratings (provisional marked `?`), every rating change
    explained, and their games. `ref`: the id, or a name or alias only one player of the club has (several:
    422 listing their ids); 404 for none. A copy of a game (`copy_of`) is listed but not counted."""
    return service.player_profile(principal, ref, games=games)


@router.patch(
    "/v1/players/{ref}",
    response_model=PlayerPublic,
    summary="Rename a player (recorder keys)",
    responses=errors(*AUTH, *BODY, 404),
)
def rename_player(ref: str, body: PlayerRename, principal: PrincipalDep, service: ServiceDep) -> dict[str, Any]:
    """The new name shows at once in all their games, in every server process; the old one stays an alias
    unless `keep_alias: false`."""
    return service.rename_player(principal, ref, body.name, keep_alias=body.keep_alias).to_public()


@router.post(
    "/v1/players/{ref}/merge",
    response_model=PlayerPublic,
    summary="Merge a player into another (recorder keys)",
    responses=errors(*AUTH, *BODY, 404),
)
def merge_player(ref: str, body: PlayerMerge, principal: PrincipalDep, service: ServiceDep) -> dict[str, Any]:
    """The player of the path is merged into `into` (answered): their games and names become its, and the
    ratings are rebuilt from the events. 422 `invalid` (`field: into`) for a player merged into itself, or
    two players who sat in one game (with `games`); 404 for either missing."""
    return service.merge_players(principal, ref, body.into).to_public()


@router.delete(
    "/v1/players/{ref}",
    response_model=PlayerErased,
    summary="Erase a player's names (recorder keys)",
    responses=errors(*AUTH, 404),
)
def erase_player(ref: str, principal: PrincipalDep, service: ServiceDep) -> dict[str, Any]:
    """The name and aliases gone from the record and from every game that showed them, at once in every
    process; the chains are untouched (events name seats). Notes that mention a name are listed."""
    record, report = service.erase_player_record(principal, ref)
    return {"player": record.to_public(), "games": report.games, "mentions": report.mentions}


@router.get(
    "/v1/standings", response_model=Standings, summary="A club's leaderboard of one game", responses=errors(*AUTH)
)
def get_standings(
    principal: PrincipalDep,
    service: ServiceDep,
    game: Annotated[GameKind, Query(description="the game kind")],
    since: Annotated[Moment | None, Query(description="games created at or after")] = None,
    until: Annotated[Moment | None, Query(description="games created before")] = None,
    event: Annotated[str | None, Query(max_length=200, description="the event label, exactly")] = None,
    round: Annotated[str | None, Query(max_length=200, description="the round label, exactly")] = None,
) -> dict[str, Any]:
    """Per pool the game rates, each player with results in the range: their rating after their last
    result there, the change over the range, results, score and expected score; placed by `ordinal`."""
    return service.standings(
        principal, game.value, since=stored_time(since), until=stored_time(until), event=event, round=round
    )
