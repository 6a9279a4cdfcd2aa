//! The token meter: what the tool definitions offered to the model cost, per tool, counted the
//! way the model's provider counts. OpenAI's models are counted exactly with their own
//! tokenizers (`o200k_base` for the GPT-4o generation and later, `cl100k_base` before), run
//! locally. Other families publish no local tokenizer: their counts are `cl100k_base`'s, marked
//! as an estimate (within about a tenth of what Anthropic's and Gemini's count-tokens endpoints
//! report for English JSON).

use std::sync::OnceLock;

use serde::Serialize;
use serde_json::{Value, json};
use tiktoken_rs::CoreBPE;
use ts_rs::TS;

use super::{OfferedTool, WithheldReason, WithheldTool};

/// The longest definition tokenized (bytes); longer ones are estimated at four bytes a token.
const MAX_TOKENIZED: usize = 64 * 1024;

/// How a model's tokens are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum Tokenizer {
    /// `o200k_base`: GPT-4o, GPT-4.1, GPT-5, o1 and later.
    O200kBase,
    /// `cl100k_base`: GPT-4, GPT-3.5.
    Cl100kBase,
    /// No local tokenizer for the model's family: `cl100k_base`'s count, as an estimate.
    Estimate,
}

/// One tool's definition, as the model is offered it, in tokens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct ToolTokens {
    pub server: String,
    pub tool: String,
    #[ts(type = "number")]
    pub tokens: u64,
}

/// What the tool definitions cost a model, for the window's meter.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TokenMeter {
    /// The model counted for, and how.
    pub model: String,
    pub tokenizer: Tokenizer,
    /// Every running server's tools.
    pub tools: Vec<ToolTokens>,
    /// What a chat turn would offer now (the tools switched on and approved; all of them in
    /// tokens, or the search tool's alone when the model would search).
    #[ts(type = "number")]
    pub offered: u64,
    /// The model's context window, where known.
    #[ts(type = "number | null")]
    pub context_window: Option<u64>,
    /// Above what share of the context window (percent) the definitions are too many.
    pub warn_percent: u8,
    /// Above how many tools the model searches for them instead of being offered them all.
    #[ts(type = "number")]
    pub search_above: usize,
    /// How many tools a chat turn would offer now (against `search_above`).
    #[ts(type = "number")]
    pub offered_tools: usize,
    /// Tools switched on that a turn holds back until the person approves them in a chat (never
    /// approved, or changed since).
    #[ts(type = "number")]
    pub to_review: usize,
    /// Tools switched on that a turn never offers: a deny rule covers them, or their names hide
    /// characters.
    #[ts(type = "number")]
    pub refused_tools: usize,
}

/// Of the tools a turn withholds, how many wait for the person's review in a chat (never
/// approved, or changed since) and how many it refuses (a deny rule, hidden characters).
pub fn held_back(withheld: &[WithheldTool]) -> (usize, usize) {
    let refused = withheld
        .iter()
        .filter(|w| {
            matches!(
                w.reason,
                WithheldReason::Denied | WithheldReason::HiddenCharacters
            )
        })
        .count();
    (withheld.len() - refused, refused)
}

/// The context window of `model`, where known: OpenAI's from tiktoken's table, Anthropic's and
/// Google's current families from their documentation.
pub fn context_window(model: &str) -> Option<u64> {
    let name = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    if tokenizer_for(&name) != Tokenizer::Estimate {
        return Some(tiktoken_rs::model::get_context_size(&name) as u64);
    }
    if name.starts_with("claude") {
        return Some(200_000);
    }
    if name.starts_with("gemini") {
        return Some(1_048_576);
    }
    None
}

/// The tokenizer for `model` (a provider's model name): OpenAI's own where the model is
/// OpenAI's (as tiktoken maps model names), else the estimate.
pub fn tokenizer_for(model: &str) -> Tokenizer {
    use tiktoken_rs::tokenizer::{Tokenizer as Known, get_tokenizer};
    let name = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    match get_tokenizer(&name) {
        Some(Known::O200kBase | Known::O200kHarmony) => Tokenizer::O200kBase,
        Some(Known::Cl100kBase) => Tokenizer::Cl100kBase,
        _ => Tokenizer::Estimate,
    }
}

/// How many tokens `text` is for `tokenizer`.
pub fn count(tokenizer: Tokenizer, text: &str) -> u64 {
    static O200K: OnceLock<Option<CoreBPE>> = OnceLock::new();
    static CL100K: OnceLock<Option<CoreBPE>> = OnceLock::new();
    let bpe = match tokenizer {
        Tokenizer::O200kBase => O200K.get_or_init(|| tiktoken_rs::o200k_base().ok()),
        _ => CL100K.get_or_init(|| tiktoken_rs::cl100k_base().ok()),
    };
    match bpe {
        Some(bpe) => bpe.encode_ordinary(text).len() as u64,
        // The tokenizers are built into the crate; were one to fail to load, a rough count.
        None => text.len().div_ceil(4) as u64,
    }
}

/// What each of `tools` costs when offered to a model counted by `tokenizer`: its name,
/// description and input schema as the request carries them.
pub fn tool_tokens(tokenizer: Tokenizer, tools: &[OfferedTool]) -> Vec<ToolTokens> {
    tools
        .iter()
        .map(|t| {
            let d = &t.definition;
            let offered = json!({
                "name": d.get("name").cloned().unwrap_or(Value::Null),
                "description": d.get("description").cloned().unwrap_or(Value::Null),
                "inputSchema": d.get("inputSchema").cloned().unwrap_or(Value::Null),
            });
            let text = offered.to_string();
            // A definition far larger than any real one is estimated, not tokenized: the
            // tokenizer's cost grows faster than the text, and a server could stall the meter.
            let tokens = if text.len() > MAX_TOKENIZED {
                text.len().div_ceil(4) as u64
            } else {
                count(tokenizer, &text)
            };
            ToolTokens {
                server: t.server.clone(),
                tool: d["name"].as_str().unwrap_or_default().to_owned(),
                tokens,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The meter's "offered all 0 tools" beside a list of tools said to be offered: tools not yet
    /// approved in a chat were counted nowhere.
    #[test]
    fn withheld_tools_are_told_apart_by_what_would_offer_them() {
        let held = |reason| WithheldTool {
            server: "s".into(),
            tool: "t".into(),
            reason,
        };
        let withheld = [
            held(WithheldReason::NotApproved),
            held(WithheldReason::Changed),
            held(WithheldReason::InstructionsNotApproved),
            held(WithheldReason::InstructionsChanged),
            held(WithheldReason::Denied),
            held(WithheldReason::HiddenCharacters),
        ];
        assert_eq!(held_back(&withheld), (4, 2));
        assert_eq!(held_back(&[]), (0, 0));
    }

    #[test]
    fn each_family_gets_its_tokenizer() {
        assert_eq!(tokenizer_for("gpt-4o-mini"), Tokenizer::O200kBase);
        assert_eq!(tokenizer_for("openai/gpt-5"), Tokenizer::O200kBase);
        assert_eq!(tokenizer_for("o3-mini"), Tokenizer::O200kBase);
        assert_eq!(tokenizer_for("gpt-4-turbo"), Tokenizer::Cl100kBase);
        assert_eq!(tokenizer_for("gpt-3.5-turbo"), Tokenizer::Cl100kBase);
        assert_eq!(tokenizer_for("claude-sonnet-4-5"), Tokenizer::Estimate);
        assert_eq!(tokenizer_for("gemini-2.5-pro"), Tokenizer::Estimate);
    }

    /// Fixed inputs against OpenAI's published encodings: the token ids of "hello world" in
    /// `cl100k_base`, and the cookbook's count for a long word in both.
    #[test]
    fn the_counts_match_the_tokenizers() {
        let bpe = tiktoken_rs::cl100k_base().unwrap();
        assert_eq!(bpe.encode_ordinary("hello world"), [15339, 1917]);
        assert_eq!(count(Tokenizer::Cl100kBase, "hello world"), 2);
        assert_eq!(
            count(Tokenizer::Cl100kBase, "antidisestablishmentarianism"),
            6
        );
        assert_eq!(
            count(Tokenizer::O200kBase, "antidisestablishmentarianism"),
            6
        );
        assert_eq!(count(Tokenizer::Estimate, "hello world"), 2);
        assert_eq!(count(Tokenizer::O200kBase, ""), 0);
    }

    #[test]
    fn context_windows_are_known_for_the_families_that_publish_them() {
        assert_eq!(context_window("gpt-4o-mini"), Some(128_000));
        assert_eq!(context_window("gpt-4.1"), Some(1_047_576));
        assert_eq!(context_window("claude-opus-4-1"), Some(200_000));
        assert_eq!(context_window("models/gemini-2.5-flash"), Some(1_048_576));
        assert_eq!(context_window("llama3.2"), None);
    }

    #[test]
    fn a_tool_costs_what_its_offered_definition_costs() {
        let tool = OfferedTool {
            server: "weather".into(),
            definition: json!({
                "name": "get_weather",
                "description": "Current weather for a city",
                "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
                "annotations": {"title": "not offered, not counted"},
            }),
            instructions: None,
        };
        let counted = tool_tokens(Tokenizer::O200kBase, std::slice::from_ref(&tool));
        let expected = count(
            Tokenizer::O200kBase,
            r#"{"name":"get_weather","description":"Current weather for a city","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}"#,
        );
        assert_eq!(counted[0].tokens, expected);
        assert_eq!(
            (counted[0].server.as_str(), counted[0].tool.as_str()),
            ("weather", "get_weather")
        );
    }
}
