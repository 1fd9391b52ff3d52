// A team-sync Transport over fetch.

/**
 * A `Transport` for `TeamSync` over `fetch`: sends the request as given and answers
 * `{ status, headers, body }`. A network failure rejects (the sync reports it and retries).
 *
 * @param {typeof fetch} [doFetch]
 * @example
 * const sync = new TeamSync({ fs, dir, baseUrl, repo: "acme/app", transport: fetchTransport() });
 */
export function fetchTransport(doFetch = globalThis.fetch) {
  return async ({ method, url, headers, body }) => {
    const response = await doFetch(url, { method, headers, body });
    const out = {};
    response.headers.forEach((value, key) => {
      out[key] = value;
    });
    return { status: response.status, headers: out, body: await response.text() };
  };
}
