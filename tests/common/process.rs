//! The `eboard` binary run by the tests: once, to completion
//! ([`eboard`], [`eboard_with_input`], [`eboard_ok`]), or as a daemon
//! serving HTTP on loopback ([`spawn`], [`run_board`]).

use super::unique;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

/// The `eboard` binary Cargo built for these tests, not yet started
/// (`EBOARD_TEST_BIN`, when set, names another: a copy of the binary when
/// several worktrees share one target directory and overwrite its
/// `eboard`).
pub fn eboard_command() -> Command {
    match std::env::var_os("EBOARD_TEST_BIN") {
        Some(bin) => Command::new(bin),
        None => Command::new(env!("CARGO_BIN_EXE_eboard")),
    }
}

/// `eboard run --config CFG --listen 127.0.0.1:0`, not yet started (its
/// output, environment and more arguments the test's).
pub fn run_command(cfg: &Path) -> Command {
    let mut c = eboard_command();
    c.args(["run", "--config", cfg.to_str().unwrap()])
        .args(["--listen", "127.0.0.1:0"]);
    c
}

/// Runs `eboard run --config CFG MORE… --listen 127.0.0.1:0` to completion
/// with standard input closed (a start that is refused).
pub fn eboard_run(cfg: &Path, more: &[&str]) -> Output {
    run_command(cfg)
        .args(more)
        .stdin(Stdio::null())
        .output()
        .expect("run eboard")
}

/// Runs `eboard ARGS` to completion with standard input closed; its exit
/// status, standard output and standard error.
pub fn eboard(args: &[&str]) -> Output {
    eboard_command()
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run eboard")
}

/// Runs `cmd` to completion and asserts that it succeeded (naming its
/// standard error if not); its output.
pub fn output_ok(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("run the program");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs `eboard ARGS` with `input` as its standard input.
pub fn eboard_with_input(args: &[&str], input: &str) -> Output {
    output_with_input(eboard_command().args(args), input)
}

/// Runs `cmd` to completion with `input` as its standard input; its exit
/// status, standard output and standard error.
pub fn output_with_input(cmd: &mut Command, input: &str) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the program");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// `run --config CFG [--trace TRACE] [--journal JOURNAL]` and `more`: the
/// arguments of a board's `eboard run`.
pub fn run_args(
    cfg: &Path,
    trace: Option<&Path>,
    journal: Option<&Path>,
    more: &[&str],
) -> Vec<String> {
    let mut args = vec!["run".to_owned(), "--config".to_owned(), path_arg(cfg)];
    if let Some(t) = trace {
        args.extend(["--trace".to_owned(), path_arg(t)]);
    }
    if let Some(j) = journal {
        args.extend(["--journal".to_owned(), path_arg(j)]);
    }
    args.extend(more.iter().map(|a| (*a).to_owned()));
    args
}

fn path_arg(p: &Path) -> String {
    p.to_str().unwrap().to_owned()
}

/// Runs `eboard ARGS`, asserts it succeeded (naming the arguments and its
/// standard error if not) and returns its standard output.
pub fn eboard_ok(args: &[&str]) -> String {
    let out = eboard(args);
    assert!(
        out.status.success(),
        "eboard {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A running eboard process and the address it serves.
pub struct Running {
    pub child: Child,
    pub addr: String,
    pub stderr: PathBuf,
}

impl Running {
    /// What the process wrote to its standard error so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// Waits (bounded, `secs`) until its standard error says `text`.
    pub fn wait_log(&self, secs: u64, text: &str) {
        super::poll(secs, &format!("{text:?} in the log"), || {
            self.log().contains(text).then_some(())
        });
    }

    /// Ends the process (SIGKILL) and waits for it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Starts `eboard ARGS --listen 127.0.0.1:0` and waits (bounded) for its address.
pub fn spawn(args: &[&str], envs: &[(&str, &str)], dir: &Path) -> Running {
    spawn_with_input(args, envs, dir, None)
}

/// The same, with `input` written to its standard input once it serves.
pub fn spawn_with_input(
    args: &[&str],
    envs: &[(&str, &str)],
    dir: &Path,
    input: Option<String>,
) -> Running {
    let stderr = dir.join(format!("stderr-{}.txt", unique()));
    let mut cmd = eboard_command();
    cmd.args(args)
        .stderr(std::fs::File::create(&stderr).unwrap())
        .env_remove("EBOARD_ARBITER_TOKEN");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    spawn_command(cmd, stderr, input)
}

/// Starts `cmd` (an [`eboard_command`] with its arguments and environment,
/// its standard error going to the file `stderr`) with
/// `--listen 127.0.0.1:0`, and waits (bounded, 20 s) for the address it
/// serves; `input`, if any, is written to its standard input then.
pub fn spawn_command(mut cmd: Command, stderr: PathBuf, input: Option<String>) -> Running {
    cmd.args(["--listen", "127.0.0.1:0"])
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped());
    let mut child = cmd.spawn().expect("start eboard");
    let out = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut lines = BufReader::new(out).lines();
        while let Some(Ok(l)) = lines.next() {
            if let Some(rest) = l.strip_prefix("eboard: serving http://") {
                let _ = tx.send(rest.trim_end_matches('/').to_owned());
            }
        }
    });
    let addr = match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(a) => a,
        Err(_) => {
            let _ = child.kill();
            panic!(
                "eboard did not start: {}",
                std::fs::read_to_string(&stderr).unwrap_or_default()
            );
        }
    };
    if let (Some(text), Some(mut stdin)) = (input, child.stdin.take()) {
        std::thread::spawn(move || {
            let _ = stdin.write_all(text.as_bytes());
        });
    }
    Running {
        child,
        addr,
        stderr,
    }
}

/// `eboard run --config CFG [--trace TRACE] EXTRA…` (see [`spawn`]).
pub fn run_board(dir: &Path, cfg: &Path, trace: Option<&Path>, extra: &[&str]) -> Running {
    run_board_with_env(dir, cfg, trace, extra, &[])
}

/// [`run_board`] with the environment variables `envs` set.
pub fn run_board_with_env(
    dir: &Path,
    cfg: &Path,
    trace: Option<&Path>,
    extra: &[&str],
    envs: &[(&str, &str)],
) -> Running {
    let mut args = vec!["run", "--config", cfg.to_str().unwrap()];
    if let Some(t) = trace {
        args.extend(["--trace", t.to_str().unwrap()]);
    }
    args.extend_from_slice(extra);
    spawn(&args, envs, dir)
}

/// A free loopback address (`127.0.0.1:PORT`) for a process that must keep
/// its address across a restart of its own (a board that restarts into a
/// new pairing re-binds the same `--listen`).
pub fn free_loopback_addr() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    format!("127.0.0.1:{port}")
}

/// `eboard ARGS --listen ADDR` at a fixed `addr` (see
/// [`free_loopback_addr`]), its standard error to `dir/stderr.txt`; not
/// waited for (poll its address).
pub fn spawn_at(args: &[&str], addr: &str, dir: &Path) -> Running {
    let stderr = dir.join("stderr.txt");
    let child = eboard_command()
        .args(args)
        .args(["--listen", addr])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr).unwrap())
        .spawn()
        .expect("start eboard");
    Running {
        child,
        addr: addr.to_owned(),
        stderr,
    }
}

/// [`spawn_at`], waiting (bounded, 20 s) until `addr` accepts connections.
pub fn serving_at(args: &[&str], addr: &str, dir: &Path) -> Running {
    let r = spawn_at(args, addr, dir);
    super::poll(20, &format!("eboard serving at {addr}"), || {
        std::net::TcpStream::connect(addr).ok()
    });
    r
}

/// `eboard run --config CFG ARGS --listen 127.0.0.1:0` reading records from
/// its standard input, kept open for the test to write to (a live board:
/// each record is stamped with the round time of its arrival); waits
/// (bounded, 20 s) for the address it serves.
pub fn run_stdin(dir: &Path, cfg: &Path, args: &[&str]) -> (Running, std::process::ChildStdin) {
    let stderr = dir.join(format!("stderr-{}.txt", unique()));
    let mut cmd = eboard_command();
    cmd.args(["run", "--config", cfg.to_str().unwrap()])
        .args(args)
        .args(["--listen", "127.0.0.1:0"])
        .env_remove("EBOARD_ARBITER_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&stderr).unwrap());
    let mut child = cmd.spawn().expect("start eboard");
    let out = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(out).lines().map_while(Result::ok) {
            if let Some(rest) = l.strip_prefix("eboard: serving http://") {
                let _ = tx.send(rest.trim_end_matches('/').to_owned());
            }
        }
    });
    let stdin = child.stdin.take().unwrap();
    let Ok(addr) = rx.recv_timeout(Duration::from_secs(20)) else {
        let _ = child.kill();
        panic!(
            "eboard did not start: {}",
            std::fs::read_to_string(&stderr).unwrap_or_default()
        );
    };
    (
        Running {
            child,
            addr,
            stderr,
        },
        stdin,
    )
}

/// A process's resident memory, kB (`VmRSS` of `/proc/PID/status`): the
/// memory bounds of the flood tests (`login_flood`, `server_limits`,
/// `mqtt_bound`).
pub fn rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap()
}
