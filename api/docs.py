"""The API's documentation: `/docs` (Swagger UI) and `/redoc` (ReDoc), served offline, and the OpenAPI.

Both pages load their JavaScript and CSS from this server (`/docs-assets/`: the files the
`fastapi-offline` package ships, Swagger UI and ReDoc with their licences), never from a CDN,
so they work without a network; their icon is `/static/favicon.svg`.

`openapi()` finishes FastAPI's document:

- the `bearer` security scheme (`Authorization: Bearer <key or share token>`), on every
  `/v1` operation: Swagger UI shows its Authorize button and sends the key with "Try it out";
- the event vocabulary of every game (`api.models.event_schemas`, generated from
  `events/<game>.py`), which the append body refers to;
- no `HTTPValidationError`: FastAPI documents a `{"detail": [...]}` 422 for routes with
  parameters, which this server never answers (`api.main` answers `{"error": {...}}`); every
  such reference is replaced with the real 422 body, `ErrorBody422`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import fastapi_offline
from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from api.models import ErrorBody422, event_schemas

#: the Swagger UI and ReDoc files (and their licence notes) of the fastapi-offline package
ASSETS = Path(fastapi_offline.__file__).resolve().parent / "static"
ASSETS_URL = "/docs-assets"
FAVICON_URL = "/static/favicon.svg"
SECURITY_SCHEME = "bearer"
#: FastAPI's validation error components, which no answer of this server has
_FASTAPI_ERRORS = ("HTTPValidationError", "ValidationError")
_ERROR_422 = {"$ref": "#/components/schemas/ErrorBody422"}
#: the pages load nothing from another host: ReDoc's footer names a logo on its CDN, which this keeps
#: the browser from asking for (the pages' own start-up scripts are inline; ReDoc's search runs in a
#: blob: worker)
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' "
    "'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}


def install_docs(app: FastAPI) -> None:
    """Serve `/docs`, `/redoc` and their files, and finish `app.openapi()`; `app` has docs_url=None, redoc_url=None."""
    app.mount(ASSETS_URL, StaticFiles(directory=ASSETS), name="docs-assets")
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        page = get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title} API",
            swagger_js_url=f"{ASSETS_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS_URL}/swagger-ui.css",
            swagger_favicon_url=FAVICON_URL,
            swagger_ui_parameters={"persistAuthorization": True, "validatorUrl": None},
        )
        page.headers.update(PAGE_HEADERS)
        return page

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        page = get_redoc_html(
            openapi_url=openapi_url,
            title=f"{app.title} API",
            redoc_js_url=f"{ASSETS_URL}/redoc.standalone.js",
            redoc_favicon_url=FAVICON_URL,
            with_google_fonts=False,
        )
        page.headers.update(PAGE_HEADERS)
        return page

    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = finish_openapi(build())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to customise the schema


def finish_openapi(schema: dict[str, Any]) -> dict[str, Any]:
    """FastAPI's document with the bearer scheme, the events, and the real 422 (see the module's doc)."""
    components = schema.setdefault("components", {})
    components.setdefault("securitySchemes", {})[SECURITY_SCHEME] = {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "tb_<id>_<secret> (a key) or ts_<id>_<secret> (a share link)",
        "description": "An API key of the club (`recorder`, `viewer` or `auditor`), or a share token.",
    }
    schemas = components.setdefault("schemas", {})
    schemas.update(event_schemas())
    for name in _FASTAPI_ERRORS:
        schemas.pop(name, None)
    if "ErrorBody422" not in schemas:  # a route that documents no 422 of its own still refers to it
        document = ErrorBody422.model_json_schema(ref_template="#/components/schemas/{model}")
        schemas.update(document.pop("$defs", {}))
        schemas["ErrorBody422"] = document
    for path, operations in schema.get("paths", {}).items():
        for operation in operations.values():
            if path.startswith("/v1/"):
                operation["security"] = [{SECURITY_SCHEME: []}]
            _replace_fastapi_errors(operation)
    return schema


def _replace_fastapi_errors(node: Any) -> None:
    """Every `$ref` to FastAPI's validation error, in place, made the real 422 body."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.rsplit("/", 1)[-1] in _FASTAPI_ERRORS:
            node["$ref"] = _ERROR_422["$ref"]
        for value in node.values():
            _replace_fastapi_errors(value)
    elif isinstance(node, list):
        for value in node:
            _replace_fastapi_errors(value)
