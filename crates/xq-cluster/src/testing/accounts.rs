//! A test server in operator mode: an operator, a system account and an application account
//! with JetStream, their JWTs preloaded into the server's config, and a user of the
//! application account whose `.creds` file a client logs in with.
//!
//! The JWTs are made here (header, claims, an Ed25519 signature by the issuer's nkey), since
//! no maintained crate issues operator JWTs; the server checks each against its issuer.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use nkeys::KeyPair;
use serde_json::{Value, json};

/// Writes the user's credentials into `dir`; returns the server's operator-mode settings
/// and the credentials file's path.
pub(super) fn write(dir: &Path) -> (String, PathBuf) {
    let operator = KeyPair::new_operator();
    let system = KeyPair::new_account();
    let app = KeyPair::new_account();
    let user = KeyPair::new_user();
    let operator_jwt = jwt(
        &operator,
        &operator,
        "xq-test",
        json!({"type": "operator", "version": 2}),
    );
    let system_jwt = jwt(&operator, &system, "SYS", account_claims(false));
    let app_jwt = jwt(&operator, &app, "XQ", account_claims(true));
    let user_jwt = jwt(
        &app,
        &user,
        "xq-relay",
        json!({
            "pub": {}, "sub": {}, "subs": -1, "data": -1, "payload": -1,
            "type": "user", "version": 2,
        }),
    );
    let seed = user.seed().expect("a user's seed");
    let creds = format!(
        "-----BEGIN NATS USER JWT-----\n{user_jwt}\n------END NATS USER JWT------\n\n\
         -----BEGIN USER NKEY SEED-----\n{seed}\n------END USER NKEY SEED------\n"
    );
    let path = dir.join("xq-relay.creds");
    std::fs::write(&path, creds).expect("write the credentials file");
    let config = format!(
        "operator: \"{operator_jwt}\"\nsystem_account: {system}\nresolver: MEMORY\n\
         resolver_preload: {{\n  {system}: \"{system_jwt}\"\n  {app}: \"{app_jwt}\"\n}}\n",
        system = system.public_key(),
        app = app.public_key(),
    );
    (config, path)
}

/// An account's claims: unlimited, with JetStream (unlimited too) if `jetstream`.
fn account_claims(jetstream: bool) -> Value {
    let storage = if jetstream { -1 } else { 0 };
    json!({
        "limits": {
            "subs": -1, "data": -1, "payload": -1, "imports": -1, "exports": -1,
            "wildcards": true, "conn": -1, "leaf": -1,
            "mem_storage": storage, "disk_storage": storage,
            "streams": storage, "consumer": storage,
        },
        "type": "account",
        "version": 2,
    })
}

/// A JWT for `subject`, named `name`, with `nats` as its NATS claims, signed by `issuer`.
fn jwt(issuer: &KeyPair, subject: &KeyPair, name: &str, nats: Value) -> String {
    let issued = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs();
    let header = json!({"typ": "JWT", "alg": "ed25519-nkey"});
    let claims = json!({
        "jti": format!("{}-{issued}", subject.public_key()),
        "iat": issued,
        "iss": issuer.public_key(),
        "name": name,
        "sub": subject.public_key(),
        "nats": nats,
    });
    let signed = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let signature = issuer.sign(signed.as_bytes()).expect("the issuer signs");
    format!("{signed}.{}", URL_SAFE_NO_PAD.encode(signature))
}
