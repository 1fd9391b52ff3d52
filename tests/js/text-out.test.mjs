// formatManifest's fast route (the core answers with marks where the caller's texts go, JS fills
// them in) against the plain-JS template of the reference, and against its own field-by-field
// route for everything that route refuses.
import { test } from "node:test";
import assert from "node:assert/strict";
import { formatManifest, isMemdirError } from "memdir";

const template = (headers) =>
  headers
    .map((h) => `- ${h.type ? `[${h.type}] ` : ""}${h.filename} (${new Date(h.mtimeMs).toISOString()})${h.description ? `: ${h.description}` : ""}`)
    .join("\n");

/** A deterministic xorshift32 draw in [0, n). */
function rng(seed) {
  let s = seed >>> 0 || 1;
  return (n) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % n;
  };
}

const PIECES = ["a", "é", "🦀", "\0", " ", ": ", "\n", "- [x](y.md)", "(", ")", "\u2028", "\uFEFF"];
const TYPES = ["user", "feedback", "project", "reference", undefined, null];
const TIMES = [0, -1.5, 8.64e15, -8.64e15, 1700000000123.9, 253402300800000, -62198755200001];

function headersFrom(draw, count) {
  const text = (max) => Array.from({ length: draw(max) }, () => PIECES[draw(PIECES.length)]).join("");
  return Array.from({ length: count }, () => {
    const h = { filename: text(6) || "f.md", mtimeMs: draw(3) ? TIMES[draw(TIMES.length)] : draw(4e12) - 2e12 + 0.5 };
    const type = TYPES[draw(TYPES.length)];
    if (type !== undefined || draw(2)) h.type = type;
    const d = draw(4);
    if (d === 1) h.description = "";
    else if (d === 2) h.description = null;
    else if (d === 3) h.description = text(8);
    if (draw(2)) h.filePath = `/m/${h.filename}`;
    return h;
  });
}

test("formatManifest gives the reference template's text for any plain headers", () => {
  const draw = rng(0x5eed);
  for (let round = 0; round < 300; round++) {
    const headers = headersFrom(draw, draw(8));
    // Counting reads: the field-by-field route would read every `filename` a second time.
    let reads = 0;
    const watched = headers.map((h) => new Proxy(h, { get: (t, k) => ((reads += k === "filename"), t[k]) }));
    assert.equal(formatManifest(watched), template(headers), JSON.stringify(headers));
    assert.equal(reads, headers.length, "the fast route answered");
  }
  const many = headersFrom(rng(7), 2000);
  assert.equal(formatManifest(many), template(many));
  assert.equal(formatManifest([]), "");
});

test("formatManifest reads each header's fields once", () => {
  let reads = 0;
  const h = {
    get filename() {
      reads++;
      return "a.md";
    },
    mtimeMs: 0,
    description: "d",
  };
  assert.equal(formatManifest([h]), "- a.md (1970-01-01T00:00:00.000Z): d");
  assert.equal(reads, 1);
});

test("formatManifest called again from a getter keeps both answers whole", () => {
  const inner = [{ filename: "in.md", mtimeMs: 1, type: "project", description: "inner" }];
  let nested;
  const outer = [
    { filename: "a.md", mtimeMs: 0, type: "user", description: "first" },
    {
      get filename() {
        nested = formatManifest(inner);
        return "b.md";
      },
      mtimeMs: 2,
      type: "reference",
      description: "second",
    },
  ];
  assert.equal(formatManifest(outer), template([outer[0], { filename: "b.md", mtimeMs: 2, type: "reference", description: "second" }]));
  assert.equal(nested, template(inner));
});

test("formatManifest refuses on its fast route exactly what the field-by-field route refuses", () => {
  const ok = { filename: "a.md", mtimeMs: 0, type: "user", description: "d", filePath: "/m/a.md" };
  const refusals = [
    [{ ...ok, mtimeMs: NaN }, "INVALID_INPUT", /headers\[1\]\.mtimeMs/],
    [{ ...ok, mtimeMs: 8.64e15 + 1 }, "INVALID_INPUT", /headers\[1\]\.mtimeMs/],
    [{ ...ok, type: "User" }, "INVALID_INPUT", /type/],
    [{ ...ok, type: "" }, "INVALID_INPUT", /type/],
    [{ ...ok, type: "usér" }, "INVALID_INPUT", /type/],
    [{ ...ok, type: "🦀" }, "INVALID_INPUT", /type/],
    [{ ...ok, type: 3 }, "INVALID_INPUT", /type/],
    [{ ...ok, filename: undefined }, "INVALID_INPUT", /filename/],
    [{ ...ok, mtimeMs: "0" }, "INVALID_INPUT", /mtimeMs/],
    [{ ...ok, filePath: `/m/\uD800` }, "UNPAIRED_SURROGATE", /filePath/],
    [{ ...ok, type: `user\uDC00` }, "UNPAIRED_SURROGATE", /type/],
  ];
  for (const [bad, code, message] of refusals) {
    let caught;
    try {
      formatManifest([ok, bad]);
    } catch (e) {
      caught = e;
    }
    assert.ok(isMemdirError(caught), `${JSON.stringify(bad)}: ${caught}`);
    assert.equal(caught.code, code, JSON.stringify(bad));
    assert.match(caught.message, message);
  }
});
