//! `list_rooms` pages from the client's side: asking for one (its round
//! trip and size on the wire) and the books of a walk through them all.

use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;
use tokio::time::Instant;

use crate::conn::Conn;
use crate::pacer::Pacer;

/// The parts of a `rooms` reply (or an error in its place) read here.
#[derive(Debug, Default, Deserialize)]
pub struct RoomsPage {
    /// `rooms`, or `error` for a refusal.
    #[serde(rename = "type")]
    pub kind: String,
    /// The rooms listed, ids only.
    #[serde(default)]
    pub rooms: Vec<Listed>,
    /// Where the next page starts, when more rooms follow.
    #[serde(default)]
    pub next: Option<String>,
    /// The error code, for an error.
    #[serde(default)]
    pub code: Option<String>,
}

/// One room of a page (only its id is read).
#[derive(Debug, Deserialize)]
pub struct Listed {
    /// Its id.
    pub room: String,
}

/// One page as it came: the reply, its size in bytes (the text frame's
/// payload) and the time from sending the request to having the reply.
#[derive(Debug)]
pub struct Fetched {
    /// The page.
    pub page: RoomsPage,
    /// Its size.
    pub bytes: usize,
    /// Its round trip.
    pub rtt: Duration,
}

/// Sends the `list_rooms` request `query` once `pacer` allows and reads
/// the reply; a refusal is an error.
pub async fn fetch(conn: &mut Conn, pacer: &mut Pacer, query: &Value) -> Result<Fetched, String> {
    let request = query.to_string();
    pacer.wait().await;
    let sent = Instant::now();
    conn.send(request).await?;
    let text = conn.recv_text().await?;
    let rtt = sent.elapsed();
    let page: RoomsPage =
        serde_json::from_str(text.as_str()).map_err(|e| format!("bad rooms reply: {e}"))?;
    if page.kind != "rooms" {
        return Err(format!(
            "list_rooms answered with {} {}",
            page.kind,
            page.code.as_deref().unwrap_or_default()
        ));
    }
    Ok(Fetched {
        page,
        bytes: text.len(),
        rtt,
    })
}

/// The books of a walk through every page, first to last.
#[derive(Debug, Default)]
pub struct PageWalk {
    /// Pages read.
    pub pages: usize,
    /// Rooms listed in them.
    pub rooms: usize,
    /// Bytes of the replies.
    pub bytes: usize,
    /// The round trips, added up: the walk's time without the pauses the
    /// client makes to stay within the rate limit.
    pub round_trips: Duration,
    /// Rooms whose id was not above the one listed before it (the server
    /// promises id order, so every room once).
    pub out_of_order: usize,
    last_room: Option<String>,
    cursor: Option<String>,
}

impl PageWalk {
    /// Books a page of `bytes` that took `rtt`; returns the cursor for
    /// the next page, or `None` when this was the last. A cursor that does
    /// not move forward is an error: the walk would never end.
    pub fn record(
        &mut self,
        page: &RoomsPage,
        bytes: usize,
        rtt: Duration,
    ) -> Result<Option<String>, String> {
        self.pages += 1;
        self.bytes += bytes;
        self.round_trips += rtt;
        for r in &page.rooms {
            if self
                .last_room
                .as_deref()
                .is_some_and(|l| r.room.as_str() <= l)
            {
                self.out_of_order += 1;
            }
            self.rooms += 1;
            self.last_room = Some(r.room.clone());
        }
        let Some(next) = &page.next else {
            return Ok(None);
        };
        if self.cursor.as_ref().is_some_and(|c| next <= c) {
            return Err(format!(
                "page {} gave the cursor {next}, not past the previous one",
                self.pages
            ));
        }
        self.cursor = Some(next.clone());
        Ok(self.cursor.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(ids: &[&str], next: Option<&str>) -> RoomsPage {
        RoomsPage {
            kind: "rooms".into(),
            rooms: ids
                .iter()
                .map(|r| Listed {
                    room: (*r).to_owned(),
                })
                .collect(),
            next: next.map(str::to_owned),
            code: None,
        }
    }

    #[test]
    fn a_walk_counts_pages_rooms_bytes_and_time() {
        let ms = Duration::from_millis;
        let mut w = PageWalk::default();
        assert_eq!(
            w.record(&page(&["a1", "a2"], Some("a2")), 100, ms(2)),
            Ok(Some("a2".into()))
        );
        assert_eq!(
            w.record(&page(&["b1", "b2"], Some("b2")), 90, ms(3)),
            Ok(Some("b2".into()))
        );
        assert_eq!(w.record(&page(&["c1"], None), 40, ms(1)), Ok(None));
        assert_eq!((w.pages, w.rooms, w.bytes), (3, 5, 230));
        assert_eq!((w.round_trips, w.out_of_order), (ms(6), 0));
    }

    #[test]
    fn disorder_is_counted_and_a_stuck_cursor_stops_the_walk() {
        let mut w = PageWalk::default();
        let _ = w.record(&page(&["b", "a"], Some("b")), 1, Duration::ZERO);
        assert_eq!(w.out_of_order, 1);
        assert!(w
            .record(&page(&["c"], Some("b")), 1, Duration::ZERO)
            .is_err());
    }

    #[test]
    fn replies_parse_with_unknown_fields() {
        let p: RoomsPage = serde_json::from_str(
            r#"{"type":"rooms","rooms":[{"room":"3c32571558e3","game":"nimrod","status":"waiting","seats":[],"spectators":0}],"next":"3c32571558e3"}"#,
        )
        .unwrap();
        assert_eq!(
            (p.rooms.len(), p.next.as_deref()),
            (1, Some("3c32571558e3"))
        );
        let e: RoomsPage =
            serde_json::from_str(r#"{"type":"error","code":"request/rate_limited","message":"x"}"#)
                .unwrap();
        assert_eq!(e.code.as_deref(), Some("request/rate_limited"));
    }
}
