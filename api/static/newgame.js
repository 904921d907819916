// The pad's "new game" form (GET /record): game, players, options with their help texts, event/round/table.
//
// The games and their options (defaults, values, help texts) come from `GET /v1/games/rules`, the club's
// rule profiles from `GET /v1/profiles` (a profile fills the options, and is named in the creation); the
// players offered are the names in the club's games (`GET /v1/games`): there is no player register yet.
// The game is created with `POST /v1/games` and the pad opens on it.

import { h } from "./cards.js";
import { problemOf } from "./site.js";
import { TITLES } from "./tables.js";

const $ = (id) => document.getElementById(id);
const words = (text) => String(text).replaceAll("_", " ");
/** "14:05" today, else "1 Dec 14:05", in the device's time zone. */
function started(iso) {
  const at = new Date(iso);
  const time = at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return at.toDateString() === new Date().toDateString() ? time : `${at.toLocaleDateString([], { day: "numeric", month: "short" })} ${time}`;
}

//: `GET /v1/games/rules`' value types, as the form's controls are named
const TYPES = { boolean: "bool", integer: "int", choice: "choice", seat: "seat" };

/** The games, their player counts and options (`GET /v1/games/rules`), each option with its control's type. */
async function catalogue(api) {
  const given = await api("/v1/games/rules");
  return given.games.map((game) => ({
    ...game,
    options: game.options.map((o) => ({
      ...o,
      type: TYPES[o.values.type] || "text",
      min: o.values.minimum,
      max: o.values.maximum,
      choices: o.values.choices,
      hint: o.values.text || "",
    })),
  }));
}

/** The club's rule profiles (`GET /v1/profiles`): none when the route is missing. */
async function ruleProfiles(api) {
  try {
    return (await api("/v1/profiles")).profiles;
  } catch {
    return [];
  }
}

/** The names in the club's games, most recent first, each once (a key refused is the page's problem). */
async function knownPlayers(api) {
  try {
    const page = await api("/v1/games?limit=200");
    const seen = [];
    for (const game of page.games) for (const name of game.players) if (!seen.includes(name)) seen.push(name);
    return { names: seen, live: page.games.filter((g) => g.status === "live") };
  } catch (error) {
    if (error && error.status === 401) throw error;
    return { names: [], live: [] };
  }
}

/**
 * An option's help in a player's words: the games write it for the API (a rule's id in brackets, `true`,
 * `None`, `10**9`, quoted values); the form says the same plainly.
 */
export function plainHelp(text) {
  return String(text || "")
    .replace(/\s*\((?:[a-z0-9_]+\.[a-z0-9_]+)(?:,\s*[a-z]+)?\)/g, "")
    .replace(/`([^`]*)`/g, "$1")
    .replace(/\s*\((?:rules|docs)\/[a-z0-9_./-]+\)/g, "")
    .replace(/\{box, captain, sitter\}/g, "the box, the captain and the one who sits out")
    .replace(/"([a-z0-9_]+)"/g, (_, v) => `“${v.replaceAll("_", " ")}”`)
    .replace(/\btrue\b/g, "on")
    .replace(/\bfalse\b/g, "off")
    .replace(/\bNone\b/g, "none")
    .replace(/\b10\*\*9\b/g, "1,000,000,000")
    .replace(/\s+/g, " ")
    .trim();
}

//: the controls of options whose value is not a number, a choice or a switch
const SPECIAL = {
  first_roles: (option, players, common) => {
    const roles = [["box", "Box"], ["captain", "Captain"], ["sitter", "Sits out"]];
    const box = h("div", { class: "roles-option", ...common, role: "group", "aria-label": "First hand's roles" });
    const decide = h("select", { id: "opt-first_roles-by", "aria-label": "How the first roles are chosen" },
      h("option", { value: "cut" }, "a cut decides"), h("option", { value: "set" }, "set them here"));
    const selects = roles.map(([role, label]) => h("label", { class: "role-pick", hidden: true }, label,
      h("select", { id: `opt-first_roles-${role}`, class: "seat-option", dataset: { role } },
        players.map((name, i) => h("option", { value: i, selected: roles.findIndex(([r]) => r === role) === i }, name || `player ${i + 1}`)))));
    decide.addEventListener("change", () => {
      for (const label of selects) label.hidden = decide.value !== "set";
    });
    box.append(decide, ...selects);
    return box;
  },
  wild_card: (option, players, common) => {
    const faces = ["J", "Q", "K"].flatMap((r) => ["S", "H", "C", "D"].map((s) => r + s));
    const glyph = { S: "♠", H: "♥", C: "♣", D: "♦" };
    return h("select", common, h("option", { value: "" }, "none"), faces.map((c) => h("option", { value: c }, `${c[0]}${glyph[c[1]]}`)));
  },
};

function optionControl(option, players) {
  const id = `opt-${option.name}`;
  const help = h("p", { class: "option-help", id: `${id}-help` }, plainHelp([option.help, option.hint].filter(Boolean).join(" ")));
  const label = words(option.name);
  const common = { id, name: option.name, "aria-describedby": `${id}-help`, dataset: { option: option.name } };
  let control;
  if (option.type === "bool") {
    control = h("input", { ...common, type: "checkbox", checked: option.default === true });
    return h("div", { class: "option option-bool" },
      h("label", { for: id }, control, h("span", { class: "option-name" }, label)), help);
  }
  if (option.type === "choice") {
    control = h("select", common, option.choices.map((c) => h("option", {
      value: JSON.stringify(c), selected: JSON.stringify(c) === JSON.stringify(option.default),
    }, c === null ? "none" : words(c))));
  } else if (option.type === "seat") {
    control = h("select", { ...common, class: "seat-option" });
    fillSeats(control, players, option.default);
  } else if (SPECIAL[option.name]) {
    control = SPECIAL[option.name](option, players, common);
  } else if (option.type === "int") {
    control = h("input", { ...common, type: "number", inputmode: "numeric", min: option.min, max: option.max,
      step: 1, value: option.default });
  } else {
    control = h("input", { ...common, type: "text", autocomplete: "off", spellcheck: "false",
      placeholder: option.default === null ? "blank: none" : `blank: ${JSON.stringify(option.default)}` });
  }
  return h("div", { class: `option option-${option.type}` }, h("label", { for: id }, label), control, help);
}

function fillSeats(select, players, value) {
  const keep = select.value === "" ? String(value) : select.value;
  select.replaceChildren(...players.map((name, i) => h("option", { value: String(i), selected: String(i) === keep },
    name || `player ${i + 1}`)));
}

/** Show `value` in an option's control (a profile's house rule). */
function setControl(option, value) {
  const el = $(`opt-${option.name}`);
  if (!el) return;
  if (option.name === "first_roles" && $("opt-first_roles-by")) {
    $("opt-first_roles-by").value = value ? "set" : "cut";
    $("opt-first_roles-by").dispatchEvent(new Event("change"));
    for (const role of ["box", "captain", "sitter"]) if (value && role in value) $(`opt-first_roles-${role}`).value = String(value[role]);
    return;
  }
  if (option.name === "wild_card" && el.tagName === "SELECT") {
    el.value = value || "";
    return;
  }
  if (option.type === "bool") el.checked = value === true;
  else if (option.type === "choice") el.value = JSON.stringify(value);
  else if (option.type === "text") el.value = value === null || value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
  else el.value = String(value);
}

/** An option's value from its control, or undefined for "as the default" (a blank text option). */
function optionValue(option) {
  const el = $(`opt-${option.name}`);
  if (option.type === "bool") return el.checked;
  if (option.type === "choice") return JSON.parse(el.value);
  if (option.type === "seat") return Number(el.value);
  if (option.name === "first_roles" && $("opt-first_roles-by")) {
    if ($("opt-first_roles-by").value !== "set") return undefined;
    const roles = Object.fromEntries(["box", "captain", "sitter"].map((role) => [role, Number($(`opt-first_roles-${role}`).value)]));
    if (new Set(Object.values(roles)).size !== 3) throw new Error("First roles: the box, the captain and the one who sits out are three different players");
    return roles;
  }
  if (option.name === "wild_card" && el.tagName === "SELECT") return el.value || null;
  if (option.type === "int") {
    const v = Number(el.value);
    if (!Number.isInteger(v) || v < option.min || v > option.max) {
      throw new Error(`${words(option.name)}: a whole number from ${option.min} to ${option.max}`);
    }
    return v;
  }
  const text = el.value.trim();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text; // a card code such as KD
  }
}

export async function startNewGame({ api, showProblem }) {
  $("new-game").hidden = false;
  $("title").textContent = "New game";
  document.title = "New game · table pad";
  let games;
  try {
    games = await catalogue(api);
  } catch (error) {
    showProblem(error);
    return;
  }
  let known;
  try {
    known = await knownPlayers(api);
  } catch (error) {
    showProblem(error);
    return;
  }
  const { names, live } = known;
  const profiles = await ruleProfiles(api);
  const profileSelect = $("new-profile");
  profileSelect.replaceChildren(...profiles.map((p) => h("option", { value: p.name },
    p.builtin ? `${p.name} (the game's own)` : p.name)));
  $("new-profile-field").hidden = profiles.length < 2;
  const profile = () => profiles.find((p) => p.name === profileSelect.value) || null;
  /** The options of the chosen profile for the game: its house rules, seating options never. */
  const profileValues = () => {
    const chosen = profile();
    return chosen && chosen.rules ? chosen.rules[kind.value] || {} : {};
  };
  const applyProfile = () => {
    const values = profileValues();
    for (const option of current().options) {
      if (!option.seating && option.name in values) setControl(option, values[option.name]);
    }
    const chosen = profile();
    const help = $("new-profile-help");
    help.hidden = !chosen || chosen.builtin;
    help.textContent = chosen && !chosen.builtin
      ? `The club's “${chosen.name}” house rules fill the options; what you change below is set on top.` : "";
  };
  profileSelect.onchange = applyProfile;
  $("known-players").replaceChildren(...names.map((n) => h("option", { value: n })));
  const kind = $("new-kind");
  kind.replaceChildren(...games.map((g) => h("option", { value: g.game }, TITLES[g.game] || g.title || g.game)));
  const current = () => games.find((g) => g.game === kind.value);
  const players = () => [...$("new-players").querySelectorAll("input")].map((i) => i.value.trim());

  const drawPlayers = () => {
    const game = current();
    const count = $("new-count");
    const keep = Number(count.value) || game.players[0];
    count.replaceChildren(...game.players.map((n) => h("option", { value: n, selected: n === keep }, String(n))));
    const n = Number(count.value);
    const before = players();
    const list = $("new-players");
    list.replaceChildren();
    for (let i = 0; i < n; i += 1) {
      const id = `player-${i}`;
      const input = h("input", { id, type: "text", list: "known-players", autocomplete: "off", required: true,
        maxlength: 100, value: before[i] || "", placeholder: i === 0 ? "first to sit" : "next, clockwise" });
      input.addEventListener("input", () => {
        for (const select of document.querySelectorAll(".seat-option")) fillSeats(select, players(), 0);
      });
      list.append(h("div", { class: "player" }, h("label", { for: id }, `Player ${i + 1}`), input));
    }
    for (const select of document.querySelectorAll(".seat-option")) fillSeats(select, players(), 0);
  };
  const drawOptions = () => {
    const game = current();
    $("new-options").replaceChildren(...game.options.map((o) => optionControl(o, players())));
    applyProfile();
  };
  kind.onchange = () => {
    $("new-count").value = "";
    drawPlayers();
    drawOptions();
  };
  $("new-count").onchange = () => {
    drawPlayers();
    drawOptions();
  };
  drawPlayers();
  drawOptions();

  if (live.length) {
    $("live-games").hidden = false;
    $("live-list").replaceChildren(...live.slice(0, 12).map((g) => h("li", {},
      h("a", { href: `/record/${encodeURIComponent(g.id)}`, class: "button-link" },
        `${TITLES[g.game] || g.game}: ${g.players.join(", ")}${g.table ? ` · table ${g.table}` : ""}`,
        h("span", { class: "live-when" }, ` · ${g.hand ? `hand ${g.hand}` : "not dealt"} · started ${started(g.created_at)}`)))));
  }

  $("new-form").onsubmit = async (e) => {
    e.preventDefault();
    const error = $("new-error");
    error.hidden = true;
    const game = current();
    const body = { game: game.game, players: players(), options: {} };
    try {
      if (body.players.some((p) => !p)) throw new Error("Every player needs a name.");
      const chosen = profile();
      if (chosen && !chosen.builtin) body.profile = chosen.name;
      const base = body.profile ? profileValues() : {};
      for (const option of game.options) {
        const value = optionValue(option);
        const given = option.name in base && !option.seating ? base[option.name] : option.default;
        if (value !== undefined && JSON.stringify(value) !== JSON.stringify(given)) body.options[option.name] = value;
      }
    } catch (problem) {
      error.textContent = problem.message;
      error.hidden = false;
      return;
    }
    for (const label of ["event", "round", "table"]) {
      const value = $(`new-${label}`).value.trim();
      if (value) body[label] = value;
    }
    $("new-submit").disabled = true;
    try {
      const created = await api("/v1/games", { method: "POST", body });
      window.location.assign(`/record/${encodeURIComponent(created.id)}`);
    } catch (problem) {
      const said = problem.status ? problemOf(problem, { what: "record", doing: "record" }) : null;
      error.textContent = said ? `${said.title}. ${said.text}` : problem.message || String(problem);
      error.hidden = false;
      $("new-submit").disabled = false;
    }
  };
}
