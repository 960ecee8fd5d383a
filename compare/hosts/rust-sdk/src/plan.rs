//! The host plan (compare/hosts/README.md) as the Rust SDK host reads it.
//!
//! Parsed with serde_json, the JSON library rmcp itself builds on and re-exports
//! (`rmcp::serde_json`, crate:rmcp@3.11.0/src/lib.rs:43-44, a default feature), so the host's
//! locked dependencies are unchanged. Every key is checked (an unknown key or a wrong type is a
//! one-line error and exit code 2), and the two canned answers are deserialised into rmcp's own
//! result types here, so an answer the SDK cannot represent is refused before the server starts.
//! Each of `session.requests` becomes the parameters of the rmcp call that makes it.

use std::path::{Path, PathBuf};

use rmcp::model::{
    ArgumentInfo, CallToolRequestParams, CompleteRequestParams, CreateMessageResult, ElicitResult,
    GetPromptRequestParams, ReadResourceRequestParams, Reference, SubscribeRequestParams,
    UnsubscribeRequestParams,
};
use rmcp::serde_json::{self, Map, Value};

pub struct Change {
    pub signal: PathBuf,
    pub add_folders: Vec<PathBuf>,
    pub notify: bool,
}

pub struct RootsPlan {
    pub folders: Vec<PathBuf>,
    pub list_changed: bool,
    pub changes: Vec<Change>,
}

pub struct ElicitationPlan {
    pub form: bool,
    pub url: bool,
    pub answer: ElicitResult,
}

pub enum List {
    Tools,
    Prompts,
    Resources,
    ResourceTemplates,
}

/// One of `session.requests`, as the parameters of its rmcp call.
pub enum Request {
    List(List),
    Call(CallToolRequestParams),
    Read(ReadResourceRequestParams),
    Subscribe(SubscribeRequestParams),
    Unsubscribe(UnsubscribeRequestParams),
    GetPrompt(GetPromptRequestParams),
    Complete(CompleteRequestParams),
    /// `{"close": true}`: end the session through rmcp's own call (main.rs, `session`).
    Close,
}

impl Request {
    /// The kind the session record names (README.md, the session record).
    pub fn kind(&self) -> &'static str {
        match self {
            Request::List(_) => "list",
            Request::Call(_) => "call",
            Request::Read(_) => "read",
            Request::Subscribe(_) => "subscribe",
            Request::Unsubscribe(_) => "unsubscribe",
            Request::GetPrompt(_) => "get_prompt",
            Request::Complete(_) => "complete",
            Request::Close => "close",
        }
    }
}

pub struct Plan {
    pub control: PathBuf,
    pub roots: Option<RootsPlan>,
    pub elicitation: Option<ElicitationPlan>,
    pub sampling: Option<CreateMessageResult>,
    pub call_tools: bool,
    pub requests: Vec<Request>,
}

impl Plan {
    pub fn declares_any(&self) -> bool {
        self.roots.is_some() || self.elicitation.is_some() || self.sampling.is_some()
    }
}

/// One line on stderr, whatever the cause's text holds.
pub fn malformed(why: &str) -> ! {
    let line = why.split_whitespace().collect::<Vec<_>>().join(" ");
    eprintln!("rust-sdk host: bad plan: {line}");
    std::process::exit(2);
}

type Object = Map<String, Value>;

fn object<'a>(value: &'a Value, at: &str) -> &'a Object {
    value
        .as_object()
        .unwrap_or_else(|| malformed(&format!("{at}: expected an object")))
}

fn keys(map: &Object, at: &str, required: &[&str], optional: &[&str]) {
    for key in map.keys() {
        if !required.contains(&key.as_str()) && !optional.contains(&key.as_str()) {
            malformed(&format!("{at}: unknown key {key}"));
        }
    }
    for key in required {
        if !map.contains_key(*key) {
            malformed(&format!("{at}: missing {key}"));
        }
    }
}

fn flag(map: &Object, key: &str, at: &str) -> bool {
    match map.get(key) {
        Some(Value::Bool(b)) => *b,
        _ => malformed(&format!("{at}.{key}: expected true or false")),
    }
}

/// As the schema's `abs_path`: a string starting with "/", not "/" alone.
fn path(value: &Value, at: &str) -> PathBuf {
    match value.as_str() {
        Some(p) if p.starts_with('/') && p.len() >= 2 => PathBuf::from(p),
        _ => malformed(&format!("{at}: expected an absolute path")),
    }
}

/// A signal's file name, as host-plan.schema.json's pattern `^[a-z0-9][a-z0-9-]*$` has it.
fn is_signal(name: &str) -> bool {
    let mut chars = name.chars();
    let first = chars.next();
    first.is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

fn paths(value: Option<&Value>, at: &str) -> Vec<PathBuf> {
    match value {
        Some(Value::Array(items)) => items.iter().map(|v| path(v, &format!("{at}[]"))).collect(),
        _ => malformed(&format!("{at}: expected a list")),
    }
}

fn decode<T: rmcp::serde::de::DeserializeOwned>(value: Option<&Value>, at: &str) -> T {
    let value = object(value.unwrap_or(&Value::Null), at);
    serde_json::from_value(Value::Object(value.clone()))
        .unwrap_or_else(|err| malformed(&format!("{at}: {err}")))
}

fn roots(value: &Value, control: &Path) -> RootsPlan {
    let at = "features.roots";
    let r = object(value, at);
    keys(r, at, &["folders", "list_changed", "changes"], &[]);
    let changes = match r.get("changes") {
        Some(Value::Array(items)) => items.iter().map(|item| change(item, control)).collect(),
        _ => malformed("features.roots.changes: expected a list"),
    };
    RootsPlan {
        folders: paths(r.get("folders"), "features.roots.folders"),
        list_changed: flag(r, "list_changed", at),
        changes,
    }
}

fn change(value: &Value, control: &Path) -> Change {
    let at = "features.roots.changes[]";
    let c = object(value, at);
    keys(c, at, &["signal", "add_folders", "notify"], &[]);
    let signal = match c.get("signal").and_then(Value::as_str) {
        Some(s) if is_signal(s) => s,
        _ => malformed(&format!("{at}.signal: expected a name like add-root")),
    };
    let add_folders = paths(c.get("add_folders"), &format!("{at}.add_folders"));
    if add_folders.is_empty() {
        malformed(&format!("{at}.add_folders: expected at least one folder"));
    }
    Change {
        signal: control.join(signal),
        add_folders,
        notify: flag(c, "notify", at),
    }
}

/// A non-empty string, as the schema's `minLength: 1`.
fn name(value: Option<&Value>, at: &str) -> String {
    match value.and_then(Value::as_str) {
        Some(s) if !s.is_empty() => s.to_owned(),
        _ => malformed(&format!("{at}: expected a non-empty string")),
    }
}

/// `{"ref": {"type", "name"}, "argument": {"name", "value"}}`; a resource template's
/// reference carries its URI template as `name` in the plan and as `uri` on the wire.
fn complete(value: &Value, at: &str) -> CompleteRequestParams {
    let c = object(value, at);
    keys(c, at, &["ref", "argument"], &[]);
    let r = object(&c["ref"], &format!("{at}.ref"));
    keys(r, &format!("{at}.ref"), &["type", "name"], &[]);
    let target = name(r.get("name"), &format!("{at}.ref.name"));
    let reference = match r.get("type").and_then(Value::as_str) {
        Some("ref/prompt") => Reference::for_prompt(target),
        Some("ref/resource") => Reference::for_resource(target),
        _ => malformed(&format!(
            "{at}.ref.type: expected ref/prompt or ref/resource"
        )),
    };
    let a = object(&c["argument"], &format!("{at}.argument"));
    keys(a, &format!("{at}.argument"), &["name", "value"], &[]);
    let value = match a.get("value") {
        Some(Value::String(v)) => v.clone(),
        _ => malformed(&format!("{at}.argument.value: expected a string")),
    };
    let argument = ArgumentInfo::new(name(a.get("name"), &format!("{at}.argument.name")), value);
    CompleteRequestParams::new(reference, argument)
}

/// Exactly one kind, with `arguments` beside `call` (`{}` when absent) or `get_prompt`
/// (passed as written, left out when absent); `close` is `true` (the schema's `const`).
fn request(value: &Value, at: &str) -> Request {
    const KEYS: [&str; 9] = [
        "list",
        "call",
        "read",
        "subscribe",
        "unsubscribe",
        "get_prompt",
        "complete",
        "close",
        "arguments",
    ];
    let kinds = &KEYS[..8];
    let r = object(value, at);
    keys(r, at, &[], &KEYS);
    let present: Vec<&str> = kinds
        .iter()
        .copied()
        .filter(|k| r.contains_key(*k))
        .collect();
    let [kind] = present[..] else {
        malformed(&format!(
            "{at}: expected exactly one of {}",
            kinds.join(", ")
        ));
    };
    let arguments = match r.get("arguments") {
        None => None,
        Some(Value::Object(a)) if kind == "call" || kind == "get_prompt" => Some(a.clone()),
        Some(Value::Object(_)) => malformed(&format!("{at}.arguments: not taken by {kind}")),
        Some(_) => malformed(&format!("{at}.arguments: expected an object")),
    };
    if kind == "complete" {
        return Request::Complete(complete(&r[kind], &format!("{at}.complete")));
    }
    if kind == "close" {
        if r[kind] != Value::Bool(true) {
            malformed(&format!("{at}.close: expected true"));
        }
        return Request::Close;
    }
    let operand = name(r.get(kind), &format!("{at}.{kind}"));
    match kind {
        "list" => Request::List(match operand.as_str() {
            "tools" => List::Tools,
            "prompts" => List::Prompts,
            "resources" => List::Resources,
            "resource_templates" => List::ResourceTemplates,
            _ => malformed(&format!(
                "{at}.list: expected tools, prompts, resources or resource_templates"
            )),
        }),
        "call" => Request::Call(
            CallToolRequestParams::new(operand).with_arguments(arguments.unwrap_or_default()),
        ),
        "read" => Request::Read(ReadResourceRequestParams::new(operand)),
        "subscribe" => Request::Subscribe(SubscribeRequestParams::new(operand)),
        "unsubscribe" => Request::Unsubscribe(UnsubscribeRequestParams::new(operand)),
        _ => Request::GetPrompt(match arguments {
            Some(a) => GetPromptRequestParams::new(operand).with_arguments(a),
            None => GetPromptRequestParams::new(operand),
        }),
    }
}

pub fn read(file: &Path) -> Plan {
    let text = std::fs::read_to_string(file)
        .unwrap_or_else(|err| malformed(&format!("{}: {err}", file.display())));
    let top: Value = serde_json::from_str(&text)
        .unwrap_or_else(|err| malformed(&format!("{}: {err}", file.display())));
    let top = object(&top, "plan");
    keys(
        top,
        "plan",
        &[
            "format",
            "workspace",
            "control",
            "features",
            "session",
            "options",
        ],
        &[],
    );
    if top.get("format").and_then(Value::as_u64) != Some(1) {
        malformed(&format!("format: expected 1, got {}", top["format"]));
    }
    path(&top["workspace"], "workspace");
    let control = path(&top["control"], "control");
    let features = object(&top["features"], "features");
    keys(
        features,
        "features",
        &[],
        &["roots", "elicitation", "sampling"],
    );
    let session = object(&top["session"], "session");
    keys(session, "session", &["call_tools"], &["requests"]);
    let requests = match session.get("requests") {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| request(item, &format!("session.requests[{i}]")))
            .collect(),
        Some(_) => malformed("session.requests: expected a list"),
    };
    // This host has no target-specific knob: any option is one it does not know.
    keys(object(&top["options"], "options"), "options", &[], &[]);
    let elicitation = features.get("elicitation").map(|value| {
        let at = "features.elicitation";
        let e = object(value, at);
        keys(e, at, &["form", "url", "answer"], &[]);
        ElicitationPlan {
            form: flag(e, "form", at),
            url: flag(e, "url", at),
            answer: decode(e.get("answer"), "features.elicitation.answer"),
        }
    });
    let sampling = features.get("sampling").map(|value| {
        let s = object(value, "features.sampling");
        keys(s, "features.sampling", &["answer"], &[]);
        decode(s.get("answer"), "features.sampling.answer")
    });
    Plan {
        roots: features.get("roots").map(|v| roots(v, &control)),
        control,
        elicitation,
        sampling,
        call_tools: flag(session, "call_tools", "session"),
        requests,
    }
}
