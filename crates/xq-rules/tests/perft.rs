//! Perft against published node counts (`tests/data/xiangqi.perft`).

use xq_rules::{Position, fen::Fen, perft};

/// Cases up to this many leaves run in the default test pass; deeper ones are `#[ignore]`d.
const QUICK_NODE_LIMIT: u64 = 5_000_000;

struct Case {
    id: String,
    fen: String,
    depth: u32,
    nodes: u64,
}

fn cases() -> Vec<Case> {
    let text = include_str!("data/xiangqi.perft");
    let (mut id, mut fen) = (String::new(), String::new());
    let mut cases = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("id ") {
            id = rest.to_string();
        } else if let Some(rest) = line.strip_prefix("fen ") {
            fen = rest.to_string();
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let mut parts = rest.split_whitespace().map(str::parse::<u64>);
            let (Some(Ok(depth)), Some(Ok(nodes)), None) =
                (parts.next(), parts.next(), parts.next())
            else {
                panic!("bad perft line: {line}");
            };
            let depth = u32::try_from(depth).unwrap_or_else(|e| panic!("{line}: {e}"));
            cases.push(Case {
                id: id.clone(),
                fen: fen.clone(),
                depth,
                nodes,
            });
        } else {
            assert!(
                line.is_empty() || line.starts_with('#'),
                "unexpected line: {line}"
            );
        }
    }
    cases
}

fn run(filter: impl Fn(&Case) -> bool) -> usize {
    let mut ran = 0;
    for case in cases().into_iter().filter(|c| filter(c)) {
        let fen: Fen = case
            .fen
            .parse()
            .unwrap_or_else(|e| panic!("{}: {e}", case.id));
        let pos = fen
            .into_position()
            .unwrap_or_else(|e| panic!("{}: {e}", case.id));
        assert_eq!(
            perft(&pos, case.depth),
            case.nodes,
            "{} depth {}",
            case.id,
            case.depth
        );
        ran += 1;
    }
    ran
}

#[test]
fn shallow_counts_match() {
    assert!(run(|c| c.nodes <= QUICK_NODE_LIMIT) >= 30);
}

#[test]
#[ignore = "deep perft: minutes of CPU; run with --ignored in release"]
fn deep_counts_match() {
    run(|c| c.nodes > QUICK_NODE_LIMIT);
}

#[test]
fn data_covers_the_shared_reference() {
    let cases = cases();
    assert_eq!(cases.len(), 61);
    let start = Position::startpos();
    let start_fen = Fen::from_position(&start).to_string();
    let start_depths: Vec<_> = cases
        .iter()
        .filter(|c| c.fen == start_fen)
        .map(|c| c.nodes)
        .collect();
    assert_eq!(
        start_depths,
        [44, 1_920, 79_666, 3_290_240, 133_312_995, 5_392_831_844]
    );
}
