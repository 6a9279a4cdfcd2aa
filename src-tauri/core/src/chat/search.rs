//! Finding tools by what they do: Okapi BM25 over each tool's words, stemmed (Snowball), its
//! name (split at `_`, `-`, `.` and camelCase) counting three times and each of its words once
//! more past BM25's saturation, its title twice, its description, its arguments' names and its
//! server's name once; a request's words also look for general synonyms at half weight. Local and
//! deterministic: no model, no network. scripts/bench-tool-search.sh measures it on real servers.

use std::collections::HashMap;
use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};

use serde::Serialize;
use serde_json::Value;

use super::OfferedTool;

/// BM25's term-frequency saturation and length normalisation (the usual values).
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Words too common in tool descriptions to tell tools apart.
const STOP_WORDS: [&str; 32] = [
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "get", "in", "into", "is",
    "it", "its", "me", "my", "of", "on", "or", "that", "the", "this", "to", "tool", "use", "using",
    "was", "with", "you", "your",
];

/// Words people use for the same thing in tools' terms: a request's word also looks for the
/// others of its group, at half weight (a word the tool itself uses counts most). General
/// vocabulary of files, issues and services, not any one server's.
const SYNONYMS: [&[&str]; 14] = [
    &["create", "make", "new", "add"],
    &["delete", "remove", "forget", "erase", "drop"],
    &["directory", "folder"],
    &["search", "find", "look", "lookup"],
    &["read", "show", "view", "display"],
    &["edit", "change", "modify", "replace", "update"],
    &["issue", "bug", "ticket"],
    &["image", "picture", "photo"],
    &["memory", "remember", "recall", "knowledge"],
    &["navigate", "visit", "go", "browse"],
    &["elevation", "altitude", "height"],
    &["run", "execute"],
    &["download", "fetch", "retrieve"],
    &["repository", "repo"],
];

/// What a synonym's match weighs against the word itself.
const SYNONYM_WEIGHT: f64 = 0.5;

/// One tool found, best first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    pub server: String,
    pub tool: String,
    pub score: f64,
}

/// An index over a set of tools.
pub struct ToolIndex {
    docs: Vec<Doc>,
    /// In how many tools each term occurs.
    df: HashMap<String, usize>,
    average_len: f64,
}

struct Doc {
    server: String,
    tool: String,
    terms: HashMap<String, usize>,
    /// The words of its name, which say what it does most plainly.
    name: Vec<String>,
    len: usize,
}

impl ToolIndex {
    pub fn new(tools: &[OfferedTool]) -> Self {
        let docs: Vec<Doc> = tools.iter().map(doc).collect();
        let mut df = HashMap::new();
        for d in &docs {
            for term in d.terms.keys() {
                *df.entry(term.clone()).or_insert(0) += 1;
            }
        }
        let total: usize = docs.iter().map(|d| d.len).sum();
        let average_len = total as f64 / docs.len().max(1) as f64;
        Self {
            docs,
            df,
            average_len,
        }
    }

    /// The `limit` tools that best match `query`, best first (ties in the tools' order); only
    /// tools sharing a word with it.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        let asked = expanded(words(query));
        let n = self.docs.len() as f64;
        let mut hits: Vec<Hit> = self
            .docs
            .iter()
            .filter_map(|d| {
                let score: f64 = asked
                    .iter()
                    .filter_map(|(t, weight)| {
                        let tf = *d.terms.get(t)? as f64;
                        let df = *self.df.get(t)? as f64;
                        let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                        let norm = K1 * (1.0 - B + B * d.len as f64 / self.average_len.max(1.0));
                        // BM25 saturates a word's count, which flattens the name's weight: a
                        // word of the name scores its full weight once more.
                        let named = if d.name.contains(t) { 1.0 } else { 0.0 };
                        Some(weight * idf * (tf * (K1 + 1.0) / (tf + norm) + named))
                    })
                    .sum();
                (score > 0.0).then(|| Hit {
                    server: d.server.clone(),
                    tool: d.tool.clone(),
                    score,
                })
            })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
        hits.truncate(limit);
        hits
    }
}

/// The request's words (each once, at full weight), then their synonyms not asked already.
fn expanded(mut asked: Vec<String>) -> Vec<(String, f64)> {
    asked.sort();
    asked.dedup();
    // The groups as stems, made once.
    static GROUPS: LazyLock<Vec<Vec<String>>> = LazyLock::new(|| {
        SYNONYMS
            .iter()
            .map(|g| g.iter().flat_map(|w| words(w)).collect())
            .collect()
    });
    let mut out: Vec<(String, f64)> = asked.iter().map(|w| (w.clone(), 1.0)).collect();
    for group in GROUPS
        .iter()
        .filter(|g| g.iter().any(|w| asked.contains(w)))
    {
        for w in group {
            if !out.iter().any(|(o, _)| o == w) {
                out.push((w.clone(), SYNONYM_WEIGHT));
            }
        }
    }
    out
}

fn doc(t: &OfferedTool) -> Doc {
    let d = &t.definition;
    let text = |k: &str| d.get(k).and_then(Value::as_str).unwrap_or_default();
    let name = text("name");
    let title = d
        .get("annotations")
        .and_then(|a| a.get("title"))
        .and_then(Value::as_str)
        .unwrap_or(text("title"));
    let arguments: Vec<&str> = d
        .get("inputSchema")
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let mut terms: HashMap<String, usize> = HashMap::new();
    let mut len = 0;
    let name_words = words(name);
    let weighted = [
        (name_words.clone(), 3),
        (words(title), 2),
        (words(text("description")), 1),
        (words(&arguments.join(" ")), 1),
        // People name the service ("in Slack", "on GitHub"): the server's name is the tool's too.
        (words(&t.server), 1),
    ];
    for (list, weight) in weighted {
        for w in list {
            *terms.entry(w).or_insert(0) += weight;
            len += weight;
        }
    }
    Doc {
        server: t.server.clone(),
        tool: name.to_owned(),
        terms,
        name: name_words,
        len,
    }
}

/// The words of `text`: split at anything not a letter or digit and at camelCase humps,
/// lowercased, stop words and single letters left out, each stemmed.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in text.chars() {
        let hump = c.is_uppercase() && previous_lower;
        if !c.is_alphanumeric() || hump {
            push_word(&mut out, std::mem::take(&mut current));
        }
        if c.is_alphanumeric() {
            current.extend(c.to_lowercase());
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    push_word(&mut out, current);
    out
}

fn push_word(out: &mut Vec<String>, word: String) {
    if word.chars().count() < 2 || STOP_WORDS.contains(&word.as_str()) {
        return;
    }
    // Snowball's English stemmer: "files", "filed" and "filing" are one word to the search.
    static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));
    out.push(STEMMER.stem(&word).into_owned());
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tool(server: &str, name: &str, description: &str, args: &[&str]) -> OfferedTool {
        let properties: serde_json::Map<String, Value> = args
            .iter()
            .map(|a| (a.to_string(), json!({"type": "string"})))
            .collect();
        OfferedTool {
            server: server.into(),
            definition: json!({
                "name": name,
                "description": description,
                "inputSchema": {"type": "object", "properties": properties},
            }),
            instructions: None,
        }
    }

    #[test]
    fn words_split_names_and_drop_noise() {
        assert_eq!(words("readFile"), ["read", "file"]);
        assert_eq!(words("list_pull_requests"), ["list", "pull", "request"]);
        assert_eq!(words("Get the weather, for a city!"), ["weather", "citi"]);
        assert_eq!(words("HTTPServer v2"), ["httpserver", "v2"]);
        assert_eq!(words("issues class"), ["issu", "class"]);
        // One stem for a word's forms.
        assert_eq!(words("staging staged stages"), ["stage", "stage", "stage"]);
    }

    #[test]
    fn a_synonym_finds_a_tool_that_words_it_otherwise_and_counts_less() {
        let tools = [
            tool(
                "fs",
                "create_directory",
                "Create a new directory",
                &["path"],
            ),
            tool("fs", "list_folder", "Lists a folder", &["path"]),
        ];
        let index = ToolIndex::new(&tools);
        // "make a folder" is create_directory's in other words.
        assert_eq!(index.search("make a folder", 1)[0].tool, "create_directory");
        // A word the tool uses itself outweighs a synonym it uses.
        let hits = index.search("folder", 2);
        assert_eq!(hits.len(), 2, "{hits:?}");
        assert_eq!(hits[0].tool, "list_folder");
        assert!(hits[1].score < hits[0].score / 1.5, "{hits:?}");
    }

    #[test]
    fn the_server_and_the_tools_name_say_most() {
        let tools = [
            tool(
                "mongodb",
                "list-collections",
                "List all collections for a given database",
                &["database"],
            ),
            tool(
                "mongodb",
                "count",
                "Count documents in a MongoDB collection of a database",
                &["database", "collection"],
            ),
            // The same tool on two servers, the one not named first.
            tool(
                "chat",
                "post_message",
                "Post a new message to a channel",
                &["channel"],
            ),
            tool(
                "slack",
                "post_message",
                "Post a new message to a channel",
                &["channel"],
            ),
        ];
        let index = ToolIndex::new(&tools);
        // The name's words weigh more than arguments and descriptions that repeat them.
        assert_eq!(
            index.search("list the collections in the MongoDB database", 1)[0].tool,
            "list-collections"
        );
        // Naming the service picks its server's tool.
        assert_eq!(
            index.search("post a message in Slack", 1)[0].server,
            "slack"
        );
    }

    #[test]
    fn the_best_matching_tool_comes_first() {
        let tools = [
            tool(
                "fs",
                "read_file",
                "Read the complete contents of a file",
                &["path"],
            ),
            tool(
                "fs",
                "write_file",
                "Create or overwrite a file",
                &["path", "content"],
            ),
            tool(
                "github",
                "create_issue",
                "Open a new issue in a repository",
                &["repo", "title"],
            ),
            tool(
                "weather",
                "get_forecast",
                "The weather forecast for a city",
                &["city"],
            ),
        ];
        let index = ToolIndex::new(&tools);
        let top = |q: &str| index.search(q, 1)[0].tool.clone();
        assert_eq!(top("open an issue on my repo"), "create_issue");
        assert_eq!(top("what will the weather be in Paris"), "get_forecast");
        assert_eq!(top("read a file's contents"), "read_file");
        assert_eq!(top("overwrite file"), "write_file");
        assert!(index.search("zebra", 5).is_empty());
        assert_eq!(index.search("file", 5).len(), 2);
        assert_eq!(index.search("file", 1).len(), 1);
    }
}
