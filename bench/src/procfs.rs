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
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
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
