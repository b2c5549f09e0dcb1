//! Every error code the documents name in backticks (`area/reason`, an
//! area the protocol has) is an `ErrorCode`: a renamed or removed code
//! cannot linger in the docs a client author reads.

use parlor_protocol::ErrorCode;

use crate::docs::{markdown_under, read, root};

#[test]
fn every_error_code_the_documents_name_exists() {
    let codes: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    let areas: Vec<&str> = codes.iter().filter_map(|c| c.split('/').next()).collect();
    let mut files = vec![root().join("README.md")];
    files.extend(markdown_under(&root().join("docs")));
    let mut unknown = Vec::new();
    let mut named = 0;
    for file in files {
        let text = read(&file);
        // Inline code, line by line (a fence's backticks are no span),
        // cut into words: `403 auth/closed` names auth/closed.
        let spans = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("```"))
            .flat_map(|l| l.split('`').skip(1).step_by(2));
        let words = spans.flat_map(|span| {
            // A file name keeps its dot, and so is no code.
            span.split(|c: char| c.is_whitespace() || ",;:()[]{}\"'=<>".contains(c))
        });
        for token in words {
            let Some((area, reason)) = token.split_once('/') else {
                continue;
            };
            let word =
                |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_lowercase() || c == '_');
            // `area/reason` is the form itself; a path of the repository
            // (`server/web`) is no code.
            if !word(area)
                || !word(reason)
                || !areas.contains(&area)
                || token == "area/reason"
                || root().join(token).exists()
            {
                continue;
            }
            named += 1;
            if !codes.contains(&token) {
                unknown.push(format!("{}: {token}", file.display()));
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "codes that are no ErrorCode:\n{}",
        unknown.join("\n")
    );
    assert!(named > 150, "only {named} codes named");
}
