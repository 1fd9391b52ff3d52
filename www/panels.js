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
};

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

  function recallMemdir() {
    const m = modelSettings();
    if (!m) return state.memdir;
    const llm = m.provider === "anthropic"
      ? lib.anthropicLlm({ apiKey: m.apiKey, model: m.model, baseUrl: m.baseUrl })
      : lib.openAiLlm({ apiKey: m.apiKey, model: m.model, baseUrl: m.baseUrl });
    return new lib.Memdir({ fs: state.fs, dir: DIR, llm });
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
      const found = await memdir.findRelevant(query, { signal: controller.signal, limit });
      const items = await surfaced(memdir, found.memories);
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
