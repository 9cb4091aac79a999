//! Operating the server: several `kontor` processes on one embedded cluster, a database that
//! goes away and comes back, and what the deploy scripts install.

use std::path::Path;

#[test]
fn serving_installs_no_test_tools() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for script in ["deploy/serve.sh", "deploy/setup.sh"] {
        let text = std::fs::read_to_string(root.join(script)).unwrap();
        let lower = text.to_lowercase();
        // Whole words: `set -o pipefail` is no installer.
        let words: Vec<&str> = lower.split(|c: char| !c.is_ascii_alphanumeric()).collect();
        for word in [
            "pip",
            "pip3",
            "pipx",
            "pypi",
            "venv",
            "virtualenv",
            "npm",
            "validator",
        ] {
            assert!(
                !words.contains(&word),
                "{script} mentions {word:?}: running the server must not need test tools"
            );
        }
    }
    let tests = std::fs::read_to_string(root.join("deploy/test.sh")).unwrap();
    assert!(
        tests.contains("deploy/setup-tests.sh"),
        "deploy/test.sh installs the test tools"
    );
}
