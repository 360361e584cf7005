"""The roadmap: tracks in teaching order, their lessons, and any lesson file that is broken."""
from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Header, Static, Tree

from tutor.common.i18n import N_, _
from tutor.ui.footer import Footer
from tutor.ui.localize import localize_bindings

from tutor.course.catalog import Catalog
from tutor.ui.progress_labels import Snapshot, lesson_label_parts, review_label, stats_label, track_label

REVIEW, STATS = "@review", "@stats"   # tree data of the journey entries; no lesson id starts with "@"


class RoadmapTree(Tree):
    """A lesson's line that is wider than the tree ends its title in "…", not its score.

    At 80 columns a long title pushed "· 50% first time" off the right edge, the one part of the
    line that says how the learner did.  Shortened as it is drawn, so a resize refits it.
    """

    def __init__(self, label: str, *, id: str | None = None) -> None:
        super().__init__(label, id=id)
        self.parts: dict = {}        # node id -> (head, title, tail) of a lesson's line

    def set_lesson_label(self, node, parts: tuple[str, str, str]) -> None:
        self.parts[node.id] = parts
        node.set_label(Text("".join(parts)))   # Text, not str: a str label is parsed as markup, titles are untrusted

    def clear(self):
        self.parts.clear()
        return super().clear()

    def render_label(self, node, base_style, style) -> Text:
        text = super().render_label(node, base_style, style)
        parts = self.parts.get(node.id)
        depth, parent = 0, node.parent
        while parent is not None:
            depth, parent = depth + 1, parent.parent
        shown = depth if self.show_root else depth - 1      # levels of guides drawn before the label
        room = self.scrollable_content_region.width - shown * self.guide_depth
        if parts is None or text.cell_len <= room:
            return text
        head, title, tail = parts
        short = Text(title)
        short.truncate(max(1, room - cell_len(head) - cell_len(tail)), overflow="ellipsis")
        fitted = Text(head + short.plain + tail)
        fitted.stylize(style)
        return fitted


class RoadmapScreen(Screen):
    # Textual's light-mode guides are $surface-darken-1, one shade from the background (250 on
    # 251): the tree's connectors vanished.  Half the text colour reads in both modes.
    DEFAULT_CSS = """
    #roadmap-status { padding: 0 1; color: $text-muted; }
    #roadmap-tree { height: 1fr; padding: 0 1; }
    RoadmapScreen #roadmap-tree:light > .tree--guides { color: $foreground 45%; }
    RoadmapScreen #roadmap-tree:light > .tree--guides-hover { color: $foreground 60%; }
    RoadmapScreen #roadmap-tree:light > .tree--guides-selected { color: $foreground 75%; }
    """
    review_tick_seconds = 15.0   # how often the Review entry's due count and countdown are brought up to date
    BINDINGS = [
        Binding("enter", "open_lesson", N_("Open lesson"), show=True),
        Binding("r", "app.open_review", N_("Review")),
        Binding("s", "app.open_stats", N_("Stats")),
        Binding("d", "app.dashboard", N_("Dashboard"), show=False),   # the footer already shows F3
        Binding("q", "app.quit", N_("Quit")),
    ]

    def __init__(self, catalog: Catalog) -> None:
        super().__init__()
        localize_bindings(self)
        self.catalog = catalog
        self.snapshot = Snapshot()
        self._track_nodes = {}
        self._wanted = None   # the entry the cursor is about to move to (its data), until the tree is laid out
        self._labels_fresh = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self._status_line(), id="roadmap-status", markup=False)
        yield RoadmapTree(_("Roadmap"), id="roadmap-tree")
        yield Footer()

    def _status_line(self) -> str:
        count = len(self.catalog.lessons)
        saving = "" if getattr(self.app, "store", None) is not None else _(" · progress is NOT being saved")
        return _("{lessons} lessons in {tracks} tracks · Enter opens a lesson · ? help").format(
            lessons=count, tracks=len(self.catalog.index.tracks)) + saving

    def on_mount(self) -> None:
        tree = self.query_one(RoadmapTree)
        tree.show_root = False
        tree.guide_depth = 3
        self._fill_tree(tree)
        tree.focus()
        self.move_cursor_to(self._start_node(tree).data)
        self.app.lessons_signal.subscribe(self, self.lessons_changed, immediate=True)
        self.set_interval(self.review_tick_seconds, self.review_tick)

    def review_tick(self) -> None:
        """Cards fall due with time alone: "next in 2 min" counts down, then becomes "1 due".
        The database is read only when a card's due time has passed; other ticks only relabel."""
        if self.snapshot.next_due is not None and self.snapshot.next_due <= self.app.clock():
            self.refresh_progress()
            return
        for node in self.query_one(RoadmapTree).root.children:
            if node.data == REVIEW:
                label = review_label(self.snapshot, self.app.clock())
                if str(node.label) != label:
                    node.set_label(Text(label))

    def lessons_changed(self, reloads) -> None:
        """Hot reload: rebuild the tree from the catalog, keeping the cursor on the same lesson."""
        tree = self.query_one(RoadmapTree)
        selected = self._wanted or (tree.cursor_node.data if tree.cursor_node is not None else None)
        tree.clear()
        self._fill_tree(tree)
        self.query_one("#roadmap-status", Static).update(self._status_line())
        if selected:
            self.move_cursor_to(selected)

    def move_cursor_to(self, data) -> None:
        """The cursor goes to the entry with this data (a lesson id, Review) as the tree is once laid
        out.  By id, not by node: a node kept across a rebuild would put the cursor on whatever entry
        now has its line, so a lesson of one's own appearing above it made Enter open another lesson."""
        self._wanted = data
        self.call_after_refresh(self._settle_cursor)

    def _settle_cursor(self) -> None:
        data, self._wanted = self._wanted, None
        tree = self.query_one(RoadmapTree)
        nodes = [*tree.root.children, *(n for track in tree.root.children for n in track.children)]
        node = next((n for n in nodes if data is not None and n.data == data), None)
        if node is not None:
            tree.move_cursor(node)

    def _fill_tree(self, tree: RoadmapTree) -> None:
        self.snapshot = self.app.progress_snapshot()
        # the next resume need not read them again: the first one did, a second snapshot and 70
        # relabels before the first paint (a suspend in between makes them stale)
        self._labels_fresh = True
        now = self.app.clock()
        tree.root.add_leaf(Text(review_label(self.snapshot, now)), data=REVIEW)
        tree.root.add_leaf(Text(stats_label(self.snapshot)), data=STATS)
        self._track_nodes = {}
        for track in self.catalog.index.tracks:
            items = self.catalog.track_lessons(track.id)
            # Text, not str: a str label is parsed as markup, and titles are untrusted
            node = tree.root.add(Text(track_label(track.title, len(items), self.snapshot.tracks.get(track.id))),
                                 data=None, expand=True)
            self._track_nodes[track.id] = node
            if not items:
                node.add_leaf(_("no lessons yet"), data=None)
            for item in items:
                tree.set_lesson_label(node.add_leaf("", data=item.lesson.id),
                                      lesson_label_parts(item, self.snapshot.lessons.get(item.lesson.id)))
        problems = [(b.path, b.problems) for b in self.catalog.broken]
        problems += [(p.path, [p]) for p in self.catalog.problems]
        if problems:
            node = tree.root.add(Text(_("Lesson files with problems ({count})").format(count=len(problems))),
                                 expand=True)
            for path, items in problems:
                node.add_leaf(Text(str(items[0])[:200]), data=None)

    def action_open_lesson(self) -> None:
        node = self.query_one(RoadmapTree).cursor_node
        if self._wanted is not None or node is not None:
            self._activate(self._wanted if self._wanted is not None else node.data)

    def on_tree_node_selected(self, event: Tree.NodeSelected) -> None:
        # a key pressed before the cursor reached the entry it is moving to (Enter at the first
        # paint) is meant for that entry, not for the line the cursor starts on
        self._activate(self._wanted if self._wanted is not None else event.node.data)

    def _activate(self, data) -> None:
        if data == REVIEW:
            self.app.action_open_review()
        elif data == STATS:
            self.app.action_open_stats()
        elif data:
            self.app.open_lesson(data)

    def _start_node(self, tree: RoadmapTree):
        """Review when something is due, else the first lesson not yet done, else the first lesson."""
        lessons = [n for track in tree.root.children for n in track.children if n.data]
        if self.snapshot.due or not lessons:
            return tree.root.children[0]

        def finished(node) -> bool:
            stats = self.snapshot.lessons.get(node.data)
            return stats is not None and {q.id for q in self.catalog.get(node.data).lesson.questions} \
                <= stats.finished

        return next((n for n in lessons if not finished(n)), lessons[0])

    def on_screen_resume(self) -> None:
        self.follow_catalog()
        if self._labels_fresh:   # filled since the screen was last covered: the labels are today's
            self._labels_fresh = False
            return
        self.refresh_progress()

    def on_screen_suspend(self) -> None:
        self._labels_fresh = False   # a lesson or review on top may change every label

    def follow_catalog(self) -> None:
        """After a language switch the app has a new catalog: rebuild in it, the cursor kept."""
        if self.catalog is not self.app.catalog:
            self.catalog = self.app.catalog
            localize_bindings(self)
            self.lessons_changed([])
            self.refresh_bindings()

    def refresh_progress(self) -> None:
        """Relabel in place after a lesson or review: the cursor and open tracks stay put."""
        tree = self.query_one(RoadmapTree)
        self.snapshot = self.app.progress_snapshot()
        for node in tree.root.children:
            if node.data == REVIEW:
                node.set_label(Text(review_label(self.snapshot, self.app.clock())))
            elif node.data == STATS:
                node.set_label(Text(stats_label(self.snapshot)))
        for track in self.catalog.index.tracks:
            node = self._track_nodes.get(track.id)
            if node is None:
                continue
            items = self.catalog.track_lessons(track.id)
            node.set_label(Text(track_label(track.title, len(items), self.snapshot.tracks.get(track.id))))
            for leaf in node.children:
                item = self.catalog.get(leaf.data) if leaf.data else None
                if item is not None:
                    tree.set_lesson_label(leaf, lesson_label_parts(item, self.snapshot.lessons.get(item.lesson.id)))
