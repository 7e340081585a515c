// A room's page (docs/serve.md "Rooms"): /rooms makes a room (the host's form), /room/ID#token=T
// sits at a seat (no token: watch). Every word comes from the catalogue (i18n.js); tiles, marks
// and the actions' labels are drawn by tiles.js, as the table page draws them. The server says
// `hello` once per connection (the seats, the tile set, the indicators' labels) and then a
// `state` on every change (the VIEW, totals, the hand before); an action goes back as its text.
"use strict";
import { t, lang, named, setLang, translatePage, seatName } from "/static/i18n.js";
import { Tiles } from "/static/tiles.js";

const $ = (id) => document.getElementById(id);
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

const roomId = (location.pathname.match(/^\/room\/([\w-]+)/) || [])[1] || null;
const token = new URLSearchParams(location.hash.slice(1)).get("token");
let hello = null;  // the connection's hello: room, ruleset, label, options, seats, hands, tile set
let tiles = new Tiles();
let frame = null;  // the last state the server sent
let ws = null;
let retry = 0;
const FINAL = [4400, 4403, 4404, 4409];  // close codes no retry changes (the rooms' caps, CLOSE_*); 4429: wait longer

function send(text) {
  $("error").textContent = "";
  // the table's version the click was made on: a late duplicate of an earlier turn's click is refused
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "act", action: text, version: frame ? frame.version : undefined }));
}

// ---- drawing the table ------------------------------------------------------------------------------
function seatTitle(s) {
  const v = frame.view;
  return seatName(s, frame.seat || hello.seats[0], v ? v.dealer : null, hello.seats);
}

const hostToken = roomId ? localStorage.getItem("mjrules.host." + roomId) : null;

async function hostAct(path, body) {
  const r = await fetch(`/api/rooms/${roomId}/${path}`, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ host: hostToken, ...body }) });
  if (!r.ok) { const e = await r.json(); $("error").textContent = e.error; }
}

function drawHost() {  // the host's controls, in the browser that made the room
  const box = $("host-bar");
  box.replaceChildren();
  if (!hostToken || frame.finished) return;
  for (const s of hello.seats.filter((x) => frame.players[x] === "human")) {
    const b = el("button", "host-remove", t("room.toBot", { seat: seatName(s) }));
    b.type = "button";
    b.dataset.seat = s;
    b.addEventListener("click", () => hostAct(`seats/${s}/remove`, { bot: "greedy" }));
    box.append(b);
  }
  const c = el("button", "host-close", t("room.close"));
  c.type = "button";
  c.addEventListener("click", () => hostAct("close", {}));
  box.append(c);
}

function drawTotals() {
  drawHost();
  const box = $("totals");
  box.replaceChildren();
  for (const s of hello.seats) {
    const item = el("span", "total" + (frame.away.includes(s) ? " away" : ""));
    const who = frame.players[s] === "human" ? "" : ` (${t("room.bot")})`;
    item.append(el("b", "", seatTitle(s) + who), el("span", "num", ` ${frame.totals[s] > 0 ? "+" : ""}${frame.totals[s]}`));
    box.append(item);
  }
}

function drawStrip(v, vt) {
  const strip = $("strip");
  strip.replaceChildren(el("span", "wall", t("board.wall", { n: v.live_wall })), ...vt.indicators("small"), ...vt.jingNames("small"));
}

function drawSeat(s, v, vt, box) {
  const mine = s === frame.seat;
  const area = el("div", "seat" + (v.to_act.includes(s) ? " to-act" : ""));
  area.dataset.seat = s;
  area.append(el("h3", "", seatTitle(s)));
  if (!mine && !v.hands[s]) area.append(el("div", "count", t("room.inHand", { n: v.hand_sizes[s] })));
  else if (!mine) area.append(vt.hand(s, "small"));  // every hand face up once the hand is over
  area.append(vt.melds(s, "small"), vt.row(v.discards[s], "discards", "small"));
  box.append(area);
}

function drawTable() {
  const v = frame.view;
  $("room-label").textContent = hello.label;
  $("room-hand").textContent = frame.finished ? t("room.finished") : t("room.handOf", { k: frame.hand, n: frame.hands ?? hello.hands });
  drawTotals();
  const others = $("others"), mine = $("mine"), dock = $("dock"), centre = $("centre");
  for (const b of [$("strip"), others, mine, dock, centre]) b.replaceChildren();
  if (v) {
    const vt = tiles.view(v);
    drawStrip(v, vt);
    const me = frame.seat, seats = hello.seats;
    const order = me ? seats.map((_, i) => seats[(seats.indexOf(me) + i) % seats.length]).filter((s) => s !== me) : seats;
    for (const s of order) drawSeat(s, v, vt, others);
    if (v.last_discard) {
      centre.append(el("span", "", t("board.discarded", { seat: seatTitle(v.last_discard.seat) }) + " "), vt.tile(v.last_discard.tile));
    }
    if (v.flip) centre.append(el("span", "flip", t("board.flip", { name: tiles.indicator(v.flip.name), made: v.flip.made, of: v.flip.of, tile: tiles.name(v.flip.tile) })));
    if (v.pick) centre.append(el("span", "pick", t("board.pick", { tile: tiles.name(v.pick) })));
    centre.append(el("div", "turn", v.over ? t("board.over") : `${t("phase." + v.phase)} · ${t("board.turn", { seats: v.to_act.map(seatTitle).join(" ") })}`));
    if (me) {
      const hand = vt.hand(me);  // the tile just drawn apart
      const discards = vt.playable(hand, send);
      drawSeat(me, v, vt, mine);
      mine.prepend(hand);
      for (const a of v.legal) {
        if (a.kind === "discard") continue;  // a tile of the hand is its discard's button
        const b = el("button", "act " + a.kind, vt.action(a));
        b.type = "button";
        b.dataset.action = a.text;
        b.dataset.kind = a.kind;
        b.addEventListener("click", () => send(a.text));
        dock.append(b);
      }
      if (discards) dock.append(el("span", "hint", t("room.clickToDiscard")));
    }
  }
  drawLast();
}

function drawLast() {
  const box = $("last");
  box.replaceChildren();
  const r = frame.last;
  if (!r) return;
  const head = r.winner ? t("result.wins", { seat: seatTitle(r.winner), by: t("by." + r.by), reading: r.reading || "", fans: (r.fans || []).join("、") || t("result.none") })
    : t("result.exhaustive");
  box.append(el("h3", "", t("room.handEnded", { k: r.hand + 1 }) + " " + head));
  const table = el("table", "ledger");
  const hr = el("tr");
  for (const k of ["ledger.when", "ledger.part", "ledger.flow", "ledger.amount", "ledger.rule", "ledger.how"]) hr.append(el("th", "", t(k)));
  table.append(hr);
  for (const row of r.ledger) {
    const tr = el("tr", "ledger-row");
    Object.assign(tr.dataset, { when: row.when, payer: row.payer, payee: row.payee, amount: String(row.amount) });
    tr.append(el("td", "", t("when." + row.when)), el("td", "", named("part", row.part, r.labels)), el("td", "", `${seatTitle(row.payer)} → ${seatTitle(row.payee)}`),
      el("td", "num", String(row.amount)), el("td", "", named("rule", row.rule, r.labels)), el("td", "", row.how));
    table.append(tr);
  }
  box.append(table);
  box.dataset.hand = String(r.hand);
  const net = el("p", "net", t("ledger.net") + "：" + hello.seats.map((s) => `${seatTitle(s)} ${r.net[s] > 0 ? "+" : ""}${r.net[s]}`).join("，"));
  box.append(net);
  const a = el("a", "record", t("record.download"));
  a.href = `/api/rooms/${roomId}/hands/${r.hand + 1}/record`;
  a.download = `${roomId}-hand${r.hand + 1}.yaml`;
  box.append(a);
}

// ---- the connection ---------------------------------------------------------------------------------
function status(key) { $("room-status").textContent = t(key); $("room-status").dataset.state = key; }

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(`${proto}//${location.host}/ws/rooms/${roomId}` + (token ? `?token=${encodeURIComponent(token)}` : ""));
  ws.onopen = () => { retry = 0; status(token ? "room.connected" : "room.watching"); };
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.type === "hello") { hello = msg; tiles = new Tiles(msg.tiles, msg.indicator_labels); }
    else if (msg.type === "state" && hello) { frame = msg; drawTable(); document.body.dataset.version = String(msg.version); }
    else if (msg.type === "error") $("error").textContent = msg.error + (msg.hint ? `（${msg.hint}）` : "");
  };
  ws.onclose = (e) => {
    if (FINAL.includes(e.code)) { status("room.closed" + e.code); return; }
    const busy = e.code === 4429;  // too many joins or connections: the same link, a while later
    status(busy ? "room.closed4429" : "room.reconnecting");
    retry = Math.min(retry + 1, 6);
    setTimeout(connect, (busy ? 4000 : 0) + 250 * 2 ** retry);  // the seat keeps its place: come back with the same link
  };
}

// ---- the host's form ----------------------------------------------------------------------------------
async function host() {
  $("host").hidden = false;
  for (const n of [4, 8, 16, 1]) $("host-hands").append(new Option(String(n), String(n)));  // 局数
  const rulesets = await fetch("/api/rulesets").then((r) => r.json());
  const defaults = { ruleset: rulesets.default, options: rulesets.default_options || {} };  // `serve --rules`
  const sel = $("host-ruleset");
  for (const r of rulesets.rulesets) sel.append(new Option(r.label + (r.bundled ? "" : t("setup.uploaded")), r.name));
  sel.value = new URLSearchParams(location.search).get("ruleset") || defaults.ruleset || sel.value;  // ?ruleset=: the playground's file
  const showOptions = () => {
    const r = rulesets.rulesets.find((x) => x.name === sel.value);
    const box = $("host-options");
    box.replaceChildren();
    for (const [name, o] of Object.entries(r ? r.options : {})) {
      const lab = el("label", "opt");
      lab.title = o.label || name;
      lab.append(el("span", "", name + " "));
      const s = el("select");
      s.name = name;
      for (const c of o.choices) s.append(new Option(c, c));
      s.value = (defaults.ruleset === sel.value && defaults.options[name]) || o.default;
      lab.append(s);
      box.append(lab);
    }
  };
  sel.addEventListener("change", showOptions);
  showOptions();
  const seats = $("host-seats");
  const chosen = rulesets.rulesets.find((x) => x.name === sel.value);
  for (const s of (chosen && chosen.seats) || ["E", "S", "W", "N"]) {
    const lab = el("label", "seat-choice");
    lab.append(el("span", "", seatName(s) + " "));
    const who = el("select");
    who.name = s;
    who.append(new Option(t("room.person"), "human"));
    for (const b of rulesets.bots) who.append(new Option(t("room.bot") + " " + named("bot", b), b));
    lab.append(who);
    seats.append(lab);
  }
  $("host-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const options = Object.fromEntries([...$("host-options").querySelectorAll("select")].map((s) => [s.name, s.value]));
    const bots = Object.fromEntries([...seats.querySelectorAll("select")].filter((s) => s.value !== "human").map((s) => [s.name, s.value]));
    const body = { ruleset: sel.value, options, hands: Number($("host-hands").value), bots };
    if ($("host-seed").value !== "") body.seed = Number($("host-seed").value);
    const r = await fetch("/api/rooms", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const out = await r.json();
    if (!r.ok) { $("host-error").textContent = out.error + (out.hint ? `（${out.hint}）` : ""); return; }
    $("host-error").textContent = "";
    localStorage.setItem("mjrules.host." + out.room, out.host);  // this browser may close the room, free a seat
    const links = $("host-links");
    links.hidden = false;
    links.replaceChildren(el("h2", "", t("room.links")));
    for (const [s, v] of Object.entries(out.seats)) {
      const p = el("p", "link");
      const a = el("a", "", v.url);
      a.href = v.url;
      a.dataset.seat = s;
      p.append(el("b", "", seatName(s) + "："), a);
      links.append(p);
    }
    const w = el("p", "link");
    const a = el("a", "", out.watch);
    a.href = out.watch;
    a.dataset.seat = "watch";
    w.append(el("b", "", t("room.watchLink") + "："), a);
    links.append(w, el("p", "hint", t("room.keepHost")));
  });
}

function relabel() {
  $("lang").textContent = t("lang.switch");
  translatePage(document);
  if (frame) drawTable();
}

$("lang").addEventListener("click", () => setLang(lang() === "zh-CN" ? "en" : "zh-CN"));
window.addEventListener("langchange", relabel);
relabel();
if (roomId) { $("table").hidden = false; connect(); } else host();
