"""The games' rules and a club's rule profiles: what each option is, and the house rules a club keeps.

`GET /v1/games/rules` lists every game with its options (default, values, help text, and kind:
`scoring`, re-scored from the same events, or `play`, replayed until the first event refused; see
`POST /v1/games/{id}/rescore`). A rule profile is a club's named set of option values per game
(`api/service/profiles.py`); `default`, every option at its default, is built in. Plain `def` routes,
one call each of the profile functions, on the service's store (the database work runs in FastAPI's
threadpool).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from api.deps import PrincipalDep, ServiceDep
from api.models import AUTH, BODY, Doc, errors
from api.requests import StrictJSONRoute
from api.responses import ORJSONResponse

router = APIRouter(tags=["rules"], route_class=StrictJSONRoute)


class OptionValues(Doc):
    type: str = Field(description="boolean, integer (with minimum and maximum), choice (with choices), seat, other")


class OptionDoc(Doc):
    name: str
    default: Any = Field(description="the value a game has when it names none (a record made before the option too)")
    values: OptionValues
    kind: str = Field(
        description="scoring: only the points change (re-scored from the same events); play: what "
        "is legal or how play proceeds changes (replayed until the first event refused)"
    )
    scoring_only: bool
    rule: str | None = Field(description="the rule the option governs, named by a re-score's divergence")
    seating: bool = Field(description="who sits where or deals first: set per game, never by a profile")
    help: str


class GameRulesDoc(Doc):
    game: str
    title: str
    players: list[int] = Field(description="the numbers of players the game is played by")
    options: list[OptionDoc]


class RulesCatalog(Doc):
    games: list[GameRulesDoc]


class ProfileDoc(Doc):
    name: str
    builtin: bool = Field(description="the built-in `default` profile: every option at its default")
    games: dict[str, dict[str, Any]] = Field(description="the options the profile names, per game")
    rules: dict[str, dict[str, Any]] = Field(description="every game's house options with the profile's values")
    created_at: str | None
    updated_at: str | None


class ProfileList(Doc):
    profiles: list[ProfileDoc]


class ProfileDeleted(Doc):
    deleted: str


class ProfileSave(BaseModel):
    """A profile of the club: its name and the option values it sets, per game (`{kind: {option: value}}`)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=80, examples=["tuesday"])
    games: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        examples=[{"gin-rummy-3": {"undercut_bonus": 20, "gin_scoring": "flat"}, "casino": {"sweeps": True}}],
        description="per game, the options the profile sets; every other option is at its default",
    )


@router.get(
    "/v1/games/rules",
    response_model=RulesCatalog,
    summary="Every game's options: defaults, values, help texts, kinds",
    responses=errors(*AUTH),
)
def get_rules(principal: PrincipalDep, service: ServiceDep) -> dict[str, Any]:
    """Each game with its options: `{name, default, values, kind, scoring_only, rule, seating, help}`."""
    return service.rules()


@router.get("/v1/profiles", response_model=ProfileList, summary="The club's rule profiles", responses=errors(*AUTH))
def list_profiles(principal: PrincipalDep, service: ServiceDep) -> dict[str, Any]:
    """The built-in `default` first, then the club's profiles by name."""
    return {"profiles": [p.to_dict() for p in service.profiles(principal)]}


@router.get(
    "/v1/profiles/{name}",
    response_model=ProfileDoc,
    summary="One rule profile of the club",
    responses=errors(*AUTH, 404),
)
def get_profile(name: str, principal: PrincipalDep, service: ServiceDep) -> dict[str, Any]:
    """The profile `name` (`default`: the built-in one)."""
    return service.profile(principal, name).to_dict()


@router.post(
    "/v1/profiles",
    response_model=ProfileDoc,
    status_code=201,
    summary="Store a rule profile of the club (recorder or auditor keys)",
    responses={200: {"model": ProfileDoc, "description": "an existing profile replaced"}, **errors(*AUTH, *BODY)},
)
def save_profile(body: ProfileSave, principal: PrincipalDep, service: ServiceDep) -> Response:
    """201 with the new profile, or 200 when it replaces the club's profile of that name. Every option is
    checked against its game; a seating option (`first_dealer`...) is refused: it is set per game."""
    profile, created = service.save_profile(principal, body.name, body.games)
    return ORJSONResponse(profile.to_dict(), status_code=201 if created else 200)


@router.delete(
    "/v1/profiles/{name}",
    response_model=ProfileDeleted,
    summary="Remove a rule profile of the club (recorder or auditor keys)",
    responses=errors(*AUTH, 404),
)
def delete_profile(name: str, principal: PrincipalDep, service: ServiceDep) -> dict[str, Any]:
    """The games created with it keep their options (a profile is copied into a game, not linked)."""
    service.delete_profile(principal, name)
    return {"deleted": name}
