//! The decoders of stored messages never panic: arbitrary bytes, and valid messages cut
//! short or with a byte changed, give a value or an error.

use proptest::prelude::*;
use xq_cluster::{Append, ArchivedGame};

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic_the_journal_decoder(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = Append::decode(1, &bytes);
        let _ = ArchivedGame::decode(&bytes);
    }

    #[test]
    fn version_one_bodies_never_panic_the_decoder(body in proptest::collection::vec(any::<u8>(), 0..512)) {
        // Past the version byte, straight into the bincode body.
        let mut bytes = vec![1];
        bytes.extend(body);
        let _ = Append::decode(1, &bytes);
        let _ = ArchivedGame::decode(&bytes);
    }
}

#[test]
fn a_huge_claimed_length_fails_without_allocating_it() {
    // The writer's name claims 2^60 bytes.
    let bytes = [1, 0xfd, 0, 0, 0, 0, 0, 0, 0, 0x10];
    assert!(Append::decode(1, &bytes).is_err());
}
