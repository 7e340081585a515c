// The pages' message catalogue: every word a page shows, in 简体中文 (the default) and English.
// An ES module any page imports (the table, the replay, the playground, a room; tiles.js draws
// tiles and names actions from it):
//
//   import { t, setLang, lang, translatePage, tileName, seatName, relation } from "/static/i18n.js";
//   t("table.sitDown")                   → "入座" / "Sit down"; t(key, {n: 3}) fills {n}
//   tileName(tile)                       → "六条", "南风", "红中" (tile: an entry of the server's tile set)
//   seatName("S")                        → "南"; seatName("S", "E", "S", seats) → "南 · 下家 · 庄"
//   relation("S", "E", seats)            → "下家" (上家 / 对家 / 下家 / 自己 by play order)
//   translatePage(root)                  → fills every [data-i18n] / [data-i18n-title] / [data-i18n-placeholder]
//
// Tiles are named from what the rule file declares (the server sends each tile's code, rank and
// its group's label: `suit s "条"` → 六条, `honours winds "风" = 东 …` → 南风); only the words of a
// language live here: numerals, the usual names of 中发白 (红中 发财 白板), seat and action words.
// Keys built at run time have an entry for every value the server sends: phase.PHASE,
// act.KIND (engine/table/actions.py), when.WHEN, by.BY, room.closedCODE (the rooms' caps); a test checks.
// The language is remembered in localStorage ("mjrules.lang"); setLang fires "langchange" on window.
"use strict";

const STORE = "mjrules.lang";

export const CATALOGUE = {
  "zh-CN": {
    "lang.name": "中文", "lang.switch": "English", "lang.switchTitle": "Switch to English",
    "tab.table": "牌桌", "tab.replay": "回放", "tab.playground": "规则试验场",
    "setup.ruleset": "规则", "setup.options": "选项", "setup.upload": "上传规则…", "setup.seat": "座位",
    "setup.bots": "机器人", "setup.seed": "种子", "setup.random": "随机", "setup.sitDown": "入座",
    "setup.uploaded": "（上传）",
    "board.dealer": "庄家 {seat} · 第 {floor} 楼", "board.wall": "牌墙余 {n} 张", "board.over": "本局结束",
    "board.turn": "轮到：{seats}", "board.discarded": "{seat} 打出",
    "board.dealerMark": "庄", "board.hidden": "暗牌", "board.concealed": "暗",
    "phase.draw": "摸牌", "phase.act": "出牌", "phase.claim": "吃碰杠胡", "phase.rob": "抢杠", "phase.over": "本局结束",
    "phase.flip": "翻精", "phase.pick": "选精",
    "board.flip": "{name} 第 {made} 翻（最多 {of} 翻）：{tile}", "board.pick": "你选的精：{tile}",
    "tiles.run": "", "tiles.list": "、",
    "prompt.claim": "{seat} 打出 {tile}：要还是过？（不限时）",
    "act.draw": "摸牌", "act.discard": "打", "act.chow": "吃", "act.pung": "碰", "act.kong": "明杠",
    "act.concealed_kong": "暗杠", "act.added_kong": "加杠", "act.win": "胡", "act.pass": "过", "act.stop": "止",
    "act.from": "（{seat}）",
    "jing.main": "正精", "jing.sub": "副精", "jing.mainShort": "正", "jing.subShort": "副",
    "result.wins": "{seat} 胡牌（{by}）— {reading}；番：{fans}", "result.none": "无",
    "result.exhaustive": "荒庄：牌墙摸完，无人胡牌",
    "by.discard": "点炮", "by.self_draw": "自摸", "by.kong_draw": "杠上开花", "by.rob_kong": "抢杠胡", "by.exhaustive": "荒庄",
    "ledger.title": "明细", "ledger.when": "时机", "ledger.part": "项目", "ledger.flow": "付 → 收",
    "ledger.amount": "子", "ledger.rule": "规则", "ledger.how": "算法", "ledger.net": "净得（子）",
    "when.after_deal": "开局", "when.end": "结算", "when.during": "局中", "when.flip": "翻牌",
    "part.hand": "胡牌", "part.follow_first": "抄庄", "part.stop_penalty": "止付", "part.net_cap": "封顶",
    "part.discard_bonus": "点炮加付", "rule.win": "胡牌",
    "record.download": "下载牌谱", "record.seed": "种子 {seed}",
    "log.title": "过程", "log.break": "骰子 {rolls}：从第 {stack} 墩开牌", "log.deal": "配牌：{hand}",
    "log.indicator": "{label}：{tile}", "log.flip": "{name} 翻出：{tile}（骰子 {dice}）",
    "log.settle": "{part} 结算：{net}", "log.draw": "{seat} 摸牌", "log.drawTile": "{seat} 摸 {tile}",
    "log.replacement": "（补牌）", "log.act": "{seat} {act} {tile}", "log.from": "（{seat} 打出）",
    "rel.self": "自己（你）", "rel.next": "下家", "rel.opposite": "对家", "rel.previous": "上家",
    "replay.intro": "载入牌谱（来自 mjrules play --record、simulate --records 或牌桌的下载），逐步回放。",
    "replay.back": "◀ 上一步", "replay.next": "下一步 ▶", "replay.step": "第 {i} 步 / 共 {n} 步：{action}",
    "replay.deal": "配牌", "replay.load": "载入牌谱…", "replay.differs": "与牌谱不符：{diffs}",
    "pg.base": "基础规则", "pg.load": "把基础规则载入编辑器", "pg.diff": "与基础规则比较",
    "pg.sheet": "规则表", "pg.diffTab": "差异", "pg.scenarios": "场景", "pg.impact": "影响",
    "pg.scenarioIntro": "场景文件（docs/scenarios.md）；ruleset: edited.rules 测试编辑器里的文本。",
    "pg.runCases": "运行用例", "pg.impactIntro": "同样种子的若干局，分别按基础规则和编辑器文本打（贪心机器人）。",
    "pg.hands": "局数", "pg.seed": "种子", "pg.run": "运行", "pg.cancel": "取消",
    "pg.checking": "检查中…", "pg.ok": "通过（{n} 个警告）", "pg.errors": "{n} 个错误", "pg.clean": "没有错误，没有警告",
    "pg.noDiff": "没有差异", "pg.diffSummary": "{n} 处差异：增 {added}，删 {removed}，改 {changed}",
    "pg.passed": "{passed} 通过，{failed} 失败", "pg.caseErrors": "，{n} 个出错",
    "pg.running": "已打 {done} / {total} 局…", "pg.done": "完成，用时 {s} 秒",
    "job.failed": "失败", "job.cancelled": "已取消", "job.timeout": "超时",
    "bot.random": "随机", "bot.greedy": "贪心", "bot.value": "估值",
    "room.title": "房间", "room.new": "开房间", "room.hands": "局数", "room.create": "开房", "room.bot": "机器人",
    "room.person": "真人", "room.inHand": "手牌 {n} 张", "room.finished": "本场结束", "room.handOf": "第 {k} 局 / 共 {n} 局",
    "room.clickToDiscard": "点手牌打出", "room.handEnded": "第 {k} 局：", "room.connected": "已连接",
    "room.watching": "观战中", "room.reconnecting": "连接断开，重连中…", "room.closed4403": "这个链接进不了座位",
    "room.closed4404": "没有这个房间", "room.closed4409": "房间在另一台服务器上",
    "room.closed4400": "这个房间的规则打不开", "room.closed4429": "连接太多，稍后重连…", "room.links": "每个座位的链接（发给各自的人）",
    "room.watchLink": "观战", "room.keepHost": "每个链接只给一个人：谁打开，谁就坐那个位子。",
    "act.pick": "选精", "act.rob": "抢杠", "room.toBot": "{seat} 交给机器人", "room.close": "关闭房间",
    "pg.room": "用这份规则开房间",
    "err.generic": "出错了", "err.at": "（第 {line} 行，第 {column} 列）", "err.hint": "提示：{hint}",
  },
  en: {
    "room.title": "Room", "room.new": "New room", "room.hands": "hands", "room.create": "Open the room", "room.bot": "bot",
    "room.person": "person", "room.inHand": "{n} in hand", "room.finished": "match over", "room.handOf": "hand {k} of {n}",
    "room.clickToDiscard": "click a tile to discard it", "room.handEnded": "Hand {k}:", "room.connected": "connected",
    "room.watching": "watching", "room.reconnecting": "disconnected, reconnecting…",
    "room.closed4403": "this link opens no seat", "room.closed4404": "no such room",
    "room.closed4409": "the room is served by another server",
    "room.closed4400": "this room's rules cannot be opened", "room.closed4429": "too many connections: retrying in a while…", "room.links": "Each seat's link (send each to its person)",
    "room.watchLink": "watch", "room.keepHost": "One link per person: whoever opens it sits there.",
    "act.pick": "pick 精", "act.rob": "rob the kong", "room.toBot": "give {seat} to a bot", "room.close": "Close the room",
    "pg.room": "Open a room with these rules",
    "lang.name": "English", "lang.switch": "中文", "lang.switchTitle": "切换到中文",
    "tab.table": "Table", "tab.replay": "Replay", "tab.playground": "Rule playground",
    "setup.ruleset": "ruleset", "setup.options": "options", "setup.upload": "Upload rules…", "setup.seat": "seat",
    "setup.bots": "bots", "setup.seed": "seed", "setup.random": "random", "setup.sitDown": "Sit down",
    "setup.uploaded": " (uploaded)",
    "board.dealer": "dealer {seat} · floor {floor}", "board.wall": "wall {n}", "board.over": "hand over",
    "board.turn": "to act: {seats}", "board.discarded": "{seat} discarded",
    "board.dealerMark": "dealer", "board.hidden": "hidden", "board.concealed": "concealed",
    "phase.draw": "draw", "phase.act": "play", "phase.claim": "claims", "phase.rob": "robbing a kong", "phase.over": "hand over",
    "phase.flip": "flipping 精", "phase.pick": "picking 精",
    "board.flip": "{name}: flip {made} of at most {of}: {tile}", "board.pick": "your 精: {tile}",
    "tiles.run": ", ", "tiles.list": ", ",
    "prompt.claim": "{seat} discarded {tile}: claim it or pass (no hurry).",
    "act.draw": "draw", "act.discard": "discard", "act.chow": "chow", "act.pung": "pung", "act.kong": "kong",
    "act.concealed_kong": "concealed kong", "act.added_kong": "added kong", "act.win": "win", "act.pass": "pass",
    "act.stop": "stop", "act.from": " (from {seat})",
    "jing.main": "main jing (正精)", "jing.sub": "second jing (副精)", "jing.mainShort": "正", "jing.subShort": "副",
    "result.wins": "{seat} wins ({by}) — {reading}; fans: {fans}", "result.none": "none",
    "result.exhaustive": "荒庄: the wall is empty, no winner",
    "by.discard": "on a discard", "by.self_draw": "self-drawn", "by.kong_draw": "on a kong's replacement", "by.rob_kong": "robbing a kong",
    "by.exhaustive": "exhaustive",
    "ledger.title": "ledger", "ledger.when": "when", "ledger.part": "part", "ledger.flow": "payer → payee",
    "ledger.amount": "子", "ledger.rule": "rule", "ledger.how": "how", "ledger.net": "net 子",
    "when.after_deal": "after the deal", "when.end": "end", "when.during": "during play", "when.flip": "flip",
    "part.hand": "hand", "part.follow_first": "following the dealer's first discard", "part.stop_penalty": "stop penalty",
    "part.net_cap": "net cap", "part.discard_bonus": "discarder's extra", "rule.win": "win",
    "record.download": "download the record", "record.seed": "seed {seed}",
    "log.title": "what happened", "log.break": "dice {rolls}: the wall breaks at stack {stack}", "log.deal": "deal: you hold {hand}",
    "log.indicator": "{label}: {tile}", "log.flip": "{name} turned: {tile} (dice {dice})",
    "log.settle": "{part} settled: {net}", "log.draw": "{seat} draws", "log.drawTile": "{seat} draws {tile}",
    "log.replacement": " (replacement)", "log.act": "{seat} {act} {tile}", "log.from": " (from {seat})",
    "rel.self": "you", "rel.next": "next", "rel.opposite": "opposite", "rel.previous": "previous",
    "replay.intro": "Load a record (from mjrules play --record, simulate --records or the table's download) and step through it.",
    "replay.back": "◀ back", "replay.next": "next ▶", "replay.step": "step {i} of {n}: {action}",
    "replay.deal": "deal", "replay.load": "Load a record…", "replay.differs": "differs from the record: {diffs}",
    "pg.base": "base", "pg.load": "Load base into the editor", "pg.diff": "Diff against base",
    "pg.sheet": "Rule sheet", "pg.diffTab": "Diff", "pg.scenarios": "Scenarios", "pg.impact": "Impact",
    "pg.scenarioIntro": "A scenario file (docs/scenarios.md); ruleset: edited.rules tests the editor's text.",
    "pg.runCases": "Run the cases", "pg.impactIntro": "The same seeded hands under the base and under the editor's text (greedy bots).",
    "pg.hands": "hands", "pg.seed": "seed", "pg.run": "Run", "pg.cancel": "Cancel",
    "pg.checking": "checking…", "pg.ok": "ok ({n} warnings)", "pg.errors": "{n} errors", "pg.clean": "no errors, no warnings",
    "pg.noDiff": "no differences", "pg.diffSummary": "{n} differences: {added} added, {removed} removed, {changed} changed",
    "pg.passed": "{passed} passed, {failed} failed", "pg.caseErrors": ", {n} errors",
    "pg.running": "{done} of {total} hands played…", "pg.done": "done in {s} s",
    "job.failed": "failed", "job.cancelled": "cancelled", "job.timeout": "timed out",
    "bot.random": "random", "bot.greedy": "greedy", "bot.value": "value",
    "err.generic": "error", "err.at": " (line {line}, column {column})", "err.hint": "hint: {hint}",
  },
};

// the language's own words for tiles and seats (not rules: how players say them)
const WORDS = {
  "zh-CN": {
    numerals: ["", "一", "二", "三", "四", "五", "六", "七", "八", "九"],
    honours: { 中: "红中", 发: "发财", 白: "白板" },  // the usual names; any other honour: its name + its group's label (南风)
    seats: { E: "东", S: "南", W: "西", N: "北" },
  },
  en: {
    numerals: null,
    suits: { 万: "Characters", 筒: "Dots", 条: "Bamboo" },
    honours: { 东: "East wind", 南: "South wind", 西: "West wind", 北: "North wind", 中: "Red dragon", 发: "Green dragon", 白: "White dragon" },
    seats: { E: "East", S: "South", W: "West", N: "North" },
  },
};

export const LANGS = Object.keys(CATALOGUE);
export const DEFAULT_LANG = "zh-CN";
let current = (() => {
  try { const v = localStorage.getItem(STORE); return LANGS.includes(v) ? v : DEFAULT_LANG; } catch (e) { return DEFAULT_LANG; }
})();

/** The language in use ("zh-CN" or "en"). */
export function lang() { return current; }

/** Use language `code`, remember it, translate the page and fire "langchange". */
export function setLang(code) {
  if (!LANGS.includes(code)) return;
  current = code;
  try { localStorage.setItem(STORE, code); } catch (e) { /* private mode: not remembered */ }
  if (typeof document !== "undefined") { document.documentElement.lang = code; translatePage(document); }
  if (typeof window !== "undefined") window.dispatchEvent(new CustomEvent("langchange", { detail: code }));
}

/** The message `key` in the current language, `{name}` filled from `vars`; the key itself if unknown. */
export function t(key, vars = {}) {
  const text = CATALOGUE[current][key] ?? CATALOGUE[DEFAULT_LANG][key] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
}

/** Whether the catalogue has `key` (for names that may or may not be translated, like a ledger part). */
export function has(key) { return key in CATALOGUE[current]; }

/** A name the server sends (a ledger part, a rule, a bot kind, a job's state) in the current
 * language: the catalogue's `kind.v`, else what the rule file labels it (`labels[v]`), else `v`. */
export function named(kind, v, labels) { return has(`${kind}.${v}`) ? t(`${kind}.${v}`) : (labels && labels[v]) || v; }

/** Fill the text of every element under `root` marked data-i18n="key" (and -title, -placeholder). */
export function translatePage(root) {
  root.querySelectorAll("[data-i18n]").forEach((e) => { e.textContent = t(e.dataset.i18n); });
  root.querySelectorAll("[data-i18n-title]").forEach((e) => { e.title = t(e.dataset.i18nTitle); });
  root.querySelectorAll("[data-i18n-placeholder]").forEach((e) => { e.placeholder = t(e.dataset.i18nPlaceholder); });
}

/** A tile's name: 六条 / "6 Bamboo", 南风 / "South wind", 红中. `tile`: {code, suit, rank, label}. */
export function tileName(tile) {
  if (!tile) return t("board.hidden");
  const w = WORDS[current];
  if (tile.suit) {
    if (w.numerals) return (w.numerals[tile.rank] || String(tile.rank)) + (tile.label || tile.group);
    return `${tile.rank} ${(w.suits && w.suits[tile.label]) || tile.label || tile.group}`;
  }
  return w.honours[tile.code] || (w.numerals ? tile.code + (tile.label || "") : tile.code);
}

/** The short face of a tile: [rank, suit] for a suit ("六", "条"), [name] for an honour ("南"). */
export function tileFace(tile) {
  const n = WORDS["zh-CN"].numerals;
  return tile.suit ? [n[tile.rank] || String(tile.rank), tile.label || tile.group] : [tile.code];
}

/** How `seat` sits from `viewer`'s place in play order `seats`: 自己, 下家 (plays after), 对家, 上家. */
export function relation(seat, viewer, seats) {
  if (!viewer || !seats) return "";
  const n = seats.length, d = (seats.indexOf(seat) - seats.indexOf(viewer) + n) % n;
  if (d === 0) return t("rel.self");
  if (d === 1) return t("rel.next");
  if (d === n - 1) return t("rel.previous");
  return t("rel.opposite");
}

/** A seat's name (东南西北 / East …); with `viewer` and `seats` its relation, with `dealer` the 庄 mark. */
export function seatName(seat, viewer, dealer, seats) {
  const parts = [WORDS[current].seats[seat] || seat];
  if (viewer && seats) parts.push(relation(seat, viewer, seats));
  if (dealer && seat === dealer) parts.push(t("board.dealerMark"));
  return parts.join(" · ");
}
