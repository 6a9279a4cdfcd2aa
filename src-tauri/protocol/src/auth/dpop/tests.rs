use base64::Engine;
use ring::signature::{ECDSA_P256_SHA256_FIXED, UnparsedPublicKey};
use serde_json::Value;

use super::*;
use crate::secrets::MemoryStore;

/// A proof's header and claims, after checking its signature with the key its header names.
fn opened(proof: &str) -> (Value, Value) {
    let parts: Vec<&str> = proof.split('.').collect();
    assert_eq!(parts.len(), 3, "{proof}");
    let json = |p: &str| serde_json::from_slice::<Value>(&B64.decode(p).unwrap()).unwrap();
    let (header, claims) = (json(parts[0]), json(parts[1]));
    let coordinate = |c: &str| B64.decode(header["jwk"][c].as_str().unwrap()).unwrap();
    let point = [vec![4u8], coordinate("x"), coordinate("y")].concat();
    let signed = format!("{}.{}", parts[0], parts[1]);
    UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &point)
        .verify(signed.as_bytes(), &B64.decode(parts[2]).unwrap())
        .expect("the proof's signature verifies with the key its header names");
    (header, claims)
}

#[tokio::test]
async fn a_proof_is_a_signed_dpop_jwt_for_one_request() {
    let store: Arc<dyn SecretStore> = Arc::new(MemoryStore::default());
    let dpop = Dpop::stored_or_new(store, "https://mcp.example/mcp")
        .await
        .unwrap();
    let proof = dpop
        .proof(
            "POST",
            "https://mcp.example/mcp?x=1#f",
            Some("the-token"),
            Side::Resource,
        )
        .unwrap();
    let (header, claims) = opened(&proof);
    assert_eq!(header["typ"], "dpop+jwt");
    assert_eq!(header["alg"], "ES256");
    assert_eq!(header["jwk"]["kty"], "EC");
    assert!(
        header["jwk"].get("d").is_none(),
        "no private part: {header}"
    );
    assert_eq!(claims["htm"], "POST");
    assert_eq!(claims["htu"], "https://mcp.example/mcp");
    let ath = B64.encode(Sha256::digest(b"the-token"));
    assert_eq!(claims["ath"], ath);
    assert!(claims["iat"].as_u64().unwrap() > 1_700_000_000);
    assert!(claims.get("nonce").is_none());
    let again = opened(
        &dpop
            .proof("POST", "https://mcp.example/mcp", None, Side::Resource)
            .unwrap(),
    )
    .1;
    assert_ne!(claims["jti"], again["jti"], "a fresh id for every proof");
    assert!(again.get("ath").is_none());
}

#[tokio::test]
async fn the_key_is_kept_in_the_keychain_and_used_again() {
    let store: Arc<dyn SecretStore> = Arc::new(MemoryStore::default());
    let url = "https://mcp.example/mcp";
    assert!(Dpop::stored(store.clone(), url).await.unwrap().is_none());
    let made = Dpop::stored_or_new(store.clone(), url).await.unwrap();
    let found = Dpop::stored(store.clone(), url).await.unwrap().unwrap();
    assert_eq!(made.jwk, found.jwk);
    let again = Dpop::stored_or_new(store.clone(), url).await.unwrap();
    assert_eq!(
        made.jwk, again.jwk,
        "one key per server, not one per sign-in"
    );
    let other = Dpop::stored_or_new(store.clone(), "https://other.example/mcp")
        .await
        .unwrap();
    assert_ne!(made.jwk, other.jwk);
    Dpop::delete(store.clone(), url).await.unwrap();
    assert!(Dpop::stored(store, url).await.unwrap().is_none());
}

#[tokio::test]
async fn each_side_s_nonce_goes_into_that_side_s_proofs() {
    let store: Arc<dyn SecretStore> = Arc::new(MemoryStore::default());
    let dpop = Dpop::stored_or_new(store, "https://mcp.example/mcp")
        .await
        .unwrap();
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(DPOP_NONCE, "n-1".parse().unwrap());
    assert!(dpop.learn_nonce(Side::Resource, &headers));
    assert!(
        !dpop.learn_nonce(Side::Resource, &headers),
        "the same nonce is not new"
    );
    let url = "https://mcp.example/mcp";
    let resource = opened(&dpop.proof("POST", url, Some("t"), Side::Resource).unwrap()).1;
    assert_eq!(resource["nonce"], "n-1");
    let token = opened(&dpop.proof("POST", url, None, Side::TokenEndpoint).unwrap()).1;
    assert!(token.get("nonce").is_none());
    headers.insert(DPOP_NONCE, "x".repeat(MAX_NONCE + 1).parse().unwrap());
    assert!(
        !dpop.learn_nonce(Side::TokenEndpoint, &headers),
        "an oversized nonce is not kept"
    );
}

#[test]
fn a_challenge_names_the_dpop_scheme_or_not() {
    assert!(challenge_names_dpop(
        r#"DPoP resource_metadata="https://x/.well-known/y""#
    ));
    assert!(challenge_names_dpop(
        r#"Bearer realm="x", DPoP algs="ES256""#
    ));
    assert!(!challenge_names_dpop(
        r#"Bearer resource_metadata="https://dpop.example/""#
    ));
}
