//! Which node each client of a room connects to, when the tool runs
//! several nodes: a setting of the command line that the bots follow.

use clap::ValueEnum;

/// Which node each client of a room connects to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Placement {
    /// Every client (players and spectators) to a node picked at random:
    /// most commands and frames are forwarded over the bus.
    Random,
    /// Every client of a room to the node its creator connected to (the
    /// rooms' creators take the nodes in turn): nothing is forwarded.
    Owner,
}

impl Placement {
    /// The name given on the command line.
    pub fn name(self) -> String {
        self.to_possible_value()
            .map_or_else(|| format!("{self:?}"), |v| v.get_name().to_owned())
    }
}
