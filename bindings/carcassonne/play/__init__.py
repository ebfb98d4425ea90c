"""The play server (`python -m carcassonne serve`): FastAPI endpoints over the engine, a static
page in `static/`, games kept in SQLite. Needs the `play` extra (fastapi, uvicorn)."""
