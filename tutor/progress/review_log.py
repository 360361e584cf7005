"""The learner's review log in the ecosystem's terms, and FSRS parameters fitted to it.

Every outcome row is one rating of a question's card (its resolution, each review, and the later
encounters of schema 2), so the log is the outcome table read as FSRS ``ReviewLog``s. Why fit
at all: FSRS's default parameters are averages over many Anki users; a learner's own log predicts
their forgetting better once it is long enough. Why the held-out check: an optimizer always
lowers the loss on the reviews it saw; new parameters are kept only if they predict reviews it
did not see (every fifth card) better than the parameters in use.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from fsrs import Card, Rating, ReviewLog
from fsrs.scheduler import DEFAULT_PARAMETERS

from tutor.common.i18n import message_of
from tutor.common.safe_files import UnsafeFileError, write_atomically
from tutor.progress import review
from tutor.progress.store import ProgressError

MIN_REVIEWS = 400    # reviews a day or more after the card's last one: what FSRS learns from
HELD_OUT_EVERY = 5   # every fifth card is kept out of the fit, to judge it
CSV_COLUMNS = ("card_id", "review_time", "review_rating", "review_duration", "review_datetime", "lesson_id",
               "question_id")


def card_id(lesson_id: str, question_id: str) -> int:
    """A stable integer per question (FSRS tools key cards by integers), the same on every machine."""
    return int.from_bytes(hashlib.sha256(f"{lesson_id}\0{question_id}".encode()).digest()[:6], "big")


def review_logs(store) -> list[tuple[str, str, ReviewLog]]:
    """Every rating in time order, as (lesson, question, ReviewLog)."""
    return [(o.lesson_id, o.question_id,
             ReviewLog(card_id(o.lesson_id, o.question_id), review.RATINGS[o.outcome], o.timestamp, o.duration_ms))
            for o in store.outcomes()]


def export_reviews_csv(store, path: str | Path) -> int:
    """The review log as CSV (review_time in ms since the epoch, review_rating 1-4, review_duration in
    ms or empty): the columns FSRS's optimizers read. Returns the number of reviews written."""
    logs = review_logs(store)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for lesson_id, question_id, log in logs:
        writer.writerow((log.card_id, round(log.review_datetime.timestamp() * 1000), int(log.rating),
                         "" if log.review_duration is None else log.review_duration,
                         log.review_datetime.isoformat(), lesson_id, question_id))
    try:   # never through or over a symlink, FIFO or device, as the JSON export
        write_atomically(path, out.getvalue().encode("utf-8"))
    except UnsafeFileError as exc:
        raise ProgressError(message_of(exc)) from None
    return len(logs)


def learning_reviews(logs: Sequence[ReviewLog]) -> int:
    """Reviews a day or more after the same card's previous one (same-day ones teach FSRS nothing)."""
    last: dict[int, datetime] = {}
    count = 0
    for log in sorted(logs, key=lambda log: log.review_datetime):
        previous = last.get(log.card_id)
        if previous is not None and (log.review_datetime - previous).days > 0:
            count += 1
        last[log.card_id] = log.review_datetime
    return count


def log_loss(logs: Sequence[ReviewLog], parameters: Sequence[float]) -> float:
    """Mean binary cross-entropy of the predicted recall (retrievability) at each learning review."""
    scheduler = review.scheduler(parameters)
    cards: dict[int, Card] = {}
    total, count = 0.0, 0
    for log in sorted(logs, key=lambda log: (log.card_id, log.review_datetime)):
        card = cards.get(log.card_id) or Card(card_id=log.card_id, due=log.review_datetime)
        if card.last_review is not None and (log.review_datetime - card.last_review).days > 0:
            p = min(max(scheduler.get_card_retrievability(card, log.review_datetime), 1e-6), 1 - 1e-6)
            recalled = log.rating != Rating.Again
            total -= math.log(p if recalled else 1 - p)
            count += 1
        cards[log.card_id], _ = scheduler.review_card(card, log.rating, review_datetime=log.review_datetime)
    return total / count if count else math.nan


def fit_with_fsrs(logs: Sequence[ReviewLog]) -> list[float]:
    """FSRS's own optimizer (torch; ``pip install "fsrs[optimizer]"`` adds what else it needs)."""
    from fsrs import Optimizer

    return Optimizer(list(logs)).compute_optimal_parameters()


@dataclass(frozen=True)
class Optimized:
    reviews: int                       # learning reviews in the log
    needed: int                        # more reviews needed before fitting (0: it was fitted)
    kept: bool = False                 # the new parameters predicted held-out reviews better, and are in use
    loss_before: float | None = None   # held-out log loss of the parameters in use
    loss_after: float | None = None    # held-out log loss of the fitted ones


def optimize(store, fit: Callable[[Sequence[ReviewLog]], Sequence[float]] = fit_with_fsrs) -> Optimized:
    """Fit on four cards in five, judge on the fifth, and keep the fit only if it predicts better."""
    logs = [log for _l, _q, log in review_logs(store)]
    reviews = learning_reviews(logs)
    if reviews < MIN_REVIEWS:
        return Optimized(reviews, MIN_REVIEWS - reviews)
    ids = sorted({log.card_id for log in logs})
    held_out = set(ids[::HELD_OUT_EVERY])
    train = [log for log in logs if log.card_id not in held_out]
    test = [log for log in logs if log.card_id in held_out]
    with store._lock:
        current = review.learner_parameters(store._con) or list(DEFAULT_PARAMETERS)
    fitted = list(fit(train))
    before, after = log_loss(test, current), log_loss(test, fitted)
    kept = after < before
    if kept:
        with store.transaction() as con:
            con.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('fsrs_parameters', ?)", (json.dumps(fitted),))
    return Optimized(reviews, 0, kept, before, after)

