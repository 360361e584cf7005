"""One lesson: its questions in order, then its summary.

What a question looks like and how it is answered is the question screen's
(tutor.ui.screens.question_screen), shared with Review; here is only what makes it a lesson: the
order of its questions, the summary past the last one, and the place saved for the next start.
"""
from __future__ import annotations

from tutor.ui.screens.question_screen import QuestionScreen, reflow

__all__ = ["LessonScreen", "reflow"]


class LessonScreen(QuestionScreen):
    def remember_position(self) -> None:
        """Saved on every question change, so 'tutor' reopens here next time."""
        self.app.save_position(self.lesson.id, self.question_index)

    def action_next_question(self) -> None:
        if self.question_index + 1 < len(self.lesson.questions):
            self.question_index += 1
            self.show_question()
        else:
            self.finish()

    def finish(self) -> None:
        """Past the last question: the lesson's summary, whose Enter opens the next lesson."""
        from tutor.ui.screens.lesson_summary import LessonSummaryScreen, summarize

        now = self.app.clock()
        ids = [question.id for question in self.lesson.questions]
        counts = self.app.progress.lesson_counts(self.lesson.id, ids)   # the roadmap's count, not this visit's
        summary = summarize(self.lesson.id, self.lesson.title, ids, counts, now - self.opened_at,
                            self.app.review_due_for(self.lesson.id, ids), self.app.catalog)
        self.app.push_screen(LessonSummaryScreen(summary, now))

    def action_previous_question(self) -> None:
        if self.question_index > 0:
            self.question_index -= 1
            self.show_question()
