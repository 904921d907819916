"""The ASGI application for uvicorn: `uvicorn api.asgi:app` (settings from the environment)."""

from api.main import create_app
from projections.core.tuning import tune_gc

tune_gc()  # a server process folds (projections/core/tuning.py)
app = create_app()
