"""The roadmap covers the curriculum: every concept id in lessons/index.yaml is taught by a lesson,
and no lesson names a concept the index does not know."""
from tutor.course.catalog import load_catalog, load_index

INDEX = load_index()
CATALOG = load_catalog()
LESSONS = [item.lesson for item in CATALOG.lessons.values() if item.builtin]


def test_the_index_lists_concepts_for_every_track():
    tracks = {track.id for track in INDEX.tracks}
    assert INDEX.concepts, "lessons/index.yaml lists no concepts"
    prefixes = {concept.split(".", 1)[0] for concept in INDEX.concepts}
    assert prefixes == tracks, f"concept prefixes {sorted(prefixes)} do not match the tracks {sorted(tracks)}"


def test_every_lesson_names_only_known_concepts():
    unknown = {lesson.id: sorted(set(lesson.concepts) - set(INDEX.concepts)) for lesson in LESSONS}
    unknown = {lesson_id: ids for lesson_id, ids in unknown.items() if ids}
    assert not unknown, f"lessons name concepts that lessons/index.yaml does not list: {unknown}"


def test_every_concept_has_a_lesson():
    taught = {concept for lesson in LESSONS for concept in lesson.concepts}
    missing = sorted(set(INDEX.concepts) - taught)
    assert not missing, f"{len(missing)} of {len(INDEX.concepts)} concepts have no lesson yet: {', '.join(missing)}"


# Issue 13's deeper curriculum: each new concept, the lesson that teaches it, and where it sits.
DEEPER = {
    "pr.padding-mask": "pr-padding-mask",
    "pr.softmax-saturation": "pr-scale-saturation",
    "la.contextual-embeddings": "la-contextual-embeddings",
    "nu.grad-clipping": "nu-grad-clipping",
    "nu.mixed-precision": "nu-mixed-precision",
    "ca.dynamic-graph": "ca-dynamic-graphs",
    "op.curvature": "op-curvature",
    "it.kl-penalty": "it-kl-penalty",
    "pr.label-smoothing": "pr-label-smoothing",
    "nu.shape-walkthrough": "nu-shape-walkthrough",
    "de.comparison": "de-decoding-comparison",
}


def test_the_deeper_concepts_are_listed_and_taught_by_their_lessons():
    by_id = {lesson.id: lesson for lesson in LESSONS}
    for concept, lesson_id in DEEPER.items():
        assert concept in INDEX.concepts, f"{concept} is missing from lessons/index.yaml"
        assert lesson_id in by_id, f"no lesson {lesson_id}"
        assert concept in by_id[lesson_id].concepts, f"{lesson_id} does not name {concept}"


def test_the_new_lessons_read_live_tensors_from_experiments():
    """Each new lesson runs an experiment on the model (or, the capstone, probes of the model itself)."""
    by_id = {lesson.id: lesson for lesson in LESSONS}
    for lesson_id in set(DEEPER.values()) - {"nu-shape-walkthrough"}:
        assert by_id[lesson_id].model.experiments, f"{lesson_id} runs no experiment"


def test_the_shape_walkthrough_closes_the_first_track_before_any_table():
    lesson = {lesson.id: lesson for lesson in LESSONS}["nu-shape-walkthrough"]
    first_track = INDEX.tracks[0].id
    assert lesson.track == first_track
    in_track = sorted((other.position, other.id) for other in LESSONS if other.track == first_track)
    assert in_track[-1][1] == lesson.id, "the capstone comes last in the first track"
    assert "(B, H, L, L)" not in lesson.explanation, "the explanation must not give the shapes it asks for"
    # the walk's shapes are already in its prerequisites' reveals, so the steps ask what each step does
    # to the numbers (counts, a mixed value) and only the last asks a shape; its reveal lays out the table
    assert len(lesson.questions) >= 5
    assert [q.kind for q in lesson.questions].count("symbolic_shape") + [q.kind for q in lesson.questions].count("shape") == 1
    assert "(B, H, L, L)" in lesson.questions[-1].reveal


def test_prerequisites_come_earlier_in_the_roadmap():
    order = {item.lesson.id: index for index, item in enumerate(CATALOG.ordered()) if item.builtin}
    late = [(lesson.id, pre) for lesson in LESSONS for pre in lesson.prerequisites if order[pre] > order[lesson.id]]
    new = set(DEEPER.values())
    assert not [pair for pair in late if pair[0] in new], f"prerequisites after the lesson: {late}"


def test_at_least_fifteen_lessons_draw_new_sizes():
    varied = sorted(lesson.id for lesson in LESSONS if lesson.model.vary)
    assert len(varied) >= 15, f"only {len(varied)} lessons vary their sizes: {varied}"
