//! How the driver talks to one engine.

use std::time::Duration;

use crate::Dialect;

/// The driver's settings for one engine.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use xq_uci::DriverOptions;
///
/// let options = DriverOptions {
///     options: vec![("Threads".into(), "1".into()), ("Hash".into(), "16".into())],
///     grace: Duration::from_millis(500),
///     ..DriverOptions::default()
/// };
/// assert_eq!(options.dialect, None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DriverOptions {
    /// The engine's move dialect; `None` detects it: an engine that declares a `UCI_Variant`
    /// offering `xiangqi` (Fairy-Stockfish) is [`Dialect::OneBased`], any other
    /// [`Dialect::Iccs`]. Either way, a one-based engine that declares `UCI_Variant` gets
    /// `setoption name UCI_Variant value xiangqi` after `uciok` (Fairy-Stockfish resets it on
    /// `uci`).
    pub dialect: Option<Dialect>,
    /// Options set after the handshake, in order, as `(name, value)`; an empty value presses
    /// a button (`setoption name <name>`).
    pub options: Vec<(String, String)>,
    /// How long the engine may take to answer `uci` with `uciok`, and each `isready`.
    pub handshake_timeout: Duration,
    /// How long past a search's deadline (when the driver sends `stop`) the engine may take to
    /// answer `bestmove` before it is declared hung and killed.
    pub grace: Duration,
}

impl Default for DriverOptions {
    /// Detected dialect, no options, 10 s for the handshake, 1 s of grace.
    fn default() -> Self {
        Self {
            dialect: None,
            options: Vec::new(),
            handshake_timeout: Duration::from_secs(10),
            grace: Duration::from_secs(1),
        }
    }
}
