//! The app's requests about models and the chat: providers and their keys, conversations, and
//! turns (at most one per conversation, stoppable).

use super::App;
use super::requests::{
    ContextLimits, ConversationId, NewConversation, NoArgs, ProviderId, SaveProvider, SendMessage,
    SetNewToolsEnabled, SetToolEnabled, TokensFor, ToolSetName,
};
use crate::approvals::policy::{PolicyKind, Rule};
use crate::chat::tokens::{self, TokenMeter};
use crate::chat::{
    BroadcastTurn, Conversation, ConversationView, OfferedTool, ToolSource, WithheldTool, accepted,
    chosen, run_turn,
};
use crate::error::{Error, ErrorCode, Result};
use crate::events::ChatEvent;
use crate::providers::settings::ProviderSettings;
use crate::store::off_thread;
use crate::tool_switches::{ToolSet, ToolSwitchesView};

/// Above what share of the model's context window (percent) the tool definitions are flagged,
/// unless the configuration says otherwise (`toolTokensWarnPercent`).
pub const DEFAULT_WARN_PERCENT: u8 = 10;

impl App {
    /// The running servers' tools a chat turn would not offer the model now, and why: decided
    /// as the turn decides ([`accepted`]), so the chat can say so before its first message.
    pub async fn withheld_tools(&self, _: NoArgs) -> Result<Vec<WithheldTool>> {
        let offered = ToolSource::tools(&self.0.host);
        let (pins, policies) = (self.0.door.pins().clone(), self.0.door.policies().clone());
        let switches = self.0.chats.switches().clone();
        let (_, withheld) =
            off_thread(move || accepted(&pins, &policies, chosen(&switches, None, offered)?))
                .await?;
        Ok(withheld)
    }

    /// Of `tools`, those the person chose for the model (switched on; a tool seen for the first
    /// time gets its server's choice for new tools), and not covered by a "deny" rule.
    pub async fn tools_for_model(&self, tools: Vec<OfferedTool>) -> Result<Vec<OfferedTool>> {
        let switches = self.0.chats.switches().clone();
        let policies = self.0.door.policies().clone();
        off_thread(move || {
            let kept = chosen(&switches, None, tools)?;
            let mut allowed = Vec::with_capacity(kept.len());
            for t in kept {
                let name = t.definition["name"].as_str().unwrap_or_default().to_owned();
                if policies.rule(&t.server, PolicyKind::ToolCall, Some(&name))? != Rule::Deny {
                    allowed.push(t);
                }
            }
            Ok(allowed)
        })
        .await
    }

    /// What the running servers' tool definitions cost `args.model` (else the first model of
    /// the first provider) in tokens, and what a chat turn would offer of them now.
    pub async fn tool_tokens(&self, args: TokensFor) -> Result<TokenMeter> {
        let model = match args.model {
            Some(m) => m,
            None => self
                .default_model()
                .await
                .unwrap_or_else(|| "gpt-4o".to_owned()),
        };
        let all = ToolSource::tools(&self.0.host);
        let (pins, policies) = (self.0.door.pins().clone(), self.0.door.policies().clone());
        let switches = self.0.chats.switches().clone();
        let (candidates, sets) = (all.clone(), args.tool_sets);
        let (offered, withheld) = off_thread(move || {
            let sets = sets.map(|names| switches.members(&names)).transpose()?;
            accepted(
                &pins,
                &policies,
                chosen(&switches, sets.as_ref(), candidates)?,
            )
        })
        .await?;
        let tokenizer = tokens::tokenizer_for(&model);
        let search_above = ToolSource::search_above(&self.0.host);
        // Tokenizing is CPU work on text the servers wrote: off the runtime.
        let offered_tools = offered.len();
        let (to_review, refused_tools) = tokens::held_back(&withheld);
        let (offered_tokens, counted) = off_thread(move || {
            // Every tool is counted once; what a turn offers is a part of them.
            let counted = tokens::tool_tokens(tokenizer, &all);
            let offered_tokens: u64 = if offered.len() > search_above {
                let search = crate::chat::search_tool_definition(offered.len());
                tokens::count(tokenizer, &search.to_string())
            } else {
                let is_offered = |t: &tokens::ToolTokens| {
                    offered.iter().any(|o| {
                        o.server == t.server && o.definition["name"].as_str() == Some(&t.tool)
                    })
                };
                counted
                    .iter()
                    .filter(|t| is_offered(t))
                    .map(|t| t.tokens)
                    .sum()
            };
            Ok((offered_tokens, counted))
        })
        .await?;
        let config = self.0.host.config()?;
        Ok(TokenMeter {
            tools: counted,
            offered: offered_tokens,
            context_window: tokens::context_window(&model),
            warn_percent: config
                .tool_tokens_warn_percent
                .unwrap_or(DEFAULT_WARN_PERCENT),
            search_above,
            offered_tools,
            to_review,
            refused_tools,
            tokenizer,
            model,
        })
    }

    async fn default_model(&self) -> Option<String> {
        let providers = self.list_providers(NoArgs {}).await.ok()?;
        providers
            .into_iter()
            .find_map(|p| p.models.into_iter().next().map(|m| m.model))
    }

    /// Which tools are switched off for the model, which servers' new tools start off, and the
    /// tool sets.
    pub async fn tool_switches(&self, _: NoArgs) -> Result<ToolSwitchesView> {
        let switches = self.0.chats.switches().clone();
        off_thread(move || switches.view()).await
    }

    /// Switches a tool on or off for the model (off, it stays yours to call).
    pub async fn set_tool_enabled(&self, args: SetToolEnabled) -> Result<()> {
        let switches = self.0.chats.switches().clone();
        off_thread(move || switches.set(&args.server, &args.tool, args.enabled)).await
    }

    /// Whether a server's tools not seen yet start on or off for the model.
    pub async fn set_new_tools_enabled(&self, args: SetNewToolsEnabled) -> Result<()> {
        let switches = self.0.chats.switches().clone();
        off_thread(move || switches.set_new_tools(&args.server, args.enabled)).await
    }

    /// Sets when the model searches for tools and when the meter warns, in the configuration
    /// file (an absent value: the default, its key removed).
    pub async fn set_context_limits(&self, args: ContextLimits) -> Result<()> {
        if args
            .tool_tokens_warn_percent
            .is_some_and(|p| !(1..=100).contains(&p))
        {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "The warning share must be a percentage from 1 to 100.",
            ));
        }
        self.0
            .host
            .edit_config(|config| {
                config.tool_search_above = args.tool_search_above;
                config.tool_tokens_warn_percent = args.tool_tokens_warn_percent;
                Ok(())
            })
            .await
    }

    /// Creates or replaces a tool set.
    pub async fn save_tool_set(&self, args: ToolSet) -> Result<()> {
        let switches = self.0.chats.switches().clone();
        off_thread(move || switches.save_set(&args)).await
    }

    /// Deletes a tool set.
    pub async fn delete_tool_set(&self, args: ToolSetName) -> Result<()> {
        let switches = self.0.chats.switches().clone();
        off_thread(move || switches.delete_set(&args.name)).await
    }

    /// The user's providers (keys stay in the keychain).
    pub async fn list_providers(&self, _: NoArgs) -> Result<Vec<ProviderSettings>> {
        let providers = self.0.providers.clone();
        off_thread(move || providers.list()).await
    }

    /// Adds or replaces a provider; sampling uses it at once.
    pub async fn save_provider(&self, args: SaveProvider) -> Result<()> {
        let providers = self.0.providers.clone();
        let models = off_thread(move || {
            providers.save(&args.settings, args.api_key.as_ref())?;
            providers.models()
        })
        .await?;
        self.0.door.sampler().set_models(models);
        Ok(())
    }

    /// Removes a provider and its key.
    pub async fn remove_provider(&self, args: ProviderId) -> Result<()> {
        let providers = self.0.providers.clone();
        let models = off_thread(move || {
            providers.remove(&args.id)?;
            providers.models()
        })
        .await?;
        self.0.door.sampler().set_models(models);
        Ok(())
    }

    /// The models a provider offers, asked of the provider.
    pub async fn provider_models(&self, args: ProviderId) -> Result<Vec<String>> {
        let providers = self.0.providers.clone();
        let provider = off_thread(move || providers.provider(&args.id)).await?;
        provider.models().await
    }

    /// Every conversation, most recent first.
    pub async fn list_conversations(&self, _: NoArgs) -> Result<Vec<Conversation>> {
        self.0.chats.list().await
    }

    /// One conversation with its messages.
    pub async fn get_conversation(&self, args: ConversationId) -> Result<ConversationView> {
        let mut view = self.0.chats.get(&args.id).await?;
        view.answering = self.0.turns.is_running(&args.id);
        Ok(view)
    }

    /// Starts a conversation.
    pub async fn new_conversation(&self, args: NewConversation) -> Result<Conversation> {
        self.0
            .chats
            .create(&args.title, &args.provider, &args.model)
            .await
    }

    /// Changes a conversation's title or model.
    pub async fn update_conversation(&self, args: Conversation) -> Result<()> {
        self.0.chats.update(&args).await
    }

    /// Stops the conversation's turn, if any, and deletes it.
    pub async fn delete_conversation(&self, args: ConversationId) -> Result<()> {
        self.0.turns.cancel(&args.id).await;
        self.0.chats.delete(&args.id).await
    }

    /// Adds messages to a conversation and, when the last is the user's, starts the model's
    /// turn in the background (its text, messages and end arrive as chat events). Refused while
    /// the conversation's previous turn is still running.
    pub async fn send_message(&self, args: SendMessage) -> Result<()> {
        let valid = |role: &str| role == "user" || role == "assistant";
        if args.messages.is_empty() || !args.messages.iter().all(|m| valid(&m.role)) {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "send one or more messages with the role user or assistant",
            ));
        }
        let id = args.conversation;
        let reservation = self.0.turns.reserve(&id)?;
        let view = self.0.chats.get(&id).await?;
        let providers = self.0.providers.clone();
        let wanted = view.conversation.provider.clone();
        let provider = off_thread(move || providers.provider(&wanted)).await?;
        if !reservation.held() {
            return Err(Error::new(ErrorCode::Cancelled, "you stopped the answer"));
        }
        let mut last_role = String::new();
        for m in args.messages {
            let content = without_core_fields(m.content);
            let message = self.0.chats.append(&id, &m.role, content).await?;
            last_role.clone_from(&message.role);
            self.0.events.publish(ChatEvent::ChatMessage {
                conversation: id.clone(),
                message,
            });
        }
        if last_role != "user" {
            self.0.events.publish(ChatEvent::ChatDone {
                conversation: id,
                error: None,
            });
            return Ok(());
        }
        let app = self.clone();
        let task = tokio::spawn(async move {
            let inner = &app.0;
            let mut report = BroadcastTurn {
                conversation: id.clone(),
                events: inner.events.clone(),
            };
            let result = run_turn(
                &inner.chats,
                &inner.door,
                &provider,
                &inner.host,
                &id,
                &mut report,
            )
            .await;
            inner.events.publish(ChatEvent::ChatDone {
                conversation: id,
                error: result.err(),
            });
        });
        reservation.start(task);
        Ok(())
    }

    /// Stops the conversation's turn; the window is told it ended.
    pub async fn cancel_turn(&self, args: ConversationId) -> Result<()> {
        if self.0.turns.cancel(&args.id).await {
            self.0.events.publish(ChatEvent::ChatDone {
                conversation: args.id,
                error: Some(Error::new(ErrorCode::Cancelled, "you stopped the answer")),
            });
        }
        Ok(())
    }
}

/// `content` without the fields only the core writes on a tool result (the arguments a call went
/// out with, the tools a search found): what the window sends cannot pass for them.
fn without_core_fields(mut content: serde_json::Value) -> serde_json::Value {
    let mut strip = |block: &mut serde_json::Value| {
        if let Some(b) = block.as_object_mut() {
            b.remove(crate::chat::SENT_ARGUMENTS);
            b.remove(crate::chat::FOUND_TOOLS);
        }
    };
    match &mut content {
        serde_json::Value::Array(blocks) => blocks.iter_mut().for_each(&mut strip),
        block => strip(block),
    }
    content
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_window_sends_cannot_carry_the_cores_own_fields() {
        let sent = serde_json::json!([
            {"type": "tool_result", "toolUseId": "1", "content": [], "foundTools": ["x__y"], "sentArguments": {}},
            {"type": "text", "text": "hi"},
        ]);
        let kept = without_core_fields(sent);
        assert!(kept[0].get("foundTools").is_none() && kept[0].get("sentArguments").is_none());
        assert_eq!(kept[1]["text"], "hi");
    }
}
