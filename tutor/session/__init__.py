"""The question session: one question's life between the store and the screens, without Textual.

Why a layer of its own: the rules of the learning loop (which try is scored, review or practice,
how many tries are left, when the answer is revealed, what a reveal gives away about other
questions) used to live in the lesson screen and two mixins, with the attempt state kept there and
again in the store.  A second app instance on the same home then drew "1 try left" for a question
the store had already resolved.  Here the store's record is the only state that counts; the
screens draw the :class:`~tutor.session.question.Step` each action returns, and the rules are tested
in milliseconds (tests/test_session*.py) instead of through Pilot.
"""
