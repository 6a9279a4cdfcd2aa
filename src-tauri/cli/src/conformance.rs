//! `switchboard-cli conformance URL`: the client under test for @modelcontextprotocol/conformance.
//! The suite names the scenario in MCP_CONFORMANCE_SCENARIO (and gives a pre-registered client in
//! MCP_CONFORMANCE_CONTEXT); each scenario exercises one behaviour through the same connection and
//! sign-in code the app uses. Only the person's step of signing in is stood in for: the suite's
//! authorization server approves at once, so its redirect is read instead of opening a browser.

use std::process::ExitCode;

use serde_json::{Value, json};
use switchboard_core::app::{Authorizer, MAX_AUTHORIZATIONS};
use switchboard_core::app::{OAuthClient, OAuthGrant, ServerConfig};
use switchboard_core::{Error, ErrorCode, Result};

use crate::Session;

/// The client ID metadata document the suite expects a client to identify itself with.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

pub async fn run(session: &Session, url: &str) -> Result<ExitCode> {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    tracing::info!(%scenario, "conformance run");
    let mut server = ServerConfig::remote(url, Default::default());
    server.oauth = Some(oauth_settings(&scenario, &context));
    let authorizer = Redirects::new()?;
    let mut authorizations = 0;
    loop {
        match exercise(session, &server, &scenario, &context).await {
            Ok(()) => return Ok(ExitCode::SUCCESS),
            // Signing in, or asking for the scopes a 403 names, a bounded number of times.
            Err(e) if e.challenge.is_some() && authorizations < MAX_AUTHORIZATIONS => {
                authorizations += 1;
                tracing::info!(authorizations, "{}", e.message);
                session
                    .app
                    .sign_in_with(
                        "conformance",
                        url,
                        e.challenge.as_deref(),
                        &server,
                        &authorizer,
                    )
                    .await?;
            }
            Err(e) => {
                return Err(Error::new(
                    e.code,
                    format!("scenario {scenario:?}: {}", e.message),
                ));
            }
        }
    }
}

/// The `oauth` settings a user would write for the scenario's server. The machine grants are the
/// extensions' own scenarios (the suite gives a pre-registered client's credentials to others too,
/// which sign in with a person), so the scenario's name chooses them, as a user's choice would.
/// Their secrets stand in the config as the suite gives them; a user's are `${secret:NAME}`.
fn oauth_settings(scenario: &str, context: &Value) -> OAuthClient {
    let text = |k: &str| context.get(k).and_then(Value::as_str).map(str::to_owned);
    let mut oauth = OAuthClient {
        client_id: text("client_id"),
        client_secret: text("client_secret"),
        client_metadata_url: Some(CLIENT_METADATA_URL.to_owned()),
        ..Default::default()
    };
    match scenario {
        "auth/client-credentials-basic" | "auth/client-credentials-jwt" => {
            oauth.grant = OAuthGrant::ClientCredentials;
            oauth.private_key = text("private_key_pem");
            oauth.signing_algorithm = text("signing_algorithm");
            oauth.client_metadata_url = None;
        }
        "auth/enterprise-managed-authorization" => {
            oauth.grant = OAuthGrant::EnterpriseManaged;
            oauth.assertion = text("idp_id_token");
            oauth.idp_issuer = text("idp_issuer");
            oauth.idp_token_endpoint = text("idp_token_endpoint");
            oauth.idp_client_id = text("idp_client_id");
            oauth.client_metadata_url = None;
        }
        "auth/wif-jwt-bearer" => {
            oauth.grant = OAuthGrant::JwtBearer;
            oauth.assertion = text("valid_jwt");
            oauth.client_metadata_url = None;
        }
        _ => {}
    }
    oauth
}

/// Connects, lists the tools and calls each (with the arguments the scenario's `toolCalls` give,
/// else made up from the schema); a tool's own failure is only logged, a failure to be let in
/// ends the attempt.
async fn exercise(
    session: &Session,
    server: &ServerConfig,
    scenario: &str,
    context: &Value,
) -> Result<()> {
    let live = session
        .connect("conformance", server.clone(), &[], None)
        .await?;
    let c = &live.connection;
    let result = async {
        if scenario.starts_with("sep-2640-client-") {
            return skills(c, scenario).await;
        }
        if c.summary().capabilities.get("tools").is_some() {
            let tools = c.list_tools().await?;
            if scenario == "json-schema-2020-12-preservation" {
                return echo_schema(c, &tools).await;
            }
            if scenario != "initialize" {
                let calls = given_calls(context).unwrap_or_else(|| {
                    tools
                        .iter()
                        .map(|t| (t.name.to_string(), tool_arguments(&t.input_schema)))
                        .collect()
                });
                for (name, args) in calls {
                    match c.call_tool(&name, Some(args)).await {
                        Err(e) if e.challenge.is_some() => return Err(e),
                        Err(e) => tracing::warn!(tool = %name, "{}", e.message),
                        Ok(_) => {}
                    }
                }
            }
        }
        Ok::<_, Error>(())
    }
    .await;
    live.shutdown().await;
    result
}

/// The Skills scenarios: the skills are listed (which reads no file); the `verify` ones then
/// load the first skill, as the person choosing it in the app would, and read its other files
/// only if its `SKILL.md` passed the checks.
async fn skills(c: &switchboard_core::app::Connection, scenario: &str) -> Result<()> {
    let listed = c.list_skills().await?;
    if !scenario.contains("verify") {
        return Ok(());
    }
    let Some(skill) = listed.first() else {
        return Ok(());
    };
    c.load_skill(skill).await?;
    for file in skill.files.iter().flatten().filter(|f| f.uri != skill.uri) {
        c.read_skill_file(skill, &file.uri).await?;
    }
    Ok(())
}

/// The scenario's own step: the input schema of its focal tool, as Switchboard keeps it, sent
/// back through its echo tool, so the suite sees which JSON Schema 2020-12 keywords survived.
async fn echo_schema(
    c: &switchboard_core::app::Connection,
    tools: &[rmcp::model::Tool],
) -> Result<()> {
    let focal = tools
        .iter()
        .find(|t| t.name == "json_schema_2020_12_tool")
        .ok_or_else(|| Error::new(ErrorCode::ToolNotFound, "the server lists no focal tool"))?;
    let schema = Value::Object((*focal.input_schema).clone());
    c.call_tool("json_schema_echo", Some(json!({ "schema": schema })))
        .await
        .map(drop)
}

/// The suite's authorization server redirects at once: the redirect is read, with no browser
/// and no listener (nothing ever connects to the redirect URI).
struct Redirects {
    http: reqwest::Client,
}

impl Redirects {
    const REDIRECT_URI: &str = "http://127.0.0.1:1/callback";

    fn new() -> Result<Self> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        Ok(Self { http })
    }
}

#[async_trait::async_trait]
impl Authorizer for Redirects {
    fn redirect_uri(&self) -> String {
        Self::REDIRECT_URI.to_owned()
    }

    async fn authorize(&self, authorization_url: &str) -> Result<String> {
        let failed = |why: String| Error::new(ErrorCode::AuthFailed, why);
        let response = self
            .http
            .get(authorization_url)
            .send()
            .await
            .map_err(|e| failed(format!("authorization endpoint: {e}")))?;
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        if !location.starts_with(Self::REDIRECT_URI) {
            return Err(failed(format!(
                "the authorization endpoint answered {} without redirecting back",
                response.status()
            )));
        }
        Ok(location.to_owned())
    }
}

/// The calls a scenario asks for in its context (`toolCalls`: name and arguments), if any.
fn given_calls(context: &Value) -> Option<Vec<(String, Value)>> {
    let calls = context.get("toolCalls")?.as_array()?;
    Some(
        calls
            .iter()
            .filter_map(|c| {
                let name = c.get("name")?.as_str()?.to_owned();
                let args = c.get("arguments").cloned().unwrap_or_else(|| json!({}));
                Some((name, args))
            })
            .collect(),
    )
}

/// Arguments for a tool from its input schema: defaults where given, else simple values by type.
fn tool_arguments(schema: &serde_json::Map<String, Value>) -> Value {
    let mut args = serde_json::Map::new();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (k, p) in props {
            let v = p.get("default").cloned().unwrap_or_else(|| {
                match p.get("type").and_then(Value::as_str) {
                    Some("number" | "integer") => Value::from(1),
                    Some("boolean") => Value::Bool(true),
                    Some("object") => Value::Object(Default::default()),
                    Some("array") => Value::Array(vec![]),
                    _ => Value::String("test".into()),
                }
            });
            args.insert(k.clone(), v);
        }
    }
    Value::Object(args)
}
