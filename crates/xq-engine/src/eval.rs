//! The static evaluation: material, piece-square tables, mobility, king safety and a few
//! Xiangqi patterns, blended between middlegame and endgame by the material left.
//!
//! The values are hand-set from common Xiangqi knowledge: a chariot is worth about two
//! horses or cannons, a cannon is better with many pieces to jump and a horse with few, a
//! soldier gains much by crossing the river and loses most of it on the last rank, and a
//! palace stripped of advisors and elephants is weak against horses, chariots and cannons.

use xq_rules::{Board, Color, Position, Role, Square};

/// Material, middlegame and endgame, by role (general, advisor, elephant, horse, chariot,
/// cannon, soldier). The soldier's value comes from its table.
const VALUE: [(i32, i32); 7] = [
    (0, 0),
    (120, 130),
    (120, 130),
    (280, 320),
    (620, 660),
    (310, 280),
    (0, 0),
];

/// The evaluation scale: material counts from [`VALUE`] (a chariot 620, a soldier before
/// the river 30), so a score of 100 is about a third of a cannon.
const TEMPO: i32 = 10;

/// Piece-square bonuses from Red's side, rank 0 (Red's back rank) first, file a to i.
type Table = [i32; 90];

#[rustfmt::skip]
const SOLDIER: Table = [
     0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,
    28,  0, 32,  0, 38,  0, 32,  0, 28,
    30,  0, 36,  0, 44,  0, 36,  0, 30,
    52, 58, 64, 70, 76, 70, 64, 58, 52,
    58, 68, 80, 92, 98, 92, 80, 68, 58,
    58, 72, 90,104,110,104, 90, 72, 58,
    52, 66, 84, 96,100, 96, 84, 66, 52,
    18, 22, 28, 34, 36, 34, 28, 22, 18,
];

#[rustfmt::skip]
const HORSE: Table = [
   -12, -6,  0, -6,-16, -6,  0, -6,-12,
    -6,  0,  4,  4,-12,  4,  4,  0, -6,
     0,  4, 10,  8,  8,  8, 10,  4,  0,
     0,  8, 12, 14, 12, 14, 12,  8,  0,
     0, 10, 16, 18, 16, 18, 16, 10,  0,
     2, 14, 18, 22, 20, 22, 18, 14,  2,
     4, 18, 22, 28, 24, 28, 22, 18,  4,
     6, 20, 28, 30, 28, 30, 28, 20,  6,
     4, 18, 30, 22, 14, 22, 30, 18,  4,
     0,  4,  8, 12, -4, 12,  8,  4,  0,
];

#[rustfmt::skip]
const CHARIOT: Table = [
    -6,  4,  2, 10,  0, 10,  2,  4, -6,
     0,  8,  4, 12,  0, 12,  4,  8,  0,
     0,  4,  2, 10,  4, 10,  2,  4,  0,
     2,  8,  6, 12, 12, 12,  6,  8,  2,
     6, 12, 10, 14, 16, 14, 10, 12,  6,
     6, 14, 12, 16, 18, 16, 12, 14,  6,
     6, 12, 10, 16, 18, 16, 10, 12,  6,
     6, 14, 12, 18, 20, 18, 12, 14,  6,
     8, 16, 14, 22, 24, 22, 14, 16,  8,
     6, 10,  8, 14, 14, 14,  8, 10,  6,
];

#[rustfmt::skip]
const CANNON: Table = [
     0,  0,  2,  6,  6,  6,  2,  0,  0,
     0,  2,  4,  4,  4,  4,  4,  2,  0,
     2,  2,  0,  4, 10,  4,  0,  2,  2,
     0,  0,  0,  2,  6,  2,  0,  0,  0,
    -2,  0,  4,  2,  8,  2,  4,  0, -2,
     0,  0,  0,  2,  8,  2,  0,  0,  0,
     0,  2,  4,  6,  8,  6,  4,  2,  0,
     2,  2,  0, -4, -6, -4,  0,  2,  2,
     2,  2,  0, -6, -8, -6,  0,  2,  2,
     6,  4,  0, -4, -6, -4,  0,  4,  6,
];

#[rustfmt::skip]
const ADVISOR: Table = [
     0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  6,  0,  0,  0,  0,
     0,  0,  0, -2,  0, -2,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,
];

#[rustfmt::skip]
const ELEPHANT: Table = [
     0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,
    -3,  0,  0,  0,  6,  0,  0,  0, -3,
     0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0, -2,  0,  0,  0, -2,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,
];

#[rustfmt::skip]
const GENERAL: Table = [
     0,  0,  0, -4,  2, -4,  0,  0,  0,
     0,  0,  0,-10, -8,-10,  0,  0,  0,
     0,  0,  0,-20,-20,-20,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,
];

/// The tables by role.
const TABLES: [&Table; 7] = [
    &GENERAL, &ADVISOR, &ELEPHANT, &HORSE, &CHARIOT, &CANNON, &SOLDIER,
];

/// A horse's bonus by the number of points it can go to: a horse with none is nearly dead.
const HORSE_MOBILITY: [i32; 9] = [-36, -18, -6, 0, 5, 9, 12, 14, 15];
/// A chariot's bonus per point it reaches, and the reach at which it is worth nothing extra.
const CHARIOT_MOBILITY: (i32, i32) = (3, 7);
/// A cannon's bonus per empty point it can go to, and per piece it could jump onto.
const CANNON_MOBILITY: (i32, i32) = (1, 3);

/// A cannon on the enemy general's file: with nothing between them, with one screen, two.
const FILE_CANNON: [i32; 3] = [36, 20, 4];

/// Each missing advisor costs this much per enemy chariot, horse, cannon, crossed soldier.
const NO_ADVISOR: [i32; 4] = [10, 8, 4, 3];
/// Each missing elephant costs this much per enemy chariot, horse, cannon.
const NO_ELEPHANT: [i32; 3] = [5, 3, 8];

/// The phase of a full board: each chariot counts 4, each horse and cannon 2.
const FULL_PHASE: i32 = 2 * (2 * 4 + 2 * 2 + 2 * 2);

/// The board as one byte per point, 0 for an empty one, else `role + 1` and 8 for Black,
/// inside a frame of [`OFF`] two points wide, so that a step off the board (a horse jumps two)
/// lands on the frame instead of needing a bounds check.
struct Cells([u8; WIDTH * HEIGHT]);

/// The framed board's width and height.
const WIDTH: usize = 13;
const HEIGHT: usize = 14;
/// The frame's byte.
const OFF: u8 = 0xFF;

impl Cells {
    fn new(board: &Board) -> Self {
        let mut cells = [OFF; WIDTH * HEIGHT];
        for square in Square::all() {
            let (f, r) = (
                square.file().index() as usize,
                square.rank().index() as usize,
            );
            cells[cell(f, r)] = board
                .piece_at(square)
                .map_or(0, |piece| code(piece.color, piece.role));
        }
        Self(cells)
    }

    /// The byte at a framed index.
    #[inline]
    const fn at(&self, index: usize) -> u8 {
        self.0[index]
    }
}

/// The framed index of file `f`, rank `r`.
const fn cell(f: usize, r: usize) -> usize {
    (r + 2) * WIDTH + f + 2
}

const fn code(color: Color, role: Role) -> u8 {
    (role as u8 + 1) | ((color as u8) << 3)
}

const fn color_of(code: u8) -> usize {
    (code >> 3) as usize
}

/// The four orthogonal directions, as steps between framed indices.
const LINES: [isize; 4] = [1, -1, WIDTH as isize, -(WIDTH as isize)];
/// A horse's legs and, for each, the two points it reaches over it, as framed steps.
const HORSE_STEPS: [(isize, [isize; 2]); 4] = {
    const W: isize = WIDTH as isize;
    [
        (W, [2 * W + 1, 2 * W - 1]),
        (-W, [-2 * W + 1, -2 * W - 1]),
        (1, [W + 2, -W + 2]),
        (-1, [W - 2, -W - 2]),
    ]
};

/// The static evaluation of `pos` in centipawns, from the side to move's point of view
/// (positive: the side to move stands better). Mate and stalemate are not detected here: the
/// search does that.
///
/// The scale is material: a soldier before the river is worth about 30, after it 60 to 110,
/// an advisor or elephant 120, a horse 280 to 320, a cannon 280 to 310, a chariot 620 to 660.
///
/// # Examples
///
/// ```
/// use xq_rules::Position;
///
/// // The start is symmetric: only the tempo of the side to move counts.
/// let score = xq_engine::evaluate(&Position::startpos());
/// assert!(score.abs() < 30);
/// ```
#[must_use]
pub fn evaluate(pos: &Position) -> i32 {
    let cells = Cells::new(pos.board());
    let mut mg = [0i32; 2];
    let mut eg = [0i32; 2];
    let mut counts = [[0i32; 7]; 2];
    let mut crossed = [0i32; 2];
    let mut phase = 0;
    for (square, piece) in pos.board().pieces() {
        let index = square.index() as usize;
        let color = piece.color as usize;
        let role = piece.role as usize;
        let relative = if color == 0 { index } else { 89 - index };
        counts[color][role] += 1;
        let bonus = TABLES[role][relative];
        let (value_mg, value_eg) = VALUE[role];
        mg[color] += value_mg + bonus;
        eg[color] += value_eg + bonus;
        let at = cell(index % 9, index / 9);
        match piece.role {
            Role::Horse => {
                phase += 2;
                let score = HORSE_MOBILITY[horse_moves(&cells, at, color)];
                mg[color] += score;
                eg[color] += score;
            }
            Role::Chariot => {
                phase += 4;
                let reach = chariot_reach(&cells, at, color);
                let score = CHARIOT_MOBILITY.0 * (reach - CHARIOT_MOBILITY.1);
                mg[color] += score;
                eg[color] += score;
            }
            Role::Cannon => {
                phase += 2;
                let (free, targets) = cannon_reach(&cells, at, color);
                let score = CANNON_MOBILITY.0 * free + CANNON_MOBILITY.1 * targets;
                mg[color] += score;
                eg[color] += score / 2;
            }
            Role::Soldier if relative >= 45 => {
                crossed[color] += 1;
                // Soldiers grow in the endgame, when little can stop them.
                eg[color] += bonus / 3;
            }
            _ => {}
        }
    }
    for color in 0..2 {
        let enemy = 1 - color;
        let e = &counts[enemy];
        let (horses, chariots, cannons) = (e[3], e[4], e[5]);
        let advisors_missing = 2 - counts[color][1];
        let elephants_missing = 2 - counts[color][2];
        let danger = advisors_missing
            * (NO_ADVISOR[0] * chariots
                + NO_ADVISOR[1] * horses
                + NO_ADVISOR[2] * cannons
                + NO_ADVISOR[3] * crossed[enemy])
            + elephants_missing
                * (NO_ELEPHANT[0] * chariots + NO_ELEPHANT[1] * horses + NO_ELEPHANT[2] * cannons);
        mg[color] -= danger;
        eg[color] -= danger / 2;
        let general = pos.general(side(color));
        let bonus = file_cannons(&cells, general, enemy);
        mg[enemy] += bonus;
        eg[enemy] += bonus / 2;
    }
    let phase = phase.min(FULL_PHASE);
    let blend = |c: usize| (mg[c] * phase + eg[c] * (FULL_PHASE - phase)) / FULL_PHASE;
    let mut score = blend(0) - blend(1);
    // A side with nothing that can cross the river and attack cannot win.
    let attackers = |c: usize| counts[c][3] + counts[c][4] + counts[c][5] + counts[c][6];
    if (score > 0 && attackers(0) == 0) || (score < 0 && attackers(1) == 0) {
        score /= 8;
    }
    let score = match pos.turn() {
        Color::Red => score,
        Color::Black => -score,
    };
    score + TEMPO
}

const fn side(index: usize) -> Color {
    if index == 0 { Color::Red } else { Color::Black }
}

/// The points a horse on framed index `at` can go to: legs free, not onto its own side's pieces.
fn horse_moves(cells: &Cells, at: usize, color: usize) -> usize {
    let mut n = 0;
    for (leg, targets) in HORSE_STEPS {
        if cells.at(at.wrapping_add_signed(leg)) != 0 {
            continue;
        }
        for target in targets {
            let c = cells.at(at.wrapping_add_signed(target));
            n += usize::from(c == 0 || (c != OFF && color_of(c) != color));
        }
    }
    n
}

/// The points a chariot on framed index `at` reaches: empty ones and the first enemy piece
/// on each line.
fn chariot_reach(cells: &Cells, at: usize, color: usize) -> i32 {
    let mut n = 0;
    for step in LINES {
        let mut i = at.wrapping_add_signed(step);
        loop {
            let c = cells.at(i);
            if c != 0 {
                n += i32::from(c != OFF && color_of(c) != color);
                break;
            }
            n += 1;
            i = i.wrapping_add_signed(step);
        }
    }
    n
}

/// A cannon on framed index `at`: the empty points it can go to, and the enemy pieces it
/// could jump onto.
fn cannon_reach(cells: &Cells, at: usize, color: usize) -> (i32, i32) {
    let (mut free, mut targets) = (0, 0);
    for step in LINES {
        let mut i = at.wrapping_add_signed(step);
        let mut screened = false;
        loop {
            let c = cells.at(i);
            if c == OFF {
                break;
            }
            if c != 0 {
                if screened {
                    targets += i32::from(color_of(c) != color);
                    break;
                }
                screened = true;
            } else if !screened {
                free += 1;
            }
            i = i.wrapping_add_signed(step);
        }
    }
    (free, targets)
}

/// The bonus of `attacker`'s cannons on the file of the general on `general`, by the pieces
/// between them.
fn file_cannons(cells: &Cells, general: Square, attacker: usize) -> i32 {
    let cannon = code(side(attacker), Role::Cannon);
    let at = cell(
        general.file().index() as usize,
        general.rank().index() as usize,
    );
    let step = if attacker == 0 {
        -(WIDTH as isize)
    } else {
        WIDTH as isize
    };
    let mut between = 0;
    let mut bonus = 0;
    let mut i = at.wrapping_add_signed(step);
    loop {
        let c = cells.at(i);
        if c == OFF {
            break;
        }
        if c == cannon {
            bonus += FILE_CANNON.get(between).copied().unwrap_or(0);
        }
        if c != 0 {
            between += 1;
            if between > 2 {
                break;
            }
        }
        i = i.wrapping_add_signed(step);
    }
    bonus
}

#[cfg(test)]
mod tests {
    use xq_rules::fen::Fen;

    use super::*;

    fn position(fen: &str) -> Position {
        let Ok(Ok(pos)) = fen.parse::<Fen>().map(Fen::into_position) else {
            panic!("{fen}: not a legal position");
        };
        pos
    }

    fn eval(fen: &str) -> i32 {
        evaluate(&position(fen))
    }

    #[test]
    fn the_evaluation_is_symmetric() {
        for fen in [
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1",
            "r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1CN1C1N2/9/R1BAKAB1R w - - 4 3",
            "3k5/9/9/9/4p4/9/9/9/4A4/4K4 w - - 0 1",
        ] {
            let pos = position(fen);
            assert_eq!(evaluate(&pos), evaluate(&pos.mirrored()), "{fen}");
        }
    }

    #[test]
    fn material_and_soldiers_count_as_expected() {
        // Red is a chariot up: far ahead.
        assert!(
            eval("rnbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1") > 500
        );
        // A crossed soldier is worth more than one at home.
        let home = eval("3k5/9/9/9/9/9/4P4/9/9/4K4 w - - 0 1");
        let crossed = eval("3k5/9/9/9/4P4/9/9/9/9/4K4 w - - 0 1");
        assert!(crossed > home + 20, "{crossed} {home}");
    }

    #[test]
    fn the_central_cannon_counts() {
        let central = eval("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 0 1");
        let start = eval("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1");
        assert!(central > start, "{central} {start}");
    }
}
