//! Writing whole matches into a cluster's database, for `parlor-server
//! import`: each match in a transaction of its own, with no owner, so
//! that an unfinished one is an orphan the nodes claim and host, under
//! its room id and with its seats, so that its players resume with their
//! tokens.

use tokio_postgres::Client;

use super::super::exported::ExportedMatch;
use super::super::rows::{account_key, to_json, NewHeader};
use super::super::{StoreError, StoredSeat};
use super::connect::Target;
use super::schema;

/// What became of a match handed to [`Loader::load`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loaded {
    /// It is in the database now.
    Stored,
    /// A match with its room id was there already: nothing was written.
    RoomExists,
}

/// A connection to the cluster's database that writes whole matches.
#[derive(Debug)]
pub struct Loader {
    client: Client,
}

impl Loader {
    /// Connects to the database at `url` and brings its schema to this
    /// server's layout (creating it if need be), as a node would.
    pub async fn open(url: &str) -> Result<Loader, StoreError> {
        let target = Target::parse(url)?;
        let mut client = target.connect().await?;
        schema::prepare(&mut client, &target.schema).await?;
        Ok(Loader { client })
    }

    /// Writes `m` whole, unless its room exists already.
    pub async fn load(&mut self, m: &ExportedMatch) -> Result<Loaded, StoreError> {
        let h = NewHeader::encode(&m.record)?;
        let outcome = m.outcome.as_ref().map(to_json).transpose()?;
        let closed = m.closed.as_ref().map(to_json).transpose()?;
        let seats = i16::from(h.seats);
        let tx = self.client.transaction().await?;
        let row = tx
            .query_opt(
                "INSERT INTO matches (room, game, options, seats, seed, clock, private, deal, \
                 creator, creator_addr, created_ms, finished, outcome, closed, owner, rated) \
                 VALUES ($1, $2, $3::text::jsonb, $4, $5, $6::text::jsonb, $7, $8::text::jsonb, \
                 $9::text::uuid, $10, $11, $12, $13::text::jsonb, $14::text::jsonb, NULL, $15) \
                 ON CONFLICT (room) DO NOTHING RETURNING id",
                &[
                    &h.room,
                    &h.game,
                    &h.options,
                    &seats,
                    &h.seed,
                    &h.clock,
                    &h.private,
                    &h.deal,
                    &h.creator,
                    &h.creator_addr,
                    &h.created_ms,
                    &m.finished(),
                    &outcome,
                    &closed,
                    &h.rated,
                ],
            )
            .await?;
        let Some(row) = row else {
            return Ok(Loaded::RoomExists);
        };
        let id: i64 = row.try_get(0)?;
        for (seat, who) in &m.seats {
            let seat = i16::from(seat.0);
            match who {
                StoredSeat::Player {
                    token,
                    name,
                    client_seed,
                    ..
                } => {
                    tx.execute(
                        "INSERT INTO seats (match_id, seat, kind, token, name, client_seed, \
                         account_key) VALUES ($1, $2, 'player', $3::text::uuid, $4, $5, $6)",
                        &[
                            &id,
                            &seat,
                            &token.to_string(),
                            name,
                            client_seed,
                            &account_key(who),
                        ],
                    )
                    .await?;
                }
                StoredSeat::Bot { strategy, account } => {
                    tx.execute(
                        "INSERT INTO seats (match_id, seat, kind, strategy, name, account_key) \
                         VALUES ($1, $2, 'bot', $3, $4, $5)",
                        &[&id, &seat, strategy, account, &account_key(who)],
                    )
                    .await?;
                }
            }
        }
        let insert_step = tx
            .prepare(
                "INSERT INTO moves (match_id, seq, seat, action, clocks) \
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .await?;
        for step in &m.steps {
            let seq = i64::try_from(step.entry.seq)
                .map_err(|_| StoreError::Corrupt(format!("seq {}", step.entry.seq)))?;
            let seat = i16::from(step.entry.seat.0);
            let action = to_json(&step.entry.action)?;
            let clocks = step.clocks.as_ref().map(to_json).transpose()?;
            tx.execute(&insert_step, &[&id, &seq, &seat, &action, &clocks])
                .await?;
        }
        tx.commit().await?;
        Ok(Loaded::Stored)
    }
}
