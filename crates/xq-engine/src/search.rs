//! The search: iterative deepening, principal variation search with aspiration windows, a
//! transposition table, null-move pruning, late-move reductions, check extensions and a
//! quiescence search over captures and check evasions.
//!
//! Repetitions are judged by the match's own rule ([`RepetitionRule::judge_cycle`]) on every
//! node that repeats a position of its path or of the game before the root.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, DefaultHasher};
use std::sync::atomic::{AtomicBool, Ordering};

use xq_rules::{Color, Move, Piece, Position, Role, Square};
use xq_session::{GameResult, RepetitionRule};

use crate::score::{INFINITY, MATE, MATE_BOUND, from_table, to_table};
use crate::tt::{Bound, Hit, Table};
use crate::{Clock, Limits, evaluate};

/// The deepest ply a search reaches, quiescence included.
pub(crate) const MAX_PLY: usize = 96;

/// The move recorded for a null move, which no position can play (a general stays put).
const NULL_MOVE: Move = Move::new(Square::A0, Square::A0);

/// How many nodes pass between two looks at the clock and the stop flag.
const CHECK_EVERY: u64 = 512;

/// What a search learns that helps the next one: killer moves, the history of quiet moves
/// that caused cut-offs, and the rulings on repetition cycles already judged.
#[derive(Clone, Debug)]
pub(crate) struct Heuristics {
    killers: Vec<[Option<Move>; 2]>,
    /// By side and `from * 90 + to`.
    history: Vec<i32>,
    /// Cycle rulings by a hash of the cycle's positions. A fixed hasher: no randomness, which
    /// `wasm32-unknown-unknown` would not have anyway.
    cycles: HashMap<u64, GameResult, BuildHasherDefault<DefaultHasher>>,
}

/// The bound on history scores, below the killers' ordering keys.
const HISTORY_MAX: i32 = 60_000;
/// The most cycle rulings kept; the cache starts over when it is full.
const CYCLES_MAX: usize = 1 << 16;

impl Heuristics {
    pub(crate) fn new() -> Self {
        Self {
            killers: vec![[None; 2]; MAX_PLY + 2],
            history: vec![0; 2 * 90 * 90],
            cycles: HashMap::default(),
        }
    }

    pub(crate) fn clear(&mut self) {
        *self = Self::new();
    }

    /// Before a new search: killers belong to the old root, history fades.
    pub(crate) fn age(&mut self) {
        self.killers.fill([None; 2]);
        for h in &mut self.history {
            *h /= 8;
        }
    }

    fn history_index(color: Color, mv: Move) -> usize {
        color as usize * 8100 + usize::from(mv.from.index()) * 90 + usize::from(mv.to.index())
    }

    fn history(&self, color: Color, mv: Move) -> i32 {
        self.history[Self::history_index(color, mv)]
    }

    fn reward(&mut self, color: Color, mv: Move, bonus: i32) {
        let h = &mut self.history[Self::history_index(color, mv)];
        // Gravity: the bonus shrinks as the score nears its bound, so scores stay in range.
        *h += bonus - *h * bonus.abs() / HISTORY_MAX;
    }
}

/// A move at the root, with what the ordering and the levels know of it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RootMove {
    pub(crate) mv: Move,
    /// A level's random bonus, added to the move's score (0 at full strength).
    pub(crate) bonus: i32,
    /// The last score found for it, for ordering.
    score: i32,
}

impl RootMove {
    pub(crate) const fn new(mv: Move, bonus: i32) -> Self {
        Self {
            mv,
            bonus,
            score: -INFINITY,
        }
    }
}

/// The result of one iteration.
#[derive(Clone, Debug)]
pub(crate) struct Iteration {
    pub(crate) depth: u32,
    pub(crate) score: i32,
    pub(crate) pv: Vec<Move>,
}

/// One search in progress: the path from the game's start through the current node.
pub(crate) struct Search<'a> {
    pub(crate) tt: &'a mut Table,
    pub(crate) heuristics: &'a mut Heuristics,
    pub(crate) rule: RepetitionRule,
    pub(crate) move_limit: Option<u32>,
    pub(crate) limits: Limits,
    pub(crate) clock: &'a dyn Clock,
    pub(crate) stop: &'a AtomicBool,
    /// The positions since the last capture before the root, then the search's path.
    positions: Vec<Position>,
    /// `moves[i]` leads from `positions[i]` to `positions[i + 1]`.
    moves: Vec<Move>,
    /// For `positions[i]`, the earliest index a repetition may reach back to: a null move
    /// cuts the path, as a capture does.
    barriers: Vec<usize>,
    pub(crate) root_moves: Vec<RootMove>,
    pv: Vec<Vec<Move>>,
    pub(crate) nodes: u64,
    pub(crate) seldepth: u32,
    aborted: bool,
    root_depth: i32,
}

impl<'a> Search<'a> {
    /// A search of the last of `history` (positions since the last capture, and the moves
    /// between them).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        tt: &'a mut Table,
        heuristics: &'a mut Heuristics,
        rule: RepetitionRule,
        move_limit: Option<u32>,
        limits: Limits,
        clock: &'a dyn Clock,
        stop: &'a AtomicBool,
        positions: &[Position],
        moves: &[Move],
        root_moves: Vec<RootMove>,
    ) -> Self {
        let mut path = Vec::with_capacity(positions.len() + MAX_PLY + 2);
        path.extend_from_slice(positions);
        let mut path_moves = Vec::with_capacity(moves.len() + MAX_PLY + 2);
        path_moves.extend_from_slice(moves);
        Self {
            tt,
            heuristics,
            rule,
            move_limit,
            limits,
            clock,
            stop,
            barriers: vec![0; path.len()],
            positions: path,
            moves: path_moves,
            root_moves,
            pv: vec![Vec::new(); MAX_PLY + 2],
            nodes: 0,
            seldepth: 0,
            aborted: false,
            root_depth: 0,
        }
    }

    /// Whether the search was cut short by a limit or the stop flag.
    pub(crate) const fn aborted(&self) -> bool {
        self.aborted
    }

    /// Whether a limit or the stop flag ends the search now.
    fn out_of_time(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        if self.limits.nodes.is_some_and(|max| self.nodes >= max) {
            self.aborted = true;
        } else if self.nodes.is_multiple_of(CHECK_EVERY) {
            let late = self
                .limits
                .deadline
                .is_some_and(|deadline| self.clock.elapsed() >= deadline);
            self.aborted = late || self.stop.load(Ordering::Relaxed);
        }
        self.aborted
    }

    /// One iteration of `depth` plies in the window `alpha..beta`. Returns the best score,
    /// and leaves the best move first among the root moves when one beat `alpha`.
    pub(crate) fn root(&mut self, depth: i32, mut alpha: i32, beta: i32) -> Option<Iteration> {
        self.root_depth = depth;
        self.pv[0].clear();
        let root = self.positions[self.positions.len() - 1].clone();
        let mut best = -INFINITY;
        let mut best_index = None;
        for i in 0..self.root_moves.len() {
            let RootMove { mv, bonus, .. } = self.root_moves[i];
            let mut child = root.clone();
            child.play_unchecked(mv);
            let gives_check = child.is_check();
            self.push(child, mv, false);
            let new_depth = depth - 1 + i32::from(gives_check);
            let (a, b) = (alpha - bonus, beta - bonus);
            let score = if i == 0 {
                -self.negamax(new_depth, -b, -a, 1, true)
            } else {
                // No reduction at the root: one node, and it decides the move.
                let mut v = -self.negamax(new_depth, -a - 1, -a, 1, true);
                if v > a && v < b {
                    v = -self.negamax(new_depth, -b, -a, 1, true);
                }
                v
            } + bonus;
            self.pop();
            if self.aborted {
                break;
            }
            self.root_moves[i].score = score;
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_index = Some(i);
                    self.update_pv(0, mv);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        if let Some(i) = best_index {
            let chosen = self.root_moves.remove(i);
            self.root_moves.insert(0, chosen);
            // Keep the rest in the order the scores suggest for the next iteration.
            self.root_moves[1..].sort_by_key(|root| std::cmp::Reverse(root.score));
        }
        (!self.aborted || best_index.is_some()).then(|| Iteration {
            depth: depth as u32,
            score: best,
            pv: if best_index.is_some() {
                self.pv[0].clone()
            } else {
                Vec::new()
            },
        })
    }

    fn negamax(
        &mut self,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        null_ok: bool,
    ) -> i32 {
        if depth <= 0 {
            return self.quiesce(alpha, beta, ply);
        }
        if self.out_of_time() {
            return 0;
        }
        self.nodes += 1;
        self.pv[ply].clear();
        let pv_node = beta - alpha > 1;
        let pos = self.positions[self.positions.len() - 1].clone();
        if let Some(score) = self.repetition(ply) {
            return score;
        }
        if let Some(score) = self.move_limit(&pos, ply) {
            return score;
        }
        // Mate-distance pruning: no line from here beats a mate already found nearer the root.
        alpha = alpha.max(-(MATE - ply as i32));
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        if ply >= MAX_PLY - 1 {
            return evaluate(&pos);
        }
        let in_check = pos.is_check();
        let key = pos.zobrist_hash();
        let hit = self.tt.probe(key);
        if let Some(hit) = hit
            && !pv_node
            && hit.depth >= depth
        {
            let score = from_table(hit.score, ply);
            let usable = match hit.bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            };
            if usable {
                return score;
            }
        }
        let eval = match hit {
            _ if in_check => -INFINITY,
            Some(hit) => hit.eval,
            None => evaluate(&pos),
        };
        // Against a bare palace (no chariot, horse or cannon left to defend with), mates are
        // near and the pruning below could hide them: search every move.
        let weights = if in_check {
            [0; 2]
        } else {
            piece_weights(&pos)
        };
        let us = pos.turn();
        let bare = weights[!us as usize] == 0;
        let prune = !pv_node && !in_check && !bare;
        if prune {
            // Reverse futility: far above beta at a shallow depth, the opponent is lost anyway.
            if depth <= 4 && eval - 90 * depth >= beta && beta.abs() < MATE_BOUND {
                return eval;
            }
            if null_ok
                && depth >= 3
                && eval >= beta
                && weights[us as usize] >= 2
                && let Some(null) = null_position(&pos)
            {
                let r = 3 + depth / 6;
                self.push(null, NULL_MOVE, true);
                let score = -self.negamax(depth - 1 - r, -beta, -beta + 1, ply + 1, false);
                self.pop();
                if self.aborted {
                    return 0;
                }
                if score >= beta {
                    return if score >= MATE_BOUND { beta } else { score };
                }
            }
        }
        let moves = pos.legal_moves();
        if moves.is_empty() {
            // Mated or stalemated: both lose in Xiangqi.
            return -(MATE - ply as i32);
        }
        let tt_move = hit.and_then(|hit| hit.mv);
        let killers = self.heuristics.killers[ply];
        let mut keys = [0i32; 128];
        for (key, &mv) in keys.iter_mut().zip(&moves) {
            *key = if Some(mv) == tt_move {
                1_000_000
            } else if let Some(victim) = pos.board().piece_at(mv.to) {
                capture_key(&pos, mv, victim)
            } else if Some(mv) == killers[0] {
                90_000
            } else if Some(mv) == killers[1] {
                89_000
            } else {
                self.heuristics.history(us, mv)
            };
        }
        let mut moves = moves;
        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        let mut quiets = [NULL_MOVE; 64];
        let mut quiet_count = 0;
        for i in 0..moves.len() {
            pick(&mut moves, &mut keys, i);
            let mv = moves[i];
            let mut child = pos.clone();
            let quiet = child.play_unchecked(mv).is_none();
            let gives_check = child.is_check();
            let killer = killers.contains(&Some(mv));
            if prune && quiet && !gives_check && i > 0 && best > -MATE_BOUND {
                // Futility and late-move pruning: quiet moves far below alpha near the leaves.
                let futile = depth <= 3 && eval + 80 + 110 * depth <= alpha;
                let late = depth <= 3 && i as i32 >= 5 + 4 * depth * depth && !killer;
                // A quiet move that leaves no reply wins (stalemate loses): never pruned.
                if (futile || late) && child.has_legal_move() {
                    continue;
                }
            }
            let extension = i32::from(gives_check && (ply as i32) < 2 * self.root_depth);
            let new_depth = depth - 1 + extension;
            self.push(child, mv, false);
            let score = if i == 0 {
                -self.negamax(new_depth, -beta, -alpha, ply + 1, true)
            } else {
                let mut r = 0;
                if depth >= 3
                    && i >= 2 + usize::from(pv_node)
                    && quiet
                    && !in_check
                    && !gives_check
                    && !bare
                {
                    r = reduction(depth, i) - i32::from(pv_node) - i32::from(killer);
                    r -= self.heuristics.history(us, mv) / 12_000;
                    r = r.clamp(0, new_depth - 1);
                }
                let mut v = -self.negamax(new_depth - r, -alpha - 1, -alpha, ply + 1, true);
                if v > alpha && r > 0 {
                    v = -self.negamax(new_depth, -alpha - 1, -alpha, ply + 1, true);
                }
                if v > alpha && v < beta {
                    v = -self.negamax(new_depth, -beta, -alpha, ply + 1, true);
                }
                v
            };
            self.pop();
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(mv);
                    self.update_pv(ply, mv);
                    if score >= beta {
                        if quiet {
                            self.reward_quiet(us, mv, ply, depth, &quiets[..quiet_count]);
                        }
                        break;
                    }
                }
            }
            if quiet && quiet_count < quiets.len() {
                quiets[quiet_count] = mv;
                quiet_count += 1;
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if alpha > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(
            key,
            Hit {
                mv: best_move,
                score: to_table(best, ply),
                eval: if in_check { 0 } else { eval },
                depth,
                bound,
            },
        );
        best
    }

    fn quiesce(&mut self, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        if self.out_of_time() {
            return 0;
        }
        self.nodes += 1;
        self.pv[ply].clear();
        self.seldepth = self.seldepth.max(ply as u32);
        let pos = self.positions[self.positions.len() - 1].clone();
        if ply >= MAX_PLY - 1 {
            return evaluate(&pos);
        }
        let in_check = pos.is_check();
        let mut best = -(MATE - ply as i32);
        let mut stand = 0;
        if !in_check {
            stand = evaluate(&pos);
            if stand >= beta {
                // A side with no move has lost, stalemated or not: worth the cheap look.
                return if pos.has_legal_move() {
                    stand
                } else {
                    -(MATE - ply as i32)
                };
            }
            alpha = alpha.max(stand);
            best = stand;
        }
        // Out of check only captures are searched, so only they are generated; a side with
        // none may still have no move at all, and then it has lost.
        let moves = if in_check {
            pos.legal_moves()
        } else {
            pos.legal_captures()
        };
        if moves.is_empty() && (in_check || !pos.has_legal_move()) {
            return -(MATE - ply as i32);
        }
        let mut list = xq_rules::MoveList::new();
        let mut keys = [0i32; 128];
        for &mv in &moves {
            let key = match pos.board().piece_at(mv.to) {
                Some(victim) => {
                    // Delta pruning: even winning the piece cannot lift the score to alpha.
                    if !in_check && stand + value(victim, mv.to) + 150 <= alpha {
                        continue;
                    }
                    capture_key(&pos, mv, victim)
                }
                None if in_check => 0,
                None => continue,
            };
            keys[list.len()] = key;
            list.push(mv);
        }
        for i in 0..list.len() {
            pick(&mut list, &mut keys, i);
            let mv = list[i];
            let mut child = pos.clone();
            child.play_unchecked(mv);
            self.push(child, mv, false);
            let score = -self.quiesce(-beta, -alpha, ply + 1);
            self.pop();
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// The score of the current node if it repeats an earlier position with the same side
    /// to move: the match's ruling on the cycle, as a win or loss for the side to move, or a
    /// draw.
    fn repetition(&mut self, ply: usize) -> Option<i32> {
        let n = self.positions.len() - 1;
        let pos = &self.positions[n];
        let floor = self.barriers[n].max(n.saturating_sub(pos.halfmoves() as usize));
        let hash = pos.zobrist_hash();
        let mut i = n.checked_sub(4)?;
        while i >= floor {
            let earlier = &self.positions[i];
            if earlier.zobrist_hash() == hash && earlier.board() == pos.board() {
                let turn = pos.turn();
                let result = self.judge(i, n)?;
                return Some(match result {
                    GameResult::Win { winner, .. } if winner == turn => MATE - ply as i32,
                    GameResult::Win { .. } => -(MATE - ply as i32),
                    GameResult::Draw { .. } => 0,
                });
            }
            i = i.checked_sub(2)?;
        }
        None
    }

    /// The ruling on the cycle from `positions[first]` to `positions[last]`, cached.
    fn judge(&mut self, first: usize, last: usize) -> Option<GameResult> {
        let key = self.positions[first..last]
            .iter()
            .fold(0xcbf2_9ce4_8422_2325_u64, |h, pos| {
                (h ^ pos.zobrist_hash())
                    .wrapping_mul(0x0000_0100_0000_01b3)
                    .rotate_left(17)
            });
        if let Some(&result) = self.heuristics.cycles.get(&key) {
            return Some(result);
        }
        let result = self
            .rule
            .judge_cycle(&self.positions[first..=last], &self.moves[first..last])
            .ok()?;
        if self.heuristics.cycles.len() >= CYCLES_MAX {
            self.heuristics.cycles.clear();
        }
        self.heuristics.cycles.insert(key, result);
        Some(result)
    }

    /// The draw by the natural move limit, once it has passed (unless the side to move is
    /// mated on the spot).
    fn move_limit(&self, pos: &Position, ply: usize) -> Option<i32> {
        let limit = self.move_limit?;
        (pos.halfmoves() >= limit).then(|| {
            if pos.has_legal_move() {
                0
            } else {
                -(MATE - ply as i32)
            }
        })
    }

    fn push(&mut self, child: Position, mv: Move, cut: bool) {
        let n = self.positions.len();
        let barrier = if cut { n } else { self.barriers[n - 1] };
        self.positions.push(child);
        self.moves.push(mv);
        self.barriers.push(barrier);
    }

    fn pop(&mut self) {
        self.positions.pop();
        self.moves.pop();
        self.barriers.pop();
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(mv);
        line.extend_from_slice(&tail[0]);
    }

    fn reward_quiet(&mut self, us: Color, mv: Move, ply: usize, depth: i32, tried: &[Move]) {
        let killers = &mut self.heuristics.killers[ply];
        if killers[0] != Some(mv) {
            killers[1] = killers[0];
            killers[0] = Some(mv);
        }
        let bonus = (depth * depth * 16).min(HISTORY_MAX / 4);
        self.heuristics.reward(us, mv, bonus);
        for &other in tried {
            self.heuristics.reward(us, other, -bonus);
        }
    }
}

/// Puts the move with the highest key among `moves[i..]` at `i`.
fn pick(moves: &mut xq_rules::MoveList, keys: &mut [i32; 128], i: usize) {
    let mut best = i;
    for j in i + 1..moves.len() {
        if keys[j] > keys[best] {
            best = j;
        }
    }
    moves.swap(i, best);
    keys.swap(i, best);
}

/// The late-move reduction at `depth` for the `index`th move.
fn reduction(depth: i32, index: usize) -> i32 {
    let r = 0.6 + (depth as f32).ln() * (index as f32).ln() / 2.2;
    r as i32
}

/// The material value of `piece` on `square`, for pruning and ordering.
fn value(piece: Piece, square: Square) -> i32 {
    match piece.role {
        Role::General => 2_000,
        Role::Advisor | Role::Elephant => 120,
        Role::Horse => 300,
        Role::Chariot => 640,
        Role::Cannon => 300,
        Role::Soldier => {
            if square.rank().half() == piece.color {
                30
            } else {
                80
            }
        }
    }
}

/// The ordering key of a capture: most valuable victim first, least valuable attacker next.
fn capture_key(pos: &Position, mv: Move, victim: Piece) -> i32 {
    let attacker = pos
        .board()
        .piece_at(mv.from)
        .map_or(0, |piece| value(piece, mv.from));
    100_000 + value(victim, mv.to) * 16 - attacker / 8
}

/// The weight of each side's pieces that can attack and defend (a chariot 2, a horse or a
/// cannon 1), by colour index. A side with 2 or more has enough that passing is never its
/// best move, so the null move is safe for it.
fn piece_weights(pos: &Position) -> [i32; 2] {
    let mut weights = [0; 2];
    for (_, piece) in pos.board().pieces() {
        weights[piece.color as usize] += match piece.role {
            Role::Chariot => 2,
            Role::Horse | Role::Cannon => 1,
            _ => 0,
        };
    }
    weights
}

/// The position with the other side to move, for the null move. The side to move must not
/// be in check (or the result would be illegal: then there is none).
fn null_position(pos: &Position) -> Option<Position> {
    let mut setup = pos.to_setup();
    setup.turn = !setup.turn;
    Position::from_setup(setup).ok()
}
