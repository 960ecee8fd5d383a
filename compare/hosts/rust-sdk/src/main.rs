//! An application embedding the official Rust SDK's client (crate `rmcp`).
//!
//! It is evidence: everything the SDK put on the wire was caused by the few calls below, so a
//! reader can tell the library's behaviour from ours. Usage (the host contract,
//! compare/hosts/README.md):
//!
//!     host --plan PLAN.json -- SERVER_COMMAND...
//!     host --plan PLAN.json --url URL
//!
//! The plan (read by `plan.rs`) says which client features to declare and how to answer; this
//! program names no feature on its command line. Built by `mcp-compare tools install` into
//! tools/hosts/rust-sdk/ from the committed lock.
//!
//! The client is what rmcp's documentation shows: a `ClientHandler` whose `get_info` declares
//! the planned capabilities and whose methods answer the planned features (`list_roots` from
//! the application's roots, `create_elicitation` and `create_message` with the canned answers),
//! served over `TokioChildProcess`, or with `--url` over rmcp's Streamable HTTP client,
//! `StreamableHttpClientTransport::from_uri` (`connect_url`). A feature the plan leaves out is
//! neither declared nor answered by us: its method hands the request to rmcp's own default (the
//! `ClientInfo` handler, crate:rmcp@3.11.0/src/handler/client.rs:329-334, which keeps every
//! default of client.rs:97-112 and 179-190: `sampling/createMessage` is "method not found",
//! `roots/list` an empty list, `elicitation/create` declined). `ClientLifecycleMode::Auto`
//! probes `server/discover` (2026-07-28) and falls back to `initialize` on an older server;
//! `call_tool` on the running service answers an `InputRequiredResult` through the same
//! handler, so the 2026-07-28 embedded requests need no extra code here.
//!
//! `session.requests` are made one by one through the same client, each outcome one line of
//! `<control>/session.jsonl` (README.md, the session record). A plan that subscribes also has
//! the handler's `on_resource_updated` write each update it is handed there.
// Roots are deprecated by SEP-2577 in 2026-07-28; rmcp marks their API deprecated, but it is
// still the SDK's API for the revisions before it.
#![allow(deprecated)]

mod plan;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientInfo, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationCapability, ErrorData,
    FormElicitationCapability, Implementation, ListRootsResult, ProtocolVersion,
    ResourceUpdatedNotificationParam, Root, RootsCapabilities, SamplingCapability,
    UrlElicitationCapability,
};
use rmcp::serde_json::{self, json, Value};
use rmcp::service::{
    ClientInitializeError, ClientLifecycleMode, NotificationContext, RequestContext, RoleClient,
    RunningService, Service, ServiceError,
};
use rmcp::transport::{
    ConfigureCommandExt, IntoTransport, StreamableHttpClientTransport, TokioChildProcess,
};
use rmcp::{ClientHandler, ClientServiceExt};
use tokio::process::Command;

use plan::{List, Plan, Request};

fn fail(message: &str) -> ! {
    eprintln!("rust-sdk host: {message}");
    std::process::exit(1);
}

/// Where the server is: a command to start on stdio, or the URL of one already listening.
enum Server {
    Command(Vec<String>),
    Url(String),
}

fn parse_args() -> (PathBuf, Server) {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.len() == 4 && argv[0] == "--plan" && argv[2] == "--url" && !argv[3].is_empty() {
        return (PathBuf::from(&argv[1]), Server::Url(argv[3].clone()));
    }
    match argv.iter().position(|a| a == "--") {
        Some(2) if argv[0] == "--plan" && argv.len() > 3 => {
            (PathBuf::from(&argv[1]), Server::Command(argv[3..].to_vec()))
        }
        _ => plan::malformed(
            "usage: --plan PLAN.json -- SERVER_COMMAND... | --plan PLAN.json --url URL",
        ),
    }
}

/// A root for a folder: its file URI from the `url` crate (Rust's standard library has no
/// file-URI helper; `Url::from_file_path` is the ecosystem's, and percent-encodes spaces, '#'
/// and non-ASCII letters), named after the folder.
fn root_for(path: &Path) -> Root {
    let uri = url::Url::from_file_path(path)
        .unwrap_or_else(|()| fail(&format!("not an absolute path: {}", path.display())));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let root = Root::new(uri.to_string());
    match name {
        Some(name) => root.with_name(name),
        None => root,
    }
}

/// The application's client handler: it declares what the plan names and answers it; every
/// other request goes to rmcp's own default (the bare `ClientInfo` handler). `updates` is the
/// session record when the plan subscribes: resource updates are written there.
struct PlannedHost {
    info: ClientInfo,
    roots: Option<Arc<Mutex<Vec<Root>>>>,
    elicit: Option<ElicitResult>,
    sample: Option<CreateMessageResult>,
    updates: Option<PathBuf>,
}

impl ClientHandler for PlannedHost {
    fn get_info(&self) -> ClientInfo {
        self.info.clone()
    }

    async fn list_roots(
        &self,
        context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        match &self.roots {
            Some(roots) => Ok(ListRootsResult::new(
                roots.lock().expect("roots lock").clone(),
            )),
            None => ClientHandler::list_roots(&self.info, context).await,
        }
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        match &self.elicit {
            Some(answer) => Ok(answer.clone()),
            None => ClientHandler::create_elicitation(&self.info, request, context).await,
        }
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        match &self.sample {
            Some(answer) => Ok(answer.clone()),
            None => ClientHandler::create_message(&self.info, params, context).await,
        }
    }

    /// rmcp's hook for `notifications/resources/updated`: `handle_notification` hands it the
    /// notification's params (crate:rmcp@3.11.0/src/handler/client.rs:57-59), and the trait's
    /// default ignores them (:228-234). Written as serde writes rmcp's param type.
    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Some(log) = &self.updates {
            let line = json!({"notification": "notifications/resources/updated", "params": params});
            append(log, &line);
        }
    }
}

/// The planned capabilities, nothing more. The builder's type states cannot be chosen at run
/// time, so the (public, `non_exhaustive`) fields are set on a default value:
/// `listChanged` is declared when planned and left out otherwise (what the builder's
/// `enable_roots()` alone gives), elicitation's `form` and `url` are present or absent.
fn capabilities(plan: &Plan) -> ClientCapabilities {
    let mut caps = ClientCapabilities::default();
    if let Some(roots) = &plan.roots {
        let mut declared = RootsCapabilities::default();
        declared.list_changed = roots.list_changed.then_some(true);
        caps.roots = Some(declared);
    }
    if let Some(e) = &plan.elicitation {
        let mut declared = ElicitationCapability::new();
        if e.form {
            declared = declared.with_form(FormElicitationCapability::new());
        }
        if e.url {
            declared = declared.with_url(UrlElicitationCapability::new());
        }
        caps.elicitation = Some(declared);
    }
    if plan.sampling.is_some() {
        caps.sampling = Some(SamplingCapability::default());
    }
    caps
}

fn implementation() -> Implementation {
    Implementation::new("mcp-compare-rust-host", "1.0.0")
}

/// Both eras, newest first, falling back to the newest `initialize` revision.
fn lifecycle() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::LATEST],
        legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
    }
}

/// The SDK's stdio transport. An application passes its server's configured environment; the
/// harness configures the peer through ours, which the child inherits.
fn transport(server: &[String]) -> TokioChildProcess {
    let command = Command::new(&server[0]).configure(|cmd| {
        cmd.args(&server[1..]);
    });
    match TokioChildProcess::builder(command)
        .stderr(Stdio::inherit())
        .spawn()
    {
        Ok((process, _stderr)) => process,
        Err(err) => fail(&format!("cannot start {}: {err}", server[0])),
    }
}

/// With `--url`, rmcp's Streamable HTTP client with its default reqwest backend, as its
/// documentation shows a client connecting to a remote server:
/// `StreamableHttpClientTransport::from_uri`
/// (crate:rmcp@3.11.0/src/transport/common/reqwest/streamable_http_client.rs:550-559, doc at
/// src/transport/streamable_http_client.rs:1994-2006; examples/clients/src/streamable_http.rs
/// of the rust-sdk repository), behind the crate's `transport-streamable-http-client-reqwest`
/// feature (README.md:39). The URI alone: every other setting is
/// `StreamableHttpClientTransportConfig::default()` (streamable_http_client.rs:2335-2354:
/// stateless servers allowed, no auth header, no custom headers, a new session on an expired
/// one) and the client is its `default_http_client()` (reqwest/streamable_http_client.rs:
/// 580-586). Every HTTP request the server sees and its headers are rmcp's: each message's POST
/// (reqwest/streamable_http_client.rs:262-283 and on), the standalone GET stream it opens once
/// the session is up (`spawn_common_stream`, streamable_http_client.rs:1051-1112;
/// reqwest/streamable_http_client.rs:117-135), and the DELETE of the session when the
/// transport closes (reqwest/streamable_http_client.rs:196-216; streamable_http_client.rs:
/// 1938-1984, bounded by 5 s, :43). The rest of the host is the same for both transports
/// (`run`).
async fn connect_url(plan: Plan, url: &str) -> ExitCode {
    run(
        plan,
        StreamableHttpClientTransport::from_uri(url.to_owned()),
    )
    .await
}

/// List the tools, call each with `{}`, make the planned requests, then wait until the server
/// hangs up (or, at a `close` request, close the session and exit 0); a failed call is the
/// server's answer (evidence), not ours to stop on.
async fn session<S: Service<RoleClient>>(
    client: RunningService<RoleClient, S>,
    call_tools: bool,
    requests: Vec<Request>,
    log: PathBuf,
) -> ExitCode {
    if call_tools {
        list_and_call(&client).await;
    }
    for (step, request) in requests.into_iter().enumerate() {
        if let Request::Close = request {
            return close(client, step, &log).await;
        }
        let kind = request.kind();
        let outcome = make(&client, request).await;
        record(&log, step, kind, outcome);
    }
    match client.waiting().await {
        Ok(reason) => {
            eprintln!("rust-sdk host: session ended: {reason:?}");
            ExitCode::SUCCESS
        }
        Err(err) => fail(&format!("session task failed: {err}")),
    }
}

/// `{"close": true}`: `RunningService::cancel`, the consuming form of `close` ("Gracefully
/// close the connection and wait for cleanup to complete", crate:rmcp@3.11.0/src/service.rs:
/// 1229-1237, 1171-1198), as the SDK's own examples end a client (`service.cancel().await?`,
/// examples/clients/src/everything_stdio.rs of the rust-sdk repository). It cancels the serve
/// loop (:1521-1524), gives in-flight handler responses up to 2 s (:1829-1875), then calls the
/// transport's `close` (:1881). For `StreamableHttpClientTransport` (a `WorkerTransport`) that
/// cancels its worker and waits for it (src/transport/worker.rs:402-410), and the worker, on
/// its way out, cancels the POSTs and streams still open and sends the DELETE of the session
/// when the server gave one, bounded by 5 s (src/transport/streamable_http_client.rs:
/// 1930-1984, :43). For `TokioChildProcess` it is its `graceful_shutdown`
/// (src/transport/child_process.rs:206-208, 101-131): drop the writer, closing the server's
/// stdin (src/transport/async_rw.rs:342-346), wait up to 3 s for it to exit (:10, :59-76), then
/// SIGTERM and 3 s more, then `kill()` (SIGKILL and reap, process-wrap 10.0.1
/// src/tokio/core.rs:146-161). It returns once that is done (on stdio the server is then gone)
/// and the line is written: `{}` as the contract has it, the `QuitReason` on stderr. `Err` is
/// only a panic of rmcp's serve task (`JoinError`).
async fn close<S: Service<RoleClient>>(
    client: RunningService<RoleClient, S>,
    step: usize,
    log: &Path,
) -> ExitCode {
    let outcome = match client.cancel().await {
        Ok(reason) => {
            eprintln!("rust-sdk host: session closed: {reason:?}");
            Ok(json!({}))
        }
        Err(err) => Err(format!("JoinError: {err}")),
    };
    write_record(log, step, "close", outcome, None);
    ExitCode::SUCCESS
}

/// The whole tool list, read through the SDK's own pagination helper: `list_all_tools` on the
/// client's `Peer` (reached through `RunningService`'s `Deref`,
/// crate:rmcp@3.11.0/src/service.rs:1131-1136) "Calls `list_tools` until every page is listed"
/// (src/service/client.rs:2044-2047, via `list_all_tools_with_cache_hint` at :2050-2054): its
/// `list_all_pages` (:1998-2041) sends `tools/list` without a cursor, then passes each page's
/// `nextCursor` back verbatim while one is present (`while cursor.is_some()`, :2015; `Cursor`
/// is a plain `String`, src/model.rs:1843, so an empty string is a cursor too). It has no page
/// bound: the contract's 50-page bound is for a host's own loop, and where the SDK has a
/// helper its stopping rule is what gets measured.
async fn list_and_call<S: Service<RoleClient>>(client: &RunningService<RoleClient, S>) {
    match client.list_all_tools().await {
        Ok(tools) => {
            for tool in tools {
                let name = tool.name.clone();
                let params =
                    CallToolRequestParams::new(name.clone()).with_arguments(serde_json_empty());
                if let Err(err) = client.call_tool(params).await {
                    eprintln!("rust-sdk host: tools/call {name} failed: {err}");
                }
            }
        }
        Err(err) => eprintln!("rust-sdk host: tools/list failed: {err}"),
    }
}

/// One planned request through rmcp's client API, its result as serde writes it. `call_tool`,
/// `get_prompt` and `read_resource` are `RunningService`'s own (they answer an
/// `InputRequiredResult` through our handler, crate:rmcp@3.11.0/src/service/client.rs:2240-2245,
/// 2289-2294, 2335-2340); the rest are `Peer`'s, through the `Deref`. A `list` reads every page
/// through the same cursor-following helper as `list_and_call` (`list_all_pages`,
/// client.rs:1999-2041, used by `list_all_*` at :2045-2108); `complete`, `subscribe` and
/// `unsubscribe` are the plain request methods of the `method!` macro (:1733, :1742-1753), the
/// last two returning `()` on the server's empty result (:1268-1282), recorded as `{}`.
async fn make<S: Service<RoleClient>>(
    client: &RunningService<RoleClient, S>,
    request: Request,
) -> Result<Value, ServiceError> {
    fn json_of<T: serde::Serialize>(value: T) -> Value {
        serde_json::to_value(value).unwrap_or_else(|err| fail(&format!("cannot serialise: {err}")))
    }
    Ok(match request {
        Request::List(List::Tools) => json!({"tools": json_of(client.list_all_tools().await?)}),
        Request::List(List::Prompts) => {
            json!({"prompts": json_of(client.list_all_prompts().await?)})
        }
        Request::List(List::Resources) => {
            json!({"resources": json_of(client.list_all_resources().await?)})
        }
        Request::List(List::ResourceTemplates) => {
            json!({"resourceTemplates": json_of(client.list_all_resource_templates().await?)})
        }
        Request::Call(params) => json_of(client.call_tool(params).await?),
        Request::Read(params) => json_of(client.read_resource(params).await?),
        Request::Subscribe(params) => {
            client.subscribe(params).await?;
            json!({})
        }
        Request::Unsubscribe(params) => {
            client.unsubscribe(params).await?;
            json!({})
        }
        Request::GetPrompt(params) => json_of(client.get_prompt(params).await?),
        Request::Complete(params) => json_of(client.complete(params).await?),
        Request::Close => unreachable!("session() closes the session itself"),
    })
}

#[derive(serde::Serialize)]
struct Record {
    step: usize,
    request: &'static str,
    ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    code: Option<i32>,
}

/// Append one line to the session record and put it on disk before the next request, so the
/// harness has every finished step even if the server ends the session mid-way. The error is
/// `ServiceError`'s Display on one line; `code` is the JSON-RPC error's when the server
/// answered with one (`ServiceError::McpError(ErrorData)`, crate:rmcp@3.11.0/src/service.rs:79-81).
fn record(log: &Path, step: usize, request: &'static str, outcome: Result<Value, ServiceError>) {
    let code = match &outcome {
        Err(ServiceError::McpError(data)) => Some(data.code.0),
        _ => None,
    };
    write_record(log, step, request, outcome.map_err(|e| e.to_string()), code);
}

/// One request's line, its error message on one line.
fn write_record(
    log: &Path,
    step: usize,
    request: &'static str,
    outcome: Result<Value, String>,
    code: Option<i32>,
) {
    let line = match outcome {
        Ok(result) => Record {
            step,
            request,
            ok: true,
            result: Some(result),
            error: None,
            code: None,
        },
        Err(err) => Record {
            step,
            request,
            ok: false,
            result: None,
            error: Some(err.split_whitespace().collect::<Vec<_>>().join(" ")),
            code,
        },
    };
    append(log, &line);
}

/// One whole line appended and put on disk at once. Request lines and resource updates both
/// come through here, on the one thread of the current-thread runtime (`main`) with no await
/// inside, so one line is never interleaved with another.
fn append<T: serde::Serialize>(log: &Path, line: &T) {
    let mut text = serde_json::to_string(line).expect("a record serialises");
    text.push('\n');
    let written = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(log)
        .and_then(|mut file| {
            file.write_all(text.as_bytes())?;
            file.flush()?;
            file.sync_data()
        });
    if let Err(err) = written {
        fail(&format!("cannot write {}: {err}", log.display()));
    }
}

/// The server hanging up, even during the handshake, is the normal end of a session: exit 0.
/// Any other failure to connect is reported and exits 1.
fn connect_failed(err: ClientInitializeError) -> ExitCode {
    let closed = match &err {
        ClientInitializeError::ConnectionClosed(_) => true,
        ClientInitializeError::LegacyFallbackFailed { fallback, .. } => {
            matches!(**fallback, ClientInitializeError::ConnectionClosed(_))
        }
        _ => false,
    };
    if closed {
        eprintln!("rust-sdk host: the server closed the connection: {err}");
        return ExitCode::SUCCESS;
    }
    fail(&format!("connect failed: {err}"))
}

fn serde_json_empty() -> rmcp::model::JsonObject {
    rmcp::model::JsonObject::new()
}

/// Poll for each planned change's signal; each fires once: its folders are made and appended
/// as roots, and the server is told when the plan says so.
async fn watch_changes(
    changes: Vec<plan::Change>,
    roots: Arc<Mutex<Vec<Root>>>,
    peer: rmcp::service::Peer<RoleClient>,
) {
    let mut pending = changes;
    while !pending.is_empty() {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let (fired, rest): (Vec<_>, Vec<_>) = pending.into_iter().partition(|c| c.signal.exists());
        pending = rest;
        for change in fired {
            for folder in &change.add_folders {
                if let Err(err) = std::fs::create_dir_all(folder) {
                    fail(&format!("cannot create {}: {err}", folder.display()));
                }
                roots.lock().expect("roots lock").push(root_for(folder));
            }
            if change.notify {
                if let Err(err) = peer.notify_roots_list_changed().await {
                    fail(&format!("notifications/roots/list_changed failed: {err}"));
                }
            }
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let (plan_file, server) = parse_args();
    let plan = plan::read(&plan_file);
    match server {
        Server::Command(command) => run(plan, transport(&command)).await,
        Server::Url(url) => connect_url(plan, &url).await,
    }
}

/// Declare and answer what the plan says over `transport`, then play the session.
async fn run<T, E, A>(mut plan: Plan, transport: T) -> ExitCode
where
    T: IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let info = ClientInfo::new(capabilities(&plan), implementation());
    let call_tools = plan.call_tools;
    let requests = std::mem::take(&mut plan.requests);
    let log = plan.control.join("session.jsonl");
    let subscribes = requests.iter().any(|r| matches!(r, Request::Subscribe(_)));
    if !plan.declares_any() && !subscribes {
        // No feature: the bare ClientInfo is the handler (rmcp accepts it as one), as before.
        return match info.serve_with_lifecycle(transport, lifecycle()).await {
            Ok(client) => session(client, call_tools, requests, log).await,
            Err(err) => connect_failed(err),
        };
    }
    let changes = plan
        .roots
        .as_mut()
        .map(|r| std::mem::take(&mut r.changes))
        .unwrap_or_default();
    let roots = plan.roots.as_ref().map(|r| {
        let folders = r.folders.iter().map(|f| root_for(f)).collect::<Vec<_>>();
        Arc::new(Mutex::new(folders))
    });
    let host = PlannedHost {
        info,
        roots: roots.clone(),
        elicit: plan.elicitation.map(|e| e.answer),
        sample: plan.sampling,
        updates: subscribes.then(|| log.clone()),
    };
    let client = match host.serve_with_lifecycle(transport, lifecycle()).await {
        Ok(client) => client,
        Err(err) => return connect_failed(err),
    };
    if let (Some(roots), false) = (roots, changes.is_empty()) {
        let peer = client.peer().clone();
        tokio::spawn(watch_changes(changes, roots, peer));
    }
    session(client, call_tools, requests, log).await
}
