//! Making the rematch a finished room asked for, and summoning its
//! players to their new seats.

use parlor_protocol::{ErrorCode, ServerMsg};

use super::{Directory, NewRoom, Refused, Summons};
use crate::accounts::name_key;
use crate::blocks::Blocks;
use crate::fair_play::pair_capped;
use crate::room::RematchPlan;

impl Directory {
    /// Starts the rematch `plan` describes, on the node's tracker.
    pub(super) fn start_rematch(&self, plan: RematchPlan) {
        let Some(dir) = self.me.upgrade() else {
            return;
        };
        self.spawn(async move {
            if let Err(refused) = dir.blocks_allow(&plan).await {
                return dir.refuse_rematch(&plan, refused);
            }
            if plan.rated {
                if let Err(refused) = dir.rated_pairs_allowed(&plan).await {
                    return dir.refuse_rematch(&plan, refused);
                }
            }
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
                    matched: Vec::new(),
                })
                .await;
            let next = match made {
                Ok(c) => c.room,
                Err(refused) => return dir.refuse_rematch(&plan, refused),
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

    /// Tells every player of `plan` why its rematch was not made.
    fn refuse_rematch(&self, plan: &RematchPlan, Refused { code, message }: Refused) {
        for (_, m) in &plan.players {
            if let Some(out) = self.outbox_of(m.conn) {
                out.send(&ServerMsg::room_error(&plan.from, code, message.clone()));
            }
        }
    }

    /// Refuses a rematch between two accounts one of whom blocks the
    /// other (`rematch/unavailable`, to every player alike: the message
    /// does not say who blocks whom).
    async fn blocks_allow(&self, plan: &RematchPlan) -> Result<(), Refused> {
        let names: Vec<&str> = plan
            .players
            .iter()
            .filter(|(_, m)| m.account)
            .map(|(_, m)| &*m.name)
            .collect();
        let blocks = Blocks::new(self.store().beside());
        for (i, a) in names.iter().enumerate() {
            for b in &names[i + 1..] {
                match blocks.either_blocks(a, b).await {
                    Ok(false) => {}
                    Ok(true) => {
                        return Err(Refused::new(
                            ErrorCode::RematchUnavailable,
                            "a rematch between these players cannot be made",
                        ))
                    }
                    Err(e) => {
                        return Err(Refused::new(
                            ErrorCode::ServerStorage,
                            format!("the rematch could not be checked: {e}"),
                        ))
                    }
                }
            }
        }
        Ok(())
    }

    /// Refuses a rated rematch between two accounts that have had as many
    /// rated results together in the window as count
    /// ([`crate::fair_play::RATED_PAIR_CAP`]).
    async fn rated_pairs_allowed(&self, plan: &RematchPlan) -> Result<(), Refused> {
        let keys: Vec<String> = plan
            .players
            .iter()
            .filter(|(_, m)| m.account)
            .map(|(_, m)| name_key(&m.name))
            .collect();
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                match pair_capped(self.store(), a, b, self.limits().rated_pair_cap).await {
                    Ok(false) => {}
                    Ok(true) => {
                        return Err(Refused::new(
                            ErrorCode::ChallengeRatedLimit,
                            "you have played as many rated games together in the last 24 hours as count; play casual, or later",
                        ))
                    }
                    Err(e) => {
                        return Err(Refused::new(
                            ErrorCode::ServerStorage,
                            format!("your rated games could not be counted: {e}"),
                        ))
                    }
                }
            }
        }
        Ok(())
    }
}
