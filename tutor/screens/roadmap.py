"""The roadmap: tracks in teaching order, their lessons, and any lesson file that is broken."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, Static, Tree

from ..catalog import Catalog


class RoadmapScreen(Screen):
    BINDINGS = [
        Binding("enter", "open_lesson", "Open lesson", show=True),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, catalog: Catalog) -> None:
        super().__init__()
        self.catalog = catalog

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self._status_line(), id="roadmap-status", markup=False)
        yield Tree("Roadmap", id="roadmap-tree")
        yield Footer()

    def _status_line(self) -> str:
        count = len(self.catalog.lessons)
        return f"{count} lessons in {len(self.catalog.index.tracks)} tracks · Enter opens a lesson · q quits"

    def on_mount(self) -> None:
        tree = self.query_one(Tree)
        tree.show_root = False
        tree.guide_depth = 3
        for track in self.catalog.index.tracks:
            items = self.catalog.track_lessons(track.id)
            node = tree.root.add(f"{track.title} ({len(items)})", data=None, expand=True)
            if not items:
                node.add_leaf("no lessons yet", data=None)
            for item in items:
                node.add_leaf(item.lesson.title, data=item.lesson.id)
        problems = [(b.path, b.problems) for b in self.catalog.broken]
        problems += [(p.path, [p]) for p in self.catalog.problems]
        if problems:
            node = tree.root.add(f"Lesson files with problems ({len(problems)})", expand=True)
            for path, items in problems:
                node.add_leaf(f"{path}: {items[0].message}"[:200], data=None)
        tree.focus()
        first = next((n for n in tree.root.children if n.children), None)
        if first is not None and first.children:
            self.call_after_refresh(tree.move_cursor, first.children[0])

    def action_open_lesson(self) -> None:
        node = self.query_one(Tree).cursor_node
        if node is not None and node.data:
            self.app.open_lesson(node.data)

    def on_tree_node_selected(self, event: Tree.NodeSelected) -> None:
        if event.node.data:
            self.app.open_lesson(event.node.data)
