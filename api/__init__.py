"""The service: FastAPI app, auth, settings, the CLI and the web replay page."""
