// The events page: /events (the club's events, a form for a new one) and /events/{id} (its rounds and tables,
// the standings with each cell explained, every board's traveller, the board set's commitment), and the
// printable results /events/{id}/print (one A4 page a round, then the standings).
//
// Data: only the API (/v1/events...), with the key kept in this tab (`site.js`). A board's traveller is shown
// once every table has finished it (the API compares nothing before); text goes in with textContent.

import { h } from "./cards.js";
import { requestJson } from "./request.js";
import { headerKey, problemOf, showKeyForm, showProblem, storedKey, when } from "./site.js";
import { TITLES } from "./tables.js";

const $ = (id) => document.getElementById(id);
const api = (path, options = {}) => requestJson(path, { token: storedKey(), ...options });
const parts = window.location.pathname.split("/").filter(Boolean);
const eventId = parts[1] ? decodeURIComponent(parts[1]) : null;
const printing = parts[2] === "print";

function done() {
  document.body.dataset.busy = "0";
}

async function load(path, context) {
  try {
    return await api(path);
  } catch (error) {
    const problem = problemOf(error, context);
    if (error.status === 401) showKeyForm($("key-box"), { message: `${problem.title}. ${problem.text}` }, start);
    else showProblem($("problem"), problem, { retry: start, key: () => showKeyForm($("key-box"), {}, start) });
    done();
    return null;
  }
}

const num = (value) => (value === null || value === undefined ? "–" : String(value));
const signed = (value) => (value > 0 ? `+${value}` : String(value));

// --------------------------------------------------------------------------- the list and the form

function listPage(body) {
  $("list-view").hidden = false;
  $("events").replaceChildren(...body.events.map((e) => h("li", { dataset: { event: e.id } },
    h("a", { href: `/events/${encodeURIComponent(e.id)}` }, h("strong", {}, e.name), " · ",
      `${TITLES[e.game] || e.game}, ${e.players.length} players, ${e.movement}`,
      e.boards ? `, ${e.boards} boards a round` : "", ` · ${when(e.created_at)}`))));
  $("events-empty").hidden = body.events.length > 0;
  $("new-event").onsubmit = async (submit) => {
    submit.preventDefault();
    const form = new FormData($("new-event"));
    const boards = Number(form.get("boards") || 0);
    const body = {
      name: form.get("name"), game: form.get("game"), movement: form.get("movement"),
      players: String(form.get("players")).split("\n").map((p) => p.trim()).filter(Boolean),
      rounds: Number(form.get("rounds") || 1), boards,
      scoring: boards ? (form.get("scoring") === "wins" ? "matchpoints" : form.get("scoring")) : "wins",
    };
    if (form.get("seats")) body.seats = Number(form.get("seats"));
    try {
      const made = await api("/v1/events", { method: "POST", body });
      window.location.assign(`/events/${encodeURIComponent(made.id)}`);
    } catch (error) {
      $("new-problem").textContent = error.body && error.body.error ? error.body.error.message : String(error);
      $("new-problem").hidden = false;
    }
  };
}

// --------------------------------------------------------------------------- one event

function standingsTable(results) {
  const s = results.standings;
  const duplicate = results.event.boards > 0;
  const head = duplicate
    ? ["Place", "Player", "Matchpoints", "%", "IMPs", "Boards", "Why"]
    : ["Place", "Player", "Wins", "Points difference", "Games", "Why"];
  const rows = s.rows.map((r) => h("tr", { dataset: { player: r.name } },
    h("td", { class: "num" }, String(r.place)), h("td", {}, r.name),
    ...(duplicate
      ? [h("td", { class: "num wide" }, `${r.matchpoints} / ${r.top}`), h("td", { class: "num" }, num(r.percentage)),
        h("td", { class: "num" }, signed(r.imps)), h("td", { class: "num wide" }, String(r.boards))]
      : [h("td", { class: "num" }, String(r.wins)), h("td", { class: "num" }, signed(r.difference)),
        h("td", { class: "num wide" }, String(r.games))]),
    h("td", {}, r.cells.length
      ? h("details", {}, h("summary", {}, `${r.cells.length} ${duplicate ? "boards" : "games"}`),
        h("ul", {}, ...r.cells.map((c) => h("li", {}, h("a", {
          href: `/replay/${encodeURIComponent(c.game_id)}${c.events && c.events.length ? `#${c.events[c.events.length - 1]}` : ""}`,
        }, c.reason)))))
      : "–")));
  return [h("thead", {}, h("tr", {}, ...head.map((t) => h("th", { class: ["Boards", "Games", "Matchpoints"].includes(t) ? "wide" : null }, t)))),
    h("tbody", {}, ...rows)];
}

function roundCard(round) {
  return h("div", { class: "round-card panel", dataset: { round: round.round } },
    h("h3", {}, `Round ${round.round}`, round.finished ? " · finished" : round.started_at ? " · playing" : " · planned"),
    h("table", { class: "round-tables" },
      h("thead", {}, h("tr", {}, h("th", {}, "Table"), h("th", {}, "Players by seat"), h("th", {}, "Game"))),
      h("tbody", {}, ...round.tables.map((t) => h("tr", {},
        h("td", {}, String(t.table)), h("td", {}, t.players.join(" · ")),
        h("td", {}, t.game_id ? h("a", { href: `/replay/${encodeURIComponent(t.game_id)}` },
          `${t.status}${t.totals ? `, ${Object.values(t.totals).join("–")}` : ""}`) : "not started"))))),
    round.sit_out.length ? h("p", { class: "sit-out" }, `Sitting out: ${round.sit_out.join(", ")}`) : null);
}

function travellerCard(trav, names) {
  return h("div", { class: "traveller-card panel", dataset: { board: trav.board } },
    h("h3", {}, `Board ${trav.board} (round ${trav.round}, hand ${trav.hand})`),
    h("div", { class: "table-wrap" }, h("table", { class: "traveller" },
      h("thead", {}, h("tr", {}, h("th", {}, "Table"), h("th", { class: "wide" }, "Seat"), h("th", {}, "Player"),
        h("th", {}, "Points"), h("th", { class: "wide" }, "Result"), h("th", {}, "MP"), h("th", {}, "IMPs"))),
      h("tbody", {}, ...trav.tables.filter((t) => t.played).flatMap((t) => t.players.map((p, seat) => h("tr", {},
        h("td", {}, String(t.table)), h("td", { class: "wide" }, String(seat)), h("td", {}, names[p]),
        h("td", { class: "num" }, String(t.points[seat])), h("td", { class: "num wide" }, signed(t.results[seat])),
        h("td", { class: "num" }, `${t.matchpoints[seat]}/${trav.top}`), h("td", { class: "num" }, signed(t.imps[seat])))))))));
}

async function download(path, name) {
  const response = await fetch(path, { headers: { Authorization: `Bearer ${storedKey()}` } });
  const url = URL.createObjectURL(await response.blob());
  h("a", { href: url, download: name }).click();
  URL.revokeObjectURL(url);
}

function actions(event) {
  const out = [h("a", { class: "button", href: `/events/${encodeURIComponent(event.id)}/print` }, "Printable results"),
    h("button", { type: "button", onclick: () => download(`/v1/events/${event.id}/results?format=csv`, `${event.id}-results.csv`) }, "CSV"),
    h("button", { type: "button", onclick: () => download(`/v1/events/${event.id}/export`, `${event.id}-event.json`) }, "Whole record")];
  const next = event.rounds.find((r) => !r.started_at);
  if (next) {
    out.push(h("button", { type: "button", class: "primary", onclick: async () => {
      await api(`/v1/events/${event.id}/rounds/${next.round}/start`, { method: "POST" }).catch(() => null);
      start();
    } }, `Start round ${next.round}`));
  } else if (event.movement === "swiss" && event.rounds.length < event.planned_rounds) {
    out.push(h("button", { type: "button", class: "primary", onclick: async () => {
      await api(`/v1/events/${event.id}/rounds`, { method: "POST" }).catch(() => null);
      start();
    } }, "Pair the next round"));
  }
  return out;
}

function eventPage(event, results) {
  $("event-view").hidden = false;
  $("title").textContent = event.name;
  $("lead").textContent = `${event.kind === "tournament" ? "Tournament" : "Club evening"} · ${TITLES[event.game] || event.game}`;
  document.title = `${event.name} · Tablebook`;
  $("facts").textContent = `${event.players.length} players, ${event.seats} a table, ${event.rounds.length} of ` +
    `${event.planned_rounds} rounds planned. Movement: ${event.movement_rule} (nobody meets anybody more than ` +
    `${event.most_meetings === 1 ? "once" : `${event.most_meetings} times`}` +
    `${event.met_most ? `; so far at most ${event.met_most === 1 ? "once" : `${event.met_most} times`}` : ""}).`;
  $("actions").replaceChildren(...actions(event));
  $("tie-breaks").textContent = `Ordered by ${results.standings.tie_breaks.join(", then ")}; players still equal share the place.`;
  $("standings").replaceChildren(...standingsTable(results));
  $("rounds").replaceChildren(...event.rounds.map(roundCard));
  $("travellers").replaceChildren(...results.travellers.map((t) => travellerCard(t, event.players)));
  $("pending").textContent = results.pending_boards.length
    ? `${results.pending_boards.length} boards still being played somewhere: each is shown once every table has finished it.`
    : results.travellers.length ? "" : "No boards in this event: each table deals its own cards.";
  $("boards-panel").hidden = !event.board_set;
  if (event.board_set) {
    $("same-deal").textContent = `Every table gets the same deal on each board (${event.same_deal}); ` +
      `${event.board_set.boards.filter((b) => b.seed).length} of ${event.board_set.count} boards revealed.`;
    $("commitment").textContent = `Commitment ${event.board_set.commitment}`;
  }
}

function printPage(event, results) {
  const main = $("print");
  const names = event.players;
  const pages = event.rounds.map((round) => h("section", { class: "print-page", dataset: { round: round.round } },
    h("h1", {}, `${event.name} · round ${round.round}`),
    h("p", {}, `${TITLES[event.game] || event.game} · ${event.movement_rule}`),
    roundCard(round),
    ...results.travellers.filter((t) => t.round === round.round).map((t) => travellerCard(t, names))));
  const standings = h("section", { class: "print-page" }, h("h1", {}, `${event.name} · standings`),
    h("p", {}, `Ordered by ${results.standings.tie_breaks.join(", then ")}.`),
    h("table", { class: "event-standings" }, ...standingsTable(results)));
  main.replaceChildren(...pages, standings);
  $("back").href = `/events/${encodeURIComponent(event.id)}`;
  $("print-button").onclick = () => window.print();
  for (const details of main.querySelectorAll("details")) details.open = true;
}

async function start() {
  headerKey();
  document.body.dataset.busy = "1";
  $("problem").hidden = true;
  $("key-box").hidden = true;
  if (!storedKey()) {
    showKeyForm($("key-box"), { why: "The club's events are shown with the club's key." }, start);
    done();
    return;
  }
  if (!eventId) {
    const body = await load("/v1/events", { what: "events" });
    if (!body) return;
    listPage(body);
  } else {
    const event = await load(`/v1/events/${encodeURIComponent(eventId)}`, { what: "event", id: eventId });
    const results = event && await load(`/v1/events/${encodeURIComponent(eventId)}/results`, { what: "event", id: eventId });
    if (!results) return;
    if (printing) printPage(event, results);
    else eventPage(event, results);
  }
  if ($("content")) $("content").hidden = false;
  done();
}

start();
