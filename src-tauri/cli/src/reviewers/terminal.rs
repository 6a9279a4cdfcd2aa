//! `--approve ask`: each review shown on the terminal (stderr), answered on stdin, one at a time.
//! Requests and completions can be edited as JSON in `$VISUAL`/`$EDITOR`; forms are filled field
//! by field. Hidden characters are shown visibly. End of input cancels.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use futures::future::BoxFuture;
use serde_json::{Map, Value};
use switchboard_core::app::reveal_json;
use switchboard_core::app::{Review, ReviewKind, Reviewer, Verdict};
use tokio::sync::Mutex;

/// Asks on stderr/stdin; the queue keeps reviews from interleaving.
#[derive(Default)]
pub struct Terminal {
    queue: Arc<Mutex<()>>,
}

/// Prints `question` to stderr and reads one line from stdin (`None` at end of input).
pub fn prompt_line(question: &str) -> Option<String> {
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "{question}");
    let _ = err.flush();
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim_end_matches(['\r', '\n']).to_owned()),
    }
}

async fn ask(question: String) -> Option<String> {
    tokio::task::spawn_blocking(move || prompt_line(&question))
        .await
        .ok()
        .flatten()
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(&reveal_json(v)).unwrap_or_default()
}

impl Reviewer for Terminal {
    fn review(&self, review: Review) -> BoxFuture<'static, Verdict> {
        let queue = self.queue.clone();
        Box::pin(async move {
            let _turn = queue.lock().await;
            if review.hidden_characters {
                eprintln!("\n⚠ This contains hidden characters; they are shown as ⟨U+XXXX⟩ or ␛.");
            }
            match review.kind {
                ReviewKind::Elicitation => elicit(&review).await,
                _ => edit_or_decide(&review).await,
            }
        })
    }

    fn streamed(&self, _flow: &str, text: &str) {
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "{}", switchboard_core::app::reveal(text));
        let _ = err.flush();
    }
}

fn heading(review: &Review) -> String {
    let server = &review.server;
    let c = &review.content;
    match review.kind {
        ReviewKind::SamplingRequest => format!(
            "Server {server:?} asks to sample an LLM (provider {}, model {}). The request:",
            c["provider"], c["model"]
        ),
        ReviewKind::SamplingCompletion => format!(
            "\nThe answer for server {server:?} (provider {}, model {}), before it goes back:",
            review.context["provider"], review.context["model"]
        ),
        ReviewKind::ToolCall if review.context["from"] == "view" => format!(
            "A view of server {server:?} wants to call {} with:",
            c["tool"]
        ),
        ReviewKind::ToolCall => format!(
            "The model wants to call {} on server {server:?} with:",
            c["tool"]
        ),
        ReviewKind::OpenLink => format!("A view of server {server:?} wants to open this link:"),
        ReviewKind::Elicitation => format!("Server {server:?} asks you:"),
    }
}

/// Sampling requests, completions and tool calls: approve, edit (then decide again), or deny.
async fn edit_or_decide(review: &Review) -> Verdict {
    let mut content = review.content.clone();
    eprintln!("\n{}\n{}", heading(review), pretty(&content));
    loop {
        let Some(answer) = ask("[a]pprove, [e]dit in $EDITOR, [d]eny? ".into()).await else {
            return Verdict::Cancel;
        };
        match answer.trim().to_ascii_lowercase().as_str() {
            "a" | "y" | "approve" | "yes" => {
                return Verdict::Approve {
                    content,
                    remember: None,
                };
            }
            "d" | "n" | "deny" | "no" => return Verdict::Deny,
            "e" | "edit" => match edit(&content).await {
                Ok(edited) => {
                    content = edited;
                    eprintln!("Edited:\n{}", pretty(&content));
                }
                Err(e) => eprintln!("The edit was not applied: {e}"),
            },
            _ => eprintln!("Answer a, e or d."),
        }
    }
}

static EDITS: AtomicU64 = AtomicU64::new(0);

/// Opens `content` as JSON in the user's editor and returns what they saved.
async fn edit(content: &Value) -> Result<Value, String> {
    let text = serde_json::to_string_pretty(content).map_err(|e| e.to_string())?;
    let path = std::env::temp_dir().join(format!(
        "switchboard-review-{}-{}.json",
        std::process::id(),
        EDITS.fetch_add(1, Ordering::Relaxed)
    ));
    write_private(&path, &text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let editor_path = path.clone();
    let edited = tokio::task::spawn_blocking(move || run_editor(&editor_path))
        .await
        .map_err(|e| e.to_string())
        .and_then(|r| r);
    let read = edited.and_then(|()| {
        std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    });
    let _ = std::fs::remove_file(&path);
    serde_json::from_str(&read?).map_err(|e| format!("not valid JSON: {e}"))
}

/// Creates `path` readable only by the user: prompts and answers may be private.
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)?.write_all(text.as_bytes())
}

fn run_editor(path: &PathBuf) -> Result<(), String> {
    let editor = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .unwrap_or_else(|_| "vi".to_owned());
    let words = shell_words::split(&editor).map_err(|e| format!("$EDITOR {editor:?}: {e}"))?;
    let (program, args) = words
        .split_first()
        .ok_or_else(|| "$EDITOR is empty".to_owned())?;
    let status = std::process::Command::new(program)
        .args(args)
        .arg(path)
        .status()
        .map_err(|e| format!("cannot run {program:?}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{program} exited with {status}"))
    }
}

/// Elicitation: a URL to open (only with consent), or a form filled field by field.
async fn elicit(review: &Review) -> Verdict {
    let c = &review.content;
    let message = c["message"].as_str().unwrap_or("");
    eprintln!(
        "\n{} {}",
        heading(review),
        switchboard_core::app::reveal(message)
    );
    if let Some(url) = c.get("url").and_then(Value::as_str) {
        eprintln!(
            "It wants you to open this page: {}",
            switchboard_core::app::reveal(url)
        );
        let answer = ask("Open it yourself and accept? [y/N] ".into()).await;
        return if answer.is_some_and(|a| a.trim().eq_ignore_ascii_case("y")) {
            Verdict::Approve {
                content: c.clone(),
                remember: None,
            }
        } else {
            Verdict::Deny
        };
    }
    if let Some(error) = c["error"].as_str() {
        eprintln!("Those values were not accepted: {error}");
    }
    let mut values: Map<String, Value> = c["values"].as_object().cloned().unwrap_or_default();
    let schema = &c["requestedSchema"];
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(props) = schema["properties"].as_object() {
        for (key, prop) in props {
            let current = values
                .get(key)
                .map(|d| format!(" [{d}]"))
                .unwrap_or_default();
            let title = prop["title"].as_str().unwrap_or(key);
            let mark = if required.contains(&key.as_str()) {
                "*"
            } else {
                ""
            };
            let choices = switchboard_core::app::elicitation_choices(prop)
                .map(|c| {
                    let shown: Vec<String> = c.iter().map(Value::to_string).collect();
                    format!(" ({})", shown.join(", "))
                })
                .unwrap_or_default();
            let Some(answer) = ask(format!("{title}{mark}{choices}{current}: ")).await else {
                return Verdict::Cancel;
            };
            if answer.is_empty() {
                continue;
            }
            values.insert(key.clone(), parse_field(prop, answer));
        }
    }
    let send = ask("Send this answer? [Y]es, [n]o (decline), [c]ancel ".into()).await;
    match send.map(|s| s.trim().to_ascii_lowercase()).as_deref() {
        Some("n" | "no") => Verdict::Deny,
        Some("c" | "cancel") | None => Verdict::Cancel,
        _ => {
            let mut content = c.clone();
            content["values"] = Value::Object(values);
            Verdict::Approve {
                content,
                remember: None,
            }
        }
    }
}

/// A typed answer: booleans from y/yes/true, numbers and arrays as JSON, anything else as text
/// (validation against the schema happens in the door).
fn parse_field(prop: &Value, answer: String) -> Value {
    match prop["type"].as_str() {
        Some("boolean") => Value::Bool(matches!(
            answer.trim().to_ascii_lowercase().as_str(),
            "y" | "yes" | "true"
        )),
        Some("number" | "integer") => {
            serde_json::from_str(answer.trim()).unwrap_or(Value::String(answer))
        }
        Some("array") => serde_json::from_str(&answer).unwrap_or_else(|_| {
            Value::Array(
                answer
                    .split(',')
                    .map(|s| Value::String(s.trim().to_owned()))
                    .collect(),
            )
        }),
        _ => Value::String(answer),
    }
}
