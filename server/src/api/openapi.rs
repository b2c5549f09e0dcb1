//! `GET /api/openapi.json`: the OpenAPI 3.1 document of the HTTP API,
//! written by hand in `docs/api/openapi.json` and built into the binary,
//! so that a server always describes the API it serves. The e2e test
//! `openapi` drives every operation it documents on a live server and
//! checks each answer against it, so it cannot drift from the code.

use std::borrow::Cow;

use crate::http::{ContentType, Reply};

/// Where the document is served.
pub const OPENAPI_PATH: &str = "/api/openapi.json";

/// The document, as written.
pub const OPENAPI_DOCUMENT: &str = include_str!("../../../docs/api/openapi.json");

/// The answer to `GET /api/openapi.json`.
pub fn reply() -> Reply {
    Reply {
        status: "200 OK",
        content_type: ContentType::Json.mime(),
        // It changes only with the server binary: a code generator or a
        // browser may keep it for an hour, and one an hour stale after
        // an upgrade misses at most what the upgrade added.
        cache: "max-age=3600",
        extra: "",
        body: Cow::Borrowed(OPENAPI_DOCUMENT.as_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_is_openapi_3_1_json_and_names_its_own_path() {
        let doc: serde_json::Value =
            serde_json::from_str(OPENAPI_DOCUMENT).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(doc["openapi"], "3.1.0");
        assert!(doc["paths"][OPENAPI_PATH]["get"].is_object());
    }
}
