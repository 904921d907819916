// The club's players (/players), a player's page (/players/{ref}) and the standings (/standings).
//
// Data: only the API (GET /v1/players, GET /v1/players/{ref}, GET /v1/standings), with the key kept in
// this tab (`site.js`), so a key typed on any page works here. Numbers are said in words a player uses
// ("rating 27.4, provisional", "game points won"); the rating model's own figures (mu, sigma, the
// conservative ordinal) stay in the API. The rating history is drawn as an inline SVG (nothing from
// anywhere else: the Content-Security-Policy allows this server only). Text goes in with textContent.

import { h } from "./cards.js";
import { requestJson } from "./request.js";
import { headerKey, problemOf, showKeyForm, showProblem, storedKey, when } from "./site.js";
import { TITLES } from "./tables.js";

const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

const POOL_TITLES = {
  schnapsen: "Schnapsen",
  casino: "Casino",
  "cutthroat-smear": "Cutthroat Smear",
  "gin-rummy-3": "Gin Rummy for three",
  "seven-and-a-half.banker": "Seven and a Half, as banker",
  "seven-and-a-half.punter": "Seven and a Half, as punter",
};
//: what a game's points are called in a column
const POINTS_WORDS = { schnapsen: "Game points", "seven-and-a-half": "Chips" };
//: the statistics of a player, in words
const STAT_WORDS = {
  games: "games", finished: "finished", wins: "won", marriages: "marriages", closes: "talon closed",
  failed_closes: "closes that failed", knocks: "knocks", gins: "gins", undercuts: "undercuts", sweeps: "sweeps",
  builds: "builds", bids_made: "bids made", bids_set: "bids that failed", sevens_and_a_half: "sevens and a half",
  busts: "busts",
};
const POINTS_STAT = { schnapsen: "game points won", "seven-and-a-half": "chips won (net)" };

const api = (path) => requestJson(path, { token: storedKey() });
const page = () => document.body.dataset.page;

/** "27.4, provisional": a rating as a player reads it. */
const ratingText = (rating) => `${rating.mu.toFixed(1)}${rating.provisional ? ", provisional" : ""}`;

function cell(tag, content, attrs = {}) {
  return h(tag, attrs, content);
}

function done() {
  document.body.dataset.busy = "0";
}

/** The current page's request, with its problem drawn (and the key asked for) when it fails. */
async function load(path, context) {
  try {
    return await api(path);
  } catch (error) {
    const problem = problemOf(error, context);
    if (error.status === 401) {
      showKeyForm($("key-box"), { message: `${problem.title}. ${problem.text}` }, start);
    } else {
      showProblem($("problem"), problem, { retry: start, key: () => showKeyForm($("key-box"), {}, start) });
    }
    done();
    return null;
  }
}

// --------------------------------------------------------------------------- the players

function playersPage(body) {
  const list = $("players");
  const all = body.players;
  const draw = () => {
    const wanted = $("player-filter").value.trim().toLowerCase();
    const shown = all.filter((p) => !wanted || [p.name, ...p.aliases].some((n) => n.toLowerCase().includes(wanted)));
    list.replaceChildren(...shown.map((p) => h("li", { dataset: { player: p.id } },
      h("a", { href: `/players/${encodeURIComponent(p.id)}` }, h("strong", {}, p.name),
        p.aliases.length ? h("span", { class: "aka" }, `also ${p.aliases.join(", ")}`) : null,
        h("span", { class: "aka" }, `first seen ${when(p.created_at)}`)))));
    $("players-empty").hidden = shown.length > 0;
    $("players-count").textContent = wanted ? `${shown.length} of ${all.length} players` : `${all.length} players`;
  };
  $("player-filter").oninput = draw;
  draw();
}

// --------------------------------------------------------------------------- a player

/** The rating history of one pool as an SVG line chart: the rating after each result, provisional ones hollow. */
function chart(pool, changes) {
  const width = 640, height = 180, left = 40, right = 10, top = 14, bottom = 24;
  const values = [changes[0].before.mu, ...changes.map((c) => c.after.mu)];
  let low = Math.min(...values), high = Math.max(...values);
  if (high - low < 1) { low -= 0.5; high += 0.5; }
  const x = (i) => left + (i * (width - left - right)) / Math.max(1, values.length - 1);
  const y = (v) => top + ((high - v) * (height - top - bottom)) / (high - low);
  const svg = document.createElementNS(SVG, "svg");
  const attrs = {
    class: "chart", viewBox: `0 0 ${width} ${height}`, width: String(width), height: String(height),
    role: "img", "data-pool": pool, "data-points": String(values.length),
    "aria-label": `${POOL_TITLES[pool] || pool}: rating after each of ${changes.length} results, from ` +
      `${values[0].toFixed(1)} to ${values[values.length - 1].toFixed(1)}`,
  };
  for (const [name, value] of Object.entries(attrs)) svg.setAttribute(name, value);
  const add = (tag, a, text) => {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(a)) node.setAttribute(name, String(value));
    if (text !== undefined) node.textContent = text;
    svg.append(node);
    return node;
  };
  add("title", {}, attrs["aria-label"]);
  add("line", { class: "axis", x1: left, y1: height - bottom, x2: width - right, y2: height - bottom });
  add("line", { class: "axis", x1: left, y1: top, x2: left, y2: height - bottom });
  add("text", { x: 2, y: top + 4 }, high.toFixed(1));
  add("text", { x: 2, y: height - bottom }, low.toFixed(1));
  add("text", { x: left, y: height - 6 }, "start");
  add("text", { x: width - right - 60, y: height - 6 }, `${changes.length} ${changes.length === 1 ? "result" : "results"}`);
  add("polyline", { class: "line", points: values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ") });
  changes.forEach((change, i) => {
    const dot = add("circle", {
      class: "dot", cx: x(i + 1).toFixed(1), cy: y(change.after.mu).toFixed(1), r: 3,
      "data-game": change.game_id, "data-mu": change.after.mu,
    });
    if (change.after.provisional) dot.setAttribute("fill-opacity", "0.35");
    const tip = document.createElementNS(SVG, "title");
    tip.textContent = changeText(change);
    dot.append(tip);
  });
  return svg;
}

/** One rating change in words: "won hand 3 against Jo and Ida: 25.0 → 27.4 (+2.4)". */
function changeText(change) {
  const opponents = change.opponents || [];
  const where = ["gin-rummy-3", "seven-and-a-half"].includes(change.kind) ? `hand ${change.hand}` : "the game";
  const role = change.pool.endsWith(".banker") ? " as banker" : change.pool.endsWith(".punter") ? " as punter" : "";
  const against = opponents.length ? ` against ${opponents.map((o) => o.name).join(" and ")}` : "";
  const delta = change.change >= 0 ? `+${change.change.toFixed(1)}` : change.change.toFixed(1);
  const played = `${where}${role}${against}`;
  const said = change.actual === 1 ? `won ${played}` : change.actual === 0 ? `lost ${played}`
    : opponents.length > 1 ? `${played}, beating some and losing to others` : `drew ${played}`;
  return `${said}: ${change.before.mu.toFixed(1)} → ${change.after.mu.toFixed(1)} (${delta})`;
}

function playerPage(body) {
  const player = body.player;
  document.title = `${player.name} · Tablebook`;
  $("title").textContent = player.name;
  $("aliases").textContent = player.aliases.length ? `also known as ${player.aliases.join(", ")}` : "";
  // the results of each game the player has played, in words
  const stats = $("stats");
  stats.replaceChildren();
  for (const [kind, counts] of Object.entries(body.statistics)) {
    const items = Object.entries(counts).filter(([, v]) => v !== null && v !== undefined).map(([name, value]) => {
      const label = name === "points" ? POINTS_STAT[kind] || "points" : STAT_WORDS[name] || name.replaceAll("_", " ");
      return h("li", { dataset: { stat: name } }, h("span", { class: "value" }, String(value)), h("span", { class: "label" }, label));
    });
    stats.append(h("h3", {}, TITLES[kind] || kind), h("ul", { class: "stat-list", dataset: { kind } }, items));
  }
  if (!Object.keys(body.statistics).length) stats.append(h("p", { class: "empty" }, "No game yet."));
  const ratings = $("ratings");
  ratings.replaceChildren(h("thead", {}, h("tr", {}, cell("th", "Game", { scope: "col" }), cell("th", "Rating", { scope: "col", class: "num" }),
    cell("th", "From", { scope: "col", class: "num" }))));
  const rows = Object.entries(body.ratings).map(([pool, rating]) => h("tr", { dataset: { pool } },
    cell("td", POOL_TITLES[pool] || pool),
    cell("td", [rating.mu.toFixed(1), rating.provisional
      ? [h("span", { class: "sep" }, ", "), h("span", { class: "provisional" }, "provisional")] : ""], { class: "num rating" }),
    cell("td", `${rating.results} ${rating.results === 1 ? "result" : "results"}`, { class: "num" })));
  ratings.append(h("tbody", {}, rows.length ? rows : h("tr", {}, cell("td", "No rated result yet.", { colspan: 3, class: "empty" }))));
  const byPool = {};
  for (const change of body.history) (byPool[change.pool] = byPool[change.pool] || []).push(change);
  const charts = $("charts");
  charts.replaceChildren();
  for (const [pool, changes] of Object.entries(byPool)) {
    charts.append(h("h3", {}, POOL_TITLES[pool] || pool), chart(pool, changes));
  }
  const history = $("history");
  history.replaceChildren(...[...body.history].reverse().slice(0, 100).map((change) => h("li", {},
    h("a", { href: `/replay/${encodeURIComponent(change.game_id)}` }, TITLES[change.kind] || change.kind), ": ",
    changeText(change))));
  if (!body.history.length) history.append(h("li", { class: "empty" }, "No rating change yet."));
  const games = $("games");
  games.replaceChildren(h("thead", {}, h("tr", {}, ...["Game", "Players", "Result", "Started"].map((t) => cell("th", t, { scope: "col" })))));
  const tbody = h("tbody");
  for (const game of body.games) {
    const result = game.status !== "finished" ? "being played" : game.won ? "won" : "lost";
    const others = game.players.flatMap((name, i) => [i ? ", " : "",
      name === player.name ? h("strong", {}, name) : h("a", { href: `/players/${encodeURIComponent(name)}` }, name)]);
    tbody.append(h("tr", { dataset: { game: game.id }, class: game.won ? "won" : "" },
      cell("td", h("a", { href: `/replay/${encodeURIComponent(game.id)}` }, TITLES[game.game] || game.game)),
      cell("td", others), cell("td", result), cell("td", when(game.created_at))));
  }
  if (!body.games.length) tbody.append(h("tr", {}, cell("td", "No game yet.", { colspan: 4, class: "empty" })));
  games.append(tbody);
}

// --------------------------------------------------------------------------- the standings

function standingsQuery() {
  const params = new URLSearchParams(window.location.search);
  const query = new URLSearchParams({ game: params.get("game") || "schnapsen" });
  for (const name of ["since", "until", "event", "round"]) if (params.get(name)) query.set(name, params.get(name));
  for (const [name, value] of query) if ($(name)) $(name).value = value;
  return query;
}

function standingsPage(table) {
  const kind = table.game;
  $("title").textContent = `Standings: ${TITLES[kind] || kind}`;
  document.title = `Standings: ${TITLES[kind] || kind} · Tablebook`;
  $("order-note").replaceChildren(
    "Ordered by games won; players level on wins by their points, then by their rating, then by name. ",
    h("a", { href: "#how-ratings-work" }, "How the rating works"), ".");
  const pools = $("pools");
  pools.replaceChildren();
  const pointsWord = POINTS_WORDS[kind] || "Points";
  for (const [pool, data] of Object.entries(table.pools)) {
    const head = h("tr", {}, cell("th", "#", { scope: "col", class: "num place" }), cell("th", "Player", { scope: "col" }),
      cell("th", "Won", { scope: "col", class: "num" }), cell("th", "Played", { scope: "col", class: "num" }),
      cell("th", pointsWord, { scope: "col", class: "num" }), cell("th", "Rating", { scope: "col", class: "num" }));
    const body = h("tbody", {}, data.standings.map((r) => h("tr", { dataset: { player: r.player_id } },
      cell("td", String(r.place), { class: "num place" }),
      cell("td", h("a", { href: `/players/${encodeURIComponent(r.player_id)}` }, r.name), { class: "player-name" }),
      cell("td", String(r.wins), { class: "num", dataset: { col: "wins" } }),
      cell("td", String(r.games), { class: "num", dataset: { col: "games" } }),
      cell("td", String(r.points), { class: "num", dataset: { col: "points" } }),
      cell("td", [r.rating.mu.toFixed(1), r.rating.provisional
        ? [h("span", { class: "sep" }, ", "), h("span", { class: "provisional" }, "provisional")] : ""],
        { class: "num rating", dataset: { col: "rating" }, "aria-label": `rating ${ratingText(r.rating)}` }))));
    const grid = h("table", { class: "grid", dataset: { pool } }, h("caption", {}, data.title), h("thead", {}, head), body);
    const section = h("section", { class: "panel", dataset: { pool } }, h("div", { class: "scroll" }, grid));
    if (!data.standings.length) section.append(h("p", { class: "empty" }, "No rated results in this range."));
    pools.append(section);
  }
}

// --------------------------------------------------------------------------- start

async function start() {
  headerKey();
  document.body.dataset.busy = "1";
  $("problem").hidden = true;
  $("key-box").hidden = true;
  $("content").hidden = true;
  if (!storedKey()) {
    showKeyForm($("key-box"), { why: "The club's players and results are shown with the club's key." }, start);
    done();
    return;
  }
  if (page() === "player") {
    const ref = decodeURIComponent(window.location.pathname.split("/").filter(Boolean).pop());
    const body = await load(`/v1/players/${encodeURIComponent(ref)}`, { what: "player", id: ref });
    if (!body) return;
    playerPage(body);
  } else if (page() === "players") {
    const body = await load("/v1/players", { what: "players" });
    if (!body) return;
    playersPage(body);
  } else {
    const query = standingsQuery();
    const clear = `/standings?game=${encodeURIComponent(query.get("game"))}`;
    const body = await load(`/v1/standings?${query}`, { what: "standings", clear: TITLES[query.get("game")] ? clear : "/standings" });
    if (!body) return;
    standingsPage(body);
  }
  $("content").hidden = false;
  done();
}

start();
