//! The store's cases on Postgres, each in a scratch schema of its own
//! (`PARLOR_TEST_POSTGRES`; skipped when it cannot be used, except under
//! `CI=true`): the same test bodies as `store.rs` and `store_faults.rs`
//! run on SQLite (`common/store_cases.rs`, `common/fault_cases.rs`).

// Test helpers fail the test by panicking.
#![allow(clippy::panic)]

use crate::common;

use common::backend::Backend;
use common::fault_cases;
use common::store_cases;

/// Runs the case `$case` of `$module` on a fresh Postgres schema.
macro_rules! on_postgres {
    ($module:ident :: $case:ident) => {
        #[tokio::test]
        async fn $case() {
            let Some(backend) = Backend::postgres().await else {
                return;
            };
            $module::$case(&backend).await;
        }
    };
}

on_postgres!(store_cases::matches_seats_and_moves_survive_a_reopen);
on_postgres!(store_cases::a_duplicate_step_is_refused_and_changes_nothing);
on_postgres!(store_cases::a_database_from_a_newer_server_is_refused);
on_postgres!(store_cases::an_accounts_games_are_listed_with_whose_turn_it_is);
on_postgres!(store_cases::the_previous_layout_is_migrated_and_keeps_its_rows);
on_postgres!(store_cases::a_duplicate_sets_log_is_embargoed_until_the_set_is_over);
on_postgres!(store_cases::voiding_a_marked_accounts_results_refolds_exactly);
on_postgres!(fault_cases::a_failed_commit_refuses_the_move_and_the_same_move_is_stored_after);
on_postgres!(fault_cases::a_failed_append_leaves_no_trace_while_its_neighbours_are_stored);
on_postgres!(fault_cases::a_room_refuses_a_move_whose_commit_fails_and_keeps_its_state);
on_postgres!(fault_cases::reads_held_open_do_not_keep_moves_from_being_acknowledged);

#[test]
fn a_full_read_queue_blocks_neither_the_async_worker_nor_moves() {
    fault_cases::on_one_worker(async || {
        let Some(backend) = Backend::postgres().await else {
            return;
        };
        fault_cases::a_full_read_queue_blocks_neither_the_async_worker_nor_moves(backend).await;
    });
}
