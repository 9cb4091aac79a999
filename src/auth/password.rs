//! What a new password must be: long enough, not too long to judge, and not easy to guess.
//!
//! The guessing estimate is zxcvbn's (dictionaries of common passwords, names and words,
//! keyboard patterns, repeats, sequences, dates, and the account's own username and email
//! address as "user inputs"). A password needs [`MIN_SCORE`] of 4: zxcvbn's "safely
//! unguessable: moderate protection from offline slow-hash scenario" (about 10^10 guesses),
//! which argon2id makes slow.

use zxcvbn::Score;

/// Characters of a new password.
pub const NEW_PASSWORD_CHARS: std::ops::RangeInclusive<usize> = 8..=128;
/// The longest password a login accepts (older accounts may have one longer than new ones
/// may have).
pub const MAX_PASSWORD_BYTES: usize = 1024;
/// The zxcvbn score (0–4) a new password needs.
pub const MIN_SCORE: Score = Score::Three;

/// `Err(reason)` when `password` may not be set for an account with these user inputs
/// (username, email address). The length is checked first: zxcvbn's time grows with it.
pub fn check_new(password: &str, user_inputs: &[&str]) -> Result<(), String> {
    let chars = password.chars().count();
    if chars < *NEW_PASSWORD_CHARS.start() {
        return Err(format!(
            "a password has at least {} characters",
            NEW_PASSWORD_CHARS.start()
        ));
    }
    if chars > *NEW_PASSWORD_CHARS.end() {
        return Err(format!(
            "a password has at most {} characters",
            NEW_PASSWORD_CHARS.end()
        ));
    }
    // The parts of an email address are guessable too ("anna" in "anna@example.org").
    let mut inputs: Vec<&str> = Vec::new();
    for input in user_inputs {
        inputs.push(input);
        if let Some((local, domain)) = input.split_once('@') {
            inputs.push(local);
            inputs.extend(domain.split('.'));
        }
    }
    inputs.push("kontor");
    let estimate = zxcvbn::zxcvbn(password, &inputs);
    if estimate.score() >= MIN_SCORE {
        return Ok(());
    }
    let mut reason = String::from("this password is too easy to guess");
    if let Some(feedback) = estimate.feedback() {
        if let Some(warning) = feedback.warning() {
            reason.push_str(&format!(": {warning}"));
        }
        for suggestion in feedback.suggestions() {
            reason.push_str(&format!(" {suggestion}"));
        }
    }
    if !reason.ends_with('.') {
        reason.push('.');
    }
    reason.push_str(" A few unrelated words, or a longer phrase, make a strong password.");
    Err(reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_and_personal_passwords_are_refused_with_a_reason() {
        for password in [
            "aaaaaaaa",
            "password",
            "        ",
            "12345678",
            "qwertyuiop",
            "password1",
            "anna-password",
            "anna1990!",
            "Annaexample",
        ] {
            let reason = check_new(password, &["anna", "anna@example.org"]).unwrap_err();
            assert!(reason.contains("easy to guess"), "{password}: {reason}");
        }
    }

    #[test]
    fn lengths_are_bounded_before_judging() {
        assert!(check_new("Xy7!", &[]).unwrap_err().contains("at least 8"));
        let long = "correct horse battery staple ".repeat(10);
        assert!(check_new(&long, &[]).unwrap_err().contains("at most 128"));
    }

    #[test]
    fn unrelated_words_and_random_strings_pass() {
        for password in [
            "tall ship sails at midnight",
            "anna-rides-the-ferry-to-4-islands",
            "q8#Lm2!vRz0p",
            "Glockenspiel-Zitrone-Wurfel",
        ] {
            assert_eq!(
                check_new(password, &["anna", "anna@example.org"]),
                Ok(()),
                "{password}"
            );
        }
    }
}
