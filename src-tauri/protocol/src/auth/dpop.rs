//! DPoP (RFC 9449): tokens bound to a key of Switchboard's own, so a token that leaks is useless
//! without the key. One P-256 key per server URL, kept in the keychain beside the tokens and made
//! at the first sign-in that binds tokens. Every token request ([`token_requests`]) and every
//! request to the server ([`resource_requests`]) carries a fresh proof signed with it: a JWT
//! naming the method and URL, the time, a unique id and, towards the server, the token's hash.
//! Either side may ask for a nonce of its choosing in the proofs (`use_dpop_nonce`); the nonce
//! each gave last is kept and the refused request sent once more.

mod addresses;
pub mod resource_requests;
pub mod token_requests;

use std::sync::{Arc, Mutex};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorCode, Result};
use crate::secrets::SecretStore;
use crate::store::off_thread;

/// The header a proof travels in, and the one a server's nonce comes back in.
pub const DPOP: &str = "DPoP";
pub const DPOP_NONCE: &str = "DPoP-Nonce";

/// The longest nonce kept from a server: it goes back in every proof.
const MAX_NONCE: usize = 512;

/// The keychain entry name for the key the tokens of the server at `url` are bound to.
pub fn entry_name(url: &str) -> String {
    format!("dpop:{url}")
}

/// Whether a `WWW-Authenticate` challenge names the DPoP scheme: the server takes DPoP-bound
/// tokens, so signing in binds them.
pub fn challenge_names_dpop(challenge: &str) -> bool {
    challenge
        .split(',')
        .filter_map(|part| part.split_whitespace().next())
        .any(|scheme| scheme.eq_ignore_ascii_case("dpop"))
}

/// Whether an error answer (a challenge or a token endpoint's JSON) asks for a nonce.
pub fn asks_for_nonce(answer: &str) -> bool {
    answer.contains("use_dpop_nonce")
}

/// One server's key, with the nonces its authorization server and the server itself gave last.
pub struct Dpop {
    key: EcdsaKeyPair,
    /// The public key as a JWK (`kty`, `crv`, `x`, `y`).
    jwk: serde_json::Value,
    rng: SystemRandom,
    token_nonce: Mutex<Option<String>>,
    resource_nonce: Mutex<Option<String>>,
}

impl std::fmt::Debug for Dpop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The private key never reaches a log line.
        f.debug_struct("Dpop").field("jwk", &self.jwk).finish()
    }
}

/// Which side a nonce is for.
#[derive(Debug, Clone, Copy)]
pub enum Side {
    TokenEndpoint,
    Resource,
}

impl Dpop {
    /// The key the keychain holds for `url`, if any.
    pub async fn stored(store: Arc<dyn SecretStore>, url: &str) -> Result<Option<Arc<Self>>> {
        let name = entry_name(url);
        let text = off_thread(move || store.find(&name)).await?;
        text.map(|t| Self::from_stored(&t).map(Arc::new))
            .transpose()
    }

    /// The key the keychain holds for `url`, or a new one written there.
    pub async fn stored_or_new(store: Arc<dyn SecretStore>, url: &str) -> Result<Arc<Self>> {
        if let Some(found) = Self::stored(store.clone(), url).await? {
            return Ok(found);
        }
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .map_err(|_| unusable("no key could be made"))?;
        let text = B64.encode(pkcs8.as_ref());
        let made = Self::from_stored(&text)?;
        let name = entry_name(url);
        off_thread(move || store.set(&name, &text)).await?;
        Ok(Arc::new(made))
    }

    /// Deletes the key kept for `url`.
    pub async fn delete(store: Arc<dyn SecretStore>, url: &str) -> Result<()> {
        let name = entry_name(url);
        off_thread(move || store.delete(&name)).await
    }

    fn from_stored(text: &str) -> Result<Self> {
        let pkcs8 = B64
            .decode(text.trim())
            .map_err(|_| unusable("the keychain's entry is not a key"))?;
        let rng = SystemRandom::new();
        let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &pkcs8, &rng)
            .map_err(|_| unusable("the keychain's entry is not a P-256 key"))?;
        // An uncompressed point: 0x04, then x and y, 32 bytes each.
        let point = key.public_key().as_ref();
        let jwk = json!({
            "kty": "EC",
            "crv": "P-256",
            "x": B64.encode(&point[1..33]),
            "y": B64.encode(&point[33..65]),
        });
        Ok(Self {
            key,
            jwk,
            rng,
            token_nonce: Mutex::default(),
            resource_nonce: Mutex::default(),
        })
    }

    /// A fresh proof for a `method` request to `url`, with the hash of `token` when it presents
    /// one, and the nonce `side` gave last.
    pub fn proof(
        &self,
        method: &str,
        url: &str,
        token: Option<&str>,
        side: Side,
    ) -> Result<String> {
        let header = json!({ "typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk });
        let mut claims = json!({
            "jti": B64.encode(rand::random::<[u8; 16]>()),
            "htm": method,
            "htu": target_uri(url),
            "iat": std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or_default(),
        });
        if let Some(token) = token {
            claims["ath"] = B64.encode(Sha256::digest(token.as_bytes())).into();
        }
        if let Some(nonce) = self.nonce(side) {
            claims["nonce"] = nonce.into();
        }
        let signed = format!(
            "{}.{}",
            B64.encode(header.to_string()),
            B64.encode(claims.to_string())
        );
        let signature = self
            .key
            .sign(&self.rng, signed.as_bytes())
            .map_err(|_| unusable("the proof could not be signed"))?;
        Ok(format!("{signed}.{}", B64.encode(signature.as_ref())))
    }

    fn slot(&self, side: Side) -> &Mutex<Option<String>> {
        match side {
            Side::TokenEndpoint => &self.token_nonce,
            Side::Resource => &self.resource_nonce,
        }
    }

    fn nonce(&self, side: Side) -> Option<String> {
        // Only ever held for a copy or a swap: a poisoned lock holds no broken state.
        let slot = self.slot(side).lock();
        slot.unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Keeps the nonce in `headers`, if they carry a usable one; whether they did and it is new.
    pub fn learn_nonce(&self, side: Side, headers: &reqwest::header::HeaderMap) -> bool {
        let Some(given) = headers
            .get(DPOP_NONCE)
            .and_then(|v| v.to_str().ok())
            .filter(|n| !n.is_empty() && n.len() <= MAX_NONCE)
        else {
            return false;
        };
        let mut slot = self.slot(side).lock().unwrap_or_else(|p| p.into_inner());
        let new = slot.as_deref() != Some(given);
        *slot = Some(given.to_owned());
        new
    }
}

/// `url` without its query and fragment, as a proof names it (RFC 9449 §4.2).
fn target_uri(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            u.set_query(None);
            u.set_fragment(None);
            u.to_string()
        }
        Err(_) => url.split(['?', '#']).next().unwrap_or(url).to_owned(),
    }
}

fn unusable(why: &str) -> Error {
    Error::new(
        ErrorCode::AuthFailed,
        format!("signing in failed: the key tokens are bound to is unusable: {why}"),
    )
}

#[cfg(test)]
mod tests;
