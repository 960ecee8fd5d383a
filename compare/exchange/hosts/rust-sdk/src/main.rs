//! An application embedding the official Rust SDK's client (crate `rmcp`).
//!
//! It is evidence: everything the SDK put on the wire was caused by the few calls below, so a
//! reader can tell the library's behaviour from ours. Usage (the host contract, CONTRACTS.md):
//!
//!     host --workspace DIR [--no-roots] [--control DIR] -- SERVER_COMMAND...
//!
//! Built by `mcp-compare tools install` into tools/hosts/rust-sdk/ from the committed lock.
//!
//! The client is what rmcp's documentation shows: a `ClientHandler` whose `get_info` declares
//! `roots` (with `listChanged`, built by `ClientCapabilities::builder()`) and whose
//! `list_roots` answers with the application's roots, served over `TokioChildProcess`.
//! `ClientLifecycleMode::Auto` probes `server/discover` (2026-07-28) and falls back to
//! `initialize` on an older server; `call_tool` on the running service answers an
//! `InputRequiredResult` through the same handler, so the 2026-07-28 roots path needs no
//! extra code here. `--no-roots` serves a bare `ClientInfo` (which rmcp also accepts as a
//! handler): no roots capability, and the SDK's own default answer to `roots/list`.
// Roots are deprecated by SEP-2577 in 2026-07-28; rmcp marks their API deprecated, but it is
// still the SDK's API for the revisions before it.
#![allow(deprecated)]

use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientInfo, ErrorData, Implementation,
    ListRootsResult, ProtocolVersion, Root,
};
use rmcp::service::{
    ClientInitializeError, ClientLifecycleMode, RequestContext, RoleClient, RunningService, Service,
};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{ClientHandler, ClientServiceExt};
use tokio::process::Command;

struct Args {
    workspace: PathBuf,
    control: Option<PathBuf>,
    no_roots: bool,
    server: Vec<String>,
}

fn fail(message: &str) -> ! {
    eprintln!("rust-sdk host: {message}");
    std::process::exit(1);
}

fn parse_args() -> Args {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let cut = match argv.iter().position(|a| a == "--") {
        Some(i) if i + 1 < argv.len() => i,
        _ => fail("missing \"-- SERVER_COMMAND...\""),
    };
    let (mut workspace, mut control, mut no_roots) = (None, None, false);
    let mut own = argv[..cut].iter();
    while let Some(arg) = own.next() {
        match arg.as_str() {
            "--workspace" => workspace = own.next().map(PathBuf::from),
            "--control" => control = own.next().map(PathBuf::from),
            "--no-roots" => no_roots = true,
            other => fail(&format!("unknown argument {other}")),
        }
    }
    let Some(workspace) = workspace else {
        fail("--workspace DIR is required")
    };
    Args {
        workspace,
        control,
        no_roots,
        server: argv[cut + 1..].to_vec(),
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

/// The application's client handler: it declares roots and serves them.
struct RootsHost {
    info: ClientInfo,
    roots: Arc<Mutex<Vec<Root>>>,
}

impl ClientHandler for RootsHost {
    fn get_info(&self) -> ClientInfo {
        self.info.clone()
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        let roots = self.roots.lock().expect("roots lock").clone();
        Ok(ListRootsResult::new(roots))
    }
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

/// List the tools, call each with `{}`, then wait until the server hangs up; a failed call is
/// the server's answer (evidence), not ours to stop on.
async fn session<S: Service<RoleClient>>(client: RunningService<RoleClient, S>) -> ExitCode {
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
    match client.waiting().await {
        Ok(reason) => {
            eprintln!("rust-sdk host: session ended: {reason:?}");
            ExitCode::SUCCESS
        }
        Err(err) => fail(&format!("session task failed: {err}")),
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

/// Poll for the harness's `add-root` signal; then add a root and tell the server.
async fn watch_control(
    control: PathBuf,
    workspace: PathBuf,
    roots: Arc<Mutex<Vec<Root>>>,
    peer: rmcp::service::Peer<RoleClient>,
) {
    let signal = control.join("add-root");
    while !signal.exists() {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let added = workspace.join("added root ü");
    if let Err(err) = std::fs::create_dir_all(&added) {
        fail(&format!("cannot create {}: {err}", added.display()));
    }
    roots.lock().expect("roots lock").push(root_for(&added));
    if let Err(err) = peer.notify_roots_list_changed().await {
        fail(&format!("notifications/roots/list_changed failed: {err}"));
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args = parse_args();
    let workspace = std::path::absolute(&args.workspace)
        .unwrap_or_else(|err| fail(&format!("bad --workspace: {err}")));
    let transport = transport(&args.server);
    if args.no_roots {
        // No roots capability and no list_roots of ours: ClientInfo is itself a handler.
        let info = ClientInfo::new(ClientCapabilities::default(), implementation());
        return match info.serve_with_lifecycle(transport, lifecycle()).await {
            Ok(client) => session(client).await,
            Err(err) => connect_failed(err),
        };
    }
    let roots = Arc::new(Mutex::new(vec![root_for(&workspace)]));
    let capabilities = ClientCapabilities::builder()
        .enable_roots()
        .enable_roots_list_changed()
        .build();
    let host = RootsHost {
        info: ClientInfo::new(capabilities, implementation()),
        roots: roots.clone(),
    };
    let client = match host.serve_with_lifecycle(transport, lifecycle()).await {
        Ok(client) => client,
        Err(err) => return connect_failed(err),
    };
    if let Some(control) = args.control {
        let peer = client.peer().clone();
        tokio::spawn(watch_control(control, workspace, roots, peer));
    }
    session(client).await
}
