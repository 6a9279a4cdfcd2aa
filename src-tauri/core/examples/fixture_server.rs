//! A test and benchmark fixture: an MCP server on rmcp's server side over stdio. rmcp answers both
//! `server/discover` (2026-07-28) and `initialize`, so this proves the second era end to end.
//! Tools: `echo {text}`, `blob {bytes}`, `add {a,b}`, and `greet`, which on 2026-07-28 asks the
//! client for a name (an elicitation input request) and a second time for nothing but its state
//! before it answers "Hello, <name>"; and `research {topic?}`, which on 2026-07-28 answers with a
//! task (the tasks extension) that goes working → input_required (an elicitation asking for the
//! topic) → completed with "Report on <topic>" (`research-state {id}` says where one is);
//! `flood {perSecond, seconds}` answers at once and then sends `perSecond` progress notifications a
//! second (for no request: the host drops them after recording them) for `seconds`, then one log
//! message "flood done" (the traffic screen's load);
//! `FIXTURE_ERA=2025-11-25` makes it an initialize-era server (`server/discover`
//! is a method it does not know);
//! `FIXTURE_RESOURCES=N` serves N resources in
//! pages of 100 (default 1000): `fixture://image.png` (a PNG) first, then `fixture://r/<i>` (text).

#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::Mutex;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, CreateTaskResult,
    GetTaskParams, GetTaskResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerCapabilities,
    ServerConfig, UpdateTaskParams,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, ServerHandler, ServiceExt};
use serde_json::{Value, json};

const PAGE: usize = 100;

/// A 48×48 gradient, so viewers have a real image to show.
const PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAADAAAAAwCAIAAADYYG7QAAARnklEQVR42g3OMesxAQDA4ffj/AeDwWCwGAwGg8FyiUhXqEtdItIV6lKXiHSFutQlIl2hLnWJ6NcVymIwGAwGX+L1fILn35+AR8Ar4BPwCwQEggIhgbBARCAqEBMQBBICaQFRICcgCcgCJYGqgCLQEFAFNIGOQF9AFxgJGAKmwExgKWAJbARsAUfgIHAWcAWuAneBh8BT4CXwFvgIfAX+/cXxxPHG8cXxxwnECcYJxQnHicSJxonFEeIk4qTjiHFycaQ4cpxSnGocJU4jjhpHi9OJ04+jxxnFMeKYcWZxlnGsOJs4dhwnziHOOY4b5xrnHucR5xnnFecd5xPnG/+FkniSeJP4kviTBJIEk4SShJNEkkSTxJIISRJJ0knEJLkkUhI5SSlJNYmSpJFETaIl6STpJ9GTjJIYScwksyTLJFaSTRI7iZPkkOScxE1yTXJP8kjyTPJK8k7ySfJN/kIpPCm8KXwp/CkCKYIpQinCKSIpoiliKYQUiRTpFGKKXAophZyilKKaQknRSKGm0FJ0UvRT6ClGKYwUZopZimUKK8UmhZ3CSXFIcU7hprimuKd4pHimeKV4p/ik+KZ+oQyeDN4Mvgz+DIEMwQyhDOEMkQzRDLEMQoZEhnQGMUMug5RBzlDKUM2gZGhkUDNoGToZ+hn0DKMMRgYzwyzDMoOVYZPBzuBkOGQ4Z3AzXDPcMzwyPDO8MrwzfDJ8M7+QiEfEK+IT8YsERIIiIZGwSEQkKhITEUQSImkRUSQnIonIIiWRqogi0hBRRTSRjkhfRBcZiRgipshMZCliiWxEbBFH5CByFnFFriJ3kYfIU+Ql8hb5iHzFXyiLJ4s3iy+LP0sgSzBLKEs4SyRLNEssi5AlkSWdRcySyyJlkbOUslSzKFkaWdQsWpZOln4WPcsoi5HFzDLLssxiZdlksbM4WQ5ZzlncLNcs9yyPLM8sryzvLJ8s3+wvlMeTx5vHl8efJ5AnmCeUJ5wnkieaJ5ZHyJPIk84j5snlkfLIeUp5qnmUPI08ah4tTydPP4+eZ5THyGPmmeVZ5rHybPLYeZw8hzznPG6ea557nkeeZ55XnneeT55v/heS8Eh4JXwSfomARFAiJBGWiEhEJWISgkRCIi0hSuQkJAlZoiRRlVAkGhKqhCbRkehL6BIjCUPClJhJLCUsiY2ELeFIHCTOEq7EVeIu8ZB4Srwk3hIfia/0CxXwFPAW8BXwFwgUCBYIFQgXiBSIFogVEAokCqQLiAVyBaQCcoFSgWoBpUCjgFpAK9Ap0C+gFxgVMAqYBWYFlgWsApsCdgGnwKHAuYBb4FrgXuBR4FngVeBd4FPgW/iFZDwyXhmfjF8mIBOUCcmEZSIyUZmYjCCTkEnLiDI5GUlGlinJVGUUmYaMKqPJdGT6MrrMSMaQMWVmMksZS2YjY8s4MgeZs4wrc5W5yzxknjIvmbfMR+Yr/0JFPEW8RXxF/EUCRYJFQkXCRSJFokViRYQiiSLpImKRXBGpiFykVKRaRCnSKKIW0Yp0ivSL6EVGRYwiZpFZkWURq8imiF3EKXIoci7iFrkWuRd5FHkWeRV5F/kU+RZ/oTKeMt4yvjL+MoEywTKhMuEykTLRMrEyQplEmXQZsUyujFRGLlMqUy2jlGmUUctoZTpl+mX0MqMyRhmzzKzMsoxVZlPGLuOUOZQ5l3HLXMvcyzzKPMu8yrzLfMp8y79QBU8FbwVfBX+FQIVghVCFcIVIhWiFWAWhQqJCuoJYIVdBqiBXKFWoVlAqNCqoFbQKnQr9CnqFUQWjgllhVmFZwaqwqWBXcCocKpwruBWuFe4VHhWeFV4V3hU+Fb6VX6iGp4a3hq+Gv0agRrBGqEa4RqRGtEashlAjUSNdQ6yRqyHVkGuUalRrKDUaNdQaWo1OjX4NvcaohlHDrDGrsaxh1djUsGs4NQ41zjXcGtca9xqPGs8arxrvGp8a39ovpOBR8Cr4FPwKAYWgQkghrBBRiCrEFASFhEJaQVTIKUgKskJJoaqgKDQUVAVNoaPQV9AVRgqGgqkwU1gqWAobBVvBUTgonBVchavCXeGh8FR4KbwVPgpf5Req46njreOr468TqBOsE6oTrhOpE60TqyPUSdRJ1xHr5OpIdeQ6pTrVOkqdRh21jlanU6dfR68zqmPUMevM6izrWHU2dew6Tp1DnXMdt861zr3Oo86zzqvOu86nzrf+CzXxNPE28TXxNwk0CTYJNQk3iTSJNok1EZokmqSbiE1yTaQmcpNSk2oTpUmjidpEa9Jp0m+iNxk1MZqYTWZNlk2sJpsmdhOnyaHJuYnb5Nrk3uTR5Nnk1eTd5NPk2/yFVDwqXhWfil8loBJUCamEVSIqUZWYiqCSUEmriCo5FUlFVimpVFUUlYaKqqKpdFT6KrrKSMVQMVVmKksVS2WjYqs4KgeVs4qrclW5qzxUniovlbfKR+Wr/kItPC28LXwt/C0CLYItQi3CLSItoi1iLYQWiRbpFmKLXAuphdyi1KLaQmnRaKG20Fp0WvRb6C1GLYwWZotZi2ULq8Wmhd3CaXFocW7htri2uLd4tHi2eLV4t/i0+LZ+IQ2PhlfDp+HXCGgENUIaYY2IRlQjpiFoJDTSGqJGTkPSkDVKGlUNRaOhoWpoGh2NvoauMdIwNEyNmcZSw9LYaNgajsZB46zhalw17hoPjafGS+Ot8dH4ar9QG08bbxtfG3+bQJtgm1CbcJtIm2ibWBuhTaJNuo3YJtdGaiO3KbWptlHaNNqobbQ2nTb9NnqbURujjdlm1mbZxmqzaWO3cdoc2pzbuG2ube5tHm2ebV5t3m0+bb7tX6iLp4u3i6+Lv0ugS7BLqEu4S6RLtEusi9Al0SXdReyS6yJ1kbuUulS7KF0aXdQuWpdOl34Xvcuoi9HF7DLrsuxiddl0sbs4XQ5dzl3cLtcu9y6PLs8ury7vLp8u3+4v1MPTw9vD18PfI9Aj2CPUI9wj0iPaI9ZD6JHoke4h9sj1kHrIPUo9qj2UHo0eag+tR6dHv4feY9TD6GH2mPVY9rB6bHrYPZwehx7nHm6Pa497j0ePZ49Xj3ePT49v7xca4BngHeAb4B8QGBAcEBoQHhAZEB0QGyAMSAxIDxAH5AZIA+QBpQHVAcqAxgB1gDagM6A/QB8wGmAMMAfMBiwHWAM2A+wBzoDDgPMAd8B1wH3AY8BzwGvAe8BnwHfwC+l4dLw6Ph2/TkAnqBPSCetEdKI6MR1BJ6GT1hF1cjqSjqxT0qnqKDoNHVVH0+no9HV0nZGOoWPqzHSWOpbORsfWcXQOOmcdV+eqc9d56Dx1XjpvnY/OV/+FhniGeIf4hviHBIYEh4SGhIdEhkSHxIYIQxJD0kPEIbkh0hB5SGlIdYgypDFEHaIN6QzpD9GHjIYYQ8whsyHLIdaQzRB7iDPkMOQ8xB1yHXIf8hjyHPIa8h7yGfId/kJjPGO8Y3xj/GMCY4JjQmPCYyJjomNiY4QxiTHpMeKY3BhpjDymNKY6RhnTGKOO0cZ0xvTH6GNGY4wx5pjZmOUYa8xmjD3GGXMYcx7jjrmOuY95jHmOeY15j/mM+Y5/IQOPgdfAZ+A3CBgEDUIGYYOIQdQgZiAYJAzSBqJBzkAykA1KBlUDxaBhoBpoBh2DvoFuMDIwDEyDmcHSwDLYGNgGjsHB4GzgGlwN7gYPg6fBy+Bt8DH4Gr/QBM8E7wTfBP+EwITghNCE8ITIhOiE2ARhQmJCeoI4ITdBmiBPKE2oTlAmNCaoE7QJnQn9CfqE0QRjgjlhNmE5wZqwmWBPcCYcJpwnuBOuE+4THhOeE14T3hM+E76TX8jEY+I18Zn4TQImQZOQSdgkYhI1iZkIJgmTtIlokjORTGSTkknVRDFpmKgmmknHpG+im4xMDBPTZGayNLFMNia2iWNyMDmbuCZXk7vJw+Rp8jJ5m3xMvuYvNMUzxTvFN8U/JTAlOCU0JTwlMiU6JTZFmJKYkp4iTslNkabIU0pTqlOUKY0p6hRtSmdKf4o+ZTTFmGJOmU1ZTrGmbKbYU5wphynnKe6U65T7lMeU55TXlPeUz5Tv9Bea45njneOb458TmBOcE5oTnhOZE50TmyPMScxJzxHn5OZIc+Q5pTnVOcqcxhx1jjanM6c/R58zmmPMMefM5iznWHM2c+w5zpzDnPMcd851zn3OY85zzmvOe85nznf+Cy3wLPAu8C3wLwgsCC4ILQgviCyILogtEBYkFqQXiAtyC6QF8oLSguoCZUFjgbpAW9BZ0F+gLxgtMBaYC2YLlgusBZsF9gJnwWHBeYG74LrgvuCx4LngteC94LPgu/iFVnhWeFf4VvhXBFYEV4RWhFdEVkRXxFYIKxIr0ivEFbkV0gp5RWlFdYWyorFCXaGt6Kzor9BXjFYYK8wVsxXLFdaKzQp7hbPisOK8wl1xXXFf8VjxXPFa8V7xWfFd/UIWHguvhc/CbxGwCFqELMIWEYuoRcxCsEhYpC1Ei5yFZCFblCyqFopFw0K10Cw6Fn0L3WJkYViYFjOLpYVlsbGwLRyLg8XZwrW4WtwtHhZPi5fF2+Jj8bV+oTWeNd41vjX+NYE1wTWhNeE1kTXRNbE1wprEmvQacU1ujbRGXlNaU12jrGmsUddoazpr+mv0NaM1xhpzzWzNco21ZrPGXuOsOaw5r3HXXNfc1zzWPNe81rzXfNZ817/QFs8W7xbfFv+WwJbgltCW8JbIluiW2BZhS2JLeou4JbdF2iJvKW2pblG2NLaoW7QtnS39LfqW0RZji7lltmW5xdqy2WJvcbYctpy3uFuuW+5bHlueW15b3ls+W77bX8jGY+O18dn4bQI2QZuQTdgmYhO1idkINgmbtI1ok7ORbGSbkk3VRrFp2Kg2mk3Hpm+j24xsDBvTZmaztLFsNja2jWNzsDnbuDZXm7vNw+Zp87J523xsvvYvtMOzw7vDt8O/I7AjuCO0I7wjsiO6I7ZD2JHYkd4h7sjtkHbIO0o7qjuUHY0d6g5tR2dHf4e+Y7TD2GHumO1Y7rB2bHbYO5wdhx3nHe6O6477jseO547XjveOz47v7hdy8Dh4HXwOfoeAQ9Ah5BB2iDhEHWIOgkPCIe0gOuQcJAfZoeRQdVAcGg6qg+bQceg76A4jB8PBdJg5LB0sh42D7eA4HBzODq7D1eHu8HB4Orwc3g4fh6/zC+3x7PHu8e3x7wnsCe4J7QnvieyJ7ontEfYk9qT3iHtye6Q98p7SnuoeZU9jj7pH29PZ09+j7xntMfaYe2Z7lnusPZs99h5nz2HPeY+757rnvuex57nntee957Pnu/+FjniOeI/4jviPBI4Ej4SOhI9EjkSPxI4IRxJH0kfEI7kj0hH5SOlI9YhypHFEPaId6RzpH9GPjI4YR8wjsyPLI9aRzRH7iHPkcOR8xD1yPXI/8jjyPPI68j7yOfI9/kInPCe8J3wn/CcCJ4InQifCJyInoidiJ4QTiRPpE+KJ3AnphHyidKJ6QjnROKGe0E50TvRP6CdGJ4wT5onZieUJ68TmhH3COXE4cT7hnrieuJ94nHieeJ14n/ic+J5+IfCAF3zghwAEIQRhiEAUYiBAAtIgQg4kkKEEVVCgASpo0IE+6DACA0yYwRIs2IANDhzgDC5c4Q4PeMIL3vCBL7+Qi8fF6+Jz8bsEXIIuIZewS8Ql6hJzEVwSLmkX0SXnIrnILiWXqovi0nBRXTSXjkvfRXcZuRgupsvMZeliuWxcbBfH5eBydnFdri53l4fL0+Xl8nb5uHzdX+iC54L3gu+C/0LgQvBC6EL4QuRC9ELsgnAhcSF9QbyQuyBdkC+ULlQvKBcaF9QL2oXOhf4F/cLognHBvDC7sLxgXdhcsC84Fw4XzhfcC9cL9wuPC88LrwvvC58L38svdMNzw3vDd8N/I3AjeCN0I3wjciN6I3ZDuJG4kb4h3sjdkG7IN0o3qjeUG40b6g3tRudG/4Z+Y3TDuGHemN1Y3rBubG7YN5wbhxvnG+6N6437jceN543XjfeNz43vjf+KhBcAiXFpZgAAAABJRU5ErkJggg==";

struct Fixture {
    resources: usize,
    /// An initialize-era server (`FIXTURE_ERA=2025-11-25`), as most are today: `server/discover`
    /// is a method it does not know, so a client falls back to `initialize`.
    legacy: bool,
    tasks: Mutex<HashMap<String, Research>>,
}

/// Where one `research` task is.
#[derive(Clone)]
enum Research {
    Working { polls: u32 },
    Asking,
    Answered(String),
    Cancelled,
}

const CREATED: &str = "2026-07-28T00:00:00Z";

fn from<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, McpError> {
    serde_json::from_value(v).map_err(|e| McpError::internal_error(e.to_string(), None))
}

impl ServerHandler for Fixture {
    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::DiscoverResult, McpError> {
        if self.legacy {
            return Err(McpError::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                "Method not found",
                None,
            ));
        }
        Ok(rmcp::model::DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.get_info(),
        ))
    }

    fn get_info(&self) -> ServerConfig {
        let caps: ServerCapabilities = serde_json::from_value(json!({"tools": {}, "resources": {},
                "extensions": {"io.modelcontextprotocol/tasks": {}}}))
        .unwrap_or_default();
        ServerConfig::new(caps)
            .with_instructions("Switchboard's rmcp fixture server")
            .with_server_info(rmcp::model::Implementation::new(
                "switchboard-rmcp-fixture",
                "1.0.0",
            ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        from(json!({"tools": [
            {"name": "echo", "description": "Echoes text", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
            {"name": "blob", "description": "Returns `bytes` characters", "inputSchema": {"type": "object", "properties": {"bytes": {"type": "integer"}}, "required": ["bytes"]}},
            {"name": "add", "description": "Adds two numbers", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}},
            {"name": "greet", "description": "Asks for a name, then greets it", "inputSchema": {"type": "object"}},
            {"name": "research", "description": "Researches a topic it asks for, as a task", "inputSchema": {"type": "object"}},
            {"name": "research-state", "description": "Where research task `id` is", "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}}},
            {"name": "flood", "description": "Sends perSecond notifications a second for seconds", "inputSchema": {"type": "object", "properties": {"perSecond": {"type": "integer"}, "seconds": {"type": "integer"}}}}
        ]}))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if request.name == "flood" {
            let arg = |k: &str| {
                request
                    .arguments
                    .as_ref()
                    .and_then(|a| a.get(k))
                    .and_then(Value::as_u64)
                    .unwrap_or(1)
            };
            tokio::spawn(flood(
                context.peer.clone(),
                arg("perSecond"),
                arg("seconds"),
            ));
            let result = from(json!({"content": [{"type": "text", "text": "flooding"}]}))?;
            return Ok(CallToolResponse::Complete(result));
        }
        if request.name == "greet" {
            return greet(&request);
        }
        if request.name == "research" {
            return self.start_research();
        }
        if request.name == "research-state" {
            let id = request
                .arguments
                .as_ref()
                .and_then(|a| a.get("id"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            let state = match self.lock().get(id) {
                Some(Research::Working { .. }) => "working",
                Some(Research::Asking) => "asking",
                Some(Research::Answered(_)) => "answered",
                Some(Research::Cancelled) => "cancelled",
                None => "unknown",
            };
            let result = from(json!({"content": [{"type": "text", "text": state}]}))?;
            return Ok(CallToolResponse::Complete(result));
        }
        let args = request.arguments.unwrap_or_default();
        let text = match request.name.as_ref() {
            "echo" => args
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            "blob" => {
                let n = args.get("bytes").and_then(Value::as_u64).unwrap_or(0);
                "x".repeat(usize::try_from(n).unwrap_or(0))
            }
            "add" => {
                let a = args.get("a").and_then(Value::as_f64).unwrap_or(0.0);
                let b = args.get("b").and_then(Value::as_f64).unwrap_or(0.0);
                (a + b).to_string()
            }
            other => return Err(McpError::invalid_params(format!("no tool {other}"), None)),
        };
        let result: CallToolResult = from(json!({"content": [{"type": "text", "text": text}]}))?;
        Ok(CallToolResponse::Complete(result))
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let start: usize = request
            .and_then(|r| r.cursor)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let end = (start + PAGE).min(self.resources);
        let resources: Vec<Value> = (start..end)
            .map(|i| match i {
                0 => json!({"uri": "fixture://image.png", "name": "image.png", "mimeType": "image/png"}),
                i => json!({"uri": format!("fixture://r/{i}"), "name": format!("r{i}"), "mimeType": "text/plain"}),
            })
            .collect();
        let mut result = json!({ "resources": resources });
        if end < self.resources {
            result["nextCursor"] = json!(end.to_string());
        }
        from(result)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let uri = request.uri.as_str();
        let contents = if uri == "fixture://image.png" {
            json!({"uri": uri, "mimeType": "image/png", "blob": PNG_BASE64})
        } else if let Some(i) = uri.strip_prefix("fixture://r/") {
            json!({"uri": uri, "mimeType": "text/plain", "text": format!("resource number {i}")})
        } else {
            return Err(McpError::resource_not_found(
                format!("no resource {uri}"),
                None,
            ));
        };
        let result: ReadResourceResult = from(json!({ "contents": [contents] }))?;
        Ok(ReadResourceResponse::Complete(result))
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        from(self.poll_research(&request.task_id)?)
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let topic = request
            .input_responses
            .get("topic")
            .and_then(|r| r["content"]["topic"].as_str())
            .unwrap_or("nothing")
            .to_owned();
        self.lock()
            .insert(request.task_id, Research::Answered(topic));
        Ok(())
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.lock().insert(request.task_id, Research::Cancelled);
        Ok(())
    }
}

impl Fixture {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Research>> {
        self.tasks.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn start_research(&self) -> Result<CallToolResponse, McpError> {
        let mut tasks = self.lock();
        let id = format!("research-{}", tasks.len() + 1);
        tasks.insert(id.clone(), Research::Working { polls: 0 });
        let created: CreateTaskResult = from(json!({"resultType": "task", "taskId": id,
            "status": "working", "statusMessage": "Starting", "createdAt": CREATED,
            "lastUpdatedAt": CREATED, "ttlMs": 60000, "pollIntervalMs": 50}))?;
        Ok(CallToolResponse::Task(created))
    }

    /// Each poll moves a task on: one working poll, then a question, then (once answered) done.
    fn poll_research(&self, id: &str) -> Result<Value, McpError> {
        let mut tasks = self.lock();
        let Some(state) = tasks.get_mut(id) else {
            return Err(McpError::invalid_params(format!("no task {id}"), None));
        };
        let base = json!({"taskId": id, "createdAt": CREATED, "lastUpdatedAt": CREATED,
            "ttlMs": 60000, "pollIntervalMs": 50});
        let extra = match state.clone() {
            Research::Working { polls } if polls < 1 => {
                *state = Research::Working { polls: polls + 1 };
                json!({"status": "working", "statusMessage": "Gathering sources"})
            }
            Research::Working { .. } | Research::Asking => {
                *state = Research::Asking;
                json!({"status": "input_required", "statusMessage": "Which topic?",
                    "inputRequests": {"topic": {"method": "elicitation/create", "params": {
                        "mode": "form", "message": "Which topic?",
                        "requestedSchema": {"type": "object", "properties": {
                            "topic": {"type": "string", "default": "tides"}}}}}}})
            }
            Research::Answered(topic) => json!({"status": "completed", "result": {
                "content": [{"type": "text", "text": format!("Report on {topic}")}]}}),
            Research::Cancelled => json!({"status": "cancelled"}),
        };
        let mut task = base;
        if let (Some(task), Some(extra)) = (task.as_object_mut(), extra.as_object()) {
            task.extend(extra.clone());
        }
        Ok(task)
    }
}

/// `greet`'s rounds: ask for a name; carry it in the state for one state-only round; answer.
/// `per_second` progress notifications a second for `seconds`, sent in batches every 10 ms; then
/// a log message saying it is done.
async fn flood(peer: rmcp::Peer<RoleServer>, per_second: u64, seconds: u64) {
    let per_tick = (per_second / 100).max(1);
    let mut tick = tokio::time::interval(std::time::Duration::from_millis(10));
    let mut sent = 0u64;
    for _ in 0..seconds * 100 {
        tick.tick().await;
        // A tick's batch goes out at once rather than one send awaited after another, so the
        // flood runs at its rate and the host's intake is what is measured.
        let batch = (0..per_tick).map(|i| {
            let progress = json!({"progressToken": "flood", "progress": sent + i + 1});
            let peer = &peer;
            async move {
                match from(progress) {
                    Ok(params) => peer.notify_progress(params).await.is_ok(),
                    Err(_) => false,
                }
            }
        });
        let results = futures::future::join_all(batch).await;
        sent += per_tick;
        if results.contains(&false) {
            return;
        }
    }
    let done = json!({"level": "info", "data": format!("flood done: {sent} sent")});
    if let Ok(params) = from(done) {
        let _ = peer.notify_logging_message(params).await;
    }
}

fn greet(request: &CallToolRequestParams) -> Result<CallToolResponse, McpError> {
    let name = request
        .input_responses
        .as_ref()
        .and_then(|r| r.get("name"))
        .and_then(|r| r["content"]["name"].as_str());
    let ask = json!({"name": {"method": "elicitation/create", "params": {
        "mode": "form", "message": "Your name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string", "default": "Ada"}}}
    }}});
    let round: Value = match (name, request.request_state.as_deref()) {
        (Some(name), _) => {
            json!({"resultType": "input_required", "requestState": format!("named:{name}")})
        }
        (None, Some(state)) if state.starts_with("named:") => {
            let text = format!("Hello, {}", &state["named:".len()..]);
            let result = from(json!({"content": [{"type": "text", "text": text}]}))?;
            return Ok(CallToolResponse::Complete(result));
        }
        _ => json!({"resultType": "input_required", "inputRequests": ask, "requestState": "asked"}),
    };
    Ok(CallToolResponse::InputRequired(from(round)?))
}

type Reader = Box<dyn tokio::io::AsyncRead + Send + Unpin>;
type Writer = Box<dyn tokio::io::AsyncWrite + Send + Unpin>;

/// Stdin and stdout as non-blocking pipes where they are pipes (a host spawned us): tokio's own
/// stdout hands every write to a blocking thread, which holds a flood to a few thousand messages a
/// second, and the flood is there to load the host, not this fixture.
fn stdio_pipes() -> (Reader, Writer) {
    use std::os::fd::AsFd;
    use tokio::net::unix::pipe;
    let input = std::io::stdin().as_fd().try_clone_to_owned();
    let output = std::io::stdout().as_fd().try_clone_to_owned();
    let input: Reader = match input.and_then(pipe::Receiver::from_owned_fd) {
        Ok(pipe) => Box::new(pipe),
        Err(_) => Box::new(tokio::io::stdin()),
    };
    let output: Writer = match output.and_then(pipe::Sender::from_owned_fd) {
        Ok(pipe) => Box::new(pipe),
        Err(_) => Box::new(tokio::io::stdout()),
    };
    (input, output)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let resources = std::env::var("FIXTURE_RESOURCES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let legacy = std::env::var("FIXTURE_ERA").as_deref() == Ok("2025-11-25");
    let service = Fixture {
        resources,
        legacy,
        tasks: Mutex::default(),
    }
    .serve(stdio_pipes())
    .await?;
    service.waiting().await?;
    Ok(())
}
