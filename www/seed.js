// The sample memory directory a first visit starts with: MEMORY.md and six topic files, in the
// shape Claude Code writes them. Paths are relative to the memory directory.

const memory = (name, description, type, body) =>
  `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\ntype: ${type}\n---\n\n${body.trim()}\n`;

export const SAMPLE_FILES = {
  "user_go_background.md": memory(
    "Go background",
    "Senior Go engineer, first week with the React frontend",
    "user",
    `Ten years of Go, mostly backend services. New to React and to this repo's frontend; explain
frontend ideas through backend analogues.`,
  ),
  "feedback_real_database.md": memory(
    "Integration tests use a real database",
    "Integration tests: hit a real database, never mocks",
    "feedback",
    `Integration tests must run against a real Postgres, not mocks.

**Why:** last quarter the mocked tests passed while a production migration was broken.

**How to apply:** when adding tests under \`tests/integration/\`, use the docker-compose database.`,
  ),
  "feedback_terse_answers.md": memory(
    "Terse answers",
    "No trailing summaries after a diff; the user reads the diff",
    "feedback",
    `Stop summarising what was just done at the end of a reply.

**Why:** the user said they read the diff themselves.

**How to apply:** end with what is left to do, if anything.`,
  ),
  "project_auth_rewrite.md": memory(
    "Auth rewrite is compliance-driven",
    "Legal requires the session-token rewrite by 2026-04-30; favour scope over polish",
    "project",
    `The auth middleware rewrite exists because legal flagged how session tokens are stored.

**Why:** a compliance finding with a fixed date, 2026-04-30.

**How to apply:** when scope and polish compete, pick scope.`,
  ),
  "project_release_freeze.md": memory(
    "Release freeze before the launch",
    "Merge freeze on main from 2026-03-20 for the mobile launch; only release-blocking fixes",
    "project",
    `Main is frozen from 2026-03-20 until the mobile launch ships.

**Why:** the release branch is cut from main and QA signs off on one build.

**How to apply:** open non-urgent pull requests against \`next\`; ask before merging to main.`,
  ),
  "reference_linear_ingest.md": memory(
    "Pipeline bugs live in Linear INGEST",
    "Data-pipeline bugs are tracked in the Linear project INGEST",
    "reference",
    `Check the Linear project "INGEST" for context on pipeline tickets; the on-call dashboard is
grafana.internal/d/api-latency.`,
  ),
};

SAMPLE_FILES["MEMORY.md"] = [
  "- [Go background](user_go_background.md) — Senior Go engineer, first week with the React frontend",
  "- [Integration tests use a real database](feedback_real_database.md) — mocks hid a broken migration last quarter",
  "- [Auth rewrite is compliance-driven](project_auth_rewrite.md) — legal deadline 2026-04-30, scope over polish",
  "- [Release freeze before the launch](project_release_freeze.md) — main frozen from 2026-03-20, fixes only",
  "- [Pipeline bugs live in Linear INGEST](reference_linear_ingest.md) — where to file and find data-pipeline issues",
  "- [Terse answers](feedback_terse_answers.md) — no trailing summaries after a diff",
  "",
].join("\n");
