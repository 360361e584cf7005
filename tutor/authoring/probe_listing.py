"""Every name a lesson may read, with its shape in symbols, generated from the running code.

Authors need the valid probe names, ``params.*`` weights and experiment tensors; a list typed
into the docs would drift from the model, so ``tutor lessons probes`` builds it by running a
tiny model twice with two sets of sizes and reading each axis back as a symbol: an axis that
follows L in both runs is L, an axis that stays put is a constant of the experiment.
"""
from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len

from tutor.common.i18n import M_, N_, _, message_of, translated
from tutor.common.wide_wrap import hanging_lines

# two runs whose sizes are all different numbers, so each axis length names one size
RUNS = (
    {"B": 2, "L": 5, "H": 3, "D": 12, "rows": ["01234", "56789"]},
    {"B": 3, "L": 7, "H": 2, "D": 10, "rows": ["0123456", "7890123", "4567890"]},
)


@dataclass(frozen=True)
class Entry:
    name: str
    shape: str          # e.g. "(B, H, L, L)"
    kind: str           # "probe", "param", "experiment" (a tensor) or "experiment-name"
    description: str    # English; a Message (here, model/'s or an experiment's) is translated by render()


def _symbols(run: dict, sizes: dict[str, int]) -> dict[str, int]:
    d, h, length = run["D"], run["H"], run["L"]
    return {"B": run["B"], "L": length, "H": h, "D": d, "D_head": d // h, "4D": 4 * d, "V": sizes["V"],
            "T": sizes["T"], "L-1": length - 1, "D/2": d // 2}


def _symbolic(first: tuple, second: tuple, symbols: tuple[dict, dict]) -> str:
    if len(first) != len(second):
        return M_("{shape} (the number of axes depends on the sizes)", shape=str(first))
    parts = []
    for a, b in zip(first, second):
        name = next((n for n in symbols[0] if symbols[0][n] == a and symbols[1][n] == b), None)
        parts.append(name or (str(a) if a == b else f"{a}~"))
    return f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"


def _lesson(run: dict, experiments: list[str]):
    from tutor.course.schema import Lesson

    return Lesson.model_validate({
        "format_version": 1, "id": "probe-listing", "title": "probes", "track": "la", "position": 0,
        "concepts": ["la.tensors"], "explanation": "-", "probes": ["embed"],
        "formula": {"expr": "x", "translation": "-"},
        "model": {"weights": "random", "text": run["rows"], "d_model": run["D"], "n_head": run["H"],
                  "n_layer": 1, "experiments": experiments},
        "questions": [{"id": "q", "kind": "shape", "prompt": "-", "probe": "embed"}],
    })


def listing(run_experiments: bool = False) -> list[Entry]:
    """Entries in forward order; experiment tensors only when ``run_experiments`` (slower)."""
    from tutor.course.placeholders import VOCABULARY
    from tutor.model import describe_probe

    from tutor.experiments import DESCRIPTIONS, EXPERIMENTS
    from tutor.live.compute import compute_live
    from tutor.live.hub import ModelHub

    hub = ModelHub()
    base = [compute_live(_lesson(run, []), hub) for run in RUNS]
    symbols = tuple(_symbols(run, live.sizes) for run, live in zip(RUNS, base))
    entries = []
    for name, array in base[0].tensors.items():
        shape = _symbolic(array.shape, base[1].tensors[name].shape, symbols)
        if name.startswith("params."):
            entries.append(Entry(name, shape, "param", _param_description(name)))
        elif name == VOCABULARY:
            entries.append(Entry(name, shape, "probe",
                                 M_("the vocabulary, one code point per token id ('| token' reads it)")))
        else:
            entries.append(Entry(name, shape, "probe", describe_probe(name)))
    for experiment in sorted(EXPERIMENTS):   # one at a time: the schema allows 8 per lesson
        entries.append(Entry(experiment, "", "experiment-name", DESCRIPTIONS[experiment]))
        if run_experiments:
            entries += _experiment_entries(experiment, hub, base[0].tensors, symbols)
    return entries


def _experiment_entries(experiment: str, hub, known: dict, symbols) -> list[Entry]:
    from tutor.live.compute import compute_live

    try:
        runs = [compute_live(_lesson(run, [experiment]), hub).tensors for run in RUNS]
    except Exception as error:   # an experiment that needs other sizes is still listed by name
        return [Entry(f"{experiment}.*", "", "experiment",
                      M_("(not run at these sizes: {error})", error=message_of(error)))]
    return [Entry(name, _symbolic(array.shape, runs[1][name].shape, symbols), "experiment",
                  M_("from experiment {name!r}", name=experiment))
            for name, array in runs[0].items() if name not in known and name in runs[1]]


def _param_description(name: str) -> str:
    leaf = name.rsplit(".", 1)[-1]
    if leaf == "W_U":
        return M_("unembedding matrix, (in, out): turns the final LayerNorm's output into logits")
    if leaf == "W_E":
        return M_("token embedding table, one row per token id")
    if leaf == "W_pos":
        return M_("position embedding table, one row per position")
    if leaf.startswith("W_"):
        return M_("weight matrix, stored (in, out) so that formulas read x @ W")
    if leaf.startswith("b_"):
        return M_("bias vector")
    return {"gamma": M_("LayerNorm gain"), "beta": M_("LayerNorm shift")}.get(leaf, "")


def trained_sizes() -> str:
    """One line on the shipped checkpoint's sizes, or why it cannot be read."""
    try:
        from tutor.live.hub import ModelHub

        hub = ModelHub()
        hub.ensure_loaded()
        c = hub.model.config
        return _("weights: trained uses D={d}, H={h}, D_head={d_head}, {n} layers (blocks.0 .. blocks.{last}), "
                 "V={v}, T={t}, positions {positions}").format(
            d=c.d_model, h=c.n_head, d_head=c.d_model // c.n_head, n=c.n_layer, last=c.n_layer - 1,
            v=c.vocab_size, t=c.block_size, positions=c.positions)
    except Exception as error:   # a missing checkpoint is information here, not a failure
        return _("weights: trained is unavailable: {error}").format(error=error)


def render(entries: list[Entry], width: int | None = None) -> str:
    """The listing in the current language, columns padded by terminal cells (a CJK character takes
    two), so that a translated shape note still lines the descriptions up.  With ``width`` (a
    terminal's), a description runs on under its own column instead of wrapping back to column 0,
    and Chinese breaks between characters (``wide_wrap``), where it has no spaces to break at."""
    lines = []
    titles = {"probe": N_("Probes (activations of the forward pass)"), "param": N_("Weights (params.*)"),
              "experiment-name": N_("Experiments (name them under model.experiments)"),
              "experiment": N_("Experiment tensors")}
    for kind, title in titles.items():
        title = _(title)
        group = [e for e in entries if e.kind == kind]
        if not group:
            continue
        lines += ["", title]
        shapes = [translated(e.shape) for e in group]
        name_width = max(cell_len(e.name) for e in group) + 2
        shape_width = max(cell_len(shape) for shape in shapes) + 2
        for e, shape in zip(group, shapes):
            start = f"  {_padded(e.name, name_width)}{_padded(shape, shape_width)}"
            lines += hanging_lines(start, translated(e.description), width)
    return "\n".join(lines).lstrip("\n")


def fit(text: str, width: int | None) -> str:
    """Prose the command prints around the listing, each line broken to ``width`` cells the same way."""
    return "\n".join(line for paragraph in text.split("\n") for line in hanging_lines("", paragraph, width))


def _padded(text: str, cells: int) -> str:
    return text + " " * max(0, cells - cell_len(text))
