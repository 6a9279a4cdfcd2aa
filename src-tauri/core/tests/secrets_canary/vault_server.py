"""A stdio MCP server for the canary test: it checks the secrets it is given against their SHA-256
(argv[1], JSON: {"env": [VAR, sha], "password": sha, "token": sha}) and never repeats them.
Tools: check_env (is $VAR the secret?), login (an elicitation form with a password and a token
field, answered with whether both arrived as typed), ask (a sampling request; answers with the
completion's content)."""

import hashlib
import json
import os
import sys

EXPECT = json.loads(sys.argv[1])
KNOWN = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
FORM = {
    "type": "object",
    "properties": {
        "user": {"type": "string"},
        "password": {"type": "string"},
        "apiToken": {"type": "string"},
    },
    "required": ["user", "password", "apiToken"],
}
QUESTION = {
    "messages": [{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}],
    "maxTokens": 100,
}


def write(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def sha(text):
    return hashlib.sha256((text or "").encode()).hexdigest()


def ask_client(rid, method, params):
    """Sends a request to the client and serves other messages until its answer comes."""
    write({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("id") == rid and "method" not in msg:
            return msg
        handle(msg)
    sys.exit(0)


def tool(name):
    if name == "check_env":
        var, want = EXPECT["env"]
        return "env ok" if sha(os.environ.get(var)) == want else "env wrong"
    if name == "login":
        answer = ask_client("e1", "elicitation/create",
                            {"mode": "form", "message": "Sign in to the archive", "requestedSchema": FORM})
        content = (answer.get("result") or {}).get("content") or {}
        ok = sha(content.get("password")) == EXPECT["password"] and sha(content.get("apiToken")) == EXPECT["token"]
        return f"login {'ok' if ok else 'wrong'} for {content.get('user')}"
    if name == "ask":
        answer = ask_client("s1", "sampling/createMessage", QUESTION)
        return json.dumps(answer.get("result") or answer.get("error"))
    return f"no tool {name}"


def handle(msg):
    method, rid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
    if method is None or rid is None:
        return
    if method == "initialize":
        version = params.get("protocolVersion")
        write({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": version if version in KNOWN else "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "vault", "version": "1"},
        }})
    elif method == "ping":
        write({"jsonrpc": "2.0", "id": rid, "result": {}})
    elif method == "tools/list":
        tools = [{"name": n, "inputSchema": {"type": "object"}} for n in ("check_env", "login", "ask")]
        write({"jsonrpc": "2.0", "id": rid, "result": {"tools": tools}})
    elif method == "tools/call":
        text = tool(params.get("name"))
        write({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}]}})
    else:
        write({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no such method"}})


for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    handle(message)
