//! The damaged journal through the real binary, as issue 18's probe did
//! it: `eboard run` started on a journal with a half-written record in its
//! middle (`{"lift":"c{"place":"c7",…}`, a transient disk-full of an older
//! eboard) runs, alerts the arbiter (`journal_alert`, which line, where the
//! file went) and ends the game exactly as an uninterrupted run does; a
//! journal of another round is refused with exit 78 and a message naming
//! the file to move; an empty journal starts a new game with a warning; a
//! real disk-full for the process (`RLIMIT_FSIZE`, raised again with
//! `prlimit(2)`) mid-game: alerted both ways, the game goes on, the journal
//! replays exactly as an uninterrupted run's.

use crate::common;

use common::*;
use serde_json::Value;
use std::path::Path;

#[test]
fn a_journal_damaged_in_its_middle_runs_alerts_and_ends_the_game_right() {
    let dir = tempdir("jdamaged");
    let trace = opera_trace(&dir, 3);
    // The wall clock trusted as kept (`rtc`, docs/clock.md): the game goes
    // on by itself after the restart whatever the host's NTP state.
    let cfg = config(&dir, 1, 4, "\n[clock]\nwall_clock = \"rtc\"\n");
    // The reference: the same trace, uninterrupted.
    let ja = dir.join("a.jsonl");
    let run = run_board(&dir, &cfg, Some(&trace), &refs(&journal_args(&ja, 0)));
    let reference = final_pgn(&run.addr);
    drop(run);

    // The journal of the whole game, with a record half-written in its
    // middle and the next one on the same line.
    let jb = dir.join("b.jsonl");
    let text = std::fs::read_to_string(&ja).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let n = lines.len() / 2;
    let half = &lines[n][..lines[n].len() / 2];
    let mut damaged: Vec<String> = lines[..n].iter().map(|l| l.to_string()).collect();
    damaged.push(format!("{half}{}", lines[n + 1]));
    damaged.extend(lines[n + 2..].iter().map(|l| l.to_string()));
    std::fs::write(&jb, damaged.join("\n") + "\n").unwrap();

    let run = run_board(&dir, &cfg, Some(&trace), &refs(&journal_args(&jb, 0)));
    let arbiter = SseReader::open(&run.addr, "/arbiter/events", &[ARBITER_AUTH]);
    let msgs = arbiter.until(20, |v| v["type"] == "journal_alert");
    let alert = &msgs.last().unwrap().1;
    assert_eq!(alert["problem"], "damaged", "{alert}");
    assert_eq!(alert["line"].as_u64(), Some(n as u64 + 1), "{alert}");
    assert_eq!(
        alert["records_kept"].as_u64(),
        Some(n as u64 - 1),
        "{alert}"
    );
    let aside = alert["set_aside"].as_str().unwrap();
    assert!(aside.contains("b.jsonl.damaged-"), "{alert}");
    assert_eq!(
        std::fs::read_to_string(aside).unwrap(),
        damaged.join("\n") + "\n"
    );
    // The game goes on from the good part (the recording gives the rest)
    // and ends as the uninterrupted run did: nothing wrong published.
    let resumed = final_pgn(&run.addr);
    assert_eq!(resumed, reference);
    let err = std::fs::read_to_string(&run.stderr).unwrap();
    assert!(err.contains("journal damaged at line"), "{err}");
    // The fresh journal is whole and replays to the same game.
    eboard_ok(&["replay", jb.to_str().unwrap()]);
    drop(run);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn another_rounds_journal_is_refused_with_exit_78_and_an_empty_one_warned() {
    let dir = tempdir("jother");
    let trace = opera_trace(&dir, 4);
    let cfg = config(&dir, 1, 4, "");
    let j = dir.join("j.jsonl");
    let run = run_board(&dir, &cfg, Some(&trace), &refs(&journal_args(&j, 0)));
    final_pgn(&run.addr);
    drop(run);
    let before = std::fs::read(&j).unwrap();
    // The config of the next round, the journal left in place.
    let text = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(&cfg, text.replace("round = 1", "round = 2")).unwrap();
    let out = run_command(&cfg)
        .args(["--trace", trace.to_str().unwrap()])
        .args(refs(&journal_args(&j, 0)))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(78), "{err}");
    assert!(err.contains(&format!("mv {}", j.display())), "{err}");
    assert!(
        err.contains("round: journal \"1.4\", config \"2.4\""),
        "{err}"
    );
    assert_eq!(std::fs::read(&j).unwrap(), before, "never touched");

    // Empty: a new game, with a warning and an alert.
    std::fs::write(&j, b"").unwrap();
    let run = run_board(&dir, &cfg, Some(&trace), &refs(&journal_args(&j, 0)));
    let arbiter = SseReader::open(&run.addr, "/arbiter/events", &[ARBITER_AUTH]);
    let msgs = arbiter.until(20, |v| v["type"] == "journal_alert");
    assert_eq!(msgs.last().unwrap().1["problem"], "empty");
    let pgn = final_pgn(&run.addr);
    assert!(pgn.contains("[Round \"2.4\"]"), "{pgn}");
    let err = std::fs::read_to_string(&run.stderr).unwrap();
    assert!(err.contains("holds no record"), "{err}");
    let head: Value =
        serde_json::from_str(std::fs::read_to_string(&j).unwrap().lines().next().unwrap()).unwrap();
    assert!(head["journal"]["game_id"].is_string(), "{head}");
    drop(run);
    std::fs::remove_dir_all(&dir).ok();
}

/// The file-size limit the board starts under, bytes: the journal's
/// header and its first records fit, the rest of the game does not.
const FSIZE_LIMIT: u64 = 2_500;

#[test]
fn a_disk_that_fills_mid_game_and_empties_keeps_the_game_whole() {
    // A real "disk full" for one process: RLIMIT_FSIZE (writes past the
    // limit are short, then fail with EFBIG; SIGXFSZ ignored), raised
    // again from outside (prlimit(2)) as if space were freed.
    let dir = tempdir("jfull");
    let trace = opera_trace(&dir, 7);
    let cfg = config(&dir, 1, 4, "");
    let ja = dir.join("a.jsonl");
    let reference = {
        let run = run_board(&dir, &cfg, Some(&trace), &refs(&journal_args(&ja, 0)));
        final_pgn(&run.addr)
    };
    let j = dir.join("j.jsonl");
    let mut a = vec![
        "run".to_owned(),
        "--config".into(),
        cfg.to_str().unwrap().into(),
        "--trace".into(),
        trace.to_str().unwrap().into(),
    ];
    a.extend(journal_args(&j, 0));
    let a: Vec<&str> = refs(&a);
    let a: Vec<&str> = a
        .iter()
        .map(|s| if *s == "100" { "20" } else { s })
        .collect();
    let mut cmd = eboard_command();
    cmd.args(&a).env_remove("EBOARD_ARBITER_TOKEN");
    // SAFETY: async-signal-safe calls only (setrlimit, signal) in the child
    // before exec.
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(|| {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let lim = libc::rlimit {
                rlim_cur: FSIZE_LIMIT as libc::rlim_t,
                rlim_max: libc::RLIM_INFINITY,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let stderr = dir.join("stderr-full.txt");
    cmd.stderr(std::fs::File::create(&stderr).unwrap());
    let run = spawn_command(cmd, stderr, None);
    let arbiter = SseReader::open(&run.addr, "/arbiter/events", &[ARBITER_AUTH]);
    let msgs = arbiter.until(60, |v| v["problem"] == "write_failed");
    let failed = &msgs.last().unwrap().1;
    assert_eq!(failed["type"], "journal_alert", "{failed}");
    assert!(
        failed["error"].as_str().unwrap().contains("large")
            || failed["error"].as_str().unwrap().contains("short"),
        "{failed}"
    );
    // Whatever the limit cut, the files hold whole lines only.
    for f in [j.clone(), eboard::journal::events_path(&j)] {
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(text.ends_with('\n'), "{}: {text}", f.display());
    }
    // Space again.
    let unlimited = libc::rlimit {
        rlim_cur: libc::RLIM_INFINITY,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: prlimit(2) on the child this test started.
    let rc = unsafe {
        libc::prlimit(
            run.child.id() as libc::pid_t,
            libc::RLIMIT_FSIZE,
            &unlimited,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(rc, 0, "prlimit: {}", std::io::Error::last_os_error());
    let msgs = arbiter.until(60, |v| v["problem"] == "write_recovered");
    assert!(!msgs.is_empty());
    let pgn = final_pgn(&run.addr);
    assert_eq!(pgn, reference, "the game went on");
    // The journal holds the whole game: replayed, the same moves.
    let replay = |p: &Path| eboard_ok(&["replay", p.to_str().unwrap()]);
    let whole = replay(&ja);
    assert!(whole.matches("Rd8#").count() >= 1, "{whole}");
    poll(30, "every waiting line written", || {
        (replay(&j) == whole).then_some(())
    });
    drop(run);
    std::fs::remove_dir_all(&dir).ok();
}
