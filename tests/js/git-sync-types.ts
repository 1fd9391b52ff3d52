// Type-checked with `tsc --noEmit` against the installed package: teamSync({ git }) and the git exports.
import { Memdir, memoryFs, gitTransport, gitOpfsFs, type GitSyncOptions, type PullOutcome, type PushOutcome } from "memdir";

const memdir = new Memdir({ fs: memoryFs(), dir: "/m/" });
const git: GitSyncOptions = { url: "https://example.com/a.git", branch: "main", auth: { token: "t" }, author: { name: "a" } };
const sync = memdir.teamSync({ git, scope: "private" });
const pulled: Promise<PullOutcome> = sync.pull();
const pushed: Promise<PushOutcome> = sync.push();
const t = gitTransport({ ...git, gitdir: "/m/.git-sync/team" });
const overCap: number = t.lastPull.overCap;
const browserFs = gitOpfsFs("/");
// @ts-expect-error: `url` is required
memdir.teamSync({ git: { branch: "main" } });
void pulled;
void pushed;
void overCap;
void browserFs;
