//! Coming back after the server dropped the connection (a restart, a
//! crash, a node lost): a bot waits a little, longer each try, connects
//! again, says hello with its API token and `resume`s with its resume
//! token, which gives it back every seat it held, and plays on.

use std::time::Duration;

use tokio::time::Instant;

use crate::client::{Client, ClientError};

/// The wait before the first try: a restarting server is back within a
/// second or so, and a few hundred milliseconds keeps a field of bots
/// from all knocking at once.
pub const FIRST_WAIT: Duration = Duration::from_millis(250);

/// The longest wait between tries: a bot notices a server that is back
/// within this, while a long outage costs one connection attempt per bot
/// this often.
pub const MAX_WAIT: Duration = Duration::from_secs(5);

/// Each wait is drawn from its nominal length plus or minus this share
/// of it, so that the bots a crash dropped together spread their tries.
pub const JITTER: f64 = 0.25;

/// How long a bot keeps trying before it gives up: longer than a restart
/// or a cluster failover takes, shorter than an event's clocks would let
/// its games wait.
pub const GIVE_UP_AFTER: Duration = Duration::from_secs(120);

impl ClientError {
    /// Whether the connection is gone (closed or broken), as opposed to a
    /// refusal or a message not understood: the error a reconnection
    /// mends.
    pub fn is_dropped(&self) -> bool {
        matches!(self, ClientError::Ws(_) | ClientError::Closed(_))
    }
}

/// The waits between tries: doubling from [`FIRST_WAIT`] up to
/// [`MAX_WAIT`], each jittered by [`JITTER`].
#[derive(Debug)]
pub struct Backoff {
    next: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff { next: FIRST_WAIT }
    }
}

impl Backoff {
    /// The next wait.
    pub fn wait(&mut self) -> Duration {
        let nominal = self.next;
        self.next = (self.next * 2).min(MAX_WAIT);
        let spread = rand::random::<f64>() * 2.0 - 1.0;
        nominal.mul_f64(1.0 + JITTER * spread)
    }
}

impl Client {
    /// Replaces this dropped connection by a new one to `url` (hello as
    /// `name`, with the process's API token) that has resumed this one's
    /// seats; the seats taken back. Tries with [`Backoff`] until
    /// [`GIVE_UP_AFTER`], then returns the last error.
    pub async fn reconnect(
        &mut self,
        url: &str,
        name: &str,
    ) -> Result<Vec<parlor_protocol::SeatRef>, ClientError> {
        let token = self.token();
        let mut backoff = Backoff::default();
        let give_up = Instant::now() + GIVE_UP_AFTER;
        loop {
            tokio::time::sleep(backoff.wait()).await;
            let tried = async {
                let mut client = Client::connect(url, name).await?;
                let seats = match client.resume(token).await {
                    Ok(seats) => seats,
                    // Nothing held under the token (no game was on, or
                    // they all ended meanwhile): a fresh start.
                    Err(ClientError::Refused { .. }) => Vec::new(),
                    Err(e) => return Err(e),
                };
                Ok::<_, ClientError>((client, seats))
            }
            .await;
            match tried {
                Ok((client, seats)) => {
                    *self = client;
                    return Ok(seats);
                }
                Err(e) if Instant::now() >= give_up => return Err(e),
                Err(e) => eprintln!("parlor bot: reconnecting to {url}: {e}"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_up_to_the_cap_within_the_jitter() {
        let mut b = Backoff::default();
        let mut nominal = FIRST_WAIT;
        for _ in 0..12 {
            let w = b.wait();
            assert!(w >= nominal.mul_f64(1.0 - JITTER) && w <= nominal.mul_f64(1.0 + JITTER));
            nominal = (nominal * 2).min(MAX_WAIT);
        }
    }
}
