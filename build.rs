//! Names the commit the binary is built from, for `kontor_build_info` (see `src/telemetry.rs`):
//! `KONTOR_BUILD_COMMIT` when set (a build without the repository, such as the container
//! image's, may pass it), else `git rev-parse` of the checkout, else `unknown`.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    (output.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

fn main() {
    println!("cargo:rerun-if-env-changed=KONTOR_BUILD_COMMIT");
    let commit = std::env::var("KONTOR_BUILD_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .or_else(|| git(&["rev-parse", "--short=12", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_string());
    // Built again when HEAD moves: HEAD names the branch, the branch's ref file (or the packed
    // refs) names the commit. In a worktree both live outside the checkout.
    if let (Some(git_dir), Some(common_dir)) = (
        git(&["rev-parse", "--git-dir"]),
        git(&["rev-parse", "--git-common-dir"]),
    ) {
        let head = Path::new(&git_dir).join("HEAD");
        println!("cargo:rerun-if-changed={}", head.display());
        if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
            let reference = Path::new(&common_dir).join(branch);
            if reference.exists() {
                println!("cargo:rerun-if-changed={}", reference.display());
            }
        }
        let packed = Path::new(&common_dir).join("packed-refs");
        if packed.exists() {
            println!("cargo:rerun-if-changed={}", packed.display());
        }
    }
    println!("cargo:rustc-env=KONTOR_BUILD_COMMIT={commit}");
}
