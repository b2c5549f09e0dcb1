//! The fallback renderer: the view as JSON, moves by number.

use parlor_protocol::Update;

/// The view as indented JSON.
pub fn board(u: &Update) -> String {
    serde_json::to_string_pretty(&u.view).unwrap_or_default()
}

/// The legal moves, numbered.
pub fn prompt(u: &Update) -> String {
    match &u.legal {
        Some(legal) => {
            let mut s = String::from("Your move. Type its number, or a move as JSON:\n");
            for (i, m) in legal.iter().enumerate() {
                s.push_str(&format!("  {:>3}. {m}\n", i + 1));
            }
            s
        }
        None => "Your move, as JSON:".into(),
    }
}
