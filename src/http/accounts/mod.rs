//! Accounts: registration, login and tokens (`signin`), keeping an account (`security`), the
//! browser session, one's own profile.

pub mod profile;
pub mod security;
pub mod session;
pub mod signin;
