//! Accounts: registration, sign-in and tokens ([`signin`]), keeping an account
//! ([`security`]), one's own profile, export and blocks ([`profile`]), and deleting an account
//! ([`deletion`]); their errors ([`error`]).

pub mod calendar_feed;
pub mod deletion;
pub mod error;
pub mod profile;
pub mod security;
pub mod signin;
