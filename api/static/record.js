// The table pad (issue 18): record a game at the table, one tap per event.
//
// Data: only the API, with the key kept in this tab's sessionStorage (as the replay page keeps it) and sent
// in the Authorization header. The page shows the table (`GET /v1/games/{id}/state`), and offers only what
// `GET /v1/games/{id}/next` says may come next: big buttons for the decisions, amount inputs for the
// ranges, a card picker for a deal, a draw or a hit (only unseen cards selectable), and, under `record`
// enforcement, the disputed plays with the rule each breaks.
//
// Every tap is a queued item `{key, event, expected_seq, label}` in localStorage before anything is sent,
// and leaves the queue only when the server has answered 201 for it: so a reload, a lost answer or a phone
// asleep mid-queue sends it again with the same Idempotency-Key, which the server answers with the first
// result (never a second event). The queue is sent in order, each tap expecting the seq after the one
// before it. Offline, taps wait in the queue and the page says so, and the pad goes on offering the next
// taps from what it knows, marked "not checked yet" (the rules live on the server): the kinds of event
// the server has offered in this game (plays, discards, stands, bids, draws...) for every seat, a play
// with the cards the seat may still hold (its hand as the scorer sees it, less what the queue has
// played; any card not seen yet when its hand is hidden), a draw or a deal through the card picker over
// the cards the queue has not used yet. Events the pad cannot build alone (captures, builds, knocks) wait
// for the network. When it is back the queue is sent in order; the first tap the rules refuse (422)
// stops it, shown with the server's reason: the scorer enters that tap again (the later taps wait after
// it) or drops it and the later ones; nothing is sent past a refusal. A 409 (another device recorded
// meanwhile) stops the queue too: the page shows the taps that were not recorded and reloads the game
// when asked, never sending them blindly.
//
// The last table is kept in localStorage for an offline reload, names and all. When the server answers
// other names than the kept ones (an erasure replaced them, or a rename), the kept copy is dropped and the
// waiting taps' labels take the new names; when the game answers 404, the copy is dropped: a player's
// erased name does not stay on a device that once recorded them.

import {
  SUITS, add, cardEl, cardName, cardText, describe, fieldText, h, inlineCard, isCard, rankText, textNodes, unitsOf, who,
} from "./cards.js";
import { SEED_DECISIONS, kindAllowed, mayOffer, predictTurn } from "./offline.js";
import { eventWords, knockOrder, storedWords, variantWords } from "./padwords.js";
import { ApiError, NetworkError, requestJson } from "./request.js";
import { problemOf, showProblem } from "./site.js";
import { TITLES, renderTable } from "./tables.js";

const KEY_STORE = "tablebook.key";
const queueStore = (id) => `tablebook.pad.queue.${id}`;
const cacheStore = (id) => `tablebook.pad.cache.${id}`;
const heldStore = (id) => `tablebook.pad.held.${id}`;
const RECORD_EVENTS = 40;
const RETRY_MS = 4000;
const SHOWN_PER_TYPE = 12;
const RANKS = "A23456789TJQK";
const SUIT_ORDER = ["S", "H", "C", "D"];

const $ = (id) => document.getElementById(id);

const app = {
  gameId: null,
  token: null,
  meta: null,
  state: null,
  offer: null,
  score: null,
  events: [],
  queue: [],
  online: true,
  flushing: false,
  inflight: null,
  conflict: null,
  refused: null,
  held: [],
  known: null,
  guess: null,
  retry: null,
  picker: null,
  busy: 0,
  refocus: false,
  generation: 0,
};

// --------------------------------------------------------------------------- the API

/** A request with the pad's key (`request.js`): ApiError when refused, NetworkError when offline. */
const api = (path, options = {}) => requestJson(path, { ...options, token: app.token });

const gamePath = (suffix = "") => `/v1/games/${encodeURIComponent(app.gameId)}${suffix}`;

// --------------------------------------------------------------------------- small helpers

/** The canonical JSON of an event (keys sorted): what a button carries in `data-event`. */
export function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

//: the facts that name a seat (as `projections.core.phrases.SEAT_KEYS`, and keys ending so): shown by name
const SEAT_KEYS = ["seat", "dealer", "leader", "bidder", "banker", "next_banker", "captain", "sitter", "box", "owner",
  "turn", "to", "from", "knocker", "scorer", "closer", "first_to_speak"];
const seatKey = (key) => SEAT_KEYS.includes(key) || /(winner|_by|_to)$/.test(key);

const names = () => (app.meta ? app.meta.players : app.state ? app.state.seats.map((s) => s.name) : []);
const units = () => unitsOf(app.state || { game: app.meta ? app.meta.game : null });
const words = (text) => String(text).replaceAll("_", " ");
const plainText = (nodes) => add(h("span"), nodes).textContent.replace(/\s+/g, " ").trim();
const joinNames = (seats) => seats.map((s) => who(s, names())).join(", ");

function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Text of the API written with markers (`{seat:1}`, `{card:TD}`, `{half:7}`): names and glyphs. */
function renderMarked(text) {
  return String(text || "").replace(/\{(seat|card|cards|half|chips):([^}]*)\}/g, (_, kind, value) => {
    if (kind === "seat") return who(Number(value), names());
    if (kind === "card") return cardText(value);
    if (kind === "cards") return value.split(/\s+/).filter(Boolean).map(cardText).join(" ");
    return fieldText({ v: kind }, "v", Number(value));
  });
}

function showAlert(message, kind = "error") {
  const el = $("alert");
  el.textContent = message;
  el.className = `alert alert-${kind}`;
  el.hidden = !message;
}

function busy(on) {
  app.busy += on ? 1 : -1;
  document.body.dataset.busy = app.busy > 0 ? "1" : "0";
}

// --------------------------------------------------------------------------- storage

function loadList(store) {
  try {
    const items = JSON.parse(localStorage.getItem(store) || "[]");
    return Array.isArray(items) ? items : [];
  } catch {
    return [];
  }
}

function saveList(store, items) {
  if (items.length) localStorage.setItem(store, JSON.stringify(items));
  else localStorage.removeItem(store);
}

const loadQueue = () => loadList(queueStore(app.gameId));
const saveQueue = () => saveList(queueStore(app.gameId), app.queue);
//: the taps waiting after a refused one the scorer enters again (sent after it, never before)
const saveHeld = () => saveList(heldStore(app.gameId), app.held);

function saveCache() {
  const doc = { meta: app.meta, state: app.state, offer: app.offer, score: app.score, events: app.events, known: app.known };
  try {
    localStorage.setItem(cacheStore(app.gameId), JSON.stringify(doc));
  } catch {
    // a full storage keeps the queue (saved first, and small); the cache is only for an offline reload
  }
}

/** Forget the game's last table kept on this device (it holds the players' names). */
function dropCache() {
  try {
    localStorage.removeItem(cacheStore(app.gameId));
  } catch {
    // no storage to clear
  }
}

/** The players' names of the copy kept on this device, or null when none is kept. */
function cachedNames() {
  try {
    const doc = JSON.parse(localStorage.getItem(cacheStore(app.gameId)) || "null");
    return doc && doc.meta && Array.isArray(doc.meta.players) ? doc.meta.players : null;
  } catch {
    return null;
  }
}

const sameNames = (a, b) => a.length === b.length && a.every((name, seat) => name === b[seat]);
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The server answers other names than those kept here (an erasure replaced them, or a rename): the copy
 * kept on this device goes at once, and the waiting taps' labels name the seats with the new names, so
 * that no old name stays in this browser's storage. (The copy is written again from what the server
 * answered, with the new names, unless the storage is full.) */
function forgetOldNames(players) {
  const old = [cachedNames(), app.meta ? app.meta.players : null].find((kept) => kept && !sameNames(kept, players));
  if (!old) return;
  dropCache();
  const renamed = old
    .map((name, seat) => [name, players[seat]])
    .filter(([name, now]) => name && typeof now === "string" && name !== now)
    .sort(([a], [b]) => b.length - a.length);
  const relabel = (items) => {
    for (const item of items) {
      let label = String(item.label || "");
      for (const [name, now] of renamed) {
        label = label.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(name)}(?![\\p{L}\\p{N}])`, "gu"), () => now);
      }
      item.label = label;
    }
  };
  relabel(app.queue);
  relabel(app.held);
  saveQueue();
  saveHeld();
}

function loadCache() {
  try {
    const doc = JSON.parse(localStorage.getItem(cacheStore(app.gameId)) || "null");
    if (doc && doc.offer && doc.state) Object.assign(app, doc, { known: doc.known || emptyKnown() });
    return Boolean(doc);
  } catch {
    return false;
  }
}

// --------------------------------------------------------------------------- the queue

/** The seq the next queued tap will land on: after the last waiting tap, else at the offer's head. */
function nextExpected() {
  if (app.queue.length) return app.queue[app.queue.length - 1].expected_seq + 1;
  return app.offer.seq;
}

/** A tap: queued (and persisted) first, then the queue is sent. A tap entered in place of a refused one
 * goes first, the taps held after the refused one follow it (each expecting the seq after the one before). */
function tap(event, label) {
  if (app.conflict || app.refused || !app.offer) return;
  const item = {
    key: `pad-${newKey()}`, event, expected_seq: nextExpected(),
    label: label || plainText(storedWords(event, null, names(), factUnits(null))), at: new Date().toISOString(),
    checked: !app.guess,
  };
  app.queue.push(item);
  if (app.held.length) {
    for (const held of app.held) app.queue.push({ ...held, expected_seq: app.queue[app.queue.length - 1].expected_seq + 1 });
    app.held = [];
  }
  saveQueue();
  saveHeld();
  app.picker = null;
  app.refocus = true;
  render();
  flush();
}

function setOnline(online) {
  app.online = online;
  clearTimeout(app.retry);
  app.retry = null;
  if (!online && app.queue.length) app.retry = setTimeout(flush, RETRY_MS);
}

/** Send the waiting taps in order, each with its own key and expected seq; stop at the first trouble. */
async function flush() {
  if (app.flushing || app.conflict || app.refused || !app.queue.length) return;
  app.flushing = true;
  const wasOnline = app.online;
  let sent = 0;
  renderNet();
  try {
    while (app.queue.length && !app.conflict && !app.refused) {
      const item = app.queue[0];
      app.inflight = item.key;
      if (!item.tried) {
        item.tried = true; // it may reach the server from now on: never cancelled on this device
        saveQueue();
      }
      try {
        await api(gamePath("/events"), {
          method: "POST", body: { events: [item.event], expected_seq: item.expected_seq },
          headers: { "Idempotency-Key": item.key },
        });
      } catch (error) {
        if (error instanceof NetworkError) {
          setOnline(false);
          break;
        }
        if (error.status === 409) {
          app.conflict = { message: error.message, actual: error.body && error.body.error ? error.body.error.actual : null,
            taps: app.queue.map((q) => q.label) };
        } else if (error.status === 401) {
          forgetKey(keyRefused(error));
        } else {
          app.refused = { item, message: error.message, status: error.status };
        }
        break;
      }
      app.queue.shift();
      saveQueue();
      sent += 1;
      setOnline(true);
      renderNet();
    }
  } finally {
    app.flushing = false;
    app.inflight = null;
  }
  if (sent && !app.conflict) await refresh();
  else if (!sent && !app.online && !wasOnline) renderNet(); // still offline: the choices drawn stay as they are
  else render();
  if (app.queue.length && app.online && !app.conflict && !app.refused) flush();
}

/** After a 409: drop the taps that were not recorded (listed on the page) and read the game again. */
async function resolveConflict() {
  app.queue = [];
  app.held = [];
  saveQueue();
  saveHeld();
  app.conflict = null;
  app.refused = null;
  await refresh();
  showAlert("The game was reloaded from the server: enter again what the other device did not record.", "info");
}

/** The refused tap and every later one are dropped (listed in the alert, to enter them again). */
async function dropRefused() {
  const dropped = [...app.queue, ...app.held].map((q) => q.label);
  app.queue = [];
  app.held = [];
  saveQueue();
  saveHeld();
  app.refused = null;
  await refresh();
  showAlert(`Dropped, not recorded: ${dropped.join("; ")}. Enter what happened from the offer below.`, "info");
}

/** The refused tap is dropped and the scorer enters it again from the server's offer; the later taps
 * (never sent) wait on this device and follow the new one. */
async function editRefused() {
  app.held = app.queue.slice(1);
  app.queue = [];
  saveHeld();
  saveQueue();
  app.refused = null;
  await refresh();
}

// --------------------------------------------------------------------------- offline: the next taps, not checked yet

//: the card events of a game that come up again and again (a draw, a hit, taking the discard), so that a
//: pad gone offline before the server offered one still offers it; everything else is learned from offers
const ONE_CARD = { card: { shape: "card", count: 1 } };
const seedReveal = (type, extras = {}) => ({ kind: "reveal", type, extras, fields: ONE_CARD, example: { type, ...extras, seat: 0, card: "??" } });
const SEED_KINDS = {
  schnapsen: [{ ...seedReveal("draw"), phases: ["draw"] }],
  "gin-rummy-3": [{ ...seedReveal("draw", { source: "stock" }), phases: ["draw"] },
    { kind: "decision", type: "draw", extras: { source: "discard" }, hasSeat: true, source: "table", from: "discard",
      phases: ["draw", "offer"] }],
  "seven-and-a-half": [seedReveal("hit")],
};
//: the ranks of a game's deck when the pad has seen no deal (every other game: all thirteen)
const DECK_RANKS = { schnapsen: "AKQJT", "seven-and-a-half": "A234567JQK" };
const SEAT_SHAPES = ["seat_cards", "seat_map"];

const isScalar = (v) => v === null || ["string", "number", "boolean"].includes(typeof v);
const emptyKnown = () => ({ kinds: {}, complex: [], deck: [], unseen: null });

/** Every card code in a value (an event, a state document), in order of appearance. */
function cardsIn(value, out = new Set()) {
  if (isCard(value)) out.add(value);
  else if (Array.isArray(value)) for (const v of value) cardsIn(v, out);
  else if (value && typeof value === "object") for (const v of Object.values(value)) cardsIn(v, out);
  return out;
}

function extrasOf(event, omit) {
  return Object.fromEntries(Object.entries(event).filter(([k]) => !omit.includes(k)));
}

const sameExtras = (event, extras) => Object.entries(extras).every(([k, v]) => event[k] === v);

/** A seat's hand as the scorer sees it (null when hidden). */
function handOf(seat, state = app.state) {
  const s = state && state.seats ? state.seats[seat] : null;
  return s && Array.isArray(s.cards) && s.cards.every(isCard) ? s.cards : null;
}

/** What an offer of the server teaches about the game's events, kept (in the cache) for an offline time:
 * each kind of decision (its type, fixed fields, whether its card comes from the hand), of range (with
 * the widest bounds offered) and of chance event (what to enter), the deck, and the cards not seen. */
function learn(offer, state, events = []) {
  const known = app.known || emptyKnown();
  const latest = events.length ? events[events.length - 1] : null;
  app.known = known;
  for (const e of offer.decisions) {
    const extras = extrasOf(e, ["type", "seat", "card"]);
    if (!Object.values(extras).every(isScalar) || ("card" in e && !isCard(e.card))) {
      if (!known.complex.includes(e.type)) known.complex.push(e.type);
      continue;
    }
    const hasSeat = Number.isInteger(e.seat);
    if (!hasSeat && !("card" in e)) {
      known.kinds[`fixed|${canonical(e)}`] = { kind: "fixed", type: e.type, event: e };
      continue;
    }
    const hand = hasSeat ? handOf(e.seat, state) : null;
    const source = !("card" in e) ? null : hand && hand.includes(e.card) ? "hand" : "table";
    const key = `decision|${e.type}|${canonical(extras)}|${hasSeat}|${source}`;
    // a card taken from the table (Gin's discard): which kind of event put such a card down
    const from = source === "table" && latest && latest.data && latest.data.card === e.card ? latest.type : null;
    known.kinds[key] = { kind: "decision", type: e.type, extras, hasSeat, source,
      from: (known.kinds[key] && known.kinds[key].from) || from, phases: withPhase(known.kinds[key], offer.phase) };
  }
  for (const r of offer.ranges) {
    const extras = extrasOf(r.event, ["type", "seat", r.field]);
    if (!Object.values(extras).every(isScalar)) continue;
    const key = `range|${r.event.type}|${canonical(extras)}|${r.field}`;
    const before = known.kinds[key];
    known.kinds[key] = { kind: "range", type: r.event.type, extras, field: r.field, hasSeat: Number.isInteger(r.event.seat),
      min: before ? Math.min(before.min, r.min) : r.min, max: before ? Math.max(before.max, r.max) : r.max,
      phases: withPhase(before, offer.phase) };
  }
  if (offer.reveal) {
    for (const v of offer.reveal.events) {
      const extras = extrasOf(v.event, ["type", "seat", "dealer", ...Object.keys(v.fields)]);
      if (!Object.values(extras).every(isScalar)) continue;
      const key = `reveal|${v.event.type}|${canonical(extras)}|${canonical(v.fields)}`;
      known.kinds[key] = { kind: "reveal", type: v.event.type, extras, fields: v.fields, example: v.event,
        phases: withPhase(known.kinds[key], offer.phase) };
    }
    known.unseen = { seq: offer.seq, cards: offer.reveal.unseen };
  }
  known.deck = [...new Set([...known.deck, ...(offer.reveal ? offer.reveal.unseen : []), ...cardsIn(state)])];
}

/** The phases a kind of event has been offered in (Schnapsen's marriage: `lead`; a draw: `draw`). */
function withPhase(before, phase) {
  const phases = before && Array.isArray(before.phases) ? before.phases : [];
  return phase && !phases.includes(phase) ? [...phases, phase] : phases;
}

/** The learned kinds, with the seeded chance events the pad has not been offered yet. */
function kindsFor() {
  const kinds = Object.values((app.known || emptyKnown()).kinds);
  for (const seed of SEED_DECISIONS[app.state.game] || []) {
    if (!kinds.some((k) => k.kind === "decision" && k.type === seed.type && canonical(k.extras) === canonical(seed.extras))) kinds.push(seed);
  }
  for (const seed of SEED_KINDS[app.state.game] || []) {
    const same = (k) => k.kind === seed.kind && k.type === seed.type && (seed.kind === "reveal" || canonical(k.extras) === canonical(seed.extras));
    const at = kinds.findIndex(same);
    if (at < 0) kinds.push(seed);
    else if (seed.from && !kinds[at].from) kinds[at] = { ...kinds[at], from: seed.from }; // Gin's upcard came first
  }
  return kinds;
}

const dealsHands = (kind) => Object.values(kind.fields).some((f) => SEAT_SHAPES.includes(f.shape));

function deckOf() {
  const known = app.known || emptyKnown();
  if (known.deck.length >= 20) return known.deck;
  const ranks = DECK_RANKS[app.state.game] || RANKS;
  return SUIT_ORDER.flatMap((suit) => ranks.split("").map((r) => r + suit));
}

/** The cards not seen at the server's head: the offer's own list at a reveal; else the last list seen,
 * less the cards of the events recorded since; else the deck less every card the table shows. */
function unseenAtHead() {
  const offer = app.offer;
  if (offer.reveal) return offer.reveal.unseen.slice();
  const last = (app.known || emptyKnown()).unseen;
  if (last && last.seq <= offer.seq) {
    const since = app.events.filter((e) => e.seq > last.seq && e.seq <= offer.seq);
    if (since.length === offer.seq - last.seq && !since.some((e) => e.type === "retract")) {
      const used = cardsIn(since.map((e) => e.data));
      return last.cards.filter((c) => !used.has(c));
    }
  }
  const shown = cardsIn(app.state);
  return deckOf().filter((c) => !shown.has(c));
}

/** A seat's cards in a deal event (`hands` as a list per seat or a map by seat). */
function dealtTo(event, kind, seat) {
  for (const [field, spec] of Object.entries(kind.fields)) {
    if (!SEAT_SHAPES.includes(spec.shape) || !spec.seats.includes(seat)) continue;
    const value = spec.shape === "seat_cards" ? event[field][seat] : event[field][String(seat)];
    return Array.isArray(value) ? [...value] : [value];
  }
  return [];
}

/** The seats in the order they are offered: the one after the last queued actor first. */
function seatOrder(count, last) {
  const first = Number.isInteger(last) ? (last + 1) % count : 0;
  return Array.from({ length: count }, (_, i) => (first + i) % count);
}

/** The offer after the queued taps, built here from what the pad knows (the module comment): every
 * event in it is marked not checked yet; the rules check it when the queue is sent. */
function guessOffer() {
  const count = app.state.seats.length;
  const kinds = kindsFor();
  const kindOf = (event) => kinds.find((k) => k.kind !== "fixed" && k.type === event.type && sameExtras(event, k.extras)
    && (k.kind !== "decision" || (k.source === null) === !("card" in event)));
  const hands = Array.from({ length: count }, (_, s) => (handOf(s) ? [...handOf(s)] : null));
  let pool = new Set(unseenAtHead());
  // the cards put down that a seat may take (a discard drawn in Gin): the server's offer of them, then the
  // cards the queued taps put down, each with the type of event that put it
  const table = app.offer.decisions.filter((e) => isCard(e.card)).filter((e) => {
    const k = kindOf(e);
    return k && k.source === "table";
  }).map((e) => ({ card: e.card, by: `head ${e.type}` }));
  let last = null;
  for (const { event } of app.queue) {
    const kind = kindOf(event);
    if (!kind) continue; // a note, a claim: no card moves
    const cards = [...cardsIn(extrasOf(event, ["type"]))];
    if (kind.kind === "reveal" && dealsHands(kind)) {
      pool = new Set(deckOf());
      for (let s = 0; s < count; s += 1) hands[s] = dealtTo(event, kind, s);
    } else if (kind.kind === "reveal") {
      if (Number.isInteger(event.seat) && hands[event.seat]) hands[event.seat].push(...cards);
    } else if (Number.isInteger(event.seat)) {
      const hand = hands[event.seat];
      if (kind.source === "table") {
        if (hand) hand.push(...cards);
        for (const c of cards) {
          const at = table.findIndex((t) => t.card === c);
          if (at >= 0) table.splice(at, 1);
        }
      } else {
        for (const c of cards) if (hand && hand.includes(c)) hand.splice(hand.indexOf(c), 1);
        if (isCard(event.card)) table.push({ card: event.card, by: event.type });
      }
      last = event.seat;
    }
    for (const c of cards) pool.delete(c);
  }
  // the seat to act when the pad can know it (offline.js), else the seats after the last actor first, a
  // seat seen holding no cards (Gin's sitter) last; and only the kinds of event offered in that phase
  const empty = (seat) => Boolean(hands[seat]) && hands[seat].length === 0;
  const turn = predictTurn(app.state, app.queue.map((q) => q.event));
  const seats = turn ? turn.toAct : seatOrder(count, last).sort((a, b) => Number(empty(a)) - Number(empty(b)));
  const inPhase = (kind) => {
    if (!turn || !turn.phase) return true;
    const known = kindAllowed(app.state.game, turn.phase, kind);
    if (known !== null) return known;
    return !Array.isArray(kind.phases) || !kind.phases.length || kind.phases.includes(turn.phase);
  };
  const decisions = [];
  const ranges = [];
  const variants = [];
  const cardsFor = (kind, seat) => {
    if (kind.source === "table") {
      const top = table.length ? table[table.length - 1] : null;
      return top && (top.by === kind.from || top.by === `head ${kind.type}`) ? [top.card] : [];
    }
    return seat !== null && hands[seat] ? hands[seat] : [...pool];
  };
  for (const seat of seats) {
    for (const kind of kinds) {
      if (!kind.hasSeat || !inPhase(kind)) continue;
      if (kind.kind === "decision" && kind.source === null) decisions.push({ type: kind.type, seat, ...kind.extras });
      else if (kind.kind === "decision") {
        for (const card of cardsFor(kind, seat)) {
          const event = { type: kind.type, seat, ...kind.extras, card };
          if (mayOffer(app.state.game, event, hands[seat])) decisions.push(event);
        }
      } else if (kind.kind === "range") {
        ranges.push({ event: { type: kind.type, seat, ...kind.extras, [kind.field]: kind.min }, field: kind.field, min: kind.min, max: kind.max });
      }
    }
  }
  for (const kind of kinds) {
    if (kind.kind === "fixed") decisions.push(kind.event);
    else if (kind.kind === "decision" && !kind.hasSeat) {
      for (const card of cardsFor(kind, null)) decisions.push({ type: kind.type, ...kind.extras, card });
    } else if (kind.kind === "range" && !kind.hasSeat) {
      ranges.push({ event: { type: kind.type, ...kind.extras, [kind.field]: kind.min }, field: kind.field, min: kind.min, max: kind.max });
    }
  }
  // chance events: a seat's draw or hit over the cards not used yet, then the deals of a new hand over the
  // deck, then the rest (Gin's cut for roles)
  const reveals = kinds.filter((k) => k.kind === "reveal" && inPhase(k));
  const rank = (k) => (dealsHands(k) ? 1 : Number.isInteger(k.example.seat) ? 0 : 2);
  for (const order of [0, 1, 2]) {
    for (const kind of reveals.filter((k) => rank(k) === order)) {
      const deal = dealsHands(kind);
      const example = JSON.parse(JSON.stringify(kind.example));
      const unseen = deal ? deckOf() : [...pool];
      // "Juan: hit (face down)", "Ben: draw (source stock)", "Ann deals: hand, the table"
      const how = Object.entries(kind.extras).filter(([, v]) => v !== false && v !== null)
        .map(([k, v]) => (v === true ? words(k) : `${words(k)} ${v}`));
      const verb = `${words(kind.type)}${how.length ? ` (${how.join(", ")})` : ""}`;
      const dealt = Object.keys(kind.fields).length > 1 ? `: ${Object.keys(kind.fields).map((f) => FIELD_WORDS[f] || words(f)).join(", ")}` : "";
      if (Number.isInteger(example.seat)) {
        for (const seat of seats) variants.push({ event: { ...example, seat }, fields: kind.fields, unseen, label: `${who(seat, names())}: ${verb}` });
      } else if (Number.isInteger(example.dealer)) {
        for (const seat of seats) variants.push({ event: { ...example, dealer: seat }, fields: kind.fields, unseen, label: `${who(seat, names())} deals${dealt}` });
      } else {
        variants.push({ event: example, fields: kind.fields, unseen, label: `${REVEAL_WORDS[kind.type] || verb}${dealt}` });
      }
    }
  }
  const reveal = variants.length ? { type: "offline", unseen: [...pool], events: variants, event: variants[0].event } : null;
  const complex = (app.known || emptyKnown()).complex;
  return { seq: nextExpected(), decisions, ranges, reveal, flagged: [], guessed: true, complex,
    to_act: turn ? turn.toAct : null };
}

/** Offline with taps waiting: the pad offers its own guess of the next taps. */
const guessing = () => !app.online && app.queue.length > 0 && !app.conflict && !app.refused && app.offer.sends === "events";
/** The offer the controls show: the server's, or the pad's own while offline. */
const shown = () => app.guess || app.offer;

// --------------------------------------------------------------------------- loading

/** The offer, then the table, score and last events at the same seq (read again if another device
 * appended in between, so the table drawn is the one the offer is about). */
async function readGame() {
  for (let attempt = 0; ; attempt += 1) {
    const offer = await api(gamePath("/next"));
    const after = Math.max(0, offer.seq - RECORD_EVENTS);
    const [meta, state, score, events] = await Promise.all([
      api(gamePath()), api(gamePath("/state")), api(gamePath("/score")),
      api(gamePath(`/events?after=${after}`)),
    ]);
    if (state.seq === offer.seq || attempt >= 2) return { meta, state, offer, score, events };
  }
}

async function refresh() {
  busy(true);
  app.generation += 1;
  const generation = app.generation;
  try {
    const { meta, state, offer, score, events } = await readGame();
    if (generation !== app.generation) return; // a later read is under way: it draws the page
    forgetOldNames(meta.players);
    Object.assign(app, { meta, state, offer, score, events: events.events });
    learn(offer, state, events.events);
    saveCache();
    setOnline(true);
    showAlert("");
  } catch (error) {
    if (error instanceof NetworkError) {
      setOnline(false);
      if (!app.offer) loadCache();
    } else if (error.status === 401) {
      forgetKey(keyRefused(error));
    } else if (error.status === 404) {
      dropCache(); // no such game for this key (any more): its table and names leave this device
      showProblem($("alert"), { ...problemOf(error, { what: "record", id: app.gameId }), title: "No such game in your club." },
        { retry: refresh });
      $("alert").className = "alert-box";
    } else {
      showProblem($("alert"), problemOf(error, { what: "record", id: app.gameId, doing: "record" }), {
        retry: refresh, key: () => forgetKey(""),
      });
      $("alert").className = "alert-box";
    }
  } finally {
    busy(false);
  }
  render();
}

/** Why the key was refused, in words, for the key dialog. */
function keyRefused(error) {
  const problem = problemOf(error, {});
  return `${problem.title}. ${problem.text}`;
}

function forgetKey(message) {
  sessionStorage.removeItem(KEY_STORE);
  app.token = null;
  askKey(message);
}

function askKey(message) {
  const dialog = $("key-dialog");
  $("key-error").textContent = message || "";
  $("key-error").hidden = !message;
  if (!dialog.open) dialog.showModal();
  $("key-input").focus();
}

// --------------------------------------------------------------------------- rendering

function render() {
  app.guess = app.offer && app.state && guessing() ? guessOffer() : null;
  renderNet();
  renderConflict();
  if (!app.state || !app.offer) return;
  $("pad-main").hidden = false;
  const title = TITLES[app.state.game] || app.state.game;
  $("title").textContent = `${title}: ${names().join(", ")}`;
  document.title = `${title} · table pad`;
  const labels = app.meta ? ["event", "round", "table"].filter((k) => app.meta[k]).map((k) => `${k} ${app.meta[k]}`) : [];
  $("subtitle").textContent = [...labels, app.state.hand ? `hand ${app.state.hand}` : ""].filter(Boolean).join(" · ");
  $("replay-link").href = `/replay/${encodeURIComponent(app.gameId)}`;
  $("replay-link").hidden = false;
  renderTable($("table"), app.state, { bottom: 0, score: app.score });
  drawWaiting($("table"));
  $("table").dataset.padSeq = String(app.offer.seq);
  const pending = app.queue.length + app.held.length;
  $("table-note").hidden = pending === 0;
  $("table-note").textContent = pending
    ? `The table as last recorded (event ${app.offer.seq}), with the ${pending === 1 ? "tap" : `${pending} taps`} waiting on this device drawn dashed.`
    : "";
  $("table").classList.toggle("behind", pending > 0);
  renderTurn();
  renderOffer();
  renderCommon();
  renderQueue();
  renderScore();
  renderRecord();
  document.body.dataset.seq = String(app.offer.seq);
  document.body.dataset.queue = String(app.queue.length);
  document.body.dataset.guess = app.guess ? "1" : "0";
  refocus();
}

//: taps that put a card down from the hand, and those that bring one into it
const CARD_OUT = new Set(["play", "discard", "trail", "capture", "build"]);
const CARD_IN = new Set(["draw", "hit"]);

/** The taps waiting on this device, on the table: a card played or discarded dashed in its hand, a card
 * drawn dashed in the hand it went to, and the taps in order in the middle of the table. */
function drawWaiting(table) {
  const waiting = [...app.queue, ...app.held];
  if (!waiting.length) return;
  const strip = h("ol", { class: "waiting-taps", "aria-label": "Taps waiting to be sent" });
  for (const item of waiting) {
    const e = item.event;
    const seat = table.querySelector(`.seat[data-seat="${e.seat}"] .hand`);
    if (seat && isCard(e.card) && CARD_OUT.has(e.type)) {
      const shownCard = seat.querySelector(`[data-card="${e.card}"]`);
      if (shownCard) shownCard.classList.add("pending-out");
    }
    if (seat && isCard(e.card) && CARD_IN.has(e.type)) {
      const row = seat.querySelector(".cards") || seat;
      row.append(cardEl(e.card, { class: "pending-in", label: "waiting to be sent" }));
    }
    strip.append(h("li", { dataset: { key: item.key } }, isCard(e.card) ? cardEl(e.card, { class: "small pending-in" }) : "",
      h("span", {}, item.label)));
  }
  const center = table.querySelector(".center");
  if (center) center.append(h("div", { class: "group waiting-group" }, h("div", { class: "group-label" }, "Waiting to be sent"), strip));
}

/** After a tap, the keyboard goes on from the first new choice (the tapped button is gone). */
function refocus() {
  if (!app.refocus || (app.queue.length && !app.guess) || document.querySelector("dialog[open]")) return;
  const active = document.activeElement;
  if (active && active !== document.body && document.body.contains(active)) return;
  app.refocus = false;
  const first = document.querySelector("#decisions button.choice, #ranges input.amount, #picker .pick:not(:disabled)");
  if (first) first.focus();
  else $("turn").focus();
}

function renderNet() {
  const el = $("net");
  const n = app.queue.length;
  const taps = `${n} ${n === 1 ? "tap" : "taps"}`;
  let state = "online";
  let text = "Online · every tap is recorded";
  if (app.conflict) {
    state = "conflict";
    text = "Stopped: another device recorded first";
  } else if (app.refused) {
    state = "refused";
    text = `Stopped: the rules refused a tap (${taps} waiting)`;
  } else if (!app.online) {
    state = "offline";
    text = n ? `Offline: ${taps} waiting on this device, sent in order when the network is back`
      : "Offline: taps will wait on this device until the network is back";
  } else if (n) {
    state = "sending";
    text = `Sending ${taps}…`;
  } else if (app.held.length) {
    state = "held";
    text = `Enter the refused tap again: ${app.held.length} ${app.held.length === 1 ? "tap waits" : "taps wait"} after it`;
  }
  el.dataset.state = state;
  el.textContent = text;
  document.body.dataset.net = state;
  document.body.dataset.queue = String(n);
}

function renderConflict() {
  const box = $("conflict");
  if (app.conflict) {
    box.hidden = false;
    const at = Number.isInteger(app.conflict.actual) ? ` (the game is now at event ${app.conflict.actual})` : "";
    $("conflict-text").textContent = `Another device recorded events meanwhile${at}. These taps were not recorded:`;
    $("conflict-taps").replaceChildren(...app.conflict.taps.map((t) => h("li", {}, t)));
    $("conflict-reload").textContent = "Reload the game";
    $("conflict-reload").onclick = resolveConflict;
    $("conflict-edit").hidden = true;
  } else if (app.refused) {
    box.hidden = false;
    const later = app.queue.slice(1);
    const unchecked = app.refused.item.checked === false ? " (entered offline, not checked then)" : "";
    $("conflict-text").replaceChildren(h("span", {}, `The rules refused ${app.refused.item.expected_seq + 1}. ${app.refused.item.label}${unchecked}: `),
      h("span", { id: "refused-reason", class: "reason" }, renderMarked(app.refused.message)),
      /[.!?]$/.test(String(app.refused.message).trim()) ? "" : ".",
      h("span", {}, later.length ? ` Nothing after it was sent: ${later.length} ${later.length === 1 ? "tap waits" : "taps wait"} on this device.` : ""));
    $("conflict-taps").replaceChildren(...later.map((q) => h("li", {}, `not sent: ${q.expected_seq + 1}. ${q.label}`)));
    $("conflict-edit").hidden = false;
    $("conflict-edit").textContent = later.length ? "Enter this tap again (the later taps follow it)" : "Enter this tap again";
    $("conflict-edit").onclick = editRefused;
    $("conflict-reload").textContent = later.length ? "Drop it and the later taps" : "Drop it";
    $("conflict-reload").onclick = dropRefused;
  } else if (app.held.length) {
    box.hidden = false;
    $("conflict-text").textContent = "Enter, from the choices below, what should have been recorded in place of the refused tap. These taps wait and follow it:";
    $("conflict-taps").replaceChildren(...app.held.map((q) => h("li", {}, q.label)));
    $("conflict-edit").hidden = true;
    $("conflict-reload").textContent = "Drop these taps too";
    $("conflict-reload").onclick = dropRefused;
  } else {
    box.hidden = true;
  }
  box.dataset.kind = app.conflict ? "conflict" : app.refused ? "refused" : app.held.length ? "held" : "";
}

const REVEAL_WORDS = { deal: "Deal", draw: "Draw", hit: "Hit", cut: "Cut" };

function renderTurn() {
  const offer = app.offer;
  const el = $("turn");
  if (app.guess) {
    const next = Array.isArray(app.guess.to_act) && app.guess.to_act.length ? `${joinNames(app.guess.to_act)} next: ` : "";
    el.textContent = `Offline: ${next ? `${next.slice(0, -2)} to act next` : "tap what happens next"} (not checked yet)`;
  } else if (offer.finished) {
    const winner = app.state.winner;
    el.textContent = Number.isInteger(winner) ? `The game is over: ${who(winner, names())} won` : "The game is over";
  } else if (offer.chance && offer.reveal) {
    const event = offer.reveal.event;
    const by = Number.isInteger(event.seat) ? ` for ${who(event.seat, names())}` : "";
    const dealer = Number.isInteger(event.dealer) ? ` (${who(event.dealer, names())} deals)` : "";
    el.textContent = `${REVEAL_WORDS[offer.reveal.type] || words(offer.reveal.type)}${by}${dealer}: pick the cards`;
  } else if (offer.to_act.length) {
    el.textContent = `${joinNames(offer.to_act)} to act`;
  } else {
    el.textContent = "Nothing to enter";
  }
  el.dataset.toAct = offer.to_act.join(",");
}

/** The server's decisions at its head; while offline with taps waiting, the pad's own guess of the next
 * ones (`guessOffer`), marked not checked yet; none while sending (the server's answer comes soon). */
function renderOffer() {
  const offer = app.offer;
  const waiting = app.queue.length > 0 || app.conflict || app.refused;
  const mayPlay = offer.sends === "events";
  $("decisions").replaceChildren();
  $("ranges").replaceChildren();
  $("flagged-list").replaceChildren();
  $("flagged").hidden = true;
  $("picker").hidden = true;
  $("pad-controls").classList.toggle("unchecked", Boolean(app.guess));
  $("unchecked").hidden = !app.guess;
  const wait = $("waiting");
  wait.hidden = !waiting && mayPlay;
  if (app.guess) {
    wait.hidden = true;
    renderGuess(app.guess);
    return;
  }
  if (!mayPlay) {
    wait.textContent = offer.sends === "corrections"
      ? "An auditor key records corrections only: undo, score claims and notes."
      : "A viewer key may not record: open the pad with a recorder key.";
    return;
  }
  if (app.conflict || app.refused) {
    wait.textContent = app.conflict ? "Stopped: nothing more is sent until the game is reloaded (see above)."
      : "Stopped: nothing more is sent until the refused tap is entered again or dropped (see above).";
    return;
  }
  if (waiting) {
    wait.textContent = app.online
      ? "Sending… the next choices come from the server once the waiting taps are recorded."
      : "Offline: the next choices come from the server once the waiting taps are recorded. Notes and score claims can still be added.";
    return;
  }
  renderDecisions($("decisions"), offer.decisions, (event) => tap(event));
  for (const range of offer.ranges) $("ranges").append(rangeEl(range));
  if (offer.reveal) renderPicker();
  const flagged = offer.flagged.filter((f) => !f.reveal);
  if (flagged.length) {
    $("flagged").hidden = false;
    renderDecisions($("flagged-list"), flagged.map((f) => f.event), (event, i) => confirmFlagged(flagged[i]), flagged);
  }
}

/** The pad's own offer: the same buttons and picker, each saying that the rules have not checked it. */
function renderGuess(guess) {
  const note = $("unchecked");
  const later = guess.complex.length
    ? ` Not offered offline: ${guess.complex.map(words).join(", ")} (the rules work them out): enter them when the network is back.`
    : " Events the rules work out (a knock with its melds, a capture, a build) are not offered offline: enter them when the network is back.";
  note.replaceChildren(h("strong", {}, "Not checked yet: "),
    `the rules check these taps when the network is back; the first one refused stops the queue, and nothing after it is sent. The choices come from this device: the cards each player may still hold, the cards not used yet.${later}`);
  renderDecisions($("decisions"), guess.decisions, (event) => tap(event));
  for (const range of guess.ranges) $("ranges").append(rangeEl(range));
  if (guess.reveal) renderPicker();
}

const CARD_ONLY = (event) => Object.keys(event).every((k) => ["type", "seat", "card"].includes(k)) && isCard(event.card);

/** The game's units, with a `seat` unit for every fact of `result` that names a seat (`box`, `offer_to`). */
function factUnits(result) {
  const out = { ...units() };
  for (const key of [...SEAT_KEYS, ...Object.keys(result || {})]) if (seatKey(key) && !out[key]) out[key] = "seat";
  return out;
}

/** An event in words (`describe`), a deal said as "Anna deals: ..." rather than "deal dealer Anna". */
function describeEvent(event, result = null) {
  if (event.type === "deal" && Number.isInteger(event.dealer)) {
    const { dealer, type, ...rest } = event;
    return [h("strong", {}, who(dealer, names())), " deals:", ...describe({ type: "", ...rest }, result, names(), factUnits(result))];
  }
  return describe(event, result, names(), factUnits(result));
}

/** What a button says for an event, its actor left out (the group heading names them): padwords.js. */
function eventNodes(event) {
  const hand = Number.isInteger(event.seat) ? handOf(event.seat) : null;
  return eventWords(event, { hand, names: names(), units: factUnits(null) });
}

//: a group of buttons' heading: what the player does
const TYPE_WORDS = { exchange_trump: "exchange the trump", lay_off: "lay out and lay off", session_closed: "close the session" };

/** Decisions in groups by actor and type: cards as big card buttons, the rest as worded buttons. */
function renderDecisions(container, events, onPick, flags = null) {
  const groups = new Map();
  // a knock: gin first, then the lowest deadwood (the one a player looks for)
  const order = events.map((event, index) => ({ event, index }));
  order.sort((a, b) => (a.event.type === "knock" && b.event.type === "knock"
    ? knockOrder(a.event, handOf(a.event.seat)) - knockOrder(b.event, handOf(b.event.seat)) : 0));
  order.forEach(({ event, index }) => {
    const actor = Number.isInteger(event.seat) ? event.seat : -1;
    const key = `${actor}|${event.type}`;
    if (!groups.has(key)) groups.set(key, { actor, type: event.type, items: [] });
    groups.get(key).items.push({ event, index });
  });
  for (const group of groups.values()) {
    const heading = group.actor >= 0 ? `${who(group.actor, names())}: ${TYPE_WORDS[group.type] || words(group.type)}`
      : TYPE_WORDS[group.type] || words(group.type);
    const list = h("div", { class: "choice-list" });
    const box = h("div", { class: `choice-group type-${group.type}`, role: "group", "aria-label": heading },
      h("h3", { class: "choice-head" }, heading), list);
    group.items.forEach(({ event, index }, i) => {
      const flag = flags ? flags[index] : null;
      const button = h("button", {
        type: "button", class: `big choice${CARD_ONLY(event) ? " card-choice" : ""}${flag ? " flagged-choice" : ""}`,
        dataset: { event: canonical(event), type: event.type },
        onclick: () => onPick(event, index),
        hidden: i >= SHOWN_PER_TYPE,
      });
      if (CARD_ONLY(event)) {
        button.append(cardEl(event.card), h("span", { class: "choice-verb" }, words(event.type)));
        button.setAttribute("aria-label", `${heading} ${plainText(eventNodes(event))}`);
      } else {
        add(button, eventNodes(event));
      }
      if (flag) button.append(h("span", { class: "flag-rule" }, "⚠ against the rules"));
      list.append(button);
    });
    if (group.items.length > SHOWN_PER_TYPE) {
      const more = h("button", { type: "button", class: "more-choices" }, `${group.items.length - SHOWN_PER_TYPE} more…`);
      more.onclick = () => {
        for (const b of list.querySelectorAll("button.choice[hidden]")) b.hidden = false;
        more.remove();
      };
      list.append(more);
    }
    container.append(box);
  }
}

/** An amount range: the event, a number input from min to max (with − and + for thumbs), and a send button. */
function rangeEl(range, onSend = null) {
  const { event } = range;
  const field = range.field;
  const unit = units()[field] || (units()[event.type === "bet" ? "stake" : field] ?? "");
  const id = `amount-${canonical(event).replace(/[^a-z0-9]/gi, "")}`;
  const input = h("input", {
    type: "number", id, inputmode: "numeric", min: range.min, max: range.max, step: 1, value: range.min,
    class: "amount", dataset: { field },
  });
  const step = (d) => {
    const v = Math.min(range.max, Math.max(range.min, (Number(input.value) || range.min) + d));
    input.value = String(v);
  };
  const { [field]: _omit, ...base } = event;
  const actor = Number.isInteger(event.seat) ? `${who(event.seat, names())}: ` : "";
  const bounds = `${fieldText({ [field]: unit }, field, range.min)} to ${fieldText({ [field]: unit }, field, range.max)}`;
  const send = h("button", { type: "button", class: "big primary range-send" }, `Record ${words(event.type)}`);
  const row = h("div", { class: "range", role: "group", dataset: { range: canonical(base), field } },
    h("label", { for: id, class: "range-label" }, actor, ...eventNodes(base), h("span", { class: "bounds" }, ` (${bounds})`)),
    h("div", { class: "range-input" },
      h("button", { type: "button", class: "step", "aria-label": "one less", onclick: () => step(-1) }, "−"),
      input,
      h("button", { type: "button", class: "step", "aria-label": "one more", onclick: () => step(1) }, "+"),
      send));
  const submit = () => {
    const value = Number(input.value);
    if (!Number.isInteger(value) || value < range.min || value > range.max) {
      input.setCustomValidity(`from ${range.min} to ${range.max}`);
      input.reportValidity();
      return;
    }
    input.setCustomValidity("");
    const chosen = { ...event, [field]: value };
    if (onSend) onSend(chosen);
    else tap(chosen);
  };
  send.onclick = submit;
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") submit();
  });
  return row;
}

// --------------------------------------------------------------------------- the card picker

/** The slots to fill for a reveal variant: one per card, in field and seat order. */
function slotsOf(variant) {
  const slots = [];
  const cut = variant.event.type === "cut";
  for (const [field, spec] of Object.entries(variant.fields)) {
    if (spec.shape === "card") slots.push({ field, seat: null, index: 0 });
    else if (spec.shape === "cards" && cut) {
      // the cut: one card per player, in seat order, each slot named by who cut it
      for (let i = 0; i < spec.count; i += 1) slots.push({ field, seat: null, index: i, label: `${who(i, names())}'s cut` });
    } else if (spec.shape === "cards") for (let i = 0; i < spec.count; i += 1) slots.push({ field, seat: null, index: i });
    else {
      const example = variant.event[field];
      for (const seat of spec.seats) {
        const count = Array.isArray(example[seat]) ? example[seat].length
          : example[String(seat)] !== undefined && !Array.isArray(example[String(seat)]) ? 1
            : (example[String(seat)] || []).length || spec.count;
        for (let i = 0; i < count; i += 1) slots.push({ field, seat, index: i });
      }
    }
  }
  return slots;
}

/** The reveal's variants (a hit face up, face down...), and under `record` the disputed ones with their flag. */
function variantsOf() {
  const reveal = shown().reveal;
  // a flagged chance event's own `fields` are its reason's template fields (`phrases.explained`): what to
  // enter is read from the offered variant of the same type (a hit is one card either way)
  const disputed = shown().flagged.filter((f) => f.reveal)
    .map((f) => ({ flag: f, event: f.event, like: reveal.events.find((v) => v.event.type === f.event.type) }))
    .filter((v) => v.like)
    .map((v) => ({ event: v.event, fields: v.like.fields, flag: v.flag }));
  return [...reveal.events, ...disputed];
}

function pickerState() {
  const key = `${shown().seq}|${canonical(variantsOf().map((v) => v.fields))}`;
  if (!app.picker || app.picker.key !== key) {
    app.picker = { key, variant: 0, cards: [], active: 0 };
  }
  return app.picker;
}

/** The event of a variant with the picked cards in its card fields. */
function pickedEvent(variant, slots, cards) {
  const event = JSON.parse(JSON.stringify(variant.event));
  slots.forEach((slot, i) => {
    const spec = variant.fields[slot.field];
    const card = cards[i];
    if (spec.shape === "card") event[slot.field] = card;
    else if (spec.shape === "cards") event[slot.field][slot.index] = card;
    else if (spec.shape === "seat_cards") event[slot.field][slot.seat][slot.index] = card;
    else {
      const k = String(slot.seat);
      if (Array.isArray(event[slot.field][k])) event[slot.field][k][slot.index] = card;
      else event[slot.field][k] = card;
    }
  });
  return event;
}

const FIELD_WORDS = { hands: "hand", table: "the table", trump_card: "trump card", upcard: "upcard", cards: "cards",
  card: "card" };

function slotLabel(slot) {
  if (slot.label) return slot.label;
  const field = FIELD_WORDS[slot.field] || words(slot.field);
  return slot.seat === null ? field : `${who(slot.seat, names())}'s ${field}`;
}

/** "Juan: hit, pick the card" / "Anna deals: pick 11 cards". */
function pickerTitle(reveal, variant) {
  const event = variant.event;
  const count = slotsOf(variant).length;
  const what = count === 1 ? "pick the card" : `pick ${count} cards`;
  if (Number.isInteger(event.dealer)) return `${who(event.dealer, names())} deals: ${what}`;
  if (count === 1 && Number.isInteger(event.seat)) {
    const how = event.source === "stock" ? " from the stock" : "";
    return `${who(event.seat, names())} ${VERBS[event.type] || words(event.type)}${how}: tap the card`;
  }
  if (Number.isInteger(event.seat)) return `${who(event.seat, names())}: ${words(event.type)}, ${what}`;
  if (event.type === "cut") return `The cut for the roles: ${what}, one for each player`;
  return `${REVEAL_WORDS[event.type] || words(event.type)}: ${what}`;
}

const VERBS = { draw: "draws", hit: "gets", cut: "cuts" };

/**
 * Cards typed as text: "10d as kh", "T♦ A♠", "qh,7s". Each word is a card or a mistake:
 * `{cards: [codes], bad: [words that are not cards]}`.
 */
export function parseCards(text) {
  const cards = [];
  const bad = [];
  const suits = { "♣": "C", "♦": "D", "♥": "H", "♠": "S" };
  for (const word of String(text).split(/[\s,;]+/).filter(Boolean)) {
    const m = /^(10|[2-9tjqka])\s*([cdhs♣♦♥♠])$/i.exec(word);
    if (!m) {
      bad.push(word);
      continue;
    }
    const rank = m[1] === "10" ? "T" : m[1].toUpperCase();
    cards.push(rank + (suits[m[2]] || m[2].toUpperCase()));
  }
  return { cards, bad };
}

/** Why typed cards were not taken, said where they were typed: not a card, already picked, already seen. */
function typedProblems({ cards, bad }, picked, unseen, deck) {
  const out = bad.map((word) => `“${word}” is not a card: write the rank then the suit, as 10d, qh or as.`);
  const seen = new Set(picked);
  for (const code of cards) {
    if (seen.has(code)) out.push(`${cardText(code)} is picked twice: each card once.`);
    else if (!deck.has(code)) out.push(`${cardText(code)} is not in this game's deck.`);
    else if (!unseen.has(code)) out.push(`${cardText(code)} is already dealt or played: it cannot come again in this hand.`);
    seen.add(code);
  }
  return out;
}

function renderPicker() {
  const reveal = shown().reveal;
  const state = pickerState();
  const variants = variantsOf();
  const variant = variants[state.variant] || variants[0];
  const slots = slotsOf(variant);
  const unseen = new Set(variant.unseen || reveal.unseen);
  const box = $("picker");
  box.hidden = false;
  box.replaceChildren();
  const full = state.cards.length === slots.length && state.cards.every(Boolean);
  if (variants.length > 1) {
    const choices = h("div", { class: "variants", role: "radiogroup", "aria-label": "What kind" });
    variants.forEach((v, i) => {
      const plain = variantWords(v.event, v.fields);
      const text = v.label || (v.flag ? `${plain} ⚠ against the rules` : plain);
      const id = `variant-${i}`;
      choices.append(h("label", { class: "variant", for: id },
        h("input", { type: "radio", name: "variant", id, checked: i === state.variant, onchange: () => {
          state.variant = i;
          state.cards = [];
          state.active = 0;
          renderPicker();
        } }), ` ${text}`));
    });
    box.append(choices);
  }
  // the slots, grouped by seat/field
  const slotBox = h("div", { class: "slots" });
  let group = null;
  let groupKey = null;
  slots.forEach((slot, i) => {
    const key = slot.label || `${slot.field}|${slot.seat}`;
    if (key !== groupKey) {
      groupKey = key;
      group = h("div", { class: "slot-row", role: "group", "aria-label": slotLabel(slot) },
        h("span", { class: "slot-label" }, slotLabel(slot)));
      slotBox.append(group);
    }
    const card = state.cards[i];
    const button = h("button", {
      type: "button", class: `slot${i === state.active ? " active" : ""}${card ? " filled" : ""}`,
      dataset: { slot: i, field: slot.field, seat: slot.seat ?? "" },
      "aria-label": `${slotLabel(slot)}, card ${slot.index + 1}: ${card ? cardText(card) : "empty"}${i === state.active ? " (next)" : ""}`,
      onclick: () => {
        if (card) state.cards[i] = null;
        state.active = i;
        renderPicker();
      },
    }, card ? cardEl(card) : h("span", { class: "slot-empty", "aria-hidden": "true" }, "?"));
    group.append(button);
  });
  box.prepend(h("h3", { class: "picker-head" }, pickerTitle(reveal, variant)));
  if (slots.length > 1) box.append(slotBox); // one card: the tap on it is all there is
  // the deck: every rank of every suit seen in the unseen cards or picked, only unseen ones selectable
  const picked = new Set(state.cards.filter(Boolean));
  const ranks = RANKS.split("").filter((r) => [...unseen, ...picked].some((c) => c[0] === r));
  const deck = h("div", { class: "deck", role: "group", "aria-label": "Pick a card (only unseen cards)" });
  for (const suit of SUIT_ORDER) {
    const row = h("div", { class: `deck-row ${SUITS[suit].red ? "red" : "black"}` });
    for (const r of ranks) {
      const code = r + suit;
      const available = unseen.has(code) && !picked.has(code);
      row.append(h("button", {
        type: "button", class: `pick ${SUITS[suit].red ? "red" : "black"}${picked.has(code) ? " picked" : ""}`,
        disabled: !available || full, dataset: { card: code },
        "aria-label": `${rankText(r)} of ${SUITS[suit].name}`,
        onclick: () => pickCard(code),
      }, h("span", { class: "rank" }, rankText(r)), h("span", { class: "suit" }, SUITS[suit].symbol)));
    }
    deck.append(row);
  }
  box.append(deck);
  const pickable = [...unseen].filter((c) => !picked.has(c));
  if (slots.length === 1 && pickable.length === 1 && !full) {
    box.append(h("p", { class: "help only-card" }, `Only ${cardText(pickable[0])} can come: tap it.`));
  }
  // as many cards a row as fit (40px and more, 48px high), the rows of a suit balanced: 10 ranks as 5 + 5, not 7 + 3
  const fit = Math.max(1, Math.floor((deck.clientWidth + 4) / 44));
  const rows = Math.ceil(ranks.length / fit);
  deck.style.setProperty("--cols", String(Math.ceil(ranks.length / rows)));
  const typed = h("input", { type: "text", id: "picker-type", autocomplete: "off", spellcheck: "false",
    placeholder: "or type: 10d as kh", "aria-label": "Type cards, e.g. 10d as kh" });
  typed.addEventListener("keydown", (e) => {
    if (e.key !== "Enter") return;
    e.preventDefault();
    const parsed = parseCards(typed.value);
    const taken = [];
    const deckCards = new Set(SUIT_ORDER.flatMap((suit) => RANKS.split("").map((r) => r + suit))
      .filter((c) => unseen.has(c) || picked.has(c) || deckOf().includes(c)));
    const problems = typedProblems(parsed, [...state.cards.filter(Boolean)], unseen, deckCards);
    for (const code of parsed.cards) {
      if (taken.includes(code)) continue;
      taken.push(code);
      if (unseen.has(code) && !state.cards.includes(code)) pickCard(code, false);
    }
    state.typed = problems.length ? typed.value : "";
    state.problems = problems;
    if (app.picker !== state) return; // one card was all it took: recorded
    renderPicker();
    const send = $("picker-send");
    const again = !problems.length && send && !send.disabled ? send : $("picker-type");
    if (again) again.focus();
  });
  if (state.typed) typed.value = state.typed;
  const left = slots.length - state.cards.filter(Boolean).length;
  const problems = h("div", { id: "picker-problem", class: "picker-problem", role: "alert", "aria-live": "assertive",
    hidden: !(state.problems && state.problems.length) }, (state.problems || []).map((text) => h("p", {}, text)));
  if (slots.length === 1) {
    // one card to enter: the tap on it records it (a mistake is undone with Undo)
    box.append(h("div", { class: "picker-actions" }, typed), problems);
    return;
  }
  const send = h("button", {
    type: "button", id: "picker-send", class: "big primary", disabled: !full,
  }, full ? ["Record: ", ...describeEvent(pickedEvent(variant, slots, state.cards))]
    : `${left} ${left === 1 ? "card" : "cards"} to pick`);
  send.onclick = () => {
    if (!full) return;
    const event = pickedEvent(variant, slots, state.cards);
    if (variant.flag) confirmFlagged({ ...variant.flag, event, field: null });
    else tap(event);
  };
  const clear = h("button", { type: "button", class: "clear-picks", onclick: () => {
    state.cards = [];
    state.active = 0;
    renderPicker();
  } }, "Clear");
  box.append(h("div", { class: "picker-actions" }, typed, clear, send), problems);
}

function pickCard(code, redraw = true) {
  const reveal = shown().reveal;
  const state = pickerState();
  const variants = variantsOf();
  const variant = variants[state.variant] || variants[0];
  const slots = slotsOf(variant);
  if (!(variant.unseen || reveal.unseen).includes(code) || state.cards.includes(code)) return;
  let at = state.active;
  if (at >= slots.length || state.cards[at]) at = slots.findIndex((_, i) => !state.cards[i]);
  if (at < 0) return;
  state.cards[at] = code;
  state.problems = [];
  state.typed = "";
  const next = slots.findIndex((_, i) => !state.cards[i]);
  state.active = next < 0 ? slots.length : next;
  if (slots.length === 1) {
    // one tap: the card is the event
    const event = pickedEvent(variant, slots, state.cards);
    if (variant.flag) {
      state.cards = [];
      confirmFlagged({ ...variant.flag, event, field: null });
    } else {
      tap(event);
    }
    return;
  }
  if (redraw) {
    renderPicker();
    const focus = next < 0 ? $("picker-send") : document.querySelector(`.pick[data-card="${code}"]`);
    if (focus && !focus.disabled) focus.focus();
    else if (next >= 0) {
      const first = document.querySelector(".pick:not(:disabled)");
      if (first) first.focus();
    }
  }
}

// --------------------------------------------------------------------------- dialogs

/** A small form in the dialog: `fields` builds its body, `submit` returns the event or throws a message. */
function openForm(title, okText, build, submit) {
  const dialog = $("form-dialog");
  $("form-h").textContent = title;
  $("form-ok").textContent = okText;
  $("form-error").hidden = true;
  const body = $("form-body");
  body.replaceChildren();
  build(body);
  $("form-form").onsubmit = (e) => {
    e.preventDefault();
    try {
      const result = submit();
      if (result) {
        dialog.close();
        tap(result.event, result.label);
      }
    } catch (message) {
      $("form-error").textContent = String(message);
      $("form-error").hidden = false;
    }
  };
  $("form-cancel").onclick = () => dialog.close();
  dialog.showModal();
  const first = body.querySelector("input, select, textarea");
  if (first) first.focus();
}

function confirmFlagged(flag) {
  const label = plainText(eventNodes(flag.event));
  const actor = Number.isInteger(flag.event.seat) ? `${who(flag.event.seat, names())}: ` : "";
  openForm(`Against the rules: ${actor}${label}`, "Record with a warning", (body) => {
    body.append(h("p", { class: "warning", id: "flag-warning" }, `⚠ This is against the rules: ${renderMarked(flag.reason)}`),
      ruleDetails(flag.rule));
    body.append(h("p", {}, "It is stored with the warning; the audit and the replay show it."));
    if (flag.field) {
      body.append(h("label", { for: "flag-amount" }, `${words(flag.field)} (${flag.min} to ${flag.max})`),
        h("input", { id: "flag-amount", type: "number", min: flag.min, max: flag.max, value: flag.event[flag.field] }));
    }
  }, () => {
    const event = { ...flag.event };
    if (flag.field) {
      const v = Number($("flag-amount").value);
      if (!Number.isInteger(v) || v < flag.min || v > flag.max) throw `${words(flag.field)}: from ${flag.min} to ${flag.max}`;
      event[flag.field] = v;
    }
    return { event, label: `${actor}${plainText(eventNodes(event))} (⚠ against the rules)` };
  });
}

const commonOf = (type) => (app.offer ? app.offer.common.find((c) => c.event.type === type) : null);

/** A rule's id for the curious, behind a "details" toggle. */
function ruleDetails(rule) {
  if (!rule) return null;
  return h("details", { class: "details rule-details" }, h("summary", {}, "details"), " rule ", h("code", { class: "rule" }, rule));
}

/** The score the rules count for a hand (its points by seat), or null while it is not finished. */
function computedPoints(hand) {
  const found = app.score && app.score.hands ? app.score.hands.find((x) => x.hand === hand) : null;
  return found ? found.points : null;
}

const pointsText = (points) => names().map((name, seat) => `${name} ${fieldText(units(), "points", Number(points[String(seat)] ?? 0))}`).join(", ");

/** A claim against the computed score, in words: `{agrees, text}` (agrees null while the hand is not over). */
function claimCheck(hand, points) {
  const computed = computedPoints(hand);
  if (!computed) return { agrees: null, text: `checked once hand ${hand} is over` };
  const agrees = names().every((_, seat) => Number(points[String(seat)] ?? 0) === Number(computed[String(seat)] ?? 0));
  return agrees ? { agrees, text: "agrees with the rules' score" }
    : { agrees, text: `does not agree with the rules' score for hand ${hand}: ${pointsText(computed)}` };
}

function recordLine(env) {
  return env ? `${env.seq}. ${plainText(envNodes(env))}` : "";
}

function openUndo() {
  const last = app.queue[app.queue.length - 1];
  if (last && !last.tried && last.key !== app.inflight) {
    openForm("Cancel the last waiting tap", "Cancel it", (body) => {
      body.append(h("p", {}, `Not sent yet: ${last.label}. Cancelling it removes it from this device; nothing reaches the record.`));
    }, () => {
      app.queue.pop();
      saveQueue();
      $("form-dialog").close();
      render();
      return null;
    });
    return;
  }
  const retract = commonOf("retract");
  if (!retract) {
    showAlert("Nothing to undo yet.", "info");
    return;
  }
  const bySeq = new Map(app.events.map((e) => [e.seq, e]));
  openForm("Undo", "Record the undo", (body) => {
    const select = h("select", { id: "undo-to" });
    for (let s = retract.max; s >= retract.min; s -= 1) {
      const env = bySeq.get(s + 1);
      const what = env ? `take back ${recordLine(env)}${s + 1 < retract.max + 1 ? " and after" : ""}` : `back to event ${s}`;
      select.append(h("option", { value: s }, what));
    }
    body.append(h("label", { for: "undo-to" }, "What to take back"), select,
      h("label", { for: "undo-reason" }, "Why (shown in the record)"),
      h("textarea", { id: "undo-reason", rows: 2, maxlength: 500, required: true, placeholder: "wrong card entered" }),
      h("p", { class: "help" }, "A retract keeps everything in the record: the events taken back stay, struck through. Notes and score claims stay in force."));
  }, () => {
    const reason = $("undo-reason").value.trim();
    if (!reason) throw "Say why: the reason is part of the record.";
    const to = Number($("undo-to").value);
    return { event: { type: "retract", to_seq: to, reason }, label: `undo back to event ${to}: “${reason}”` };
  });
}

function openClaim() {
  const claim = commonOf("score_claimed");
  if (!claim) {
    showAlert("A score claim needs a hand begun.", "info");
    return;
  }
  const seats = Object.keys(claim.event.points).map(Number);
  openForm("Claim a score: what the table's own sheet says", "Record the claim", (body) => {
    const select = h("select", { id: "claim-hand" });
    for (let n = claim.max; n >= claim.min; n -= 1) select.append(h("option", { value: n }, `hand ${n}`));
    body.append(h("label", { for: "claim-hand" }, "Hand"), select);
    const rules = h("p", { class: "help", id: "claim-computed" });
    const warn = h("p", { class: "warning", id: "claim-warning", role: "alert", hidden: true });
    const check = () => {
      const hand = Number(select.value);
      const computed = computedPoints(hand);
      rules.textContent = computed ? `The rules count for hand ${hand}: ${pointsText(computed)}.`
        : `Hand ${hand} is not over yet: the claim is checked against the rules' score once it is.`;
      const points = Object.fromEntries(seats.map((seat) => [String(seat), Number($(`claim-${seat}`).value)]));
      const verdict = claimCheck(hand, points);
      warn.hidden = verdict.agrees !== false;
      warn.textContent = verdict.agrees === false ? `⚠ This claim ${verdict.text}. It is recorded as claimed, and shown as disagreeing.` : "";
    };
    const fill = () => {
      const points = computedPoints(Number(select.value)) || {};
      for (const seat of seats) $(`claim-${seat}`).value = String(points[String(seat)] ?? 0);
      check();
    };
    const grid = h("div", { class: "claim-grid" });
    for (const seat of seats) {
      const input = h("input", { id: `claim-${seat}`, type: "number", step: 1, inputmode: "numeric", required: true });
      input.addEventListener("input", check);
      grid.append(h("label", { for: `claim-${seat}` }, who(seat, names())), input);
    }
    body.append(grid, rules, warn, h("p", { class: "help" }, "The points each player has on the table's own sheet for that hand. A claim settles nothing by itself: the audit compares it with the rules' score."));
    select.onchange = fill;
    queueMicrotask(fill);
  }, () => {
    const hand = Number($("claim-hand").value);
    const points = {};
    for (const seat of seats) {
      const v = Number($(`claim-${seat}`).value);
      if (!Number.isInteger(v)) throw `${who(seat, names())}: a whole number`;
      points[String(seat)] = v;
    }
    const text = seats.map((s) => `${who(s, names())} ${points[String(s)]}`).join(", ");
    const verdict = claimCheck(hand, points);
    if (verdict.agrees === false) showAlert(`The claim for hand ${hand} ${verdict.text}: recorded as claimed.`, "info");
    return { event: { type: "score_claimed", hand, points }, label: `score claimed for hand ${hand}: ${text}` };
  });
}

function openNote() {
  openForm("Note", "Record the note", (body) => {
    body.append(h("label", { for: "note-text" }, "Note (part of the record)"),
      h("textarea", { id: "note-text", rows: 3, maxlength: 2000, required: true }));
  }, () => {
    const text = $("note-text").value.trim();
    if (!text) throw "Write the note first.";
    return { event: { type: "note", text }, label: `note “${text}”` };
  });
}

function openVoid() {
  openForm("Void this hand", "Void the hand", (body) => {
    body.append(h("label", { for: "void-reason" }, "Why"), h("textarea", { id: "void-reason", rows: 2, required: true }));
  }, () => {
    const reason = $("void-reason").value.trim();
    if (!reason) throw "Say why the hand is void.";
    return { event: { type: "hand_voided", reason }, label: `hand voided: “${reason}”` };
  });
}

function renderCommon() {
  const sends = app.offer.sends;
  const blocked = Boolean(app.conflict || app.refused);
  const last = app.queue[app.queue.length - 1];
  const cancellable = Boolean(last && !last.tried && last.key !== app.inflight);
  $("undo-button").disabled = blocked || sends === "nothing" || (!cancellable && (app.queue.length > 0 || !commonOf("retract")));
  $("undo-button").textContent = cancellable ? "Cancel last tap…" : "Undo…";
  $("claim-button").textContent = "Claim a score…";
  $("claim-button").disabled = blocked || sends === "nothing" || !commonOf("score_claimed");
  $("note-button").disabled = blocked || sends === "nothing";
  // a hand voided while taps wait could land on another hand: offered only at the head
  $("void-button").hidden = !commonOf("hand_voided") || app.queue.length > 0 || sends !== "events";
}

function renderQueue() {
  const list = $("queue");
  list.replaceChildren(...app.queue.map((item) => h("li", {
    class: item.key === app.inflight ? "inflight" : "", dataset: { key: item.key, seq: item.expected_seq + 1 },
  }, `${item.expected_seq + 1}. ${item.label}`)));
  $("queue-panel").hidden = app.queue.length === 0 || Boolean(app.conflict);
}

function renderScore() {
  const el = $("score");
  const totals = (app.state && app.state.totals) || (app.score && app.score.totals) || {};
  const u = units();
  const rows = Object.entries(totals).map(([seat, total]) => h("tr", {},
    h("th", { scope: "row" }, who(Number(seat), names())), h("td", {}, fieldText(u, "totals", total))));
  el.replaceChildren(h("table", { class: "score-totals" }, h("tbody", {}, rows)));
  const hands = (app.score && app.score.hands) || [];
  if (hands.length) el.append(h("p", { class: "help" }, `${hands.length} ${hands.length === 1 ? "hand" : "hands"} scored`));
}

/** One stored event in words: names, glyphs, the unit of each value; a retract and a violation said so. */
function envNodes(env) {
  const data = env.data || {};
  if (env.type === "retract") return [`Undo: takes back the events after ${data.to_seq}`, data.reason ? ` — “${data.reason}”` : ""];
  if (env.type === "score_claimed") {
    const pts = Object.entries(data.points || {}).map(([s, p]) => `${who(Number(s), names())} ${fieldText(units(), "points", p)}`);
    return [`Score claimed for hand ${data.hand}: ${pts.join(", ")}`];
  }
  if (env.type === "note") return [`Note: “${data.text}”`];
  const { violation, ...facts } = env.result || {};
  return storedWords({ type: env.type, ...data }, facts, names(), factUnits(facts));
}

/** A recorded claim, flagged where it disagrees with the rules' score (and said to agree where it does). */
function claimFlag(env) {
  if (env.type !== "score_claimed") return "";
  const verdict = claimCheck(env.data.hand, env.data.points || {});
  const cls = verdict.agrees === false ? "claim-flag disagrees" : verdict.agrees ? "claim-flag agrees" : "claim-flag open";
  return h("span", { class: cls }, verdict.agrees === false ? ` ⚠ ${verdict.text}` : ` (${verdict.text})`);
}

function renderRecord() {
  const list = $("record");
  const taken = new Set();
  for (const env of app.events) {
    if (env.type !== "retract") continue;
    for (const other of app.events) {
      if (other.seq > env.data.to_seq && other.seq < env.seq && !["note", "score_claimed", "retract"].includes(other.type)) {
        taken.add(other.seq);
      }
    }
  }
  const items = [...app.events].reverse().map((env) => {
    const violation = env.violation || (env.result && env.result.violation);
    return h("li", {
      class: `${taken.has(env.seq) ? "retracted" : ""}${env.type === "retract" ? " retract" : ""}${violation ? " violation" : ""}`,
      dataset: { seq: env.seq, type: env.type },
    },
    h("span", { class: "seq" }, `${env.seq}.`), " ", envNodes(env),
    taken.has(env.seq) ? h("span", { class: "taken" }, " (taken back)") : "",
    violation ? h("span", { class: "flag-rule" }, ` ⚠ against the rules: ${renderMarked(violation.reason || violation.message)}`) : "",
    violation ? ruleDetails(violation.rule) : "",
    claimFlag(env));
  });
  if (!items.length) items.push(h("li", { class: "empty" }, "Nothing recorded yet."));
  list.replaceChildren(...items);
}

// --------------------------------------------------------------------------- start

function wireButtons() {
  $("undo-button").onclick = openUndo;
  $("claim-button").onclick = openClaim;
  $("note-button").onclick = openNote;
  $("void-button").onclick = openVoid;
  $("forget-button").onclick = () => {
    sessionStorage.removeItem(KEY_STORE);
    window.location.reload();
  };
  $("key-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const key = $("key-input").value.trim();
    if (!key) return;
    sessionStorage.setItem(KEY_STORE, key);
    app.token = key;
    $("key-dialog").close();
    start();
  });
  window.addEventListener("online", () => {
    setOnline(true);
    if (app.queue.length) flush();
    else refresh();
  });
  window.addEventListener("offline", () => {
    setOnline(false);
    render();
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && app.gameId && !app.flushing) {
      if (app.queue.length) flush();
      else if (!app.conflict) refresh();
    }
  });
}

function registerWorker() {
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("/record/sw.js", { scope: "/record/" }).catch(() => {});
  }
}

async function start() {
  app.token = sessionStorage.getItem(KEY_STORE);
  if (!app.token) {
    askKey();
    return;
  }
  $("forget-button").hidden = false;
  const match = window.location.pathname.match(/^\/record\/([A-Za-z0-9_-]{1,32})$/);
  if (!match) {
    $("net").hidden = true;
    $("new-link").hidden = true;
    const { startNewGame } = await import("./newgame.js");
    startNewGame({ api, showAlert, ApiError, NetworkError, showProblem: (error) => {
      if (error.status === 401) {
        forgetKey(keyRefused(error));
        return;
      }
      showProblem($("alert"), problemOf(error, { what: "record", doing: "record" }), {
        retry: () => window.location.reload(), key: () => forgetKey(""),
      });
      $("alert").className = "alert-box";
    } });
    return;
  }
  app.gameId = match[1];
  app.queue = loadQueue();
  app.held = loadList(heldStore(app.gameId));
  if (!navigator.onLine) loadCache();
  render();
  await refresh();
  await flush();
}

wireButtons();
registerWorker();
start();
