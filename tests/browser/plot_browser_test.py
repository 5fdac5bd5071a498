#!/usr/bin/env python3
"""`nodescope plot` checked in a real browser: headless Chromium, driven through the DevTools
protocol over a pipe (--remote-debugging-pipe: no websocket, only the standard library).

On a trace with 1100 one-shot graphs, a light graph and one heavy graph (with larger ids than the
one-shots, so that picking by id leaves it out), asserts that:
  - plot says on stderr what it left out, and the heavy graph is drawn (its panel is in the DOM,
    with a heat-map row per node, on the page, first);
  - a drift planted in one node (+78 % from 60 % of the run on) is a colour change in the screenshot's
    pixels, while a steady node of another magnitude keeps one colour;
  - the tooltip's box lies inside the viewport, hovering cells at the map's left and right edges
    and its top and bottom rows, in a narrow and a wide window;
  - the SVG of the same trace is of bounded height and names the heavy graph.
Exit 77 (skipped) without Chromium. --shots DIR keeps screenshots of the HTML and the SVG.
"""

import argparse
import base64
import fcntl
import json
import os
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

SKIP = 77
HEAVY = 5000  # graph id of the heavy graph: after the one-shots
LIGHT = 1200
ONE_SHOTS = 1100
HEAVY_NODES = 16
HEAVY_REPLAYS = 300
DRIFT_NODE = 9  # +78 % from replay DRIFT_FROM on
DRIFT_FROM = 180
STEADY_NODE = 3
MAX_SVG_HEIGHT = 4000


def base_us(ordinal):
    # Nodes from 2 us to ~900 us: a log scale of absolute time squeezes a +78 % drift.
    return 2.0 * 1.5 ** ordinal


def write_trace(path):
    events = []
    correlation = 0

    def event(graph, ordinal, ts, dur, corr, name):
        events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts,
                       "dur": round(dur, 3), "args": {"correlation": corr, "graph id": graph,
                                                      "graph node id": graph << 32 | ordinal}})

    ts = 1000.0
    for graph in range(1, ONE_SHOTS + 1):
        correlation += 1
        event(graph, 0, ts, 3.0, correlation, f"void one_shot_{graph % 7}(float*)")
        ts += 10
    for replay in range(40):
        correlation += 1
        for ordinal in range(3):
            event(LIGHT, ordinal, ts, 4.0 + ordinal, correlation, f"void light_{ordinal}(int)")
            ts += 10
    for replay in range(HEAVY_REPLAYS):
        correlation += 1
        for ordinal in range(HEAVY_NODES):
            dur = base_us(ordinal) * (1 + 0.02 * ((replay * 7 + ordinal) % 5 - 2) / 2)
            if ordinal == DRIFT_NODE and replay >= DRIFT_FROM:
                dur *= 1.78
            # Long names: the tooltip is wide, so placing it naively runs off an edge.
            name = (f"void heavy_kernel_{ordinal}<cutlass::gemm::GemmShape<128, 128, 64>, "
                    f"float, float>(Params const&)")
            event(HEAVY, ordinal, ts, dur, correlation, name)
            ts += dur + 1
    with open(path, "w") as f:
        json.dump({"traceEvents": events}, f)


# --- A PNG reader: 8-bit RGB or RGBA, non-interlaced (what Chromium writes). ---
def read_png(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    at, idat, width = 8, b"", 0
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        at += 12 + length
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and color in (2, 6) and interlace == 0, (depth, color, interlace)
            channels = 4 if color == 6 else 3
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 0xFF
        rows.append(bytes(line))
        prev = line

    def pixel(x, y):
        x, y = int(x), int(y)
        return tuple(rows[y][x * channels:x * channels + 3])

    return width, height, pixel


# --- Chromium over the DevTools pipe: JSON messages ending in NUL on fds 3 (in) and 4 (out). ---
class Browser:
    def __init__(self, binary, profile):
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()

        def fds():  # the child's fds 3 and 4, by way of high ones (the pipe may be on 3 or 4)
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_child_r, from_child_w)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--no-first-run", "--no-default-browser-check", "--hide-scrollbars",
             "--user-data-dir=" + profile, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=fds, pass_fds=(3, 4))
        os.close(to_child_r)
        os.close(from_child_w)
        self.buffer, self.next_id, self.session = b"", 0, None
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]

    def call(self, method, params=None, timeout=20):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if self.session:
            message["sessionId"] = self.session
        os.write(self.to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self.next_id:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply["result"]
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.from_child], [], [], left)[0]:
                raise TimeoutError(f"{method}: no answer from Chromium in {timeout} s")
            chunk = os.read(self.from_child, 1 << 20)
            if not chunk:
                raise RuntimeError(f"{method}: Chromium closed the pipe")
            self.buffer += chunk

    def js(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"JS error: {result['exceptionDetails']}\nin: {expression}")
        return result["result"].get("value")

    def open(self, url, width, height):
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.call("Page.navigate", {"url": url})
        deadline = time.monotonic() + 20
        while self.js("document.readyState + ' ' + location.href") != "complete " + url:
            if time.monotonic() > deadline:
                raise TimeoutError("page did not load: " + url)
            time.sleep(0.05)

    def screenshot(self, full_page=False):
        params = {"format": "png"}
        if full_page:
            size = self.js("[document.documentElement.scrollWidth, "
                           "document.documentElement.scrollHeight]")
            params.update(captureBeyondViewport=True, clip={
                "x": 0, "y": 0, "width": size[0], "height": min(size[1], 6000), "scale": 1})
        return base64.b64decode(self.call("Page.captureScreenshot", params, timeout=40)["data"])

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


# JS: the client-space point at `fraction` (0..1) along row `ordinal` of the heavy graph's heat
# map, from the panel's data-plot rectangle (SVG units) and the SVG's screen matrix.
CELL_JS = """((ordinal, fraction) => {
  const panel = [...document.querySelectorAll('.ns-panel')].find(
      g => g.querySelector('.pt').textContent.startsWith('Graph %d '));
  const rows = [...panel.querySelectorAll('.ns-row')];
  const row = rows.find(r => r.dataset.label.startsWith('#' + ordinal + ' '));
  const [l, t, w, h] = panel.dataset.plot.split(' ').map(Number);
  const i = rows.indexOf(row), rh = h / rows.length;
  const m = document.querySelector('svg').getScreenCTM();
  const p = new DOMPoint(l + fraction * w, t + (i + 0.5) * rh).matrixTransform(m);
  return [p.x, p.y];
})""" % HEAVY


def cell(browser, ordinal, fraction):
    return browser.js(f"{CELL_JS}({ordinal}, {fraction})")


def scroll_row_to(browser, ordinal, client_y):
    """Scrolls so that row `ordinal` of the heavy graph is at `client_y` (room made below the
    picture, so that any row can be brought to the bottom of the window)."""
    browser.js("document.body.style.paddingBottom = '3000px'")
    x, y = cell(browser, ordinal, 0.5)
    browser.js(f"window.scrollBy(0, {y - client_y})")


def check_html(browser, html, shots):
    browser.open("file://" + html, 1280, 900)
    # The heavy graph is drawn: its panel, one heat-map row per node, on the page.
    panel = browser.js("""(() => {
      const p = [...document.querySelectorAll('.ns-panel')].find(
          g => g.querySelector('.pt').textContent.startsWith('Graph %d '));
      if (!p) return null;
      const r = p.getBoundingClientRect();
      return {rows: p.querySelectorAll('.ns-row').length, top: r.top + scrollY,
              height: r.height, kind: p.dataset.kind};
    })()""" % HEAVY)
    check(panel is not None, f"the heavy graph {HEAVY} has a panel in the DOM")
    if panel is None:
        return
    check(panel["rows"] == HEAVY_NODES and panel["kind"] == "heat",
          f"its heat map has a row per node ({panel['rows']} rows, kind {panel['kind']})")
    page_height = browser.js("document.documentElement.scrollHeight")
    check(panel["height"] > 100 and panel["top"] + panel["height"] <= page_height,
          f"its panel is laid out on the page (top {panel['top']:.0f}, height "
          f"{panel['height']:.0f}, page {page_height})")
    first = browser.js("document.querySelector('.ns-panel .pt').textContent")
    check(first.startswith(f"Graph {HEAVY} "), f"the heaviest graph comes first ({first!r})")
    if shots:
        with open(os.path.join(shots, "plot-html.png"), "wb") as f:
            f.write(browser.screenshot())

    # The drift, in pixels: the drifting row's colour before and after mid-run differs, the
    # steady row's does not.
    scroll_row_to(browser, DRIFT_NODE, 300)
    width, height, pixel = read_png(browser.screenshot())
    colours = {}
    for ordinal in (DRIFT_NODE, STEADY_NODE):
        for fraction in (0.1, 0.3, 0.7, 0.9):
            x, y = cell(browser, ordinal, fraction)
            check(0 <= x < width and 0 <= y < height, f"cell {ordinal}@{fraction} is on screen")
            colours[ordinal, fraction] = pixel(x, y)

    def distance(a, b):
        return sum((p - q) ** 2 for p, q in zip(a, b)) ** 0.5

    for fraction in (0.1, 0.3):  # 0.7 and 0.9 are past DRIFT_FROM
        before, after = colours[DRIFT_NODE, fraction], colours[DRIFT_NODE, 1 - fraction]
        check(distance(before, after) > 90,
              f"the drift shows: row #{DRIFT_NODE} {before} before, {after} after "
              f"(distance {distance(before, after):.0f} > 90)")
        check(after[0] > after[2] + 60, f"after the drift the cell is warm (red): {after}")
        steady_a, steady_b = colours[STEADY_NODE, fraction], colours[STEADY_NODE, 1 - fraction]
        check(distance(steady_a, steady_b) < 40,
              f"a steady row keeps its colour: #{STEADY_NODE} {steady_a}, {steady_b}")

    # The tooltip stays in the viewport, at the edges of the map, in a narrow and a wide window.
    for width, height in ((480, 400), (1280, 700)):
        browser.open("file://" + html, width, height)
        for ordinal, at_y in ((0, 60), (HEAVY_NODES - 1, height - 8)):
            scroll_row_to(browser, ordinal, at_y)
            for fraction in (0.002, 0.25, 0.5, 0.75, 0.998):
                x, y = cell(browser, ordinal, fraction)
                browser.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})
                box = browser.js("""(() => {
                  const t = document.getElementById('ns-tip');
                  const r = t.getBoundingClientRect();
                  return {hidden: t.hidden, text: t.textContent, left: r.left, right: r.right,
                          top: r.top, bottom: r.bottom, w: innerWidth, h: innerHeight};
                })()""")
                where = (f"{width}x{height}, row #{ordinal} at {fraction:.3f} "
                         f"(pointer {x:.0f},{y:.0f})")
                check(not box["hidden"] and f"#{ordinal} " in box["text"],
                      f"the tooltip shows row #{ordinal}: {where}")
                inside = (box["left"] >= 0 and box["right"] <= box["w"] and box["top"] >= 0
                          and box["bottom"] <= box["h"])
                check(inside, f"the tooltip lies inside the viewport: {where}: box "
                              f"[{box['left']:.0f}, {box['right']:.0f}] x "
                              f"[{box['top']:.0f}, {box['bottom']:.0f}] in {box['w']}x{box['h']}")
        if shots and width == 1280:
            scroll_row_to(browser, DRIFT_NODE, 300)
            x, y = cell(browser, DRIFT_NODE, 0.8)
            browser.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})
            with open(os.path.join(shots, "plot-html-tooltip.png"), "wb") as f:
                f.write(browser.screenshot())


def check_svg(browser, svg, shots):
    browser.open("file://" + svg, 1000, 800)
    info = browser.js("""(() => {
      const s = document.documentElement;
      return {tag: s.tagName, height: +s.getAttribute('height'),
              heavy: [...document.querySelectorAll('text')]
              .some(t => t.textContent.startsWith('Graph %d '))};
    })()""" % HEAVY)
    check(info["tag"] == "svg", f"the SVG parses (the document is <{info['tag']}>)")
    check(info["heavy"], "the SVG draws the heavy graph")
    check(0 < info["height"] <= MAX_SVG_HEIGHT,
          f"the SVG is {info['height']} px tall (at most {MAX_SVG_HEIGHT})")
    if shots:
        with open(os.path.join(shots, "plot-svg.png"), "wb") as f:
            f.write(browser.screenshot(full_page=True))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodescope", required=True)
    parser.add_argument("--chromium", default=os.environ.get("NODESCOPE_CHROMIUM"))
    parser.add_argument("--shots", help="keep screenshots in this folder")
    parser.add_argument("--plot-arg", action="append", default=[],
                        help="more arguments for `nodescope plot` (trying the checks by hand)")
    args = parser.parse_args()
    chromium = args.chromium or shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("chromium not found (Debian: apt-get install chromium): skipped")
        return SKIP
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="nodescope-browser-") as work:
        trace = os.path.join(work, "weights.json")
        write_trace(trace)
        outputs = {}
        for ext in ("html", "svg"):
            out = os.path.join(work, "plot." + ext)
            run = subprocess.run([args.nodescope, "plot", trace, "-o", out, *args.plot_arg],
                                 capture_output=True, text=True, timeout=60)
            check(run.returncode == 0, f"plot -o plot.{ext}: rc {run.returncode}")
            print(run.stderr, end="")
            check("not drawn" in run.stderr and "GPU time" in run.stderr,
                  "plot says on stderr what it left out")
            outputs[ext] = out
        if args.shots:
            os.makedirs(args.shots, exist_ok=True)
        browser = Browser(chromium, os.path.join(work, "profile"))
        try:
            check_html(browser, outputs["html"], args.shots)
            check_svg(browser, outputs["svg"], args.shots)
        finally:
            browser.close()
    print(f"{len(failures)} failed, {time.monotonic() - started:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
