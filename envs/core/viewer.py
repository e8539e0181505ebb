"""The replay viewer: one self-contained HTML page (no network, no server) for a replayed game.

The page holds every step's picture for every view (the public view and each seat's),
step/back/play controls with keyboard arrows (left/right step, space plays, Home/End
jump), the action taken at each step named as the chosen view knew it, and a chart of the
public scores over time. The address names the step shown (``replay.html#step=40``): the page
opens at the step its address names and keeps the address up to date as the user steps, so
a link to a moment of the game can be shared. Pictures that two views or two steps share are stored once, and all
of them travel gzip-compressed (base64), unpacked by the browser's own DecompressionStream:
consecutive pictures differ little, so a game of a few hundred steps stays a few hundred KB.
"""

import base64
import gzip
import json
from collections.abc import Sequence

from .escaping import html_text
from .picture import INK, MUTED, Svg, seat_color

CHART_W, CHART_H, CHART_PAD = 900, 170, 34

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>
body { font-family: "DejaVu Sans", Verdana, Arial, sans-serif; margin: 16px; background: #f4f1ea; color: #222; }
h1 { font-size: 20px; margin: 0 0 6px 0; }
.meta { color: #666; font-size: 13px; margin-bottom: 10px; }
.bar { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin: 8px 0; }
button { font-size: 15px; padding: 4px 12px; }
#picture svg { max-width: 100%; height: auto; border: 1px solid #ccc; background: #fff; }
#action { font-weight: bold; }
.note { color: #666; font-size: 12px; max-width: 960px; }
</style></head>
<body>
<h1>__TITLE__</h1>
<div class="meta">__META__</div>
<div class="bar">
  <button id="first" title="first step (Home)">&#8676;</button>
  <button id="back" title="step back (left arrow)">&#9664; back</button>
  <button id="play" title="play / pause (space)">play</button>
  <button id="step" title="step forward (right arrow)">step &#9654;</button>
  <button id="last" title="last step (End)">&#8677;</button>
  <span id="counter"></span>
  <label>view: <select id="view"></select></label>
</div>
<div class="bar">action: <span id="action"></span></div>
<div id="picture"></div>
<div id="chart">__CHART__</div>
<p class="note">__NOTE__</p>
<script>
const DATA = __DATA__;
const N = DATA.steps;
async function unpack(b64) {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}
// the step named in the address (#step=40), within the game; the start otherwise
function stepOfAddress() {
  const named = /^#step=(\\d+)$/.exec(location.hash);
  return named ? Math.min(N, parseInt(named[1], 10)) : 0;
}
let step = stepOfAddress(), timer = null;
const $ = (id) => document.getElementById(id);
for (const v of DATA.views) {
  const o = document.createElement("option"); o.value = v; o.textContent = v; $("view").appendChild(o);
}
function show() {
  const view = $("view").value;
  $("picture").innerHTML = DATA.pictures[DATA.frames[view][step]];
  $("counter").textContent = "step " + step + " / " + N;
  $("action").textContent = step === 0 ? "(start of the game)" : DATA.actions[view][step - 1];
  const marker = $("marker");
  if (marker) { const x = DATA.chart_x[step]; marker.setAttribute("x1", x); marker.setAttribute("x2", x); }
}
function go(k) {
  step = Math.max(0, Math.min(N, k));
  // replaceState, not location.hash: stepping through a game must not fill the back button's history
  if (location.hash !== "#step=" + step) history.replaceState(null, "", "#step=" + step);
  show();
  if (step === N) stop();
}
function stop() { if (timer) { clearInterval(timer); timer = null; } $("play").textContent = "play"; }
function play() {
  if (timer) { stop(); return; }
  if (step === N) step = 0;
  $("play").textContent = "pause";
  timer = setInterval(() => go(step + 1), 1000 / DATA.fps);
}
$("first").onclick = () => { stop(); go(0); };
$("back").onclick = () => { stop(); go(step - 1); };
$("step").onclick = () => { stop(); go(step + 1); };
$("last").onclick = () => { stop(); go(N); };
$("play").onclick = play;
$("view").onchange = show;
window.addEventListener("hashchange", () => { stop(); go(stepOfAddress()); });
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "SELECT") return;
  if (e.key === "ArrowRight") { stop(); go(step + 1); }
  else if (e.key === "ArrowLeft") { stop(); go(step - 1); }
  else if (e.key === "Home") { stop(); go(0); }
  else if (e.key === "End") { stop(); go(N); }
  else if (e.key === " ") { e.preventDefault(); play(); }
});
unpack(DATA.packed).then((pictures) => { DATA.pictures = pictures; show(); });
</script>
</body></html>
"""


def score_chart(scores: Sequence[Sequence[int]], label: str) -> tuple[str, list[float]]:
    """An SVG line chart of ``scores[step][seat]`` and the x of every step (for the marker)."""
    steps = len(scores)
    seats = len(scores[0]) if steps else 0
    top = max([max(row) for row in scores] + [1])
    low = min([min(row) for row in scores] + [0])
    span_x = CHART_W - 2 * CHART_PAD
    span_y = CHART_H - 2 * CHART_PAD

    def xy(i, v):
        return (
            CHART_PAD + span_x * i / max(steps - 1, 1),
            CHART_H - CHART_PAD - span_y * (v - low) / (top - low),
        )

    svg = Svg(CHART_W, CHART_H, background="#ffffff")
    svg.line(CHART_PAD, CHART_H - CHART_PAD, CHART_W - CHART_PAD, CHART_H - CHART_PAD, stroke=MUTED)
    svg.line(CHART_PAD, CHART_PAD, CHART_PAD, CHART_H - CHART_PAD, stroke=MUTED)
    svg.text(CHART_PAD, 18, f"{label} over time", size=13, fill=INK)
    svg.text(CHART_PAD - 4, CHART_PAD + 4, str(top), size=10, fill=MUTED, anchor="end")
    svg.text(CHART_PAD - 4, CHART_H - CHART_PAD + 4, str(low), size=10, fill=MUTED, anchor="end")
    svg.text(CHART_W - CHART_PAD, CHART_H - 10, f"step {steps - 1}", size=10, fill=MUTED, anchor="end")
    for p in range(seats):
        svg.polyline([xy(i, row[p]) for i, row in enumerate(scores)], stroke=seat_color(p), stroke_width=2)
        svg.text(
            CHART_W - CHART_PAD + 4 - 60 * (seats - 1 - p),
            18,
            f"player_{p}",
            size=11,
            fill=seat_color(p),
            anchor="end",
        )
    svg.line(
        CHART_PAD,
        CHART_PAD,
        CHART_PAD,
        CHART_H - CHART_PAD,
        stroke="#999999",
        stroke_dasharray="3 3",
        id="marker",
    )
    return svg.to_string(), [round(xy(i, 0)[0], 1) for i in range(steps)]


def page(
    title: str,
    meta: str,
    note: str,
    views: Sequence[str],
    pictures: dict,
    actions: dict,
    scores: Sequence[Sequence[int]],
    score_label: str,
    fps: float,
) -> str:
    """The viewer page. ``pictures[view][step]`` is an SVG (step 0 the start), ``actions[view][k]``
    names action k as ``view`` knew it, ``scores[step]`` the public score of each seat."""
    pool: dict = {}
    frames = {v: [pool.setdefault(svg, len(pool)) for svg in pictures[v]] for v in views}
    chart, chart_x = score_chart(scores, score_label)
    packed = gzip.compress(json.dumps(list(pool), separators=(",", ":")).encode("utf-8"), 9, mtime=0)
    data = {
        "steps": len(scores) - 1,
        "views": list(views),
        "frames": frames,
        "packed": base64.b64encode(packed).decode("ascii"),
        "actions": {v: list(actions[v]) for v in views},
        "chart_x": chart_x,
        "fps": fps,
    }
    # "</" inside a script would end it early; JSON allows the escaped form.
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return (
        PAGE.replace("__TITLE__", html_text(title))
        .replace("__META__", html_text(meta))
        .replace("__NOTE__", html_text(note))
        .replace("__CHART__", chart)
        .replace("__DATA__", payload)
    )
