// What every page of the site shares: the key of this tab, and a problem said in plain words with a way back.
//
// The key (or a share link's token) is kept in this tab's sessionStorage under one name, so a key typed on
// one page opens every other. When a request fails, `problemOf` turns the API's answer (or its absence)
// into words a club secretary reads: what went wrong, what to do, and the links or buttons to do it; the
// API's own message stays under a "details" toggle. Text goes in with textContent, never as HTML.

import { h } from "./cards.js";
import { ApiError, NetworkError } from "./request.js";

export const KEY_STORE = "tablebook.key";
const $ = (id) => document.getElementById(id);

export const storedKey = () => sessionStorage.getItem(KEY_STORE);
export function saveKey(key) {
  sessionStorage.setItem(KEY_STORE, key.trim());
}
export function forgetKey() {
  sessionStorage.removeItem(KEY_STORE);
}

/** The roles a refusal names ("it needs a recorder or auditor key"), as the API writes them. */
function neededRoles(message) {
  const match = /needs an? ([a-z]+(?: or [a-z]+)*) key/.exec(String(message || ""));
  return match ? match[1].split(" or ") : [];
}

const article = (word) => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);
const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
const HOME = { label: "Home", href: "/" };
const GAMES = { label: "The club's games", href: "/replay" };

//: what a filter field is called on the pages
const FIELDS = {
  since: "From", until: "Until", game: "Game", player: "Player", status: "Status", event: "Event", round: "Round",
  limit: "Games a page", cursor: "Page",
};

/**
 * A problem in plain words: `{kind, title, text, actions: [{label, href} | {label, action}], detail}`.
 *
 * `context`: `what` the page was doing ("games", "game", "record", "standings", "player", "players",
 * "home"), `id` (a game id or a player), `share` (a share link's token was used), `clear` (the page
 * without its filters), `doing` (what a refused key tried: "record", "correct"...).
 */
export function problemOf(error, context = {}) {
  const detail = error && error.message ? String(error.message) : "";
  const retry = { label: "Try again", action: "retry" };
  if (error instanceof NetworkError) {
    return {
      kind: "error", title: "The server does not answer",
      text: "Tablebook could not reach its server. Check this device's connection (or that the Tablebook server " +
        "is running), then try again.",
      actions: [retry, HOME], detail: "",
    };
  }
  if (!(error instanceof ApiError)) {
    return { kind: "error", title: "Something went wrong on this page", text: "Reload the page to try again.",
      actions: [retry, HOME], detail };
  }
  const status = error.status;
  const body = error.body && error.body.error ? error.body.error : {};
  if (status === 503 || status === 502 || status === 504) {
    return { kind: "error", title: "The club's database is not answering",
      text: "The server is up, but its database did not answer just now. Wait a moment, then try again.",
      actions: [retry, HOME], detail };
  }
  if (status === 401) {
    if (context.share) {
      return { kind: "error", title: "This share link does not work any more",
        text: "It may have been revoked, or copied only in part. Ask whoever shared it for a new link.",
        actions: [HOME], detail };
    }
    return { kind: "error", title: "This key is not known here",
      text: "The server did not accept this key. Check that it was copied whole (it starts with tb_), or ask the " +
        "club's secretary for a new one.",
      actions: [{ label: "Enter another key", action: "key" }, HOME], detail };
  }
  if (status === 403) {
    if (context.share || body.role === "share") {
      return { kind: "error", title: "A share link opens one game only",
        text: "This link shows one game's finished hands; the rest of the club's records need the club's key.",
        actions: [{ label: "Enter the club's key", action: "key" }, HOME], detail };
    }
    const role = body.role || "this";
    const needed = neededRoles(body.message);
    const need = needed.length ? needed.map(article).join(" or ") : "another";
    const doing = { record: "record games", correct: "correct records", audit: "see the audit" }[context.doing];
    const can = { viewer: "look at the club's games", recorder: "record and look at games",
      auditor: "look at games and correct them" }[role];
    return {
      kind: "error", title: role === "this" ? "This key cannot do that" : `${capital(article(role))} key cannot do that`,
      text: `${can ? `This key may ${can}` : "This key may not do this"}${doing ? `, not ${doing}` : ""}. ` +
        `That needs ${need} key: ask the club's secretary for one.`,
      actions: [{ label: "Enter another key", action: "key" }, HOME], detail,
    };
  }
  if (status === 404) {
    if (context.what === "game" || context.what === "record") {
      return { kind: "error", title: `No game “${context.id}” in your club`,
        text: "The link may be mistyped, or the game belongs to another club (a key sees its own club's games only).",
        actions: [GAMES, HOME], detail };
    }
    if (context.what === "player") {
      return { kind: "error", title: `No player “${context.id}” in your club`,
        text: "The name may be spelt another way, or two players share it: pick them from the list.",
        actions: [{ label: "The club's players", href: "/players" }, HOME], detail };
    }
    return { kind: "error", title: "Nothing here", text: "This page asked for something the server does not have.",
      actions: [HOME], detail };
  }
  if (status === 422 && context.clear) {
    const field = body.field || "";
    const label = FIELDS[field] || field;
    let text = `The filter “${label}” could not be read: clear the filters, or correct it and show again.`;
    if (field === "since" || field === "until") {
      text = `The date in “${label}” could not be read: write it as 2026-12-01, or pick it from the calendar.`;
    } else if (field === "game") {
      text = "There is no such game: choose one from the list.";
    }
    return { kind: "error", title: "A filter is not right", text,
      actions: [{ label: "Clear the filters", href: context.clear }, HOME], detail };
  }
  return { kind: "error", title: "The server refused this", text: detail || `The server answered ${status}.`,
    actions: [retry, HOME], detail: "" };
}

/**
 * Draw a problem into `container` (replacing what is there): its title, text, actions, and the server's
 * own words behind a toggle. `handlers`: `{retry, key}` for the action buttons.
 */
export function showProblem(container, problem, handlers = {}) {
  const actions = problem.actions.map((action) => {
    if (action.href) return h("a", { class: "button", href: action.href }, action.label);
    const run = handlers[action.action];
    if (!run) return null;
    return h("button", { type: "button", class: "button", dataset: { action: action.action }, onclick: run }, action.label);
  });
  container.replaceChildren(h("div", { class: `problem problem-${problem.kind}`, role: "alert", dataset: { title: problem.title } },
    h("h2", {}, problem.title), h("p", {}, problem.text), h("div", { class: "actions" }, actions),
    problem.detail ? h("details", {}, h("summary", {}, "What the server said"), h("p", {}, problem.detail)) : null));
  container.hidden = false;
}

/**
 * The inline key form of a page of the site: why a key is needed, where to get one, a field; `onKey(key)`
 * once one is given (kept in this tab).
 */
export function showKeyForm(container, { message = "", why = "This page reads the club's records." } = {}, onKey) {
  const input = h("input", { id: "key-input", name: "key", type: "password", autocomplete: "off", spellcheck: "false",
    placeholder: "tb_…", required: true });
  const form = h("form", { id: "key-form" },
    h("label", { for: "key-input" }, "The club's key", input),
    h("button", { type: "submit", class: "primary", id: "key-submit" }, "Open"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!input.value.trim()) return;
    saveKey(input.value);
    onKey(input.value.trim());
  });
  container.replaceChildren(h("section", { class: "panel key-panel", "aria-labelledby": "key-h" },
    h("h2", { id: "key-h" }, "Open with the club's key"),
    message ? h("p", { class: "form-error", id: "key-error", role: "alert" }, message) : null,
    h("p", {}, `${why} A key comes from the club's secretary (a recorder key records games, a viewer key only ` +
      "looks). It stays in this browser tab and is sent only to this server."),
    form));
  container.hidden = false;
  input.focus();
}

/** The header's key corner: "Forget key" while this tab holds one (the page reloads without it). */
export function headerKey() {
  const corner = $("site-key");
  if (!corner) return;
  if (!storedKey()) {
    corner.replaceChildren();
    return;
  }
  corner.replaceChildren(h("span", {}, "key kept in this tab"), h("button", { type: "button", id: "site-forget", onclick: () => {
    forgetKey();
    window.location.reload();
  } }, "Forget key"));
}

/** "14:05" today, else "1 Dec 14:05", in this device's time zone. */
export function when(iso) {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return "";
  const time = at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  if (at.toDateString() === new Date().toDateString()) return `today ${time}`;
  const sameYear = at.getFullYear() === new Date().getFullYear();
  return `${at.toLocaleDateString([], { day: "numeric", month: "short", year: sameYear ? undefined : "numeric" })} ${time}`;
}
