// The inspector tabs: the assembled prompt, recall, lint.

const $ = (id) => document.getElementById(id);
const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  for (const child of children) if (child != null) node.append(child);
  return node;
};

const PROVIDER_DEFAULTS = {
  anthropic: { endpoint: "https://api.anthropic.com", model: "claude-sonnet-4-6" },
  openai: { endpoint: "https://api.openai.com/v1", model: "gpt-4.1-mini" },
};

const ANSWERED_BY = {
  lexical: "the built-in ranker",
  llm: "the model",
  "llm+prefilter": "the model, over the ranker's shortlist",
  semantic: "embeddings alone",
  "lexical+semantic": "the ranker and embeddings, fused",
};

/** Where the embeddings settings are kept, only when the user ticks "Remember". */
export const EMBED_KEY = "memdir-demo:embed";

/** Why recall picked a memory, as a small panel: its score, the matched terms by field, cosine. */
export function whyPanel(why) {
  const box = el("div", { className: "why" });
  if (!why) return box;
  box.append(el("span", { className: "why-score", textContent: `score ${why.score.toFixed(3)}` }));
  if (why.lexical) {
    const terms = el("span", { className: "why-terms" });
    for (const t of why.lexical.terms) {
      terms.append(el("span", { className: "term", title: `in ${t.fields.join(", ")}` },
        el("b", { textContent: t.term }), ` ${t.fields.join(" · ")}`));
    }
    box.append(el("span", { className: "muted", textContent: ` words ${why.lexical.score.toFixed(3)}:` }), terms);
  } else {
    box.append(el("span", { className: "muted", textContent: " no query word matched" }));
  }
  if (why.semantic) box.append(el("span", { className: "why-cosine", textContent: `cosine ${why.semantic.cosine.toFixed(3)}` }));
  return box;
}

export function setupPanels({ state, DIR, lib, openMemory, toast, describeError }) {
  let stale = { prompt: true, lint: true };

  // ---- prompt ----

  async function renderPrompt() {
    const mode = $("prompt-mode").value;
    const extra = $("prompt-extra").value.trim();
    const options = { mode, memoryDir: DIR, skipIndex: $("prompt-skip-index").checked };
    if (extra) options.extraGuidelines = [extra];
    let index = null;
    if (mode === "agent") {
      options.agentScope = "project";
      options.agentIndex = lib.truncateEntrypoint(state.rawIndex).content;
    } else if (!options.skipIndex) {
      // In these modes MEMORY.md reaches the model beside the prompt, as readIndex returns it.
      index = await state.memdir.readIndex();
    }
    try {
      const text = lib.buildMemoryPrompt(options);
      $("prompt-output").textContent = text;
      $("prompt-meta").textContent = `${text.length.toLocaleString("en-US")} characters · ~${Math.ceil(text.length / 4).toLocaleString("en-US")} tokens`;
    } catch (err) {
      $("prompt-output").textContent = "";
      $("prompt-meta").textContent = describeError(err);
    }
    $("prompt-index-block").hidden = !index;
    if (index) {
      $("prompt-index").textContent = index.exists ? index.content : "(MEMORY.md does not exist yet)";
      $("prompt-index-meta").textContent = `${index.lineCount} lines · ${index.byteCount.toLocaleString("en-US")} units${index.wasLineTruncated || index.wasByteTruncated ? " · truncated" : ""}`;
    }
    stale.prompt = false;
  }
  for (const id of ["prompt-mode", "prompt-skip-index", "prompt-extra"]) {
    $(id).addEventListener("input", () => renderPrompt().catch((err) => toast(describeError(err), "error")));
  }

  // ---- recall ----

  function modelSettings() {
    const provider = $("model-provider").value;
    const apiKey = $("model-key").value.trim();
    if (!provider || !apiKey) return null;
    const defaults = PROVIDER_DEFAULTS[provider];
    return {
      provider,
      apiKey,
      baseUrl: $("model-endpoint").value.trim() || defaults.endpoint,
      model: $("model-name").value.trim() || defaults.model,
    };
  }
  function renderModelSummary() {
    const m = modelSettings();
    $("model-summary").textContent = m ? `${m.model} at ${new URL(m.baseUrl).host}` : "built-in ranker (no network)";
  }
  for (const id of ["model-provider", "model-key", "model-endpoint", "model-name"]) {
    $(id).addEventListener("input", () => {
      try {
        renderModelSummary();
      } catch {
        $("model-summary").textContent = "the endpoint is not a URL";
      }
    });
  }
  $("model-provider").addEventListener("change", () => {
    const d = PROVIDER_DEFAULTS[$("model-provider").value];
    $("model-endpoint").placeholder = d ? d.endpoint : "default for the provider";
    $("model-name").placeholder = d ? d.model : "default for the provider";
  });

  function embedSettings() {
    const baseUrl = $("embed-url").value.trim();
    if (!baseUrl) return null;
    return { baseUrl, model: $("embed-model").value.trim(), apiKey: $("embed-key").value.trim() };
  }
  function renderEmbedSummary() {
    const e = embedSettings();
    try {
      $("embed-summary").textContent = e ? `${e.model || "text-embedding-3-small"} at ${new URL(e.baseUrl).host}` : "none — words only";
    } catch {
      $("embed-summary").textContent = "the URL is not a URL";
    }
  }
  function storeEmbedSettings() {
    if (!$("embed-remember").checked) {
      localStorage.removeItem(EMBED_KEY);
      return;
    }
    const values = { url: $("embed-url").value, model: $("embed-model").value, key: $("embed-key").value };
    localStorage.setItem(EMBED_KEY, JSON.stringify(values));
  }
  try {
    const saved = JSON.parse(localStorage.getItem(EMBED_KEY) ?? "null");
    if (saved && typeof saved === "object") {
      $("embed-url").value = String(saved.url ?? "");
      $("embed-model").value = String(saved.model ?? "");
      $("embed-key").value = String(saved.key ?? "");
      $("embed-remember").checked = true;
    }
  } catch {
    localStorage.removeItem(EMBED_KEY);
  }
  renderEmbedSummary();
  for (const id of ["embed-url", "embed-model", "embed-key", "embed-remember"]) {
    $(id).addEventListener("input", () => {
      renderEmbedSummary();
      storeEmbedSettings();
    });
  }

  // A Memdir per distinct setting, so the index (and the embedder's vectors) stay warm.
  let recallCache = { key: "", memdir: null };
  function recallMemdir() {
    const m = modelSettings();
    const e = embedSettings();
    if (!m && !e) return state.memdir;
    const key = JSON.stringify([m, e]);
    if (recallCache.key === key && recallCache.memdir) return recallCache.memdir;
    const extra = {};
    if (m) {
      extra.llm = m.provider === "anthropic"
        ? lib.anthropicLlm({ apiKey: m.apiKey, model: m.model, baseUrl: m.baseUrl })
        : lib.openAiLlm({ apiKey: m.apiKey, model: m.model, baseUrl: m.baseUrl });
    }
    if (e) {
      extra.embed = lib.openAiEmbed({
        baseUrl: e.baseUrl,
        ...(e.model ? { model: e.model } : {}),
        ...(e.apiKey ? { apiKey: e.apiKey } : {}),
      });
    }
    recallCache = { key, memdir: new lib.Memdir({ fs: state.fs, dir: DIR, ...extra }) };
    return recallCache.memdir;
  }

  async function surfaced(memdir, memories) {
    const items = await memdir.surface(memories);
    return items.map((s) => ({ path: s.path, header: s.header, content: s.content }));
  }

  let recallAbort = null;
  async function runRecall(event) {
    event.preventDefault();
    const query = $("recall-query").value.trim();
    if (!query) {
      $("recall-meta").textContent = "Type a query first.";
      return;
    }
    recallAbort?.abort();
    const controller = (recallAbort = new AbortController());
    const limit = Math.max(1, Math.min(20, Number($("recall-limit").value) || 5));
    $("recall-meta").textContent = "Recalling…";
    $("recall-results").replaceChildren();
    const started = performance.now();
    try {
      const memdir = recallMemdir();
      const found = await memdir.findRelevant(query, { signal: controller.signal, limit, explain: true });
      const items = await surfaced(memdir, found.memories);
      const whys = new Map(found.memories.map((m) => [m.path, m.why]));
      if (controller !== recallAbort) return;
      const ms = Math.round(performance.now() - started);
      const by = ANSWERED_BY[found.answeredBy] ?? found.answeredBy;
      const outcome = found.outcome ? ` · ${typeof found.outcome === "string" ? found.outcome : JSON.stringify(found.outcome)}` : "";
      $("recall-meta").replaceChildren(
        el("span", { className: `badge answered ${found.answeredBy}`, textContent: found.answeredBy }),
        ` ${items.length} ${items.length === 1 ? "memory" : "memories"} selected by ${by} in ${ms} ms${outcome}`,
      );
      $("recall-meta").dataset.answeredBy = found.answeredBy;
      if (!items.length) $("recall-results").append(el("p", { className: "empty", textContent: "Nothing relevant." }));
      for (const item of items) {
        const file = item.path.startsWith(DIR) ? item.path.slice(DIR.length) : item.path;
        const open = el("a", { href: "#", textContent: file });
        open.addEventListener("click", (e) => {
          e.preventDefault();
          const h = state.headers.find((x) => x.filePath === item.path || x.filename === file);
          if (h) openMemory(h);
        });
        $("recall-results").append(
          el("article", { className: "recalled" },
            el("div", { className: "recalled-head" }, el("span", { className: "freshness", textContent: item.header }), open),
            whyPanel(whys.get(item.path)),
            el("pre", { className: "output small", textContent: item.content }),
          ),
        );
      }
    } catch (err) {
      if (controller !== recallAbort) return;
      $("recall-meta").textContent = `Recall failed: ${describeError(err)}`;
    }
  }
  $("recall-form").addEventListener("submit", runRecall);

  // ---- lint ----

  async function runLint() {
    $("lint-meta").textContent = "Checking…";
    const list = $("lint-findings");
    try {
      const report = await state.memdir.lint();
      const findings = report.findings;
      list.replaceChildren();
      $("lint-meta").textContent = findings.length
        ? `${findings.length} ${findings.length === 1 ? "finding" : "findings"}`
        : "No problems found.";
      for (const f of findings) {
        const item = el("li", { className: `finding ${f.severity ?? ""}` },
          el("code", { className: "code", textContent: f.code }),
          el("span", { className: "message", textContent: ` ${f.message}` }),
        );
        if (f.file) {
          const link = el("a", { href: "#", className: "finding-file", textContent: f.file });
          link.addEventListener("click", (e) => {
            e.preventDefault();
            const h = state.headers.find((x) => x.filename === f.file || x.filePath === f.file);
            if (h) openMemory(h);
          });
          item.append(" ", link);
        }
        list.append(item);
      }
    } catch (err) {
      $("lint-meta").textContent = `Lint failed: ${describeError(err)}`;
    }
    stale.lint = false;
  }
  $("lint-run").addEventListener("click", runLint);

  let visible = "index";
  return {
    onShow(tab) {
      visible = tab;
      if (tab === "prompt" && stale.prompt) renderPrompt().catch((err) => toast(describeError(err), "error"));
      if (tab === "lint" && stale.lint) runLint();
      if (tab === "recall") $("recall-query").focus();
    },
    invalidate() {
      stale = { prompt: true, lint: true };
      if (visible === "lint") runLint();
      if (visible === "prompt") renderPrompt().catch(() => {});
    },
  };
}
