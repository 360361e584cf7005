"""A weights label ("shipped default checkpoint (trained on sort, 1500 steps, accuracy 100%)") in
the interface language, with its numbers and names kept.

Why translate when shown and not when made: the English label is also an identity the code
reads (is this the shipped model? was it trained on a task?), it is stored in the hub, in
messages and in checkpoints' notes long before it is shown, and a language switch (F4) must
change what is on screen without recomputing any model.  So the label stays English and every
screen passes it through ``localized_label``.  The label's grammar is small and ours (made by
``describe_checkpoint`` and ``TrainingRun.label``): a name, then details separated by ", ";
a piece this module does not know (a file name, say) is shown as it is.
"""
from __future__ import annotations

import re

from tutor.common.i18n import DEFAULT, N_, Message, _, current_language

# one piece of a label (the name, or one detail) -> its translation template; fields are kept as written
_PIECES: tuple[tuple[re.Pattern, str], ...] = tuple((re.compile(pattern + r"\Z"), template) for pattern, template in (
    (r"shipped default checkpoint", N_("shipped default checkpoint")),
    (r"shipped (?P<name>\w+) model", N_("shipped {name} model")),
    (r"random initial weights of the shipped shape", N_("random initial weights of the shipped shape")),
    (r"random initial weights", N_("random initial weights")),
    (r"your model, kept from last time", N_("your model, kept from last time")),
    (r"checkpoint (?P<name>.+)", N_("checkpoint {name}")),
    (r"trained on (?P<data>.+)", N_("trained on {data}")),
    (r"(?P<count>\d+) steps", N_("{count} steps")),
    (r"accuracy (?P<percent>\d+)%", N_("accuracy {percent}%")),
    (r"seed (?P<seed>\d+)", N_("seed {seed}")),
    (r"untrained", N_("untrained")),
    (r"training", N_("training")),
    (r"(?P<count>\d+) steps to go", N_("{count} steps to go")),
    (r"diverged: the last good weights", N_("diverged: the last good weights")),
    (r"continued from (?P<name>.+)", N_("continued from {name}")),
))
# "trained on sort": whole phrases for the built-in data, so each language words and orders them
# (在排序任务上训练); a file's name goes through "trained on {data}" as written.
_TRAINED_ON = {"sort": N_("trained on the sort task"), "reverse": N_("trained on the reverse task"),
               "text": N_("trained on the Python docs text")}
# The shipped models by name ("shipped text model"): the whole phrase, so each language can order it.
_SHIPPED_NAMES = {"sort": N_("shipped sort model"), "reverse": N_("shipped reverse model"),
                  "text": N_("shipped text model")}
# "your model: sort, 800 steps": the data alone, first among the details
_DATA_ALONE = {"sort": N_("the sort task"), "reverse": N_("the reverse task"), "text": N_("the Python docs text")}
_YOUR_MODEL = "your model: "
_WITH_DETAILS = re.compile(r"(?P<name>[^()]+) \((?P<details>[^()]*)\)\Z")


def _piece(text: str) -> str:
    if text in _DATA_ALONE:
        return _(_DATA_ALONE[text])
    for pattern, template in _PIECES:
        match = pattern.match(text)
        if match:
            fields = match.groupdict()
            if template == "shipped {name} model" and fields["name"] in _SHIPPED_NAMES:
                return _(_SHIPPED_NAMES[fields["name"]])
            if template == "trained on {data}" and fields["data"] in _TRAINED_ON:
                return _(_TRAINED_ON[fields["data"]])
            fields = {key: _piece(value) if key == "name" else value for key, value in fields.items()}
            return _(template).format(**fields)
    return text


def _details(text: str) -> str:
    # TRANSLATORS: between the details of a weights label ("1500 steps, accuracy 100%")
    return _(", ").join(_piece(part) for part in text.split(", "))


def localized_label(label: str) -> str:
    """``label`` in the current language; the English label itself when English is on."""
    if current_language() == DEFAULT or not label:
        return label
    if label.startswith(_YOUR_MODEL):
        return _("your model: {details}").format(details=_details(label[len(_YOUR_MODEL):]))
    match = _WITH_DETAILS.match(label)
    if match:
        return _("{name} ({details})").format(name=_piece(match["name"]), details=_details(match["details"]))
    return _piece(label)


class LabelText(Message):
    """A weights label inside a message that is translated later (a lesson's unmet requirement):
    it reads as the English label and is put in the interface language when the message is shown."""

    def translated(self) -> str:
        return localized_label(str.__str__(self))
