//! UCI lines, as a GUI sends them to `xq uci` and as an external engine answers the driver:
//! arbitrary text must parse or fail cleanly, in both move dialects, and whatever parses
//! writes a line that reads back as the same message.

#![no_main]

use libfuzzer_sys::fuzz_target;
use xq_uci::{Command, Dialect, EngineMessage};

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    for dialect in [Dialect::Iccs, Dialect::OneBased] {
        if let Ok(command) = Command::parse(line, dialect) {
            let written = command.to_line(dialect);
            assert_eq!(Command::parse(&written, dialect).ok(), Some(command), "{written}");
        }
        if let Ok(message) = EngineMessage::parse(line, dialect) {
            let written = message.to_line(dialect);
            assert_eq!(EngineMessage::parse(&written, dialect).ok(), Some(message), "{written}");
        }
    }
});
