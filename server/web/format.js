// Ossie explorer: how values are written on the page. Cells and tooltips
// show a value in full; axis ticks are rounded to the tick step, so every
// tick reads differently and no more digits than the step needs.
"use strict";

const NUMERIC = new Set(["Integer", "Decimal", "Float"]);
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

// formatValue writes one answer value: numbers of numeric columns grouped
// with up to 4 decimals, null as "null", the rest as the API sent it.
function formatValue(v, type) {
  if (v === null || v === undefined) return "null";
  if (NUMERIC.has(type) && v !== "" && isFinite(Number(v))) {
    return Number(v).toLocaleString("en-US", { maximumFractionDigits: 4 });
  }
  return String(v);
}

// tickFormat returns the writer of the ticks of an axis whose ticks are
// step apart and reach magnitude (the largest absolute tick): thousands,
// millions and billions are abbreviated (k, M, B) when the step is a
// whole number of a tenth of that unit, so "1.5M" never hides a digit.
function tickFormat(step, magnitude) {
  for (const [unit, suffix] of [[1e9, "B"], [1e6, "M"], [1e3, "k"]]) {
    if (magnitude >= 10 * unit && step >= unit / 10) {
      const digits = Math.max(0, -Math.floor(Math.log10(step / unit) + 1e-9));
      return (v) => (v / unit).toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits }) + (v === 0 ? "" : suffix);
    }
  }
  const digits = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  return (v) => v.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

// timeLabel writes a time dimension's value (ISO 8601 date or timestamp,
// as the API returns it) at its grain: 2024, 2024 Q1, Jan 2024,
// 2024-01-05, 2024-01-05 13:00. Parsed from the text, not through Date,
// so the browser's time zone never shifts a period.
function timeLabel(v, grain) {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}))?/.exec(String(v));
  if (!m) return String(v);
  const [, y, mo, d, h, mi] = m;
  switch (grain) {
    case "year": return y;
    case "quarter": return y + " Q" + (Math.floor((Number(mo) - 1) / 3) + 1);
    case "month": return MONTHS[Number(mo) - 1] + " " + y;
    case "hour": case "minute": return `${y}-${mo}-${d} ${h || "00"}:${mi || "00"}`;
    default: return `${y}-${mo}-${d}`;
  }
}
