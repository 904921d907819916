// The table: seats around it and the game's own middle, drawn from a state document of the API
// (`GET /v1/games/{id}/state`, replay frames). Each game's `table` fields and `phase` values are
// listed in its module docstring (projections/<game>); anything a game adds that is not drawn here
// is shown under "more" as text, so nothing the API sends is silently lost.

import {
  add, backsEl, cardEl, cardRow, fieldText, h, inlineCard, inlineSuit, isCard, suitName, unitsOf, who,
} from "./cards.js";

export const TITLES = {
  schnapsen: "Schnapsen",
  casino: "Casino",
  "gin-rummy-3": "Gin Rummy for three",
  "seven-and-a-half": "Seven and a Half",
  "cutthroat-smear": "Cutthroat Smear",
};

// Grid areas of a 3×3 table, clockwise from the viewer's seat at the bottom
// (seat order is clockwise: the next seat sits to the left).
const PLACES = {
  1: ["b"],
  2: ["b", "t"],
  3: ["b", "tl", "tr"],
  4: ["b", "l", "t", "r"],
  5: ["b", "bl", "tl", "tr", "br"],
  6: ["b", "bl", "tl", "t", "tr", "br"],
  7: ["b", "bl", "l", "tl", "tr", "r", "br"],
  8: ["b", "bl", "l", "tl", "t", "tr", "r", "br"],
};

const PHASES = {
  deal: "a deal is due", lead: "to lead", follow: "to follow", draw: "to draw", over: "the game is over",
  play: "play", cut: "the cut is due", offer: "the upcard is offered", discard: "discard or knock",
  lay_off: "laying off", between: "between hands", stakes: "stakes are due", banker: "the banker's turn",
  bid: "bidding",
};

const seatNames = (state) => state.seats.map((s) => s.name || `seat ${s.seat}`);
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function kv(label, ...value) {
  return h("div", { class: "kv" }, h("span", { class: "k" }, label), " ", h("span", { class: "v" }, ...value));
}

function labelled(label, content, cls = "") {
  return h("div", { class: `group ${cls}`.trim() }, h("div", { class: "group-label" }, label), content);
}

/** A trick: each card with its player's name under it, in the order played. */
function trickEl(trick, names, label = "Trick") {
  const row = h("div", { class: "trick", role: "group", "aria-label": label });
  for (const play of trick) {
    row.append(h("figure", { class: "played" }, cardEl(play.card, { label: `played by ${who(play.seat, names)}` }),
      h("figcaption", {}, who(play.seat, names))));
  }
  if (!trick.length) row.append(h("span", { class: "empty" }, "no card played yet"));
  return labelled(label, row, "trick-group");
}

/**
 * Who played each card of a finished trick: the trick's own `{seat, card}` plays when the state has
 * them, else the `play` events of the hand so far (`plays`: card -> seat, from the replay's frames).
 */
function lastTrickEl(cards, winner, names, plays, label, extra = "") {
  const trick = (cards || []).map((c) => (c && typeof c === "object" ? c : { card: c, seat: plays ? plays.get(c) : undefined }));
  const row = h("div", { class: "trick last-trick", role: "group", "aria-label": label });
  for (const play of trick) {
    const by = play.seat === undefined ? "" : who(play.seat, names);
    const won = play.seat !== undefined && play.seat === winner;
    row.append(h("figure", { class: `played${won ? " winner" : ""}` },
      cardEl(play.card, { class: "small", label: by ? `played by ${by}` : "" }),
      h("figcaption", {}, by || "?", won ? " ✓" : "")));
  }
  row.append(h("span", { class: "trick-won" }, `won by ${who(winner, names)}${extra}`));
  return labelled(label, row, "trick-group");
}

function wonPile(cards, label) {
  if (!cards || !cards.length) return null;
  return h("details", { class: "won" }, h("summary", {}, `${label} (${cards.length})`), cardRow(cards, { class: "small" }));
}

// --------------------------------------------------------------------------- the games

/** The score sheet's hands that were over at this state (a frame shows the table as it was then). */
export function handsOver(state, score) {
  if (!score || !Array.isArray(score.hands)) return [];
  const over = ["deal", "over", "between"].includes(state.phase);
  return score.hands.filter((hs) => hs.hand < state.hand || (hs.hand === state.hand && over));
}

const schnapsen = {
  phases: { draw: "draws are due" },
  /** Schnapsen's totals are game points still to go: "5 to go", with the game points each hand won beside. */
  points(seat, state, options) {
    const units = unitsOf(state);
    const total = state.totals ? state.totals[String(seat.seat)] : undefined;
    const won = handsOver(state, options.score).map((hs) => hs.points[String(seat.seat)] ?? 0);
    return [total !== undefined ? h("strong", { class: "to-go" }, fieldText({ totals: "to_go", ...units }, "totals", total)) : "",
      won.length ? h("span", { class: "won-by-hand" }, ` · won ${won.map((p) => fieldText(units, "points", p, { signed: true })).join(", ")}`) : ""];
  },
  badges(seat, state) {
    return [seat.dealer ? "dealer" : null, state.table.leader === seat.seat && state.phase !== "deal" ? "leads" : null];
  },
  seatExtra(seat) {
    const facts = h("div", { class: "facts-line" },
      `${plural(seat.tricks, "trick")} · ${seat.trick_points} card points in tricks`,
      seat.pending ? ` · ${seat.pending} pending (marriage)` : "");
    return [facts, wonPile(seat.won, "Won cards")];
  },
  center(state, names, options = {}) {
    const t = state.table;
    const talon = h("div", { class: "talon" });
    if (t.trump_card) {
      const caption = t.trump_face_up ? "trump card" : `closed by ${who(t.closed_by, names)}`;
      talon.append(h("figure", { class: `trump-card${t.trump_face_up ? "" : " closed"}` },
        cardEl(t.trump_card, { label: caption }), h("figcaption", {}, caption)));
    }
    const stack = Math.max(0, t.talon - (t.trump_card ? 1 : 0));
    talon.append(h("figure", { class: "stack" }, backsEl(stack, "in the talon"),
      h("figcaption", {}, `talon ${t.talon}`)));
    const parts = [
      h("div", { class: "row" }, labelled("Trump", h("span", { class: "big-suit" }, t.trump_suit
        ? [inlineSuit(t.trump_suit), " ", suitName(t.trump_suit)] : "not dealt yet")), labelled("Talon", talon)),
      t.closed_by !== null && t.closed_by !== undefined && !t.trump_card
        ? h("p", { class: "note" }, `talon closed by ${who(t.closed_by, names)}`) : null,
      trickEl(t.trick, names),
    ];
    if (t.draws_due && t.draws_due.length) {
      parts.push(kv("Draws due", t.draws_due.map((s) => who(s, names)).join(", ")));
    }
    if (t.marriages && t.marriages.length) {
      parts.push(labelled("Marriages", h("ul", { class: "plain" }, t.marriages.map((m) => h("li", {},
        `${who(m.seat, names)}: `, inlineSuit(m.suit), ` ${m.points}`,
        m.credited ? " (counted)" : ` (counts once ${who(m.seat, names)} wins a trick)`)))));
    }
    if (t.last_trick) {
      parts.push(lastTrickEl(t.last_trick.plays || t.last_trick.cards, t.last_trick.winner, names, options.plays,
        "Last trick", `, ${t.last_trick.points} card points`));
    }
    // the strict rules of a closed or used-up talon: follow suit and head the trick (say so only then)
    if (t.strict && ["lead", "follow"].includes(state.phase) && (t.closed_by !== null && t.closed_by !== undefined || t.talon === 0)) {
      parts.push(h("p", { class: "note" }, `${t.closed_by !== null && t.closed_by !== undefined ? "The talon is closed" : "The talon is used up"}: follow suit, and take the trick if you can`));
    }
    return parts;
  },
  shown: new Set(["dealer", "leader", "trump_suit", "trump_card", "trump_face_up", "talon", "closed_by", "trick",
    "draws_due", "marriages", "last_trick", "strict"]),
};

//: card values of a Casino build (an ace is 1; a face card builds only with its own rank)
const CASINO_VALUES = { A: 1, T: 10, J: 11, Q: 12, K: 13 };
const casinoValue = (code) => CASINO_VALUES[code[0]] || Number(code[0]);

/**
 * The groups of a build: the state's `groups` when it gives them, else the cards split into groups of
 * the build's value (a multiple build of 10 from 6♦ 4♦ 3♠ 7♦ 10♥ is 6♦+4♦ · 3♠+7♦ · 10♥).
 */
export function buildGroups(build) {
  if (Array.isArray(build.groups) && build.groups.length) return build.groups;
  const cards = (build.cards || []).filter(isCard);
  if (!build.multiple || cards.length !== (build.cards || []).length) return [build.cards || []];
  const target = build.value;
  const left = [...cards].sort((x, y) => casinoValue(y) - casinoValue(x));
  const groups = [];
  // each group: the largest card left, then cards that make up the value (a small exhaustive search)
  const pick = (rest, need, start) => {
    if (need === 0) return [];
    for (let i = start; i < rest.length; i += 1) {
      const v = casinoValue(rest[i]);
      if (v > need) continue;
      const more = pick(rest, need - v, i + 1);
      if (more) return [i, ...more];
    }
    return null;
  };
  while (left.length) {
    const first = left.shift();
    const more = pick(left, target - casinoValue(first), 0);
    if (!more) return [build.cards];
    const group = [first, ...more.map((i) => left[i])];
    for (const i of [...more].sort((x, y) => y - x)) left.splice(i, 1);
    groups.push(group);
  }
  return groups;
}

const casino = {
  badges(seat) {
    return [seat.dealer ? "dealer" : null];
  },
  seatExtra(seat) {
    return [
      h("div", { class: "facts-line" }, `captured ${seat.captured_count} · spades ${seat.spades}`,
        seat.builds && seat.builds.length ? ` · owns build ${seat.builds.join(", ")}` : ""),
      wonPile(seat.captured, "Captured"),
    ];
  },
  center(state, names) {
    const t = state.table;
    const dealText = t.deal > 0
      ? `deal ${t.deal} of ${t.deals}${t.last_deal ? " (the last)" : ""}`
      : `a new round: ${t.deals} deals`;
    const parts = [
      h("div", { class: "row" },
        labelled("Stock", h("figure", { class: "stack" }, backsEl(t.stock, "in the stock"),
          h("figcaption", {}, dealText))),
        kv("Target", String(t.target)), t.sweeps_score ? kv("Sweeps", "score 1") : null),
      labelled("Loose cards", cardRow(t.loose, { empty: "none", label: "loose cards" }), "loose"),
    ];
    const builds = h("div", { class: "builds" });
    for (const b of t.builds) {
      const groups = buildGroups(b);
      const owner = who(b.owner, names);
      const head = `${b.multiple ? "multiple build" : "build"} of ${b.value} · ${owner}'s`;
      const groupRows = h("div", { class: "build-groups" }, groups.map((group, i) => [
        i ? h("span", { class: "group-sep", "aria-hidden": "true" }, "+") : null,
        h("div", { class: "build-group", role: "group", "aria-label": `group ${i + 1} of ${groups.length}`,
          dataset: { group: i + 1 } }, cardRow(group, { class: "small" })),
      ]));
      builds.append(h("section", {
        class: `build${b.multiple ? " multiple" : ""}`,
        dataset: { build: b.id, owner: b.owner, groups: groups.length },
        "aria-label": `${head}, ${groups.length} ${groups.length === 1 ? "group" : "groups"} (${b.id})`,
      }, h("div", { class: "build-head" }, h("strong", {}, owner), ` · ${b.multiple ? "multiple " : ""}build of ${b.value}`,
        h("span", { class: "build-id" }, ` (build ${String(b.id).replace(/^b/, "")})`)), groupRows));
    }
    if (!t.builds.length) builds.append(h("span", { class: "empty" }, "none"));
    parts.push(labelled("Builds", builds));
    if (t.last_capture) {
      const c = t.last_capture;
      parts.push(kv("Last capture", `${who(c.seat, names)}`,
        isCard(c.card) ? [" with ", inlineCard(c.card)] : "",
        Array.isArray(c.took) && c.took.length ? [" took ", c.took.map((x, i) => [i ? " " : "", inlineCard(x)])] : "",
        Number.isInteger(c.seq) ? ` (event ${c.seq})` : ""));
    }
    if (t.rest) {
      parts.push(labelled(t.rest.seat === null ? "Left on the table (to nobody)" : `Left on the table, to ${who(t.rest.seat, names)}`,
        cardRow(t.rest.cards, { class: "small" })));
    }
    return parts;
  },
  shown: new Set(["dealer", "deal", "deals", "last_deal", "stock", "loose", "builds", "last_capture", "rest", "target",
    "sweeps_score"]),
};

const RANK_ORDER = "A23456789TJQK";

/** "set" or "run": a meld of one rank is a set. */
function meldKind(meld) {
  const ranks = new Set(meld.filter(isCard).map((c) => c[0]));
  return ranks.size === 1 ? "set" : "run";
}

/**
 * Melds, one row each (a set and a run are two melds, never one row), numbered as lay-offs name them
 * (`meld` 0 is "meld 1"). `laid`: card -> who laid it off, drawn on the meld it joined.
 */
function meldsEl(melds, { laid = null, label = "melds" } = {}) {
  const box = h("div", { class: "melds", role: "list", "aria-label": label });
  melds.forEach((meld, i) => {
    const row = h("div", { class: "cards small meld-cards" });
    const ordered = [...meld].sort((x, y) => RANK_ORDER.indexOf(x[0]) - RANK_ORDER.indexOf(y[0]));
    for (const card of meldKind(meld) === "run" ? ordered : meld) {
      const by = laid ? laid.get(card) : undefined;
      row.append(cardEl(card, { class: by !== undefined ? "laid-off" : "", label: by !== undefined ? `laid off by ${by}` : "" }));
    }
    const laidHere = laid ? meld.filter((c) => laid.has(c)) : [];
    box.append(h("div", { class: "meld", role: "listitem", dataset: { meld: i + 1 } },
      h("span", { class: "meld-label" }, `meld ${i + 1} · ${meldKind(meld)}`), row,
      laidHere.length ? h("span", { class: "meld-note" }, `laid off: ${laidHere.map((c) => `${laid.get(c)}`).filter((v, k, a) => a.indexOf(v) === k).join(", ")}`) : null));
  });
  if (!melds.length) box.append(h("span", { class: "empty" }, "no meld"));
  return box;
}

const gin = {
  badges(seat) {
    return [seat.role || null];
  },
  seatExtra() {
    return [];
  },
  center(state, names) {
    const t = state.table;
    const parts = [];
    if (t.cut) {
      const cut = h("div", { class: "row" });
      for (const [seat, card] of Object.entries(t.cut)) {
        cut.append(h("figure", { class: "played" }, cardEl(card, { label: `cut by ${who(Number(seat), names)}` }),
          h("figcaption", {}, who(Number(seat), names))));
      }
      parts.push(labelled("The cut", cut));
    }
    // the pile fanned bottom to top, every card's rank and suit readable; the top card last, marked
    const pile = h("div", { class: "pile", role: "group", "aria-label": `discard pile of ${t.pile.length}, bottom to top` });
    t.pile.forEach((card, i) => pile.append(cardEl(card, {
      class: i === t.pile.length - 1 ? "pile-top" : "pile-under", label: i === t.pile.length - 1 ? "top of the pile" : "",
    })));
    if (!t.pile.length) pile.append(h("span", { class: "empty" }, "empty"));
    parts.push(h("div", { class: "row" },
      labelled("Stock", h("figure", { class: "stack" }, backsEl(t.stock, "in the stock"),
        h("figcaption", {}, `stock ${t.stock}`)))));
    parts.push(labelled(`Discard pile (${t.pile.length}, top last)`, pile, "pile-group"));
    if (t.box === null || t.box === undefined) {
      parts.push(labelled("Roles", h("span", { class: "roles" }, "drawn by the cut")));
    } else {
      const roles = h("div", { class: "roles" }, ["box", "captain", "sitter"].map((role) =>
        h("span", { class: "role", dataset: { role, seat: t[role] } }, `${role} `, h("strong", {}, who(t[role], names)))));
      parts.push(labelled("Roles", roles));
    }
    if (state.phase === "offer") parts.push(kv("Upcard offer", `${plural(t.passes, "pass", "passes")} so far`));
    if (t.stock_only) parts.push(h("p", { class: "note" }, "the captain must draw from the stock"));
    const layout = t.layout;
    if (t.knock) {
      const k = t.knock;
      // lay-offs are drawn on the knocker's meld they join (`extended`: the melds with them)
      const laid = new Map();
      if (layout && Array.isArray(layout.layoffs)) {
        for (const x of layout.layoffs) laid.set(x.card, who(layout.seat, names));
      }
      const melds = layout && Array.isArray(layout.extended) && layout.extended.length === k.melds.length ? layout.extended : k.melds;
      parts.push(labelled(`${k.gin ? "Gin" : "Knock"} by ${who(k.seat, names)} (event ${k.seq})`, h("div", {},
        meldsEl(melds, { laid, label: `${who(k.seat, names)}'s melds` }),
        h("div", { class: "row small-row" }, "deadwood ", cardRow(k.deadwood || [], { class: "small", empty: "none" }),
          ` count ${k.count} · discard `, inlineCard(k.discard))), "knock"));
    }
    if (layout) {
      const offs = layout.layoffs || [];
      parts.push(labelled(`${who(layout.seat, names)} lays out (event ${layout.seq})`, h("div", {},
        meldsEl(layout.melds, { label: `${who(layout.seat, names)}'s melds` }),
        h("div", { class: "row small-row" }, offs.length
          ? ["lay-offs: ", offs.map((x, i) => [i ? ", " : "", inlineCard(x.card), ` on meld ${x.meld + 1}`])]
          : "no lay-off"),
        h("div", { class: "row small-row" }, "deadwood ", cardRow(layout.deadwood || [], { class: "small", empty: "none" }),
          ` count ${layout.count}`)), "layout"));
    }
    if (t.last_hand) {
      const pts = Object.entries(t.last_hand.points).map(([s, p]) => `${who(Number(s), names)} ${p}`).join(", ");
      parts.push(kv(`Hand ${t.last_hand.hand}`, pts));
    }
    return parts;
  },
  shown: new Set(["box", "captain", "sitter", "cut", "pile", "pile_top", "stock", "passes", "stock_only", "knock",
    "layout", "last_hand"]),
};

const STATUS = {
  open: "playing", stood: "stands", bust: "bust", seven_and_a_half: "seven and a half", pair_of_sevens: "pair of sevens",
};

const sevenAndAHalf = {
  badges(seat, state) {
    return [seat.banker ? "banker" : null, state.table.next_banker === seat.seat && !seat.banker ? "next bank" : null];
  },
  hand(seat, state) {
    const units = unitsOf(state);
    const el = h("div", { class: "hand", "aria-label": `${seat.name}'s cards` });
    if (!seat.hands || !seat.hands.length) {
      el.append(h("span", { class: "empty" }, "no cards"));
      return el;
    }
    for (const sub of seat.hands) {
      const total = sub.total === null || sub.total === undefined ? null : fieldText(units, "total", sub.total);
      const facts = [
        sub.stake !== null && sub.stake !== undefined ? `stake ${fieldText(units, "stake", sub.stake)}` : null,
        STATUS[sub.status] || sub.status,
      ].filter(Boolean);
      el.append(h("div", { class: `subhand status-${sub.status}`, dataset: { total: sub.total } }, cardRow(sub.cards),
        h("div", { class: "subhand-facts" }, seat.hands.length > 1 ? `hand ${sub.hand + 1}: ` : "",
          total !== null ? ["total ", h("strong", { class: "total" }, total), facts.length ? " · " : ""] : "",
          facts.join(" · "))));
    }
    return el;
  },
  seatExtra() {
    return [];
  },
  center(state, names) {
    const t = state.table;
    const units = unitsOf(state);
    const stakes = Object.entries(t.stakes || {});
    const pot = stakes.reduce((sum, [, v]) => sum + v, 0);
    const parts = [
      h("div", { class: "row" },
        labelled("Bank", h("div", { class: "bank" }, h("strong", {}, who(t.banker, names)),
          t.next_banker !== t.banker ? ` · next: ${who(t.next_banker, names)}` : "",
          t.bank_taken_by !== null && t.bank_taken_by !== undefined ? ` · taken by ${who(t.bank_taken_by, names)} with 7½` : "")),
        labelled("Turn", h("div", {}, t.turn === null || t.turn === undefined ? "nobody" : who(t.turn, names)))),
      labelled(`Stakes (${fieldText(units, "stake", pot)} in all)`, stakes.length
        ? h("ul", { class: "plain stakes" }, stakes.map(([s, v]) => h("li", {}, `${who(Number(s), names)}: `,
          h("strong", {}, fieldText(units, "stake", v)))))
        : h("span", { class: "empty" }, "none yet")),
      kv("Playing order", (t.order || []).map((s) => who(s, names)).join(" → ") + ` → ${who(t.banker, names)} (bank)`),
      kv("Limits", `${fieldText(units, "stake", t.min_bet)} to ${fieldText(units, "stake", t.max_bet)}`),
      kv("Banker's card", t.banker_card_shown ? "shown" : "face down"),
    ];
    const variants = Object.entries(t.variants || {}).filter(([, on]) => on).map(([k]) => k.replaceAll("_", " "));
    if (variants.length) parts.push(kv("Variants", variants.join(", ")));
    return parts;
  },
  shown: new Set(["banker", "next_banker", "order", "turn", "stakes", "banker_card_shown", "bank_taken_by", "min_bet",
    "max_bet", "variants"]),
};

const smear = {
  badges(seat, state) {
    return [seat.dealer ? "dealer" : null, state.table.bidder === seat.seat ? "bidder" : null];
  },
  seatExtra(seat) {
    const bid = seat.bid === null || seat.bid === undefined ? "not bid yet" : seat.bid === "pass" ? "passed" : `bid ${seat.bid}`;
    return [h("div", { class: "facts-line" }, `${bid} · ${plural(seat.tricks, "trick")} · game ${seat.game}`),
      wonPile(seat.won, "Won cards")];
  },
  center(state, names, options = {}) {
    const t = state.table;
    const bids = h("ol", { class: "plain bids" }, t.bids.map((b) => h("li", {}, `${who(b.seat, names)}: `,
      b.amount === null ? "pass" : h("strong", {}, String(b.amount)))));
    if (!t.bids.length) bids.append(h("li", { class: "empty" }, "no bids yet"));
    const parts = [
      h("div", { class: "row" },
        labelled("Bid", h("div", {}, t.bidder === null || t.bidder === undefined
          ? (t.high_bid ? `high bid ${t.high_bid}` : "none")
          : [h("strong", {}, who(t.bidder, names)), ` bids ${t.high_bid}`])),
        labelled("Trump", h("span", { class: "big-suit" }, t.trump ? [inlineSuit(t.trump), " ", suitName(t.trump)] : "not led yet")),
        labelled("Bids", bids)),
      trickEl(t.trick, names),
      kv("Tricks played", String(t.tricks_played)),
    ];
    if (t.last_trick) {
      parts.push(lastTrickEl(t.last_trick.cards, t.last_trick.winner, names, options.plays,
        `Last trick (${t.last_trick.number})`));
    }
    return parts;
  },
  shown: new Set(["dealer", "bids", "high_bid", "bidder", "trump", "leader", "trick", "tricks_played", "last_trick"]),
};

const generic = {
  badges: () => [],
  seatExtra: () => [],
  center: () => [],
  shown: new Set(),
};

const GAMES = {
  schnapsen, casino, "gin-rummy-3": gin, "seven-and-a-half": sevenAndAHalf, "cutthroat-smear": smear,
};

// --------------------------------------------------------------------------- seats and the whole table

function handEl(seat) {
  const el = h("div", { class: "hand", "aria-label": `${seat.name || `seat ${seat.seat}`}'s cards` });
  if (Array.isArray(seat.cards)) {
    if (seat.cards.length) el.append(cardRow(seat.cards));
    else el.append(h("span", { class: "empty" }, "no cards"));
  } else if (typeof seat.card_count === "number") {
    el.append(backsEl(seat.card_count, "face down"));
  }
  return el;
}

/** "hand +3 · total 12", each in the game's unit (7½: chips). */
function pointsText(seat, state) {
  const units = unitsOf(state);
  const handPts = state.hand_points ? state.hand_points[String(seat.seat)] : undefined;
  const total = state.totals ? state.totals[String(seat.seat)] : undefined;
  return [handPts !== undefined ? `hand ${fieldText(units, "points", handPts, { signed: true })}` : "",
    total !== undefined ? `${handPts !== undefined ? " · " : ""}total ${fieldText(units, "totals", total)}` : ""];
}

function seatEl(seat, state, place, game, options) {
  const names = seatNames(state);
  const toAct = state.to_act.includes(seat.seat);
  const badges = game.badges(seat, state).filter(Boolean);
  if (toAct) badges.push(state.phase === "over" ? null : "to act");
  if (state.winner === seat.seat) badges.push("winner");
  const points = game.points ? game.points(seat, state, options) : pointsText(seat, state);
  const el = h("section", {
    class: `seat pos-${place}${toAct ? " to-act" : ""}`,
    dataset: { seat: seat.seat },
    "aria-label": `${names[seat.seat]}${toAct ? ", to act" : ""}`,
  },
  h("header", { class: "seat-head" },
    h("span", { class: "name" }, names[seat.seat]),
    h("span", { class: "badges" }, badges.filter(Boolean).map((b) => h("span", { class: `badge badge-${b.replaceAll(" ", "-")}` }, b))),
    h("span", { class: "points" }, points)),
  game.hand ? game.hand(seat, state, options) : handEl(seat),
  h("div", { class: "seat-extra" }, game.seatExtra(seat, state, options)));
  return el;
}

function moreEl(table, shown, names) {
  const rest = Object.entries(table).filter(([k]) => !shown.has(k));
  if (!rest.length) return null;
  return h("details", { class: "more" }, h("summary", {}, "details"),
    h("dl", {}, rest.map(([k, v]) => [h("dt", {}, k.replaceAll("_", " ")), h("dd", {}, describeValue(v, names))])));
}

function describeValue(value, names) {
  if (isCard(value)) return inlineCard(value);
  if (Array.isArray(value)) return value.map((v, i) => [i ? " " : "", describeValue(v, names)]);
  if (value && typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** The whole table for a state document, seen from `bottom` (the seat drawn at the bottom). */
export function renderTable(container, state, options = {}) {
  const game = GAMES[state.game] || generic;
  const names = seatNames(state);
  const n = state.seats.length;
  const bottom = Number.isInteger(options.bottom) && options.bottom < n ? options.bottom : 0;
  const places = PLACES[n] || PLACES[8];
  container.replaceChildren();
  container.className = `table game-${state.game} seats-${n}`;
  Object.assign(container.dataset, {
    seq: state.seq, hand: state.hand, phase: state.phase, viewpoint: state.viewpoint, toAct: state.to_act.join(","),
  });
  for (let i = 0; i < n; i += 1) {
    const seatNo = (bottom + i) % n;
    container.append(seatEl(state.seats[seatNo], state, places[i], game, options));
  }
  const toAct = state.to_act.map((s) => who(s, names));
  const phase = (game.phases && game.phases[state.phase]) || PHASES[state.phase] || state.phase;
  const status = h("p", { class: "status" },
    h("span", { class: "phase" }, phase),
    toAct.length && state.phase !== "over" ? [" · ", h("span", { class: "turn" }, `to act: ${toAct.join(", ")}`)] : "",
    state.finished && state.winner !== null && state.winner !== undefined ? ` · winner: ${who(state.winner, names)}` : "");
  const center = h("section", { class: "center", "aria-label": "the table" }, status);
  add(center, game.center(state, names, options));
  add(center, moreEl(state.table, game.shown, names));
  container.append(center);
}
