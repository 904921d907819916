// Cards on the page, and events in card notation (the page's own rendering of
// projections/notation.py: who did what, then the derived facts after an arrow).
// Everything is built with DOM nodes and textContent: names and notes are never parsed as HTML.

export const SUITS = {
  C: { symbol: "♣", name: "clubs", red: false },
  D: { symbol: "♦", name: "diamonds", red: true },
  H: { symbol: "♥", name: "hearts", red: true },
  S: { symbol: "♠", name: "spades", red: false },
};
const RANK_NAMES = {
  A: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
  8: "eight", 9: "nine", T: "ten", J: "jack", Q: "queen", K: "king",
};
export const HIDDEN = "??";
const CARD_RE = /^[A2-9TJQK][CDHS]$/;

/** An element: h("span", {class: "x", dataset: {a: 1}, onclick: f}, child, "text", [more]). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "dataset") {
      for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) el.dataset[k] = String(v);
    } else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  add(el, children);
  return el;
}

export function add(el, children) {
  for (const child of [children].flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

export const isCard = (value) => typeof value === "string" && CARD_RE.test(value);
export const rankText = (rank) => (rank === "T" ? "10" : rank);
export const suitSymbol = (suit) => (SUITS[suit] ? SUITS[suit].symbol : suit);
export const suitName = (suit) => (SUITS[suit] ? SUITS[suit].name : String(suit));

/** "queen of hearts" */
export function cardName(code) {
  if (!isCard(code)) return "face-down card";
  return `${RANK_NAMES[code[0]]} of ${SUITS[code[1]].name}`;
}

/** "Q♥" */
export function cardText(code) {
  return isCard(code) ? rankText(code[0]) + SUITS[code[1]].symbol : HIDDEN;
}

/** A playing card: rank and suit symbol, red or black; "??" (or anything not a card) is a card back. */
export function cardEl(code, options = {}) {
  const extra = options.class ? ` ${options.class}` : "";
  if (!isCard(code)) {
    return h("span", {
      class: `card back${extra}`, role: "img", "aria-label": options.label || "face-down card",
      title: options.label || "face-down card", dataset: { card: HIDDEN },
    });
  }
  const suit = SUITS[code[1]];
  const label = options.label ? `${cardName(code)}, ${options.label}` : cardName(code);
  return h(
    "span",
    { class: `card ${suit.red ? "red" : "black"}${extra}`, role: "img", "aria-label": label, title: label,
      dataset: { card: code } },
    h("span", { class: "rank", "aria-hidden": "true" }, rankText(code[0])),
    h("span", { class: "suit", "aria-hidden": "true" }, suit.symbol),
  );
}

/** A row of cards. */
export function cardRow(cards, options = {}) {
  const row = h("div", { class: `cards${options.class ? ` ${options.class}` : ""}` });
  if (options.label) row.setAttribute("aria-label", options.label);
  for (const card of cards || []) row.append(cardEl(card));
  if ((!cards || cards.length === 0) && options.empty) row.append(h("span", { class: "empty" }, options.empty));
  return row;
}

/** Face-down cards as a stack of backs with their count. */
export function backsEl(count, what = "face down") {
  const label = `${count} ${count === 1 ? "card" : "cards"} ${what}`;
  const el = h("span", { class: "backs", role: "img", "aria-label": label, title: count ? label : null, dataset: { count } });
  const shown = Math.min(count, 5);
  for (let i = 0; i < shown; i += 1) el.append(h("span", { class: "card back", "aria-hidden": "true" }));
  if (count === 0) {
    el.classList.add("none");
    el.setAttribute("aria-label", "no cards");
    el.append(h("span", { class: "empty", "aria-hidden": "true" }, "no cards"));
  } else {
    el.append(h("span", { class: "count", "aria-hidden": "true" }, `×${count}`));
  }
  return el;
}

/** A card inside a line of text: "Q♥" in its colour, read out as "queen of hearts". */
export function inlineCard(code) {
  if (!isCard(code)) {
    return h("span", { class: "pc hidden", role: "img", "aria-label": "hidden card", dataset: { card: HIDDEN } }, HIDDEN);
  }
  const suit = SUITS[code[1]];
  return h("span", { class: `pc ${suit.red ? "red" : "black"}`, role: "img", "aria-label": cardName(code),
    dataset: { card: code } }, cardText(code));
}

export function inlineSuit(suit) {
  if (!SUITS[suit]) return String(suit);
  return h("span", { class: `pc ${SUITS[suit].red ? "red" : "black"}`, role: "img", "aria-label": SUITS[suit].name },
    SUITS[suit].symbol);
}

// --------------------------------------------------------------------------- notation

const CARD_FIELDS = new Set(["card", "trump_card", "upcard", "discard", "cards", "hands", "table", "take", "onto",
  "melds", "trick", "deadwood_cards"]);
const SEAT_FIELDS = new Set(["dealer", "to", "banker", "next_banker", "bidder", "scorer", "bank_taken_by",
  "first_to_speak", "turn", "leader"]);
const SKIP_FACTS = new Set(["audit_notes", "totals", "better_melding", "next_roles", "game_counts"]);

export function who(seat, names) {
  return Number.isInteger(seat) && seat >= 0 && seat < names.length ? names[seat] : `seat ${seat}`;
}

/** A value in notation: cards as coloured cards, lists in brackets, seat-keyed objects with names. */
export function valueNodes(value, names, key = "") {
  if (typeof value === "string") {
    if (value === HIDDEN || isCard(value)) return [inlineCard(value)];
    if (/^[CDHS]$/.test(value) && /suit|trump/.test(key)) return [inlineSuit(value)];
    return [value];
  }
  if (Array.isArray(value)) {
    const out = ["["];
    value.forEach((item, i) => {
      if (i) out.push(" ");
      out.push(...valueNodes(item, names, key));
    });
    out.push("]");
    return out;
  }
  if (value && typeof value === "object") {
    if ("card" in value && Object.keys(value).length <= 2 && "seat" in value) {
      return [`${who(value.seat, names)} `, ...valueNodes(value.card, names)];
    }
    const out = ["{"];
    Object.entries(value).forEach(([k, v], i) => {
      if (i) out.push(", ");
      const label = /^\d+$/.test(k) ? who(Number(k), names) : k;
      out.push(`${label}: `, ...valueNodes(v, names, k));
    });
    out.push("}");
    return out;
  }
  if (SEAT_FIELDS.has(key) && Number.isInteger(value)) return [who(value, names)];
  return [String(value)];
}

/** One event in words and card notation: a list of nodes and strings. */
export function describe(event, result, names) {
  const words = [];
  const push = (...parts) => {
    if (words.length) words.push(" ");
    words.push(...parts);
  };
  if (event.type === "withheld") return ["(a live hand's event: shown once the hand is over)"];
  if ("seat" in event) push(h("strong", {}, who(event.seat, names)));
  push(event.type.replaceAll("_", " "));
  for (const [key, value] of Object.entries(event)) {
    if (key === "type" || key === "seat") continue;
    if (key === "hands" && Array.isArray(value)) {
      value.forEach((cards, seat) => push(`${who(seat, names)}: `, ...valueNodes(cards, names, key)));
    } else if (key === "card") push(...valueNodes(value, names, key));
    else if (CARD_FIELDS.has(key)) push(`${key} `, ...valueNodes(value, names, key));
    else if (value === true) push(key.replaceAll("_", " "));
    else if (value === false || value === null) continue;
    else if (SEAT_FIELDS.has(key) && Number.isInteger(value)) push(`${key} ${who(value, names)}`);
    else if (key === "text" || key === "reason") push(`“${value}”`);
    else push(`${key.replaceAll("_", " ")} `, ...valueNodes(value, names, key));
  }
  const facts = [];
  for (const [key, value] of Object.entries(result || {})) {
    if (SKIP_FACTS.has(key) || value === false || value === null) continue;
    if (facts.length) facts.push(", ");
    const label = key.replaceAll("_", " ");
    if ((key.endsWith("winner") || SEAT_FIELDS.has(key)) && Number.isInteger(value)) facts.push(`${label} ${who(value, names)}`);
    else if (value === true) facts.push(label);
    else facts.push(`${label} `, ...valueNodes(value, names, key));
  }
  if (facts.length) words.push(h("span", { class: "facts" }, " → ", ...facts));
  return words;
}
