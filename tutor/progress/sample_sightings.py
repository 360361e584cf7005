"""The ``sample_sightings`` table: what the dashboard's Sample tab showed, on which weights.

Why it is kept: the Sample tab prints the next-token distribution after the prompt and after each
token it appended, and on a lesson's own text and weights that is the answer to the lesson's
next-token questions (2026-12-adversary.md F4).  Sampling while the lesson is open is caught at
once; sampling first and opening the lesson afterwards (even after a restart) is caught when the
question opens, from these rows (tutor.session.sample_sight).  One row per distinct run: the
weights' digest (tutor.live.model_identity), the prompt and the tokens appended.
"""
from __future__ import annotations

import json
import sqlite3
from datetime import datetime

from tutor.progress.review import iso

SAMPLE_SIGHTINGS_DDL = """
CREATE TABLE IF NOT EXISTS sample_sightings (
    model   TEXT NOT NULL,
    prompt  TEXT NOT NULL,
    tokens  TEXT NOT NULL,
    ts      TEXT NOT NULL,
    PRIMARY KEY (model, prompt, tokens)
);
"""


def save(con: sqlite3.Connection, model: str, prompt: str, tokens: list[str], now: datetime) -> None:
    con.execute("INSERT OR IGNORE INTO sample_sightings (model, prompt, tokens, ts) VALUES (?, ?, ?, ?)",
                (model, prompt, json.dumps(list(tokens), ensure_ascii=False), iso(now)))


def load(con: sqlite3.Connection, model: str) -> list[tuple[str, list[str]]]:
    """(prompt, tokens) of every run on ``model``, oldest first."""
    rows = con.execute("SELECT prompt, tokens FROM sample_sightings WHERE model = ? ORDER BY ts",
                       (model,)).fetchall()
    return [(prompt, json.loads(tokens)) for prompt, tokens in rows]
