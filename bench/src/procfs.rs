//! CPU time and memory of a process, from `/proc`.

use std::sync::OnceLock;

/// Clock ticks per second (`getconf CLK_TCK`; 100 on every common Linux).
fn clk_tck() -> f64 {
    static TCK: OnceLock<f64> = OnceLock::new();
    *TCK.get_or_init(|| {
        std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.trim().parse::<f64>().ok())
            .filter(|t| *t > 0.0)
            .unwrap_or(100.0)
    })
}

/// Bytes per memory page (`getconf PAGESIZE`; 4096 on every common
/// Linux), for kernel figures counted in pages.
fn page_size() -> u64 {
    static PAGE: OnceLock<u64> = OnceLock::new();
    *PAGE.get_or_init(|| {
        std::process::Command::new("getconf")
            .arg("PAGESIZE")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.trim().parse::<u64>().ok())
            .filter(|p| *p > 0)
            .unwrap_or(4096)
    })
}

/// User plus system CPU seconds used so far by every thread of `pid`
/// (`None`: the process is gone). `pid` 0 means this process.
pub fn cpu_seconds(pid: u32) -> Option<f64> {
    let path = if pid == 0 {
        "/proc/self/stat".to_owned()
    } else {
        format!("/proc/{pid}/stat")
    };
    let stat = std::fs::read_to_string(path).ok()?;
    let (_, ticks) = stat_comm_ticks(&stat)?;
    Some(ticks / clk_tck())
}

/// The command name (field 2) and utime plus stime in clock ticks
/// (fields 14 and 15) of a `/proc/PID/stat` or `/proc/PID/task/TID/stat`
/// text.
pub fn stat_comm_ticks(stat: &str) -> Option<(&str, f64)> {
    // The command name may hold spaces and parentheses: fields are counted
    // after its closing parenthesis. utime and stime are fields 14 and 15.
    let close = stat.rfind(')')?;
    let comm = &stat[stat.find('(')? + 1..close];
    let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((comm, utime + stime))
}

/// One thread of a process at one moment (`/proc/PID/task/TID`).
#[derive(Debug, Clone, PartialEq)]
pub struct ThreadSample {
    /// Its thread id.
    pub tid: u32,
    /// Its group: the thread's name without a trailing number (see
    /// [`thread_group`]).
    pub group: String,
    /// User plus system CPU seconds it has used so far.
    pub cpu_s: f64,
    /// How often it has blocked so far (`voluntary_ctxt_switches`: it
    /// gave up the CPU to wait, for a lock, a channel, I/O or a timer).
    pub voluntary_switches: u64,
}

/// Every thread of `pid` now (`None`: the process is gone). A thread
/// that ends between the listing and the reading of its files is left
/// out.
pub fn thread_samples(pid: u32) -> Option<Vec<ThreadSample>> {
    let dir = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut threads = Vec::new();
    for entry in dir.flatten() {
        let Some(tid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/stat")) else {
            continue;
        };
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/status")) else {
            continue;
        };
        let (Some((comm, ticks)), Some(switches)) =
            (stat_comm_ticks(&stat), voluntary_switches(&status))
        else {
            continue;
        };
        threads.push(ThreadSample {
            tid,
            group: thread_group(comm).to_owned(),
            cpu_s: ticks / clk_tck(),
            voluntary_switches: switches,
        });
    }
    Some(threads)
}

/// The `voluntary_ctxt_switches` line of a `/proc/PID/task/TID/status`
/// text.
pub fn voluntary_switches(status: &str) -> Option<u64> {
    let line = status
        .lines()
        .find(|l| l.starts_with("voluntary_ctxt_switches:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The group a thread named `comm` belongs to: its name without trailing
/// digits and then one trailing '-' (`parlor-shard-12` and
/// `parlor-shard-0` are `parlor-shard`; `tokio-runtime-w`, the kernel's
/// 15-byte cut of `tokio-runtime-worker`, stays as it is). A name that is
/// all digits stays as it is.
pub fn thread_group(comm: &str) -> &str {
    let stem = comm.trim_end_matches(|c: char| c.is_ascii_digit());
    let stem = stem.strip_suffix('-').unwrap_or(stem);
    if stem.is_empty() {
        comm
    } else {
        stem
    }
}

/// User plus system CPU seconds used so far by every process whose
/// command line contains `pattern` (e.g. the Postgres backends of one
/// database, whose titles name it), with how many there were.
pub fn cpu_seconds_matching(pattern: &str) -> (f64, usize) {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return (0.0, 0);
    };
    let me = std::process::id().to_string();
    let mut total = 0.0;
    let mut count = 0;
    for entry in dir.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| *n != me)
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        if !String::from_utf8_lossy(&cmdline).contains(pattern) {
            continue;
        }
        if let Some(cpu) = cpu_seconds(pid) {
            total += cpu;
            count += 1;
        }
    }
    (total, count)
}

/// Resident memory of `pid` in bytes (`VmRSS`).
pub fn rss_bytes(pid: u32) -> Option<u64> {
    vm_rss(&std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?)
}

/// The `VmRSS` line of a `/proc/PID/status` text, in bytes.
pub fn vm_rss(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// File descriptors `pid` has open (sockets among them): how many
/// connections the server holds, including those still in their
/// handshake, which no protocol message reveals.
pub fn open_fds(pid: u32) -> Option<usize> {
    Some(std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count())
}

/// Memory the kernel holds in TCP socket buffers, machine-wide, in bytes
/// (`/proc/net/sockstat`). Replies a client does not read wait there
/// first, outside any process's resident memory.
pub fn tcp_buffer_bytes() -> Option<u64> {
    Some(sockstat_tcp_pages(&std::fs::read_to_string("/proc/net/sockstat").ok()?)? * page_size())
}

/// The `mem` figure (pages) of the `TCP:` line of a `/proc/net/sockstat`
/// text.
pub fn sockstat_tcp_pages(sockstat: &str) -> Option<u64> {
    let line = sockstat.lines().find(|l| l.starts_with("TCP:"))?;
    let mut words = line.split_whitespace();
    words.find(|w| *w == "mem")?;
    words.next()?.parse().ok()
}

/// The 1-minute load average (how busy the machine was).
pub fn loadavg() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Soft and hard limits on open files for this process.
pub fn open_files_limit() -> Option<(u64, u64)> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    let mut nums = line
        .split_whitespace()
        .filter_map(|w| w.parse::<u64>().ok());
    Some((nums.next()?, nums.next()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vm_rss_is_read_in_kib() {
        let status = "Name:\tparlor-server\nVmPeak:\t  9000 kB\nVmRSS:\t   71234 kB\nThreads:\t4\n";
        assert_eq!(vm_rss(status), Some(71_234 * 1024));
        assert_eq!(vm_rss("Name:\tx\n"), None);
        assert_eq!(vm_rss("VmRSS:\tlots kB\n"), None);
    }

    #[test]
    fn tcp_buffer_pages_are_read_from_sockstat() {
        let sockstat =
            "sockets: used 34\nTCP: inuse 11 orphan 0 tw 26 alloc 14 mem 112\nUDP: inuse 0 mem 0\n";
        assert_eq!(sockstat_tcp_pages(sockstat), Some(112));
        assert_eq!(sockstat_tcp_pages("UDP: inuse 0 mem 5\n"), None);
    }

    #[test]
    fn this_process_is_seen() {
        assert!(rss_bytes(std::process::id()).is_some_and(|b| b > 0));
        assert!(open_fds(std::process::id()).is_some_and(|n| n >= 1));
    }

    #[test]
    fn thread_names_are_grouped_without_their_number() {
        assert_eq!(thread_group("parlor-shard-12"), "parlor-shard");
        assert_eq!(thread_group("parlor-shard-0"), "parlor-shard");
        assert_eq!(thread_group("parlor-read-3"), "parlor-read");
        assert_eq!(thread_group("tokio-runtime-w"), "tokio-runtime-w");
        assert_eq!(thread_group("parlor-checkpoi"), "parlor-checkpoi");
        assert_eq!(thread_group("worker7"), "worker");
        assert_eq!(thread_group("h2-"), "h2");
        assert_eq!(thread_group("42"), "42");
    }

    #[test]
    fn task_stat_and_status_are_read() {
        let stat = "4242 (parlor-shard-1) S 1 4240 4240 0 -1 4194368 120 0 0 0 \
                    37 5 0 0 20 0 9 0 123 0 0";
        assert_eq!(stat_comm_ticks(stat), Some(("parlor-shard-1", 42.0)));
        let odd = "7 (a) b (c) R 1 1 1 0 -1 0 0 0 0 0 3 4 0 0";
        assert_eq!(stat_comm_ticks(odd), Some(("a) b (c", 7.0)));
        assert_eq!(stat_comm_ticks("7 (x) R 1"), None);
        let status = "Name:\tparlor-store\nvoluntary_ctxt_switches:\t1234\nnonvoluntary_ctxt_switches:\t56\n";
        assert_eq!(voluntary_switches(status), Some(1234));
        assert_eq!(voluntary_switches("Name:\tx\n"), None);
    }

    #[test]
    fn this_process_threads_are_seen() {
        let threads = thread_samples(std::process::id()).unwrap_or_default();
        assert!(threads.iter().any(|t| t.tid == std::process::id()));
        assert!(threads
            .iter()
            .all(|t| !t.group.is_empty() && t.cpu_s >= 0.0));
    }
}
