//! `bench-tool-search`: how well tool search serves a model over the configured servers' real
//! tools. For each labelled request (a JSON line `{"request": "...", "expected":
//! ["server/tool", ...]}`) it ranks the tools as the chat's `search_tools` does and prints where
//! the expected tool came; then what one turn's definitions cost with every tool offered and with
//! search (the search tool and the tools one search adds), counted as the chat's meter counts.

use std::path::Path;
use std::process::ExitCode;

use serde::Deserialize;
use serde_json::json;
use switchboard_core::app::{OfferedTool, SEARCH_LIMIT, ToolIndex, search_tool_definition, tokens};
use switchboard_core::{Error, ErrorCode, Result};

/// How many of the first hits count for recall.
const RECALL_AT: usize = 5;

/// One labelled request.
#[derive(Deserialize)]
struct Labelled {
    request: String,
    /// `server/tool` names any of which answers the request.
    expected: Vec<String>,
}

/// Prints one line per request and a summary line; fails if no tool or no request was there.
pub fn run(tools: &[OfferedTool], requests: &Path, model: &str) -> Result<ExitCode> {
    let labelled = read_requests(requests)?;
    if tools.is_empty() || labelled.is_empty() {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            "nothing to measure: no server answered with tools, or the file holds no request",
        ));
    }
    let tokenizer = tokens::tokenizer_for(model);
    let counted = tokens::tool_tokens(tokenizer, tools);
    let cost = |server: &str, tool: &str| {
        counted
            .iter()
            .find(|t| t.server == server && t.tool == tool)
            .map_or(0, |t| t.tokens)
    };
    let every_tool: u64 = counted.iter().map(|t| t.tokens).sum();
    let search_tool = tokens::count(tokenizer, &search_tool_definition(tools.len()).to_string());
    let index = ToolIndex::new(tools);
    let (mut found, mut with_search) = (0usize, 0u64);
    for l in &labelled {
        let hits = index.search(&l.request, SEARCH_LIMIT.max(RECALL_AT));
        let names: Vec<String> = hits
            .iter()
            .map(|h| format!("{}/{}", h.server, h.tool))
            .collect();
        let rank = names.iter().position(|n| l.expected.contains(n));
        found += usize::from(rank.is_some_and(|r| r < RECALL_AT));
        let added: u64 = hits
            .iter()
            .take(SEARCH_LIMIT)
            .map(|h| cost(&h.server, &h.tool))
            .sum();
        with_search += search_tool + added;
        crate::print_line(&json!({
            "request": l.request, "expected": l.expected, "found": names,
            "rank": rank.map(|r| r + 1), "turnTokens": search_tool + added,
        }))?;
    }
    let mean_with_search = with_search as f64 / labelled.len() as f64;
    let servers = {
        let mut s: Vec<&str> = tools.iter().map(|t| t.server.as_str()).collect();
        s.sort_unstable();
        s.dedup();
        s.len()
    };
    crate::print_line(&json!({
        "servers": servers,
        "tools": tools.len(),
        "requests": labelled.len(),
        "recallAt5": found as f64 / labelled.len() as f64,
        "tokenizer": tokenizer,
        "turnTokensEveryTool": every_tool,
        "turnTokensWithSearch": mean_with_search,
        "searchToolTokens": search_tool,
        "reduction": 1.0 - mean_with_search / every_tool.max(1) as f64,
    }))?;
    Ok(ExitCode::SUCCESS)
}

/// The labelled requests: one JSON object a line; blank lines and `#` comments are skipped.
fn read_requests(path: &Path) -> Result<Vec<Labelled>> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::new(
            ErrorCode::InvalidInput,
            format!("could not read {}: {e}", path.display()),
        )
    })?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| {
                Error::new(
                    ErrorCode::InvalidInput,
                    format!(
                        "{} line {}: not a labelled request: {e}",
                        path.display(),
                        i + 1
                    ),
                )
            })
        })
        .collect()
}
