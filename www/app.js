// The demo app: a memory directory in the browser's Origin Private File System, edited through a
// frontmatter form, with the MEMORY.md gauge, the prompt, recall and lint beside it.
import * as memdirLib from "../pkg/index.js";
import { caps, derivedFileName, measure, wouldBeIndex } from "./gauge.js";
import { SAMPLE_FILES } from "./seed.js";
import { setupPanels } from "./panels.js";
import { exportDirectory, importDirectory, clearDirectory, writeFiles } from "./transfer.js";
import { setupTeam } from "./team.js";

const { init, Memdir, opfsFs, parseFrontmatter, memoryAge, isMemdirError, libraryFiles } = memdirLib;

/** The memory directory inside OPFS. */
export const DIR = "/memdir-demo/memory/";
const SEEDED_KEY = "memdir-demo:seeded";

const $ = (id) => document.getElementById(id);
const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  for (const child of children) if (child != null) node.append(child);
  return node;
};
const number = (n) => n.toLocaleString("en-US");

const state = {
  fs: null,
  memdir: null,
  headers: [],
  listed: [],
  rawIndex: "",
  current: null, // the header of the memory open in the editor; null for a new one
  panels: null,
  confirmDelete: false,
};

// ---- helpers -------------------------------------------------------------------------------

function describeError(err) {
  if (isMemdirError(err)) return `${err.message} (${err.code})`;
  return err?.message ?? String(err);
}

let toastTimer;
export function toast(message, kind = "info") {
  const box = $("toast");
  box.textContent = message;
  box.className = `toast ${kind}`;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (box.hidden = true), kind === "error" ? 8000 : 3500);
}

async function readText(path) {
  try {
    return await state.fs.readFile(path);
  } catch (err) {
    if (err?.code === "ENOENT") return null;
    throw err;
  }
}

// ---- loading -------------------------------------------------------------------------------

async function seedIfFirstVisit() {
  if (localStorage.getItem(SEEDED_KEY)) return;
  const existing = await readText(DIR + "MEMORY.md");
  if (existing === null) await writeFiles(state.fs, DIR, SAMPLE_FILES);
  localStorage.setItem(SEEDED_KEY, new Date().toISOString());
}

async function refresh() {
  const [headers, listed, rawIndex] = await Promise.all([
    state.memdir.scan(),
    state.memdir.list().catch(() => []),
    readText(DIR + "MEMORY.md"),
  ]);
  state.headers = headers;
  state.listed = listed;
  state.rawIndex = rawIndex ?? "";
  if (state.current) {
    state.current = headers.find((h) => h.filename === state.current.filename) ?? null;
  }
  renderList();
  renderGauge();
  state.panels?.invalidate();
}

// ---- the sidebar list ----------------------------------------------------------------------

function renderList() {
  const query = $("filter").value.trim().toLowerCase();
  const list = $("memory-list");
  list.replaceChildren();
  const indexed = new Set(state.listed.map((l) => l.file));
  const now = Date.now();
  const shown = state.headers.filter((h) =>
    !query || [h.name, h.description, h.filename, h.type].some((s) => s?.toLowerCase().includes(query)),
  );
  for (const h of shown) {
    const item = el(
      "li",
      { className: "memory-item", tabIndex: 0, title: h.filename },
      el("div", { className: "item-top" },
        el("span", { className: `badge ${h.type ?? "none"}`, textContent: h.type ?? "no type" }),
        el("span", { className: "item-name", textContent: h.name || h.filename }),
      ),
      el("div", { className: "item-desc", textContent: h.description ?? "(no description)" }),
      el("div", { className: "item-meta" },
        el("span", { textContent: h.filename }),
        el("span", { textContent: memoryAge(h.mtimeMs, now) }),
        indexed.has(h.filename) ? null : el("span", { className: "warn-text", textContent: "not in index" }),
      ),
    );
    item.dataset.file = h.filename;
    if (state.current?.filename === h.filename) item.classList.add("selected");
    item.addEventListener("click", () => openMemory(h));
    item.addEventListener("keydown", (e) => e.key === "Enter" && openMemory(h));
    list.append(item);
  }
  for (const l of state.listed.filter((l) => !l.exists && l.scope === "private")) {
    list.append(
      el("li", { className: "memory-item dangling", title: "MEMORY.md points at a file that does not exist" },
        el("div", { className: "item-top" },
          el("span", { className: "badge none", textContent: "missing" }),
          el("span", { className: "item-name", textContent: l.entry.title }),
        ),
        el("div", { className: "item-meta" }, el("span", { textContent: l.file })),
      ),
    );
  }
  if (!list.children.length) {
    list.append(el("li", { className: "empty", textContent: query ? "No memory matches." : "No memories yet — create one." }));
  }
}

// ---- the editor ----------------------------------------------------------------------------

function formValues() {
  return {
    name: $("f-name").value.trim(),
    description: $("f-description").value.trim(),
    type: $("f-type").value,
    body: $("f-body").value,
  };
}

/** The index entry the form would produce, or null when the form is still blank. */
function pendingEntry() {
  const v = formValues();
  if (!v.name && !v.description) return null;
  const taken = new Set(state.headers.map((h) => h.filename));
  const file = state.current?.filename ?? derivedFileName(v.type, v.name, taken);
  return { title: v.name, file, hook: v.description };
}

function setEditorStatus(text, kind = "") {
  $("editor-status").textContent = text;
  $("editor-status").className = `status ${kind}`;
}

function resetDeleteButton() {
  state.confirmDelete = false;
  $("delete").textContent = "Delete";
}

async function openMemory(header) {
  const text = await readText(header.filePath);
  if (text === null) {
    toast(`${header.filename} is gone; refreshing`, "error");
    await refresh();
    return;
  }
  const parsed = parseFrontmatter(text);
  state.current = header;
  $("f-name").value = parsed.header.name ?? "";
  $("f-description").value = parsed.header.description ?? "";
  $("f-type").value = parsed.header.type ?? "user";
  $("f-body").value = parsed.body.replace(/^\n+/, "");
  $("editor-title").textContent = "Edit memory";
  $("editor-file").textContent = header.filename;
  $("delete").hidden = false;
  resetDeleteButton();
  setEditorStatus(parsed.diagnostics.length ? parsed.diagnostics.join("; ") : "", parsed.diagnostics.length ? "warn" : "");
  renderList();
  renderGauge();
}

function newMemory() {
  state.current = null;
  $("editor-form").reset();
  $("editor-title").textContent = "New memory";
  $("editor-file").textContent = "";
  $("delete").hidden = true;
  resetDeleteButton();
  setEditorStatus("");
  renderList();
  renderGauge();
  $("f-name").focus();
}

async function saveMemory(event) {
  event.preventDefault();
  const v = formValues();
  if (!v.name || !v.description) {
    setEditorStatus("Name and description are required.", "error");
    return;
  }
  $("save").disabled = true;
  try {
    const outcome = state.current
      ? await state.memdir.update(state.current.filename, v)
      : await state.memdir.save(v);
    await refresh();
    const saved = state.headers.find((h) => h.filename === outcome.file);
    if (saved) await openMemory(saved);
    setEditorStatus(`Saved ${outcome.file}`, "ok");
    if (outcome.indexWarning) {
      toast(`Saved, but MEMORY.md is over its caps (${number(outcome.indexWarning.lineCount)} lines, ${number(outcome.indexWarning.byteCount)} units).`, "warn");
    }
  } catch (err) {
    setEditorStatus(describeError(err), "error");
  } finally {
    $("save").disabled = false;
  }
}

async function deleteMemory() {
  if (!state.current) return;
  if (!state.confirmDelete) {
    state.confirmDelete = true;
    $("delete").textContent = "Confirm delete";
    return;
  }
  const file = state.current.filename;
  try {
    await state.memdir.delete(file);
    newMemory();
    await refresh();
    toast(`Deleted ${file}`);
  } catch (err) {
    setEditorStatus(describeError(err), "error");
  }
}

// ---- the gauge and the index view ----------------------------------------------------------

function meter(id, value, max) {
  const ratio = value / max;
  $(`${id}`).textContent = `${number(value)} / ${number(max)}`;
  const bar = $(`${id}-bar`);
  bar.style.width = `${Math.min(100, ratio * 100)}%`;
  bar.className = `meter-fill ${ratio > 1 ? "over" : ratio > 0.8 ? "near" : ""}`;
}

function renderGauge() {
  const entry = pendingEntry();
  const raw = wouldBeIndex(state.rawIndex, entry);
  const m = measure(raw);
  const { maxLines, maxUnits } = caps();
  $("gauge-mode").textContent = entry && raw !== state.rawIndex ? "· with your edit" : "";
  meter("gauge-lines", m.lineCount, maxLines);
  meter("gauge-units", m.byteCount, maxUnits);
  const warning = $("gauge-warning");
  warning.hidden = !m.truncated;
  $("gauge").classList.toggle("over", m.truncated);
  if (m.truncated) {
    const why = m.wasLineTruncated && m.wasByteTruncated
      ? "over both caps"
      : m.wasLineTruncated ? `over ${maxLines} lines` : `over ${number(maxUnits)} units`;
    warning.replaceChildren(
      el("strong", { textContent: `Truncated: ${why}.` }),
      el("span", { textContent: ` The model would not see ${m.cut.length} ${m.cut.length === 1 ? "entry" : "entries"}:` }),
      el("ul", {}, ...m.cut.slice(0, 6).map((e) => el("li", { textContent: e.title || e.file }))),
      ...(m.cut.length > 6 ? [el("div", { className: "muted", textContent: `…and ${m.cut.length - 6} more (see Index)` })] : []),
    );
  }
  renderIndexLines(m, entry);
}

/** Long lines shortened for display, saying how much was left out. */
function clip(text, max = 240) {
  return text.length <= max ? text : `${text.slice(0, max)}… (${number(text.length - max)} more units)`;
}

function renderIndexLines(m, entry) {
  const cutCount = m.rows.filter((r) => !r.kept).length;
  $("index-summary").textContent =
    `${number(m.lineCount)} lines · ${number(m.byteCount)} units` +
    (m.truncated ? ` · ${cutCount} ${cutCount === 1 ? "line" : "lines"} past the caps` : " · within the caps");
  $("index-summary").className = `index-summary ${m.truncated ? "over" : ""}`;
  const list = $("index-lines");
  list.replaceChildren();
  if (!m.rows.length) {
    list.append(el("li", { className: "empty", textContent: "MEMORY.md is empty." }));
    return;
  }
  for (const row of m.rows) {
    const item = el("li", { className: row.kept ? "kept" : "cut" });
    if (row.entry) {
      item.append(
        el("a", { className: "entry-title", textContent: row.entry.title, href: "#" }),
        el("span", { className: "entry-file", textContent: ` (${row.entry.file})` }),
        el("span", { className: "entry-hook", textContent: row.entry.hook ? ` — ${clip(row.entry.hook)}` : "" }),
      );
      item.querySelector("a").addEventListener("click", (e) => {
        e.preventDefault();
        const h = state.headers.find((x) => x.filename === row.entry.file);
        if (h) openMemory(h);
      });
      if (entry && row.entry.file === entry.file) item.classList.add("editing");
    } else {
      item.append(el("span", { className: "plain", textContent: clip(row.text) || "\u00a0" }));
    }
    list.append(item);
  }
}

// ---- start ---------------------------------------------------------------------------------

function setupTabs(onShow) {
  const tabs = document.querySelectorAll("[role=tab]");
  for (const tab of tabs) {
    tab.addEventListener("click", () => {
      for (const t of tabs) t.setAttribute("aria-selected", String(t === tab));
      for (const panel of document.querySelectorAll("[data-panel]")) panel.hidden = panel.dataset.panel !== tab.dataset.tab;
      onShow(tab.dataset.tab);
    });
  }
}

async function main() {
  await init();
  if (!navigator.storage?.getDirectory) {
    $("storage-note").textContent = "This browser has no Origin Private File System; the demo cannot store memories.";
    return;
  }
  state.fs = opfsFs();
  state.memdir = new Memdir({ fs: state.fs, dir: DIR });
  await state.fs.mkdir(DIR);
  await seedIfFirstVisit();
  $("storage-note").textContent = `Stored in this browser (OPFS ${DIR}) · no network unless you enter a key`;

  const panels = setupPanels({ state, DIR, lib: memdirLib, openMemory, toast, describeError });
  state.panels = panels;
  const team = setupTeam({ state, DIR, lib: memdirLib, toast, describeError, refresh: () => refresh() });
  setupTabs((tab) => {
    panels.onShow(tab);
    if (tab === "team") team.show().catch((err) => toast(describeError(err), "error"));
  });

  $("filter").addEventListener("input", renderList);
  $("new").addEventListener("click", newMemory);
  $("editor-form").addEventListener("submit", saveMemory);
  $("delete").addEventListener("click", deleteMemory);
  for (const id of ["f-name", "f-description", "f-type"]) $(id).addEventListener("input", renderGauge);
  $("f-body").addEventListener("input", () => setEditorStatus(""));

  $("export").addEventListener("click", async () => {
    try {
      const caches = new Set(libraryFiles().filter((f) => f.kind === "cache").map((f) => f.name));
      const files = await exportDirectory(state.fs, DIR, caches);
      const blob = new Blob([JSON.stringify(files, null, 2)], { type: "application/json" });
      const link = el("a", { href: URL.createObjectURL(blob), download: `memdir-${new Date().toISOString().slice(0, 10)}.json` });
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 1000);
      toast(`Exported ${Object.keys(files).length} files`);
    } catch (err) {
      toast(describeError(err), "error");
    }
  });
  $("import").addEventListener("change", async (event) => {
    const file = event.target.files?.[0];
    event.target.value = "";
    if (!file) return;
    try {
      const count = await importDirectory(state.fs, DIR, await file.text());
      newMemory();
      await refresh();
      toast(`Imported ${count} files`);
    } catch (err) {
      toast(`Import failed: ${describeError(err)}`, "error");
    }
  });
  $("reset").addEventListener("click", async () => {
    if (!confirm("Replace every memory with the sample set?")) return;
    await clearDirectory(DIR);
    await state.fs.mkdir(DIR);
    await writeFiles(state.fs, DIR, SAMPLE_FILES);
    newMemory();
    await refresh();
    toast("Sample set restored");
  });

  await refresh();
  newMemory();
  panels.onShow("index");
  window.__ready = true;
}

main().catch((err) => {
  console.error(err);
  $("storage-note").textContent = `Could not start: ${describeError(err)}`;
  window.__startError = String(err?.message ?? err);
});
