// Ossie explorer: a single page over the semantic API of the server that
// serves it (/v1/models, /query, /sql). No framework, no network access
// beyond that server. The query lives in the URL fragment, so a link
// reproduces it; the bearer token lives in sessionStorage only.
"use strict";

const $ = (id) => document.getElementById(id);
const NUMERIC = new Set(["Integer", "Decimal", "Float"]);
const OPS = ["=", "!=", "in", "not_in", "gt", "gte", "lt", "lte", "between", "contains", "starts_with", "is_null", "is_not_null"];
let detail = null; // the current model's metadata
let pending = null; // the query of the URL, applied once its model loads

function token() {
  return $("token").value.trim();
}

async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token()) headers.Authorization = "Bearer " + token();
  const resp = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await resp.text();
  let doc = null;
  try { doc = JSON.parse(text); } catch (e) { doc = null; }
  if (!resp.ok) {
    const err = new Error(problemText(doc, resp.status));
    err.status = resp.status;
    err.code = doc && doc.code;
    throw err;
  }
  return doc;
}

function problemText(doc, status) {
  if (!doc) return "HTTP " + status;
  let s = (doc.code ? doc.code + " " : "") + (doc.title || "") + (doc.detail ? ": " + doc.detail : "");
  for (const p of doc.problems || []) s += "\n" + (p.path ? p.path + ": " : "") + p.code + " " + p.message;
  return s;
}

function setStatus(text, isError) {
  const el = $("status");
  el.textContent = text;
  el.className = isError ? "error" : "muted";
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

// --- URL fragment <-> query -------------------------------------------------

function readHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  const list = (k) => (p.get(k) || "").split(",").filter(Boolean);
  return {
    model: p.get("model") || "",
    metrics: list("metrics"),
    dimensions: list("dimensions"),
    time: p.get("time") || "",
    grain: p.has("grain") ? p.get("grain") : "month",
    from: p.get("from") || "",
    to: p.get("to") || "",
    limit: p.get("limit") || "100",
    filters: p.getAll("filter").map((f) => { try { return JSON.parse(f); } catch (e) { return null; } }).filter(Boolean),
  };
}

function writeHash(s) {
  const p = new URLSearchParams();
  p.set("model", s.model);
  p.set("metrics", s.metrics.join(","));
  if (s.dimensions.length) p.set("dimensions", s.dimensions.join(","));
  if (s.time) { p.set("time", s.time); p.set("grain", s.grain); }
  if (s.from) p.set("from", s.from);
  if (s.to) p.set("to", s.to);
  if (s.limit) p.set("limit", s.limit);
  for (const f of s.filters) p.append("filter", JSON.stringify(f));
  const hash = "#" + p.toString();
  history.replaceState(null, "", hash);
  $("share").href = hash;
}

// --- form state -------------------------------------------------------------

function checked(id) {
  return [...$(id).querySelectorAll("input:checked")].map((i) => i.value);
}

function formState() {
  const filters = [];
  for (const row of $("filters").querySelectorAll(".filter")) {
    const field = row.querySelector(".f-field").value;
    const op = row.querySelector(".f-op").value;
    const raw = row.querySelector(".f-values").value;
    if (!field) continue;
    filters.push({ field, op, values: raw === "" ? [] : raw.split(",").map((v) => v.trim()) });
  }
  return {
    model: $("model").value, metrics: checked("metrics"), dimensions: checked("dimensions"),
    time: $("time-dim").value, grain: $("grain").value, from: $("from").value, to: $("to").value,
    limit: $("limit").value, filters,
  };
}

function datatypeOf(member) {
  for (const ds of detail.datasets) for (const d of ds.dimensions) if (d.name === member) return d.datatype;
  return "";
}

// typed converts filter operands of numeric fields to numbers.
function typed(field, values) {
  if (!NUMERIC.has(datatypeOf(field))) return values;
  return values.map((v) => (v !== "" && !isNaN(Number(v)) ? Number(v) : v));
}

function buildQuery(s) {
  const q = { metrics: s.metrics, dimensions: [], filters: [] };
  if (s.time) {
    q.dimensions.push(s.grain ? { field: s.time, grain: s.grain } : s.time);
    if (s.from || s.to) q.filters.push({ field: s.time, op: "in_date_range", values: [s.from || "0001-01-01", s.to || "9999-12-31"] });
    q.order_by = [{ key: s.grain ? s.time + "." + s.grain : s.time }];
  } else if (s.metrics.length) {
    q.order_by = [{ key: s.metrics[0], dir: "desc" }];
  }
  for (const d of s.dimensions) if (d !== s.time) q.dimensions.push(d);
  for (const f of s.filters) q.filters.push({ field: f.field, op: f.op, values: typed(f.field, f.values) });
  if (!q.filters.length) delete q.filters;
  const limit = parseInt(s.limit, 10);
  if (limit > 0) q.limit = limit;
  return q;
}

// --- model metadata -----------------------------------------------------------

// A model is chosen as "namespace/name" when a Kubernetes namespace
// publishes it (two namespaces may publish one name), else "name".
const modelKey = (m) => (m.namespace ? m.namespace + "/" + m.name : m.name);

function modelURL(key) {
  const i = key.indexOf("/");
  if (i < 0) return "/v1/models/" + encodeURIComponent(key);
  return "/v1/namespaces/" + encodeURIComponent(key.slice(0, i)) + "/models/" + encodeURIComponent(key.slice(i + 1));
}

async function loadModels() {
  let list;
  try {
    list = await api("GET", "/v1/models");
  } catch (e) {
    setStatus(e.status === 401 ? "This server needs a bearer token: enter it above." : e.message, true);
    if (e.status === 401) $("token").focus();
    return;
  }
  const sel = $("model");
  sel.replaceChildren(...list.models.map((m) => el("option", { value: modelKey(m), text: modelKey(m) })));
  if (!list.models.length) { setStatus("No model is visible to you.", true); return; }
  setStatus("Choose at least one metric, then run.");
  if (pending && list.models.some((m) => modelKey(m) === pending.model)) sel.value = pending.model;
  await loadModel();
}

async function loadModel() {
  try {
    detail = await api("GET", modelURL($("model").value));
  } catch (e) {
    setStatus(e.message, true);
    return;
  }
  $("model-desc").textContent = detail.description || "";
  const choice = (name, desc, extra) => el("label", {}, el("input", { type: "checkbox", value: name }), el("span", { text: name }),
    el("small", { text: [extra, desc].filter(Boolean).join(" · ") }));
  $("metrics").replaceChildren(...detail.metrics.map((m) => choice(m.name, m.description, m.datatype)));
  const dims = [];
  const times = [el("option", { value: "", text: "none" })];
  for (const ds of detail.datasets) {
    for (const d of ds.dimensions) {
      dims.push(choice(d.name, d.description || d.label, d.datatype + (d.masked ? " (masked)" : "")));
      if (d.is_time) times.push(el("option", { value: d.name, text: d.name }));
    }
  }
  $("dimensions").replaceChildren(...dims);
  $("time-dim").replaceChildren(...times);
  $("filters").replaceChildren();
  if (pending && pending.model === modelKey(detail)) {
    const s = pending;
    pending = null;
    for (const i of $("metrics").querySelectorAll("input")) i.checked = s.metrics.includes(i.value);
    for (const i of $("dimensions").querySelectorAll("input")) i.checked = s.dimensions.includes(i.value);
    if ([...$("time-dim").options].some((o) => o.value === s.time)) $("time-dim").value = s.time;
    $("grain").value = s.grain;
    $("from").value = s.from;
    $("to").value = s.to;
    $("limit").value = s.limit;
    for (const f of s.filters) addFilter(f);
    if (s.metrics.length) await run();
  }
}

function addFilter(f) {
  const fields = el("select", { class: "f-field" });
  for (const ds of detail.datasets) for (const d of ds.dimensions) fields.append(el("option", { value: d.name, text: d.name }));
  const ops = el("select", { class: "f-op" }, ...OPS.map((o) => el("option", { value: o, text: o })));
  const values = el("input", { class: "f-values", placeholder: "values, comma-separated" });
  const remove = el("button", { type: "button", text: "×", title: "remove" });
  const row = el("div", { class: "filter" }, fields, ops, values, remove);
  remove.addEventListener("click", () => row.remove());
  if (f) { fields.value = f.field; ops.value = f.op; values.value = (f.values || []).join(","); }
  $("filters").append(row);
}

// --- answers ------------------------------------------------------------------

async function run() {
  const s = formState();
  if (!s.metrics.length) { setStatus("Choose at least one metric.", true); return; }
  writeHash(s);
  const q = buildQuery(s);
  const path = modelURL(s.model);
  setStatus("Running…");
  const started = performance.now();
  let resp;
  try {
    resp = await api("POST", path + "/query", q);
  } catch (e) {
    setStatus(e.message, true);
    $("result").replaceChildren();
    $("chart").replaceChildren();
    return;
  }
  const ms = Math.round(performance.now() - started);
  setStatus(resp.row_count + " rows" + (resp.truncated ? " (truncated by the server's row cap)" : "") + " in " + ms + " ms · model version " + resp.model_version.slice(0, 19));
  renderTable(resp);
  renderChart(resp);
  try {
    const p = await api("POST", path + "/sql", q);
    $("sql").textContent = p.sql;
  } catch (e) {
    $("sql").textContent = e.code === "OSS5007" ? "The SQL is not shown to your role (OSS5007): it would reveal its governance rules." : e.message;
  }
}

function formatValue(v, type) {
  if (v === null) return "null";
  if (typeof v === "number" && NUMERIC.has(type)) return v.toLocaleString("en-US", { maximumFractionDigits: 4 });
  return String(v);
}

function renderTable(resp) {
  const head = el("tr", {}, ...resp.columns.map((c) => el("th", { "data-name": c.name }, c.name + " ", el("small", { text: c.type }))));
  const rows = resp.rows.map((r) => el("tr", {}, ...r.map((v, i) => {
    const type = resp.columns[i].type;
    return el("td", { class: NUMERIC.has(type) ? "num" : "", "data-value": JSON.stringify(v), text: formatValue(v, type) });
  })));
  $("result").replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows));
}

// renderChart draws the first metric: a line per series over a time
// dimension with a grain, or bars over the first dimension.
function renderChart(resp) {
  const box = $("chart");
  box.replaceChildren();
  const mi = resp.columns.findIndex((c) => c.kind === "metric");
  const di = resp.columns.findIndex((c) => c.kind === "dimension");
  if (mi < 0 || di < 0 || !resp.rows.length) return;
  const isTime = !!resp.columns[di].grain;
  const others = resp.columns.map((c, i) => i).filter((i) => i !== di && resp.columns[i].kind === "dimension");
  const W = 760, H = 280, L = 70, B = 60, T = 20, R = 50;
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("width", W);
  svg.setAttribute("height", H);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", resp.columns[mi].name + " by " + resp.columns[di].name);
  const add = (tag, attrs, text) => {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    svg.append(e);
    return e;
  };
  const vals = resp.rows.map((r) => Number(r[mi])).filter((v) => isFinite(v));
  const max = Math.max(0, ...vals), min = Math.min(0, ...vals);
  const y = (v) => T + (H - T - B) * (1 - (v - min) / ((max - min) || 1));
  add("line", { x1: L, y1: y(0), x2: W - R, y2: y(0), stroke: "#999" });
  for (const t of [min, (min + max) / 2, max]) {
    add("text", { x: L - 6, y: y(t) + 4, "text-anchor": "end", "font-size": 11 }, t.toLocaleString("en-US", { maximumFractionDigits: 2 }));
  }
  add("text", { x: L, y: 12, "font-size": 12, "font-weight": "bold" }, resp.columns[mi].name);
  const colors = ["#3366cc", "#dc3912", "#ff9900", "#109618", "#990099", "#0099c6", "#dd4477", "#66aa00"];
  if (isTime) {
    const xs = [...new Set(resp.rows.map((r) => String(r[di])))].sort();
    const x = (k) => L + (W - L - R) * (xs.length > 1 ? xs.indexOf(k) / (xs.length - 1) : 0.5);
    const series = new Map();
    for (const r of resp.rows) {
      const key = others.map((i) => String(r[i])).join(" / ");
      if (!series.has(key)) series.set(key, []);
      series.get(key).push([String(r[di]), Number(r[mi])]);
    }
    [...series.entries()].slice(0, colors.length).forEach(([key, pts], n) => {
      pts.sort((a, b) => (a[0] < b[0] ? -1 : 1));
      add("polyline", { points: pts.map(([k, v]) => `${x(k)},${y(v)}`).join(" "), fill: "none", stroke: colors[n], "stroke-width": 2 });
      for (const [k, v] of pts) add("circle", { cx: x(k), cy: y(v), r: 3, fill: colors[n] });
      if (key) add("text", { x: W - R, y: T + 14 * n, "text-anchor": "end", "font-size": 11, fill: colors[n] }, key);
    });
    const step = Math.ceil(xs.length / 12);
    xs.forEach((k, i) => { if (i % step === 0) add("text", { x: x(k), y: H - B + 16, "text-anchor": "middle", "font-size": 10 }, k.slice(0, 10)); });
  } else {
    const rows = resp.rows.slice(0, 40);
    const bw = (W - L - R) / rows.length;
    rows.forEach((r, i) => {
      const v = Number(r[mi]);
      if (!isFinite(v)) return;
      const top = Math.min(y(v), y(0));
      const bar = add("rect", { x: L + i * bw + 1, y: top, width: Math.max(1, bw - 2), height: Math.abs(y(v) - y(0)), fill: colors[0] });
      bar.append(Object.assign(document.createElementNS(NS, "title"), { textContent: String(r[di]) + ": " + v }));
      add("text", { x: L + i * bw + bw / 2, y: H - B + 12, "text-anchor": "end", "font-size": 10,
        transform: `rotate(-45 ${L + i * bw + bw / 2} ${H - B + 12})` }, String(r[di]).slice(0, 14));
    });
  }
  box.append(svg);
}

// --- wiring -------------------------------------------------------------------

document.addEventListener("DOMContentLoaded", () => {
  if (!$("token").value) $("token").value = sessionStorage.getItem("ossie-token") || "";
  $("token").addEventListener("change", () => {
    sessionStorage.setItem("ossie-token", token());
    loadModels();
  });
  $("model").addEventListener("change", loadModel);
  $("add-filter").addEventListener("click", () => addFilter());
  $("query").addEventListener("submit", (ev) => { ev.preventDefault(); run(); });
  pending = location.hash.length > 1 ? readHash() : null;
  loadModels().finally(() => { document.body.dataset.ready = "1"; });
});
