// The HTML form of a plot: the SVG inline in a page with a small script for hover tooltips.
#include "analysis/plot/plot_panel.h"
#include "analysis/plot/svg_text.h"

namespace nodescope::analysis::plot {
namespace {

// Reads the data-* attributes the panels write: data-plot (the plot rectangle), data-n (replays),
// data-b (columns), data-unit; per series or row data-label and data-d (a value per column), and
// per heat-map row data-m (its median: the tooltip gives the cell against it). The tooltip is
// placed against the viewport: beside the pointer, on the side with room, and clamped inside.
constexpr std::string_view kScript = R"JS(
(() => {
  const svg = document.querySelector('svg');
  const tip = document.getElementById('ns-tip');
  const guide = document.createElementNS('http://www.w3.org/2000/svg', 'line');
  guide.setAttribute('stroke', '#555');
  guide.setAttribute('stroke-dasharray', '3 3');
  guide.style.pointerEvents = 'none';
  guide.style.display = 'none';
  svg.appendChild(guide);
  const hide = () => { tip.hidden = true; guide.style.display = 'none'; };
  const row = (text, color) => {
    const d = document.createElement('div');
    d.textContent = text;
    if (color) d.style.borderLeft = '10px solid ' + color;
    return d;
  };
  // Right of and below the pointer; left of / above it when that side lacks room; then clamped,
  // so that the whole box stays in the viewport (its size is capped by the style to fit).
  const place = (x, y) => {
    const pad = 4, gap = 14, view = document.documentElement;
    const vw = view.clientWidth, vh = view.clientHeight;
    tip.style.left = tip.style.top = '0px';  // measured where nothing squeezes it
    const w = tip.offsetWidth, h = tip.offsetHeight;
    let left = x + gap, top = y + gap;
    if (left + w > vw - pad) left = x - gap - w;
    if (top + h > vh - pad) top = y - gap - h;
    tip.style.left = Math.max(pad, Math.min(left, vw - pad - w)) + 'px';
    tip.style.top = Math.max(pad, Math.min(top, vh - pad - h)) + 'px';
  };
  svg.addEventListener('mouseleave', hide);
  svg.addEventListener('mousemove', (e) => {
    const m = svg.getScreenCTM();
    if (!m) return;
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
    for (const g of svg.querySelectorAll('.ns-panel')) {
      const [l, t, w, h] = g.dataset.plot.split(' ').map(Number);
      if (p.x < l - 3 || p.x > l + w + 3 || p.y < t || p.y > t + h) continue;
      const n = +g.dataset.n, b = +g.dataset.b, unit = ' ' + g.dataset.unit;
      const heat = g.dataset.kind === 'heat';
      let k;
      if (heat) {
        k = Math.max(0, Math.min(b - 1, Math.floor((p.x - l) / w * b)));
      } else {
        const r = n > 1 ? Math.round((p.x - l) / w * (n - 1)) : 0;
        k = Math.max(0, Math.min(b - 1, Math.floor(r * b / n)));
      }
      const first = Math.floor(k * n / b) + 1, last = Math.floor((k + 1) * n / b);
      tip.replaceChildren(row(first === last ? 'replay ' + first
                                             : 'replays ' + first + '\u2013' + last + ' (mean)'));
      let series = [...g.querySelectorAll('[data-d]')];
      if (heat) {
        const i = Math.floor((p.y - t) / (h / series.length));
        series = series[i] ? [series[i]] : [];
      }
      for (const s of series) {
        const d = s.dataset.d.split(' ');
        if (k < d.length && d[k] !== '') {
          tip.appendChild(row(s.dataset.label + ':  ' + d[k] + unit, s.getAttribute('stroke')));
          const m = +s.dataset.m;
          if (heat && m > 0) {
            const pct = (+d[k] / m - 1) * 100;
            tip.appendChild(row((pct >= 0 ? '+' : '\u2212') + Math.abs(pct).toFixed(1) +
                                ' % vs. its median, ' + s.dataset.m + unit));
          }
        }
      }
      if (heat) {
        guide.style.display = 'none';
      } else {
        const x = n > 1 ? l + ((first + last) / 2 - 1) / (n - 1) * w : l + w / 2;
        for (const [a, v] of [['x1', x], ['x2', x], ['y1', t], ['y2', t + h]]) {
          guide.setAttribute(a, v);
        }
        guide.style.display = '';
      }
      tip.hidden = false;
      place(e.clientX, e.clientY);
      return;
    }
    hide();
  });
})();
)JS";

}  // namespace

std::string WrapHtml(std::string_view svg, std::string_view title) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>nodescope "
      "plot";
  if (!title.empty()) out += ": " + XmlEscaped(title);
  out +=
      "</title>\n<style>\n"
      "body{margin:16px;background:#fafafa;font-family:Helvetica,Arial,sans-serif}\n"
      "svg{max-width:100%;height:auto;background:#fff;box-shadow:0 1px 3px #0002}\n"
      "#ns-tip{position:fixed;pointer-events:none;background:#fff;border:1px solid #bbb;"
      "border-radius:4px;padding:6px 8px;font:12px Menlo,Consolas,monospace;"
      "box-shadow:0 2px 6px #0003;white-space:pre;overflow:hidden;box-sizing:border-box;"
      "max-width:calc(100vw - 8px);max-height:calc(100vh - 8px)}\n"
      "#ns-tip div{padding-left:4px;margin:1px 0}\n"
      "</style>\n</head>\n<body>\n";
  out += svg;
  out += "<div id=\"ns-tip\" hidden></div>\n<script>";
  out += kScript;
  out += "</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace nodescope::analysis::plot
