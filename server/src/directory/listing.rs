//! `list_rooms`: the public rooms a page at a time, filtered on the server.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use parlor_games::GameKind;
use parlor_protocol::{RoomId, RoomStatus, RoomSummary, MAX_ROOMS_PER_PAGE};

/// What a `list_rooms` asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListQuery {
    /// Only this game.
    pub game: Option<GameKind>,
    /// Only rooms in this state.
    pub status: Option<RoomStatus>,
    /// Rooms after this id.
    pub after: Option<RoomId>,
    /// Most rooms wanted (capped at [`MAX_ROOMS_PER_PAGE`]).
    pub limit: Option<u32>,
}

/// One page: the rooms, and where the next page starts if there is one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// The rooms, by id.
    pub rooms: Vec<RoomSummary>,
    /// The cursor for the next page.
    pub next: Option<String>,
}

impl ListQuery {
    pub(super) fn wants(&self, s: &RoomSummary) -> bool {
        self.game.is_none_or(|g| g == s.game) && self.status.is_none_or(|st| st == s.status)
    }

    pub(super) fn page_size(&self) -> usize {
        let limit = self.limit.unwrap_or(MAX_ROOMS_PER_PAGE);
        limit.clamp(1, MAX_ROOMS_PER_PAGE) as usize
    }
}

/// The page of `listed` that `q` asks for.
pub(super) fn page(listed: &BTreeMap<RoomId, Arc<RoomSummary>>, q: &ListQuery) -> Page {
    let start = match &q.after {
        Some(id) => Bound::Excluded(id),
        None => Bound::Unbounded,
    };
    let size = q.page_size();
    let mut rooms = Vec::with_capacity(size.min(listed.len()));
    let mut more = false;
    for s in listed
        .range::<RoomId, _>((start, Bound::Unbounded))
        .map(|(_, s)| s)
        .filter(|s| q.wants(s))
    {
        if rooms.len() == size {
            more = true;
            break;
        }
        rooms.push(RoomSummary::clone(s));
    }
    let next = more
        .then(|| rooms.last().map(|s| s.room.as_str().to_owned()))
        .flatten();
    Page { rooms, next }
}

impl super::Directory {
    /// Puts the public rooms hosted here that `q` wants, up to `upper`,
    /// into `rooms` as they are now, over what the database said of them
    /// (a room just created or joined here shows at once).
    pub(super) fn list_here(
        &self,
        rooms: &mut BTreeMap<RoomId, RoomSummary>,
        q: &ListQuery,
        upper: Option<&RoomId>,
    ) {
        let local = super::lock(&self.rooms);
        rooms.retain(|id, _| !local.by_id.contains_key(id));
        let start = match &q.after {
            Some(id) => Bound::Excluded(id),
            None => Bound::Unbounded,
        };
        for (id, s) in local.listed.range::<RoomId, _>((start, Bound::Unbounded)) {
            if upper.is_some_and(|u| id > u) {
                break;
            }
            if q.wants(s) {
                rooms.insert(id.clone(), RoomSummary::clone(s));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(i: usize, game: GameKind, status: RoomStatus) -> RoomSummary {
        RoomSummary {
            room: RoomId::new(format!("room{i:05}")).unwrap_or_else(|| unreachable!()),
            game,
            status,
            seats: Vec::new(),
            spectators: 0,
            commitment: None,
        }
    }

    #[test]
    fn pages_cover_every_matching_room_once_in_order() {
        let mut listed = BTreeMap::new();
        for i in 0..1000 {
            let game = GameKind::ALL[i % GameKind::ALL.len()];
            let status = if i % 2 == 0 {
                RoomStatus::Waiting
            } else {
                RoomStatus::Playing
            };
            let s = summary(i, game, status);
            listed.insert(s.room.clone(), Arc::new(s));
        }
        let mut q = ListQuery {
            game: Some(GameKind::Nimrod),
            status: Some(RoomStatus::Waiting),
            limit: Some(37),
            ..ListQuery::default()
        };
        let mut seen = Vec::new();
        loop {
            let p = page(&listed, &q);
            assert!(p.rooms.len() <= 37);
            seen.extend(p.rooms.iter().map(|s| s.room.clone()));
            match p.next {
                Some(next) => q.after = RoomId::new(next),
                None => break,
            }
        }
        let expected: Vec<RoomId> = listed
            .values()
            .filter(|s| s.game == GameKind::Nimrod && s.status == RoomStatus::Waiting)
            .map(|s| s.room.clone())
            .collect();
        assert!(!expected.is_empty());
        assert_eq!(seen, expected);
    }

    #[test]
    fn the_page_size_is_capped_and_the_last_page_has_no_next() {
        let mut listed = BTreeMap::new();
        for i in 0..(MAX_ROOMS_PER_PAGE as usize + 5) {
            let s = summary(i, GameKind::Nimrod, RoomStatus::Waiting);
            listed.insert(s.room.clone(), Arc::new(s));
        }
        let q = ListQuery {
            limit: Some(10_000),
            ..ListQuery::default()
        };
        let first = page(&listed, &q);
        assert_eq!(first.rooms.len(), MAX_ROOMS_PER_PAGE as usize);
        let after = first.next.as_deref().and_then(RoomId::new);
        assert!(after.is_some());
        let second = page(&listed, &ListQuery { after, ..q });
        assert_eq!(second.rooms.len(), 5);
        assert_eq!(second.next, None);
    }
}
