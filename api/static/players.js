// The player page (/players/{ref}) and the standings page (/standings): issue 20.
//
// Data: only the API (GET /v1/players/{ref}, GET /v1/standings), with the viewer's key kept in this
// tab's sessionStorage under the same name the replay page uses, so a key typed there works here.
// The rating history is drawn as an inline SVG (no script or style from anywhere else: the page's
// Content-Security-Policy allows this server only). Text goes in with textContent, never as HTML.

import { requestJson } from "./request.js";

const KEY_STORE = "tablebook.key";
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
const GAME_TITLES = {
  schnapsen: "Schnapsen", casino: "Casino", "cutthroat-smear": "Cutthroat Smear",
  "gin-rummy-3": "Gin Rummy for three", "seven-and-a-half": "Seven and a Half",
};

/** A request with the key of this tab (`request.js`). */
const api = (path) => requestJson(path, { token: sessionStorage.getItem(KEY_STORE) });

function el(tag, text, attrs = {}) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  return node;
}

function row(table, cells, header = false) {
  const tr = el("tr");
  for (const cell of cells) {
    const td = el(header ? "th" : "td");
    if (cell instanceof Node) td.append(cell);
    else if (cell && typeof cell === "object") {
      td.textContent = cell.text;
      if (cell.num) td.className = "num";
    } else td.textContent = cell;
    tr.append(td);
  }
  table.append(tr);
  return tr;
}

function alert(message) {
  $("alert").textContent = message;
  $("alert").hidden = !message;
}

function askKey(message) {
  alert(message);
  $("key-form").hidden = false;
  $("key-form").onsubmit = (event) => {
    event.preventDefault();
    sessionStorage.setItem(KEY_STORE, $("key-input").value.trim());
    $("key-form").hidden = true;
    alert("");
    start();
  };
}

function done() { document.body.dataset.busy = "0"; }

async function load(path) {
  try {
    return await api(path);
  } catch (error) {
    if (error.status === 401) askKey("Type the club's API key to see its players.");
    else alert(error.message);
    done();
    return null;
  }
}

// --------------------------------------------------------------------------- the player page

/** The rating history of one pool as an SVG line chart: mu after each result, provisional points hollow. */
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
  add("text", { x: width - right - 60, y: height - 6 }, `${changes.length} results`);
  add("polyline", { class: "line", points: values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ") });
  changes.forEach((change, i) => {
    const dot = add("circle", {
      class: "dot", cx: x(i + 1).toFixed(1), cy: y(change.after.mu).toFixed(1), r: 3,
      "data-game": change.game_id, "data-mu": change.after.mu,
    });
    if (change.after.provisional) dot.setAttribute("fill-opacity", "0.35");
    const tip = document.createElementNS(SVG, "title");
    tip.textContent = change.reason;
    dot.append(tip);
  });
  return svg;
}

function playerPage(page) {
  const player = page.player;
  document.title = `${player.name} · Tablebook`;
  $("title").textContent = player.name;
  $("aliases").textContent = player.aliases.length ? `also ${player.aliases.join(", ")}` : "";
  const ratings = $("ratings");
  ratings.replaceChildren();
  row(ratings, ["Game", "Rating", "±", "Results", ""], true);
  for (const [pool, rating] of Object.entries(page.ratings)) {
    const note = rating.provisional ? el("span", "provisional", { class: "provisional" }) : "";
    const tr = row(ratings, [POOL_TITLES[pool] || pool, { text: rating.text, num: true },
      { text: rating.sigma.toFixed(1), num: true }, { text: rating.results, num: true }, note]);
    tr.dataset.pool = pool;
  }
  const byPool = {};
  for (const change of page.history) (byPool[change.pool] = byPool[change.pool] || []).push(change);
  const charts = $("charts");
  charts.replaceChildren();
  for (const [pool, changes] of Object.entries(byPool)) {
    charts.append(el("h3", POOL_TITLES[pool] || pool));
    charts.append(chart(pool, changes));
  }
  const stats = $("stats");
  stats.replaceChildren();
  for (const [kind, counts] of Object.entries(page.statistics)) {
    const names = Object.keys(counts);
    row(stats, [GAME_TITLES[kind] || kind, ...names.map((n) => n.replaceAll("_", " "))], true);
    const tr = row(stats, ["", ...names.map((n) => ({ text: counts[n], num: true }))]);
    tr.dataset.kind = kind;
    for (const [i, n] of names.entries()) tr.children[i + 1].dataset.stat = n;
  }
  const history = $("history");
  history.replaceChildren();
  for (const change of [...page.history].reverse().slice(0, 100)) {
    const li = el("li");
    li.append(el("a", change.game_id, { href: `/replay/${encodeURIComponent(change.game_id)}` }), ": ", change.reason);
    history.append(li);
  }
  const games = $("games");
  games.replaceChildren();
  row(games, ["Game", "Players", "Status", "Result", "Created"], true);
  for (const game of page.games) {
    const link = el("a", GAME_TITLES[game.game] || game.game, { href: `/replay/${encodeURIComponent(game.id)}` });
    const result = game.status !== "finished" ? "" : (game.won ? "won" : "lost");
    const tr = row(games, [link, game.players.join(", "), game.status, result, game.created_at.slice(0, 10)]);
    tr.dataset.game = game.id;
    if (game.won) tr.classList.add("won");
  }
}

// --------------------------------------------------------------------------- the standings page

function standingsQuery() {
  const params = new URLSearchParams(window.location.search);
  const query = new URLSearchParams({ game: params.get("game") || "schnapsen" });
  for (const name of ["since", "until", "event", "round"]) if (params.get(name)) query.set(name, params.get(name));
  for (const [name, value] of query) if ($(name)) $(name).value = value;
  return query;
}

function standingsPage(table) {
  $("title").textContent = `Standings: ${GAME_TITLES[table.game] || table.game}`;
  $("model").textContent = `Ratings by ${table.model}; ? marks a provisional rating; ordered by the ` +
    "conservative rating (mu − 3σ).";
  const pools = $("pools");
  pools.replaceChildren();
  for (const [pool, data] of Object.entries(table.pools)) {
    pools.append(el("h2", data.title));
    const grid = el("table", null, { class: "grid", "data-pool": pool });
    row(grid, ["#", "Player", "Rating", "Change", "Results", "Score", "Expected"], true);
    for (const r of data.standings) {
      const link = el("a", r.name, { href: `/players/${encodeURIComponent(r.player_id)}` });
      const tr = row(grid, [{ text: r.place, num: true }, link, { text: r.rating.text, num: true },
        { text: (r.change >= 0 ? "+" : "") + r.change.toFixed(1), num: true }, { text: r.results, num: true },
        { text: r.score, num: true }, { text: r.expected.toFixed(1), num: true }]);
      tr.dataset.player = r.player_id;
    }
    if (!data.standings.length) pools.append(el("p", "No rated results in this range.", { class: "muted" }));
    pools.append(grid);
  }
}

// --------------------------------------------------------------------------- start

async function start() {
  document.body.dataset.busy = "1";
  if (!sessionStorage.getItem(KEY_STORE)) { askKey(""); done(); return; }
  if (document.body.dataset.page === "player") {
    const ref = decodeURIComponent(window.location.pathname.split("/").pop());
    const page = await load(`/v1/players/${encodeURIComponent(ref)}`);
    if (!page) return;
    playerPage(page);
  } else {
    const query = standingsQuery();
    const table = await load(`/v1/standings?${query}`);
    if (!table) return;
    standingsPage(table);
  }
  $("main").hidden = false;
  done();
}

start();
