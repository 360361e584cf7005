"""The exchange folder as docs/class.md makes it (mode 1733, owned by root), seen by real system
users, not by root: root reads and lists every folder, so the other hand-in tests cannot show that
a student is refused anything.

Two students are made with ``useradd`` for the test and removed after it.  Each student's part runs
in a child of this process that has dropped to that user (``setgroups``/``setgid``/``setuid``, what
``runuser`` does) and reports back through a pipe: the tutor's interpreter lives under /root, which
a student cannot enter, so a fresh ``runuser -u ana -- python`` could not even start.  Skipped, with
the reason, where the test is not run as root or the machine cannot add users.
"""
import gzip
import json
import os
import shutil
import subprocess
import tempfile
import uuid
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tutor.classroom.handin import HandInError, file_name, hand_in, learner_name
from tutor.progress import io as _export_modules   # noqa: F401  imported here: a student cannot read /root
from tutor.progress.records import Answer
from tutor.progress.store import ProgressError, ProgressStore

pytestmark = pytest.mark.skipif(
    os.name != "posix" or os.geteuid() != 0 or not shutil.which("useradd") or not shutil.which("userdel"),
    reason="needs root and useradd/userdel, to make two real students (a student's refusals cannot be shown as root)")
T0 = datetime(2026, 3, 1, 10, 0, tzinfo=timezone.utc)


@pytest.fixture
def students():
    """Two throwaway system users with no home and no shell; removed afterwards."""
    import pwd

    tag = uuid.uuid4().hex[:6]
    names = [f"tt{tag}a", f"tt{tag}b"]
    made = []
    try:
        for name in names:
            done = subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                pytest.skip(f"useradd could not make a student here: {done.stderr.strip()}")
            made.append(name)
        yield [pwd.getpwnam(name) for name in names]
    finally:
        for name in made:
            subprocess.run(["userdel", name], capture_output=True)


@pytest.fixture
def classroom():
    """A folder every user can pass through (pytest's own is root's, 0700), removed afterwards."""
    root = Path(tempfile.mkdtemp(prefix="tutor-class-"))
    os.chmod(root, 0o755)
    exchange = root / "exchange"
    exchange.mkdir()
    os.chmod(exchange, 0o1733)   # as docs/class.md: students write, cannot list; sticky
    yield root, exchange
    shutil.rmtree(root, ignore_errors=True)


def as_user(user, job) -> dict:
    """Run ``job()`` in a child that is ``user`` (no root, no supplementary groups); its dict result."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:   # the child: never returns into pytest
        os.close(read_end)
        try:
            os.setgroups([])
            os.setgid(user.pw_gid)
            os.setuid(user.pw_uid)
            result = job()
        except BaseException as error:   # reported, so the test says what went wrong in the child
            result = {"crashed": f"{type(error).__name__}: {error}"}
        with os.fdopen(write_end, "w") as out:
            json.dump(result, out)
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as inp:
        text = inp.read()
    os.waitpid(pid, 0)
    return json.loads(text)


def refused(action) -> str:
    try:
        action()
    except PermissionError:
        return "refused"
    except OSError as error:
        return f"other error: {error}"
    return "allowed"


def home_of(user, root: Path) -> Path:
    """The student's own folder, as a hub gives each user one."""
    home = root / user.pw_name
    home.mkdir(mode=0o700)
    os.chown(home, user.pw_uid, user.pw_gid)
    return home


def student_work(home: Path, exchange: Path):
    """Answer a question in a new home, hand in under the login, try to list the exchange."""
    def job() -> dict:
        with ProgressStore(home) as store:
            store.record(Answer("la-tensors", "embed-shape", "(2, 4, 8)", True, 0, T0, "B=2, L=4, D=8, H=2"))
            try:
                path, attempts = hand_in(store, exchange, learner_name(None), now=T0)
                handed = {"path": str(path), "attempts": attempts}
            except (HandInError, ProgressError) as error:
                handed = {"error": str(error)}
        return {"uid": os.getuid(), "handed": handed, "list": refused(lambda: os.listdir(exchange))}
    return job


def test_a_student_hands_in_but_cannot_list_the_exchange_nor_read_or_replace_another_hand_in(students, classroom):
    ana, ben = students
    root, exchange = classroom
    first = as_user(ana, student_work(home_of(ana, root), exchange))
    assert first.get("crashed") is None, first
    assert first["uid"] == ana.pw_uid != 0
    assert first["handed"] == {"path": str(exchange / file_name(ana.pw_name)), "attempts": 1}
    assert first["list"] == "refused"

    ben_home = home_of(ben, root)

    def ben_tries() -> dict:
        result = student_work(ben_home, exchange)()
        ana_file = exchange / file_name(ana.pw_name)
        result["read_ana"] = refused(ana_file.read_bytes)
        result["replace_ana"] = refused(lambda: os.replace(exchange / file_name(ben.pw_name), ana_file))
        result["remove_ana"] = refused(ana_file.unlink)
        with ProgressStore(ben_home) as store:   # handing in under ana's name: the sticky bit says no
            try:
                hand_in(store, exchange, learner_name(ana.pw_name), now=T0)
                result["hand_in_as_ana"] = "allowed"
            except (HandInError, ProgressError) as error:
                result["hand_in_as_ana"] = "refused" if "ermission" in str(error) or "not permitted" in str(error) \
                    else f"other error: {error}"
        return result

    second = as_user(ben, ben_tries)
    assert second.get("crashed") is None, second
    assert second["handed"]["path"] == str(exchange / file_name(ben.pw_name))
    assert (second["list"], second["read_ana"], second["replace_ana"], second["remove_ana"], second["hand_in_as_ana"]) \
        == ("refused",) * 5
    ana_doc = json.loads(gzip.decompress((exchange / file_name(ana.pw_name)).read_bytes()))
    assert ana_doc["learner"] == ana.pw_name   # the teacher (root here) reads both, ana's untouched
    assert sorted(p.name for p in exchange.iterdir()) == sorted([file_name(ana.pw_name), file_name(ben.pw_name)])
    assert all(os.stat(p).st_uid in (ana.pw_uid, ben.pw_uid) and os.stat(p).st_mode & 0o777 == 0o600
               for p in exchange.iterdir())
