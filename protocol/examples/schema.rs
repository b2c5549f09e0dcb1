//! Writes the protocol's JSON Schema files to `docs/protocol/schema/`:
//! `cargo run -p parlor-protocol --example schema`.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(parlor_protocol::schema::SCHEMA_DIR);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("cannot make {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    for (name, text) in parlor_protocol::schema::files() {
        let path = dir.join(name);
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("wrote {}/{name}", parlor_protocol::schema::SCHEMA_DIR);
    }
    ExitCode::SUCCESS
}
