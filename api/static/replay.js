// The replay page: a game at the table, step by step.
//
// Data: only the API, with the viewer's key (kept in this tab's sessionStorage) or a share token
// (`#share=ts_...` in the link, finished hands only), so the server's visibility rules decide every
// card this page may show. Reads: GET /v1/games/{id} (players, status), /hands (each hand's seqs),
// /replay?hand=N&seat=S (frames {seq, event, result, state}), /score (hands, totals, lines), /state
// (hand 0 only: /replay starts at hand 1), and /stream (server-sent events, read with fetch() so
// that the key travels in the Authorization header, never in a URL).
// Position: the address keeps it as lichess does (#42: event 42; &seat=S when viewing from a seat; the older
// #hand=3&seq=42 is read too). Keys: ← → step, Home / End, ↑ ↓ hands, f turns the table, ? lists them.
// Text: each frame's `text` and each score line's `reason` are the API's (names, glyphs, units); numbers
// of the state are formatted by cards.js `valueText` in the game's `units`. Downloads: /export, fetched
// with the key and saved from a blob. Without a game id: the club's list, GET /v1/games with its filters
// and cursor pages (the filters stay in the address: /replay?game=casino&player=Ann).

import { cardText, describe, fieldText, h, plainWords, textNodes, unitsOf, who } from "./cards.js";
import { ApiError, requestJson } from "./request.js";
import { storedWords } from "./padwords.js";
import { problemOf, showProblem } from "./site.js";
import { TITLES, renderTable } from "./tables.js";

//: engine events that a retract does not take back: claims and notes stay in force
const STANDING = new Set(["note", "score_claimed"]);
//: the export formats of GET /v1/games/{id}/export, as the download menu offers them
const DOWNLOADS = [
  { format: "json", label: "JSON (re-importable record)" },
  { format: "jsonl", label: "JSON lines (re-importable)" },
  { format: "text", label: "Text hand history" },
  { format: "sheet", label: "Score sheet (CSV: hands down, players across, totals)" },
  { format: "csv", label: "Score lines (CSV: one row per line, with the reasons)" },
  { format: "csv-excel", label: "Score lines for Excel (CSV, UTF-8 with BOM)" },
];
const PAGE_SIZE = 25;

const KEY_STORE = "tablebook.key";
const SHARE_STORE = "tablebook.share.";
const $ = (id) => document.getElementById(id);

const app = {
  gameId: null,
  token: null,
  isShare: false,
  meta: null,
  hands: [],
  liveHand: null,
  score: null,
  seat: "all",
  hand: null,
  frames: [],
  viewpoint: null,
  index: 0,
  cache: new Map(),
  listKey: null,
  stream: null,
  newEvents: 0,
  loading: 0,
  scoreHand: null,
  units: null,
  cursors: [null],
  pageIndex: 0,
  turn: 0,
  words: null,
  // hand -> {seq: decision} of `GET /review` (docs/review.md), once it has answered (a finished hand only)
  reviews: new Map(),
};

/** The game's units: from the state documents once a frame is loaded, else the known ones of its kind. */
const gameUnits = () => unitsOf({ game: app.meta ? app.meta.game : null, units: app.units });

// --------------------------------------------------------------------------- the API

/** A request with the viewer's key or share token (`request.js`). */
const api = (path, options = {}) => requestJson(path, { ...options, token: app.token });

const gamePath = (suffix = "") => `/v1/games/${encodeURIComponent(app.gameId)}${suffix}`;

// --------------------------------------------------------------------------- messages

function showAlert(message, kind = "error") {
  const el = $("alert");
  el.textContent = message;
  el.className = `alert alert-${kind}`;
  el.hidden = !message;
}

function busy(on) {
  app.loading += on ? 1 : -1;
  document.body.classList.toggle("loading", app.loading > 0);
  document.body.dataset.busy = app.loading > 0 ? "1" : "0";
  $("main").setAttribute("aria-busy", app.loading > 0 ? "true" : "false");
}

// --------------------------------------------------------------------------- access

/** The position in the address: `#42` (event 42) with `&seat=S` and `&share=ts_...`; `#hand=3&seq=42` too. */
function readHash() {
  const raw = window.location.hash.slice(1);
  const bare = raw.split("&").find((part) => /^\d+$/.test(part));
  const params = new URLSearchParams(raw.split("&").filter((part) => part.includes("=")).join("&"));
  const num = (name) => {
    const v = params.get(name);
    return v !== null && /^\d+$/.test(v) ? Number(v) : null;
  };
  const seq = bare !== undefined ? Number(bare) : num("seq");
  return { hand: bare !== undefined ? null : num("hand"), seq, seat: params.get("seat"), share: params.get("share") };
}

function pickCredential() {
  const fromHash = readHash().share || new URLSearchParams(window.location.search).get("share");
  if (fromHash && app.gameId) {
    sessionStorage.setItem(SHARE_STORE + app.gameId, fromHash);
    return { token: fromHash, share: true };
  }
  const shared = app.gameId ? sessionStorage.getItem(SHARE_STORE + app.gameId) : null;
  if (shared) return { token: shared, share: true };
  const key = sessionStorage.getItem(KEY_STORE);
  return key ? { token: key, share: false } : null;
}

function askForKey(message) {
  const dialog = $("key-dialog");
  $("key-error").textContent = message || "";
  $("key-error").hidden = !message;
  $("key-input").value = "";
  if (!dialog.open) dialog.showModal();
  $("key-input").focus();
}

function forgetCredential() {
  sessionStorage.removeItem(KEY_STORE);
  if (app.gameId) sessionStorage.removeItem(SHARE_STORE + app.gameId);
  stopStream();
  app.token = null;
  app.cache.clear();
  const hash = readHash();
  if (hash.share) writeHash(true);
  window.location.reload();
}

// --------------------------------------------------------------------------- hands and frames

const visibleHands = () => app.hands.filter((span) => !(app.isShare && span.live));

function handOfSeq(seq) {
  const span = app.hands.find((s) => seq >= s.first_seq && seq <= s.last_seq);
  return span ? span.hand : null;
}

async function framesOf(hand, seat) {
  const key = `${hand}|${seat}`;
  if (app.cache.has(key)) return app.cache.get(key);
  const seatQuery = seat === "all" ? "" : `seat=${seat}`;
  let entry;
  if (hand === 0) {
    // Before the first hand (a Gin cut): /replay starts at hand 1, so fold each seq with /state.
    const span = app.hands.find((s) => s.hand === 0);
    const events = (await api(gamePath(`/events?after=0&limit=${span ? span.events : 50}`))).events;
    const frames = [];
    for (const env of events.filter((e) => e.hand === 0)) {
      const state = await api(gamePath(`/state?at=${env.seq}${seatQuery ? `&${seatQuery}` : ""}`));
      const frame = { seq: env.seq, event: { type: env.type, ...env.data }, result: env.result, state,
        actor: env.actor, recorded_at: env.recorded_at };
      if (env.violation) frame.violation = env.violation;
      frames.push(frame);
    }
    entry = { frames, viewpoint: frames.length ? frames[0].state.viewpoint : null };
  } else {
    const body = await api(gamePath(`/replay?hand=${hand}${seatQuery ? `&${seatQuery}` : ""}`));
    entry = { frames: body.frames, viewpoint: body.viewpoint };
  }
  app.cache.set(key, entry);
  return entry;
}

/** Show hand `hand` at the frame of `seq` (the last frame at or before it), or at `index` (-1: the last). */
async function go(hand, { seq = null, index = null, focusList = false } = {}) {
  busy(true);
  try {
    const entry = await framesOf(hand, app.seat);
    app.hand = hand;
    app.frames = entry.frames;
    const units = entry.frames.length && entry.frames[0].state.units ? entry.frames[0].state.units : null;
    if (units && JSON.stringify(units) !== JSON.stringify(app.units)) {
      app.units = units;
      renderScore();
    }
    app.viewpoint = entry.viewpoint;
    let i = 0;
    if (seq !== null) {
      i = 0;
      app.frames.forEach((frame, k) => {
        if (frame.seq <= seq) i = k;
      });
    } else if (index !== null) {
      i = index < 0 ? app.frames.length - 1 : Math.min(index, app.frames.length - 1);
    }
    app.index = Math.max(0, i);
    render(focusList);
    showAlert("");
    if (REVIEW_ASKED) loadReview(hand);
  } catch (error) {
    showAlert(error.message);
  } finally {
    busy(false);
  }
}

/** `?review` in the address: each finished hand shown is reviewed at once (else only when `n` or `p` asks). */
const REVIEW_ASKED = new URLSearchParams(location.search).has("review");

/**
 * The hand's review (`GET /review?hand=N`, docs/review.md), fetched when asked (`?review`, or `n` / `p`): a
 * review searches the hand's every decision, seconds of the server's work, so no page asks it unbidden. Each marked
 * decision gets its mark (?!, ?, ??) and its sentence in the event list, and `n` / `p` jump between them. A
 * live hand has none (the API refuses it), and a review that fails leaves the page as it was.
 */
async function loadReview(hand) {
  const span = app.hands.find((s) => s.hand === hand);
  if (hand < 1 || !span || span.live || app.reviews.has(hand)) return;
  app.reviews.set(hand, null);
  try {
    const body = await reviewOf(hand);
    const bySeq = {};
    for (const d of body.decisions) bySeq[d.seq] = d;
    app.reviews.set(hand, bySeq);
    if (app.hand === hand) {
      app.listKey = null;
      render();
    }
  } catch (error) {
    app.reviews.delete(hand);
  }
}

/** `GET /review?hand=N`, asked again (up to 5 times) while the server answers 429 `busy`: it runs only a few
 * searches at once and says how long to wait (`retry_after`). */
async function reviewOf(hand) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await api(gamePath(`/review?hand=${hand}`));
    } catch (error) {
      const busy = error instanceof ApiError && error.status === 429 && attempt < 5;
      if (!busy) throw error;
      const seconds = Number(error.body?.error?.retry_after) || 1;
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    }
  }
}

const MARK_NAMES = { "?!": "inaccuracy", "?": "mistake", "??": "blunder" };

/** The review's decision of `seq` in the hand shown, if it is marked. */
function markedDecision(seq) {
  const review = app.reviews.get(app.hand);
  const d = review ? review[seq] : null;
  return d && d.mark ? d : null;
}

/** Move to the next (`delta` 1) or the previous (-1) marked decision of the hand. */
function stepMistake(delta) {
  const review = app.reviews.get(app.hand);
  if (!review) {
    loadReview(app.hand);
    showAlert(app.reviews.has(app.hand) ? "The review of this hand is still being worked out." : "This hand has no review: it is still being played.", "info");
    return;
  }
  const order = delta > 0 ? app.frames.map((f, k) => k).slice(app.index + 1) : app.frames.map((f, k) => k).slice(0, app.index).reverse();
  const k = order.find((i) => markedDecision(app.frames[i].seq));
  if (k === undefined) {
    showAlert(delta > 0 ? "No marked decision after this one in this hand." : "No marked decision before this one in this hand.", "info");
    return;
  }
  app.index = k;
  render(true);
}

function atHead() {
  const hands = visibleHands();
  const lastHand = hands.length ? hands[hands.length - 1].hand : null;
  return app.hand === lastHand && app.index === app.frames.length - 1;
}

function step(delta) {
  const target = app.index + delta;
  if (target >= 0 && target < app.frames.length) {
    app.index = target;
    render();
    return;
  }
  const hands = visibleHands().map((s) => s.hand);
  const k = hands.indexOf(app.hand);
  if (delta > 0 && k >= 0 && k < hands.length - 1) go(hands[k + 1], { index: 0 });
  else if (delta < 0 && k > 0) go(hands[k - 1], { index: -1 });
}

function jump(where) {
  if (!app.frames.length) return;
  app.index = where === "first" ? 0 : app.frames.length - 1;
  render();
}

async function jumpToSeq(seq, hand = null) {
  const target = handOfSeq(seq) ?? hand;
  if (target === null) {
    showAlert(`Event ${seq} is not in this game.`);
    return;
  }
  if (app.isShare && app.hands.some((s) => s.hand === target && s.live)) {
    showAlert(`Event ${seq} is in hand ${target}, which is still being played: a share link shows finished hands only.`);
    return;
  }
  await go(target, { seq, focusList: true });
}

/**
 * The words of the text hand history (`GET /export?format=text`, docs/hand-history.md) for each event:
 * seq -> `{text, after}`, `after` being the lines that follow it ("→ Anna wins the trick: 6 points"). The
 * page says each event as the text history does; without them (a share link may not export) it falls
 * back on each frame's own text.
 */
async function loadWords() {
  if (app.isShare) return;
  let text;
  try {
    const response = await fetch(gamePath("/export?format=text"), {
      headers: { Authorization: `Bearer ${app.token}` }, cache: "no-store",
    });
    if (!response.ok) return;
    text = await response.text();
  } catch {
    return;
  }
  const words = new Map();
  let last = null;
  for (const line of text.split("\n")) {
    const at = line.indexOf("[");
    const event = at >= 0 ? /^\[(\d+)\. /.exec(line.slice(at)) : null;
    if (event && !line.trimStart().startsWith("[")) {
      last = Number(event[1]);
      // the page flags a correction and a rule broken itself: the history's own remarks go
      let said = line.slice(0, at).trim().replace(/\s*\(taken back by event \d+\)/, "");
      const against = said.indexOf(" (against the rule ");
      if (against >= 0) said = said.slice(0, against);
      words.set(last, { text: said, after: [] });
    } else if (/^\s*→ /.test(line) && last !== null) {
      words.get(last).after.push(line.trim().slice(2));
    } else if (!/^\s{4}/.test(line)) {
      last = null; // a heading (Trick 2, Score of hand 1): what follows is not about the last event
    }
  }
  app.words = words;
  app.listKey = null;
}

// --------------------------------------------------------------------------- drawing

function writeHash(dropShare = false) {
  if (!app.gameId) return;
  const params = new URLSearchParams();
  const frame = app.frames[app.index];
  if (app.seat !== "all") params.set("seat", String(app.seat));
  const share = readHash().share;
  if (share && !dropShare) params.set("share", share);
  const hash = `#${[frame ? String(frame.seq) : "", params.toString()].filter(Boolean).join("&")}`;
  if (window.location.hash !== hash) window.history.replaceState(null, "", hash);
}

function viewNote() {
  const el = $("viewnote");
  const wanted = app.seat === "all" ? "all" : Number(app.seat);
  if (app.viewpoint === "public" && wanted !== "public") {
    el.textContent = "This hand is still being played: this key sees its public table only (other cards are face down).";
    el.hidden = false;
  } else {
    el.hidden = true;
  }
}

/** The retract of this hand whose range holds `seq` (a note made there is still in force), if any. */
function retractOver(seq) {
  const over = app.frames.find((f) => f.event.type === "retract" && f.event.to_seq < seq && seq < f.seq);
  return over ? over.seq : null;
}

/**
 * An event in words: the API's `text` when the frame has one (names, glyphs, units), else the page's own.
 * A text that still holds a raw structure (`{'card': ...}`: a field the server did not put in words yet)
 * is replaced by the page's own words too.
 */
function eventWords(frame) {
  const written = app.words ? app.words.get(frame.seq) : null;
  if (written && frame.event.type !== "withheld") {
    const after = written.after.length ? ` → ${written.after.join("; ")}` : "";
    return textNodes(`${written.text}${after}`, app.meta.players);
  }
  if (frame.event.type !== "withheld" && !STANDING.has(frame.event.type) && frame.event.type !== "retract") {
    return storedWords(frame.event, frame.result, app.meta.players, unitsOf(frame.state));
  }
  if (typeof frame.text === "string" && frame.text && !frame.text.includes("{'")) {
    return textNodes(frame.text.replace(/\bref (\d+)/, "on event $1"), app.meta.players);
  }
  return describe(frame.event, frame.result, app.meta.players, unitsOf(frame.state));
}

function eventLine(frame) {
  const names = app.meta.players;
  const li = h("li", { dataset: { seq: frame.seq, type: frame.event.type }, class: "event" });
  const button = h("button", { type: "button", class: "event-button", dataset: { seq: frame.seq } },
    h("span", { class: "seq" }, String(frame.seq)), " ",
    h("span", { class: "words" }, eventWords(frame)));
  li.append(button);
  const decision = markedDecision(frame.seq);
  if (decision) {
    const kind = MARK_NAMES[decision.mark];
    li.classList.add("marked", `marked-${kind}`);
    button.append(" ", h("span", { class: `mark mark-${kind}`, title: kind, "aria-label": kind }, decision.mark));
    li.append(h("div", { class: `flag flag-review flag-${kind}` }, decision.sentence,
      decision.mark_from === "hindsight" ? " (with hindsight)" : ""));
  }
  if (frame.violation) {
    li.classList.add("violation");
    li.append(h("div", { class: "flag flag-violation" }, h("span", { "aria-hidden": "true" }, "⚠ "),
      "Against the rules: ", textNodes(frame.violation.message, app.meta.players), " ", ruleDetails(frame.violation.rule)));
  }
  const standing = STANDING.has(frame.event.type);
  if (frame.retracted_by && !standing) {
    li.classList.add("retracted");
    li.append(h("div", { class: "flag flag-retracted" }, `taken back by the correction at event ${frame.retracted_by}`));
  }
  const correction = standing ? frame.retracted_by || retractOver(frame.seq) : null;
  if (correction) {
    li.classList.add("in-force");
    li.append(h("div", { class: "flag flag-in-force" },
      `still counts: made before the correction at event ${correction}, which takes back the play only`));
  }
  const claim = frame.event.type === "score_claimed" ? claimCheck(frame.event) : null;
  if (claim) {
    li.classList.add(claim.agrees ? "claim-agrees" : claim.computed ? "claim-disagrees" : "claim-open");
    li.append(h("div", { class: `flag ${claim.agrees ? "flag-in-force" : claim.computed ? "flag-violation" : "flag-retracted"} flag-claim` },
      claim.agrees ? "" : h("span", { "aria-hidden": "true" }, "⚠ "), claim.text));
  }
  if (frame.event.type === "retract") li.classList.add("retract");
  if (frame.event.type === "withheld") li.classList.add("withheld");
  return li;
}

/** A rule's id for the curious: behind a "details" toggle, never in the sentence. */
function ruleDetails(rule) {
  if (!rule) return null;
  return h("details", { class: "details rule-details" }, h("summary", {}, "details"), " rule ", h("code", { class: "rule" }, rule));
}

/** A points map in words: "Anna 3, Ben 0", each in the game's unit. */
function pointsWords(points) {
  const units = gameUnits();
  return app.meta.players.map((name, seat) => `${name} ${fieldText(units, "points", points[String(seat)] ?? 0)}`).join(", ");
}

/**
 * A score claim against the score the rules computed for its hand: `{agrees, computed, text}`. A hand not
 * finished yet has nothing to compare with (computed null).
 */
function claimCheck(event) {
  const hand = app.score && Array.isArray(app.score.hands) ? app.score.hands.find((hs) => hs.hand === event.hand) : null;
  const claimed = event.points || {};
  if (!hand) {
    return { agrees: false, computed: null, text: `Hand ${event.hand} is not finished yet: the claim is checked once it is.` };
  }
  const differs = app.meta.players.some((_, seat) => Number(claimed[String(seat)] ?? 0) !== Number(hand.points[String(seat)] ?? 0));
  return differs
    ? { agrees: false, computed: hand.points,
      text: `The claim does not agree with the score the rules count for hand ${event.hand}: ${pointsWords(hand.points)}.` }
    : { agrees: true, computed: hand.points, text: `✓ agrees with the score the rules count for hand ${event.hand}.` };
}

function renderList() {
  const reviewed = app.reviews.get(app.hand) ? "r" : "";
  const key = `${app.hand}|${app.seat}|${app.frames.length}|${app.frames.length ? app.frames[app.frames.length - 1].seq : 0}|${reviewed}`;
  if (app.listKey === key) return;
  app.listKey = key;
  const list = $("events");
  list.replaceChildren(...app.frames.map(eventLine));
  $("events-h").textContent = `Events of hand ${app.hand}`;
}

/** card -> seat of each `play` of the hand up to frame `index` (who played which card of a trick). */
function playsUpTo(index) {
  const plays = new Map();
  for (const frame of app.frames.slice(0, index + 1)) {
    const e = frame.event;
    if (e.type === "play" && typeof e.card === "string" && Number.isInteger(e.seat)) plays.set(e.card, e.seat);
  }
  return plays;
}

function render(focusList = false) {
  const frame = app.frames[app.index];
  if (!frame) return;
  renderList();
  // the seat looked from sits at the bottom (also when the API could only show a live hand's public table)
  const base = Number.isInteger(frame.state.viewpoint) ? frame.state.viewpoint : app.seat === "all" ? 0 : Number(app.seat);
  const bottom = (base + app.turn) % Math.max(1, frame.state.seats.length);
  renderTable($("table"), frame.state, { bottom, score: app.score, plays: playsUpTo(app.index) });
  // the event list
  for (const li of $("events").children) {
    const current = Number(li.dataset.seq) === frame.seq;
    li.classList.toggle("current", current);
    const button = li.firstElementChild;
    if (current) button.setAttribute("aria-current", "step");
    else button.removeAttribute("aria-current");
    if (current) {
      li.scrollIntoView({ block: "nearest" });
      if (focusList) button.focus({ preventScroll: true });
    }
  }
  // slider, buttons, position
  const slider = $("slider");
  slider.max = String(Math.max(0, app.frames.length - 1));
  slider.value = String(app.index);
  const words = eventWords(frame).map((n) => (typeof n === "string" ? n : n.textContent)).join("");
  slider.setAttribute("aria-valuetext", `event ${frame.seq} (${app.index + 1} of ${app.frames.length} in hand ${app.hand}): ${words}`);
  const hands = visibleHands().map((s) => s.hand);
  const k = hands.indexOf(app.hand);
  $("first").disabled = app.index === 0;
  $("prev").disabled = app.index === 0 && k <= 0;
  $("next").disabled = app.index === app.frames.length - 1 && k === hands.length - 1;
  $("last").disabled = app.index === app.frames.length - 1;
  $("position").textContent = `${app.hand === 0 ? "Before hand 1" : `Hand ${app.hand}`} · event ${frame.seq} · ${app.index + 1} of ${app.frames.length} in this hand`;
  $("hand-select").value = String(app.hand);
  $("seat-select").value = String(app.seat);
  markScore(frame.seq);
  renderPrintSheet();
  viewNote();
  if (atHead()) {
    app.newEvents = 0;
    $("live-jump").hidden = true;
  }
  writeHash();
}

function fillHandSelect() {
  const select = $("hand-select");
  select.replaceChildren(...app.hands.map((span) => {
    const label = span.hand === 0 ? "Before hand 1" : `Hand ${span.hand}`;
    const live = span.live ? (app.isShare ? " · in play, not shared" : " · in play") : "";
    return h("option", { value: span.hand, disabled: app.isShare && span.live },
      `${label} · events ${span.first_seq}–${span.last_seq}${live}`);
  }));
  if (app.hand !== null) select.value = String(app.hand);
}

function fillSeatSelect() {
  const select = $("seat-select");
  const everything = app.isShare ? "Everything (finished hands)" : "Everything (from above)";
  select.replaceChildren(h("option", { value: "all" }, everything),
    ...app.meta.players.map((name, seat) => h("option", { value: seat }, `${name}'s seat`)));
  select.value = String(app.seat);
}

function renderHeader() {
  const m = app.meta;
  document.title = `${TITLES[m.game] || m.game}: ${m.players.join(", ")} · Tablebook replay`;
  $("title").textContent = `${TITLES[m.game] || m.game}`;
  const status = m.status === "finished"
    ? `finished${m.winner !== null && m.winner !== undefined ? `, won by ${m.players[m.winner]}` : ""}`
    : "live";
  $("subtitle").textContent = `${m.players.join(" · ")} — game ${m.id}, ${status}, ${m.seq} events`;
  $("live-badge").hidden = m.status !== "live";
  $("share-button").hidden = app.isShare;
  $("forget-button").textContent = app.isShare ? "Close link" : "Forget key";
  $("access").textContent = app.isShare ? "Share link: finished hands only" : "";
  $("back-link").hidden = app.isShare;
  $("print-button").hidden = false;
  fillDownloads();
}

// --------------------------------------------------------------------------- downloads and printing

/** The download menu: each export format of the game (a share link may not export: no menu then). */
function fillDownloads() {
  const menu = $("downloads");
  menu.hidden = app.isShare;
  if (app.isShare) return;
  $("download-list").replaceChildren(...DOWNLOADS.map((d) => h("li", {},
    h("a", { href: gamePath(`/export?format=${d.format}${d.query || ""}`), class: "download", dataset: { format: d.id || d.format } },
      d.label))));
}

/**
 * A download with the key in the Authorization header (never in a URL): the export is fetched, then
 * saved from a blob under the server's file name.
 */
async function download(link) {
  try {
    const response = await fetch(link.getAttribute("href"), {
      headers: { Authorization: `Bearer ${app.token}` }, cache: "no-store",
    });
    if (!response.ok) {
      let body = null;
      try {
        body = await response.json();
      } catch {
        body = null;
      }
      throw new ApiError(response.status, body);
    }
    const disposition = response.headers.get("Content-Disposition") || "";
    const named = disposition.match(/filename="([^"]+)"/);
    const url = URL.createObjectURL(await response.blob());
    const save = h("a", { href: url, download: named ? named[1] : `${app.gameId}-${link.dataset.format}` });
    document.body.append(save);
    save.click();
    save.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    $("downloads").open = false;
  } catch (error) {
    showAlert(`Could not download: ${error.message}`);
  }
}

// --------------------------------------------------------------------------- score

/** A seat's name on the sheet. */
const nameOf = (seat) => who(seat, app.meta.players);

/**
 * The running total after each hand, as the sheet's `totals` run: totals minus the later hands' points
 * (Schnapsen counts down: game points still to go, so plus the later hands' points).
 */
function runningTotals(s, units) {
  const down = units.totals === "to_go";
  const run = {};
  let after = { ...s.totals };
  for (const hs of [...s.hands].reverse()) {
    run[hs.hand] = { ...after };
    const before = {};
    for (const [seat, total] of Object.entries(after)) before[seat] = total + (down ? 1 : -1) * (hs.points[seat] ?? 0);
    after = before;
  }
  return run;
}

/** A number in a cell of the sheet: chips bare (the caption says "in chips"), other units in full. */
const cellText = (units, key, value, options) => (units[key] === "chips"
  ? fieldText({}, key, value, options) : fieldText(units, key, value, options));

function scoreTable(s, units, { links = true } = {}) {
  const seats = app.meta.players.map((_, i) => String(i));
  const running = runningTotals(s, units);
  const toGo = units.totals === "to_go";
  const caption = s.finished ? `Final${s.winner !== null && s.winner !== undefined ? `: ${nameOf(s.winner)} wins` : ""}` : "So far (finished hands)";
  const handCell = (hs) => (links
    ? h("button", { type: "button", class: "link hand-link", dataset: { hand: hs.hand }, "aria-label": `Go to hand ${hs.hand}` }, String(hs.hand))
    : String(hs.hand));
  return h("table", { class: "score-table" },
    h("caption", {}, caption, toGo ? " · game points won each hand (still to go after it)"
      : units.points === "chips" ? " · chips won each hand (running total)" : " · points each hand (running total)"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Hand"), seats.map((i) => h("th", { scope: "col" }, nameOf(Number(i)))))),
    h("tbody", {}, s.hands.map((hs) => h("tr", { dataset: { hand: hs.hand } },
      h("th", { scope: "row" }, handCell(hs)),
      seats.map((i) => h("td", { dataset: { seat: i } },
        h("span", { class: "won" }, cellText(units, "points", hs.points[i] ?? 0, { signed: true })),
        h("span", { class: "running" }, ` (${toGo ? Math.max(running[hs.hand][i] ?? 0, 0) : cellText(units, "totals", running[hs.hand][i] ?? 0)})`)))))),
    h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, toGo ? "To go" : "Total"),
      seats.map((i) => h("td", { class: "total", dataset: { seat: i } }, cellText(units, "totals", s.totals[i] ?? 0))))));
}

function scoreLineEl(line, hs, units, { links = true } = {}) {
  return h("li", { class: "score-line" },
    h("span", { class: "line-points" }, `${nameOf(line.seat)} ${fieldText(units, "points", line.points, { signed: true })}`),
    " ", h("span", { class: "reason" }, textNodes(line.reason, app.meta.players)), " ",
    links
      ? line.events.map((seq) => h("button", { type: "button", class: "link seq-link", dataset: { seq, hand: hs.hand },
        "aria-label": `Go to event ${seq}` }, `event ${seq}`))
      : (line.events.length ? `(${line.events.length === 1 ? "event" : "events"} ${line.events.join(", ")})` : ""),
    links ? [" ", ruleDetails(line.rule)] : "");
}

function renderScore() {
  const s = app.score;
  const units = gameUnits();
  const box = $("score");
  const seats = app.meta.players.map((_, i) => String(i));
  const details = s.hands.map((hs) => h("details", { class: "score-hand", dataset: { hand: hs.hand } },
    h("summary", {}, `Hand ${hs.hand}: `, seats.map((i) => `${nameOf(Number(i))} ${fieldText(units, "points", hs.points[i] ?? 0, { signed: true })}`).join(", ")),
    h("ul", { class: "lines" }, hs.lines.map((line) => scoreLineEl(line, hs, units)))));
  // the server deals' section stays shown until its new copy is fetched (it would blink out meanwhile)
  const shownDeals = document.getElementById("deals");
  box.replaceChildren(scoreTable(s, units), ...details);
  app.scoreHand = null;
  if (!s.hands.length) box.append(h("p", { class: "empty" }, "No hand has finished yet."));
  if (app.meta.options && app.meta.options.dealing === "server") {
    if (shownDeals) box.append(shownDeals);
    renderDeals(box);
  }
  renderPrintSheet();
}

// Server deals (docs/server-deal.md): each hand's commitment and, once revealed, the server's own check
// of it (GET /deals: the deck recomputed from the revealed seed, every dealt card compared).
let dealsAsked = 0;
async function renderDeals(box) {
  const asked = ++dealsAsked;
  let deals;
  try {
    deals = await api(gamePath("/deals"));
  } catch (error) {
    return;
  }
  if (asked !== dealsAsked) return;  // a later call asked since: its answer is the newer one
  const mark = (d) => d.verified ? "✓ verified" : d.verified === false ? "✗ does not match" : "not revealed yet";
  // a hand dealt again shows: voided (a new deck for the next hand), cards a retract put back in the deck
  const again = (d) => [
    d.voided_at ? ` · voided at event ${d.voided_at}, its deck revealed` : "",
    d.cards_taken_back ? ` · ${d.cards_taken_back} dealt card${d.cards_taken_back === 1 ? "" : "s"} taken back by a correction, dealt again the same` : "",
  ].join("");
  const problems = (deals.first_problem && ["redeal", "abandoned", "reopened"].includes(deals.first_problem.problem))
    ? [h("p", { class: "flag flag-redeal" }, `⚠ ${deals.first_problem.message}`)] : [];
  const list = h("section", { id: "deals", class: "deals" }, h("h3", {}, "Server deals"), ...problems,
    h("ul", {}, deals.hands.map((d) => h("li", { class: d.verified ? "verified" : "", dataset: { hand: d.hand } },
      `Hand ${d.hand}: commitment `, h("code", { title: d.commitment }, `${d.commitment.slice(0, 16)}…`), ` ${mark(d)}${again(d)}`))));
  const old = document.getElementById("deals");
  if (old) old.remove();
  box.append(list);
}

/** What @media print shows besides the table: the whole score sheet, every line, and the hand's events. */
function renderPrintSheet() {
  const s = app.score;
  const units = gameUnits();
  const sheet = $("print-sheet");
  const parts = [h("h2", {}, "Score sheet"), scoreTable(s, units, { links: false })];
  for (const hs of s.hands) {
    parts.push(h("h3", {}, `Hand ${hs.hand}`), h("ul", { class: "lines" }, hs.lines.map((line) => scoreLineEl(line, hs, units, { links: false }))));
  }
  if (app.frames.length) {
    const frame = app.frames[app.index];
    parts.push(h("h2", {}, `Hand ${app.hand}, to event ${frame ? frame.seq : ""}`),
      h("ol", { class: "print-events" }, app.frames.slice(0, app.index + 1).map((f) => h("li", {},
        `${f.seq} `, eventWords(f)))));
  }
  sheet.replaceChildren(...parts);
}

function markScore(seq) {
  for (const button of document.querySelectorAll("#score .seq-link")) {
    button.classList.toggle("current", Number(button.dataset.seq) === seq);
  }
  const opened = app.scoreHand !== app.hand;
  app.scoreHand = app.hand;
  for (const details of document.querySelectorAll("#score .score-hand")) {
    const current = Number(details.dataset.hand) === app.hand;
    details.classList.toggle("current", current);
    if (opened) details.open = current;
  }
}

// --------------------------------------------------------------------------- live

function stopStream() {
  if (app.stream) app.stream.abort();
  app.stream = null;
}

async function follow() {
  stopStream();
  const controller = new AbortController();
  app.stream = controller;
  let after = app.meta.seq;
  let wait = 500;
  while (!controller.signal.aborted) {
    try {
      const response = await fetch(gamePath(`/stream?after=${after}`), {
        headers: { Authorization: `Bearer ${app.token}`, Accept: "text/event-stream" },
        signal: controller.signal, cache: "no-store",
      });
      if (!response.ok || !response.body) {
        if ([401, 403, 404].includes(response.status)) {
          setLive("stopped");
          return;
        }
        throw new Error(`stream: ${response.status}`);
      }
      setLive("on");
      wait = 500;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let cut = buffer.indexOf("\n\n");
        while (cut >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const message = { event: "message", data: "", id: null };
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) continue;
            const [field, ...rest] = line.split(":");
            const text = rest.join(":").replace(/^ /, "");
            if (field === "data") message.data += text;
            else if (field === "event") message.event = text;
            else if (field === "id") message.id = text;
          }
          if (message.event === "envelope" && message.data) {
            const envelope = JSON.parse(message.data);
            after = Math.max(after, envelope.seq);
            onEnvelope(envelope);
          }
          cut = buffer.indexOf("\n\n");
        }
      }
    } catch (error) {
      if (controller.signal.aborted) return;
      setLive("reconnecting");
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(wait * 2, 10000);
  }
}

function setLive(mode) {
  const badge = $("live-badge");
  badge.dataset.mode = mode;
  badge.textContent = mode === "on" ? "● live" : mode === "reconnecting" ? "● reconnecting…" : "● live (not following)";
}

let refreshTimer = null;
function onEnvelope() {
  app.newEvents += 1;
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => {
    refreshLive().catch((error) => showAlert(`Could not follow the game: ${error.message}`));
  }, 150);
}

async function refreshLive() {
  const following = atHead();
  const [meta, hands, score] = await Promise.all([api(gamePath()), api(gamePath("/hands")), api(gamePath("/score")), loadWords()]);
  app.meta = meta;
  app.hands = hands.hands;
  app.liveHand = hands.live_hand;
  app.score = score;
  for (const key of [...app.cache.keys()]) {
    const hand = Number(key.split("|")[0]);
    const span = app.hands.find((s) => s.hand === hand);
    const cached = app.cache.get(key);
    const lastSeq = cached.frames.length ? cached.frames[cached.frames.length - 1].seq : 0;
    if (!span || span.last_seq !== lastSeq || span.live) app.cache.delete(key);
  }
  renderHeader();
  fillHandSelect();
  renderScore();
  const shown = visibleHands();
  if (!shown.length) return;
  const last = shown[shown.length - 1].hand;
  if (following || app.hand === null) {
    await go(last, { index: -1 });
  } else {
    if (app.hand === last || !app.cache.has(`${app.hand}|${app.seat}`)) {
      const seq = app.frames[app.index] ? app.frames[app.index].seq : null;
      await go(app.hand, { seq });
    }
    const jumpButton = $("live-jump");
    jumpButton.textContent = `New events (up to event ${meta.seq}): go to the latest`;
    jumpButton.hidden = false;
  }
}

// --------------------------------------------------------------------------- the share dialog

async function openShareDialog() {
  const dialog = $("share-dialog");
  $("share-result").replaceChildren();
  $("share-error").hidden = true;
  dialog.showModal();
  await listShares();
}

async function listShares() {
  const list = $("share-list");
  try {
    const body = await api(gamePath("/share"));
    list.replaceChildren(...body.shares.map((s) => h("li", {},
      `link ${s.id}, made ${s.created_at.slice(0, 16).replace("T", " ")} by ${s.created_by}`,
      s.revoked ? ` — revoked ${s.revoked_at.slice(0, 16).replace("T", " ")}` : [" ", h("button", {
        type: "button", class: "small-button", onclick: () => revokeShare(s.id), "aria-label": `Revoke link ${s.id}`,
      }, "Revoke")])));
    if (!body.shares.length) list.append(h("li", { class: "empty" }, "No share links yet."));
  } catch (error) {
    $("share-error").textContent = error.message;
    $("share-error").hidden = false;
  }
}

async function createShare() {
  try {
    const body = await api(gamePath("/share"), { method: "POST" });
    const url = new URL(body.path, window.location.origin).toString();
    const input = h("input", { type: "text", readonly: true, value: url, id: "share-url", "aria-label": "Share link" });
    const copy = h("button", { type: "button", onclick: async () => {
      input.select();
      try {
        await navigator.clipboard.writeText(url);
        copy.textContent = "Copied";
      } catch {
        copy.textContent = "Select and copy";
      }
    } }, "Copy");
    const embed = new URL(`/embed/${encodeURIComponent(app.gameId)}#share=${body.token}`, window.location.origin).toString();
    const frame = `<iframe src="${embed}" title="Tablebook: ${TITLES[app.meta.game] || app.meta.game}" width="100%" height="520" style="border:0"></iframe>`;
    const code = h("input", { type: "text", readonly: true, value: frame, id: "share-embed", "aria-label": "Embed in a web page" });
    $("share-result").replaceChildren(h("p", {}, "Anyone with this link sees the finished hands of this game (never a live hand). It is shown only now."),
      h("div", { class: "row" }, input, copy),
      h("p", {}, "To show the game in another site's page, paste this into it:"),
      h("div", { class: "row" }, code));
    await listShares();
  } catch (error) {
    $("share-error").textContent = error.message;
    $("share-error").hidden = false;
  }
}

async function revokeShare(id) {
  try {
    await api(gamePath(`/share/${encodeURIComponent(id)}`), { method: "DELETE" });
  } catch (error) {
    $("share-error").textContent = error.message;
    $("share-error").hidden = false;
  }
  await listShares();
}

// --------------------------------------------------------------------------- the game list (no id)

const FILTERS = ["game", "player", "status", "since", "until"];

/** The filters of the form, as the address keeps them (`/replay?game=casino&player=Ann`). */
function readFilters() {
  const out = {};
  for (const name of FILTERS) {
    const value = $(`filter-${name}`).value.trim();
    if (value) out[name] = value;
  }
  return out;
}

function writeFilters() {
  const params = new URLSearchParams(readFilters());
  if (pageSize() !== PAGE_SIZE) params.set("limit", String(pageSize()));
  const query = params.toString();
  window.history.replaceState(null, "", `/replay${query ? `?${query}` : ""}`);
}

/** The day after a date (YYYY-MM-DD): "To" is that whole day, and `until` is "created before". */
function dayAfter(date) {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** Games a page: `?limit=N` in the address (1 to 200), else PAGE_SIZE. */
function pageSize() {
  const wanted = Number(new URLSearchParams(window.location.search).get("limit"));
  return Number.isInteger(wanted) && wanted >= 1 && wanted <= 200 ? wanted : PAGE_SIZE;
}

function gamesQuery(cursor) {
  const f = readFilters();
  const params = new URLSearchParams({ limit: String(pageSize()) });
  if (f.game) params.set("game", f.game);
  if (f.player) params.set("player", f.player);
  if (f.status) params.set("status", f.status);
  if (f.since) params.set("since", f.since);
  if (f.until) params.set("until", dayAfter(f.until));
  if (cursor) params.set("cursor", cursor);
  return `/v1/games?${params.toString()}`;
}

/** "Anna 5 to go · Ben 0 to go", each total in its game's unit. */
function scoreText(g) {
  const units = unitsOf({ game: g.game, units: g.units });
  return g.players.map((name, seat) => `${name} ${fieldText(units, "totals", (g.totals || {})[String(seat)] ?? 0)}`).join(" · ");
}

function gameRow(g) {
  const winner = g.winner !== null && g.winner !== undefined ? g.players[g.winner] ?? `seat ${g.winner}` : "";
  // data-label: a phone shows each row as a card whose cells say what they are
  const cell = (label, cls, ...content) => h("td", { class: cls, dataset: { label } }, ...content);
  return h("tr", { dataset: { game: g.id, kind: g.game, status: g.status } },
    cell("Game", "id", h("a", { href: `/replay/${encodeURIComponent(g.id)}` }, g.id)),
    cell("Kind", "kind", TITLES[g.game] || g.game), cell("Players", "players", g.players.join(", ")),
    cell("Status", "status", g.status), cell("Winner", "winner", winner || (g.status === "live" ? "—" : "none")),
    cell("Score", "totals", scoreText(g)),
    cell("Events", "seqs", String(g.seq)), cell("Started", "started", g.created_at.slice(0, 16).replace("T", " ")));
}

async function loadGames() {
  busy(true);
  try {
    const body = await api(gamesQuery(app.cursors[app.pageIndex]));
    app.cursors[app.pageIndex + 1] = body.next_cursor;
    app.cursors.length = app.pageIndex + 2;
    const rows = body.games.map(gameRow);
    $("games-body").replaceChildren(...rows);
    $("games-empty").hidden = rows.length > 0;
    $("page-newer").disabled = app.pageIndex === 0;
    $("page-older").disabled = !body.next_cursor;
    $("page-number").textContent = `page ${app.pageIndex + 1}`;
    const first = app.pageIndex * pageSize() + 1;
    $("games-count").textContent = rows.length ? `games ${first} to ${first + rows.length - 1}` : "";
    showAlert("");
    $("problem").hidden = true;
  } catch (error) {
    const problem = problemOf(error, { what: "games", clear: "/replay" });
    if (error.status === 401) askForKey(`${problem.title}. ${problem.text}`);
    else showProblem($("problem"), problem, { retry: loadGames, key: () => askForKey("") });
  } finally {
    busy(false);
  }
}

async function showGames() {
  const section = $("games");
  section.hidden = false;
  $("title").textContent = "Tablebook replays";
  $("forget-button").hidden = false;
  const select = $("filter-game");
  if (select.options.length === 1) {
    for (const [kind, title] of Object.entries(TITLES)) select.append(h("option", { value: kind }, title));
  }
  const wanted = new URLSearchParams(window.location.search);
  for (const name of FILTERS) {
    if (wanted.get(name)) $(`filter-${name}`).value = wanted.get(name);
  }
  await loadGames();
}

// --------------------------------------------------------------------------- start

async function start() {
  const credential = pickCredential();
  if (!credential) {
    askForKey("");
    return;
  }
  app.token = credential.token;
  app.isShare = credential.share;
  if (!app.gameId) {
    await showGames();
    return;
  }
  busy(true);
  try {
    const [meta, hands, score] = await Promise.all([api(gamePath()), api(gamePath("/hands")), api(gamePath("/score"))]);
    app.meta = meta;
    app.hands = hands.hands;
    app.liveHand = hands.live_hand;
    app.score = score;
    await loadWords();
  } catch (error) {
    busy(false);
    const problem = problemOf(error, { what: "game", id: app.gameId, share: app.isShare });
    if (error.status === 401 && !app.isShare) {
      sessionStorage.removeItem(KEY_STORE);
      askForKey(`${problem.title}. ${problem.text}`);
      return;
    }
    if (error.status === 401) sessionStorage.removeItem(SHARE_STORE + app.gameId);
    showProblem($("problem"), problem, { retry: start, key: () => askForKey("") });
    $("forget-button").hidden = false;
    return;
  }
  $("problem").hidden = true;
  busy(false);
  $("main").hidden = false;
  $("forget-button").hidden = false;
  const wanted = readHash();
  if (wanted.seat !== null && /^\d+$/.test(wanted.seat) && Number(wanted.seat) < app.meta.players.length) {
    app.seat = Number(wanted.seat);
  }
  renderHeader();
  fillHandSelect();
  fillSeatSelect();
  renderScore();
  await openAt(wanted);
  if (app.meta.status === "live") follow();
}

async function openAt(wanted) {
  const hands = visibleHands();
  if (!hands.length) {
    showAlert(app.isShare ? "No hand of this game has finished yet: a share link shows finished hands only." : "No event has been recorded yet.", "info");
    $("table").replaceChildren(h("p", { class: "empty" }, "Nothing to show yet."));
    return;
  }
  let hand = wanted.hand;
  if (hand === null && wanted.seq !== null) hand = handOfSeq(wanted.seq);
  if (hand === null || !hands.some((s) => s.hand === hand)) {
    if (hand !== null) showAlert(`Hand ${hand} cannot be shown here; showing the latest hand.`, "info");
    await go(hands[hands.length - 1].hand, { index: -1 });
    return;
  }
  await go(hand, wanted.seq !== null ? { seq: wanted.seq } : { index: 0 });
}

/** `f`: the next player sits at the bottom of the table (what each seat may see does not change). */
function turnTable() {
  const frame = app.frames[app.index];
  if (!frame) return;
  app.turn = (app.turn + 1) % frame.state.seats.length;
  render();
}

/** ↑ ↓: the first event of the hand before or after. */
function stepHand(delta) {
  const hands = visibleHands().map((s) => s.hand);
  const k = hands.indexOf(app.hand) + delta;
  if (k >= 0 && k < hands.length) go(hands[k], { index: 0 });
}

function openKeys() {
  const dialog = $("keys-dialog");
  if (!dialog.open) dialog.showModal();
  $("keys-close").focus();
}

function isTyping(target) {
  return target && (["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName) || target.isContentEditable);
}

function wire() {
  $("first").addEventListener("click", () => jump("first"));
  $("prev").addEventListener("click", () => step(-1));
  $("next").addEventListener("click", () => step(1));
  $("last").addEventListener("click", () => jump("last"));
  $("slider").addEventListener("input", (event) => {
    app.index = Number(event.target.value);
    render();
  });
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "?" && !isTyping(event.target) && !document.querySelector("dialog[open]")) {
      event.preventDefault();
      openKeys();
      return;
    }
    if ($("main").hidden || document.querySelector("dialog[open]")) return;
    if (isTyping(event.target)) return;
    const keys = {
      ArrowLeft: () => step(-1), ArrowRight: () => step(1), Home: () => jump("first"), End: () => jump("last"),
      ArrowUp: () => stepHand(-1), ArrowDown: () => stepHand(1), f: turnTable, "?": openKeys,
      n: () => stepMistake(1), p: () => stepMistake(-1),
    };
    if (keys[event.key]) {
      event.preventDefault();
      keys[event.key]();
    }
  });
  $("events").addEventListener("click", (event) => {
    const button = event.target.closest("button.event-button");
    if (!button) return;
    const seq = Number(button.dataset.seq);
    const i = app.frames.findIndex((f) => f.seq === seq);
    if (i >= 0) {
      app.index = i;
      render(true);
    }
  });
  $("score").addEventListener("click", (event) => {
    const seqButton = event.target.closest("button.seq-link");
    if (seqButton) {
      jumpToSeq(Number(seqButton.dataset.seq), Number(seqButton.dataset.hand));
      return;
    }
    const handButton = event.target.closest("button.hand-link");
    if (handButton) go(Number(handButton.dataset.hand), { index: -1 });
  });
  $("hand-select").addEventListener("change", (event) => go(Number(event.target.value), { index: 0 }));
  $("seat-select").addEventListener("change", (event) => {
    const frame = app.frames[app.index];
    app.seat = event.target.value === "all" ? "all" : Number(event.target.value);
    go(app.hand, { seq: frame ? frame.seq : null });
  });
  $("live-jump").addEventListener("click", () => {
    const hands = visibleHands();
    if (hands.length) go(hands[hands.length - 1].hand, { index: -1 });
  });
  window.addEventListener("hashchange", () => {
    const wanted = readHash();
    const frame = app.frames[app.index];
    if (!app.meta || (frame && wanted.seq === frame.seq && wanted.hand === app.hand)) return;
    if (wanted.seat !== null) app.seat = wanted.seat === "all" ? "all" : Number(wanted.seat);
    openAt(wanted);
  });
  $("key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const key = $("key-input").value.trim();
    if (!key) return;
    if (key.startsWith("ts_") && app.gameId) sessionStorage.setItem(SHARE_STORE + app.gameId, key);
    else sessionStorage.setItem(KEY_STORE, key);
    $("key-dialog").close();
    start();
  });
  $("key-dialog").addEventListener("cancel", (event) => event.preventDefault());
  $("forget-button").addEventListener("click", forgetCredential);
  $("share-button").addEventListener("click", openShareDialog);
  $("download-list").addEventListener("click", (event) => {
    const link = event.target.closest("a.download");
    if (!link) return;
    event.preventDefault();
    download(link);
  });
  $("print-button").addEventListener("click", () => window.print());
  // the menu closes on a click elsewhere, and on Escape
  document.addEventListener("click", (event) => {
    if (!$("downloads").contains(event.target)) $("downloads").open = false;
  });
  $("downloads").addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      $("downloads").open = false;
      $("downloads").querySelector("summary").focus();
    }
  });
  $("filters").addEventListener("submit", (event) => {
    event.preventDefault();
    app.cursors = [null];
    app.pageIndex = 0;
    writeFilters();
    loadGames();
  });
  $("filters").addEventListener("reset", () => {
    setTimeout(() => {
      app.cursors = [null];
      app.pageIndex = 0;
      writeFilters();
      loadGames();
    }, 0);
  });
  $("page-older").addEventListener("click", () => {
    app.pageIndex += 1;
    loadGames();
  });
  $("page-newer").addEventListener("click", () => {
    app.pageIndex = Math.max(0, app.pageIndex - 1);
    loadGames();
  });
  $("share-create").addEventListener("click", createShare);
  $("keys-button").addEventListener("click", openKeys);
  $("keys-close").addEventListener("click", () => $("keys-dialog").close());
  $("share-close").addEventListener("click", () => $("share-dialog").close());
}

function main() {
  const match = window.location.pathname.match(/^\/replay\/([^/]+)\/?$/);
  app.gameId = match ? decodeURIComponent(match[1]) : null;
  wire();
  start();
}

main();
// for the browser tests and the curious: the page's position, read-only
window.tablebookReplay = {
  get seq() {
    const frame = app.frames[app.index];
    return frame ? frame.seq : null;
  },
  get hand() {
    return app.hand;
  },
  get seat() {
    return app.seat;
  },
  get ready() {
    return app.loading === 0 && app.frames.length > 0;
  },
  cardText,
};
