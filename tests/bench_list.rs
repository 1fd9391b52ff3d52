//! `Store::list` over 2k … 32k index entries with an asynchronous filesystem (issue #19 item 8).
//! Not a timed test: it prints a table; the ratio column is the time of a run over the time of
//! the run with half the entries (≈ 2 when the growth is linear, ≈ 4 when it is quadratic).
//!
//! The filesystem is a [`MemFs`] whose every call settles one at a time, in the order the calls
//! were made, one per poll of the whole operation, which is how a wasm future over JS Promises
//! runs: each settled Promise wakes the task, and the task polls the operation from the top. A
//! join over n pending calls is therefore polled n times for n calls — the quadratic the issue
//! measured in Node (2k → 16k entries: 148 → 4,195 ms). Ignored by default; run in release:
//!
//! ```sh
//! cargo test --release --test bench_list -- --ignored --nocapture
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::TestClock;
use memdir::host::{DirEntry, FileStat, FileSystem, FsCapabilities, HostResult};
use memdir::store::{Store, StoreConfig, WriteMode};
use memdir::{MemFs, NoTelemetry};
use std::cell::Cell;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::Instant;

/// A MemFs whose calls settle one per poll of the driven operation, first issued first.
struct SerialFs {
    inner: MemFs,
    /// Tickets handed out (one per call, at its first poll).
    issued: Cell<u64>,
    /// Calls allowed to settle so far (the driver advances it once per poll).
    served: Cell<u64>,
    /// Polls of pending calls: the work a join spends re-polling what has not settled.
    checks: Cell<u64>,
}

impl SerialFs {
    /// Wait for this call's turn.
    async fn turn(&self) {
        let ticket = self.issued.get();
        self.issued.set(ticket + 1);
        std::future::poll_fn(|_| {
            self.checks.set(self.checks.get() + 1);
            if self.served.get() > ticket {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
        .await;
    }
}

impl FileSystem for SerialFs {
    async fn read_file(&self, path: &str) -> HostResult<String> {
        self.turn().await;
        self.inner.read_file(path).await
    }
    async fn write_file(&self, path: &str, data: &str) -> HostResult<()> {
        self.turn().await;
        self.inner.write_file(path, data).await
    }
    async fn read_dir(&self, path: &str) -> HostResult<Vec<DirEntry>> {
        self.turn().await;
        self.inner.read_dir(path).await
    }
    async fn stat(&self, path: &str) -> HostResult<FileStat> {
        self.turn().await;
        self.inner.stat(path).await
    }
    async fn mkdir(&self, path: &str) -> HostResult<()> {
        self.turn().await;
        self.inner.mkdir(path).await
    }
    async fn remove(&self, path: &str) -> HostResult<()> {
        self.turn().await;
        self.inner.remove(path).await
    }
    fn capabilities(&self) -> FsCapabilities {
        self.inner.capabilities()
    }
    async fn realpath(&self, path: &str) -> HostResult<String> {
        self.turn().await;
        self.inner.realpath(path).await
    }
    async fn lstat(&self, path: &str) -> HostResult<FileStat> {
        self.turn().await;
        self.inner.lstat(path).await
    }
}

/// Poll `fut` to the end, letting one filesystem call settle per poll. Returns the output and
/// the number of polls of the whole operation.
fn drive<O>(fs: &SerialFs, fut: impl Future<Output = O>) -> (O, u64) {
    let mut fut = pin!(fut);
    let mut cx = Context::from_waker(Waker::noop());
    let mut polls = 0;
    loop {
        polls += 1;
        if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
            return (out, polls);
        }
        fs.served.set(fs.served.get() + 1);
    }
}

fn store_with(entries: usize) -> Store<SerialFs, TestClock> {
    let inner = MemFs::new();
    let mut index = String::new();
    for i in 0..entries {
        let file = format!("m{i:06}.md");
        index.push_str(&format!("- [Memory {i}]({file}) — hook {i}\n"));
        // Every other file exists, so both answers are exercised.
        if i % 2 == 0 {
            inner.insert_file(&format!("/m/{file}"), "---\nname: x\n---\nbody\n");
        }
    }
    inner.insert_file("/m/MEMORY.md", index);
    let fs = SerialFs {
        inner,
        issued: Cell::new(0),
        served: Cell::new(0),
        checks: Cell::new(0),
    };
    Store::new(
        fs,
        TestClock::new(1.7e12),
        NoTelemetry,
        "/m/",
        WriteMode::Auto,
        StoreConfig::default(),
    )
}

#[test]
#[ignore = "benchmark: run in release with --ignored --nocapture"]
fn list_grows_linearly_with_an_async_filesystem() {
    println!("| entries | list() ms | × previous | call polls | × previous |");
    println!("|---:|---:|---:|---:|---:|");
    let mut previous: Option<(f64, u64)> = None;
    for entries in [2_000, 4_000, 8_000, 16_000, 32_000] {
        let store = store_with(entries);
        // Best of three runs, so a busy machine does not bend the curve.
        let mut ms = f64::INFINITY;
        let mut checks = 0;
        for _ in 0..3 {
            let before = store.fs().checks.get();
            let started = Instant::now();
            let (listed, _) = drive(store.fs(), store.list());
            ms = ms.min(started.elapsed().as_secs_f64() * 1000.0);
            checks = store.fs().checks.get() - before;
            let listed = listed.unwrap();
            assert_eq!(listed.len(), entries);
            assert_eq!(listed.iter().filter(|l| l.exists).count(), entries / 2);
        }
        let (ratio, check_ratio) =
            previous.map_or(("–".to_owned(), "–".to_owned()), |(p, c)| {
                (
                    format!("{:.2}", ms / p),
                    format!("{:.2}", checks as f64 / c as f64),
                )
            });
        println!("| {entries} | {ms:.1} | {ratio} | {checks} | {check_ratio} |");
        previous = Some((ms, checks));
    }
}
