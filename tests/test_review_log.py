"""The review log leaves in FSRS's CSV columns, and --optimize keeps fitted parameters only when they
predict held-out reviews better (the fit itself is FSRS's optimizer; here a known truth stands in
for it, so the keep-or-refuse rule is what is tested)."""
import csv
import random
from datetime import datetime, timedelta, timezone

from fsrs import Card, Rating
from fsrs.scheduler import DEFAULT_PARAMETERS

from tutor.cli.main import main as cli_main
from tutor.progress import review, review_log
from tutor.progress.records import Answer
from tutor.progress.review import iso
from tutor.progress.store import ProgressStore

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)
# a learner who forgets much faster than FSRS's average user: initial stabilities a fifth of the default
TRUE = [p / 5 if i < 4 else p for i, p in enumerate(DEFAULT_PARAMETERS)]


def simulate(store, cards=160, reviews=6, seed=0):
    """Reviews drawn from TRUE's own recall probabilities, every 1-6 days, written as review outcomes."""
    rng, scheduler = random.Random(seed), review.scheduler(TRUE)
    with store.transaction() as con:
        for n in range(cards):
            card, when = Card(card_id=n, due=T0), T0 + timedelta(minutes=n)
            for step in range(reviews):
                recalled = step == 0 or rng.random() < scheduler.get_card_retrievability(card, when)
                rating = Rating.Good if recalled else Rating.Again
                con.execute("INSERT INTO outcomes (ts, lesson_id, question_id, outcome, attempts, hints_used, role)"
                            " VALUES (?, 'sim', ?, ?, 1, 0, 'review')",
                            (iso(when), f"q{n}", "first_try" if recalled else "missed"))
                card, _ = scheduler.review_card(card, rating, review_datetime=when)
                when += timedelta(days=rng.randint(1, 6), minutes=rng.randint(0, 600))


def test_the_review_log_is_written_as_fsrs_csv_with_durations(tmp_path):
    with ProgressStore(tmp_path / "home") as store:
        store.record(Answer("la-tensors", "count", "32", False, 0, T0 + timedelta(seconds=40), shown_at=T0))
        store.record_give_up("la-tensors", "count", "scored", 3, None, T0 + timedelta(seconds=75), shown_at=T0)
        store.record(Answer("la-tensors", "one-token", "(8,)", True, 0, T0 + timedelta(seconds=9)))
        assert review_log.export_reviews_csv(store, tmp_path / "reviews.csv") == 2
    rows = list(csv.DictReader((tmp_path / "reviews.csv").open(encoding="utf-8")))
    assert list(rows[0]) == list(review_log.CSV_COLUMNS)
    assert [(r["question_id"], r["review_rating"], r["review_duration"]) for r in rows] == [
        ("one-token", "3", ""), ("count", "1", "75000")]
    assert rows[1]["review_time"] == str(round((T0 + timedelta(seconds=75)).timestamp() * 1000))
    assert rows[0]["card_id"] == str(review_log.card_id("la-tensors", "one-token")) != rows[1]["card_id"]


def test_optimize_says_how_many_more_reviews_it_needs(tmp_path, capsys):
    with ProgressStore(tmp_path / "home") as store:
        simulate(store, cards=10, reviews=3)
        result = review_log.optimize(store, fit=lambda logs: 1 / 0)   # never reached below the threshold
        assert result.reviews == 20 and result.needed == review_log.MIN_REVIEWS - 20
    assert cli_main(["progress", "--home", str(tmp_path / "home"), "--optimize"]) == 0
    assert f"it needs {review_log.MIN_REVIEWS}, so {review_log.MIN_REVIEWS - 20} more" in capsys.readouterr().out


def test_fitted_parameters_are_kept_only_when_they_predict_held_out_reviews_better(tmp_path):
    with ProgressStore(tmp_path / "home") as store:
        simulate(store)
        worse = [p * 5 if i < 4 else p for i, p in enumerate(DEFAULT_PARAMETERS)]   # an even rosier learner
        refused = review_log.optimize(store, fit=lambda logs: worse)
        assert refused.needed == 0 and not refused.kept and refused.loss_after > refused.loss_before
        assert review.learner_parameters(store._con) is None   # nothing saved

        trained_on = []
        kept = review_log.optimize(store, fit=lambda logs: trained_on.extend(logs) or TRUE)
        assert kept.kept and kept.loss_after < kept.loss_before
        assert review.learner_parameters(store._con) == TRUE
        held_out = {log.card_id for _l, _q, log in review_log.review_logs(store)} - {log.card_id for log in trained_on}
        assert len(held_out) == 160 // review_log.HELD_OUT_EVERY   # the judged cards were never fitted on

        # the schedule now follows them: a miss comes back as before, a Good grows more slowly
        store.record(Answer("x", "q", "right", False, 0, T0))
        store.record_give_up("x", "q", "scored", 3, None, T0)
        assert store.card("x", "q").stability == review.scheduler(TRUE).review_card(
            Card(card_id=1, due=T0), Rating.Again, review_datetime=T0)[0].stability
