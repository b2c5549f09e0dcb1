//! The eight directions a ball steps or vaults in, and the board's
//! neighbourhoods and lines, computed once at compile time.

use super::set::SquareSet;
use super::square::{Square, SIDE, SQUARES};

/// A direction on the board: "adjacent" means any of the 8 neighbours,
/// and a vault follows one of these lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Towards row A.
    Up,
    /// Towards row A and column 5.
    UpRight,
    /// Towards column 5.
    Right,
    /// Towards row E and column 5.
    DownRight,
    /// Towards row E.
    Down,
    /// Towards row E and column 1.
    DownLeft,
    /// Towards column 1.
    Left,
    /// Towards row A and column 1.
    UpLeft,
}

impl Direction {
    /// All eight, clockwise from up.
    pub const ALL: [Direction; 8] = [
        Direction::Up,
        Direction::UpRight,
        Direction::Right,
        Direction::DownRight,
        Direction::Down,
        Direction::DownLeft,
        Direction::Left,
        Direction::UpLeft,
    ];

    /// Its place in [`Direction::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Rows and columns moved by one step.
    pub const fn delta(self) -> (i8, i8) {
        match self {
            Direction::Up => (-1, 0),
            Direction::UpRight => (-1, 1),
            Direction::Right => (0, 1),
            Direction::DownRight => (1, 1),
            Direction::Down => (1, 0),
            Direction::DownLeft => (1, -1),
            Direction::Left => (0, -1),
            Direction::UpLeft => (-1, -1),
        }
    }

    /// The direction from `from` to `to` if they lie on one row, column
    /// or diagonal (and differ), with their distance in steps.
    pub fn between(from: Square, to: Square) -> Option<(Direction, u8)> {
        let dr = to.row() - from.row();
        let dc = to.col() - from.col();
        if (dr, dc) == (0, 0) || (dr != 0 && dc != 0 && dr.abs() != dc.abs()) {
            return None;
        }
        let unit = (dr.signum(), dc.signum());
        let dir = Direction::ALL.into_iter().find(|d| d.delta() == unit)?;
        Some((dir, dr.unsigned_abs().max(dc.unsigned_abs())))
    }
}

/// The longest line leaving a square without it: the board's side less one.
pub const MAX_RAY: usize = SIDE as usize - 1;

/// The squares met going from a square in one direction, nearest first.
#[derive(Clone, Copy, Debug)]
pub struct Ray {
    squares: [Square; MAX_RAY],
    len: u8,
}

impl Ray {
    /// The squares, nearest first.
    pub fn squares(&self) -> &[Square] {
        &self.squares[..usize::from(self.len)]
    }
}

const fn ray(from: usize, dir: Direction) -> Ray {
    let mut squares = [Square::A1; MAX_RAY];
    let mut len = 0;
    let (dr, dc) = dir.delta();
    let (mut r, mut c) = ((from / SIDE as usize) as i8, (from % SIDE as usize) as i8);
    loop {
        r += dr;
        c += dc;
        match Square::at(r, c) {
            Some(s) => {
                squares[len] = s;
                len += 1;
            }
            None => break,
        }
    }
    Ray {
        squares,
        len: len as u8,
    }
}

const fn rays() -> [[Ray; 8]; SQUARES] {
    let empty = ray(0, Direction::Up);
    let mut out = [[empty; 8]; SQUARES];
    let mut i = 0;
    while i < SQUARES {
        let mut d = 0;
        while d < 8 {
            out[i][d] = ray(i, Direction::ALL[d]);
            d += 1;
        }
        i += 1;
    }
    out
}

const fn neighbours() -> [SquareSet; SQUARES] {
    let mut out = [SquareSet::EMPTY; SQUARES];
    let mut i = 0;
    while i < SQUARES {
        let mut d = 0;
        while d < 8 {
            let r = ray(i, Direction::ALL[d]);
            if r.len > 0 {
                out[i] = out[i].with(r.squares[0]);
            }
            d += 1;
        }
        i += 1;
    }
    out
}

/// Every square's line in every direction, by square number and
/// [`Direction::ALL`] order.
static RAYS: [[Ray; 8]; SQUARES] = rays();

/// Every square's neighbours, by square number.
static NEIGHBOURS: [SquareSet; SQUARES] = neighbours();

/// The line from `from` in direction `dir` (as `Direction::ALL[dir]`).
pub fn ray_from(from: Square, dir: usize) -> &'static [Square] {
    RAYS[from.index()][dir % 8].squares()
}

/// The up to 8 squares adjacent to `sq`.
pub fn neighbours_of(sq: Square) -> SquareSet {
    NEIGHBOURS[sq.index()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn corners_have_three_neighbours_and_the_centre_eight() {
        assert_eq!(neighbours_of(sq("A1")).len(), 3);
        assert_eq!(neighbours_of(sq("A3")).len(), 5);
        assert_eq!(neighbours_of(sq("C3")).len(), 8);
        let names: Vec<String> = neighbours_of(sq("A5"))
            .into_iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(names, ["A4", "B4", "B5"]);
    }

    #[test]
    fn rays_run_to_the_edge() {
        let names = |from: &str, d: usize| -> Vec<String> {
            ray_from(sq(from), d)
                .iter()
                .map(|s| s.to_string())
                .collect()
        };
        assert_eq!(names("A5", 6), ["A4", "A3", "A2", "A1"]); // left
        assert_eq!(names("A5", 5), ["B4", "C3", "D2", "E1"]); // down-left
        assert_eq!(names("A5", 0), Vec::<String>::new()); // up: off the board
        assert_eq!(names("C3", 3), ["D4", "E5"]);
    }

    #[test]
    fn between_finds_lines_only() {
        assert_eq!(
            Direction::between(sq("A5"), sq("C3")),
            Some((Direction::DownLeft, 2))
        );
        assert_eq!(
            Direction::between(sq("A5"), sq("A2")),
            Some((Direction::Left, 3))
        );
        assert_eq!(Direction::between(sq("A1"), sq("B3")), None);
        assert_eq!(Direction::between(sq("A1"), sq("A1")), None);
    }
}
