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
