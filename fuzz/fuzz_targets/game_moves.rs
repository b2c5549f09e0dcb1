//! Each hosted game's move decoding and rules on arbitrary moves: the
//! first byte picks the game and a seed, the rest is a sequence of JSON
//! documents (split at newlines) tried as moves for the seat to act. No
//! input may panic, and a refused move must leave the game unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parlor_games::{GameKind, GameRng, Viewer};

fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let kinds = GameKind::ALL;
    let kind = kinds[usize::from(head) % kinds.len()];
    let mut rng = GameRng::from_seed(u64::from(head));
    let (min, _) = kind.seat_range();
    let Ok(mut game) = kind.setup(&serde_json::Value::Null, min, &mut rng) else {
        return;
    };
    for line in rest.split(|b| *b == b'\n') {
        let Ok(value) = serde_json::from_slice::<serde_json::Value>(line) else {
            continue;
        };
        let Ok(mv) = kind.parse_move(&value) else {
            continue;
        };
        let Some(seat) = game.to_act().iter().next() else {
            return;
        };
        let before = serde_json::to_string(&game.view(Viewer::Seat(seat))).ok();
        let mut trial = game.clone();
        let mut trial_rng = rng.clone();
        match trial.play(seat, &mv, &mut trial_rng) {
            Ok(()) => {
                game = trial;
                rng = trial_rng;
            }
            Err(_) => {
                let after = serde_json::to_string(&trial.view(Viewer::Seat(seat))).ok();
                assert_eq!(before, after, "a refused move changed the game");
            }
        }
    }
});
