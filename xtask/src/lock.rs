//! Reading a package's version out of `Cargo.lock`.

/// The version of the package `name` in the lock file `text`, if it holds exactly one.
/// The CLI must match the `wasm-bindgen` crate the wasm was built with to the patch level,
/// or the glue it writes does not fit.
pub(crate) fn version_of(text: &str, name: &str) -> Option<String> {
    let mut versions = text.split("[[package]]").filter_map(|package| {
        let mut lines = package.lines().map(str::trim);
        let named = lines
            .clone()
            .any(|line| line == format!("name = \"{name}\""));
        named
            .then(|| lines.find_map(|line| line.strip_prefix("version = \"")))
            .flatten()
            .and_then(|rest| rest.strip_suffix('"'))
            .map(str::to_owned)
    });
    let version = versions.next()?;
    versions.next().is_none().then_some(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCK: &str = r#"
version = 4

[[package]]
name = "wasm-bindgen"
version = "0.2.130"
source = "registry+https://github.com/rust-lang/crates.io-index"
dependencies = [
 "wasm-bindgen-macro",
]

[[package]]
name = "wasm-bindgen-macro"
version = "0.2.131"

[[package]]
name = "twice"
version = "1.0.0"

[[package]]
name = "twice"
version = "2.0.0"
"#;

    #[test]
    fn the_version_is_the_named_package_s_own() {
        assert_eq!(version_of(LOCK, "wasm-bindgen").as_deref(), Some("0.2.130"));
        assert_eq!(
            version_of(LOCK, "wasm-bindgen-macro").as_deref(),
            Some("0.2.131")
        );
    }

    #[test]
    fn a_missing_or_doubled_package_has_no_version() {
        assert_eq!(version_of(LOCK, "wasm"), None);
        assert_eq!(version_of(LOCK, "twice"), None);
    }

    #[test]
    fn the_workspace_lock_names_one_wasm_bindgen() {
        let lock = include_str!("../../Cargo.lock");
        assert!(version_of(lock, "wasm-bindgen").is_some());
    }
}
