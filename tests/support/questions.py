"""AskUserQuestion inputs shared by the dialog tests."""

from __future__ import annotations

DATABASE = {
    "question": "Which database should we use?",
    "header": "Database",
    "options": [
        {"label": "SQLite", "description": "A single file"},
        {"label": "Postgres", "description": "A server"},
    ],
    "multiSelect": False,
}
FEATURES = {
    "question": "Which features do you want?",
    "header": "Features",
    "options": [
        {"label": "Auth", "description": "Logins"},
        {"label": "Export", "description": "CSV files"},
        {"label": "Search", "description": "Full text"},
    ],
    "multiSelect": True,
}
