// The club's home page (`/`): the games being played (go on recording, or watch), the games finished
// lately, and the way to everything else. Reads `GET /v1/games` with the tab's key; without one it asks
// for it, and the button to record a new game still leads to the pad (which asks too).

import { fieldText, h, unitsOf } from "./cards.js";
import { requestJson } from "./request.js";
import { headerKey, problemOf, showKeyForm, showProblem, storedKey, when } from "./site.js";
import { TITLES } from "./tables.js";

const $ = (id) => document.getElementById(id);
const LIVE_SHOWN = 6;
const RECENT_SHOWN = 6;

const api = (path) => requestJson(path, { token: storedKey() });
const nameLink = (name) => h("a", { href: `/players/${encodeURIComponent(name)}` }, name);
const title = (g) => TITLES[g.game] || g.game;

/** "Anna 5 to go · Ben 0 to go": each total in its game's unit. */
function scoreText(g) {
  const units = unitsOf({ game: g.game, units: g.units });
  return g.players.map((name, seat) => `${name} ${fieldText(units, "totals", (g.totals || {})[String(seat)] ?? 0)}`).join(" · ");
}

function players(g) {
  return g.players.flatMap((name, i) => [i ? ", " : "", nameLink(name)]);
}

function labels(g) {
  return ["event", "round", "table"].filter((k) => g[k]).map((k) => `${k} ${g[k]}`).join(" · ");
}

function liveCard(g) {
  const where = [labels(g), g.hand ? `hand ${g.hand}` : "not dealt yet", `started ${when(g.created_at)}`].filter(Boolean);
  return h("li", { class: "game-card live", dataset: { game: g.id } },
    h("span", { class: "kind" }, title(g)),
    h("span", { class: "who" }, players(g)),
    h("span", { class: "when" }, where.join(" · ")),
    h("span", { class: "result" }, scoreText(g)),
    h("div", { class: "card-actions" },
      h("a", { class: "button primary resume", href: `/record/${encodeURIComponent(g.id)}` }, "Go on recording"),
      h("a", { class: "button watch", href: `/replay/${encodeURIComponent(g.id)}` }, "Watch")));
}

function recentCard(g) {
  const winner = Number.isInteger(g.winner) ? g.players[g.winner] : null;
  return h("li", { class: "game-card", dataset: { game: g.id } },
    h("span", { class: "kind" }, title(g)),
    h("span", { class: "who" }, players(g)),
    h("span", { class: "result" }, winner ? [h("strong", {}, `${winner} won`), ` · ${scoreText(g)}`] : scoreText(g)),
    h("span", { class: "when" }, [labels(g), when(g.updated_at || g.created_at)].filter(Boolean).join(" · ")),
    h("div", { class: "card-actions" },
      h("a", { class: "button replay", href: `/replay/${encodeURIComponent(g.id)}` }, "Replay")));
}

function done() {
  document.body.dataset.busy = "0";
}

async function start() {
  headerKey();
  $("problem").hidden = true;
  $("key-box").hidden = true;
  if (!storedKey()) {
    $("lists").hidden = true;
    showKeyForm($("key-box"), { why: "The club's games are shown with the club's key." }, start);
    done();
    return;
  }
  document.body.dataset.busy = "1";
  let live;
  let finished;
  try {
    [live, finished] = await Promise.all([
      api(`/v1/games?status=live&limit=${LIVE_SHOWN}`), api(`/v1/games?status=finished&limit=${RECENT_SHOWN}`),
    ]);
  } catch (error) {
    const problem = problemOf(error, { what: "home" });
    if (error.status === 401) {
      showKeyForm($("key-box"), { message: `${problem.title}. ${problem.text}` }, start);
    } else {
      showProblem($("problem"), problem, { retry: start, key: () => showKeyForm($("key-box"), {}, start) });
    }
    done();
    return;
  }
  $("live-list").replaceChildren(...live.games.map(liveCard));
  $("live-empty").hidden = live.games.length > 0;
  $("live-more").hidden = !live.next_cursor;
  $("recent-list").replaceChildren(...finished.games.map(recentCard));
  $("recent-empty").hidden = finished.games.length > 0;
  const resume = $("resume");
  resume.hidden = live.games.length === 0;
  if (live.games.length === 1) {
    const g = live.games[0];
    resume.href = `/record/${encodeURIComponent(g.id)}`;
    resume.textContent = `Go on recording: ${title(g)}, ${g.players.join(", ")}`;
  } else {
    resume.href = "#live";
    resume.textContent = `Go on with a live game (${live.games.length}${live.next_cursor ? "+" : ""})`;
  }
  $("lists").hidden = false;
  done();
}

start();
