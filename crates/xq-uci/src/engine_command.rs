//! How to start an engine: a program and its arguments.

use std::path::PathBuf;
use std::str::FromStr;

/// The program of an external engine and its arguments.
///
/// It parses from a shell-like command line: words split on whitespace, with `'…'` and `"…"`
/// quoting and `\` escaping the next character outside single quotes. Nothing else of a
/// shell applies (no variables, globs or pipes).
///
/// # Examples
///
/// ```
/// use xq_uci::EngineCommand;
///
/// let cmd: EngineCommand = r#"/opt/engines/pikafish "--eval file" x\ y"#.parse()?;
/// assert_eq!(cmd.program.to_str(), Some("/opt/engines/pikafish"));
/// assert_eq!(cmd.args, ["--eval file", "x y"]);
/// # Ok::<_, xq_uci::ParseEngineCommandError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EngineCommand {
    /// The executable, found on `PATH` if it has no slash.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
}

/// Why a text is not a command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseEngineCommandError {
    /// The text holds no word.
    #[error("empty engine command")]
    Empty,
    /// A quote is not closed.
    #[error("unterminated quote in the engine command")]
    UnterminatedQuote,
    /// The text ends in a lone backslash.
    #[error("trailing backslash in the engine command")]
    TrailingBackslash,
}

impl EngineCommand {
    /// A program with no arguments.
    #[must_use]
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
        }
    }

    /// Adds an argument.
    #[must_use]
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }
}

impl FromStr for EngineCommand {
    type Err = ParseEngineCommandError;

    fn from_str(text: &str) -> Result<Self, ParseEngineCommandError> {
        let mut words = split(text)?.into_iter();
        let program = words.next().ok_or(ParseEngineCommandError::Empty)?;
        Ok(Self {
            program: program.into(),
            args: words.collect(),
        })
    }
}

fn split(text: &str) -> Result<Vec<String>, ParseEngineCommandError> {
    let mut words = Vec::new();
    // The word being read, if one has started (`""` starts an empty one).
    let mut word: Option<String> = None;
    let mut chars = text.chars();
    while let Some(ch) = chars.next() {
        match ch {
            c if c.is_whitespace() => words.extend(word.take()),
            '\'' => {
                let word = word.get_or_insert_default();
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(ParseEngineCommandError::UnterminatedQuote),
                    }
                }
            }
            '"' => {
                let word = word.get_or_insert_default();
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(ParseEngineCommandError::UnterminatedQuote),
                        },
                        Some(c) => word.push(c),
                        None => return Err(ParseEngineCommandError::UnterminatedQuote),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(c) => word.get_or_insert_default().push(c),
                None => return Err(ParseEngineCommandError::TrailingBackslash),
            },
            c => word.get_or_insert_default().push(c),
        }
    }
    words.extend(word);
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_a_shell() {
        assert_eq!(
            split(r#"  fairy-stockfish  'a b'"c\"d" '' e\ f "#),
            Ok(vec![
                "fairy-stockfish".into(),
                "a bc\"d".into(),
                String::new(),
                "e f".into()
            ])
        );
    }

    #[test]
    fn refuses_broken_lines() {
        for (text, err) in [
            ("", ParseEngineCommandError::Empty),
            ("   ", ParseEngineCommandError::Empty),
            ("a 'b", ParseEngineCommandError::UnterminatedQuote),
            ("a \"b\\", ParseEngineCommandError::UnterminatedQuote),
            ("a \\", ParseEngineCommandError::TrailingBackslash),
        ] {
            assert_eq!(text.parse::<EngineCommand>(), Err(err), "{text}");
        }
    }

    #[test]
    fn builds_by_hand() {
        let cmd = EngineCommand::new("/bin/sh").arg("engine.sh");
        assert_eq!(
            cmd,
            "/bin/sh engine.sh"
                .parse()
                .unwrap_or_else(|e| panic!("{e}"))
        );
    }
}
