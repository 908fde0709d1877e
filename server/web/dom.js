// Ossie explorer: small DOM helpers shared by the page's scripts (no
// framework). textWidth measures with the page's own fonts, so the charts
// lay labels out from real widths rather than guesses per character.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG_NS = "http://www.w3.org/2000/svg";

// el creates an HTML element; attrs.text sets its text, other attrs are
// attributes; children are appended (nodes or strings).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

// svgEl creates an SVG element with attributes and an optional text, and
// appends it to parent when one is given.
function svgEl(parent, tag, attrs, text) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.append(e);
  return e;
}

// tooltip gives an SVG element a native tooltip (an SVG <title> child).
function tooltip(node, text) {
  svgEl(node, "title", {}, text);
  return node;
}

// textWidth is the rendered width in pixels of text at a font size, as an
// SVG <text> in this page draws it (a hidden SVG kept for measuring).
const widthCache = new Map();
function textWidth(text, size) {
  const key = size + "\u0000" + text;
  if (widthCache.has(key)) return widthCache.get(key);
  let ruler = $("ruler");
  if (!ruler) {
    ruler = svgEl(null, "svg", { id: "ruler", "aria-hidden": "true", width: 1, height: 1 });
    document.body.append(ruler);
  }
  const t = svgEl(ruler, "text", { "font-size": size }, text);
  const w = t.getComputedTextLength();
  t.remove();
  widthCache.set(key, w);
  return w;
}

// fitText shortens text with an ellipsis until it is at most width pixels
// wide at the font size; it returns the text unchanged when it fits.
function fitText(text, size, width) {
  if (textWidth(text, size) <= width) return text;
  let lo = 0, hi = text.length;
  while (lo < hi) { // the longest prefix whose ellipsised form fits
    const mid = Math.ceil((lo + hi) / 2);
    if (textWidth(text.slice(0, mid).trimEnd() + "…", size) <= width) lo = mid;
    else hi = mid - 1;
  }
  return text.slice(0, lo).trimEnd() + "…";
}
