// The table pad's service worker (served as /record/sw.js, scope /record/): it keeps the pad's own files
// so that a reload without the network still opens the pad, whose queued taps and last table are in
// localStorage. Network first (a new version is used as soon as it is served), the kept copy offline.
// It never answers an API request: those go to the network as the page sends them, or fail offline.

const CACHE = "tablebook-pad-3";
const PAGE = "/record/";
const FILES = [PAGE, "/static/record.js", "/static/record.css", "/static/newgame.js", "/static/replay.css",
  "/static/site.css", "/static/site.js", "/static/offline.js", "/static/padwords.js",
  "/static/cards.js", "/static/tables.js", "/static/request.js", "/static/favicon.svg"];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith("tablebook-pad-") && k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  const page = request.mode === "navigate" && url.pathname.startsWith("/record");
  if (!page && !FILES.includes(url.pathname)) return;
  const key = page ? PAGE : url.pathname;
  event.respondWith(fetch(request).then((response) => {
    if (response.ok) {
      const copy = response.clone();
      caches.open(CACHE).then((cache) => cache.put(key, copy));
    }
    return response;
  }).catch(() => caches.match(key).then((kept) => kept || Response.error())));
});
