"""The ASGI application for uvicorn: `uvicorn api.asgi:app` (settings from the environment)."""

from api.main import create_app

app = create_app()
