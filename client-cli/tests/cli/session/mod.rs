//! The `parlor` binary driven as a person would: lines written to its
//! standard input as it asks, its output read as it comes. No terminal
//! multiplexer: pipes only.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long to wait for a line or an exit before failing: generous, so a
/// loaded machine never fails a test; nothing is asserted about speed.
pub const WAIT: Duration = Duration::from_secs(90);

/// A running `parlor` command.
pub struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    /// Everything it printed so far (stderr lines marked `stderr: `).
    pub transcript: String,
}

impl Session {
    /// Starts `parlor ARGS`.
    pub fn start(args: &[&str]) -> Session {
        Session::start_env(args, &[])
    }

    /// Starts `parlor ARGS` with these environment variables set.
    pub fn start_env(args: &[&str], env: &[(&str, &std::path::Path)]) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_parlor"))
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run parlor: {e}"));
        let (tx, lines) = mpsc::channel();
        let out = child.stdout.take().unwrap();
        let err = child.stderr.take().unwrap();
        let tx2 = tx.clone();
        std::thread::spawn(move || {
            for l in BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send(l);
            }
        });
        std::thread::spawn(move || {
            for l in BufReader::new(err).lines().map_while(Result::ok) {
                let _ = tx2.send(format!("stderr: {l}"));
            }
        });
        Session {
            stdin: child.stdin.take(),
            child,
            lines,
            transcript: String::new(),
        }
    }

    /// The next line printed, or `None` once the output has ended.
    pub fn next_line(&mut self) -> Option<String> {
        match self.lines.recv_timeout(WAIT) {
            Ok(l) => {
                self.transcript.push_str(&l);
                self.transcript.push('\n');
                Some(l)
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => None,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                panic!("no output for {WAIT:?}; so far:\n{}", self.transcript)
            }
        }
    }

    /// The next line if one is printed within `wait` (`None` otherwise,
    /// and once the output has ended).
    pub fn line_within(&mut self, wait: Duration) -> Option<String> {
        let l = self.lines.recv_timeout(wait).ok()?;
        self.transcript.push_str(&l);
        self.transcript.push('\n');
        Some(l)
    }

    /// Reads until a line containing `needle`; returns that line.
    pub fn expect(&mut self, needle: &str) -> String {
        loop {
            match self.next_line() {
                Some(l) if l.contains(needle) => return l,
                Some(_) => {}
                None => panic!("{needle:?} never came; the output:\n{}", self.transcript),
            }
        }
    }

    /// Types a line.
    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin closed");
        writeln!(stdin, "{line}").unwrap_or_else(|e| panic!("{e}; so far:\n{}", self.transcript));
        stdin.flush().unwrap();
    }

    /// Presses Ctrl-C.
    pub fn interrupt(&self) {
        let ok = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "cannot send SIGINT");
    }

    /// Waits for the command to exit, its standard input still open, and
    /// reads the rest of its output.
    pub fn wait_exit(&mut self) -> ExitStatus {
        let since = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                while self.next_line().is_some() {}
                return status;
            }
            if since.elapsed() > WAIT {
                panic!("still running after {WAIT:?}; so far:\n{}", self.transcript);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
