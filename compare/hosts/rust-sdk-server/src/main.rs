//! An MCP server written with the official Rust SDK's own server API (crate `rmcp`).
//!
//! It is evidence like the client hosts: it registers the same small set as the TypeScript
//! and fastmcp server hosts (tools `echo` and `add`, the latter with a typed result so rmcp
//! derives an output schema and sends `structuredContent`, and `count_steps`, which counts in
//! steps reporting its progress and stops on a cancel; a static resource; a resource
//! template; a prompt; completion for the prompt's argument and the template's variable) in
//! the ways rmcp's documentation shows, and nothing else. So what reaches the wire (the
//! capabilities declared, how lists, unknown names, missing arguments and cursors are
//! answered) is rmcp's doing, and the column is the SDK's server side.
//!
//! Tools and the prompt go through rmcp's macros (`#[tool_router]`/`#[tool]`,
//! `#[prompt_router]`/`#[prompt]`, then `#[tool_handler]` and `#[prompt_handler]` on the
//! `ServerHandler`); resources, the template and completion have no macro in rmcp, so they
//! are `ServerHandler` methods, as its README shows. rmcp asks the server to declare its
//! capabilities itself in `get_info`: we declare exactly the four features registered here.
//!
//!     host              # stdio, until stdin closes
//!     host --http PORT  # Streamable HTTP at http://127.0.0.1:PORT/mcp, until it is signalled
//!
//! With `--http PORT` the same server (the same handler, so the same registrations) is served
//! over rmcp's own Streamable HTTP server, `StreamableHttpService`, mounted at `/mcp` on an
//! axum router as rmcp's example does (`examples/servers/src/counter_streamhttp.rs` of
//! gh:modelcontextprotocol/rust-sdk; the crate's source, cited below, is rmcp 3.11.0 as cargo
//! unpacks it: ~/.cargo/registry/src/index.crates.io-*/rmcp-3.11.0/).
//!
//! Built by `mcp-compare tools install` into tools/hosts/rust-sdk-server/ from the
//! committed lock.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    ProgressNotificationParam, PromptMessage, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Reference, Resource, ResourceContents, ResourceTemplate, Role,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::stdio;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{
    prompt, prompt_handler, prompt_router, schemars, tool, tool_handler, tool_router, ErrorData,
    Json, RoleServer, ServerHandler, ServiceExt,
};
use serde::{Deserialize, Serialize};

const README: &str = "mcp-compare://readme";
const NOTE_TEMPLATE: &str = "mcp-compare://notes/{name}";
const NOTE_PREFIX: &str = "mcp-compare://notes/";
/// What completion offers for the prompt's `name` and the template's `name`.
const NAMES: [&str; 3] = ["alpha", "beta", "gamma"];

#[derive(Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    message: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: f64,
    b: f64,
}

/// The typed result of `add`: rmcp derives the tool's output schema from it.
#[derive(Serialize, schemars::JsonSchema)]
struct Sum {
    sum: f64,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct CountArgs {
    steps: u32,
    delay_ms: u64,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct GreetArgs {
    name: String,
}

#[derive(Clone)]
struct Server;

#[tool_router]
impl Server {
    #[tool(description = "Answer with the message it was given.")]
    fn echo(&self, Parameters(EchoArgs { message }): Parameters<EchoArgs>) -> String {
        message
    }

    #[tool(description = "Add two numbers.")]
    fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> Json<Sum> {
        Json(Sum { sum: a + b })
    }

    /// Counts to `steps`, one step every `delay_ms`, so the scenarios have a request that runs
    /// long enough to show progress and to be cancelled while it runs.
    ///
    /// Progress goes as rmcp's progress example sends it (examples/servers/src/common/
    /// progress_demo.rs of gh:modelcontextprotocol/rust-sdk, and its README's "Progress
    /// notifications"): the handler takes the request's `RequestContext` and calls
    /// `context.peer.notify_progress(ProgressNotificationParam::new(token, i).with_total(..)
    /// .with_message(..))` (rmcp-3.11.0 src/service/server.rs:947, src/model.rs:1816-1838).
    /// rmcp leaves the token to the handler; unlike the example, which refuses a call without
    /// one, this reads it with `RequestMetaObject::get_progress_token` (src/model/meta.rs:438-441)
    /// and sends nothing when there is none.
    ///
    /// A cancel reaches the handler through `RequestContext::ct`, which rmcp documents as
    /// "cancelled when the CancelledNotification is received" (src/service.rs:1274-1275; the
    /// serve loop does it at :1716-1724). Each wait races that token, so the handler stops at
    /// once. rmcp then drops whatever the handler returns for a cancelled request (:1568-1571):
    /// the error below never reaches the wire through rmcp's own doing.
    #[tool(description = "Counts up in steps, reporting its progress.")]
    async fn count_steps(
        &self,
        Parameters(CountArgs { steps, delay_ms }): Parameters<CountArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<String, ErrorData> {
        let token = context.meta.get_progress_token();
        for i in 1..=steps {
            tokio::select! {
                _ = tokio::time::sleep(std::time::Duration::from_millis(delay_ms)) => {}
                _ = context.ct.cancelled() => {
                    return Err(ErrorData::internal_error("cancelled", None));
                }
            }
            if let Some(token) = &token {
                let progress = ProgressNotificationParam::new(token.clone(), f64::from(i))
                    .with_total(f64::from(steps))
                    .with_message(format!("step {i} of {steps}"));
                context
                    .peer
                    .notify_progress(progress)
                    .await
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            }
        }
        Ok(format!("counted {steps}"))
    }
}

#[prompt_router]
impl Server {
    #[prompt(description = "Greet someone by name.")]
    async fn greet(
        &self,
        Parameters(GreetArgs { name }): Parameters<GreetArgs>,
    ) -> Vec<PromptMessage> {
        vec![PromptMessage::new_text(
            Role::User,
            format!("Say hello to {name}."),
        )]
    }
}

#[tool_handler]
#[prompt_handler]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_prompts()
            .enable_resources()
            .enable_completions()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("mcp-compare-rust-sdk-server", "1.0.0"))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let readme = Resource::new(README, "readme").with_mime_type("text/plain");
        Ok(ListResourcesResult::with_all_items(vec![readme]))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let note = ResourceTemplate::new(NOTE_TEMPLATE, "note").with_mime_type("text/plain");
        Ok(ListResourceTemplatesResult::with_all_items(vec![note]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri.as_str();
        let text = match uri.strip_prefix(NOTE_PREFIX) {
            _ if uri == README => "served by the Rust SDK".to_string(),
            Some(name) if !name.is_empty() && !name.contains('/') => format!("note {name}"),
            // rmcp's documented answer for a URI nothing serves.
            _ => return Err(ErrorData::resource_not_found("resource not found", None)),
        };
        let contents = ResourceContents::text(text, uri).with_mime_type("text/plain");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let ours = match &request.r#ref {
            Reference::Prompt(prompt) => prompt.name == "greet",
            Reference::Resource(template) => template.uri == NOTE_TEMPLATE,
            _ => false, // a kind of reference later revisions may add
        };
        let typed = &request.argument.value;
        let values = if ours && request.argument.name == "name" {
            NAMES
                .iter()
                .filter(|n| n.starts_with(typed.as_str()))
                .map(|n| n.to_string())
                .collect()
        } else {
            Vec::new()
        };
        let completion =
            CompletionInfo::new(values).map_err(|e| ErrorData::internal_error(e, None))?;
        Ok(CompleteResult::new(completion))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(at) = args.iter().position(|a| a == "--http") {
        let port: u16 = match args.get(at + 1).map(|p| p.parse()) {
            Some(Ok(port)) => port,
            _ => return Err("--http needs a port number".into()),
        };
        return serve_http(port).await;
    }
    let service = Server.serve(stdio()).await?;
    service.waiting().await?;
    Ok(())
}

/// The same server over rmcp's Streamable HTTP, as its example serves it
/// (examples/servers/src/counter_streamhttp.rs): `StreamableHttpService::new` (rmcp-3.11.0
/// src/transport/streamable_http_server/tower.rs:1554) with a factory that makes our handler
/// for each session, rmcp's in-memory `LocalSessionManager` (session/local.rs:31-37, its
/// default) and `StreamableHttpServerConfig::default()` (tower.rs:336-351): stateful sessions
/// (`legacy_session_mode: true`, :341), SSE responses (`json_response: false`, :342), rmcp's
/// own Host check allowing the loopback names (:344, applied first thing at :1960-1964) and no
/// Origin check (`allowed_origins` empty, :345, so :1361-1363 lets any Origin through). The
/// example adds only a cancellation token for its Ctrl-C shutdown; we pass none (the process
/// ends when it is signalled). The service keeps the sessions itself and answers every POST,
/// GET and DELETE (`handle`, tower.rs:1955-1992, reached through its tower `Service` impl at
/// :1495-1512), so every status a client sees is rmcp's: axum's router only mounts it at /mcp
/// (`nest_service`), and the listener is on the loopback address only.
async fn serve_http(port: u16) -> Result<(), Box<dyn std::error::Error>> {
    let service = StreamableHttpService::new(
        || Ok(Server),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("rust-sdk server: Streamable HTTP at http://127.0.0.1:{port}/mcp");
    axum::serve(listener, router).await?;
    Ok(())
}
