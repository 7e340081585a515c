// Tiles and the actions that name them: the one module both pages draw a table with (the table
// and the replay, app.js; a room, room.js). An ES module over the catalogue (i18n.js):
//
//   import { Tiles } from "/static/tiles.js";
//   const tiles = new Tiles(data.tiles, data.indicator_labels);  // the tile set, sent once
//   const v = tiles.view(view);      // bound to one VIEW: its 正精/副精 marks (view.jing)
//   v.tile("5p")                     → <span class="tile p jing-main" data-code="5p" data-name="五筒">五 筒 <span class="badge">正</span></span>
//   v.tile(null) / v.back()          → the hidden tile's back
//   v.row(["1m", "2m"], "discards")  → <div class="row discards"> of tiles
//   v.meld({kind, concealed, tiles}) → <span class="meld">; tiles null: another seat's 暗杠, four backs
//   v.hand(seat)                     → the seat's concealed tiles, the one just drawn apart, or backs ×n
//   v.action(a)                      → "碰 七条（东）" from a `legal` entry's structured form
//   tiles.name("南")                 → "南风" / "South wind"
//
// Tiles are codes ("5p", an honour's declared name "东"); the tile set gives each code's group,
// its group's label as the rule file declares it (万 条 筒 风 …), whether it is a suit and its
// rank. A `legal` entry is {kind, text, tiles: [code], claims: {seat, tile} | null, label}: the
// label is drawn from kind, tiles and claims; `text` only goes back to the server, never parsed.
import { seatName, t, tileFace, tileName } from "./i18n.js";

/** The server's 精 marks → the catalogue's jing.main / jing.sub (and the CSS's jing-main / jing-sub). */
export const JING = { 正精: "main", 副精: "sub" };
const MARKS = Object.keys(JING);  // 正精 first

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

/** The tile set of a table (`tiles`: {code: {code, group, label, suit, rank}}) and its indicators' labels. */
export class Tiles {
  constructor(tiles = {}, indicatorLabels = {}) {
    this.tiles = tiles || {};
    this.indicatorLabels = indicatorLabels || {};
  }

  /** A code's tile JSON (a code the set lacks: an honour named by its code). */
  info(code) { return this.tiles[code] || { code, group: "", label: "", suit: false, rank: null }; }

  /** A tile's name in the page's language: 六条, 南风, 红中 / "6 Bamboo"; null: 暗牌 (hidden). */
  name(code) { return code == null ? t("board.hidden") : tileName(this.info(code)); }

  /** Tiles' names in a run (a chow's two: 四条六条 / "4 Bamboo, 6 Bamboo"), or `sep` "tiles.list" as a list (三条、四条). */
  names(codes, sep = "tiles.run") { return (codes || []).map((c) => this.name(c)).join(t(sep)); }

  /** An indicator's label from the rule file (upper → 上精), else its name. */
  indicator(name) { return this.indicatorLabels[name] || name; }

  /** This tile set drawn for one VIEW (its 正精/副精 marks). */
  view(view) { return new TableTiles(this, view || {}); }
}

/** The tiles of one VIEW: every element a page draws of tiles, marks and actions (see the top). */
class TableTiles {
  constructor(set, view) {
    this.set = set;
    this.v = view;
    this.marks = view.jing || {};
  }

  name(code) { return this.set.name(code); }

  /** "main", "sub" or null: the 精 mark of `code` in this view. */
  jing(code) { return JING[this.marks[code]] || null; }

  /** The hidden tile's back (`cls`: extra classes, "small", "mini"). */
  back(cls = "") {
    const e = el("span", "tile back" + (cls ? " " + cls : ""));
    e.title = t("board.hidden");
    return e;
  }

  /** A tile's element from its code (null: its back): face, name, and the 正/副 badge of a 精. */
  tile(code, cls = "") {
    if (code == null) return this.back(cls);
    const info = this.set.info(code), jing = this.jing(code);
    const e = el("span", ["tile", info.suit ? info.group : "honour h-" + code, jing ? "jing-" + jing : "", cls].filter(Boolean).join(" "));
    const [rank, suit] = tileFace(info);
    e.append(el("span", "rank", rank));
    if (suit) e.append(el("span", "suit", suit));
    const name = this.name(code);
    e.dataset.code = code;
    e.dataset.name = name;
    e.title = name + (jing ? " · " + t("jing." + jing) : "");
    e.setAttribute("aria-label", e.title);
    if (jing) e.append(el("span", "badge", t(`jing.${jing}Short`)));
    return e;
  }

  /** A row of tiles (a discard pile, a hand): <div class="row CLS">; `tileCls` goes on each tile. */
  row(codes, cls = "", tileCls = "") {
    const r = el("div", "row" + (cls ? " " + cls : ""));
    for (const c of codes || []) r.append(this.tile(c, tileCls));
    return r;
  }

  /** A meld {kind, concealed, tiles}: its tiles, four backs for another seat's concealed kong (tiles null). */
  meld(m, tileCls = "") {
    const g = el("span", "meld");
    g.dataset.kind = m.kind;
    if (m.concealed) g.dataset.concealed = "1";
    for (const c of m.tiles || [null, null, null, null]) g.append(this.tile(c, tileCls));
    g.title = t(m.concealed && m.kind === "kong" ? "act.concealed_kong" : "act." + m.kind);
    return g;
  }

  /** A seat's melds as one row. */
  melds(seat, tileCls = "") {
    const r = el("div", "row melds");
    for (const m of (this.v.melds || {})[seat] || []) r.append(this.meld(m, tileCls));
    return r;
  }

  /** A seat's concealed tiles (sorted, the tile it just drew apart in a span.drawn) where this view
   * shows them; else one compact back with the count (span.backs[data-count]: never a column). */
  hand(seat, tileCls = "") {
    const r = el("div", "row hand");
    const shown = (this.v.hands || {})[seat];
    if (shown) {
      for (const c of shown) r.append(this.tile(c, tileCls));
      const drawn = (this.v.drawn_by || {})[seat];
      if (drawn != null) { const d = el("span", "drawn"); d.append(this.tile(drawn, tileCls)); r.append(d); }
    } else {
      const n = (this.v.hand_sizes || {})[seat] || 0;
      const b = el("span", "backs");
      b.dataset.count = String(n);
      b.title = t("board.hidden");
      b.append(this.back(tileCls), el("b", "", `×${n}`));
      r.append(b);
    }
    return r;
  }

  /** Make each tile of `row` that this view's legal actions can discard a button for that discard:
   * class "playable", focusable, Enter or a click calls `send(text)`. Returns how many there are. */
  playable(row, send) {
    const by = new Map((this.v.legal || []).filter((a) => a.kind === "discard").map((a) => [a.tiles[0], a]));
    let n = 0;
    row.querySelectorAll(".tile").forEach((e) => {
      const a = by.get(e.dataset.code);
      if (!a) return;
      n++;
      e.classList.add("playable");
      e.tabIndex = 0;
      e.dataset.action = a.text;
      e.addEventListener("click", () => send(a.text));
      e.addEventListener("keydown", (ev) => { if (ev.key === "Enter") { ev.preventDefault(); send(a.text); } });
    });
    return n;
  }

  /** A legal action as a button says it: 打 六条, 吃 五六条 + 七条（东）, 碰 七条（东）, 暗杠 八万, 胡, 过. */
  action(a) {
    const word = t(a.label || "act." + a.kind);
    const from = a.claims ? t("act.from", { seat: seatName(a.claims.seat) }) : "";
    const named = (a.tiles || []).length ? " " + this.set.names(a.tiles) : "";
    if (a.claims && a.kind === "chow") return `${word}${named} + ${this.name(a.claims.tile)}${from}`;
    if (a.claims) return `${word} ${this.name(a.claims.tile)}${from}`;
    return word + named;
  }

  /** The face-up indicators, each its label then its tile (span.indicator[data-indicator]). */
  indicators(tileCls = "mini") {
    return Object.entries(this.v.indicators || {}).map(([name, code]) => {
      const s = el("span", "indicator", this.set.indicator(name) + " ");
      s.dataset.indicator = name;
      s.append(this.tile(code, tileCls));
      return s;
    });
  }

  /** The 正精 and then the 副精 of this view, each named with its tiles (span.jing-name[data-jing]). */
  jingNames(tileCls = "mini") {
    const out = [];
    for (const mark of MARKS) {
      const codes = Object.keys(this.marks).filter((c) => this.marks[c] === mark);
      if (!codes.length) continue;
      const s = el("span", "jing-name", t("jing." + JING[mark]) + " ");
      s.dataset.jing = mark;
      for (const c of codes) s.append(this.tile(c, tileCls));
      s.append(this.set.names(codes, "tiles.list"));
      out.push(s);
    }
    return out;
  }
}
