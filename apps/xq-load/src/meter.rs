//! The process meter: CPU time and resident memory of a process or thread, read from its
//! `/proc` directory (Linux), or of several summed (a cluster's relay nodes).

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};

/// `/proc/<pid>/stat` counts CPU time in USER_HZ ticks, which Linux fixes at 100 per second
/// for user space on every architecture it supports.
const TICKS_PER_SECOND: f64 = 100.0;

/// CPU time and memory of a process or thread at one moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Usage {
    /// User and system time, in USER_HZ ticks.
    pub(crate) cpu_ticks: u64,
    /// Resident memory (the process's, also when read for one of its threads).
    pub(crate) rss_bytes: u64,
}

impl Usage {
    /// Reads the `stat` and `status` files of the `/proc` directory `dir`.
    pub(crate) fn read(dir: &Path) -> Result<Self> {
        let stat = std::fs::read_to_string(dir.join("stat"))?;
        let status = std::fs::read_to_string(dir.join("status"))?;
        Self::parse(&stat, &status)
    }

    /// Parses the text of `/proc/<pid>/stat` and `/proc/<pid>/status`.
    pub(crate) fn parse(stat: &str, status: &str) -> Result<Self> {
        // The command name (field 2) is in parentheses and may contain spaces: count fields
        // after its closing parenthesis, where field 3 (the state) comes first, and user and
        // system time are fields 14 and 15.
        let (_, fields) = stat
            .rsplit_once(')')
            .context("unexpected /proc stat format")?;
        let mut fields = fields.split_whitespace().skip(11);
        let mut tick =
            || -> Result<u64> { Ok(fields.next().context("short /proc stat")?.parse()?) };
        let cpu_ticks = tick()? + tick()?;
        let kib: u64 = status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|rest| rest.split_whitespace().next())
            .context("no VmRSS in /proc status")?
            .parse()?;
        Ok(Self {
            cpu_ticks,
            rss_bytes: kib * 1024,
        })
    }
}

/// Processes (or threads) measured together, as one: their CPU time and memory are summed,
/// as a cluster's relay nodes serve one load between them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Processes {
    /// Their `/proc` directories.
    dirs: Vec<PathBuf>,
}

impl Processes {
    /// The processes (or threads) of these `/proc` directories.
    pub(crate) const fn new(dirs: Vec<PathBuf>) -> Self {
        Self { dirs }
    }

    /// The processes with these ids.
    pub(crate) fn pids(pids: &[u32]) -> Self {
        Self::new(
            pids.iter()
                .map(|pid| PathBuf::from(format!("/proc/{pid}")))
                .collect(),
        )
    }

    /// Their usage summed; `None` if there are none, or one cannot be read (a sum missing
    /// one would understate the cost).
    pub(crate) fn read(&self) -> Option<Usage> {
        let mut sum: Option<Usage> = None;
        for dir in &self.dirs {
            let usage = Usage::read(dir).ok()?;
            let total = sum.get_or_insert(Usage {
                cpu_ticks: 0,
                rss_bytes: 0,
            });
            total.cpu_ticks += usage.cpu_ticks;
            total.rss_bytes += usage.rss_bytes;
        }
        sum
    }
}

/// The share of one core used between `start` and `end`, `elapsed` apart, in percent; `None`
/// if either reading is missing or time went backwards.
pub(crate) fn cpu_percent(
    start: Option<Usage>,
    end: Option<Usage>,
    elapsed: Duration,
) -> Option<f64> {
    let ticks = end?.cpu_ticks.checked_sub(start?.cpu_ticks)?;
    Some(ticks as f64 / TICKS_PER_SECOND / elapsed.as_secs_f64() * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A relay's `stat` line, its name holding spaces and a parenthesis: utime 1234,
    /// stime 567.
    const STAT: &str = "4242 (xq relay (main)) S 1 4242 4242 0 -1 4194560 9031 0 0 0 1234 567 \
                        0 0 20 0 3 0 123456 123456789 6270 18446744073709551615 1 1 0 0 0 0 0 \
                        4096 0 0 0 0 17 1 0 0 0 0 0";

    const STATUS: &str = "Name:\txq-relay\nUmask:\t0022\nState:\tS (sleeping)\n\
                          VmPeak:\t  200000 kB\nVmRSS:\t   25080 kB\nRssAnon:\t   16000 kB\n\
                          Threads:\t3\n";

    #[test]
    fn parses_proc_stat_and_status() -> Result<()> {
        let usage = Usage::parse(STAT, STATUS)?;
        assert_eq!(
            usage,
            Usage {
                cpu_ticks: 1234 + 567,
                rss_bytes: 25_080 * 1024,
            }
        );
        Ok(())
    }

    #[test]
    fn refuses_text_of_another_shape() {
        assert!(Usage::parse("4242 xq S 1", STATUS).is_err());
        assert!(Usage::parse("4242 (xq) S 1 2 3", STATUS).is_err());
        assert!(Usage::parse(STAT, "Name:\txq\n").is_err());
    }

    #[test]
    fn reads_this_process() -> Result<()> {
        let usage = Usage::read(Path::new("/proc/self"))?;
        assert!(usage.rss_bytes > 0);
        Ok(())
    }

    #[test]
    fn sums_a_group_of_processes() -> Result<()> {
        let own = Usage::read(Path::new("/proc/self"))?;
        assert_eq!(Processes::default().read(), None, "nothing to read");
        let pid = std::process::id();
        let twice = Processes::pids(&[pid, pid])
            .read()
            .context("this process twice")?;
        // The CPU time may grow between the readings, the resident memory too.
        assert!(twice.cpu_ticks >= 2 * own.cpu_ticks);
        assert!(twice.rss_bytes >= own.rss_bytes + own.rss_bytes / 2);
        let missing = Processes::new(vec![PathBuf::from("/proc/self"), "/proc/0".into()]);
        assert_eq!(missing.read(), None, "one missing spoils the sum");
        Ok(())
    }

    #[test]
    fn cpu_is_ticks_over_time() {
        let at = |cpu_ticks| {
            Some(Usage {
                cpu_ticks,
                rss_bytes: 0,
            })
        };
        let second = Duration::from_secs(2);
        assert_eq!(cpu_percent(at(100), at(250), second), Some(75.0));
        assert_eq!(cpu_percent(at(250), at(100), second), None);
        assert_eq!(cpu_percent(None, at(100), second), None);
    }
}
