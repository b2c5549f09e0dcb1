//! Making the rematch a finished room asked for, and summoning its
//! players to their new seats.

use parlor_protocol::ServerMsg;

use super::{Directory, NewRoom, Refused, Summons};
use crate::room::RematchPlan;

impl Directory {
    /// Starts the rematch `plan` describes, on the node's tracker.
    pub(super) fn start_rematch(&self, plan: RematchPlan) {
        let Some(dir) = self.me.upgrade() else {
            return;
        };
        self.spawn(async move {
            let creator = plan.players.first().map(|(_, m)| m.token);
            let made = dir
                .create(NewRoom {
                    game: plan.game,
                    seats: Some(plan.seats),
                    options: plan.options.clone(),
                    clock: plan.clock,
                    private: plan.private,
                    creator,
                    creator_addr: None,
                    rated: plan.rated,
                    // Every player an account (a correspondence match's are).
                    by_account: plan.players.iter().all(|(_, m)| m.account),
                    scheduled: None,
                })
                .await;
            let next = match made {
                Ok(c) => c.room,
                Err(Refused { code, message }) => {
                    for (_, m) in &plan.players {
                        if let Some(out) = dir.outbox_of(m.conn) {
                            out.send(&ServerMsg::room_error(&plan.from, code, message.clone()));
                        }
                    }
                    return;
                }
            };
            for (i, (seat, m)) in plan.players.iter().enumerate() {
                dir.summon_member(
                    m.conn,
                    Summons {
                        notice: ServerMsg::RematchStarted {
                            room: plan.from.clone(),
                            next: next.clone(),
                            seat: *seat,
                        },
                        room: next.clone(),
                        seat: *seat,
                        // The first player's session seats the bots.
                        bots: if i == 0 {
                            plan.bots.clone()
                        } else {
                            Vec::new()
                        },
                    },
                );
            }
        });
    }
}
