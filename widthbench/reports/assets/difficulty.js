/* widthbench report: accuracy by difficulty (issue 21). Defines the view that report.js shows as the
   "By difficulty" tab: per feature, one chart per sub-task, a line per run x mode with its Wilson
   95% interval as a band, and the logistic slopes. The points are D.difficulty's rows, the same
   numbers as difficulty.csv (widthbench/reports/curves.py). No network, no libraries. */
window.widthbenchDifficultyView = function (D) {
  "use strict";
  const SVGNS = "http://www.w3.org/2000/svg";
  const COLOURS = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c"];
  function el(tag, attrs, ns) {
    const e = ns ? document.createElementNS(SVGNS, tag) : document.createElement(tag);
    for (const k in attrs || {}) {
      if (k === "text") e.textContent = attrs[k]; else e.setAttribute(k, String(attrs[k]));
    }
    return e;
  }
  const svgEl = (tag, attrs) => el(tag, attrs, true);
  const pct = x => (100 * x).toFixed(0) + "%";
  const lineName = r => r.line;
  const uniq = xs => xs.filter((x, i) => xs.indexOf(x) === i);

  function chart(part, sub) {
    const rows = part.rows.filter(r => r.subtask === sub);
    const bins = uniq(rows.map(r => r.bin));
    const lines = uniq(rows.map(lineName));
    const W = 520, H = 250, L = 44, R = 12, T = 24, B = 40;
    const X = i => L + (bins.length === 1 ? (W - L - R) / 2 : i * (W - L - R) / (bins.length - 1));
    const Y = v => T + (1 - v) * (H - T - B);
    const simulated = rows.some(r => r.simulated);
    const svg = svgEl("svg", {width: W, height: H, viewBox: `0 0 ${W} ${H}`, class: "chart difficulty-chart",
                              role: "img", "data-feature": part.feature, "data-subtask": sub});
    svg.appendChild(svgEl("text", {x: 4, y: 14, "font-weight": "600",
      text: `${sub} (${rows[0].metric}) by ${part.feature}` + (simulated ? " — SIMULATED" : "")}));
    [0, 0.5, 1].forEach(v => {
      svg.appendChild(svgEl("line", {x1: L, x2: W - R, y1: Y(v), y2: Y(v), stroke: "#e4e4e4"}));
      svg.appendChild(svgEl("text", {x: 6, y: Y(v) + 4, text: pct(v)}));
    });
    bins.forEach((b, i) => svg.appendChild(svgEl("text", {x: X(i), y: H - B + 16, "text-anchor": "middle", text: b})));
    svg.appendChild(svgEl("text", {x: (L + W) / 2, y: H - 6, "text-anchor": "middle", text: part.feature + " (band: Wilson 95% CI)"}));
    lines.forEach((name, j) => {
      const colour = COLOURS[j % COLOURS.length];
      const pts = rows.filter(r => lineName(r) === name && r.n).sort((a, b) => bins.indexOf(a.bin) - bins.indexOf(b.bin));
      if (!pts.length) return;
      const band = pts.map(r => `${X(bins.indexOf(r.bin))},${Y(r.ci_high)}`)
        .concat(pts.slice().reverse().map(r => `${X(bins.indexOf(r.bin))},${Y(r.ci_low)}`)).join(" ");
      svg.appendChild(svgEl("polygon", {points: band, fill: colour, "fill-opacity": 0.13, stroke: "none", class: "band"}));
      svg.appendChild(svgEl("polyline", {points: pts.map(r => `${X(bins.indexOf(r.bin))},${Y(r.accuracy)}`).join(" "),
                                         fill: "none", stroke: colour, "stroke-width": 1.6}));
      pts.forEach(r => {
        const c = svgEl("circle", {cx: X(bins.indexOf(r.bin)), cy: Y(r.accuracy), r: 3.2, fill: colour, class: "point",
                                   "data-run": r.run, "data-mode": r.mode, "data-bin": r.bin, "data-n": r.n,
                                   "data-correct": r.correct, "data-accuracy": r.accuracy,
                                   "data-ci-low": r.ci_low, "data-ci-high": r.ci_high});
        c.appendChild(svgEl("title", {text: `${name}, ${part.feature} ${r.bin}: ${r.correct}/${r.n} = ${pct(r.accuracy)} [${pct(r.ci_low)}–${pct(r.ci_high)}]`}));
        svg.appendChild(c);
      });
    });
    const legend = el("div", {class: "legend"});
    lines.forEach((name, j) => {
      const s = part.slopes.find(x => x.subtask === sub && lineName(x) === name);
      const slope = !s ? "" : s.slope === null ? ` — slope: none (${s.note})`
        : ` — slope ${s.slope.toFixed(3)} [${s.slope_low.toFixed(3)}, ${s.slope_high.toFixed(3)}] log-odds per unit`;
      const item = el("div", {class: "slope", "data-line": name});
      const key = el("span", {text: "■ ", style: `color:${COLOURS[j % COLOURS.length]}`});
      item.appendChild(key);
      item.appendChild(document.createTextNode(name + slope));
      legend.appendChild(item);
    });
    const box = el("div", {class: "difficulty-panel"});
    box.appendChild(svg);
    box.appendChild(legend);
    return box;
  }

  const root = el("div", {id: "view-difficulty"});
  if (D.simulated) {
    const banner = el("div", {class: "banner"});
    banner.appendChild(el("span", {class: "sim-badge", text: "SIMULATED"}));
    banner.appendChild(document.createTextNode(" These results come from a simulated model (sim:…), not from an LLM."));
    root.appendChild(banner);
  }
  root.appendChild(el("p", {text: "Accuracy of each sub-task's headline metric per bin of a difficulty feature, "
    + "one line per run and mode, with its Wilson 95% interval as a band; slopes are logistic fits "
    + "(change in log-odds of a right answer per unit of the feature). The numbers are difficulty.csv's."}));
  (D.difficulty || []).forEach(part => {
    root.appendChild(el("h2", {text: `By ${part.feature}`}));
    const subs = uniq(part.rows.map(r => r.subtask));
    if (!subs.length) root.appendChild(el("p", {text: "No record carries this feature."}));
    subs.forEach(sub => root.appendChild(chart(part, sub)));
  });
  return root;
};
