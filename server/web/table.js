// Ossie explorer: the answer as a table, sortable by clicking a column's
// header (ascending, then descending). Sorting reorders the rows of the
// answer shown, in the browser: numbers by value, other values by their
// text in code point order (as the engines order strings), nulls last
// either way, ties in the answer's order. The charts follow the order.
"use strict";

// sortRows returns rows ordered by column i ("asc" or "desc").
function sortRows(rows, i, dir, numeric) {
  const sign = dir === "desc" ? -1 : 1;
  const cmp = (a, b) => {
    const x = a[1][i], y = b[1][i];
    const xn = x === null || x === undefined, yn = y === null || y === undefined;
    if (xn || yn) return xn && yn ? 0 : xn ? 1 : -1;
    if (numeric) return sign * (Number(x) - Number(y));
    const xs = String(x), ys = String(y);
    return sign * (xs < ys ? -1 : xs > ys ? 1 : 0);
  };
  return rows.map((r, n) => [n, r]).sort((a, b) => cmp(a, b) || a[0] - b[0]).map((p) => p[1]);
}

// orderedRows applies a sort ({key: column name, dir}) to an answer; an
// unknown column leaves the answer's order.
function orderedRows(resp, sort) {
  const i = sort ? resp.columns.findIndex((c) => c.name === sort.key) : -1;
  if (i < 0) return resp.rows;
  return sortRows(resp.rows, i, sort.dir, NUMERIC.has(resp.columns[i].type));
}

// renderTable writes the answer into #result in the given order; a click
// on a header calls onSort with the column's new sort.
function renderTable(resp, rows, sort, onSort) {
  const head = el("tr", {}, ...resp.columns.map((c) => {
    const active = sort && sort.key === c.name;
    const th = el("th", { "data-name": c.name, "aria-sort": active ? (sort.dir === "desc" ? "descending" : "ascending") : "none",
      class: NUMERIC.has(c.type) ? "num" : "", title: "Sort by " + c.name },
    el("button", { type: "button", class: "sort" }, c.name, el("small", { text: " " + c.type }),
      el("span", { class: "arrow", "aria-hidden": "true", text: active ? (sort.dir === "desc" ? " ▼" : " ▲") : "" })));
    th.querySelector("button").addEventListener("click", () =>
      onSort({ key: c.name, dir: active && sort.dir === "asc" ? "desc" : "asc" }));
    return th;
  }));
  const body = rows.map((r) => el("tr", {}, ...r.map((v, i) => {
    const type = resp.columns[i].type;
    return el("td", { class: (NUMERIC.has(type) ? "num" : "") + (v === null ? " null" : ""), "data-value": JSON.stringify(v), text: formatValue(v, type) });
  })));
  $("result").replaceChildren(el("thead", {}, head), el("tbody", {}, ...body));
}
