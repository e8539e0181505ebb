"""SVG pictures of game states, shared by every game's ``picture.py``, and their rasterisation.

Each game draws one picture of its state with :class:`Svg` inside the same frame: a title
bar (game, phase, step), the game's own area on the left, a panel of players on the right
(score, hand size, whose turn, winners), the viewer's private hand below it and a caption
naming the last action. The frame has a fixed size per game, so frames of one game make a
video; content that can grow without bound (Monster Factory's monsters, MONSTArgh!'s table)
is scaled to fit its area with :func:`fit_transform`.

A picture is drawn for a *viewer*: a seat (that seat's hand shown, nothing hidden from it)
or ``None`` for the public view (nothing any seat hides). Rasterising (:func:`rasterize`)
needs the ``render`` extra (``resvg-py`` and Pillow); drawing SVG text needs nothing.
"""

import textwrap
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from html import escape
from pathlib import Path

import numpy as np

WIDTH = 960  # frame size in SVG units (= pixels at zoom 1)
HEIGHT = 600
TITLE_H = 34
CAPTION_H = 30
PANEL_W = 270  # the players' panel on the right
PANEL_LINE = 34  # characters of 12-px text that fit on one line of the panel
MARGIN = 8
# The game's own area: everything left of the panel, between the title and the caption.
AREA = (MARGIN, TITLE_H + MARGIN, WIDTH - PANEL_W - 3 * MARGIN, HEIGHT - TITLE_H - CAPTION_H - 2 * MARGIN)

SEAT_COLORS = ("#d64541", "#2e86de", "#27ae60", "#e67e22", "#8e44ad", "#16a085")
INK = "#222222"
MUTED = "#777777"
PAPER = "#fbf8f1"
HIGHLIGHT = "#ffcc00"  # the last action's cell, card or tile
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
RENDER_EXTRA = "pip install 'monster-zoo[render]'"


def seat_color(seat: int) -> str:
    """The colour of ``seat`` (pieces, panel swatch, chart line); grey for no seat."""
    return SEAT_COLORS[seat % len(SEAT_COLORS)] if seat >= 0 else "#999999"


def _attrs(**attrs) -> str:
    """SVG attributes from keywords (``stroke_width`` -> ``stroke-width``), skipping None."""
    return "".join(f' {k.replace("_", "-")}="{escape(str(v))}"' for k, v in attrs.items() if v is not None)


class Svg:
    """A small SVG builder: shapes and text appended in drawing order."""

    def __init__(self, width: int = WIDTH, height: int = HEIGHT, background: str | None = PAPER):
        self.width, self.height = width, height
        self.parts: list[str] = []
        if background is not None:
            self.rect(0, 0, width, height, fill=background)

    def rect(self, x, y, w, h, fill="none", stroke=None, stroke_width=None, rx=None, **extra) -> None:
        """A rectangle with its top-left corner at ``(x, y)``."""
        self.parts.append(
            f"<rect{_attrs(x=_n(x), y=_n(y), width=_n(w), height=_n(h), fill=fill, stroke=stroke, stroke_width=stroke_width, rx=rx, **extra)}/>"
        )

    def circle(self, cx, cy, r, fill="none", stroke=None, stroke_width=None, **extra) -> None:
        """A circle."""
        self.parts.append(
            f"<circle{_attrs(cx=_n(cx), cy=_n(cy), r=_n(r), fill=fill, stroke=stroke, stroke_width=stroke_width, **extra)}/>"
        )

    def polygon(
        self, points: Sequence[tuple[float, float]], fill="none", stroke=None, stroke_width=None, **extra
    ) -> None:
        """A closed polygon through ``points``."""
        pts = " ".join(f"{_n(x)},{_n(y)}" for x, y in points)
        self.parts.append(
            f"<polygon{_attrs(points=pts, fill=fill, stroke=stroke, stroke_width=stroke_width, **extra)}/>"
        )

    def polyline(self, points: Sequence[tuple[float, float]], stroke=INK, stroke_width=1, **extra) -> None:
        """An open line through ``points``."""
        pts = " ".join(f"{_n(x)},{_n(y)}" for x, y in points)
        self.parts.append(
            f"<polyline{_attrs(points=pts, fill='none', stroke=stroke, stroke_width=stroke_width, **extra)}/>"
        )

    def line(self, x1, y1, x2, y2, stroke=INK, stroke_width=1, **extra) -> None:
        """A straight line."""
        self.parts.append(
            f"<line{_attrs(x1=_n(x1), y1=_n(y1), x2=_n(x2), y2=_n(y2), stroke=stroke, stroke_width=stroke_width, **extra)}/>"
        )

    def text(self, x, y, content, size=13, fill=INK, anchor="start", weight=None, **extra) -> None:
        """Text with its baseline at ``y``; ``anchor`` is start, middle or end."""
        self.parts.append(
            f"<text{_attrs(x=_n(x), y=_n(y), font_size=size, fill=fill, text_anchor=anchor, font_weight=weight, **extra)}>"
            f"{escape(str(content))}</text>"
        )

    @contextmanager
    def group(self, transform: str | None = None):
        """Everything drawn inside the ``with`` block is one group (moved/scaled by ``transform``)."""
        self.parts.append(f"<g{_attrs(transform=transform)}>")
        yield self
        self.parts.append("</g>")

    def place(self, other: "Svg", transform: str) -> None:
        """Draw everything of ``other`` (drawn at its own scale, without background) here,
        moved and scaled by ``transform``: for content measured only once it is drawn."""
        with self.group(transform):
            self.parts.extend(other.parts)

    def to_string(self) -> str:
        """The finished SVG document."""
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
            f'viewBox="0 0 {self.width} {self.height}" font-family="{FONT}">'
        )
        return head + "".join(self.parts) + "</svg>"


def _n(value) -> str:
    """A coordinate with at most two decimals (keeps the SVG small)."""
    v = round(float(value), 2)
    return str(int(v)) if v == int(v) else str(v)


@dataclass
class PlayerRow:
    """One seat in the players' panel."""

    seat: int
    score: str  # e.g. "12 points"
    detail: str = ""  # e.g. "hand 4 · towers 1"
    on_move: bool = False
    winner: bool = False


@dataclass
class LastAction:
    """The action that led to the drawn state: who took it, its index (-1 where the viewer
    does not know which action it was) and its name as the viewer may know it (each game's
    ``describe_action``). Games highlight what the action touched only when it is known."""

    seat: int
    action: int
    name: str


def frame(title: str, status: str) -> Svg:
    """A new picture with the title bar drawn: the game's ``title`` and its ``status`` line."""
    svg = Svg()
    svg.rect(0, 0, WIDTH, TITLE_H, fill="#3b3054")
    svg.text(MARGIN + 4, 23, title, size=17, fill="#ffffff", weight="bold")
    svg.text(WIDTH - MARGIN - 4, 22, status, size=13, fill="#e8e0ff", anchor="end")
    return svg


def viewer_label(viewer: int | None) -> str:
    """``public view`` or ``player_2's view``."""
    return "public view" if viewer is None else f"player_{viewer}'s view"


def players_panel(
    svg: Svg,
    rows: Sequence[PlayerRow],
    viewer: int | None,
    private: Sequence[str] = (),
    notes: Sequence[str] = (),
) -> None:
    """The right-hand panel: one row per seat, then what only ``viewer`` sees (``private``
    lines) and public ``notes`` (deck sizes and the like)."""
    x = WIDTH - PANEL_W - MARGIN
    y = TITLE_H + MARGIN
    svg.rect(x, y, PANEL_W, HEIGHT - TITLE_H - CAPTION_H - 2 * MARGIN, fill="#ffffff", stroke="#d8d2c4", rx=6)
    svg.text(x + 10, y + 20, viewer_label(viewer), size=12, fill=MUTED)
    y += 30
    for row in rows:
        lines = wrap_parts([row.score, *row.detail.split(" · ")] if row.detail else [row.score])
        height = 26 + 15 * len(lines)
        if row.on_move:
            svg.rect(x + 4, y - 2, PANEL_W - 8, height - 2, fill="#fff4c2", rx=4)
        svg.rect(x + 10, y + 4, 14, 14, fill=seat_color(row.seat), rx=3)
        name = f"player_{row.seat}" + (" (you)" if viewer == row.seat else "")
        svg.text(x + 30, y + 16, name, size=14, weight="bold")
        marks = ("▶ on move " if row.on_move else "") + ("★ winner" if row.winner else "")
        svg.text(x + PANEL_W - 10, y + 16, marks.strip(), size=11, fill="#a05a00", anchor="end")
        for k, line in enumerate(lines):
            svg.text(x + 30, y + 33 + 15 * k, line, size=12, fill=INK)
        y += height
    y += 6
    for title, lines in (("you see", private), ("table", notes)):
        if not lines:
            continue
        svg.text(x + 10, y + 12, title, size=11, fill=MUTED)
        y += 16
        for line in [chunk for text in lines for chunk in textwrap.wrap(text, PANEL_LINE + 4)]:
            svg.text(x + 10, y + 12, line, size=12)
            y += 17
        y += 6


def wrap_parts(parts: Sequence[str], width: int = PANEL_LINE) -> list[str]:
    """Join ``parts`` with `` · `` into lines of at most ``width`` characters; a part too long
    for one line is broken at its spaces."""
    lines: list[str] = []
    for part in parts:
        first, *rest = textwrap.wrap(part, width) or [""]
        if lines and len(lines[-1]) + 3 + len(first) <= width:
            lines[-1] += " · " + first
        else:
            lines.append(first)
        lines += rest
    return lines


def caption(svg: Svg, last: LastAction | None) -> None:
    """The bottom line: the last action by name, in its seat's colour."""
    y = HEIGHT - CAPTION_H
    svg.rect(0, y, WIDTH, CAPTION_H, fill="#efe9dc")
    if last is None:
        svg.text(MARGIN + 4, y + 20, "no action yet", size=13, fill=MUTED)
        return
    svg.rect(MARGIN + 4, y + 8, 14, 14, fill=seat_color(last.seat), rx=3)
    svg.text(MARGIN + 24, y + 20, f"last action: player_{last.seat}: {last.name}", size=13)


def fit_transform(
    bbox: tuple[float, float, float, float],
    box: tuple[float, float, float, float] = AREA,
    max_scale: float = 1.0,
) -> str:
    """An SVG transform putting content spanning ``bbox`` (x, y, w, h) centred inside ``box``,
    scaled down (never up beyond ``max_scale``) so that it fits however large it grew."""
    bx, by, bw, bh = bbox
    x, y, w, h = box
    scale = min(max_scale, w / max(bw, 1e-9), h / max(bh, 1e-9))
    dx = x + (w - bw * scale) / 2 - bx * scale
    dy = y + (h - bh * scale) / 2 - by * scale
    return f"translate({_n(dx)} {_n(dy)}) scale({round(scale, 4)})"


def hexagon(cx: float, cy: float, size: float) -> list[tuple[float, float]]:
    """Corners of a pointy-top hexagon of circumradius ``size`` centred on ``(cx, cy)``."""
    angles = np.deg2rad(np.arange(6) * 60 - 30)
    return [(cx + size * float(np.cos(a)), cy + size * float(np.sin(a))) for a in angles]


# --- rasterising: the render extra ---------------------------------------------------------
def _font_files() -> list[str]:
    """DejaVu Sans (regular and bold) from matplotlib's data when it is installed (the eval,
    train and bench extras): then the pictures use these fonts alone and come out the same on
    every machine, and resvg skips scanning the system's fonts. Without matplotlib, resvg uses
    the system's fonts (and draws no text where there are none)."""
    import importlib.util

    spec = importlib.util.find_spec("matplotlib")
    if spec is None or not spec.submodule_search_locations:
        return []
    ttf = Path(list(spec.submodule_search_locations)[0]) / "mpl-data" / "fonts" / "ttf"
    fonts = [ttf / "DejaVuSans.ttf", ttf / "DejaVuSans-Bold.ttf"]
    return [str(p) for p in fonts] if all(p.exists() for p in fonts) else []


_FONTS: list[str] | None = None


def svg_to_png(svg: str, zoom: float = 1.0) -> bytes:
    """PNG bytes of ``svg`` rendered by resvg (the ``render`` extra)."""
    global _FONTS
    try:
        import resvg_py
    except ImportError as err:
        raise ImportError(f"rendering pictures needs the render extra: {RENDER_EXTRA}") from err
    if _FONTS is None:
        _FONTS = _font_files()
    return bytes(
        resvg_py.svg_to_bytes(
            svg_string=svg,
            zoom=zoom,
            background=PAPER,
            font_files=_FONTS or None,
            skip_system_fonts=bool(_FONTS),
        )
    )


def png_to_array(png: bytes) -> np.ndarray:
    """An ``H x W x 3`` ``uint8`` array of PNG bytes (Pillow, the ``render`` extra)."""
    try:
        from PIL import Image
    except ImportError as err:
        raise ImportError(f"rendering pictures needs the render extra: {RENDER_EXTRA}") from err
    import io

    with Image.open(io.BytesIO(png)) as image:
        return np.asarray(image.convert("RGB"), dtype=np.uint8).copy()


def rasterize(svg: str, zoom: float = 1.0) -> np.ndarray:
    """``svg`` as an ``H x W x 3`` ``uint8`` RGB array (what ``render_mode="rgb_array"`` returns)."""
    return png_to_array(svg_to_png(svg, zoom))
