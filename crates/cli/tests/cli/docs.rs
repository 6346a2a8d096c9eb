//! The documentation's programs run as written, and a deadlocked program is reported in words.

use super::fabricsim;

/// Every program written in a page (a ```text block whose first line is `ranks N`), with the
/// command the page gives to run it (the next ```sh block's line with `--program`).
fn programs(page: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let blocks: Vec<(&str, &str)> = page
        .split("```")
        .skip(1)
        .step_by(2)
        .map(|b| {
            let (lang, body) = b.split_once('\n').unwrap_or((b, ""));
            (lang.trim(), body)
        })
        .collect();
    for (i, (lang, body)) in blocks.iter().enumerate() {
        if *lang == "text" && body.trim_start().starts_with("ranks ") {
            let command = blocks[i + 1..]
                .iter()
                .find(|(l, _)| *l == "sh")
                .and_then(|(_, b)| b.lines().find(|l| l.contains("--program")))
                .unwrap_or_else(|| panic!("no command runs the program:\n{body}"));
            out.push((body.to_string(), command.to_string()));
        }
    }
    out
}

#[test]
fn every_program_in_the_docs_runs_as_written() {
    let root = format!("{}/../..", env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![format!("{root}/README.md")];
    for e in std::fs::read_dir(format!("{root}/docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            pages.push(p.display().to_string());
        }
    }
    let mut ran = 0;
    for page in &pages {
        for (k, (program, command)) in programs(&std::fs::read_to_string(page).unwrap()).into_iter().enumerate() {
            let file = std::env::temp_dir().join(format!("fabricsim-doc-{}-{k}.txt", std::process::id()));
            std::fs::write(&file, &program).unwrap();
            let words: Vec<&str> = command.split('#').next().unwrap().split_whitespace().skip(1).collect();
            let at = words.iter().position(|w| *w == "--program").unwrap() + 1;
            let mut args: Vec<&str> = words.clone();
            let path = file.to_str().unwrap().to_string();
            args[at] = &path;
            let (code, out, err) = fabricsim(&args);
            assert_eq!(code, 0, "{page}: `{command}`:\n{program}\n{out}{err}");
            ran += 1;
        }
    }
    assert!(ran >= 2, "the collectives page has two programs; {ran} found");
}

#[test]
fn a_deadlock_names_every_stuck_rank_with_its_line_in_words() {
    // The page's first program as it once was: 128 KiB awaited with tag 0 where 64 KiB with
    // tag 1 were sent (and taken by the wait before).
    let file = std::env::temp_dir().join(format!("fabricsim-deadlock-{}.txt", std::process::id()));
    let text = "ranks 4\n0 put 1 64KiB tag=1\n0 put 1 8KiB tag=2\n1 wait 0 tag=1\n1 waitbytes 0 128KiB\n2 wait 3 tag=5\n3 wait 2\n";
    std::fs::write(&file, text).unwrap();
    let (code, _, err) = fabricsim(&["collective", "--program", file.to_str().unwrap(), "--set", "topology.shape=[4]"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.starts_with("deadlock: 3 rank(s) never finished:"), "{err}");
    assert!(err.contains("rank 1 (line 5) waits for 131072 B from rank 0 tagged 0 (0 B arrived); unclaimed from rank 0: 8192 B tagged 2"), "{err}");
    assert!(err.contains("rank 2 (line 6) waits for rank 3's message tagged 5"), "{err}");
    assert!(err.contains("rank 3 (line 7) waits for rank 2's message tagged 0"), "{err}");
    assert!(!err.contains("WaitBytes") && !err.contains('{'), "no Debug values: {err}");
    // Many stuck ranks: the first few, then a count.
    let many: String = (1..64).map(|r| format!("{r} wait 0\n")).collect();
    std::fs::write(&file, format!("ranks 64\n{many}")).unwrap();
    let (code, _, err) = fabricsim(&["collective", "--program", file.to_str().unwrap(), "--set", "topology.shape=[64]"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("rank 8 (line 9)") && err.contains("and 55 more ranks") && !err.contains("rank 9 "), "{err}");
    // A program for 4 ranks on the 512-node default says how to run it; an unknown operation
    // lists every kind of line.
    let (code, _, err) = fabricsim(&["collective", "--program", file.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("is for 64 ranks, the job has 512") && err.contains("topology.shape = [64]"), "{err}");
    std::fs::write(&file, "ranks 2\n0 send 1 8B\n").unwrap();
    let (_, _, err) = fabricsim(&["collective", "--program", file.to_str().unwrap(), "--set", "topology.shape=[2]"]);
    assert!(err.contains("line 2") && err.contains("group"), "{err}");
}
