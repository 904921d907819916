// Cards on the page, and events in card notation (the page's own rendering of
// projections/reading/notation.py: who did what, then the derived facts after an arrow).
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

// --------------------------------------------------------------------------- units

//: the units of games whose state document does not carry `units` yet (the rules' `GameRules.units`)
const FALLBACK_UNITS = {
  "seven-and-a-half": { total: "half", banker_total: "half", stake: "chips", amount: "chips", stakes: "chips",
    points: "chips", totals: "chips" },
  schnapsen: { totals: "to_go" },
};

/** The units of a game: the state's own `units` (the API's), over the known ones of its kind. */
export function unitsOf(state) {
  const known = (state && FALLBACK_UNITS[state.game]) || {};
  const given = state && state.units && typeof state.units === "object" ? state.units : {};
  return { ...known, ...given };
}

/** Half points as a player reads them: 7 is "3½", 15 is "7½", 1 is "½", -3 is "-1½". */
export function halves(value) {
  const sign = value < 0 ? "-" : "";
  const whole = Math.floor(Math.abs(value) / 2);
  if (Math.abs(value) % 2 === 0) return `${sign}${whole}`;
  return `${sign}${whole || ""}½`;
}

/**
 * One value in its unit: the page's one formatter of numbers (as `phrases.value_text` on the server).
 * `half` 3½, `chips` "5 chips", `to_go` "2 to go"; `signed` writes a gain with "+".
 */
export function valueText(unit, value, { signed = false } = {}) {
  if (Array.isArray(value)) return `[${value.map((v) => valueText(unit, v, { signed })).join(" ")}]`;
  if (typeof value !== "number" || !Number.isInteger(value)) return String(value);
  if (unit === "to_go") return `${Math.max(value, 0)} to go`;
  const sign = signed && value > 0 ? "+" : "";
  if (unit === "half") return sign + halves(value);
  if (unit === "chips") return `${sign}${value} ${Math.abs(value) === 1 ? "chip" : "chips"}`;
  return `${sign}${value}`;
}

/** The value of field `key` of a game with these `units`, in its unit. */
export const fieldText = (units, key, value, options) => valueText((units || {})[key] || "", value, options);

// --------------------------------------------------------------------------- text from the API

/**
 * The program's words in a sentence written for people, put in the players' words: "at seq 12" is
 * "at event 12", "seqs 3, 4" are "events 3, 4", a bare true or false goes ("credited false").
 */
export function plainWords(text) {
  return String(text)
    .replace(/\bseqs (\d)/g, "events $1")
    .replace(/\bseq (\d)/g, "event $1")
    .replace(/\b(seqs|seq)\b/g, (m) => (m === "seqs" ? "events" : "event"));
}

const GLYPHS = { "♣": "C", "♦": "D", "♥": "H", "♠": "S" };
const CARD_TEXT = /(10|[2-9AJQK])([♣♦♥♠])|([♣♦♥♠])/g;

/**
 * Text the API wrote for a person (an event's `text`, a score line's `reason`), with each card and suit
 * glyph in its colour; the actor's name (the text's first word when it is a player's) in bold.
 */
export function textNodes(text, names = []) {
  const out = [];
  let rest = plainWords(text);
  const actor = names.find((name) => name && (rest === name || rest.startsWith(`${name} `)));
  if (actor) {
    out.push(h("strong", {}, actor));
    rest = rest.slice(actor.length);
  }
  let last = 0;
  for (const match of rest.matchAll(CARD_TEXT)) {
    if (match.index > last) out.push(rest.slice(last, match.index));
    if (match[3]) out.push(inlineSuit(GLYPHS[match[3]]));
    else out.push(inlineCard((match[1] === "10" ? "T" : match[1]) + GLYPHS[match[2]]));
    last = match.index + match[0].length;
  }
  if (last < rest.length) out.push(rest.slice(last));
  return out;
}

// --------------------------------------------------------------------------- notation

const CARD_FIELDS = new Set(["card", "trump_card", "upcard", "discard", "cards", "hands", "table", "take", "onto",
  "melds", "trick", "deadwood_cards", "captured", "shown", "banker_shows"]);
const SEAT_FIELDS = new Set(["dealer", "to", "banker", "next_banker", "bidder", "scorer", "bank_taken_by",
  "first_to_speak", "turn", "leader", "winner", "trick_winner", "closed_by", "owner", "seat"]);
//: fields that list seats: "stakes due [Ben Carlo]", never "[3 1]"
const SEAT_LISTS = new Set(["stakes_due", "draws_due", "order", "to_act", "seats"]);
const SKIP_FACTS = new Set(["audit_notes", "totals", "better_melding", "next_roles", "game_counts"]);

export function who(seat, names) {
  return Number.isInteger(seat) && seat >= 0 && seat < names.length ? names[seat] : `seat ${seat}`;
}

const words = (key) => key.replaceAll("_", " ");

/**
 * A value in notation: cards as coloured cards, lists in brackets, seats and seat-keyed objects with
 * names, numbers in the unit of their field (`units`, see `valueText`).
 */
export function valueNodes(value, names, key = "", units = {}) {
  if (typeof value === "string") {
    if (value === HIDDEN || isCard(value)) return [inlineCard(value)];
    if (/^[CDHS]$/.test(value) && /suit|trump/.test(key)) return [inlineSuit(value)];
    return [value];
  }
  if (Array.isArray(value)) {
    if (SEAT_LISTS.has(key) && value.every((v) => Number.isInteger(v))) {
      return [value.length ? value.map((v) => who(v, names)).join(", ") : "none"];
    }
    const out = ["["];
    value.forEach((item, i) => {
      if (i) out.push(" ");
      out.push(...valueNodes(item, names, key, units));
    });
    out.push("]");
    return out;
  }
  if (value && typeof value === "object") {
    if ("card" in value && "seat" in value && Object.keys(value).length <= 3) {
      return [`${who(value.seat, names)} `, ...valueNodes(value.card, names)];
    }
    if ("card" in value && "meld" in value && Number.isInteger(value.meld)) {
      return [...valueNodes(value.card, names), ` on meld ${value.meld + 1}`];
    }
    const out = ["("];
    Object.entries(value).filter(([, v]) => v !== false && v !== null && v !== undefined).forEach(([k, v], i) => {
      if (i) out.push(", ");
      // a seat-keyed object ({"1": 90}) keeps the unit of its own field
      const seatKey = /^\d+$/.test(k);
      if (v === true) out.push(words(k));
      else out.push(`${seatKey ? who(Number(k), names) : words(k)} `, ...valueNodes(v, names, seatKey ? key : k, units));
    });
    out.push(")");
    return out;
  }
  if ((SEAT_FIELDS.has(key) || units[key] === "seat") && Number.isInteger(value)) return [who(value, names)];
  return [fieldText(units, key, value, { signed: key === "points" })];
}

/** One event in words and card notation: a list of nodes and strings; numbers in the game's `units`. */
export function describe(event, result, names, units = {}) {
  const out = [];
  const push = (...parts) => {
    if (out.length) out.push(" ");
    out.push(...parts);
  };
  if (event.type === "withheld") return ["(a live hand's event: shown once the hand is over)"];
  if ("seat" in event) push(h("strong", {}, who(event.seat, names)));
  push(words(event.type));
  for (const [key, value] of Object.entries(event)) {
    if (key === "type" || key === "seat") continue;
    if (key === "hands" && (Array.isArray(value) || (value && typeof value === "object"))) {
      Object.entries(value).forEach(([seat, cards]) => push(`${who(Number(seat), names)}: `, ...valueNodes(cards, names, key)));
    } else if (key === "card") push(...valueNodes(value, names, key));
    else if (key === "layoffs" && Array.isArray(value)) {
      push(...(value.length ? value.flatMap((x, i) => [i ? ", " : "", ...valueNodes(x, names, key)]) : ["nothing"]));
    } else if (key === "melds" && Array.isArray(value)) {
      if (value.length) push("melds ", ...value.flatMap((meld, i) => [i ? " " : "", ...valueNodes(meld, names, key)]));
    } else if (CARD_FIELDS.has(key)) push(`${words(key)} `, ...valueNodes(value, names, key));
    else if (value === true) push(words(key));
    else if (value === false || value === null) continue;
    else if (SEAT_FIELDS.has(key) && Number.isInteger(value)) push(`${words(key)} ${who(value, names)}`);
    else if (key === "text" || key === "reason") push(`“${value}”`);
    else if (key === "ref") push(`on event ${value}`);
    else if (key === "to_seq") push(`back to event ${value}`);
    else push(`${words(key)} `, ...valueNodes(value, names, key, units));
  }
  const facts = [];
  for (const [key, value] of Object.entries(result || {})) {
    if (SKIP_FACTS.has(key) || value === false || value === null) continue;
    if (key === "hand" && value === 0) continue; // the one hand of a seat that did not split
    if (facts.length) facts.push(", ");
    const label = words(key);
    if ((key.endsWith("winner") || SEAT_FIELDS.has(key)) && Number.isInteger(value)) facts.push(`${label} ${who(value, names)}`);
    else if (value === true) facts.push(label);
    else facts.push(`${label} `, ...valueNodes(value, names, key, units));
  }
  if (facts.length) out.push(h("span", { class: "facts" }, " → ", ...facts));
  return out;
}
