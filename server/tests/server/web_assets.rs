//! The web client's files and the list the server serves them from agree:
//! a file added under `server/web/` but not to `ASSETS` would be a 404 in
//! the browser (a module the page imports, missing), and an entry whose
//! file was moved away would not build or would serve stale bytes.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use parlor_server::http::ASSETS;

/// The directory the assets are embedded from.
fn web_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("web")
}

/// Every file under `dir`, as the URL path it is served at (`/js/x.js`).
fn files_under(dir: &Path, url: &str, found: &mut BTreeSet<String>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        let path = format!("{url}/{name}");
        if entry.file_type().unwrap().is_dir() {
            files_under(&entry.path(), &path, found);
        } else {
            found.insert(path);
        }
    }
}

#[test]
fn every_file_under_web_is_served_and_every_served_file_is_there() {
    let mut on_disk = BTreeSet::new();
    files_under(&web_dir(), "", &mut on_disk);
    let served: BTreeSet<String> = ASSETS.iter().map(|a| a.path.to_owned()).collect();
    assert_eq!(served.len(), ASSETS.len(), "a path listed twice in ASSETS");
    let unserved: Vec<&String> = on_disk.difference(&served).collect();
    assert!(
        unserved.is_empty(),
        "under server/web but not in ASSETS: {unserved:?}"
    );
    let missing: Vec<&String> = served.difference(&on_disk).collect();
    assert!(
        missing.is_empty(),
        "in ASSETS but not under server/web: {missing:?}"
    );
    for asset in ASSETS {
        let file = web_dir().join(asset.path.trim_start_matches('/'));
        let bytes = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert_eq!(
            bytes, asset.body,
            "{} is served with other bytes",
            asset.path
        );
    }
}
