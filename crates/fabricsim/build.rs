//! Records the git commit the library is built from (when built from a git checkout), for the
//! provenance of reports.

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let git = |args: &[&str]| std::process::Command::new("git").arg("-C").arg(&root).args(args).output().ok().filter(|o| o.status.success());
    if let Some(out) = git(&["rev-parse", "--short=12", "HEAD"]) {
        let commit = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|o| !o.stdout.is_empty());
        println!("cargo:rustc-env=FABRICSIM_GIT_COMMIT={commit}{}", if dirty { "-modified" } else { "" });
    }
    // Rebuild when the checked-out commit moves.
    for f in [".git/HEAD", ".git/index"] {
        let p = root.join(f);
        if p.exists() {
            println!("cargo:rerun-if-changed={}", p.display());
        }
    }
}
