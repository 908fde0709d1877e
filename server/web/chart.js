// Ossie explorer: the charts of an answer, one small chart per metric
// (small multiples) so metrics of different units never share an axis.
// Over a time dimension with a grain each chart is a line per series (the
// other dimensions); over other dimensions it is a horizontal chart, one
// row per category, whose labels sit horizontally and are shortened with
// an ellipsis (the full text in a tooltip). Without dimensions each metric
// is one number. Labels are laid out from measured widths: time labels
// are thinned until they do not touch, value ticks reduced until they fit.
"use strict";

const PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7"];
const LABEL_SIZE = 11;
const MAX_CATEGORIES = 50;

// niceStep rounds a raw tick step up to 1, 2 or 5 times a power of ten.
function niceStep(raw) {
  if (!(raw > 0)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const f = raw / p;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

// valueScale fits a value axis to the values: their min and max, padded by
// 8% of the range and widened to whole ticks at most `ticks` apart. Zero
// enters the domain only when the values touch or cross it, or when the
// padding of values that are all >= 0 (or all <= 0) would cross it, or
// rounding to whole ticks reaches it: a rate between 0.8 and 0.9 gets an
// axis from 0.78 to 0.92, a count from 1 to 100 one from 0. Integer
// metrics get whole-number ticks. Returns {lo, hi, step, ticks, format}.
function valueScale(vals, ticks, integer) {
  const dataLo = Math.min(...vals), dataHi = Math.max(...vals);
  let lo = dataLo, hi = dataHi;
  if (lo === hi) {
    const d = lo === 0 ? 1 : Math.abs(lo) * 0.1;
    lo -= d;
    hi += d;
  } else {
    const pad = (hi - lo) * 0.08;
    lo -= pad;
    hi += pad;
  }
  if (dataLo >= 0 && lo < 0) lo = 0;
  if (dataHi <= 0 && hi > 0) hi = 0;
  let step = niceStep((hi - lo) / Math.max(1, ticks - 1));
  if (integer) step = Math.max(1, step);
  const first = Math.floor(lo / step + 1e-9), last = Math.ceil(hi / step - 1e-9);
  const at = [];
  for (let i = first; i <= last; i++) at.push(Number((i * step).toPrecision(12)));
  return { lo: at[0], hi: at[at.length - 1], step, ticks: at,
    format: tickFormat(step, Math.max(Math.abs(at[0]), Math.abs(at[at.length - 1]))) };
}

// fittedScale is valueScale with the most ticks (at most `most`) that fit
// an axis `length` pixels long: on a horizontal axis the measured labels
// keep 12 px apart, on a vertical one ticks are 2.5 lines apart.
function fittedScale(vals, length, most, horizontal, integer) {
  for (let n = most; n >= 2; n--) {
    const s = valueScale(vals, n, integer);
    const space = length / Math.max(1, s.ticks.length - 1);
    const need = horizontal ? Math.max(...s.ticks.map((t) => textWidth(s.format(t), LABEL_SIZE))) + 12 : LABEL_SIZE * 2.5;
    if (space >= need || n === 2) return s;
  }
  return valueScale(vals, 2, integer);
}

// chartLayout describes an answer for charting: the metric columns, the
// time column (a dimension with a grain), the other dimensions, and the
// kind of chart ("number", "line" or "rows").
function chartLayout(resp) {
  const idx = resp.columns.map((c, i) => i);
  const metrics = idx.filter((i) => resp.columns[i].kind === "metric");
  const dims = idx.filter((i) => resp.columns[i].kind === "dimension");
  const time = dims.find((i) => resp.columns[i].grain);
  const others = dims.filter((i) => i !== time);
  const kind = !dims.length ? "number" : time !== undefined ? "line" : "rows";
  return { metrics, dims, time, others, kind };
}

const joinKey = (row, cols) => cols.map((i) => (row[i] === null ? "null" : String(row[i]))).join(" · ");
const finite = (v) => v !== null && v !== "" && isFinite(Number(v));

let lastCharts = null; // the arguments of the last drawing, for resizes

// renderCharts draws the charts of resp into #charts, rows in the given
// order (the table's), with each metric's description from the model's
// metadata (describe: name -> text).
function renderCharts(resp, rows, describe) {
  lastCharts = [resp, rows, describe];
  const box = $("charts");
  box.replaceChildren();
  $("legend").replaceChildren();
  $("chart-note").textContent = "";
  const lay = chartLayout(resp);
  if (!lay.metrics.length || !rows.length) return;
  box.dataset.kind = lay.kind;
  const figures = lay.metrics.map((mi) => {
    const name = resp.columns[mi].name;
    const desc = describe(name);
    const cap = el("figcaption", { title: desc ? name + ": " + desc : name }, el("strong", { text: name }));
    if (desc) cap.append(" ", el("span", { class: "muted", text: desc }));
    // The chart is drawn in a box without padding, as wide as the
    // figure's content: its width is the SVG's.
    const plot = el("div", { class: "plot" });
    box.append(el("figure", { class: "chart", "data-metric": name }, cap, plot));
    return plot;
  });
  if (lay.kind === "number") {
    lay.metrics.forEach((mi, n) => {
      const v = rows[0][mi];
      figures[n].append(el("p", { class: "big mark", "data-value": JSON.stringify(v), text: formatValue(v, resp.columns[mi].type) }));
    });
    return;
  }
  if (lay.kind === "line") {
    const series = seriesOf(rows, lay);
    drawLegend(series.keys);
    lay.metrics.forEach((mi, n) => lineChart(figures[n], resp, rows, lay, mi, series));
    return;
  }
  const shown = rows.slice(0, MAX_CATEGORIES);
  if (rows.length > shown.length) $("chart-note").textContent = `The charts show the first ${shown.length} of ${rows.length} rows (in the table's order).`;
  lay.metrics.forEach((mi, n) => rowChart(figures[n], resp, shown, lay, mi));
}

// seriesOf groups the rows of a time chart into lines, one per value of
// the other dimensions, in order of first appearance; at most as many as
// there are colours (the rest are named in the note, and in the table).
function seriesOf(rows, lay) {
  const keys = [];
  for (const r of rows) {
    const k = joinKey(r, lay.others);
    if (!keys.includes(k)) keys.push(k);
  }
  if (keys.length > PALETTE.length) {
    $("chart-note").textContent = `The charts show the first ${PALETTE.length} of ${keys.length} series in the table's order (sort the table to choose); the table has them all.`;
  }
  return { keys: keys.slice(0, PALETTE.length) };
}

function drawLegend(keys) {
  if (keys.length < 2 && !keys[0]) return;
  $("legend").replaceChildren(...keys.map((k, n) => {
    const swatch = el("span", { class: "swatch" });
    swatch.style.background = PALETTE[n];
    return el("span", { class: "legend-item", title: k }, swatch, el("span", { text: k }));
  }));
}

function newSVG(fig, width, height, label, scale) {
  return svgEl(fig, "svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label,
    "data-domain-min": scale.lo, "data-domain-max": scale.hi });
}

// lineChart draws one metric over the time column: a y axis fitted to the
// metric's values, x labels at the grain, thinned to every k-th so that
// measured labels keep 12 px apart, a line per series broken at nulls.
function lineChart(fig, resp, rows, lay, mi, series) {
  const col = resp.columns[mi];
  const grain = resp.columns[lay.time].grain;
  const W = Math.max(240, fig.clientWidth), H = 220, T = 8, B = 26;
  const xs = [...new Set(rows.map((r) => String(r[lay.time])))].sort();
  const labels = xs.map((x) => timeLabel(x, grain));
  const labelW = Math.max(...labels.map((l) => textWidth(l, LABEL_SIZE)));
  const points = rows.filter((r) => series.keys.includes(joinKey(r, lay.others)) && finite(r[mi]));
  if (!points.length) return;
  const s = fittedScale(points.map((r) => Number(r[mi])), H - T - B, 6, false, col.type === "Integer");
  const L = Math.ceil(Math.max(...s.ticks.map((t) => textWidth(s.format(t), LABEL_SIZE)))) + 12;
  const pad = labelW / 2 + 2, R = 8;
  const x0 = L + pad, x1 = W - R - pad;
  const x = (i) => (xs.length > 1 ? x0 + ((x1 - x0) * i) / (xs.length - 1) : (x0 + x1) / 2);
  const y = (v) => T + (H - T - B) * (1 - (v - s.lo) / (s.hi - s.lo));
  const svg = newSVG(fig, W, H, `${col.name} by ${resp.columns[lay.time].name}`, s);
  valueGridY(svg, s, y, L, W - R);
  svgEl(svg, "line", { class: "axis", x1: L, x2: W - R, y1: H - B, y2: H - B });
  const spacing = xs.length > 1 ? (x1 - x0) / (xs.length - 1) : Infinity;
  const every = Math.max(1, Math.ceil((labelW + 12) / spacing));
  labels.forEach((l, i) => {
    if (i % every) return;
    tooltip(svgEl(svg, "text", { class: "axis-label", x: x(i), y: H - B + 16, "text-anchor": "middle", "font-size": LABEL_SIZE }, l), xs[i]);
    svgEl(svg, "line", { class: "tick", x1: x(i), x2: x(i), y1: H - B, y2: H - B + 4 });
  });
  series.keys.forEach((key, n) => {
    const byX = new Map(rows.filter((r) => joinKey(r, lay.others) === key).map((r) => [String(r[lay.time]), r[mi]]));
    let d = "", pen = "M";
    xs.forEach((xv, i) => {
      if (!byX.has(xv) || !finite(byX.get(xv))) { pen = "M"; return; }
      d += `${pen}${x(i).toFixed(1)},${y(Number(byX.get(xv))).toFixed(1)}`;
      pen = "L";
    });
    svgEl(svg, "path", { class: "line", d, stroke: PALETTE[n] });
    xs.forEach((xv, i) => {
      const v = byX.get(xv);
      if (!finite(v)) return;
      // Many points: the dots only show under the pointer (tooltips).
      const dot = svgEl(svg, "circle", { class: xs.length > 60 ? "mark dense" : "mark", cx: x(i), cy: y(Number(v)), r: 3, fill: PALETTE[n],
        "data-value": JSON.stringify(v), "data-x": xv, "data-series": key });
      tooltip(dot, `${key ? key + " · " : ""}${labels[i]}: ${formatValue(v, col.type)}`);
    });
  });
}

// valueGridY draws the y ticks, their labels right-aligned left of the
// plot, light grid lines, and a darker line at zero when zero is inside.
function valueGridY(svg, s, y, left, right) {
  for (const t of s.ticks) {
    svgEl(svg, "line", { class: t === 0 && s.lo < 0 ? "zero" : "grid", x1: left, x2: right, y1: y(t), y2: y(t) });
    svgEl(svg, "text", { class: "axis-label", x: left - 6, y: y(t) + 4, "text-anchor": "end", "font-size": LABEL_SIZE }, s.format(t));
  }
}

// rowChart draws one metric over categories, one row each: the label at
// left (ellipsised to at most 40% of the width, full text as tooltip),
// the value axis below. Bars start at zero, so they are drawn only when
// zero is in the fitted domain; otherwise each value is a dot, whose
// position (not a length) carries the number.
function rowChart(fig, resp, rows, lay, mi) {
  const col = resp.columns[mi];
  const W = Math.max(240, fig.clientWidth), rowH = 22, T = 4, B = 24, R = 8;
  const H = T + rows.length * rowH + B;
  const names = rows.map((r) => joinKey(r, lay.dims));
  const labelW = Math.min(Math.max(...names.map((n) => textWidth(n, LABEL_SIZE))), Math.round(W * 0.4));
  const vals = rows.map((r) => r[mi]).filter(finite).map(Number);
  if (!vals.length) return;
  const L = labelW + 14;
  // Tick labels are centred on their ticks: keep half the widest inside.
  let s = fittedScale(vals, W - L - R - 40, 6, true, col.type === "Integer");
  const half = Math.max(...s.ticks.map((t) => textWidth(s.format(t), LABEL_SIZE))) / 2;
  const x0 = L + half, x1 = W - R - half;
  s = fittedScale(vals, x1 - x0, 6, true, col.type === "Integer");
  const x = (v) => x0 + ((x1 - x0) * (v - s.lo)) / (s.hi - s.lo);
  const svg = newSVG(fig, W, H, `${col.name} by ${lay.dims.map((i) => resp.columns[i].name).join(", ")}`, s);
  for (const t of s.ticks) {
    svgEl(svg, "line", { class: t === 0 && s.lo < 0 ? "zero" : "grid", x1: x(t), x2: x(t), y1: T, y2: H - B });
    svgEl(svg, "text", { class: "axis-label", x: x(t), y: H - B + 16, "text-anchor": "middle", "font-size": LABEL_SIZE }, s.format(t));
  }
  const bars = s.lo <= 0 && s.hi >= 0;
  rows.forEach((r, i) => {
    const cy = T + i * rowH + rowH / 2;
    const label = fitText(names[i], LABEL_SIZE, labelW);
    tooltip(svgEl(svg, "text", { class: "axis-label", x: L - 6, y: cy + 4, "text-anchor": "end", "font-size": LABEL_SIZE }, label), names[i]);
    const v = r[mi];
    if (!finite(v)) return;
    const tip = `${names[i]}: ${formatValue(v, col.type)}`;
    if (bars) {
      const a = x(0), b = x(Number(v));
      tooltip(svgEl(svg, "rect", { class: "mark bar", x: Math.min(a, b), y: cy - 7, width: Math.max(1, Math.abs(b - a)), height: 14,
        fill: PALETTE[0], "data-value": JSON.stringify(v) }), tip);
    } else {
      svgEl(svg, "line", { class: "guide", x1: x0, x2: x1, y1: cy, y2: cy });
      tooltip(svgEl(svg, "circle", { class: "mark dot", cx: x(Number(v)), cy, r: 5, fill: PALETTE[0], "data-value": JSON.stringify(v) }), tip);
    }
  });
  svgEl(svg, "line", { class: "axis", x1: x0, x2: x1, y1: H - B, y2: H - B });
}

let resizeTimer = 0;
window.addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => { if (lastCharts) renderCharts(...lastCharts); }, 150);
});
