//! Semantic recall over a store: the cosine of each memory to the query, with every memory's
//! vector kept in the sidecar ([`SIDECAR_NAME`]) so it is embedded once per content version.
//!
//! The sidecar is a cache: it is read without the store's lock, rebuilt entry by entry when
//! missing or untrustworthy, and rewritten with the store's atomic write (temp file + rename) when
//! anything changed; a failed rewrite costs a re-embedding next time, never a recall.

use super::semantic::{
    embed_text, validate_vectors, EmbedFault, Sidecar, SidecarEntry, EMBED_BATCH, SIDECAR_NAME,
};
use crate::error::HostError;
use crate::host::{Clock, Embedder, FileSystem, Telemetry};
use crate::store::Store;
use crate::types::MemoryHeader;

/// Why the embedder could not answer a recall.
#[derive(Debug)]
pub enum EmbedFailure {
    /// The embedder failed (threw, rejected).
    Host(HostError),
    /// The embedder answered something unusable.
    Invalid(EmbedFault),
}

/// The cosine between `query` and each of `headers` (in order; a header outside the store's
/// directory still gets a cosine but no sidecar entry). Embeds what the sidecar lacks, in
/// batches of [`EMBED_BATCH`], then the query alone; rewrites the sidecar when it changed.
pub(crate) async fn cosines<F: FileSystem, C: Clock, T: Telemetry, E: Embedder>(
    store: &Store<F, C, T>,
    embedder: &E,
    headers: &[MemoryHeader],
    query: &str,
) -> Result<Vec<f32>, EmbedFailure> {
    let model = embedder.model();
    let path = format!("{}{SIDECAR_NAME}", store.dir());
    let stored = match store.fs().read_file(&path).await {
        Ok(text) => Sidecar::decode(&text, model),
        Err(_) => Sidecar::new(model, 0),
    };
    // The stored length binds new vectors only when some stored vector is kept.
    let mut dims = (!stored.entries.is_empty()).then_some(stored.dims);
    let mut changed = false;
    let mut fresh = Sidecar::new(model, stored.dims);
    // Per header: its key in the sidecar (None outside the directory), text and hash.
    let mut vectors: Vec<Option<Vec<f32>>> = Vec::with_capacity(headers.len());
    let mut missing: Vec<(usize, String, String)> = Vec::new();
    for (i, h) in headers.iter().enumerate() {
        let text = embed_text(h);
        let hash = hex_hash(&text);
        let key = h.file_path.strip_prefix(store.dir()).map(str::to_owned);
        match key.as_ref().and_then(|k| stored.entries.get(k)) {
            Some(entry) if entry.hash == hash => {
                vectors.push(Some(entry.vector.clone()));
                if let Some(k) = key {
                    fresh.entries.insert(k, entry.clone());
                }
            }
            _ => {
                vectors.push(None);
                missing.push((i, text, hash));
            }
        }
    }
    changed |= fresh.entries.len() != stored.entries.len();
    for batch in missing.chunks(EMBED_BATCH) {
        let texts: Vec<String> = batch.iter().map(|(_, t, _)| t.clone()).collect();
        let answer = embedder.embed(&texts).await.map_err(EmbedFailure::Host)?;
        let answer = validate_vectors(answer, texts.len(), dims).map_err(EmbedFailure::Invalid)?;
        for ((i, _, hash), vector) in batch.iter().zip(answer) {
            dims = Some(vector.len());
            if let Some(key) = headers
                .get(*i)
                .and_then(|h| h.file_path.strip_prefix(store.dir()))
            {
                fresh.entries.insert(
                    key.to_owned(),
                    SidecarEntry {
                        hash: hash.clone(),
                        vector: vector.clone(),
                    },
                );
                changed = true;
            }
            if let Some(slot) = vectors.get_mut(*i) {
                *slot = Some(vector);
            }
        }
    }
    let query_vector = embedder
        .embed(&[query.to_owned()])
        .await
        .map_err(EmbedFailure::Host)?;
    let query_vector = validate_vectors(query_vector, 1, dims)
        .map_err(EmbedFailure::Invalid)?
        .pop()
        .ok_or(EmbedFailure::Invalid(EmbedFault::Count {
            expected: 1,
            got: 0,
        }))?;
    if changed {
        fresh.dims = query_vector.len();
        // A cache: a failed rewrite is retried by the next recall.
        let _ = store.write_atomic(&path, &fresh.encode()).await;
    }
    Ok(vectors
        .iter()
        .map(|v| {
            v.as_deref()
                .map_or(0.0, |v| super::semantic::cosine(v, &query_vector))
        })
        .collect())
}

/// Lower-case hex SHA-256 of `text`.
fn hex_hash(text: &str) -> String {
    let full = crate::sync::hash_content(text);
    full.strip_prefix("sha256:").unwrap_or(&full).to_owned()
}
