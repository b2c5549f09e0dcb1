//! `http` blocks: each request line (`GET /api/...`, with a status and an
//! answer if shown) names a route and method docs/api/openapi.json
//! documents, with that status; each body is JSON. The routes themselves
//! are driven in openapi.rs.

use serde_json::Value;

use super::of;
use crate::docs::{read, root};

#[test]
fn http_blocks_name_documented_routes_and_json_bodies() {
    let api: Value = serde_json::from_str(&read(&root().join("docs/api/openapi.json"))).unwrap();
    let paths = api["paths"].as_object().unwrap();
    let mut problems = Vec::new();
    let mut requests = 0;
    for b in of("http") {
        for (n, line) in b.text.lines().enumerate() {
            let what = format!("{} line {}", b.file, b.line + 1 + n);
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let mut words = line.split_whitespace();
            let first = words.next().unwrap_or("");
            if !["GET", "POST", "PUT", "DELETE", "PATCH"].contains(&first) {
                if let Err(e) = serde_json::from_str::<Value>(line) {
                    problems.push(format!("{what}: a body that is not JSON: {e}"));
                }
                continue;
            }
            requests += 1;
            let path = words.next().unwrap_or("");
            let path = path.split('?').next().unwrap_or(path);
            let Some(op) = paths
                .iter()
                .find(|(template, _)| route_fits(template, path))
                .and_then(|(_, item)| item.get(first.to_lowercase()))
            else {
                problems.push(format!(
                    "{what}: {first} {path} is not in docs/api/openapi.json"
                ));
                continue;
            };
            let rest: Vec<&str> = words.collect();
            if let Some(status) = rest.first().filter(|s| s.parse::<u16>().is_ok()) {
                if op["responses"].get(*status).is_none() {
                    problems.push(format!("{what}: {first} {path} documents no {status}"));
                }
                let body = rest[1..].join(" ");
                if !body.is_empty() {
                    if let Err(e) = serde_json::from_str::<Value>(&body) {
                        problems.push(format!("{what}: an answer that is not JSON: {e}"));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(requests >= 7, "only {requests} requests");
}

/// Whether `path` (`/api/blocks/NAME`) is an instance of the OpenAPI
/// `template` (`/api/blocks/{name}`).
fn route_fits(template: &str, path: &str) -> bool {
    let t: Vec<&str> = template.split('/').collect();
    let p: Vec<&str> = path.split('/').collect();
    t.len() == p.len()
        && t.iter()
            .zip(&p)
            .all(|(t, p)| t == p || (t.starts_with('{') && t.ends_with('}') && !p.is_empty()))
}
