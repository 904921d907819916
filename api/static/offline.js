// Offline, who acts next: the table pad's own reckoning after the taps waiting on this device.
//
// The rules live on the server; offline the pad offers the next taps itself, marked "not checked yet". It
// offers only the seat to act where it can know it from the last table the server drew (the phase, whose
// turn it was, the trick on the table, the draws due, the roles) and the taps waiting after it: who
// follows a lead, who wins a finished trick (Schnapsen's and Smear's trick rules are simple enough to
// reckon), who draws first, who discards after a draw, whose turn comes next at the table. Where it cannot
// know (a hand that may have ended, a correction), it says so (null) and the pad offers every seat, as
// before. A marriage is offered only to a player seen holding both its king and queen.

const RANKS = "23456789TJQKA";

/** Schnapsen: does `card`, played after `best`, take the trick (as the server's `beats`)? */
function schnapsenBeats(card, best, trump) {
  const order = "JQKTA";
  if (card[1] === best[1]) return order.indexOf(card[0]) > order.indexOf(best[0]);
  return card[1] === trump;
}

/** Smear: the seat whose card takes the trick: the highest trump, else the highest of the suit led. */
function smearWinner(trick, trump) {
  const led = trick[0].card[1];
  let best = trick[0];
  for (const play of trick.slice(1)) {
    const a = play.card;
    const b = best.card;
    const better = a[1] === b[1] ? RANKS.indexOf(a[0]) > RANKS.indexOf(b[0]) : a[1] === trump || (b[1] !== trump && a[1] === led && b[1] !== led);
    if (better) best = play;
  }
  return best.seat;
}

const handsOf = (state) => state.seats.map((s) => (Array.isArray(s.cards) ? [...s.cards] : null));
const drop = (hand, card) => {
  if (hand && hand.includes(card)) hand.splice(hand.indexOf(card), 1);
};
const other = (seat) => 1 - seat;

function schnapsen(state, queue) {
  const t = state.table;
  const sim = { phase: state.phase, toAct: [...state.to_act], trick: [...(t.trick || [])], talon: t.talon,
    closed: t.closed_by !== null && t.closed_by !== undefined, due: [...(t.draws_due || [])], hands: handsOf(state),
    leader: Array.isArray(t.draws_due) && t.draws_due.length ? t.draws_due[0] : t.leader };
  for (const e of queue) {
    if (e.type === "play") {
      drop(sim.hands[e.seat], e.card);
      if (sim.phase === "lead") {
        sim.trick = [{ seat: e.seat, card: e.card }];
        sim.phase = "follow";
        sim.toAct = [other(e.seat)];
      } else if (sim.phase === "follow" && sim.trick.length === 1) {
        const lead = sim.trick[0];
        const winner = schnapsenBeats(e.card, lead.card, t.trump_suit) ? e.seat : lead.seat;
        sim.trick = [];
        sim.leader = winner;
        const handOver = sim.hands.every((hand) => hand && hand.length === 0);
        if (handOver) return null; // the hand is over: the next deal is the server's to say
        if (!sim.closed && sim.talon > 0) {
          sim.due = [winner, other(winner)];
          sim.phase = "draw";
        } else {
          sim.phase = "lead";
        }
        sim.toAct = [winner];
      } else {
        return null;
      }
    } else if (e.type === "draw") {
      sim.due.shift();
      sim.talon -= 1;
      if (sim.hands[e.seat] && e.card) sim.hands[e.seat].push(e.card);
      if (sim.due.length) {
        sim.toAct = [sim.due[0]];
      } else {
        sim.phase = "lead";
        sim.toAct = [Number.isInteger(sim.leader) ? sim.leader : other(e.seat)];
      }
    } else if (e.type === "close" || e.type === "exchange_trump") {
      if (e.type === "close") sim.closed = true;
      sim.phase = "lead";
      sim.toAct = [e.seat];
    } else if (e.type === "deal") {
      sim.phase = "lead";
      sim.leader = other(e.dealer);
      sim.toAct = [sim.leader];
      sim.hands = [e.hands[0] ? [...e.hands[0]] : null, e.hands[1] ? [...e.hands[1]] : null];
      sim.talon = 10;
      sim.closed = false;
    } else if (!["note", "score_claimed"].includes(e.type)) {
      return null;
    }
  }
  return sim;
}

function gin(state, queue) {
  const t = state.table;
  if (t.box === null || t.box === undefined) return null;
  const players = [t.box, t.captain];
  const otherPlayer = (seat) => (seat === players[0] ? players[1] : players[0]);
  const sim = { phase: state.phase, toAct: [...state.to_act], passes: t.passes || 0, hands: handsOf(state) };
  for (const e of queue) {
    if (e.type === "draw") {
      sim.phase = "discard";
      sim.toAct = [e.seat];
    } else if (e.type === "discard") {
      sim.phase = "draw";
      sim.toAct = [otherPlayer(e.seat)];
    } else if (e.type === "pass") {
      sim.passes += 1;
      sim.phase = sim.passes >= 2 ? "draw" : "offer";
      sim.toAct = [otherPlayer(e.seat)];
    } else if (!["note", "score_claimed"].includes(e.type)) {
      return null;
    }
  }
  return sim;
}

/** The next seat clockwise that holds cards (or the next one, when hands are not seen). */
function nextSeat(seat, count) {
  return (seat + 1) % count;
}

function casino(state, queue) {
  const count = state.seats.length;
  const sim = { phase: state.phase, toAct: [...state.to_act], hands: handsOf(state) };
  for (const e of queue) {
    if (["trail", "capture", "build"].includes(e.type) && Number.isInteger(e.seat)) {
      drop(sim.hands[e.seat], e.card);
      if (sim.hands.every((hand) => hand && hand.length === 0)) return null; // a new deal, or the round's end
      sim.toAct = [nextSeat(e.seat, count)];
    } else if (!["note", "score_claimed"].includes(e.type)) {
      return null;
    }
  }
  return sim;
}

function smear(state, queue) {
  const t = state.table;
  const count = state.seats.length;
  const sim = { phase: state.phase, toAct: [...state.to_act], trick: [...(t.trick || [])], trump: t.trump,
    hands: handsOf(state) };
  for (const e of queue) {
    if (e.type === "play" && sim.phase === "play") {
      drop(sim.hands[e.seat], e.card);
      if (!sim.trump && !sim.trick.length) sim.trump = e.card[1];
      sim.trick.push({ seat: e.seat, card: e.card });
      if (sim.trick.length < count) {
        sim.toAct = [nextSeat(e.seat, count)];
      } else {
        const winner = smearWinner(sim.trick, sim.trump);
        sim.trick = [];
        if (sim.hands.every((hand) => hand && hand.length === 0)) return null;
        sim.toAct = [winner];
      }
    } else if (!["note", "score_claimed"].includes(e.type)) {
      return null;
    }
  }
  return sim;
}

const MODELS = { schnapsen, "gin-rummy-3": gin, casino, "cutthroat-smear": smear };

/**
 * After the waiting taps (`queue`, oldest first) on the server's last table (`state`): `{toAct, phase,
 * hands}` when the pad can know whose turn it is, else null.
 */
export function predictTurn(state, queue) {
  const model = MODELS[state.game];
  if (!model || !state.table || !Array.isArray(state.to_act)) return null;
  const sim = model(state, queue);
  if (!sim || !sim.toAct || !sim.toAct.length) return null;
  return sim;
}

/**
 * Whether an offline guess is possible at all, from what the pad sees: a marriage only with its king and
 * queen in the hand (`hand` null: the hand is not seen, and no marriage is offered).
 */
export function mayOffer(game, event, hand) {
  if (game === "schnapsen" && event.type === "play" && event.marriage) {
    if (!hand || !["K", "Q"].includes(event.card[0])) return false;
    const partner = `${event.card[0] === "K" ? "Q" : "K"}${event.card[1]}`;
    return hand.includes(event.card) && hand.includes(partner);
  }
  return true;
}

//: what each game's phases take, where the pad knows it: a kind of event (`{kind, type, extras}`) -> allowed
const PHASE_KINDS = {
  schnapsen: {
    lead: (k) => ["play", "close", "exchange_trump"].includes(k.type),
    follow: (k) => k.type === "play" && !k.extras.marriage,
    draw: (k) => k.type === "draw",
  },
  "gin-rummy-3": {
    draw: (k) => k.type === "draw",
    discard: (k) => ["discard", "knock"].includes(k.type),
    offer: (k) => (k.type === "draw" && k.extras.source === "discard") || k.type === "pass",
  },
  casino: { play: (k) => ["trail", "capture", "build"].includes(k.type) },
  "cutthroat-smear": { play: (k) => k.type === "play" },
};

/** Whether a kind of event may come in `phase` of `game`: true or false where the pad knows, else null. */
export function kindAllowed(game, phase, kind) {
  const rule = PHASE_KINDS[game] && PHASE_KINDS[game][phase];
  return rule ? rule({ ...kind, extras: kind.extras || {} }) : null;
}

//: the decisions of a game the pad offers offline though no offer has shown them on this device yet
export const SEED_DECISIONS = {
  schnapsen: [{ kind: "decision", type: "play", extras: {}, hasSeat: true, source: "hand" },
    { kind: "decision", type: "play", extras: { marriage: true }, hasSeat: true, source: "hand" }],
  "gin-rummy-3": [{ kind: "decision", type: "discard", extras: {}, hasSeat: true, source: "hand" }],
  casino: [{ kind: "decision", type: "trail", extras: {}, hasSeat: true, source: "hand" }],
  "cutthroat-smear": [{ kind: "decision", type: "play", extras: {}, hasSeat: true, source: "hand" }],
};
