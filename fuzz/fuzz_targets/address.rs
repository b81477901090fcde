//! Transport URLs and certificate fingerprints, as users type them: arbitrary text must parse
//! or fail cleanly, and a fingerprint that parses writes back to the same one.

#![no_main]

use libfuzzer_sys::fuzz_target;
use xq_transport::{Address, Verify};
use xq_transport_quic::Fingerprint;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let pinned = match text.parse::<Address>() {
        Ok(Address::Quic {
            verify: Verify::Fingerprint(fp),
            ..
        }) => fp,
        _ => text.to_owned(),
    };
    if let Ok(fingerprint) = pinned.parse::<Fingerprint>() {
        let written = fingerprint.to_string();
        assert_eq!(
            written.parse::<Fingerprint>().ok(),
            Some(fingerprint),
            "{written}"
        );
        assert!(
            written.eq_ignore_ascii_case(&pinned),
            "{pinned} -> {written}"
        );
    }
});
