//! The faults: a node SIGKILLed and restarted or SIGSTOPped past its
//! lease each cycle, once Redis killed and once PostgreSQL stopped, each
//! started again; and the guard that stops everything at the end.

use std::sync::Arc;
use std::time::Instant;

use super::services::node_log;
use super::shared::{lock, Shared};
use super::{DOWN_FOR, LEASE, NODES, REST, SERVICE_DOWN_FOR, STOP_EVERY};
use crate::common::live::start_server;
use rand::Rng;

/// What the faults did, for the summary.
#[derive(Default, Debug)]
pub(crate) struct Tally {
    pub(crate) kills: usize,
    pub(crate) stops: usize,
    pub(crate) redis: bool,
    pub(crate) postgres: bool,
}

/// Runs `cycles` fault cycles on the services (on a thread of its own:
/// it blocks), unless the test is already over.
pub(crate) fn faults(sh: &Shared, cycles: usize) -> Tally {
    let mut tally = Tally::default();
    let mut rng = rand::thread_rng();
    let redis_at = cycles / 3;
    let pg_at = 2 * cycles / 3;
    let fault = |sh: &Shared| lock(&sh.faults).push(Instant::now());
    for cycle in 1..=cycles {
        let i = rng.gen_range(0..NODES);
        if cycle % STOP_EVERY == 0 {
            {
                let mut s = lock(&sh.services);
                let Some(s) = s.as_mut() else { break };
                s.signal(i, "-STOP");
                s.nodes[i].stopped = true;
            }
            fault(sh);
            std::thread::sleep(LEASE * 2);
            {
                let mut s = lock(&sh.services);
                let Some(s) = s.as_mut() else { break };
                s.signal(i, "-CONT");
                s.nodes[i].stopped = false;
            }
            tally.stops += 1;
        } else {
            {
                let mut s = lock(&sh.services);
                let Some(s) = s.as_mut() else { break };
                s.kill_node(i);
            }
            fault(sh);
            std::thread::sleep(DOWN_FOR);
            // Started outside the lock: clients pick nodes meanwhile.
            let (bin, args, dir) = {
                let s = lock(&sh.services);
                let Some(s) = s.as_ref() else { break };
                (s.bin.clone(), s.args.clone(), s.dir.clone())
            };
            let (child, url) = start_server(
                &bin,
                &args,
                &dir.join(format!("node{i}.addr")),
                node_log(i).as_deref(),
            );
            let mut s = lock(&sh.services);
            let Some(s) = s.as_mut() else { break };
            let n = &mut s.nodes[i];
            n.child = Some(child);
            n.url = Some(url);
            n.generation += 1;
            tally.kills += 1;
        }
        std::thread::sleep(REST);
        if cycle == redis_at {
            {
                let mut s = lock(&sh.services);
                let Some(s) = s.as_mut() else { break };
                s.redis.kill();
            }
            fault(sh);
            std::thread::sleep(SERVICE_DOWN_FOR);
            {
                let mut s = lock(&sh.services);
                let Some(s) = s.as_mut() else { break };
                s.redis.start().unwrap();
            }
            tally.redis = true;
            std::thread::sleep(REST);
        }
        if cycle == pg_at {
            {
                let s = lock(&sh.services);
                let Some(s) = s.as_ref() else { break };
                s.pg.stop_immediate();
            }
            fault(sh);
            std::thread::sleep(SERVICE_DOWN_FOR);
            {
                let s = lock(&sh.services);
                let Some(s) = s.as_ref() else { break };
                s.pg.start().unwrap();
            }
            tally.postgres = true;
            std::thread::sleep(REST);
        }
        eprintln!("chaos: cycle {cycle}/{cycles} done");
    }
    tally
}

/// Kills the nodes and stops the services when dropped (also when the
/// test panics).
pub(crate) struct Guard(pub(crate) Arc<Shared>);

impl Drop for Guard {
    fn drop(&mut self) {
        drop(lock(&self.0.services).take());
    }
}
