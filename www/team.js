// The Team tab: team memory (team/) and, when a git remote is configured, a Sync button that
// pulls then pushes it through the remote (memdir's `teamSync({ git })`, isomorphic-git loaded
// from www/vendor only when syncing). The remote's URL is kept in this browser; a token is not.

const $ = (id) => document.getElementById(id);
const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  for (const child of children) if (child != null) node.append(child);
  return node;
};

/** Where the remote's URL is kept. */
export const GIT_KEY = "memdir-demo:git-url";
const VENDOR = new URL("./vendor/node_modules/isomorphic-git/", import.meta.url);

const MODULES = new URL("./vendor/node_modules/", import.meta.url);

/** A vendored CommonJS package (its `index.js` and the packages it requires), without a
 * bundler: isomorphic-git expects Node's `Buffer`, which the `buffer` package provides. */
async function cjs(name) {
  const source = await (await fetch(new URL(`${name}/index.js`, MODULES))).text();
  const deps = {};
  for (const m of source.matchAll(/require\(['"]([^'"./][^'"]*)['"]\)/g)) deps[m[1]] ??= await cjs(m[1]);
  const module = { exports: {} };
  new Function("module", "exports", "require", source)(module, module.exports, (n) => deps[n]);
  return module.exports;
}

let loading;
/** isomorphic-git's UMD build (the `git` global) and its fetch-based HTTP client. */
function loadGit() {
  loading ??= (async () => {
    globalThis.Buffer ??= (await cjs("buffer")).Buffer;
    if (!globalThis.git) {
      await new Promise((resolve, reject) => {
        const script = el("script", { src: new URL("index.umd.min.js", VENDOR).href });
        script.onload = resolve;
        script.onerror = () => reject(new Error("isomorphic-git is not installed in www/vendor (run scripts/setup.sh)"));
        document.head.append(script);
      });
    }
    const http = (await import(new URL("http/web/index.js", VENDOR).href)).default;
    return { module: globalThis.git, http };
  })();
  loading.catch(() => (loading = undefined));
  return loading;
}

export function setupTeam({ state, DIR, lib, toast, describeError, refresh }) {
  const remote = () => localStorage.getItem(GIT_KEY) ?? "";
  const fromQuery = new URLSearchParams(location.search).get("git");
  if (fromQuery) localStorage.setItem(GIT_KEY, fromQuery);

  async function render() {
    $("git-url").value = remote();
    $("team-sync").hidden = !remote();
    $("team-remote").textContent = remote() ? `Remote: ${remote()}` : "No remote configured: team memory stays in this browser.";
    const list = $("team-list");
    list.replaceChildren();
    const team = (await state.memdir.scan()).filter((h) => h.filename.startsWith("team/"));
    for (const h of team) {
      const item = el("li", { className: "team-item" }, el("b", { textContent: h.filename.slice(5) }), ` — ${h.description ?? ""}`);
      item.dataset.file = h.filename;
      list.append(item);
    }
    if (!list.children.length) list.append(el("li", { className: "muted", textContent: "No team memories yet (save one with scope “team”)." }));
  }

  $("git-save").addEventListener("click", () => {
    const url = $("git-url").value.trim();
    if (url) localStorage.setItem(GIT_KEY, url);
    else localStorage.removeItem(GIT_KEY);
    render();
  });

  $("team-sync").addEventListener("click", async () => {
    const button = $("team-sync");
    button.disabled = true;
    $("team-status").textContent = "Syncing…";
    try {
      const { module, http } = await loadGit();
      const token = $("git-token").value;
      const git = { url: remote(), module, http, fs: lib.gitOpfsFs(), ...(token ? { auth: { token } } : {}) };
      const sync = state.memdir.teamSync({ git });
      const pulled = await sync.pull();
      const pushed = await sync.push();
      const notes = [
        `pulled ${pulled.filesWritten}, pushed ${pushed.filesUploaded}`,
        ...pulled.skipped.map((s) => `not pulled: ${s.key} (${s.reason.kind})`),
        ...pushed.skippedSecrets.map((s) => `not pushed (secret): ${s.path}`),
        ...[...pulled.savedCopies, ...pushed.savedCopies].map((c) => `kept the other version in team/${c}`),
      ];
      $("team-status").textContent = notes.join(" · ");
      window.__teamSynced = { pulled, pushed };
      await refresh();
      await render();
      toast("Team memory synced");
    } catch (err) {
      $("team-status").textContent = `Sync failed: ${describeError(err)}`;
      window.__teamSynced = { error: describeError(err) };
      toast(describeError(err), "error");
    } finally {
      button.disabled = false;
    }
  });

  return { show: render, DIR };
}
