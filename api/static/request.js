// The one way the pages talk to the API: a JSON request with the reader's key, and its two failures.
//
// The replay page, the table pad and the player and standings pages all send the key (or share token)
// they were given as `Authorization: Bearer ...`, never let the browser cache an answer (a hidden card's
// visibility can change between two reads), and read errors in the shape of DESIGN.md
// (`{"error": {"code", "message", ...}}`).

/** The API refused: `status`, the error's `code` and `message`, and the whole `body` (e.g. a conflict's `actual`). */
export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.error && body.error.message) || `the server answered ${status}`);
    this.status = status;
    this.body = body;
    this.code = body && body.error ? body.error.code : null;
  }
}

/** The request never got an answer (offline, the server down): the table pad queues what it was sending. */
export class NetworkError extends Error {}

/**
 * `path` with `options.method` (GET), `options.body` (sent as JSON), `options.headers` and the bearer
 * `options.token`; resolves to the parsed JSON answer (null when it has none).
 */
export async function requestJson(path, options = {}) {
  const headers = { Accept: "application/json", ...(options.headers || {}) };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {
      method: options.method || "GET", headers, cache: "no-store",
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
  } catch (error) {
    throw new NetworkError(String(error));
  }
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}
