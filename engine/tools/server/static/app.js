// mjrules serve: the table, the replay and the rule playground. Plain JavaScript, no build step,
// nothing fetched from elsewhere. Every change of a game goes through the server's game API.
// Every word shown comes from the message catalogue (i18n.js): 简体中文 by default, English by the switch;
// tiles, their names and the actions' labels are drawn by tiles.js, as the room page draws them.
import { has, lang, named, seatName, setLang, t, translatePage } from "./i18n.js";
import { Tiles } from "./tiles.js";

const $ = (sel, root = document) => root.querySelector(sel);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const k of kids) if (k != null) e.append(k);
  return e;
};
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
  const r = await fetch(path, opts);
  let data = null;
  try { data = await r.json(); } catch (e) { data = { error: `HTTP ${r.status}` }; }
  return { ok: r.ok, status: r.status, data };
}
const errText = (d) => (d && d.error ? d.error + (d.line ? t("err.at", { line: d.line, column: d.column }) : "") + (d.hint ? "\n" + t("err.hint", { hint: d.hint }) : "") : t("err.generic"));

// ---- the language switch ------------------------------------------------------------------------------
document.documentElement.lang = lang();
translatePage(document);
$("#lang").addEventListener("click", () => setLang(lang() === "en" ? "zh-CN" : "en"));
window.addEventListener("langchange", () => {
  fillSeats();
  if (game.state) show(game.state);
  if (rep.frames.length) showFrame();
});

// ---- tabs ------------------------------------------------------------------------------------------
document.querySelectorAll("nav .tab").forEach((b) => b.addEventListener("click", () => {
  document.querySelectorAll("nav .tab").forEach((x) => x.classList.toggle("active", x === b));
  document.querySelectorAll(".page").forEach((p) => p.classList.toggle("active", p.id === "page-" + b.dataset.tab));
}));
document.querySelectorAll(".subtab").forEach((b) => b.addEventListener("click", () => showPane(b.dataset.pane)));
function showPane(name) {
  document.querySelectorAll(".subtab").forEach((x) => x.classList.toggle("active", x.dataset.pane === name));
  document.querySelectorAll(".pane").forEach((p) => p.classList.toggle("active", p.id === "pane-" + name));
}

// ---- the board (the table and the replay) ------------------------------------------------------------
// `table` is a VIEW (tiles as codes), `tiles` the Tiles of the game's tile set
function renderBoard(root, table, tiles, opts = {}) {
  root.innerHTML = "";
  root.classList.remove("hidden");
  const v = tiles.view(table);
  const seats = table.seats, me = opts.you || table.seat || seats[0];
  const i = seats.indexOf(me), n = seats.length;
  const places = ["bottom", "right", "top", "left"];
  // the indicator strip: each face-up indicator, then the 正精 and 副精 it makes, by name
  root.append(el("div", { class: "info" }, el("div", { class: "dealer", text: t("board.dealer", { seat: seatName(table.dealer), floor: table.floor }) }),
    el("div", { class: "strip" }, ...v.indicators("")), el("div", { class: "strip jing" }, ...v.jingNames())));
  root.append(el("div", { class: "meta" }, el("div", { id: opts.wallId || "", class: "wall", "data-n": table.live_wall, text: t("board.wall", { n: table.live_wall }) }),
    el("div", { class: "phase", "data-phase": table.phase, text: table.over ? t("board.over") : `${t("phase." + table.phase)} · ${t("board.turn", { seats: table.to_act.map((s) => seatName(s)).join(" ") })}` })));
  const center = el("div", { class: "center" });
  if (table.last_discard) center.append(el("div", { text: t("board.discarded", { seat: seatName(table.last_discard.seat) }) + " " }, v.tile(table.last_discard.tile)));
  if (table.flip) center.append(el("div", { class: "flip" }, t("board.flip", { name: tiles.indicator(table.flip.name), made: table.flip.made, of: table.flip.of, tile: tiles.name(table.flip.tile) }) + " ", v.tile(table.flip.tile)));
  if (table.pick) center.append(el("div", { class: "pick" }, t("board.pick", { tile: tiles.name(table.pick) }) + " ", v.tile(table.pick)));
  root.append(center);
  for (let k = 0; k < n; k++) {
    const s = seats[(i + k) % n];
    const box = el("div", { class: `seat pos-${places[k] || "top"}` + (table.to_act.includes(s) ? " to-act" : ""), "data-seat": s });
    const title = seatName(s, opts.you ? me : null, table.dealer, seats);  // a replay has no viewer: no 上家/下家
    box.append(el("h3", { text: title }));
    const hand = v.hand(s);  // another seat's concealed tiles: one compact back with the count
    box.append(hand, v.melds(s), v.row(table.discards[s], "discards"));
    if (opts.playable && s === me) v.playable(hand, opts.playable);  // a tile that can be discarded is its discard's button
    root.append(box);
  }
}

// a ledger word: the catalogue's when/part/rule name, else an indicator's label from the rule file, else as written
function ledgerEl(result, seats) {
  const box = el("div");
  const how = result.winner
    ? t("result.wins", { seat: seatName(result.winner), by: named("by", result.by), reading: result.reading, fans: result.fans.join("、") || t("result.none") })
    : t("result.exhaustive");
  box.append(el("p", { id: "result-line", "data-winner": result.winner || "", text: how }));
  const heads = ["ledger.when", "ledger.part", "ledger.flow", "ledger.amount", "ledger.rule", "ledger.how"].map((h) => el("th", { text: t(h) }));
  const table = el("table", { id: "ledger" }, el("tr", {}, ...heads));
  for (const r of result.ledger) {
    table.append(el("tr", { class: "ledger-row", "data-payer": r.payer, "data-payee": r.payee, "data-amount": r.amount, "data-when": r.when },
      el("td", { text: named("when", r.when) }), el("td", { text: named("part", r.part, result.labels) }),
      el("td", { text: `${seatName(r.payer)} → ${seatName(r.payee)}` }),
      el("td", { class: "num", text: r.amount }), el("td", { text: named("rule", r.rule, result.labels) }), el("td", { text: r.how })));
  }
  box.append(el("h3", { text: t("ledger.title") }), table);
  const net = el("table", { id: "net" }, el("tr", {}, ...seats.map((s) => el("th", { text: seatName(s) }))),
    el("tr", {}, ...seats.map((s) => el("td", { class: "num", "data-seat": s, text: (result.net[s] > 0 ? "+" : "") + result.net[s] }))));
  box.append(el("h3", { text: t("ledger.net") }), net);
  return box;
}

// one event of the hand, as the seat may see it (the server left out what it may not)
function eventText(state, tiles, e) {
  const name = (code) => tiles.name(code);
  const seat = e.seat ? seatName(e.seat) : "";
  switch (e.event) {
    case "break": return t("log.break", { rolls: e.rolls.map((r) => r.join("+")).join(" "), stack: e.stack });
    case "deal": return t("log.deal", { hand: Object.values(e.hands).join(" ") });
    case "indicator": return t("log.indicator", { label: tiles.indicator(e.name), tile: name(e.tile) });
    case "flip": return t("log.flip", { name: tiles.indicator(e.name), tile: name(e.tile), dice: e.dice.join("+") });
    case "settle": return t("log.settle", { part: e.part, net: Object.entries(e.net).map(([s, v]) => `${seatName(s)} ${v > 0 ? "+" : ""}${v}`).join("，") });
    case "draw": return (e.tile ? t("log.drawTile", { seat, tile: name(e.tile) }) : t("log.draw", { seat })) + (e.tail ? t("log.replacement") : "");
    default: return t("log.act", { seat, act: has("act." + e.event) ? t("act." + e.event) : e.event, tile: e.tile ? name(e.tile) : "" }).trim()
      + (e.source ? t("log.from", { seat: seatName(e.source) }) : "");
  }
}

// ---- the table ---------------------------------------------------------------------------------------
const game = { id: null, state: null, tiles: new Tiles(), rulesets: [] };

async function loadRulesets(select) {
  const r = await api("GET", "/api/rulesets");
  if (!r.ok) return;
  game.rulesets = r.data.rulesets;
  game.defaults = { name: r.data.default, options: r.data.default_options || {} };  // `serve --rules`, `--option`
  for (const sel of [$("#ruleset"), $("#pg-base")]) {
    const keep = sel.value;
    sel.innerHTML = "";
    for (const rs of r.data.rulesets) sel.append(el("option", { value: rs.name, text: `${rs.label} (${rs.name})` + (rs.bundled ? "" : t("setup.uploaded")) }));
    sel.value = keep || r.data.default || sel.value;  // the default: the ruleset the others extend
  }
  if (select) $("#ruleset").value = select;
  $("#bots").innerHTML = "";
  for (const b of r.data.bots) $("#bots").append(el("option", { value: b, text: named("bot", b) }));
  $("#bots").value = r.data.bots.includes("greedy") ? "greedy" : r.data.bots[0];
  $("#impact-hands").max = r.data.caps.impact_hands;
  showOptions();
}

function fillSeats() {
  const rs = game.rulesets.find((x) => x.name === $("#ruleset").value);
  const sel = $("#seat"), keep = sel.value, seats = rs ? rs.seats : ["E", "S", "W", "N"];
  sel.innerHTML = "";
  for (const s of seats) sel.append(el("option", { value: s, text: seatName(s) }));
  sel.value = seats.includes(keep) ? keep : seats[Math.min(1, seats.length - 1)];
}

function showOptions() {
  fillSeats();
  const rs = game.rulesets.find((x) => x.name === $("#ruleset").value);
  const box = $("#options");
  box.innerHTML = "";
  if (!rs) return;
  for (const [name, o] of Object.entries(rs.options)) {
    const sel = el("select", { "data-option": name, title: o.label || name });
    for (const c of o.choices) sel.append(el("option", { value: c, text: c }));
    sel.value = (game.defaults && rs.name === game.defaults.name && game.defaults.options[name]) || o.default;
    box.append(el("label", { title: o.label || "" }, name + " ", sel));
  }
}
$("#ruleset").addEventListener("change", showOptions);

$("#upload").addEventListener("change", async (ev) => {
  const f = ev.target.files[0];
  if (!f) return;
  const name = f.name.replace(/\.rules$/, "").replace(/[^\p{L}\p{N}_-]/gu, "");
  const r = await api("POST", "/api/rulesets", { name, text: await f.text() });
  $("#setup-error").textContent = r.ok ? "" : errText(r.data);
  if (r.ok) await loadRulesets(name);
});

$("#start").addEventListener("click", async () => {
  const options = {};
  document.querySelectorAll("#options select").forEach((s) => { options[s.dataset.option] = s.value; });
  const seed = $("#seed").value === "" ? null : Number($("#seed").value);
  const r = await api("POST", "/api/games", { ruleset: $("#ruleset").value, options, seat: $("#seat").value, bots: $("#bots").value, seed });
  $("#setup-error").textContent = r.ok ? "" : errText(r.data);
  if (r.ok) { game.id = r.data.id; show(r.data); }
});

async function act(text) {
  if (!game.id) return;
  const r = await api("POST", `/api/games/${game.id}/act`, { action: text });
  $("#act-error").textContent = r.ok ? "" : errText(r.data);
  show(r.ok ? r.data : r.data.state ? { id: game.id, ...r.data.state } : game.state);
}

const tr = t;  // in show(), `t` is the table
function show(state) {
  if (!state) return;
  if (state.tiles) game.tiles = new Tiles(state.tiles, state.indicator_labels);  // every answer of the game API has them
  game.state = state;
  const t = state.table, tiles = game.tiles, v = tiles.view(t);
  document.body.classList.toggle("playing", !t.over);  // a phone hides the setup while a hand is on
  renderBoard($("#board"), t, tiles, { you: state.you, playable: t.over ? null : act, wallId: "wall" });
  const prompt = $("#prompt");
  const claim = (t.phase === "claim" || t.phase === "rob") && t.legal.length;
  prompt.classList.toggle("hidden", !claim);
  if (claim && t.last_discard) prompt.textContent = tr("prompt.claim", { seat: seatName(t.last_discard.seat, state.you, null, t.seats), tile: tiles.name(t.last_discard.tile) });
  const acts = $("#actions");
  acts.innerHTML = "";
  t.legal.forEach((a, k) => {
    const key = k < 9 ? String(k + 1) : "";
    acts.append(el("button", { class: "action " + a.kind, "data-text": a.text, "data-kind": a.kind, "data-key": key, onclick: () => act(a.text) },
      key ? el("kbd", { text: key }) : null, v.action(a)));
  });
  const res = $("#result");
  res.innerHTML = "";
  res.classList.toggle("hidden", !state.result);
  if (state.result) {
    res.append(ledgerEl(state.result, t.seats));
    res.append(el("p", {}, el("a", { id: "download", href: `/api/games/${state.id}/record`, download: `${state.ruleset}-${state.seed}.yaml` }, tr("record.download")),
      " · " + tr("record.seed", { seed: state.seed })));
  }
  $("#log").innerHTML = "";
  for (const e of state.events || []) $("#log").append(el("li", { "data-event": e.event, text: eventText(state, tiles, e) }));
}

document.addEventListener("keydown", (ev) => {
  if (!$("#page-table").classList.contains("active") || !game.state || ev.target.matches("input, textarea, select")) return;
  const legal = game.state.table.legal;
  let a = null;
  if (/^[1-9]$/.test(ev.key)) a = legal[Number(ev.key) - 1];
  else if (ev.key === "p") a = legal.find((x) => x.kind === "pass");
  else if (ev.key === "h") a = legal.find((x) => x.kind === "win");
  if (a) { ev.preventDefault(); act(a.text); }
});

// ---- the replay --------------------------------------------------------------------------------------
const rep = { frames: [], i: 0, data: null, tiles: new Tiles() };
$("#record-file").addEventListener("change", async (ev) => {
  const f = ev.target.files[0];
  if (!f) return;
  const r = await api("POST", "/api/replay", { record: await f.text() });
  $("#replay-error").textContent = r.ok ? (r.data.identical ? "" : t("replay.differs", { diffs: r.data.differences.join("; ") })) : errText(r.data);
  if (r.ok) { rep.data = r.data; rep.tiles = new Tiles(r.data.tiles, r.data.indicator_labels); rep.frames = r.data.frames; rep.i = 0; showFrame(); }
});
$("#replay-prev").addEventListener("click", () => { if (rep.i > 0) { rep.i--; showFrame(); } });
$("#replay-next").addEventListener("click", () => { if (rep.i < rep.frames.length - 1) { rep.i++; showFrame(); } });
function showFrame() {
  const f = rep.frames[rep.i];
  if (!f) return;
  $("#replay-step").textContent = t("replay.step", { i: rep.i, n: rep.frames.length - 1, action: f.action === "deal" ? t("replay.deal") : f.action });
  $("#replay-step").dataset.step = rep.i;
  renderBoard($("#replay-board"), f.table, rep.tiles, {});
  const res = $("#replay-result");
  res.innerHTML = "";
  if (rep.i === rep.frames.length - 1 && rep.data.result) res.append(ledgerEl(rep.data.result, f.table.seats));
}

// ---- the playground: highlighting from the TextMate grammar -------------------------------------------
const hl = { rules: [] };
function jsRegex(src) {
  // Oniguruma → JavaScript (u flag): \w and \W as Unicode letters, digits and _.
  src = src.replace(/\[\^\\W\\d\]/g, "[\\p{L}_]");
  let out = "", inClass = false;
  for (let k = 0; k < src.length; k++) {
    const c = src[k];
    if (c === "\\" && k + 1 < src.length) {
      const d = src[k + 1];
      if (d === "w") out += inClass ? "\\p{L}\\p{N}_" : "[\\p{L}\\p{N}_]";
      else if (d === "-" && inClass) out += "\\-";
      else out += c + d;
      k++;
      continue;
    }
    if (c === "[") inClass = true; else if (c === "]") inClass = false;
    out += c;
  }
  return new RegExp(out, "yud");
}
function flatten(grammar, pats, out) {
  for (const p of pats) {
    if (p.include) flatten(grammar, [grammar.repository[p.include.slice(1)]], out);
    else if (p.patterns) flatten(grammar, p.patterns, out);
    else if (p.match) { try { out.push({ re: jsRegex(p.match), name: p.name, captures: p.captures }); } catch (e) { /* skipped */ } }
    else if (p.begin) { try { out.push({ re: jsRegex(p.begin + "[^" + p.begin + "]*(" + p.begin + "|$)"), name: p.name }); } catch (e) { /* skipped */ } }
  }
  return out;
}
const scopeClass = (name) => {
  if (!name) return "";
  const [a, b] = name.split(".");
  if (a === "variable") return b === "parameter" ? "tm-parameter" : "";
  if (a === "keyword" && b === "operator") return "tm-operator";
  return "tm-" + a;
};
function highlightLine(line) {
  let html = "", k = 0, plain = "";
  const flush = () => { html += esc(plain); plain = ""; };
  while (k < line.length) {
    let hit = null;
    for (const r of hl.rules) {
      r.re.lastIndex = k;
      const m = r.re.exec(line);
      if (m && m[0].length) { hit = { r, m }; break; }
    }
    if (!hit) { plain += line[k]; k++; continue; }
    flush();
    const { r, m } = hit;
    if (r.captures && m.indices) {
      let at = k;
      for (const [g, cap] of Object.entries(r.captures)) {
        const span = m.indices[Number(g)];
        if (!span) continue;
        html += esc(line.slice(at, span[0])) + `<span class="${scopeClass(cap.name)}">${esc(line.slice(span[0], span[1]))}</span>`;
        at = span[1];
      }
      html += esc(line.slice(at, k + m[0].length));
    } else {
      html += `<span class="${scopeClass(r.name)}">${esc(m[0])}</span>`;
    }
    k += m[0].length;
  }
  flush();
  return html;
}

const pg = { timer: null, seq: 0, diags: [], impact: null, ws: null };
function renderEditor() {
  const lines = $("#source").value.split("\n");
  const marks = new Map();
  for (const d of pg.diags) if (!marks.has(d.line) || d.severity === "error") marks.set(d.line, d.severity === "error" ? "err" : "warn");
  $("#highlight").innerHTML = lines.map((l, k) => `<span class="ln${marks.has(k + 1) ? " " + marks.get(k + 1) : ""}" data-line="${k + 1}">${highlightLine(l) || " "}</span>`).join("");
  syncScroll();
}
function syncScroll() { $("#highlight").scrollTop = $("#source").scrollTop; $("#highlight").scrollLeft = $("#source").scrollLeft; }
$("#source").addEventListener("scroll", syncScroll);
$("#source").addEventListener("input", () => {
  renderEditor();
  clearTimeout(pg.timer);
  pg.timer = setTimeout(check, 300);
});
$("#source").addEventListener("keydown", (ev) => {
  if (ev.key === "Tab") { ev.preventDefault(); document.execCommand("insertText", false, "    "); }
});

async function check() {
  const seq = ++pg.seq;
  $("#pg-status").textContent = t("pg.checking");
  const r = await api("POST", "/api/check", { text: $("#source").value });
  if (seq !== pg.seq) return; // a newer check is on its way
  const list = $("#diagnostics");
  list.innerHTML = "";
  if (!r.ok) { pg.diags = []; $("#pg-status").textContent = errText(r.data); renderEditor(); return; }
  pg.diags = r.data.diagnostics;
  for (const d of pg.diags) {
    list.append(el("li", { class: "diag " + d.severity, "data-line": d.line, "data-code": d.code, onclick: () => goTo(d.line, d.column) },
      `${d.line}:${d.column} ${d.code} ${d.message}` + (d.hint ? ` — ${d.hint}` : "")));
  }
  if (!pg.diags.length) list.append(el("li", { class: "ok", text: t("pg.clean") }));
  $("#pg-status").textContent = r.data.ok ? t("pg.ok", { n: r.data.warnings || 0 }) : t("pg.errors", { n: r.data.errors });
  $("#pg-status").dataset.ok = r.data.ok ? "1" : "0";
  if (r.data.sheet) $("#pane-sheet").innerHTML = markdown(r.data.sheet);
  renderEditor();
}
function goTo(line, col) {
  const ta = $("#source"), lines = ta.value.split("\n");
  let pos = 0;
  for (let k = 0; k < line - 1 && k < lines.length; k++) pos += lines[k].length + 1;
  ta.focus();
  ta.setSelectionRange(pos + col - 1, pos + col - 1);
}

$("#pg-load").addEventListener("click", async () => {
  const r = await api("GET", "/api/rulesets/" + encodeURIComponent($("#pg-base").value));
  if (!r.ok) { $("#pg-status").textContent = errText(r.data); return; }
  $("#source").value = r.data.text;
  renderEditor();
  check();
});

// a room for this text: kept as an upload under its `ruleset` name, then the host's form (/rooms)
$("#pg-room").addEventListener("click", async () => {
  const text = $("#source").value;
  const m = text.match(/^\s*ruleset\s+([^\s"]+)/m);
  const name = ((m ? m[1] : "edited").replace(/[^\p{L}\p{N}_-]/gu, "") || "edited").slice(0, 64);
  const r = await api("POST", "/api/rulesets", { name, text });
  if (!r.ok) { $("#pg-status").textContent = errText(r.data); return; }
  location.href = "/rooms?ruleset=" + encodeURIComponent(name);
});

$("#pg-diff").addEventListener("click", async () => {
  showPane("diff");
  const r = await api("POST", "/api/diff", { text: $("#source").value, base: $("#pg-base").value });
  const box = $("#diff");
  box.innerHTML = "";
  if (!r.ok) { box.append(el("p", { class: "error", text: errText(r.data) })); return; }
  const d = r.data;
  box.append(el("p", { id: "diff-summary", "data-changes": `${d.added}/${d.removed}/${d.changed}`,
    text: `${d.a} → ${d.b}: ${d.changes.length ? t("pg.diffSummary", { n: d.changes.length, added: d.added, removed: d.removed, changed: d.changed }) : t("pg.noDiff")}` }));
  for (const c of d.changes) {
    const cls = c.op === "+" ? "add" : c.op === "-" ? "del" : "mod";
    const text = c.op === "~" ? `~ ${c.path}\n    - ${c.old.text}    [${c.old.at}]\n    + ${c.new.text}    [${c.new.at}]`
      : `${c.op} ${c.path} = ${(c.new || c.old).text}    [${(c.new || c.old).at}]`;
    box.append(el("div", { class: "change " + cls, "data-path": c.path, text }));
  }
});

$("#run-tests").addEventListener("click", async () => {
  const r = await api("POST", "/api/test", { text: $("#source").value, scenario: $("#scenario").value });
  const box = $("#test-results");
  box.innerHTML = "";
  if (!r.ok) { box.append(el("p", { class: "error", text: errText(r.data) })); return; }
  for (const c of r.data.cases) {
    const div = el("div", { class: "case " + c.status }, `${c.status.toUpperCase()} ${c.name ?? c.file}`);
    for (const x of c.differences) div.append(el("div", { text: "    " + x }));
    if (c.error) div.append(el("div", { text: "    " + errText(c.error) }));
    box.append(div);
  }
  box.append(el("p", { id: "test-summary", text: t("pg.passed", { passed: r.data.passed, failed: r.data.failed }) + (r.data.errors ? t("pg.caseErrors", { n: r.data.errors }) : "") }));
});

$("#impact-start").addEventListener("click", async () => {
  const body = { text: $("#source").value, base: $("#pg-base").value, hands: Number($("#impact-hands").value), seed: Number($("#impact-seed").value) };
  $("#impact-report").innerHTML = "";
  const r = await api("POST", "/api/impact", body);
  if (!r.ok) { $("#impact-state").textContent = errText(r.data); return; }
  pg.impact = r.data.id;
  $("#impact-cancel").disabled = false;
  $("#impact-start").disabled = true;
  follow(r.data.id);
});
$("#impact-cancel").addEventListener("click", async () => {
  if (pg.impact) showImpact((await api("POST", `/api/impact/${pg.impact}/cancel`)).data);
});
function follow(id) {
  // live progress over a websocket; polled instead if the socket cannot open
  let open = false;
  try {
    const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/impact/${id}`);
    pg.ws = ws;
    ws.onopen = () => { open = true; };
    ws.onmessage = (ev) => showImpact(JSON.parse(ev.data));
    ws.onclose = () => { if (!open) poll(id); };
    ws.onerror = () => { if (!open) poll(id); };
  } catch (e) { poll(id); }
}
async function poll(id) {
  const r = await api("GET", `/api/impact/${id}`);
  if (r.ok) { showImpact(r.data); if (r.data.state === "running") setTimeout(() => poll(id), 500); }
}
function showImpact(j) {
  if (!j) return;
  $("#impact-progress").max = j.total || 1;
  $("#impact-progress").value = j.done || 0;
  $("#impact-state").textContent = j.state === "running" ? t("pg.running", { done: j.done, total: j.total }) : j.state === "done" ? t("pg.done", { s: j.seconds }) : `${named("job", j.state)}${j.error ? ": " + errText(j.error) : ""}`;
  $("#impact-state").dataset.state = j.state;
  if (j.state !== "running") {
    $("#impact-cancel").disabled = true;
    $("#impact-start").disabled = false;
    if (j.result) $("#impact-report").innerHTML = markdown(j.result.markdown);
  }
}

// ---- a little Markdown (headings, tables, lists, paragraphs, `code`, **bold**) ---------------------------
function inline(s) {
  return esc(s).replace(/`([^`]+)`/g, "<code>$1</code>").replace(/\*\*([^*]+)\*\*/g, "<b>$1</b>");
}
function markdown(text) {
  const lines = text.split("\n"), out = [];
  for (let k = 0; k < lines.length; k++) {
    const l = lines[k];
    let m;
    if ((m = /^(#{1,6})\s+(.*)$/.exec(l))) out.push(`<h${m[1].length}>${inline(m[2])}</h${m[1].length}>`);
    else if (l.startsWith("|")) {
      const rows = [];
      while (k < lines.length && lines[k].startsWith("|")) rows.push(lines[k++]);
      k--;
      const cells = (r) => r.replace(/^\||\|$/g, "").split("|").map((c) => c.trim());
      let html = "<table>";
      rows.forEach((r, j) => {
        if (j === 1 && /^[\s|:-]+$/.test(r)) return;
        const tag = j === 0 ? "th" : "td";
        html += "<tr>" + cells(r).map((c) => `<${tag}>${inline(c)}</${tag}>`).join("") + "</tr>";
      });
      out.push(html + "</table>");
    } else if (/^[-*]\s+/.test(l)) out.push(`<li>${inline(l.replace(/^[-*]\s+/, ""))}</li>`);
    else if (l.trim()) {
      const para = [l];  // consecutive text lines are one paragraph, as in Markdown
      while (k + 1 < lines.length && lines[k + 1].trim() && !/^(#{1,6}\s|\||[-*]\s)/.test(lines[k + 1])) para.push(lines[++k]);
      out.push(`<p>${inline(para.join(" "))}</p>`);
    }
  }
  return out.join("\n");
}

// ---- start ----------------------------------------------------------------------------------------------
(async () => {
  const g = await fetch("/grammar.json").then((r) => r.json()).catch(() => null);
  if (g) hl.rules = flatten(g, g.patterns, []);
  await loadRulesets();
  $("#scenario").value = "ruleset: edited.rules\ncases:\n  - name: an example\n    jing: 9s\n    hands:\n      S: 123m456m789p23p5s9s\n    win: {seat: S, tile: 4p, by: discard, from: W}\n    expect:\n      hand: {E: 0, S: 0, W: 0, N: 0}\n";
  renderEditor();
  document.body.dataset.ready = "1";
})();
