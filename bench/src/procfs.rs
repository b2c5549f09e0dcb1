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
    // The command name may hold spaces and parentheses: fields are counted
    // after its closing parenthesis. utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / clk_tck())
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
}
