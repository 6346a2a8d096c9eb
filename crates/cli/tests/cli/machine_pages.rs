//! The machine pages' validation tables are what `fabricsim validate` prints: `--docs` finds a
//! stale page, `--update-docs` rewrites it. (CI runs `validate --docs docs/machines` on the real
//! pages after its validation run; here a one-row validation file and a page of its own.)

use super::fabricsim;

#[test]
fn a_stale_machine_page_is_found_and_rewritten_from_validation() {
    let root = std::env::temp_dir().join(format!("fabricsim-pages-{}", std::process::id()));
    let (rows, pages) = (root.join("rows"), root.join("pages"));
    std::fs::create_dir_all(&rows).unwrap();
    std::fs::create_dir_all(&pages).unwrap();
    std::fs::write(
        rows.join("x.toml"),
        "system = \"X\"\nsource = \"test\"\n[[row]]\nfigure = \"1-hop latency\"\npublished = 0.62\nunit = \"us\"\ntolerance = 0.05\nmetric = \"one_way_latency\"\nkind = \"calibration\"\nset = [\"machine.preset=bgq\"]\n",
    )
    .unwrap();
    let page = pages.join("x.md");
    let stale = "# X\n\nAs printed by `fabricsim validate --only X` (text):\n\n```text\nan old table\n```\n\nMore text.\n";
    std::fs::write(&page, stale).unwrap();
    // A page of another system is not judged.
    std::fs::write(pages.join("y.md"), "As printed by `fabricsim validate --only Y`:\n\n```text\nwhatever\n```\n").unwrap();
    let (d, p) = (rows.to_str().unwrap(), pages.to_str().unwrap());
    let (code, out, err) = fabricsim(&["validate", "--dir", d, "--docs", p]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("stale validation tables in") && err.contains("x.md (--only X)") && !err.contains("y.md"), "{err}");
    let (code, _, err) = fabricsim(&["validate", "--dir", d, "--update-docs", p]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&page).unwrap();
    // The block is now the table of `validate --only X`, the rest of the page as it was.
    let (_, table, _) = fabricsim(&["validate", "--dir", d, "--only", "X"]);
    assert!(text.contains(&format!("```text\n{table}```\n\nMore text.\n")), "{text}\n---\n{table}");
    assert!(text.starts_with("# X\n\nAs printed by"));
    let (code, _, err) = fabricsim(&["validate", "--dir", d, "--docs", p]);
    assert_eq!(code, 0, "{err}");
}
