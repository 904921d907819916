// The embeddable view of one game (`/embed/{id}`): the table and the steps through it, for a frame in another
// site's page (docs/site.md). It reads the API with the share token of its link (`#share=ts_...`: finished
// hands only) or the key of this tab, keeps its position in the address as the replay page does (`#42`,
// event 42), steps with the same keys (← → Home End), and tells the page around it how tall it is
// (`{type: "tablebook:height", height}` by postMessage) so that the frame can size itself.

import { describe, textNodes, unitsOf } from "./cards.js";
import { storedWords } from "./padwords.js";
import { requestJson } from "./request.js";
import { problemOf, showProblem, storedKey } from "./site.js";
import { TITLES, renderTable } from "./tables.js";

const $ = (id) => document.getElementById(id);
const view = { gameId: null, token: null, share: null, meta: null, hands: [], frames: [], hand: null, index: 0, score: null };

const api = (path) => requestJson(path, { token: view.token });
const gamePath = (suffix = "") => `/v1/games/${encodeURIComponent(view.gameId)}${suffix}`;

function readHash() {
  const raw = window.location.hash.slice(1);
  const parts = raw.split("&");
  const bare = parts.find((p) => /^\d+$/.test(p));
  const params = new URLSearchParams(parts.filter((p) => p.includes("=")).join("&"));
  const seq = bare !== undefined ? Number(bare) : /^\d+$/.test(params.get("seq") || "") ? Number(params.get("seq")) : null;
  return { seq, share: params.get("share") };
}

function writeHash() {
  const frame = view.frames[view.index];
  const parts = [frame ? String(frame.seq) : "", view.share ? `share=${view.share}` : ""].filter(Boolean);
  const hash = `#${parts.join("&")}`;
  if (window.location.hash !== hash) window.history.replaceState(null, "", hash);
  $("open-link").href = `/replay/${encodeURIComponent(view.gameId)}${hash}`;
}

/** The page around the frame sizes it: our height, each time it changes. */
function tellHeight() {
  if (window.parent === window) return;
  const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
  window.parent.postMessage({ type: "tablebook:height", game: view.gameId, height }, "*");
}

const shownHands = () => view.hands.filter((span) => span.hand > 0 && !(view.share && span.live));

async function go(hand, { seq = null, index = 0 } = {}) {
  document.body.dataset.busy = "1";
  let body;
  try {
    body = await api(gamePath(`/replay?hand=${hand}`));
  } catch (error) {
    problem(error);
    return;
  }
  view.hand = hand;
  view.frames = body.frames;
  let i = index < 0 ? view.frames.length - 1 : Math.min(index, view.frames.length - 1);
  if (seq !== null) view.frames.forEach((frame, k) => { if (frame.seq <= seq) i = k; });
  view.index = Math.max(0, i);
  draw();
  document.body.dataset.busy = "0";
}

function draw() {
  const frame = view.frames[view.index];
  if (!frame) return;
  renderTable($("table"), frame.state, { bottom: Number.isInteger(frame.state.viewpoint) ? frame.state.viewpoint : 0, score: view.score });
  const hands = shownHands().map((s) => s.hand);
  const k = hands.indexOf(view.hand);
  $("first").disabled = view.index === 0;
  $("prev").disabled = view.index === 0 && k <= 0;
  $("next").disabled = view.index === view.frames.length - 1 && k === hands.length - 1;
  $("last").disabled = view.index === view.frames.length - 1;
  $("position").textContent = `Hand ${view.hand} · event ${frame.seq} · ${view.index + 1} of ${view.frames.length} in this hand`;
  const standing = ["note", "score_claimed", "retract", "withheld"].includes(frame.event.type);
  const words = !standing ? storedWords(frame.event, frame.result, view.meta.players, unitsOf(frame.state))
    : typeof frame.text === "string" && frame.text ? textNodes(frame.text.replace(/\bref (\d+)/, "on event $1"), view.meta.players)
      : describe(frame.event, frame.result, view.meta.players, unitsOf(frame.state));
  $("words").replaceChildren(...words);
  writeHash();
  tellHeight();
}

function step(delta) {
  const target = view.index + delta;
  if (target >= 0 && target < view.frames.length) {
    view.index = target;
    draw();
    return;
  }
  const hands = shownHands().map((s) => s.hand);
  const k = hands.indexOf(view.hand);
  if (delta > 0 && k >= 0 && k < hands.length - 1) go(hands[k + 1], { index: 0 });
  else if (delta < 0 && k > 0) go(hands[k - 1], { index: -1 });
}

function jump(where) {
  view.index = where === "first" ? 0 : view.frames.length - 1;
  draw();
}

function problem(error) {
  document.body.dataset.busy = "0";
  $("main").hidden = true;
  const found = problemOf(error, { what: "game", id: view.gameId, share: Boolean(view.share) });
  found.actions = [{ label: "Open Tablebook", href: "/" }];
  if (!view.token) {
    found.title = "This view needs a share link";
    found.text = "Make one on the game's replay page (Share link…) and put its embed code in the page.";
  }
  showProblem($("problem"), found);
  tellHeight();
}

async function start() {
  const match = window.location.pathname.match(/^\/embed\/([^/]+)\/?$/);
  view.gameId = match ? decodeURIComponent(match[1]) : "";
  const wanted = readHash();
  view.share = wanted.share;
  view.token = wanted.share || storedKey();
  $("open-link").href = `/replay/${encodeURIComponent(view.gameId)}`;
  if (!view.token) {
    problem(null);
    return;
  }
  try {
    const [meta, hands, score] = await Promise.all([api(gamePath()), api(gamePath("/hands")), api(gamePath("/score"))]);
    view.meta = meta;
    view.hands = hands.hands;
    view.score = score;
    const title = TITLES[meta.game] || meta.game;
    $("title").textContent = title;
    $("subtitle").textContent = meta.players.join(" · ");
    document.title = `${title}: ${meta.players.join(", ")} · Tablebook`;
    const shown = shownHands();
    if (!shown.length) {
      $("problem").hidden = false;
      showProblem($("problem"), { kind: "info", title: "Nothing to show yet",
        text: view.share ? "No hand of this game has finished yet: a share link shows finished hands only." : "No hand has been dealt yet.",
        actions: [], detail: "" });
      document.body.dataset.busy = "0";
      tellHeight();
      return;
    }
    $("main").hidden = false;
    const hand = wanted.seq !== null ? shown.find((s) => wanted.seq >= s.first_seq && wanted.seq <= s.last_seq) : null;
    if (hand) await go(hand.hand, { seq: wanted.seq });
    else await go(shown[shown.length - 1].hand, { index: -1 });
  } catch (error) {
    problem(error);
  }
}

function wire() {
  $("first").addEventListener("click", () => jump("first"));
  $("prev").addEventListener("click", () => step(-1));
  $("next").addEventListener("click", () => step(1));
  $("last").addEventListener("click", () => jump("last"));
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || $("main").hidden) return;
    const keys = { ArrowLeft: () => step(-1), ArrowRight: () => step(1), Home: () => jump("first"), End: () => jump("last") };
    if (keys[event.key]) {
      event.preventDefault();
      keys[event.key]();
    }
  });
  if ("ResizeObserver" in window) new ResizeObserver(tellHeight).observe(document.body);
  window.addEventListener("hashchange", () => {
    const wanted = readHash();
    const frame = view.frames[view.index];
    if (wanted.seq === null || (frame && frame.seq === wanted.seq) || !view.meta) return;
    const span = shownHands().find((s) => wanted.seq >= s.first_seq && wanted.seq <= s.last_seq);
    if (span) go(span.hand, { seq: wanted.seq });
  });
}

wire();
start();
// for the browser tests: the view's position, read-only
window.tablebookEmbed = {
  get seq() {
    const frame = view.frames[view.index];
    return frame ? frame.seq : null;
  },
};
