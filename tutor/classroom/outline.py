"""The course as the class report counts it: lessons in roadmap order, their questions and prompts.

Taken from the lesson catalog in the report's language (a Chinese report shows the Chinese
prompts), so the report's figures stay plain data that tests build by hand.
"""
from __future__ import annotations

from tutor.classroom.report import CourseLesson, CourseQuestion
from tutor.grading.kinds import allowed_attempts


def course_outline(catalog) -> list[CourseLesson]:
    return [CourseLesson(item.lesson.id, item.lesson.title,
                         tuple(CourseQuestion(q.id, q.prompt, allowed_attempts(q, item.lesson.attempts))
                               for q in item.lesson.questions))
            for item in catalog.ordered()]


def course_question_ids(catalog) -> dict[str, list[str]]:
    """{lesson: question ids} of the course today: an export's lesson counts are of these."""
    return {item.lesson.id: [q.id for q in item.lesson.questions] for item in catalog.ordered()}
