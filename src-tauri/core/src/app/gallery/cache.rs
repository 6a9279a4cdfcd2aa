//! The gallery's last listing of each registry, in SQLite: every listing a search brought back
//! is kept (the latest version of each server), so the gallery opens at once and, when the
//! registry cannot be reached, still shows what it last listed (marked offline). A refresh asks
//! the registry only for what changed since the last one (`updated_since`), and a server the
//! registry deleted leaves the cache.

use std::sync::Arc;

use rusqlite::{OptionalExtension, params};
use switchboard_gallery::registry::{Listing, Status};

use crate::error::Result;
use crate::store::Store;

/// The most listings a cached search answers with.
const MAX_CACHED: i64 = 500;

pub struct RegistryCache(Arc<Store>);

impl RegistryCache {
    pub fn new(store: Arc<Store>) -> Self {
        Self(store)
    }

    /// Keeps `listings` of `registry` (a deleted one is forgotten).
    pub async fn keep(&self, registry: &str, listings: &[Listing]) -> Result<()> {
        let rows: Vec<(String, Option<String>)> = listings
            .iter()
            .map(|l| {
                let kept = (l.status != Status::Deleted)
                    .then(|| serde_json::to_string(l).ok())
                    .flatten();
                (l.server.name.clone(), kept)
            })
            .collect();
        let registry = registry.to_owned();
        self.0
            .run(move |c| {
                let tx = c.transaction()?;
                for (name, listing) in &rows {
                    match listing {
                        Some(json) => tx.execute(
                            "INSERT INTO registry_listings (registry, name, listing) \
                             VALUES (?1, ?2, ?3) ON CONFLICT (registry, name) \
                             DO UPDATE SET listing = excluded.listing",
                            params![registry, name, json],
                        )?,
                        None => tx.execute(
                            "DELETE FROM registry_listings WHERE registry = ?1 AND name = ?2",
                            params![registry, name],
                        )?,
                    };
                }
                tx.commit()
            })
            .await
    }

    /// The kept listings of `registry` whose name holds `search` (any case), by name.
    pub async fn search(&self, registry: &str, search: Option<&str>) -> Result<Vec<Listing>> {
        let registry = registry.to_owned();
        let needle = search.unwrap_or_default().to_lowercase();
        let rows: Vec<String> = self
            .0
            .run(move |c| {
                let mut q = c.prepare(
                    "SELECT listing FROM registry_listings WHERE registry = ?1 \
                     AND instr(lower(name), ?2) > 0 ORDER BY name LIMIT ?3",
                )?;
                let rows = q.query_map(params![registry, needle, MAX_CACHED], |r| r.get(0))?;
                rows.collect()
            })
            .await?;
        Ok(rows
            .iter()
            .filter_map(|json: &String| serde_json::from_str(json).ok())
            .collect())
    }

    /// When `registry` was last refreshed (RFC 3339), if ever.
    pub async fn synced_at(&self, registry: &str) -> Result<Option<String>> {
        let registry = registry.to_owned();
        self.0
            .run(move |c| {
                c.query_row(
                    "SELECT synced_at FROM registry_syncs WHERE registry = ?1",
                    [registry],
                    |r| r.get(0),
                )
                .optional()
            })
            .await
    }

    pub async fn mark_synced(&self, registry: &str, at: &str) -> Result<()> {
        let (registry, at) = (registry.to_owned(), at.to_owned());
        self.0
            .run(move |c| {
                c.execute(
                    "INSERT INTO registry_syncs (registry, synced_at) VALUES (?1, ?2) \
                     ON CONFLICT (registry) DO UPDATE SET synced_at = excluded.synced_at",
                    params![registry, at],
                )
                .map(|_| ())
            })
            .await
    }
}
