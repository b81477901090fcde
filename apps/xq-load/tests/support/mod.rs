//! What the load generator's tests share: running it and reading its report.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fmt::Debug;

/// Runs `xq-load` with `args` and parses its `key: value` lines.
pub(crate) async fn load<S: AsRef<OsStr> + Debug>(args: &[S]) -> HashMap<String, String> {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_xq-load"))
        .args(args)
        .output()
        .await
        .unwrap_or_else(|e| panic!("spawn xq-load: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{args:?}: {stdout}\n{stderr}");
    stdout
        .lines()
        .map(|line| {
            let (key, value) = line
                .split_once(": ")
                .unwrap_or_else(|| panic!("not a key: value line: {line:?}"));
            (key.to_string(), value.to_string())
        })
        .collect()
}

/// The number the report gives `key`.
pub(crate) fn number(report: &HashMap<String, String>, key: &str) -> f64 {
    let value = report
        .get(key)
        .unwrap_or_else(|| panic!("no {key} in {report:?}"));
    value
        .parse()
        .unwrap_or_else(|e| panic!("{key}: {value:?}: {e}"))
}
