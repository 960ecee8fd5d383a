//! The host plan (compare/exchange/hosts/README.md) as the Rust SDK host reads it.
//!
//! Parsed with serde_json, the JSON library rmcp itself builds on and re-exports
//! (`rmcp::serde_json`, crate:rmcp@3.11.0/src/lib.rs:43-44, a default feature), so the host's
//! locked dependencies are unchanged. Every key is checked (an unknown key or a wrong type is a
//! one-line error and exit code 2), and the two canned answers are deserialised into rmcp's own
//! result types here, so an answer the SDK cannot represent is refused before the server starts.

use std::path::{Path, PathBuf};

use rmcp::model::{CreateMessageResult, ElicitResult};
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

pub struct Plan {
    pub roots: Option<RootsPlan>,
    pub elicitation: Option<ElicitationPlan>,
    pub sampling: Option<CreateMessageResult>,
    pub call_tools: bool,
}

impl Plan {
    pub fn declares_any(&self) -> bool {
        self.roots.is_some() || self.elicitation.is_some() || self.sampling.is_some()
    }
}

pub fn malformed(why: &str) -> ! {
    eprintln!("rust-sdk host: bad plan: {why}");
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

fn flag(map: &Object, key: &str, at: &str, default: bool) -> bool {
    match map.get(key) {
        None => default,
        Some(Value::Bool(b)) => *b,
        Some(_) => malformed(&format!("{at}.{key}: expected true or false")),
    }
}

fn path(value: &Value, at: &str) -> PathBuf {
    match value.as_str().map(Path::new) {
        Some(p) if p.is_absolute() => p.to_path_buf(),
        _ => malformed(&format!("{at}: expected an absolute path")),
    }
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

fn roots(value: &Value, control: Option<&Path>) -> RootsPlan {
    let at = "features.roots";
    let r = object(value, at);
    keys(r, at, &["folders"], &["list_changed", "changes"]);
    let changes = match r.get("changes") {
        None => Vec::new(),
        Some(Value::Array(items)) => items.iter().map(|item| change(item, control)).collect(),
        Some(_) => malformed("features.roots.changes: expected a list"),
    };
    RootsPlan {
        folders: paths(r.get("folders"), "features.roots.folders"),
        list_changed: flag(r, "list_changed", at, false),
        changes,
    }
}

fn change(value: &Value, control: Option<&Path>) -> Change {
    let at = "features.roots.changes[]";
    let c = object(value, at);
    keys(c, at, &["signal", "add_folders"], &["notify"]);
    let signal = match c.get("signal").and_then(Value::as_str) {
        Some(s) if !s.is_empty() && !s.contains('/') => s,
        _ => malformed(&format!("{at}.signal: expected a file name")),
    };
    let control = control.unwrap_or_else(|| malformed("features.roots.changes needs control"));
    Change {
        signal: control.join(signal),
        add_folders: paths(c.get("add_folders"), &format!("{at}.add_folders")),
        notify: flag(c, "notify", at, true),
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
        &["format", "workspace"],
        &["control", "features", "session", "options"],
    );
    if top.get("format").and_then(Value::as_u64) != Some(1) {
        malformed(&format!("format: expected 1, got {}", top["format"]));
    }
    path(&top["workspace"], "workspace");
    let control = top.get("control").map(|v| path(v, "control"));
    let empty = Value::Object(Object::new());
    let features = object(top.get("features").unwrap_or(&empty), "features");
    keys(
        features,
        "features",
        &[],
        &["roots", "elicitation", "sampling"],
    );
    let session = object(top.get("session").unwrap_or(&empty), "session");
    keys(session, "session", &[], &["call_tools"]);
    // This host has no target-specific knob: any option is one it does not know.
    keys(
        object(top.get("options").unwrap_or(&empty), "options"),
        "options",
        &[],
        &[],
    );
    let elicitation = features.get("elicitation").map(|value| {
        let at = "features.elicitation";
        let e = object(value, at);
        keys(e, at, &["answer"], &["form", "url"]);
        ElicitationPlan {
            form: flag(e, "form", at, true),
            url: flag(e, "url", at, false),
            answer: decode(e.get("answer"), "features.elicitation.answer"),
        }
    });
    let sampling = features.get("sampling").map(|value| {
        let s = object(value, "features.sampling");
        keys(s, "features.sampling", &["answer"], &[]);
        decode(s.get("answer"), "features.sampling.answer")
    });
    Plan {
        roots: features.get("roots").map(|v| roots(v, control.as_deref())),
        elicitation,
        sampling,
        call_tools: flag(session, "call_tools", "session", true),
    }
}
