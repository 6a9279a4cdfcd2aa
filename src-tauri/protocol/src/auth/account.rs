//! What the person can be shown about a sign-in: where it was made, for which scopes, and as
//! whom when the authorization server said (an OpenID `id_token` in the token response).

use base64::Engine;
use rmcp::transport::auth::StoredCredentials;
use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

/// A sign-in as the person sees it; never a token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SignInInfo {
    /// The authorization server that minted the tokens.
    pub issuer: Option<String>,
    /// Who signed in, when the authorization server said (e-mail, user name, name or subject).
    pub account: Option<String>,
    /// The scopes granted.
    pub scopes: Vec<String>,
}

impl SignInInfo {
    /// What `stored` tells about its sign-in.
    pub fn of(stored: &StoredCredentials) -> Self {
        // The token response as its JSON (rmcp keeps oauth2's type, whose accessors are
        // behind a trait of a crate it does not re-export).
        let response = stored
            .token_response
            .as_ref()
            .and_then(|t| serde_json::to_value(t).ok())
            .unwrap_or_default();
        let granted = response
            .get("scope")
            .and_then(Value::as_str)
            .map(|s| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
            .filter(|s| !s.is_empty());
        Self {
            issuer: stored.issuer.clone(),
            account: response
                .get("id_token")
                .and_then(Value::as_str)
                .and_then(account),
            scopes: granted.unwrap_or_else(|| stored.granted_scopes.clone()),
        }
    }
}

/// The account an OpenID `id_token` names. Its signature is not checked: this is only shown to
/// the person, never trusted for a decision.
fn account(id_token: &str) -> Option<String> {
    let payload = id_token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    let claims: Value = serde_json::from_slice(&bytes).ok()?;
    ["email", "preferred_username", "name", "sub"]
        .iter()
        .find_map(|claim| claims.get(claim)?.as_str().map(str::to_owned))
        .map(|who| crate::visible::reveal(&who).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jwt(claims: &str) -> String {
        let b64 = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
        format!("{}.{}.sig", b64(r#"{"alg":"RS256"}"#), b64(claims))
    }

    #[test]
    fn the_account_is_the_most_readable_claim_of_the_id_token() {
        assert_eq!(
            account(&jwt(
                r#"{"sub":"u-1","email":"ada@example.com","name":"Ada"}"#
            ))
            .as_deref(),
            Some("ada@example.com")
        );
        assert_eq!(account(&jwt(r#"{"sub":"u-1"}"#)).as_deref(), Some("u-1"));
        assert_eq!(account("not a jwt"), None);
        assert_eq!(account(&jwt("[1,2]")), None);
    }

    #[test]
    fn hidden_characters_in_the_account_are_shown() {
        let shown = account(&jwt(r#"{"email":"ada\u202e@example.com"}"#)).unwrap();
        assert!(!shown.contains('\u{202e}'), "{shown:?}");
    }

    #[test]
    fn scopes_come_from_the_token_response_else_from_what_was_asked() {
        let stored: StoredCredentials = serde_json::from_value(serde_json::json!({
            "client_id": "c",
            "token_response": {
                "access_token": "t", "token_type": "bearer", "scope": "mcp:tools mcp:admin",
                "id_token": jwt(r#"{"preferred_username":"ada"}"#)
            },
            "granted_scopes": ["mcp:tools"],
            "issuer": "https://auth.example"
        }))
        .unwrap();
        let info = SignInInfo::of(&stored);
        assert_eq!(info.scopes, ["mcp:tools", "mcp:admin"]);
        assert_eq!(info.account.as_deref(), Some("ada"));
        assert_eq!(info.issuer.as_deref(), Some("https://auth.example"));
    }
}
