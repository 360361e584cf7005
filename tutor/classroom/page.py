"""The class report as one HTML page a teacher opens anywhere: a browser, or JupyterLab's viewer.

One file with its style and charts inside (inline SVG): it asks no server and no other host for
anything, so it reads the same offline, on a hub with no way out, and as an e-mail attachment.  It
holds no script (JupyterLab shows an untrusted page without running one), so "hardest first" is a
table of its own rather than a click.  Every text that came from a learner's file or a lesson goes
through ``html.escape``: an answer typed as ``<script>`` is shown, never run.
"""
from __future__ import annotations

from datetime import datetime
from html import escape

from tutor.classroom.report import ClassReport, LearnerSummary, QuestionResult
from tutor.common.i18n import _, current_language, ngettext

STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans CJK SC","Microsoft YaHei",sans-serif;margin:2em;
color:#1d2330;max-width:1100px}h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccd;padding-bottom:.2em}
table{border-collapse:collapse;margin:.6em 0}th,td{border:1px solid #d5d9e0;padding:.3em .55em;text-align:left;
vertical-align:top}th{background:#eef1f6}td.n{text-align:right;font-variant-numeric:tabular-nums}
.q{margin:1em 0 1.6em;padding:.6em .9em;border-left:4px solid #8aa4d6;background:#f8f9fc}
.prompt{font-size:1.05em}.muted{color:#5d6678}code{background:#eef1f6;padding:0 .25em;border-radius:3px}
.bar{display:inline-block;height:.8em;background:#4c9a5e;vertical-align:middle}.wrap{overflow-x:auto}
.legend span{display:inline-block;width:.8em;height:.8em;margin:0 .3em 0 1em;vertical-align:middle}
"""
COLOURS = ("#4c9a5e", "#e0a63a", "#c8553d", "#b8bfcc")   # right first time, after a retry, not got, open


def _e(text) -> str:
    return escape(str(text), quote=True)


def tag(name: str, text: str, css_class: str | None = None) -> str:
    """An element holding ``text``, escaped."""
    attribute = f' class="{css_class}"' if css_class else ""
    return f"<{name}{attribute}>{_e(text)}</{name}>"


def duration(seconds: float) -> str:
    if seconds < 60:
        return _("{seconds} s").format(seconds=round(seconds))
    minutes = round(seconds / 60)
    return _("{hours} h {minutes} min").format(hours=minutes // 60, minutes=minutes % 60) if minutes >= 60 else \
        _("{minutes} min").format(minutes=minutes)


def percent(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f}%"


def moment(when: datetime | None) -> str:
    return "–" if when is None else when.strftime("%Y-%m-%d %H:%M UTC")


def render_page(report: ClassReport, generated: datetime, skipped: list[str]) -> str:
    lesson_titles = {lesson.id: lesson.title for lesson in report.course}
    parts = [f'<!DOCTYPE html><html lang="{_e(current_language())}"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             tag("title", _("Class report")) + f"<style>{STYLE}</style></head><body>",
             tag("h1", _("Class report")),
             '<p class="muted">' + _e(_("Made {moment} from {learners}; {lessons}.").format(
                 moment=moment(generated),
                 learners=ngettext("{n} learner's hand-in", "{n} learners' hand-ins", len(report.learners)).format(
                     n=len(report.learners)),
                 lessons=ngettext("{n} lesson", "{n} lessons", len(report.course)).format(n=len(report.course))))
             + "</p>"]
    if skipped:
        parts.append("<p>" + tag("strong", _("Files skipped (not merged):")) + "</p><ul>"
                     + "".join(f"<li>{_e(problem)}</li>" for problem in skipped) + "</ul>")
    parts += _learners(report.learners)
    parts += _hardest(report, lesson_titles)
    parts.append(tag("h2", _("Lesson by lesson")))
    parts.append('<p class="legend">' + "".join(
        f'<span style="background:{colour}"></span>{_e(label)}' for colour, label in
        zip(COLOURS, (_("right first time"), _("right after a retry"), _("not got"), _("not finished")))) + "</p>")
    unopened = []
    for lesson in report.course:
        questions = [q for q in report.questions if q.lesson_id == lesson.id]
        rows = [row for row in report.lessons if row.lesson_id == lesson.id]
        if not (any(row.answered or row.hints for row in rows) or any(q.open for q in questions)):
            unopened.append(lesson)   # listed together at the end: a course has many a class has not reached
            continue
        parts.append(f'<h3 id="{_e(lesson.id)}">{_e(lesson.title or lesson.id)} <code>{_e(lesson.id)}</code></h3>')
        done = sum(row.done for row in rows)
        parts.append('<p class="muted">' + _e(_("{done} of {learners} learners finished it.").format(
            done=done, learners=len(rows))) + "</p>")
        parts.append(_chart(questions))
        parts += [_question(q) for q in questions]
    if unopened:
        parts.append(tag("h3", _("Lessons no learner has opened")))
        parts.append('<p class="muted">' + "; ".join(f'{_e(lesson.title or lesson.id)} <code id="{_e(lesson.id)}">'
                                                    f"{_e(lesson.id)}</code>" for lesson in unopened) + "</p>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _learners(learners: tuple[LearnerSummary, ...]) -> list[str]:
    heads = (_("Learner"), _("Lessons done"), _("Right first time"), _("Time spent"), _("Hints"), _("Give-ups"),
             _("Last seen"), _("Lessons not opened"))
    out = [tag("h2", _("Learners")), '<div class="wrap"><table><tr>'
           + "".join(f"<th>{_e(head)}</th>" for head in heads) + "</tr>"]
    for who in learners:
        account = f' <span class="muted">({_e(who.account)})</span>' if who.account and who.account != who.name else ""
        right = _("{right} of {answered}").format(right=who.right_first, answered=who.tried)
        if who.tried:
            right += f" ({percent(100 * who.right_first / who.tried)})"
        done = _("{done} of {total}").format(done=who.lessons_done, total=who.lessons_total)
        unopened = ", ".join(who.not_opened[:6]) + (" …" if len(who.not_opened) > 6 else "")
        out.append(f"<tr><td>{_e(who.name)}{account}</td>"
                   + tag("td", done, "n") + f'<td class="n">{_e(right)}</td><td class="n">{_e(duration(who.seconds))}</td>'
                   f'<td class="n">{who.hints}</td><td class="n">{who.give_ups}</td><td>{_e(moment(who.last_seen))}</td>'
                   f'<td><span class="n">{len(who.not_opened)}</span> <span class="muted">{_e(unopened)}</span></td></tr>')
    out.append("</table></div>")
    return out


def _hardest(report: ClassReport, titles: dict[str, str]) -> list[str]:
    ranked = report.hardest_first()
    out = [tag("h2", _("Questions, hardest first"))]
    if not ranked:
        return out + [tag("p", _("No question has been answered yet."), "muted")]
    out.append("<table><tr>" + "".join(f"<th>{_e(head)}</th>" for head in (
        _("Right first time"), _("Learners"), _("Lesson"), _("Question"))) + "</tr>")
    for q in ranked:
        width = round(q.percent or 0)
        out.append(f'<tr><td class="n" style="white-space:nowrap"><span class="bar" style="width:{width * 0.8:.0f}px"></span> '
                   f'{percent(q.percent)}</td><td class="n">{q.tried}</td>'
                   f'<td><a href="#{_e(q.lesson_id)}">{_e(titles.get(q.lesson_id) or q.lesson_id)}</a></td>'
                   f"<td>{_e(q.prompt or q.question_id)}</td></tr>")
    return out + ["</table>"]


def _chart(questions: list[QuestionResult]) -> str:
    """One bar per question: how the learners who reached it fared, stacked (inline SVG)."""
    bar, gap, height = 28, 14, 120
    width = len(questions) * (bar + gap) + gap
    most = max((q.learners + q.open for q in questions), default=0) or 1
    shapes = []
    for i, q in enumerate(questions):
        x, y = gap + i * (bar + gap), height
        for count, colour in zip((q.right_first, q.after_retry, q.missed, q.open), COLOURS):
            h = height * count / most
            y -= h
            if count:
                shapes.append(f'<rect x="{x}" y="{y:.1f}" width="{bar}" height="{h:.1f}" fill="{colour}"/>')
        shapes.append(f'<text x="{x + bar / 2}" y="{height + 14}" font-size="11" text-anchor="middle">'
                      f"Q{i + 1}</text>")
    label = _e(_("How the learners fared on each question of this lesson"))
    return (f'<svg role="img" aria-label="{label}" width="{width}" height="{height + 20}" '
            f'xmlns="http://www.w3.org/2000/svg"><title>{label}</title>{"".join(shapes)}</svg>')


def _question(q: QuestionResult) -> str:
    out = [f'<div class="q"><div class="prompt"><strong>{_e(q.question_id)}</strong> {_e(q.prompt)}</div>']
    if q.expected:
        shown = "; ".join(f"{_e(answer)}" + (f' <span class="muted">({_e(sizes)})</span>' if sizes else "")
                          for sizes, answer in q.expected.items())
        out.append("<div>" + _e(_("Expected answer:")) + f" <code>{shown}</code></div>")
    out.append("<div>" + _e(_("Right first time: {percent} ({right} of {learners}); after a retry {retry}, not got "
                              "{missed}, not finished {open}.").format(
        percent=percent(q.percent), right=q.right_first, learners=q.tried, retry=q.after_retry, missed=q.missed,
        open=q.open)) + "</div>")
    if q.wrong:
        out.append("<table><tr>" + "".join(f"<th>{_e(head)}</th>" for head in (
            _("Wrong answer"), _("Learners"), _("Sizes shown"), _("What the tutor said"))) + "</tr>")
        for wrong in q.wrong:
            out.append(f"<tr><td><code>{_e(wrong.text)}</code></td><td class=\"n\">{wrong.learners}</td>"
                       f"<td>{_e(wrong.variant or '–')}</td><td>{_e(wrong.nudge or '–')}</td></tr>")
        out.append("</table>")
        if q.other_answers:
            out.append('<div class="muted">' + _e(ngettext(
                "Others: {answers} more wrong answer, from {learners} learners.",
                "Others: {answers} more wrong answers, from {learners} learners.", q.other_answers).format(
                answers=q.other_answers, learners=q.other_learners)) + "</div>")
    return "\n".join(out + ["</div>"])
