use super::*;

fn map(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn defaults_use_the_embedded_database() {
    let config = Config::from_map(&HashMap::new()).unwrap();
    assert!(matches!(config.database, Database::Embedded));
    assert_eq!(config.bind.to_string(), "127.0.0.1:8080");
    assert_eq!(config.access_token_ttl, Duration::from_secs(900));
    assert_eq!(config.public_base_url(), "http://127.0.0.1:8080");
    assert_eq!(config.login_max_failures, 5);
    assert_eq!(config.login_max_failures_per_address, 20);
}

#[test]
fn each_default_is_the_tables_and_giving_it_changes_nothing() {
    let absent = Config::from_map(&HashMap::new()).unwrap();
    let given: HashMap<String, String> = SETTINGS
        .iter()
        .filter(|s| s.literal)
        .map(|s| (s.name.to_string(), s.default.to_string()))
        .collect();
    assert!(given.len() > 25, "most defaults are values");
    let explicit = Config::from_map(&given).unwrap();
    assert_eq!(format!("{absent:?}"), format!("{explicit:?}"));
    // The table's words for the derived default say what the code derives.
    let per_address = SETTINGS
        .iter()
        .find(|s| s.name == "KONTOR_LOGIN_MAX_FAILURES_PER_ADDRESS")
        .unwrap();
    assert_eq!(
        per_address.default,
        absent.login_max_failures_per_address.to_string()
    );
    assert_eq!(absent.notify.max_attempts, 8);
    assert_eq!(absent.notify.retry_max, Duration::from_secs(21600));
    assert_eq!(absent.deadline_poll, Duration::from_millis(1000));
}

#[test]
#[should_panic(expected = "KONTOR_NO_SUCH_SETTING is not in config::SETTINGS")]
fn a_default_not_in_the_table_is_a_mistake_caught_at_once() {
    default_of("KONTOR_NO_SUCH_SETTING");
}

#[test]
fn the_address_limit_follows_the_account_limit_unless_set() {
    let config = Config::from_map(&map(&[("KONTOR_LOGIN_MAX_FAILURES", "10")])).unwrap();
    assert_eq!(config.login_max_failures_per_address, 40);
    let config = Config::from_map(&map(&[
        ("KONTOR_LOGIN_MAX_FAILURES", "10"),
        ("KONTOR_LOGIN_MAX_FAILURES_PER_ADDRESS", "3"),
    ]))
    .unwrap();
    assert_eq!(config.login_max_failures_per_address, 3);
}

#[test]
fn a_session_url_is_for_a_database_given_by_url() {
    assert_eq!(
        Config::from_map(&HashMap::new())
            .unwrap()
            .session_database_url,
        None
    );
    let direct = "postgres://kontor@db.example:5432/kontor";
    let config = Config::from_map(&map(&[
        (
            "KONTOR_DATABASE_URL",
            "postgres://kontor@db.example:6432/kontor",
        ),
        ("KONTOR_SESSION_DATABASE_URL", direct),
    ]))
    .unwrap();
    assert_eq!(config.session_database_url.as_deref(), Some(direct));
    let error = Config::from_map(&map(&[("KONTOR_SESSION_DATABASE_URL", direct)]))
        .unwrap_err()
        .to_string();
    assert!(error.contains("KONTOR_DATABASE_URL"), "{error}");
}

#[test]
fn bad_values_are_explained() {
    let mut map = HashMap::new();
    map.insert("KONTOR_ACCESS_TOKEN_TTL".to_string(), "soon".to_string());
    let error = Config::from_map(&map).unwrap_err().to_string();
    assert!(error.contains("KONTOR_ACCESS_TOKEN_TTL"), "{error}");
}

#[test]
fn debug_output_shows_no_secret() {
    let map: HashMap<String, String> = [
        ("KONTOR_JWT_SECRET", "jwt-secret-jwt-secret-jwt-secret-0123"),
        (
            "KONTOR_SMTP_URL",
            "smtps://mailer:smtp-pass@mail.example:465",
        ),
        (
            "KONTOR_DATABASE_URL",
            "postgres://kontor:db-pass@db.example/kontor?password=db-pass2",
        ),
        (
            "KONTOR_SESSION_DATABASE_URL",
            "postgres://kontor:session-pass@db.example:5432/kontor",
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let config = Config::from_map(&map).unwrap();
    for text in [format!("{config:?}"), format!("{config:#?}")] {
        for secret in ["jwt-secret", "smtp-pass", "db-pass", "session-pass"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        assert!(
            text.contains("smtps://mailer:***@mail.example:465"),
            "{text}"
        );
        assert!(text.contains("db.example/kontor"), "{text}");
        assert!(text.contains("mail_from"), "{text}");
    }
}

#[test]
fn stream_limits_and_body_timeouts_must_be_positive() {
    let config = Config::from_map(&HashMap::new()).unwrap();
    assert_eq!(config.live_max_streams_per_user, 8);
    assert_eq!(config.body_timeout, Duration::from_secs(10));
    for key in ["KONTOR_LIVE_MAX_STREAMS_PER_USER", "KONTOR_BODY_TIMEOUT"] {
        let map = HashMap::from([(key.to_string(), "0".to_string())]);
        let error = Config::from_map(&map).unwrap_err().to_string();
        assert!(error.contains(key), "{error}");
    }
}

#[test]
fn trusted_proxies_are_addresses_and_ranges() {
    let none = Config::from_map(&HashMap::new()).unwrap();
    assert!(none.trusted_proxies.is_empty());
    assert_eq!(none.log_format, LogFormat::Text);
    assert!(!none.metrics_enabled());
    let map = HashMap::from([(
        "KONTOR_TRUSTED_PROXIES".to_string(),
        " 10.0.0.5, 10.1.2.3/16 ,fd00::/8,::1".to_string(),
    )]);
    let nets: Vec<String> = Config::from_map(&map)
        .unwrap()
        .trusted_proxies
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(nets, ["10.0.0.5/32", "10.1.0.0/16", "fd00::/8", "::1/128"]);
    for bad in ["10.0.0", "10.0.0.0/33", "proxy.example", "*"] {
        let map = HashMap::from([("KONTOR_TRUSTED_PROXIES".to_string(), bad.to_string())]);
        let error = Config::from_map(&map).unwrap_err().to_string();
        assert!(error.contains("KONTOR_TRUSTED_PROXIES"), "{bad}: {error}");
    }
    let map = HashMap::from([("KONTOR_LOG_FORMAT".to_string(), "xml".to_string())]);
    assert!(Config::from_map(&map).is_err());
    let map = HashMap::from([("KONTOR_METRICS_TOKEN".to_string(), "s3cret".to_string())]);
    let config = Config::from_map(&map).unwrap();
    assert!(config.metrics_enabled());
    assert!(!format!("{config:?}").contains("s3cret"));
}

#[test]
fn cors_origins_are_exact_origins() {
    assert!(
        Config::from_map(&HashMap::new())
            .unwrap()
            .cors_origins
            .is_empty()
    );
    let map = HashMap::from([(
        "KONTOR_CORS_ORIGINS".to_string(),
        " https://App.Example , http://localhost:5173,http://[::1]:8080".to_string(),
    )]);
    assert_eq!(
        Config::from_map(&map).unwrap().cors_origins,
        [
            "https://app.example",
            "http://localhost:5173",
            "http://[::1]:8080"
        ]
    );
    for bad in [
        "*",
        "app.example",
        "https://app.example/",
        "https://app.example/path",
        "ftp://app.example",
        "https://app.example:99999",
        "https://app.example:",
        "https://user@app.example",
        "https://",
    ] {
        let map = HashMap::from([("KONTOR_CORS_ORIGINS".to_string(), bad.to_string())]);
        let error = Config::from_map(&map).unwrap_err().to_string();
        assert!(error.contains("KONTOR_CORS_ORIGINS"), "{bad}: {error}");
    }
}

#[test]
fn env_files_allow_comments_quotes_and_export() {
    let pairs =
        parse_env_file("# comment\nexport KONTOR_BIND=\"0.0.0.0:80\"\nKONTOR_DATA_DIR='/x'\n")
            .unwrap();
    assert_eq!(
        pairs,
        vec![
            ("KONTOR_BIND".to_string(), "0.0.0.0:80".to_string()),
            ("KONTOR_DATA_DIR".to_string(), "/x".to_string())
        ]
    );
    assert!(parse_env_file("nonsense").is_err());
}

#[test]
fn a_database_url_may_list_several_servers() {
    assert_eq!(
        Database::addresses("postgres://k@a:5432/kontor"),
        ["postgres://k@a:5432/kontor"]
    );
    assert_eq!(
        Database::addresses(
            "postgres://k@a:5432/kontor, postgresql://k@b:5433/kontor?options=-c%20x=1,2"
        ),
        [
            "postgres://k@a:5432/kontor",
            "postgresql://k@b:5433/kontor?options=-c%20x=1,2"
        ]
    );
    let list = "postgres://k@a:5432/kontor,postgres://k@b:5432/kontor";
    let error = Config::from_map(&map(&[
        ("KONTOR_DATABASE_URL", list),
        ("KONTOR_SESSION_DATABASE_URL", "postgres://k@a:5432/kontor"),
    ]))
    .unwrap_err()
    .to_string();
    assert!(error.contains("list of servers"), "{error}");
    let config = Config::from_map(&map(&[("KONTOR_DATABASE_URL", list)])).unwrap();
    assert!(matches!(config.database, Database::Url(_)));
}

#[test]
fn replicas_are_a_list_beside_a_database_url_with_a_positive_bound() {
    let primary = "postgres://k@a:5432/kontor";
    let replicas = "postgres://k@b:5432/kontor, postgres://k@c:5432/kontor";
    let config = Config::from_map(&map(&[("KONTOR_DATABASE_URL", primary)])).unwrap();
    assert!(config.replica_urls.is_empty(), "none by default");
    assert_eq!(config.replica_max_lag, std::time::Duration::from_secs(5));
    let config = Config::from_map(&map(&[
        ("KONTOR_DATABASE_URL", primary),
        ("KONTOR_REPLICA_URLS", replicas),
        ("KONTOR_REPLICA_MAX_LAG_MS", "750"),
    ]))
    .unwrap();
    assert_eq!(
        config.replica_urls,
        ["postgres://k@b:5432/kontor", "postgres://k@c:5432/kontor"]
    );
    assert_eq!(
        config.replica_max_lag,
        std::time::Duration::from_millis(750)
    );
    let debug = format!("{config:?}");
    assert!(debug.contains("replica_urls"), "{debug}");
    let error = Config::from_map(&map(&[("KONTOR_REPLICA_URLS", replicas)]))
        .unwrap_err()
        .to_string();
    assert!(error.contains("KONTOR_DATABASE_URL"), "{error}");
    let error = Config::from_map(&map(&[
        ("KONTOR_DATABASE_URL", primary),
        ("KONTOR_REPLICA_MAX_LAG_MS", "0"),
    ]))
    .unwrap_err()
    .to_string();
    assert!(error.contains("KONTOR_REPLICA_MAX_LAG_MS"), "{error}");
}
