//! The store under injected faults, on SQLite (the cases are in
//! `common/fault_cases.rs`; `store_pg.rs` runs them on Postgres): a move
//! whose commit or append failed is answered with an error and leaves no
//! trace, the same move can then be stored, a room refuses such a move
//! with `server/storage` and keeps its state, and reads held open or
//! queued up do not keep moves from being acknowledged.

// Test helpers fail the test by panicking.
#![allow(clippy::panic)]

use crate::common;

use common::backend::Backend;
use common::fault_cases as cases;

#[tokio::test]
async fn a_failed_commit_refuses_the_move_and_the_same_move_is_stored_after() {
    cases::a_failed_commit_refuses_the_move_and_the_same_move_is_stored_after(&Backend::sqlite())
        .await;
}

#[tokio::test]
async fn a_failed_append_leaves_no_trace_while_its_neighbours_are_stored() {
    cases::a_failed_append_leaves_no_trace_while_its_neighbours_are_stored(&Backend::sqlite())
        .await;
}

#[tokio::test]
async fn a_room_refuses_a_move_whose_commit_fails_and_keeps_its_state() {
    cases::a_room_refuses_a_move_whose_commit_fails_and_keeps_its_state(&Backend::sqlite()).await;
}

#[tokio::test]
async fn reads_held_open_do_not_keep_moves_from_being_acknowledged() {
    cases::reads_held_open_do_not_keep_moves_from_being_acknowledged(&Backend::sqlite()).await;
}

#[test]
fn a_full_read_queue_blocks_neither_the_async_worker_nor_moves() {
    cases::on_one_worker(async || {
        cases::a_full_read_queue_blocks_neither_the_async_worker_nor_moves(Backend::sqlite()).await;
    });
}
