// The specviz step player: one ES module, no build step, nothing fetched. It receives a whole round as frames of
// plain data (specviz/player/frames.py builds them) and steps through them in the browser: Step, Back, Play, Jump
// to, Reset, and the clicker keys (PageDown, Space, → and PageUp, ←) bound in the top document. Python decides what
// every step means; this module draws primitives (bars, markers, levels, a tree's nodes, a draw strip, chips) and
// moves them between two frames: each element has a key, an element that is new grows out of the one its frame
// names (`grow`), and `stage` orders a transition's parts. User text (token labels) is only ever set as text
// (textContent, text nodes), never parsed as HTML.
//
// The Playground mounts it with Streamlit's custom components v2: `export default` is called with {data,
// parentElement, setStateValue, setTriggerValue} each time the data changes. The step lives here; the address bar
// follows it (history.replaceState), and Python hears of it only when it needs it: a trigger `action` when the
// player needs another round or scenario (past the round's edge, Next round, New seed, a jump beyond the round, a
// lecture's next entry), and the state `at` just before the user touches anything else on the page (a tab, a
// sidebar control, another page), so that every other part of the page reads the step shown here. The exported
// deck (specviz/player/deck.py) calls the same default export with its frames and no server behind it.

const SCHEMA = 1;
const NS = "http://www.w3.org/2000/svg";
const SPEEDS = {slow: {motion: 600, dwell: 2000}, normal: {motion: 400, dwell: 1000}, fast: {motion: 250, dwell: 500}};
const STEP_KEYS = ["PageDown", " ", "ArrowRight"], BACK_KEYS = ["PageUp", "ArrowLeft"];
const FONTS = {false: {size: 18, small: 15, title: 22}, true: {size: 24, small: 19, title: 26}};
const HEIGHTS = {bars: {false: 380, true: 420}, tree: {false: 440, true: 430}, round: {false: 300, true: 360}};
const MIN_COLUMN = 64;  // px between a tree's levels, at the least, where its last level's labels want room
const WIDE_BARS = 320;  // a chart across the page (a correction, not in presenter mode): its draw fits beneath it
const CUES = ["p", "q", "residual", "overlap", "theory", "empirical", "accepted", "correction", "bonus", "prompt"];
const STATES = {  // a tree node's state: its marker's shape and colour cue (the legend's words come with the frame)
  root: ["square", "prompt"], drafted: ["diamond", "q"], accepted: ["circle", "accepted"],
  rejected: ["x", "correction"], unchecked: ["circle", "overlap"], correction: ["triangle", "correction"],
  bonus: ["star", "bonus"], pruned: ["diamond", "overlap"],
};
const OPEN_STATES = ["rejected", "unchecked", "pruned"];  // drawn as an outline only
const TEXT_INPUTS = ["text", "search", "number", "email", "password", "tel", "url", "date", "time",
                     "datetime-local", "month", "week"];
const registry = new WeakMap();  // parentElement -> Player
const w = window;

// --- small helpers -----------------------------------------------------------------------------------------------
function h(tag, cls, parent, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (parent) parent.appendChild(node);
  return node;
}

function s(tag, attrs, parent) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);
const ease = (t) => (t < 0.5 ? 4 * t * t * t : 1 - Math.pow(-2 * t + 2, 3) / 2);
const reducedMotion = () => !!(w.matchMedia && w.matchMedia("(prefers-reduced-motion: reduce)").matches);

let measureCtx = null, family = null, lastFont = "";
const widths = new Map();
function textWidth(text, size, weight) {  // px of a text in the page's font (canvas measures it as drawn)
  if (!measureCtx) {
    measureCtx = document.createElement("canvas").getContext("2d");
    family = getComputedStyle(document.body || document.documentElement).fontFamily || "sans-serif";
  }
  const font = `${weight || 400} ${size}px ${family}`;
  const key = font + "|" + text;
  let found = widths.get(key);
  if (found === undefined) {
    if (font !== lastFont) { measureCtx.font = font; lastFont = font; }
    found = measureCtx.measureText(String(text)).width;
    if (widths.size > 20000) widths.clear();
    widths.set(key, found);
  }
  return found;
}

function wrap(text, width, size) {  // lines of a title, broken after ': ' or ', ' only (a number stays whole)
  if (textWidth(text, size) <= width) return [text];
  const pieces = String(text).split(/(?<=[:,]) /);
  const lines = [];
  let line = "";
  for (const piece of pieces) {
    const next = line ? `${line} ${piece}` : piece;
    if (line && textWidth(next, size) > width) { lines.push(line); line = piece; } else line = next;
  }
  lines.push(line);
  return lines;
}

function fitSize(text, width, size, least) {  // the largest type up to `size` that fits `width` (never below least)
  const natural = textWidth(text, size);
  return natural <= width ? size : Math.max(least, Math.floor(size * width / natural));
}

// --- motion: numeric attributes of keyed SVG elements, tweened on animation frames --------------------------------
const NUMERIC = new Set(["x", "y", "width", "height", "x1", "y1", "x2", "y2", "cx", "cy", "r", "opacity", "tx", "ty",
                         "sc"]);

class Motion {
  constructor() { this.tweens = new Map(); this.frame = null; this.frames = 0; }

  get running() { return this.tweens.size > 0; }

  // node's attributes from `from` to `to` over [delay, delay + duration] ms (0: at once)
  // pop: the element waits unseen for its stage, then shows at once where it starts and moves from there
  add(node, from, to, delay, duration, onEnd, pop) {
    const old = this.tweens.get(node);
    if (old && old.onEnd && old.onEnd !== onEnd) old.onEnd(true);
    if (!duration) { apply(node, to); if (onEnd) onEnd(false); this.tweens.delete(node); return; }
    apply(node, from);
    this.tweens.set(node, {from, to, start: performance.now() + delay, duration, onEnd, pop});
    if (!this.frame) this.frame = w.requestAnimationFrame((t) => this.tick(t));
  }

  tick(now) {
    this.frame = null;
    this.frames += 1;
    for (const [node, tw] of this.tweens) {
      const t = clamp((now - tw.start) / tw.duration, 0, 1);
      if (t <= 0) continue;
      const k = ease(t), cur = {};
      for (const key of Object.keys(tw.to)) {
        const a = tw.from[key], b = tw.to[key];
        if (Array.isArray(b)) cur[key] = b.map((v, i) => (Array.isArray(a) && a[i] !== undefined ? a[i] + (v - a[i]) * k : v));
        else if (typeof b === "number" && typeof a === "number") cur[key] = a + (b - a) * k;
        else cur[key] = b;
      }
      if (tw.pop) cur.opacity = tw.to.opacity;
      apply(node, cur);
      if (t >= 1) { this.tweens.delete(node); if (tw.onEnd) tw.onEnd(false); }
    }
    if (this.tweens.size) this.frame = w.requestAnimationFrame((t) => this.tick(t));
  }

  finish() {  // every running tween at its end (a new step came before the last one's motion ended)
    for (const [node, tw] of [...this.tweens]) { apply(node, tw.to); this.tweens.delete(node); if (tw.onEnd) tw.onEnd(true); }
  }
}

function apply(node, attrs) {  // set attributes; tx/ty/sc become the transform, points a polyline's path
  const state = node.__attrs || (node.__attrs = {});
  for (const [key, value] of Object.entries(attrs)) {
    state[key] = value;
    if (key === "tx" || key === "ty" || key === "sc") continue;
    if (key === "x" && node.firstChild && node.firstChild.nodeName === "tspan") {
      for (const t of node.children) if (t.nodeName === "tspan") t.setAttribute("x", +value.toFixed(2));
    }
    if (key === "points") { node.setAttribute("d", pathOf(value)); continue; }
    node.setAttribute(key, typeof value === "number" ? +value.toFixed(2) : value);
  }
  if ("tx" in attrs || "ty" in attrs || "sc" in attrs) {
    const sc = state.sc === undefined ? 1 : state.sc;
    node.setAttribute("transform", `translate(${(state.tx || 0).toFixed(2)},${(state.ty || 0).toFixed(2)})` +
                      (sc !== 1 ? ` scale(${sc.toFixed(3)})` : ""));
  }
}

function pathOf(points) {
  let d = "";
  for (let i = 0; i + 1 < points.length; i += 2) d += (i ? " L" : "M") + points[i].toFixed(1) + "," + points[i + 1].toFixed(1);
  return d;
}

// A layer: the keyed children of one SVG group. `sync` makes its children the given specs: an element whose key
// stays moves from where it is; a new one starts at `enter` (a grown-from element's place) or fades in; one whose
// key is gone fades out. spec: {key, tag, attrs, cls, text, title, enter, stage, children}
class Layer {
  constructor(group, motion) { this.group = group; this.motion = motion; this.nodes = new Map(); }

  sync(specs, timing) {
    const seen = new Set();
    let previous = null;  // the node drawn just before: later specs draw over earlier ones
    for (const spec of specs) {
      seen.add(spec.key);
      let node = this.nodes.get(spec.key);
      const fresh = !node || node.tagName !== spec.tag;
      if (fresh) {
        if (node) node.remove();
        node = s(spec.tag, {});
        node.__key = spec.key;
        this.nodes.set(spec.key, node);
      }
      if (node.previousSibling !== previous || node.parentNode !== this.group) {  // move only what is out of place
        this.group.insertBefore(node, previous ? previous.nextSibling : this.group.firstChild);
      }
      previous = node;
      // what does not move is written only when it changed (a Step redraws a few elements, not all of them)
      const cls = spec.cls || "";
      if (node.__cls !== cls) { node.setAttribute("class", cls); node.__cls = cls; }
      if (spec.text !== undefined && node.__text !== spec.text) { setSvgText(node, spec.text); node.__text = spec.text; }
      if (node.__title !== (spec.title || "")) { setTitle(node, spec.title); node.__title = spec.title || ""; }
      const style = spec.style || "";
      if (node.__style !== style) {
        if (style) node.setAttribute("style", style); else node.removeAttribute("style");
        node.__style = style;
      }
      const numeric = {};
      for (const [k, v] of Object.entries(spec.attrs)) {
        if (NUMERIC.has(k) || k === "points") numeric[k] = v;
        else if ((node.__fixed || (node.__fixed = {}))[k] !== v) { node.setAttribute(k, v); node.__fixed[k] = v; }
      }
      const delay = (spec.stage || 0) * timing.stage;
      let from;
      if (fresh) from = spec.enter ? {...numeric, ...spec.enter} : {...numeric, opacity: 0};
      else from = {...numeric, ...pick(node.__attrs || {}, Object.keys(numeric))};
      const pop = fresh && delay > 0 && !!spec.enter;  // a later stage's element waits unseen, then moves out
      if (fresh && delay) from.opacity = 0;
      if (!("opacity" in numeric)) { numeric.opacity = 1; if (!("opacity" in from)) from.opacity = fresh && !spec.enter ? 0 : 1; }
      if (!fresh && same(from, numeric)) continue;  // it stays where it is: nothing to move or write
      this.motion.add(node, from, numeric, fresh ? delay : 0, timing.duration, undefined, pop);
    }
    for (const [key, node] of [...this.nodes]) {
      if (seen.has(key)) continue;
      this.nodes.delete(key);
      const cur = node.__attrs || {};
      this.motion.add(node, {opacity: cur.opacity === undefined ? 1 : cur.opacity}, {opacity: 0}, 0,
                      timing.duration ? timing.duration * 0.6 : 0, () => node.remove());
    }
  }

  clear() { for (const node of this.nodes.values()) node.remove(); this.nodes.clear(); }
}

function same(a, b) {  // two attribute sets that draw the same (numbers within a hundredth of a pixel)
  for (const key of Object.keys(b)) {
    const x = a[key], y = b[key];
    if (Array.isArray(y)) {
      if (!Array.isArray(x) || x.length !== y.length || y.some((v, i) => Math.abs(v - x[i]) > 0.01)) return false;
    } else if (typeof y === "number") {
      if (typeof x !== "number" || Math.abs(x - y) > 0.01) return false;
    } else if (x !== y) return false;
  }
  return true;
}

function pick(object, keys) { const out = {}; for (const k of keys) if (k in object) out[k] = object[k]; return out; }

function setSvgText(node, text) {  // a text element's lines ("\n" breaks a line), each a tspan, set as text
  const lines = String(text).split("\n");
  const first = node.firstChild;
  const title = node.querySelector ? node.querySelector(":scope > title") : null;
  clear(node);
  if (lines.length === 1) node.appendChild(document.createTextNode(lines[0]));
  else lines.forEach((line, i) => {
    const t = s("tspan", {x: node.getAttribute("x") || 0, dy: i ? "1.15em" : "0"}, node);
    t.textContent = line;
  });
  if (title) node.appendChild(title);
  return first;
}

function setTitle(node, text) {  // a hover text: an SVG <title> child, set as text
  let title = null;
  for (const child of node.childNodes) if (child.nodeName === "title") title = child;
  if (!text) { if (title) title.remove(); return; }
  if (!title) title = s("title", {}, node);
  title.textContent = text;
}

// --- shapes ------------------------------------------------------------------------------------------------------
function shape(kind, r) {  // a marker's outline, centred on 0,0
  const k = r;
  switch (kind) {
    case "diamond": return `M0,${-k} L${k},0 L0,${k} L${-k},0 Z`;
    case "square": return `M${-k * 0.8},${-k * 0.8} H${k * 0.8} V${k * 0.8} H${-k * 0.8} Z`;
    case "triangle": return `M0,${-k} L${k * 0.95},${k * 0.75} L${-k * 0.95},${k * 0.75} Z`;
    case "x": return `M${-k * 0.7},${-k * 0.7} L${k * 0.7},${k * 0.7} M${k * 0.7},${-k * 0.7} L${-k * 0.7},${k * 0.7}`;
    case "star": {
      let d = "";
      for (let i = 0; i < 10; i++) {
        const a = -Math.PI / 2 + i * Math.PI / 5, rr = i % 2 ? k * 0.45 : k * 1.05;
        d += (i ? "L" : "M") + (rr * Math.cos(a)).toFixed(2) + "," + (rr * Math.sin(a)).toFixed(2);
      }
      return d + "Z";
    }
    default: return `M${k},0 A${k},${k} 0 1 1 ${-k},0 A${k},${k} 0 1 1 ${k},0 Z`;  // circle
  }
}

// --- charts: specs for a frame's chart in an SVG of a given width ------------------------------------------------------
// Each returns {specs: [...], height, anchors: {key: [x, y]}} in the SVG's own pixels.

function titleSpecs(title, width, font, prefix) {
  const lines = wrap(title || "", width - 8, font.title);
  return {specs: [{key: `${prefix}:title`, tag: "text", cls: "title", text: lines.join("\n"),
                   attrs: {x: 4, y: font.title + 2}}], height: lines.length * font.title * 1.2 + 10};
}

function legendSpecs(items, width, y, font, prefix) {  // [{name, cue, kind}] flowing in rows: swatch, name
  const specs = [];
  let x = 4, row = 0;
  const size = font.small;
  for (const [i, item] of items.entries()) {
    const wItem = 26 + textWidth(item.name, size) + 18;
    if (x > 4 && x + wItem > width) { x = 4; row += 1; }
    const cy = y + row * (size + 10) + size * 0.55;
    const key = `${prefix}:lg:${i}`;
    if (item.kind === "level") {
      specs.push({key: key + ":s", tag: "line", cls: "level", attrs: {x1: x, x2: x + 20, y1: cy, y2: cy}});
    } else if (item.kind === "line") {
      specs.push({key: key + ":s", tag: "line", cls: `wline s-${item.cue}`, attrs: {x1: x, x2: x + 20, y1: cy, y2: cy}});
    } else if (item.kind === "tick") {
      specs.push({key: key + ":s", tag: "line", cls: "tickmark", attrs: {x1: x, x2: x + 20, y1: cy, y2: cy}});
    } else if (item.kind === "node" || item.kind === "marker") {
      const [form, cue] = item.kind === "node" ? STATES[item.state] || ["circle", item.cue] : ["diamond", item.cue];
      const open = item.kind === "node" && OPEN_STATES.includes(item.state);
      specs.push({key: key + ":s", tag: "path", cls: open ? `node ${item.state}` : `marker c-${cue}`,
                  attrs: {d: shape(form, 8), tx: x + 10, ty: cy}});
    } else {
      specs.push({key: key + ":s", tag: "rect", cls: `bar f-${item.cue} s-${item.cue}`,
                  attrs: {x, y: cy - 7, width: 20, height: 14, opacity: item.opacity || 1}});
    }
    specs.push({key: key + ":t", tag: "text", cls: "small", text: item.name, attrs: {x: x + 26, y: cy + size * 0.35}});
    x += wItem;
  }
  return {specs, height: items.length ? (row + 1) * (size + 10) + 4 : 0};
}

const NAMED_MARK = /^(‘.+’)\s+([a-z][a-z ]*)$/u;  // specviz.scenario's shown label of a punctuation mark
function turnedLabel(label) {  // [the text turned on its side, the mark drawn upright beneath it (or "")]
  const flat = label.replace(/\n/g, " ");
  const found = NAMED_MARK.exec(flat);
  return found ? [found[2], found[1]] : [flat, ""];
}

function cutToWidth(text, width, size) {  // text cut with '…' to fit width px (whole when it fits)
  if (textWidth(text, size) <= width) return text;
  const chars = [...text];  // by code point: a cut never splits a character
  const cut = (n) => chars.slice(0, n).join("") + "…";
  let lo = 0, hi = chars.length - 1;  // the most characters kept with '…' in width (at least none): halved, as a
  while (lo < hi) {                   // link's label may run to thousands and every step measures its ticks
    const mid = Math.ceil((lo + hi) / 2);
    if (textWidth(cut(mid), size) <= width) lo = mid; else hi = mid - 1;
  }
  return cut(lo);
}

function cutNodeLabel(label, width, size) {  // a node's label cut to width, its folded count ('▸+3') kept whole
  const found = /^(.*?)( ▸\+\d+)$/u.exec(label);
  if (!found || textWidth(label, size) <= width) return cutToWidth(label, width, size);
  return cutToWidth(found[1], Math.max(width - textWidth(found[2], size), size * 2), size) + found[2];
}

function legendOf(chart) {
  const seen = new Set(), items = [];
  for (const se of chart.series || []) {
    if (se.legend === false || seen.has(se.name)) continue;
    seen.add(se.name);
    items.push({name: se.name, cue: se.cue, kind: se.kind, opacity: se.opacity});
  }
  for (const lv of chart.levels || []) items.push({name: lv.label, kind: "level"});
  return items;
}

// one panel's plot: axes, ticks, bars, markers, ticks, lines, levels, marks (in a box of the SVG)
function panelSpecs(chart, index, box, font, anchors, prefix) {
  const panel = chart.panels[index];
  const specs = [];
  const labels = panel.labels || [];
  const n = Math.max(labels.length, 1);
  const shareH = panel.share ? font.small * 2.2 : 0;
  // x labels: flat when they fit their band, else turned on their side
  const band = box.w / n;
  const widest = Math.max(0, ...labels.map((l) => Math.max(...String(l).split("\n").map((p) => textWidth(p, font.small)))));
  const lines = Math.max(1, ...labels.map((l) => String(l).split("\n").length));
  const turned = widest + 6 > band;
  // turned on its side, a label is one line, and a named mark ('‘.’ period') its name: the mark itself stands
  // upright beneath it, where a room reads it (a quote turned on its side is a smudge); a long label (a link's
  // vocabulary can hold anything) is cut with '…' past a third of the panel's height, so the bars keep theirs, and
  // its hover holds it whole
  const room = Math.max(font.small * 5, box.h / 3);
  const whole = labels.map((l) => turnedLabel(String(l)));
  const sideways = whole.map(([name, mark]) => [cutToWidth(name, room - (mark ? font.small * 1.3 : 0), font.small), mark]);
  const longest = Math.max(0, ...sideways.map(([name, mark]) => textWidth(name, font.small) + (mark ? font.small * 1.3 : 0)));
  const labelH = turned ? longest + 8 : lines * font.small * 1.15 + 6;
  const titleH = panel.x_title ? font.small * 1.5 : 0;
  const top = box.y + shareH + 6, bottom = box.y + box.h - labelH - titleH;
  const yOf = (v) => bottom - (bottom - top) * clamp(v / panel.y_max, 0, 1.2);
  const xOf = (i) => box.x + band * (i + 0.5);
  // grid and y ticks
  for (const t of panel.y_ticks || []) {
    const y = yOf(t);
    specs.push({key: `${prefix}:grid:${t}`, tag: "line", cls: "grid", attrs: {x1: box.x, x2: box.x + box.w, y1: y, y2: y}});
    specs.push({key: `${prefix}:yt:${t}`, tag: "text", cls: "tick", text: String(+t.toFixed(2)),
                style: "text-anchor:end", attrs: {x: box.x - 6, y: y + font.small * 0.35}});
  }
  if (panel.y_title) {
    const cy = (top + bottom) / 2;
    specs.push({key: `${prefix}:ytitle`, tag: "text", cls: "axis-title", text: panel.y_title,
                style: "text-anchor:middle", attrs: {x: 0, y: 0, transform: `rotate(-90) translate(${-cy},${box.x - 44})`}});
  }
  labels.forEach((label, i) => {
    const x = xOf(i);
    if (turned) {
      const [name, mark] = sideways[i];
      specs.push({key: `${prefix}:xl:${i}`, tag: "text", cls: "tick", text: name,
                  title: name !== whole[i][0] ? String(label) : "",  // a cut label whole on hover
                  style: "text-anchor:end", attrs: {x: 0, y: 0, transform: `translate(${x + font.small * 0.35},${bottom + 6}) rotate(-90)`}});
      if (mark) {
        specs.push({key: `${prefix}:xm:${i}`, tag: "text", cls: "tick", text: mark, style: "text-anchor:middle",
                    attrs: {x, y: bottom + 6 + textWidth(name, font.small) + font.small * 1.1}});
      }
    } else {
      specs.push({key: `${prefix}:xl:${i}`, tag: "text", cls: "tick", text: String(label), style: "text-anchor:middle",
                  attrs: {x, y: bottom + font.small * 1.05 + 2}});
    }
  });
  if (panel.x_title) {
    const size = fitSize(panel.x_title, box.w, font.small, 11);
    specs.push({key: `${prefix}:xtitle`, tag: "text", cls: "axis-title", text: panel.x_title,
                style: `text-anchor:middle;font-size:${size}px`, attrs: {x: box.x + box.w / 2, y: box.y + box.h - 4}});
  }
  specs.push({key: `${prefix}:axis`, tag: "line", cls: "grid", attrs: {x1: box.x, x2: box.x + box.w, y1: bottom, y2: bottom}});
  // the series: bars (side by side by slot, piled by stack), markers, ticks, lines
  const piles = {};
  for (const se of chart.series) {
    if ((se.panel || 0) !== index) continue;
    const slots = se.slots || 1, slot = se.slot || 0;
    const barW = band * 0.8 / slots;
    se.values.forEach((v, i) => {
      if (v === null) return;  // no value at this category (a coin's bound is drawn at the checked token only)
      const left = box.x + band * i + band * 0.1 + slot * barW;
      const key = `bar:${se.key}:${i}`;
      const hover = `${labels[i] !== undefined ? String(labels[i]).replace(/\n/g, " ") : i}: ${se.symbol} = ${se.exact[i]}`;
      const hl = se.highlight === i;
      if (se.kind === "bar") {
        const pileKey = `${slot}:${se.stack || se.key}:${i}`;
        const base = se.stack ? (piles[pileKey] || 0) : 0;
        if (se.stack) piles[pileKey] = base + v;
        const y0 = yOf(base), y1 = yOf(base + v);
        specs.push({key, tag: "rect", cls: `bar f-${se.cue} s-${se.cue}` + (hl ? " hl" : ""), title: hover,
                    grow: se.grow, stage: se.stage,
                    attrs: {x: left, y: y1, width: Math.max(barW - 1, 1), height: Math.max(y0 - y1, 0),
                            opacity: se.opacity || 1}});
        anchors[key] = [left + barW / 2, y1];
      } else if (se.kind === "marker") {
        specs.push({key, tag: "path", cls: `marker c-${se.cue}`, title: hover,
                    attrs: {d: shape("diamond", 8), tx: xOf(i), ty: yOf(v), opacity: se.opacity || 1}});
        anchors[key] = [xOf(i), yOf(v)];
      } else if (se.kind === "tick") {
        specs.push({key, tag: "line", cls: "tickmark", title: hover,
                    attrs: {x1: xOf(i) - band * 0.42, x2: xOf(i) + band * 0.42, y1: yOf(v), y2: yOf(v)}});
        anchors[key] = [xOf(i), yOf(v)];
      }
    });
    if (se.kind === "line") {
      const points = [];
      se.values.forEach((v, i) => { points.push(xOf(i), yOf(v)); });
      specs.push({key: `bar:${se.key}:line`, tag: "path", cls: `wline s-${se.cue}`, title: se.name,
                  attrs: {points}});
      se.values.forEach((v, i) => specs.push({key: `bar:${se.key}:${i}`, tag: "path", cls: `marker c-${se.cue}`,
        title: `${String(labels[i]).replace(/\n/g, " ")}: ${se.symbol} = ${se.exact[i]}`,
        attrs: {d: shape("diamond", 7), tx: xOf(i), ty: yOf(v)}}));
    }
  }
  for (const [i, lv] of (chart.levels || []).entries()) {
    if ((lv.panel || 0) !== index) continue;
    const y = yOf(lv.y);
    specs.push({key: `${prefix}:level:${i}`, tag: "line", cls: "level", title: `${lv.label}: ${lv.exact}`,
                attrs: {x1: box.x, x2: box.x + box.w, y1: y, y2: y}});
  }
  if (panel.share) {
    const sh = panel.share, y = box.y + 2, wBar = box.w * clamp(sh.value, 0, 1);
    const inside = sh.value >= 0.6;
    specs.push({key: `${prefix}:share`, tag: "rect", cls: "share", title: `${sh.text} (${sh.meaning}) = ${sh.exact}`,
                attrs: {x: box.x, y, width: wBar, height: font.small * 1.6}});
    const size = fitSize(sh.text, inside ? wBar - 8 : box.w - wBar - 6, font.small, 10);
    specs.push({key: `${prefix}:share-t`, tag: "text", cls: "small", text: sh.text,
                style: `font-size:${size}px;${inside ? "fill:#FFF" : ""}`,
                attrs: {x: inside ? box.x + 6 : box.x + wBar + 5, y: y + font.small * 1.15}});
  }
  for (const [i, mk] of (chart.marks || []).entries()) {
    if ((mk.panel || 0) !== index) continue;
    const x = xOf(mk.at), y = yOf(mk.y);
    const lean = mk.at > (n - 1) / 2 ? "end" : "start";
    const size = font.size;
    const tw = Math.min(textWidth(mk.text, size), box.w * 0.95);
    const ty = Math.max(y - 40, top + size);
    const tx = lean === "end" ? x + 8 : x - 8;
    const bgX = lean === "end" ? tx - tw - 4 : tx - 2;
    specs.push({key: i ? `mark:${i}` : "mark", tag: "g", cls: "", attrs: {tx: 0, ty: 0}, children: true});
    specs.push({key: `mark-line:${i}`, tag: "line", cls: "mark-line", attrs: {x1: x, x2: x, y1: ty + 4, y2: y - 3}});
    specs.push({key: `mark-head:${i}`, tag: "path", cls: "", style: "fill:#000",
                attrs: {d: "M-5,-9 L5,-9 L0,0 Z", tx: x, ty: y - 2}});
    specs.push({key: `mark-bg:${i}`, tag: "rect", cls: "mark-bg", attrs: {x: bgX, y: ty - size, width: tw + 6, height: size * 1.25}});
    specs.push({key: `mark-text:${i}`, tag: "text", cls: "", text: mk.text,
                style: `text-anchor:${lean === "end" ? "end" : "start"}`, attrs: {x: tx, y: ty}});
    anchors[i ? `mark:${i}` : "mark"] = [x, y];
  }
  return specs.filter((spec) => !spec.children);
}

function barsChart(chart, width, height, font) {
  const anchors = {};
  const head = titleSpecs(chart.title, width, font, "c");
  const legend = legendSpecs(legendOf(chart), width, head.height, font, "c");
  const top = head.height + legend.height + 4;
  const panels = chart.panels.length;
  const left = chart.panels[0].y_title ? 62 : 44, right = 16, gap = panels > 1 ? 56 : 0;
  const pw = (width - left - right - gap * (panels - 1)) / panels;
  let specs = [...head.specs, ...legend.specs];
  for (let i = 0; i < panels; i++) {
    const box = {x: left + i * (pw + gap), y: top, w: pw, h: height - top - 4};
    specs = specs.concat(panelSpecs(chart, i, box, font, anchors, `c:p${i}`));
  }
  return {specs, height, anchors};
}

function treeChart(chart, width, height, font) {
  const anchors = {};
  const head = titleSpecs(chart.title, width, font, "c");
  const items = (chart.states || []).map(([state, name]) => ({name, state, kind: "node"}));
  if (chart.panel) for (const it of legendOf(chart.panel)) items.push(it);
  const legend = legendSpecs(items, width, head.height, font, "c");
  const top = head.height + legend.height + 6;
  const treeW = chart.panel ? width * 0.56 : width - 8;
  const nodes = chart.nodes || [];
  const maxX = Math.max(1, ...nodes.map((n) => n.x)), maxY = Math.max(0, ...nodes.map((n) => n.y));
  const inner = new Set((chart.edges || []).map((e) => e[0]));
  const size = font.size * 0.8;
  // the last level's labels ('‘.’ period ▸+3') get the room they need after it, up to the panel's gap, as long as
  // a column keeps MIN_COLUMN px; what still does not fit is set smaller (leafSize)
  const edge = chart.panel ? treeW + 24 : width - 4;  // a label may run into the gap before the panel, not past it
  const ownOf = (n) => (chart.current === n.key ? 20 : 13);
  const longest = treeW * 0.3;  // a longer leaf label is cut with '…' rather than squeeze the tree's columns
  const need = Math.max(0, ...nodes.filter((n) => n.x === maxX && n.key !== "node:root" && !inner.has(n.key))
    .map((n) => ownOf(n) + Math.min(textWidth(n.label, size), longest) + 4));
  const x0 = -0.25, y0 = -0.7, y1 = maxY + 0.7, span0 = maxX + 0.6 - x0, run = maxX - x0;
  const free = treeW - 8 - need + (edge - treeW);
  const wanted = free > 0 ? run * (treeW - 8) / free : Infinity;
  const x1 = x0 + Math.max(span0, Math.min(wanted, (treeW - 8) / MIN_COLUMN));
  const bottom = height - font.small * 2.8;
  const px = (x) => 8 + (treeW - 8) * (x - x0) / (x1 - x0);
  const py = (y) => bottom - (bottom - top) * (y - y0) / (y1 - y0);
  const column = (treeW - 8) / (x1 - x0);
  const byKey = {};
  for (const n of nodes) byKey[n.key] = n;
  const specs = [...head.specs, ...legend.specs];
  (chart.columns || []).forEach((name, i) => {
    if (i > maxX) return;  // a level folded away: its column lies past the shown tree
    specs.push({key: `t:col:${i}`, tag: "text", cls: "tick", text: name, style: "text-anchor:middle",
                attrs: {x: px(i), y: bottom + font.small * 1.3}});
  });
  specs.push({key: "t:xtitle", tag: "text", cls: "axis-title", text: chart.x_title || "", style: "text-anchor:middle",
              attrs: {x: treeW / 2, y: height - 4}});
  for (const [a, b, thick, struck] of chart.edges || []) {  // thin edges first, the accepted path over them
    if (thick || !byKey[a] || !byKey[b]) continue;
    const spec = edgeSpec(a, b, false, byKey, px, py);
    if (struck) spec.cls += " struck";  // a subtree the walk rejected
    specs.push(spec);
  }
  for (const [a, b, thick] of chart.edges || []) if (thick && byKey[a] && byKey[b]) specs.push(edgeSpec(a, b, true, byKey, px, py));
  for (const n of nodes) {
    const [form, cue] = STATES[n.state] || ["circle", "q"];
    const open = OPEN_STATES.includes(n.state);
    const r = n.state === "unchecked" || n.state === "pruned" ? 7 : n.state === "root" ? 8 : 10;
    const x = px(n.x), y = py(n.y);
    const parent = n.parent && byKey[n.parent];
    const enter = parent ? {tx: px(parent.x), ty: py(parent.y), sc: 0.3} : null;
    specs.push({key: n.key, tag: "path", cls: open ? `node ${n.state}` : `node c-${cue}`, title: n.hover, grow: null,
                enterAt: enter, attrs: {d: shape(form, r), tx: x, ty: y, sc: 1}});
    anchors[n.key] = [x, y];
    if (n.key === "node:root") {
      continue;  // its column's tick names it: "prefix"
    }
    const own = ownOf(n);
    const isInner = inner.has(n.key);
    let fsize = size, text = n.label;
    const room = isInner ? column - own - 12 - 3 : n.x === maxX ? edge - x - own - 4 : null;
    if (room !== null) {
      fsize = fitSize(n.label, room, size, isInner ? 11 : 12);
      // what the smallest type cannot fit is cut, whole on hover; an inner label may run over its edges a little
      // (the smallest type's '‘.’ period' still reads there), a leaf's must stop at the panel
      text = cutNodeLabel(n.label, isInner ? room * 1.6 : room, fsize);
    }
    specs.push({key: `${n.key}:label`, tag: "text", cls: "node-label", text, style: `font-size:${fsize}px`,
                title: text === n.label ? "" : n.label,
                enterAt: enter ? {tx: enter.tx - x, ty: enter.ty - y} : null,
                attrs: {x: x + own, y: y + fsize * 0.35, tx: 0, ty: 0}});
  }
  if (chart.current && byKey[chart.current]) {
    const n = byKey[chart.current];
    specs.push({key: "t:ring", tag: "path", cls: "ring", attrs: {d: shape("circle", 18), tx: px(n.x), ty: py(n.y)}});
  }
  let result = {specs, height, anchors};
  if (chart.panel) {
    const panel = {...chart.panel};
    const box = {x: treeW + 30, y: top, w: width - treeW - 30 - 50, h: height - top - 4};
    const panelSpecsOut = panelSpecs({...panel, title: ""}, 0, box, font, anchors, "t:pn");
    // the panel's y axis on its right
    for (const spec of panelSpecsOut) {
      if (spec.key.startsWith("t:pn:yt:")) { spec.attrs.x = box.x + box.w + 6; spec.style = "text-anchor:start"; }
    }
    result.specs = specs.concat(panelSpecsOut);
  }
  return result;
}

function edgeSpec(a, b, thick, byKey, px, py) {
  const p = byKey[a], c = byKey[b];
  return {key: `edge:${b}`, tag: "line", cls: thick ? "edge thick" : "edge",
          enter: {x2: px(p.x), y2: py(p.y)},
          attrs: {x1: px(p.x), y1: py(p.y), x2: px(c.x), y2: py(c.y)}};
}

function roundChart(chart, width, height, font) {
  const anchors = {};
  const head = titleSpecs(chart.title, width, font, "c");
  const specs = [...head.specs];
  const cols = (chart.columns || []).length || 1;
  const left = textWidth("committed", font.small) + 16, right = 16;
  const band = (width - left - right) / cols;
  const top = head.height + font.size * 1.6;
  const rowY = [top + font.size * 1.2, top + font.size * 5.2];
  (chart.columns || []).forEach((name, i) => specs.push({key: `r:col:${i}`, tag: "text", cls: "tick", text: name,
    style: "text-anchor:middle", attrs: {x: left + band * (i + 0.5), y: height - font.small * 1.6}}));
  specs.push({key: "r:xtitle", tag: "text", cls: "axis-title", text: chart.x_title || "", style: "text-anchor:middle",
              attrs: {x: left + (width - left - right) / 2, y: height - 4}});
  (chart.rows || []).forEach((row, r) => {
    const y = rowY[r];
    specs.push({key: `r:name:${r}`, tag: "text", cls: "tick", text: row.name, style: "text-anchor:end",
                attrs: {x: left - 8, y: y + font.small * 0.35}});
    for (const item of row.items) {
      const x = left + band * (item.at + 0.5);
      const form = item.cue === "q" ? "diamond" : item.cue === "correction" ? "x" : item.cue === "bonus" ? "star" : "circle";
      const key = `round:${row.name}:${item.key}`;
      specs.push({key, tag: "path", cls: item.cue === "correction" ? "node rejected" : `node c-${item.cue}`,
                  attrs: {d: shape(form, 12), tx: x, ty: y}});
      specs.push({key: key + ":t", tag: "text", cls: "", text: item.label, style: "text-anchor:middle",
                  attrs: {x, y: r === 0 ? y - 18 : y + 12 + font.size}});
      if (item.struck) specs.push({key: key + ":x", tag: "path", cls: "struck", attrs: {d: shape("x", 20), tx: x, ty: y}});
      anchors[key] = [x, y];
    }
  });
  return {specs, height, anchors};
}

function chartLayout(chart, width, presenter, layout) {
  const font = FONTS[presenter];
  if (!chart) return {specs: [], height: 0, anchors: {}};
  if (chart.type === "bars") {
    return barsChart(chart, width, layout === "wide" && !presenter ? WIDE_BARS : HEIGHTS.bars[presenter], font);
  }
  if (chart.type === "tree") return treeChart(chart, width, HEIGHTS.tree[presenter], font);
  if (chart.type === "round") return roundChart(chart, width, HEIGHTS.round[presenter], font);
  throw new Error(`no drawing for a chart of type ${JSON.stringify(chart.type)}`);
}

// --- the draw strip -------------------------------------------------------------------------------------------------
function stripLayout(strip, width, presenter) {
  const font = FONTS[presenter];
  const size = font.size, specs = [];
  const left = 24, right = 24, plot = width - left - right;
  const titleSize = fitSize(strip.title, width - 8, font.title * 0.95, 12);
  specs.push({key: "s:title", tag: "text", cls: "", text: strip.title, style: `font-size:${titleSize}px`,
              attrs: {x: 4, y: titleSize + 2}});
  if (strip.none) {
    specs.push({key: "s:none", tag: "text", cls: "none-text", text: strip.none, attrs: {x: 4, y: titleSize + size * 2}});
    return {specs, height: titleSize + size * 2.6, anchors: {}};
  }
  const uLabelY = titleSize + 2 + size * (presenter ? 1.3 : 1.6);
  // u's label clears its marker's top (22 px above the strip's top, 2 px up): a gap under the digits
  const barY = uLabelY + (presenter ? 29 : 30), barH = size * (presenter ? 2.1 : 2.8);
  const xOf = (v) => left + plot * v;
  let callouts = 0;
  const placed = [];
  const segSpecs = [];
  const order = strip.segments.map((_, i) => i).sort((a, b) => (a !== strip.chosen) - (b !== strip.chosen) || a - b);
  for (const i of order) {
    const sg = strip.segments[i];
    const x0 = xOf(sg.start), x1 = xOf(sg.end), chosen = i === strip.chosen;
    segSpecs.push({key: `s:seg:${i}`, tag: "rect", cls: `segment f-${sg.cue}` + (chosen ? " chosen" : ""), title: sg.hover,
                   stage: chosen ? 1 : 0, attrs: {x: x0, y: barY, width: Math.max(x1 - x0, 0), height: barH,
                                                   opacity: chosen ? 0.92 : 0.55}});
    const fit = Math.min(size * 0.85, (x1 - x0 - 6) / (0.58 * Math.max(1, sg.label.length)));
    if (fit >= size * 0.55) {
      segSpecs.push({key: `s:lab:${i}`, tag: "text", cls: "seg-label", text: sg.label, style: `text-anchor:middle;font-size:${fit}px`,
                     attrs: {x: (x0 + x1) / 2, y: barY + barH / 2 + fit * 0.35}});
    } else {
      const small = size * 0.85, half = textWidth(sg.label, small, 600) / 2, centre = (x0 + x1) / 2;
      const l = clamp(centre - half, 2, width - 2 - 2 * half);
      if (l >= 0 && !placed.some(([a, b]) => l < b + 8 && l + 2 * half > a - 8)) {
        placed.push([l, l + 2 * half]);
        callouts = 1;
        segSpecs.push({key: `s:call:${i}`, tag: "text", cls: `c-${sg.cue}`, text: sg.label,
                       style: `font-size:${small}px;font-weight:${chosen ? 700 : 600};fill:var(--cue-${sg.cue})`,
                       attrs: {x: l, y: barY + barH + size * 1.15}});
      }
    }
  }
  const axisY = barY + barH + (callouts ? size * 1.4 : 0);
  const ticks = presenter ? [0, 0.2, 0.4, 0.6, 0.8, 1] : [0, 0.5, 1];
  for (const t of ticks) {
    specs.push({key: `s:grid:${t}`, tag: "line", cls: "grid", attrs: {x1: xOf(t), x2: xOf(t), y1: barY - 6, y2: axisY + 4}});
    specs.push({key: `s:tick:${t}`, tag: "text", cls: "tick", text: t.toFixed(1), style: "text-anchor:middle",
                attrs: {x: xOf(t), y: axisY + size * 1.05}});
  }
  specs.push(...segSpecs);
  if (!presenter) specs.push({key: "s:axis", tag: "text", cls: "", text: "u on [0, 1)", style: "text-anchor:middle",
                              attrs: {x: left + plot / 2, y: axisY + size * 2.3}});
  const ux = xOf(strip.u);
  const anchor = strip.u > 0.8 ? "end" : strip.u < 0.2 ? "start" : "middle";
  const labelX = ux + (anchor === "start" ? 14 : anchor === "end" ? -14 : 0);
  // u travels in from the strip's left end and lands on its point
  specs.push({key: "s:u", tag: "path", cls: "u-marker", title: strip.hover, enter: {tx: xOf(0), ty: barY - 2},
              attrs: {d: "M-11,-22 L11,-22 L0,0 Z", tx: ux, ty: barY - 2}});
  specs.push({key: "s:u-label", tag: "text", cls: "", text: strip.u_text, style: `text-anchor:${anchor}`,
              enter: {x: xOf(0) + 14}, attrs: {x: labelX, y: uLabelY}});
  const height = axisY + (presenter ? size * 1.3 + 4 : size * 2.4 + 6);
  return {specs, height, anchors: {}};
}

// --- the history (tokens per finished round) ----------------------------------------------------------------------
function historyLayout(history, finished, width) {
  const font = FONTS[false];
  const rounds = history.rounds.slice(0, finished);
  const height = 320, specs = [];
  const head = titleSpecs(history.title, width, font, "h");
  specs.push(...head.specs);
  const items = [{name: "accepted draft", cue: "accepted"}, {name: "correction", cue: "correction"},
                 {name: "bonus", cue: "bonus"}, {name: "running mean", cue: "empirical", kind: "line"}];
  if (history.expected !== null) items.push({name: `theory ${history.expected.toFixed(3)}`, kind: "level"});
  const legend = legendSpecs(items, width, head.height, font, "h");
  specs.push(...legend.specs);
  const left = 62, right = 16, top = head.height + legend.height + 8, bottom = height - font.small * 3;
  const count = Math.max(10, rounds.length);
  const band = (width - left - right) / count;
  const yMax = history.depth + 1.5;
  const yOf = (v) => bottom - (bottom - top) * v / yMax;
  for (let t = 0; t <= history.depth + 1; t++) {
    specs.push({key: `h:grid:${t}`, tag: "line", cls: "grid", attrs: {x1: left, x2: width - right, y1: yOf(t), y2: yOf(t)}});
    specs.push({key: `h:yt:${t}`, tag: "text", cls: "tick", text: String(t), style: "text-anchor:end", attrs: {x: left - 6, y: yOf(t) + 5}});
  }
  specs.push({key: "h:ytitle", tag: "text", cls: "axis-title", text: "tokens committed", style: "text-anchor:middle",
              attrs: {x: 0, y: 0, transform: `rotate(-90) translate(${-(top + bottom) / 2},${left - 44})`}});
  specs.push({key: "h:xtitle", tag: "text", cls: "axis-title", text: "round", style: "text-anchor:middle",
              attrs: {x: (left + width - right) / 2, y: height - 4}});
  const means = [];
  let total = 0;
  rounds.forEach((r, i) => {
    const x = left + band * i + band * 0.15, bw = band * 0.7;
    const extra = r.ending === "none" ? 0 : 1;
    total += r.accepted + extra;
    means.push(left + band * (i + 0.5), yOf(total / (i + 1)));
    specs.push({key: `h:a:${i}`, tag: "rect", cls: "bar f-accepted s-accepted", title: `round ${r.round + 1}: ${r.accepted} accepted`,
                attrs: {x, y: yOf(r.accepted), width: bw, height: yOf(0) - yOf(r.accepted)}});
    if (extra) specs.push({key: `h:e:${i}`, tag: "rect", cls: `bar f-${r.ending} s-${r.ending}`, title: `round ${r.round + 1}: ${r.ending}`,
                           attrs: {x, y: yOf(r.accepted + 1), width: bw, height: yOf(r.accepted) - yOf(r.accepted + 1)}});
    specs.push({key: `h:x:${i}`, tag: "text", cls: "tick", text: String(r.round + 1), style: "text-anchor:middle",
                attrs: {x: left + band * (i + 0.5), y: bottom + font.small * 1.2}});
  });
  if (means.length >= 2) specs.push({key: "h:mean", tag: "path", cls: "wline s-empirical", title: "running mean", attrs: {points: means}});
  if (history.expected !== null) specs.push({key: "h:theory", tag: "line", cls: "level", title: `theory: ${history.expected_text} tokens per round`,
                                           attrs: {x1: left, x2: width - right, y1: yOf(history.expected), y2: yOf(history.expected)}});
  return {specs, height};
}

// --- the player -----------------------------------------------------------------------------------------------------
class Player {
  constructor(parent, host) {
    this.parent = parent;
    this.host = host;
    this.root = parent.querySelector(".specviz-player");
    this.motion = new Motion();
    this.q = (sel) => this.root.querySelector(sel);
    this.chart = new Layer(this.q("svg.chart"), this.motion);
    this.strip = new Layer(this.q("svg.strip"), this.motion);
    this.history = new Layer(this.q("svg.history"), this.motion);
    this.data = null;
    this.round = null;
    this.index = 0;
    this.playing = false;
    this.timer = null;
    this.waiting = false;
    this.queued = 0;
    this.reported = null;
    this.anchors = {};
    this.shown = -1;
    this.seq = null;
    this.speed = "normal";
    this.pace = "event";
    this.wire();
    this.root.setAttribute("data-state", "ready");
  }

  // --- data in ---------------------------------------------------------------------------------------------------
  update(component) {
    this.send = component;
    const data = decode(component.data);
    if (!data || data.schema !== SCHEMA || !data.round || data.round.schema !== SCHEMA) {
      this.fail(`The step player cannot read this round's data (format ${data && data.schema}, expected ${SCHEMA}).`);
      return;
    }
    const round = data.round;
    const fresh = !this.data;
    const same = this.data && this.data.token === data.token && this.round && this.round.first === round.first &&
      this.data.presenter === data.presenter;
    const adopt = !same || data.seq !== this.seq;
    this.data = data;
    this.round = round;
    this.seq = data.seq;
    this.root.classList.toggle("presenter", !!data.presenter);
    if (data.speed && SPEEDS[data.speed] && !this.speedChosen) { this.speed = data.speed; this.q("select.speed").value = data.speed; }
    this.renderStatic();
    if (adopt) {
      // back on the page (another page of the app, then the Playground again): the step this tab showed last,
      // unless Python has moved it since (seq), even where its report did not reach Python before the page changed
      const mem = keys.memory;
      const resume = fresh && !data.offline && mem && mem.token === data.token && mem.seq === data.seq &&
        mem.step !== data.step ? mem.step : null;
      const at = resume !== null && resume >= round.first && resume <= round.last ? resume : data.step;
      const index = clamp(at - round.first, 0, round.frames.length - 1);
      this.waiting = false;
      this.setBusy(false);
      this.notice = data.notice || "";
      this.show(index, {animate: same && this.shown >= 0});
      this.reported = data.step;
      if (resume !== null) this.resume(resume);
      if (data.playing) this.play(true); else if (!this.queued) this.pause();
      const queued = this.queued;
      this.queued = 0;
      if (queued) this.move(queued > 0 ? 1 : -1);
    } else {
      this.show(this.index, {animate: false, force: true});
    }
  }

  fail(text) {
    this.root.setAttribute("data-state", "ready");
    const box = this.q(".frame-error");
    box.hidden = false;
    box.textContent = text;
  }

  renderStatic() {
    const d = this.data, r = this.round;
    // the pace menu (tree rounds), the jump menu, the lecture banner, what needs a server
    const paceBox = this.q(".pace-box"), pace = this.q("select.pace");
    paceBox.hidden = !r.paces.length;
    if (r.paces.length && pace.options.length !== r.paces.length) {
      clear(pace);
      for (const p of r.paces) { const o = h("option", "", pace, p.label); o.value = p.key; }
    }
    if (!r.paces.some((p) => p.key === this.pace)) this.pace = "event";
    pace.value = this.pace;
    const menu = this.q(".jump .menu");
    if (menu.childElementCount !== (d.targets || []).length) {
      clear(menu);
      for (const t of d.targets || []) {
        const b = h("button", "", menu, t.label);
        b.type = "button";
        b.setAttribute("role", "menuitem");
        b.dataset.target = t.key;
        h("small", "", b, t.help);
        b.addEventListener("click", () => { this.q(".jump").open = false; this.jump(t.key); });
      }
    }
    const lecture = this.q(".lecture");
    lecture.hidden = !d.lecture;
    if (d.lecture) {
      this.q(".lecture-text").textContent = `🎓 ${d.lecture.text}`;
      this.q(".lecture-text").title = d.lecture.text;
      this.q(".lecture-previous").disabled = !d.lecture.previous;
      this.q(".lecture-next").disabled = !d.lecture.next;
    }
    for (const b of this.root.querySelectorAll("[data-server]")) b.hidden = !!d.offline && !b.closest(".lecture");
    this.q(".downloads").hidden = false;
  }

  // --- moving ---------------------------------------------------------------------------------------------------------
  get step() { return this.round ? this.round.first + this.index : 0; }

  target(dir) {  // the frame a Step (dir 1) or Back (dir -1) lands on, at the chosen pace; null past the round
    const frames = this.round.frames, by = this.pace;
    const group = (i) => (by === "event" ? undefined : (frames[i].groups || {})[by]);
    // a coarser pace stops only at the end of each group (a tree's level, or its whole drafting)
    const stop = (i) => i === 0 || group(i) === undefined || i + 1 >= frames.length || group(i + 1) !== group(i);
    let i = this.index + dir;
    while (i > 0 && i < frames.length && !stop(i)) i += dir;
    if (i < 0 || i >= frames.length) return null;
    const d = this.data, first = this.round.first;
    const lo = d.bounds ? d.bounds[0] - first : 0, hi = d.bounds ? d.bounds[1] - first : frames.length - 1;
    return i < lo || i > hi ? null : i;
  }

  move(dir) {
    if (!this.round) return;
    if (this.waiting) { this.queued = clamp(this.queued + dir, -1, 1); return; }
    const i = this.target(dir);
    if (i !== null) { this.notice = ""; this.show(i, {animate: true}); return; }
    // past the round (or a lecture entry): another round comes from the server
    if (this.data.offline) {
      this.say(dir > 0 ? "The end of this round: the deck holds one round." : "The first step of this round.");
      this.pause();
      return;
    }
    if (dir < 0 && this.step === 0 && !this.data.lecture) { this.say("Already at step 1 of round 1."); return; }
    this.request({name: "step", dir, step: this.step, playing: this.playing});
  }

  show(index, {animate, force} = {}) {
    const frames = this.round.frames;
    index = clamp(index, 0, frames.length - 1);
    const changed = index !== this.index || this.shown < 0;
    this.index = index;
    this.draw(frames[index], animate && !reducedMotion());
    this.shown = index;
    if (!this.data.offline) keys.memory = {token: this.data.token, seq: this.seq, step: this.step};
    if (changed || force) this.linkSoon();
  }

  say(text) { this.notice = text; this.renderNotice(); }

  renderNotice() {
    const box = this.q(".notice");
    box.hidden = !this.notice;
    box.textContent = this.notice || "";
  }

  request(action) {  // ask Python for what the browser does not hold: another round, scenario or lecture entry
    if (!this.send || !this.send.setTriggerValue) return;
    this.waiting = true;
    this.setBusy(true);
    this.reported = this.step;
    this.send.setTriggerValue("action", {...action, token: this.data.token});
  }

  resume(step) {  // Python is told the step this tab kept (it brings the round that holds it if that is another)
    const tell = (tries) => {
      if (!this.root.isConnected || this.seq !== keys.memory.seq) return;
      if (!w.__specvizReport) { if (tries > 0) w.setTimeout(() => tell(tries - 1), 50); return; }
      this.reported = step;
      w.__specvizReport({token: this.data.token, step});
    };
    w.setTimeout(() => tell(40), 0);  // the page's reporter mounts after the player
  }

  setBusy(on) { this.q(".busy").hidden = !on; this.root.classList.toggle("waiting", on); }

  report() {  // tell Python where the player stands (before anything else on the page reruns it); true: told
    if (!this.data || this.data.offline || this.waiting || this.reported === this.step) return false;
    this.reported = this.step;
    const value = {token: this.data.token, step: this.step};
    // through the page's reporter (reporter.js): a whole-page run, batched with the click that follows
    if (w.__specvizReport) w.__specvizReport(value);
    else if (this.send && this.send.setStateValue) this.send.setStateValue("at", value);
    return true;
  }

  play(on) {
    if (on === undefined) on = !this.playing;
    this.playing = on;
    const b = this.q("button.play");
    b.querySelector(".icon").textContent = on ? "⏸" : "▶";
    b.querySelector(".word").textContent = on ? "Pause" : "Play";
    w.clearTimeout(this.timer);
    if (on) this.schedule();
  }

  pause() { if (this.playing) this.play(false); }

  schedule() {
    w.clearTimeout(this.timer);
    this.timer = w.setTimeout(() => {
      if (!this.playing || !this.root.isConnected) return;
      this.move(1);
      if (this.playing && !this.waiting) this.schedule();
    }, SPEEDS[this.speed].dwell);
  }

  jump(target) {
    const frames = this.round.frames, r = this.round;
    let found = null;
    if (target === "first rejection" && r.first_rejection !== null && r.first_rejection >= r.first) found = r.first_rejection - r.first;
    else if (target === "first check") found = frames.findIndex((f) => (f.flags || []).includes(target));
    else if (target !== "first rejection") {
      const from = target === "round end" ? this.index : this.index + 1;
      for (let i = from; i < frames.length; i++) if ((frames[i].flags || []).includes(target)) { found = i; break; }
    }
    if (found !== null && found >= 0) {
      const here = found === this.index;
      this.pause();
      this.show(found, {animate: true});
      this.say(here ? (r.here || {})[`${target}@${this.step}`] || "" : "");
      return;
    }
    if (this.data.offline) { this.say(`No ${target} in this round.`); return; }
    this.request({name: "jump", target, step: this.step});
  }

  // --- the URL ---------------------------------------------------------------------------------------------------------
  linkSoon() {  // the address bar follows once the step is on screen (history.replaceState can take tens of ms)
    if (this.linkPending) return;
    this.linkPending = true;
    w.requestAnimationFrame(() => setTimeout(() => this.flushLink(), 0));
  }

  flushLink() {  // now (also when the page is left or reloaded before the step was written)
    if (!this.linkPending) return;
    this.linkPending = false;
    this.writeLink();
  }

  writeLink() {
    const link = this.data && this.data.link;
    if (!link || this.data.offline) return;
    try {
      const url = new URL(w.location.href);
      if (!url.pathname.replace(/\/$/, "").endsWith(link.path)) return;
      const value = String(this.step + link.offset);
      if (url.searchParams.get(link.key) === value && !link.drop.some((k) => url.searchParams.has(k))) return;
      url.searchParams.set(link.key, value);
      for (const k of link.drop) url.searchParams.delete(k);
      w.history.replaceState(w.history.state, "", url.pathname + "?" + url.searchParams.toString() + url.hash);
    } catch (e) { /* an address bar we cannot write (a sandbox): the step still moves */ }
  }

  // --- drawing a frame ----------------------------------------------------------------------------------------------------
  draw(frame, animate) {
    const presenter = !!this.data.presenter;
    const motion = animate ? SPEEDS[this.speed].motion : 0;
    this.motion.finish();
    // every size is read before anything is written: a read after a write would make the browser lay out twice
    const before = animate ? this.rects(frame) : {};
    this.widths = columns(frame.layout || "split", this.rootWidth || (this.rootWidth = this.root.clientWidth));
    this.q(".caption").textContent = frame.caption;
    this.q(".headline").textContent = frame.headline;
    this.renderNotice();
    const body = this.q(".body");
    body.className = `body ${frame.layout || "split"}`;
    const error = this.q(".frame-error");
    error.hidden = true;
    let drawn = null;
    try {
      if (frame.error) throw new Error(frame.error);
      drawn = this.drawFigures(frame, presenter, motion);
    } catch (e) {
      error.hidden = false;
      error.textContent = frame.error || `The step player cannot draw step ${frame.step + 1} (${frame.event}): ${e.message}`;
      this.chart.clear(); this.strip.clear();
      this.q("svg.chart").setAttribute("height", 0);
      this.q("svg.strip").setAttribute("height", 0);
    }
    this.root.style.setProperty("--motion", `${motion / 1000}s`);
    this.drawWords(frame);
    this.drawChips(frame, before, motion, drawn);
    this.drawTables(frame);
    this.root.setAttribute("data-step", String(this.step));
  }

  drawFigures(frame, presenter, motion) {
    const main = this.q(".main"), side = this.q(".specviz-draw");
    const chartSvg = this.q("svg.chart"), stripSvg = this.q("svg.strip");
    const width = Math.max(this.widths.main || 480, 240);
    const layout = chartLayout(frame.chart, width, presenter, frame.layout);
    const stages = layout.specs.some((sp) => sp.stage) ? 2 : 1;
    const timing = {duration: motion / stages, stage: motion / stages};
    const old = this.anchors;
    for (const sp of layout.specs) {
      if (sp.grow) sp.enter = this.growFrom(sp, sp.grow.frame === "new" ? layout.specs : null, old);
      else if (sp.enterAt) sp.enter = sp.enterAt;
    }
    chartSvg.setAttribute("viewBox", `0 0 ${width} ${layout.height}`);
    chartSvg.setAttribute("height", layout.height);
    chartSvg.setAttribute("aria-label", frame.chart ? frame.chart.title : "");
    this.chart.sync(layout.specs, timing);
    this.lastGeometry = Object.fromEntries(layout.specs.filter((sp) => sp.tag === "rect").map((sp) => [sp.key, sp.attrs]));
    this.anchors = layout.anchors;
    if (frame.strip) {
      side.hidden = false;
      const sw = Math.max(this.widths.side || 320, 200);
      const st = stripLayout(frame.strip, sw, presenter);
      stripSvg.setAttribute("viewBox", `0 0 ${sw} ${st.height}`);
      stripSvg.setAttribute("height", st.height);
      stripSvg.setAttribute("aria-label", frame.strip.title + (frame.strip.u_text ? `: ${frame.strip.u_text}` : ""));
      this.strip.sync(st.specs, {duration: motion / 2, stage: motion / 2});
    } else {
      side.hidden = true;
      this.strip.sync([], {duration: 0, stage: 0});
    }
    return layout;
  }

  growFrom(spec, newSpecs, oldAnchors) {  // the start of an element that grows out of another (its geometry)
    const key = spec.grow.key;
    const index = spec.key.split(":").pop();
    const sourceKey = key.includes(":") ? key : `bar:${key}:${index}`;
    let source = null;
    if (newSpecs) { const found = newSpecs.find((sp) => sp.key === sourceKey); source = found ? found.attrs : null; }
    else source = (this.lastGeometry || {})[sourceKey] || null;
    if (!source || !("width" in source)) return {height: 0, y: spec.attrs.y + spec.attrs.height, x: spec.attrs.x, width: spec.attrs.width};
    return {x: source.x, y: source.y, width: source.width, height: source.height};
  }

  drawWords(frame) {
    if (this.wordsOf === frame) return;  // the same step drawn again (a resize): its words stand
    this.wordsOf = frame;
    const list = this.q("ul.lines");
    clear(list);
    for (const line of frame.lines || []) {
      const li = h("li", "", list);
      line.forEach((piece, i) => { if (i % 2) h("b", "", li, piece); else li.appendChild(document.createTextNode(piece)); });
    }
    const exact = this.q("details.exact");
    exact.hidden = !(frame.exact || []).length;
    const items = exact.querySelector("ul");
    clear(items);
    for (const [name, value] of frame.exact || []) {
      const li = h("li", "", items);
      li.appendChild(document.createTextNode(`${name} = `));
      h("code", "", li, value);
    }
  }

  rects(frame) {  // where the chips a new chip grows out of are on screen now (its motion starts there)
    const out = {}, wanted = new Set();
    for (const chip of (frame.text || {chips: []}).chips) {
      if (chip.grow && chip.grow.key.startsWith("chip:") && chip.grow.frame !== "new") wanted.add(chip.grow.key);
    }
    if (!wanted.size) return out;
    for (const chip of this.root.querySelectorAll(".chip")) {
      if (wanted.has(chip.dataset.key)) out[chip.dataset.key] = chip.getBoundingClientRect();
    }
    return out;
  }

  screenOf(key, layout) {  // a chart element's point on screen, from the chart's own coordinates
    const anchor = layout && layout.anchors[key === "mark" ? "mark" : key];
    if (!anchor) return null;
    const svg = this.q("svg.chart");
    const box = svg.getBoundingClientRect(), vb = svg.viewBox.baseVal;
    const k = vb && vb.width ? box.width / vb.width : 1;
    return {left: box.left + anchor[0] * k, top: box.top + anchor[1] * k, width: 0, height: 0};
  }

  drawChips(frame, before, motion, layout) {
    const holder = this.q(".chips");
    const text = frame.text || {chips: [], note: ""};
    const signature = JSON.stringify(text);
    if (signature === this.chipsOf) return;  // the same text (a draft's next step): nothing moves
    this.chipsOf = signature;
    this.q(".chips-note").textContent = text.note || "";
    const old = new Map([...holder.querySelectorAll(".chip")].map((c) => [c.dataset.key, c]));
    clear(holder);
    if (!text.chips.length) h("span", "empty", holder, "(nothing committed yet)");
    const glyphs = {accepted: "✓", correction: "✗", bonus: "★", q: "◆"};
    for (const chip of text.chips) {
      const status = chip.status || "committed";
      const node = old.get(chip.key) || h("span", "");
      node.className = `chip ${status === "discarded" ? "discarded q" : chip.cue}${status === "pending" ? " pending" : ""}`;
      node.dataset.key = chip.key;
      clear(node);
      node.appendChild(document.createTextNode(chip.text));
      h("sup", "", node, glyphs[chip.cue] || "");
      h("span", "strike", node);
      if (status === "discarded") node.title = "drafted, then discarded: a draft before it was rejected";
      else node.removeAttribute("title");
      holder.appendChild(node);
      if (!motion || old.has(chip.key) || !chip.grow) continue;
      const from = chip.grow.frame === "new" || chip.grow.key.startsWith("node:") || chip.grow.key === "mark"
        ? this.screenOf(chip.grow.key, layout) : before[chip.grow.key];
      if (!from) continue;
      const to = node.getBoundingClientRect();
      const dx = from.left + (from.width || 0) / 2 - (to.left + to.width / 2);
      const dy = from.top + (from.height || 0) / 2 - (to.top + to.height / 2);
      if (node.animate) node.animate([{transform: `translate(${dx}px, ${dy}px) scale(0.8)`, opacity: 0.4},
                                      {transform: "none", opacity: 1}],
                                     {duration: motion, easing: "cubic-bezier(.6,0,.3,1)"});
    }
  }

  drawTables(frame) {
    const r = this.round, presenter = !!this.data.presenter;
    const signature = JSON.stringify([r.first, frame.finished, frame.stats, presenter, this.widths && this.widths.root]);
    if (signature === this.tablesOf) return;  // the tables change once a round and with the statistics
    this.tablesOf = signature;
    const rounds = this.q(".rounds");
    clear(rounds);
    const rows = r.rounds.rows.slice(0, frame.finished);
    const shown = rows.slice(-r.rounds.shown);
    const head = h("div", "heading", rounds, "Rounds so far");
    if (rows.length > shown.length) h("span", "muted", head, ` (the last ${shown.length} of ${rows.length})`);
    if (!rows.length) h("div", "muted", rounds, "(no round finished yet)");
    else table(rounds, r.rounds.columns, shown.map((row) => r.rounds.columns.map((c) => row[c])));
    const stats = this.q(".stats");
    clear(stats);
    if (frame.stats && frame.stats.head.length) {
      table(stats, frame.stats.head, frame.stats.rows);
      if (frame.stats.note) h("div", "note", stats, frame.stats.note);
    }
    const svg = this.q("svg.history");
    if (!presenter && r.history && frame.finished > 0) {
      svg.hidden = false;
      const width = Math.max(this.widths.root || 800, 300);
      const hl = historyLayout(r.history, frame.finished, width);
      svg.setAttribute("viewBox", `0 0 ${width} ${hl.height}`);
      svg.setAttribute("height", hl.height);
      this.history.sync(hl.specs, {duration: 0, stage: 0});
    } else {
      svg.hidden = true;
      this.history.clear();
    }
  }

  // --- controls ---------------------------------------------------------------------------------------------------------
  wire() {
    const on = (sel, fn) => this.q(sel).addEventListener("click", (e) => { e.preventDefault(); fn(); });
    on("button.step", () => { this.pause(); this.move(1); });
    on("button.back", () => { this.pause(); this.move(-1); });
    on("button.play", () => this.play());
    on("button.reset", () => {
      this.pause();
      const here = this.data.offline || (this.round.first === 0 && (!this.data.bounds || this.data.bounds[0] === 0));
      if (here) { this.notice = ""; this.show(0, {animate: true}); }  // the round's first step is in the browser
      else this.request({name: "reset", step: this.step});
    });
    on("button.next-round", () => { this.pause(); this.request({name: "next_round", step: this.step}); });
    on("button.new-seed", () => { this.pause(); this.request({name: "new_seed", step: this.step}); });
    on(".lecture-previous", () => this.request({name: "lecture", to: "previous", step: this.step}));
    on(".lecture-next", () => this.request({name: "lecture", to: "next", step: this.step}));
    on(".lecture-end", () => this.request({name: "lecture", to: "end", step: this.step}));
    on(".save-svg", () => download(this.standalone(), `${this.data.filename || "specviz-step"}-${this.step + 1}.svg`, "image/svg+xml"));
    on(".save-png", () => this.savePng());
    this.q("select.speed").addEventListener("change", (e) => {
      this.speed = e.target.value; this.speedChosen = true; if (this.playing) this.schedule();
      e.target.blur();
    });
    this.q("select.pace").addEventListener("change", (e) => { this.pace = e.target.value; e.target.blur(); });
    const jump = this.q(".jump");  // the menu closes on Escape (and on a click elsewhere: onPointer)
    jump.addEventListener("keydown", (e) => { if (e.key === "Escape") { jump.open = false; e.stopPropagation(); } });
    this.resize = new ResizeObserver(() => {  // the page's width changed (not a step's layout): draw again to fit
      const width = this.root.clientWidth || 0;
      if (Math.abs(width - (this.rootWidth || 0)) <= 2) return;
      this.rootWidth = width;
      if (this.round && this.shown >= 0) this.show(this.index, {animate: false});
    });
    this.resize.observe(this.root);
  }

  standalone() {  // the step's drawing (chart and strip) as one SVG file, styles written into its elements
    const chart = this.q("svg.chart"), strip = this.q("svg.strip");
    const cw = chart.viewBox.baseVal.width, ch = chart.viewBox.baseVal.height;
    const sw = strip.viewBox.baseVal ? strip.viewBox.baseVal.width : 0;
    const sh = this.q(".specviz-draw").hidden ? 0 : (strip.viewBox.baseVal ? strip.viewBox.baseVal.height : 0);
    const out = s("svg", {xmlns: NS, width: cw + (sh ? sw + 24 : 0), height: Math.max(ch, sh)});
    out.appendChild(this.q("svg.defs defs").cloneNode(true));
    const copy = (from, dx) => {
      const g = s("g", {transform: `translate(${dx},0)`}, out);
      inline(from, g);
    };
    copy(chart, 0);
    if (sh) copy(strip, cw + 24);
    for (const rect of out.querySelectorAll("defs rect")) rect.setAttribute("fill", getComputedStyle(this.q("svg.defs defs rect")).fill);
    inlineDefs(this.q("svg.defs defs"), out.querySelector("defs"));
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(out);
  }

  savePng() {
    const text = this.standalone();
    const img = new Image();
    const url = URL.createObjectURL(new Blob([text], {type: "image/svg+xml"}));
    img.onload = () => {
      const canvas = document.createElement("canvas");
      canvas.width = img.width * 2; canvas.height = img.height * 2;
      const c = canvas.getContext("2d");
      c.fillStyle = "#FFF"; c.fillRect(0, 0, canvas.width, canvas.height);
      c.drawImage(img, 0, 0, canvas.width, canvas.height);
      URL.revokeObjectURL(url);
      canvas.toBlob((blob) => download(blob, `${this.data.filename || "specviz-step"}-${this.step + 1}.png`, "image/png"));
    };
    img.src = url;
  }

  destroy() {
    w.clearTimeout(this.timer);
    this.motion.finish();
    if (this.resize) this.resize.disconnect();
    if (keys.active === this) keys.active = null;
  }
}

const GAP = 19.2;  // the body grid's column gap (player.css: 1.2rem)
function columns(layout, width) {  // the chart's and the draw's widths in each layout (player.css's grid)
  const half = (width - GAP) / 2;
  if (layout === "wide") return {main: width, side: half, root: width};
  if (layout === "even") return {main: half, side: half, root: width};
  return {main: (width - GAP) * 0.6, side: (width - GAP) * 0.4, root: width};
}

function table(parent, head, rows) {
  const t = h("table", "", parent), thead = h("thead", "", t), tr = h("tr", "", thead);
  for (const cell of head) h("th", "", tr, cell);
  const body = h("tbody", "", t);
  for (const row of rows) { const r = h("tr", "", body); for (const cell of row) h("td", "", r, cell); }
}

function inline(from, into) {  // a deep copy with each element's drawn style as attributes (a file needs no CSS)
  for (const child of from.childNodes) {
    if (child.nodeType !== 1) { into.appendChild(child.cloneNode(true)); continue; }
    const copy = child.cloneNode(false);
    const cs = getComputedStyle(child);
    for (const prop of ["fill", "stroke", "stroke-width", "stroke-dasharray", "stroke-linejoin", "paint-order",
                        "opacity", "font-size", "font-weight", "font-style", "text-anchor", "font-family"]) {
      const value = cs.getPropertyValue(prop);
      if (value) copy.setAttribute(prop, value);
    }
    copy.removeAttribute("class");
    copy.removeAttribute("style");
    into.appendChild(copy);
    inline(child, copy);
  }
}

function inlineDefs(from, into) {
  clear(into);
  inline(from, into);
  for (const [i, pattern] of [...from.children].entries()) {
    const copy = into.children[i];
    for (const a of ["id", "width", "height", "patternUnits"]) copy.setAttribute(a, pattern.getAttribute(a));
  }
}

function download(content, name, type) {
  const blob = content instanceof Blob ? content : new Blob([content], {type});
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url; a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  w.setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function decode(data) {  // the component's data: bytes of UTF-8 JSON (the app), or an object (the deck)
  if (data === null || data === undefined) return null;
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return JSON.parse(new TextDecoder().decode(data));
  if (typeof data === "string") return JSON.parse(data);
  return data;
}

// --- the keys, for the tab's whole life: one listener in the top document, the mounted player's -------------------------
const keys = w.__specvizPlayerKeys || (w.__specvizPlayerKeys = {active: null, bound: 0, tabbed: false});

const typing = (el) => !!el && (el.isContentEditable || el.tagName === "TEXTAREA" || el.tagName === "SELECT"
  || (el.tagName === "INPUT" && TEXT_INPUTS.includes((el.type || "text").toLowerCase()))
  || !!el.closest('[data-testid="stDataFrame"], [data-testid="stDataEditor"], [role="grid"], [role="combobox"], '
                  + '[role="listbox"], [role="menu"]'));
const movesByArrows = (el) => !!el.closest('input[type="range"], [role="slider"], input[type="radio"], [role="radio"], '
                                           + '[role="radiogroup"], [role="tab"], [role="tablist"]');

function deepActive() {  // the focused element, inside shadow roots too
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  return el;
}

function onKeyDown(event) {
  if (event.key === "Tab") keys.tabbed = true;
  const player = keys.active;
  if (!player || !player.root.isConnected || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  const forward = STEP_KEYS.includes(event.key), back = BACK_KEYS.includes(event.key);
  if (!forward && !back) { if (!inside(event, player)) player.report(); return; }
  const el = deepActive();
  const focused = el && el !== document.body && el !== document.documentElement;
  const arrows = event.key === "ArrowRight" || event.key === "ArrowLeft";
  if (focused && (typing(el) || keys.tabbed || (arrows && movesByArrows(el)))) { if (!inside(event, player)) player.report(); return; }
  event.preventDefault();
  event.stopPropagation();
  keys.stepped = true;
  if (focused && el.blur) el.blur();  // a clicked toggle or button lets go, so Space cannot flip or press it too
  if (event.repeat) return;
  player.pause();
  player.move(forward ? 1 : -1);
}

function onKeyUp(event) {  // Space's default action on a clicked control would come now: stop it where keydown stepped
  if (event.key === " " && keys.stepped) { event.preventDefault(); event.stopPropagation(); }
  keys.stepped = false;
}

function inside(event, player) { return event.composedPath().includes(player.host); }

function onPointer(event) {  // a click anywhere else on the page: Python hears the step first
  keys.tabbed = false;
  const player = keys.active;
  if (!player) return;
  const jump = player.root.querySelector(".jump");
  if (jump && jump.open && !event.composedPath().includes(jump)) jump.open = false;
  if (!inside(event, player)) reported(player);
}

function onFocus(event) {
  const player = keys.active;
  if (player && !inside(event, player)) reported(player);
}

// Streamlit sends a widget's change one task later (its widget manager's setTimeout), but a click on a link to
// another page at once: a quick click (a driver's, a touch) would reach the server first, and the report's run of
// the Playground would then take its place. Such a click waits for the report to leave, then goes on as it was.
function reported(player) {
  if (!player.report() || keys.flushing) return;
  keys.flushing = true;
  w.setTimeout(() => { keys.flushing = false; }, 0);  // after Streamlit's own send, set up before it
}

function onClick(event) {
  if (!keys.flushing || !event.isTrusted) return;
  const link = event.composedPath().find((e) => e instanceof w.HTMLAnchorElement && e.href);
  if (!link) return;  // a widget's click joins the report's batch: nothing to wait for
  event.preventDefault();
  event.stopImmediatePropagation();
  w.setTimeout(() => link.click(), 0);
}

if (keys.down) {
  w.removeEventListener("keydown", keys.down, true);
  w.removeEventListener("keyup", keys.up, true);
  w.removeEventListener("pointerdown", keys.pointer, true);
  w.removeEventListener("focusin", keys.focus, true);
  if (keys.click) w.removeEventListener("click", keys.click, true);
}
w.addEventListener("keydown", onKeyDown, true);
w.addEventListener("keyup", onKeyUp, true);
w.addEventListener("pointerdown", onPointer, true);
w.addEventListener("focusin", onFocus, true);
w.addEventListener("click", onClick, true);
Object.assign(keys, {down: onKeyDown, up: onKeyUp, pointer: onPointer, focus: onFocus, click: onClick,
                     bound: keys.bound + 1});

// one history entry per page, not one per step: on the Playground, Streamlit's own link updates (a new round) replace
// the entry as the player's steps do (installed once per tab)
if (!w.__specvizHistory) {
  w.__specvizHistory = true;
  const push = w.history.pushState.bind(w.history);
  w.history.pushState = (data, title, url) => {
    if (keys.active) keys.active.flushLink();  // the step shown is this entry's before another page's entry comes
    try {
      const next = new URL(url, w.location.href);
      if (keys.active && keys.active.root.isConnected && next.pathname === w.location.pathname) {
        return w.history.replaceState(data, title, url);
      }
    } catch (e) { /* not a URL we can read: leave it to the browser */ }
    return push(data, title, url);
  };
  w.addEventListener("pagehide", () => { if (keys.active) keys.active.flushLink(); });  // a reload keeps the step
}

// --- the component's entry ------------------------------------------------------------------------------------------------
// The Playground mounts the player with no data and sends each round through its feed (feed.js): the player's own
// element never changes, so Streamlit sends this module once per session. The deck mounts it with its data.
export default function mount(component) {
  const parent = component.parentElement;
  let player = registry.get(parent);
  try {
    if (!player) {
      const host = parent.host || parent;
      player = new Player(parent, host);
      registry.set(parent, player);
    }
    keys.active = player;
    w.__specvizPlayer = player;  // for the tests and the benchmarks: the mounted player
    const own = {setStateValue: component.setStateValue, setTriggerValue: component.setTriggerValue};
    w.__specvizPlayerFeed = (feed) => player.update({...feed, ...own});  // a round's data, sent to the player
    const pending = w.__specvizPlayerPending;
    delete w.__specvizPlayerPending;
    if (component.data) player.update(component);
    else if (pending) player.update({...pending, ...own});
  } catch (error) {
    const root = parent.querySelector(".specviz-player");
    if (root) {
      root.setAttribute("data-state", "ready");
      const box = root.querySelector(".frame-error");
      if (box) { box.hidden = false; box.textContent = `The step player failed: ${error.message}`; }
    }
    throw error;
  }
  return () => {
    if (player) player.destroy();
    registry.delete(parent);
    if (w.__specvizPlayer === player) { delete w.__specvizPlayerFeed; }
  };
}

export {Player, decode, CUES};
