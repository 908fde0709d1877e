// Ossie explorer: a single page over the semantic API of the server that
// serves it (/v1/models, /query, /sql). No framework, no network access
// beyond that server. This file holds the form, the API calls and the
// link; chart.js draws, table.js sorts, format.js writes values, dom.js
// helps. The query and the table's sort live in the URL fragment, so a
// link reproduces the answer; the bearer token lives in sessionStorage.
"use strict";

const OPS = ["=", "!=", "in", "not_in", "gt", "gte", "lt", "lte", "between", "contains", "starts_with", "is_null", "is_not_null"];
let detail = null; // the current model's metadata
let pending = null; // the query of the URL, applied once its model loads
let answer = null; // the last answer shown, and its sort: {resp, sort}

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
  const box = $("status");
  box.textContent = text;
  box.className = isError ? "error" : "muted";
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
    sort: parseSort(p.get("sort")),
  };
}

// parseSort reads the table's sort from the fragment ("column:asc" or
// "column:desc"; the column name may itself hold colons).
function parseSort(v) {
  const m = /^(.+):(asc|desc)$/.exec(v || "");
  return m ? { key: m[1], dir: m[2] } : null;
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
  if (s.sort) p.set("sort", s.sort.key + ":" + s.sort.dir);
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
    if (s.metrics.length) await run(s.sort);
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

// run asks the server for the form's query and shows the answer: status,
// charts, table (in the sort of the link, or the one last clicked) and
// the planned SQL as the server wrote it.
async function run(sort) {
  const s = formState();
  if (!s.metrics.length) { setStatus("Choose at least one metric.", true); return; }
  s.sort = sort !== undefined ? sort : answer && answer.sort;
  const q = buildQuery(s);
  const path = modelURL(s.model);
  setStatus("Running…");
  const started = performance.now();
  let resp;
  try {
    resp = await api("POST", path + "/query", q);
  } catch (e) {
    writeHash(s);
    setStatus(e.message, true);
    answer = null;
    $("result").replaceChildren();
    $("charts").replaceChildren();
    $("legend").replaceChildren();
    return;
  }
  const ms = Math.round(performance.now() - started);
  setStatus(resp.row_count + " rows" + (resp.truncated ? " (truncated by the server's row cap)" : "") + " in " + ms + " ms · model version " + resp.model_version.slice(0, 19));
  if (s.sort && !resp.columns.some((c) => c.name === s.sort.key)) s.sort = null;
  writeHash(s);
  answer = { resp, sort: s.sort, state: s };
  show();
  $("sql").textContent = "";
  try {
    const p = await api("POST", path + "/sql", q);
    $("sql").textContent = p.sql;
  } catch (e) {
    $("sql").textContent = e.code === "OSS5007" ? "The SQL is not shown to your role (OSS5007): it would reveal its governance rules." : e.message;
  }
}

// show draws the current answer in its sort; a click on a table header
// sorts again, redraws, and records the sort in the link.
function show() {
  const rows = orderedRows(answer.resp, answer.sort);
  renderTable(answer.resp, rows, answer.sort, (sort) => {
    answer.sort = sort;
    answer.state.sort = sort;
    writeHash(answer.state);
    show();
  });
  renderCharts(answer.resp, rows, describeMetric);
}

function describeMetric(name) {
  const m = detail && detail.metrics.find((x) => x.name === name);
  return (m && m.description) || "";
}

// --- wiring -------------------------------------------------------------------

// applyHash loads the query of the URL fragment: its model, then its
// members and filters, then runs it (loadModel does the last two).
function applyHash() {
  pending = location.hash.length > 1 ? readHash() : null;
  return loadModels();
}

document.addEventListener("DOMContentLoaded", () => {
  if (!$("token").value) $("token").value = sessionStorage.getItem("ossie-token") || "";
  $("token").addEventListener("change", () => {
    sessionStorage.setItem("ossie-token", token());
    loadModels();
  });
  $("model").addEventListener("change", loadModel);
  $("add-filter").addEventListener("click", () => addFilter());
  $("query").addEventListener("submit", (ev) => { ev.preventDefault(); run(); });
  // A link pasted into this tab's address bar (writeHash's replaceState
  // fires no hashchange).
  window.addEventListener("hashchange", applyHash);
  applyHash().finally(() => { document.body.dataset.ready = "1"; });
});
