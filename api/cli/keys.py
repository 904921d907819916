"""`tablebook keys create|list|revoke` and `tablebook demo-keys`: API keys (only their hashes are stored)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import orjson
import typer

from api.cli.common import DatabaseOption, address, console, lazy, out
from api.cli.common import database_url as _url
from api.cli.common import fail as _fail
from api.cli.common import settings as _settings
from api.cli.common import store as _store
from api.cli.demo import DEMO_CLUB
from events.errors import TablebookError

if TYPE_CHECKING:
    from api.auth import authenticate, create_key
    from events.store import Store
else:
    authenticate = lazy("api.auth", "authenticate")
    create_key = lazy("api.auth", "create_key")

keys_app = typer.Typer(help="API keys: create, list, revoke.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    """Add `demo-keys` and the `keys` group to the `tablebook` app."""
    app.command("demo-keys")(demo_keys)
    keys_app.command("create")(keys_create)
    keys_app.command("list")(keys_list)
    keys_app.command("revoke")(keys_revoke)
    app.add_typer(keys_app, name="keys")


def keys_create(
    club: Annotated[str, typer.Option(help="the club the key belongs to (created if new)")],
    role: Annotated[str, typer.Option(help="recorder, viewer or auditor")] = "recorder",
    label: Annotated[str, typer.Option(help="a note to recognise the key by")] = "",
    database: DatabaseOption = None,
) -> None:
    """Create a key; the key itself is printed on the last line, once (only its hash is kept)."""
    from api.auth import ROLES

    if role not in ROLES:
        _fail(f"--role must be one of {', '.join(ROLES)}", 2)
    key = create_key(_store(database), club, role, label)
    out.line(f"created a {role} key for club {club!r}; keep it, it is not shown again:")
    print(key)


def keys_list(
    club: Annotated[str | None, typer.Option(help="only this club's keys")] = None, database: DatabaseOption = None
) -> None:
    """List keys (ids, clubs, roles; never the secrets)."""
    rows = [
        [key.id, key.club, key.role, key.label, key.created_at, key.revoked_at or ""]
        for key in _store(database).list_keys(club)
    ]
    out.table(["id", "club", "role", "label", "created", "revoked"], rows)


def keys_revoke(
    key_id: Annotated[str, typer.Argument(help="the key's id (tb_<id>_...)")], database: DatabaseOption = None
) -> None:
    """Revoke a key at once."""
    key_id = key_id.split("_")[1] if key_id.startswith("tb_") else key_id
    if not _store(database).revoke_key(key_id):
        _fail(f"no active key {key_id!r}")
    console.print(f"revoked {key_id}")


#: the roles of the demo keys, in the order they are printed
DEMO_ROLES = ("recorder", "auditor", "viewer")


#: the label of the demo keys (and of those older versions minted at every `make run`)
DEMO_LABELS = ("demo-keys", "make run")


def demo_keys_path(url: str) -> Path:
    """Where the demo keys are kept: beside a SQLite database's file, else ./data/demo-keys.json."""
    if url.startswith("sqlite") and "///" in url:
        path = url.split("///", 1)[1].split("?", 1)[0]
        if path and path != ":memory:":
            return Path(path).parent / "demo-keys.json"
    return Path("data") / "demo-keys.json"


def _saved_demo_keys(store: Store, path: Path, club: str) -> dict[str, str] | None:
    """The keys of the file, if each still opens the club with its role; else None."""
    try:
        keys = orjson.loads(path.read_bytes())["keys"]
        for role in DEMO_ROLES:
            principal = authenticate(store, f"Bearer {keys[role]}")
            if principal.club != club or principal.role != role:
                return None
    except (OSError, ValueError, KeyError, TypeError, TablebookError):
        return None
    return {role: str(keys[role]) for role in DEMO_ROLES}


def _write_private(path: Path, body: bytes) -> None:
    """Write `body` to `path` readable by its owner only (mode 0600), whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".tmp")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(body)
    os.chmod(partial, 0o600)
    os.replace(partial, path)


def demo_keys(
    club: Annotated[str, typer.Option(help="the demo club")] = DEMO_CLUB,
    keys_file: Annotated[
        Path | None,
        typer.Option(help="the file of the keys (default: demo-keys.json beside the database, or in ./data)"),
    ] = None,
    database: DatabaseOption = None,
) -> None:
    """Print the demo club's recorder, auditor and viewer keys, made once and kept in a file (mode 0600;
    the database keeps only their hashes). Keys of the file that no longer work (revoked, another
    database) are replaced: every older demo key of the club is revoked and three new ones are made."""
    url = _url(database)
    store = _store(url, migrate=True)
    path = keys_file or demo_keys_path(url)
    keys = _saved_demo_keys(store, path, club)
    if keys is None:
        for old in store.list_keys(club):
            if old.label in DEMO_LABELS and old.revoked_at is None:
                store.revoke_key(old.id)
        keys = {role: create_key(store, club, role, DEMO_LABELS[0]) for role in DEMO_ROLES}
        _write_private(path, orjson.dumps({"club": club, "keys": keys}, option=orjson.OPT_INDENT_2))
        said = f"new keys for club {club!r}, kept in {path}"
    else:
        said = f"the keys of club {club!r}, kept in {path}"
    console.print(f"{said} (the demo games are this club's):", markup=False, highlight=False, soft_wrap=True)
    for role in DEMO_ROLES:
        console.print(f"  {role + ' key:':<14}{keys[role]}", markup=False, highlight=False, soft_wrap=True)
    settings = _settings()
    console.print(
        "Send one as 'Authorization: Bearer <key>': a recorder records and reads, an auditor also audits and "
        "corrects, a viewer reads with a live hand's hidden cards redacted. For example:",
        highlight=False,
        soft_wrap=True,
    )
    console.print(
        f"  curl -s {address(settings.host, settings.port)}/v1/games -H 'Authorization: Bearer {keys['viewer']}'",
        highlight=False,
        soft_wrap=True,
    )
