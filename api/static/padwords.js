// The table pad's words for what may be tapped: each kind of event as a player says it ("take 4♣ from the
// discard pile", "Gin, discarding 5♥", "declare the marriage with K♥"), never as its fields ("draw source
// discard 4♣"). What is not known here falls back on `describe` (cards.js). Also Gin's deadwood, which a
// knock button shows, and the words of a reveal's variants ("from the stock", "face down").

import { describe, h, inlineCard, isCard, who } from "./cards.js";

//: a Gin card's deadwood value: an ace 1, a face card 10
export const ginValue = (card) => ({ A: 1, T: 10, J: 10, Q: 10, K: 10 }[card[0]] || Number(card[0]));

/** A knock's deadwood: the cards of `hand` in no meld of it and not discarded, and their count. */
export function deadwoodOf(knock, hand) {
  if (!Array.isArray(hand)) return null;
  const melded = new Set((knock.melds || []).flat());
  const cards = hand.filter((c) => c !== knock.discard && !melded.has(c));
  return { cards, count: cards.reduce((sum, c) => sum + ginValue(c), 0) };
}

const cardsNodes = (cards) => cards.flatMap((c, i) => [i ? " " : "", inlineCard(c)]);
const meldsNodes = (melds) => melds.flatMap((meld, i) => [i ? " · " : "", ...cardsNodes(meld)]);

/**
 * What a button says for `event` (its actor left out: the group's heading names them). `hand` is the
 * actor's cards as the scorer sees them (a knock's deadwood is counted from it), `names` the players.
 */
export function eventWords(event, { hand = null, names = [], units = {} } = {}) {
  const e = event;
  switch (e.type) {
    case "play":
      if (e.marriage) return ["declare the marriage with ", inlineCard(e.card)];
      break;
    case "draw":
      if (e.source === "discard") return ["take ", isCard(e.card) ? inlineCard(e.card) : "the top card", " from the discard pile"];
      if (e.source === "stock") return ["draw from the stock", isCard(e.card) ? [": ", inlineCard(e.card)] : ""];
      break;
    case "pass":
      return ["pass"];
    case "close":
      return ["close the talon"];
    case "exchange_trump":
      return ["exchange the trump jack for the trump card"];
    case "stand":
      return ["stand"];
    case "session_closed":
      return ["close the session"];
    case "knock": {
      const dead = deadwoodOf(e, hand);
      const melds = e.melds && e.melds.length ? [h("span", { class: "knock-melds" }, "melds ", ...meldsNodes(e.melds))] : [];
      if (dead && dead.cards.length === 0) {
        return [h("strong", { class: "knock-gin" }, "Gin"), ", discarding ", inlineCard(e.discard), " ", ...melds];
      }
      const count = dead ? [h("strong", { class: "knock-count" }, `Knock with ${dead.count}`), " (deadwood ", ...cardsNodes(dead.cards), ")"]
        : [h("strong", {}, "Knock")];
      return [...count, ", discarding ", inlineCard(e.discard), " ", ...melds];
    }
    case "lay_off": {
      const offs = e.layoffs || [];
      const laid = offs.length
        ? ["lay off ", ...offs.flatMap((x, i) => [i ? ", " : "", inlineCard(x.card), ` on meld ${x.meld + 1}`])]
        : ["no lay-off"];
      const melds = e.melds && e.melds.length ? ["; melds ", ...meldsNodes(e.melds)] : ["; no meld"];
      return [...laid, ...melds];
    }
    case "retract":
      return [`undo back to event ${e.to_seq}`];
    default:
      break;
  }
  const { seat, ...rest } = e;
  if (Number.isInteger(e.dealer)) {
    const { dealer, type, ...more } = rest;
    return [h("strong", {}, who(dealer, names)), " deals:", ...describe({ type: "", ...more }, null, names, units)];
  }
  return describe(rest, null, names, units);
}

/** A knock's order among the knock buttons: gin first, then the lower deadwood. */
export function knockOrder(event, hand) {
  const dead = deadwoodOf(event, hand);
  return dead ? dead.count + (dead.cards.length ? 1000 : 0) : 5000;
}

/** The words of a reveal's variant beside its radio button: "from the stock", "face down", "face up". */
export function variantWords(event, fields) {
  const extra = Object.entries(event).filter(([k, v]) => !(k in fields) && !["type", "seat", "dealer"].includes(k) && v !== false && v !== null);
  if (!extra.length) return "face up";
  return extra.map(([k, v]) => {
    if (k === "source") return v === "stock" ? "from the stock" : v === "discard" ? "from the discard pile" : `from the ${v}`;
    if (v === true) return k.replaceAll("_", " ");
    return `${k.replaceAll("_", " ")} ${v}`;
  }).join(", ");
}

/**
 * A recorded event as the record list says it, its actor first: "Jo draws 6♥ from the stock", "Anna plays
 * J♣ → Ben wins the trick". Kinds not known here fall back on `describe`, with the facts that matter
 * (who won a trick or a hand) and without the bookkeeping ones (the stock's count, the points so far).
 */
export function storedWords(event, result, names, units = {}) {
  const e = event;
  const actor = Number.isInteger(e.seat) ? [h("strong", {}, who(e.seat, names)), " "] : [];
  const card = isCard(e.card) ? inlineCard(e.card) : e.card === "??" ? inlineCard("??") : null;
  const facts = [];
  const r = result || {};
  if (Number.isInteger(r.trick_winner)) facts.push(`${who(r.trick_winner, names)} wins the trick`);
  if (r.hand_ended || r.ended) facts.push("the hand is over");
  const after = facts.length ? h("span", { class: "facts" }, ` → ${facts.join(", ")}`) : "";
  let said = null;
  switch (e.type) {
    case "play":
      said = e.marriage ? ["plays ", card, " and declares the marriage"] : ["plays ", card];
      break;
    case "draw":
      if (e.source === "discard") said = ["takes ", card, " from the discard pile"];
      else said = ["draws ", card || "a card", e.source === "stock" ? " from the stock" : ""];
      break;
    case "discard":
      said = ["discards ", card];
      break;
    case "trail":
      said = ["trails ", card];
      break;
    case "pass":
      said = ["passes"];
      break;
    case "close":
      said = ["closes the talon"];
      break;
    case "exchange_trump":
      said = ["exchanges the trump jack for the trump card"];
      break;
    case "stand":
      said = ["stands"];
      break;
    case "hit":
      said = e.face_down ? ["gets a card face down", card ? [": ", card] : ""] : ["gets ", card];
      break;
    case "bid":
      said = Number.isInteger(e.amount) ? [`bids ${e.amount}`] : ["passes"];
      break;
    case "knock":
      said = r.gin ? ["goes gin, discarding ", inlineCard(e.discard)] : ["knocks, discarding ", inlineCard(e.discard)];
      break;
    case "cut":
      said = ["The cut: ", ...(e.cards || []).flatMap((c, i) => [i ? ", " : "", `${who(i, names)} `, inlineCard(c)])];
      break;
    default:
      break;
  }
  if (said) return [...actor, ...said, after];
  if (e.type === "deal" && Number.isInteger(e.dealer)) {
    return [h("strong", {}, who(e.dealer, names)), " deals"];
  }
  const quiet = Object.fromEntries(Object.entries(r).filter(([k]) => !["stock", "talon", "totals", "points", "hand_points",
    "trick_points", "rule", "audit_notes"].includes(k)));
  return describe(e, quiet, names, units);
}
