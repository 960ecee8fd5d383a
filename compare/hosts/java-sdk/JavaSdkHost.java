// An application embedding the official Java SDK's client (Maven io.modelcontextprotocol.sdk:mcp).
//
// It is evidence: everything the SDK put on the wire was caused by the few calls below, so a
// reader can tell the library's behaviour from ours. Usage (the host contract,
// compare/hosts/README.md):
//
//   java -cp classes:lib/* JavaSdkHost --plan PLAN.json -- SERVER_COMMAND...
//   java -cp classes:lib/* JavaSdkHost --plan PLAN.json --url URL
//
// The plan (read by JavaSdkPlan.java, beside this file) says which client features to declare and
// how to answer; this program names no feature on its command line. `mcp-compare tools install`
// builds it into tools/hosts/java-sdk/ (lib/ from pom.xml through Maven, classes/ from plain
// javac) and writes bin/host, the launcher the target file names.
//
// We use the client the SDK's documentation shows: McpClient.sync(transport) over a
// StdioClientTransport (or, given --url, the SDK's Streamable HTTP client transport: see
// httpTransport() below), the features switched on through ClientCapabilities, and for each one
// the SyncSpec hook the SDK offers: .roots(...) (the SDK answers roots/list itself from the
// roots it was given, and addRoot(...) when a folder is added), .elicitation(...) for form mode
// and .urlElicitation(...) for URL mode of elicitation/create, each only when the plan declares
// that mode, .sampling(...) for sampling/createMessage.
// What the SDK does with them, read in mcp-core 2.2.0's McpAsyncClient.java. Central serves no
// sources jar for it, so each line below is from the pinned jar's own line table (javap -l) and
// the text from gh:modelcontextprotocol/java-sdk@01981b90 (its strings match the jar's):
// - :208, the roots are kept in a ConcurrentHashMap keyed by URI, so roots/list answers in
//   that map's order, not the order handed over; :224-226, the roots/list handler exists only
//   when roots are declared;
// - :229-236, a declared sampling capability without a sampling handler is refused;
// - :239-256, `elicitation: {}` counts as form mode, and a declared mode without its handler
//   is refused;
// - :503-525, addRoot notifies by itself whenever listChanged was declared (:519).
// The plan's session.requests go through McpSyncClient's own call for each kind (request()
// below); each outcome is one line of <control>/session.jsonl, written by the SDK's mapper.
// A plan that subscribes also gets the SDK's hook for resource updates,
// SyncSpec.resourcesUpdateConsumer(...) (McpClient.java:396 in the pinned jar's line table);
// the SDK hands it no notification: on each notifications/resources/updated it reads the URI
// again itself (McpAsyncClient.java:1009-1014, its handler registered at :293-294) and hands
// each consumer that read's contents() (:1016), so that list is what gets recorded.

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

public final class JavaSdkHost {

    private JavaSdkHost() {
    }

    private static void fail(String message) {
        System.err.println("java-sdk host: " + message);
        System.exit(1);
    }

    // A root for a folder: its file URI from the platform's own helper (Path.toUri), named
    // after the folder.
    private static McpSchema.Root rootFor(Path folder) {
        return new McpSchema.Root(folder.toUri().toString(), folder.getFileName().toString());
    }

    // The SDK's documented Streamable HTTP client (docs/client.md, "Streamable HTTP":
    // HttpClientStreamableHttpTransport.builder("http://your-mcp-server").endpoint("/mcp").build()),
    // in the core mcp-core jar, with its defaults and nothing else: the URL's origin as the base
    // URI and its path as the endpoint, exactly that documented form. What the defaults are, in
    // mcp-core 2.2.0's HttpClientStreamableHttpTransport.java (the pinned jar's line tables, as
    // above; Central serves no sources jar): the Builder (:674-702) starts from
    // HttpClient.newBuilder() at HTTP/1.1, endpoint "/mcp", resumableStreams true,
    // openConnectionOnStartup false, a 10 s connect timeout, no request customizer, and offers
    // the versions 2025-03-26, 2025-06-18 and 2025-11-25 only (not 2024-11-05, which its stdio
    // transport offers); each POST carries Accept "application/json, text/event-stream",
    // Content-Type, Cache-Control and MCP-Protocol-Version (the negotiated version, else the
    // newest it offers), plus Mcp-Session-Id once it has one (:490-509); the first response
    // that names a session (markInitialized, :524-528) makes it open the GET stream itself
    // (reconnect(null), :353-373); closeGracefully() (:284-291) closes the session, whose
    // onClose sends DELETE with the session id when there is one (:225-227, 232-250). All of it
    // the SDK's doing: this host adds no header, option, retry or session handling.
    private static McpClientTransport httpTransport(String url) {
        URI endpoint = URI.create(url);
        return HttpClientStreamableHttpTransport.builder(endpoint.getScheme() + "://" + endpoint.getRawAuthority())
            .endpoint(endpoint.getRawPath())
            .build();
    }

    public static void main(String[] argv) throws Exception {
        int cut = Arrays.asList(argv).indexOf("--");
        // --plan PLAN.json --url URL: the server is already listening at URL (the second form
        // of the host contract, compare/hosts/README.md).
        boolean byUrl = cut < 0 && argv.length == 4 && argv[0].equals("--plan") && argv[2].equals("--url");
        if (!byUrl && (cut != 2 || !argv[0].equals("--plan") || cut == argv.length - 1)) {
            JavaSdkPlan.malformed("usage: --plan PLAN.json -- SERVER_COMMAND... | --plan PLAN.json --url URL");
        }
        McpJsonMapper mapper = McpJsonDefaults.getMapper();
        JavaSdkPlan plan = JavaSdkPlan.read(Path.of(argv[1]), mapper);

        // Over stdio, the SDK's stdio transport. An application passes its server's configured
        // environment; the harness configures the peer through ours, so all of it is passed on.
        StdioClientTransport stdio = null;
        if (!byUrl) {
            List<String> server = List.of(argv).subList(cut + 1, argv.length);
            ServerParameters params = ServerParameters.builder(server.get(0))
                .args(new ArrayList<>(server.subList(1, server.size())))
                .env(System.getenv())
                .build();
            stdio = new StdioClientTransport(params, mapper);
            stdio.setStdErrorHandler(line -> System.err.println("server stderr: " + line));
        }
        McpClientTransport transport = byUrl ? httpTransport(argv[3]) : stdio;

        McpClient.SyncSpec spec = McpClient.sync(transport)
            .requestTimeout(Duration.ofSeconds(10))
            .clientInfo(McpSchema.Implementation.builder("mcp-compare-java-host", "1.0.0").build());
        // A plan with no feature sets no capabilities at all (the SDK's own default is what gets
        // measured, as with the former --no-roots); otherwise each planned feature is declared
        // and given its handler, and nothing else is.
        if (plan.declaresAny()) {
            McpSchema.ClientCapabilities.Builder caps = McpSchema.ClientCapabilities.builder();
            if (plan.roots != null) {
                // listChanged is the application's choice here; a Boolean, never null: addRoot
                // unboxes it.
                caps.roots(plan.roots.listChanged());
                spec = spec.roots(plan.roots.folders().stream().map(JavaSdkHost::rootFor).toList());
            }
            if (plan.elicitation != null) {
                caps.elicitation(plan.elicitation.form(), plan.elicitation.url());
                McpSchema.ElicitResult answer = plan.elicitation.answer();
                // A hook for each declared mode and for no other, so a request in a mode the
                // plan leaves out reaches the SDK's own handling, never an answer of ours. The
                // SDK refuses a declared mode without its hook, and `{}` (neither flag) is form
                // mode to it (:239-256), so that plan gets the form hook.
                if (plan.elicitation.form() || !plan.elicitation.url()) {
                    spec = spec.elicitation(request -> answer);
                }
                if (plan.elicitation.url()) {
                    spec = spec.urlElicitation(request -> answer);
                }
            }
            if (plan.sampling != null) {
                caps.sampling();
                McpSchema.CreateMessageResult answer = plan.sampling;
                spec = spec.sampling(request -> answer);
            }
            spec = spec.capabilities(caps.build());
        }
        if (plan.subscribes()) {
            Path record = plan.sessionRecord;
            spec = spec.resourcesUpdateConsumer(contents -> {
                Map<String, Object> line = new LinkedHashMap<>();
                line.put("notification", "notifications/resources/updated");
                line.put("params", contents);
                try {
                    append(record, mapper, line);
                }
                catch (UncheckedIOException err) { // the SDK would only log it: the host fails
                    fail(causes(err));
                }
            });
        }
        // Roots, sampling and logging are deprecated in SDK 2.2.0 (the 2026-07-28 revision
        // deprecates them), but these are still the documented ways for a 2025-11-25 client.
        McpSyncClient client = spec.build();

        // The server hanging up is the end of the session: the transport's process ends. Over
        // HTTP there is no process of ours to watch, and the SDK's transport tells the
        // application of no end of the session, so the host waits for the harness to end it
        // (the target's `ends: harness`) and makes every planned request.
        CountDownLatch hungUp = new CountDownLatch(1);
        StdioClientTransport process = stdio;
        try {
            client.initialize();
            if (process != null) {
                Thread watcher = new Thread(() -> {
                    process.awaitForExit();
                    hungUp.countDown();
                }, "server-exit");
                watcher.setDaemon(true);
                watcher.start();
            }

            if (plan.callTools) {
                // The whole tool list through the SDK's own helper: listTools() with no cursor
                // reads every page itself (McpAsyncClient.java:749-755 in the pinned jar's line
                // table; McpSyncClient.java:263 blocks on it). It asks for McpSchema.FIRST_PAGE,
                // then Mono.expand sends each nextCursor back through listTools(cursor) (:750-751)
                // and gathers the pages' tools into one result (:752-755). Its own end test is
                // "nextCursor null or empty" (:751, String.isEmpty), so an empty-string cursor
                // ends the walk there, and it sets no bound on the number of pages: both are the
                // SDK's doing, measured as such, so no loop of ours stands in for it.
                McpSchema.ListToolsResult listing = client.listTools();
                for (McpSchema.Tool tool : listing.tools()) {
                    try {
                        client.callTool(McpSchema.CallToolRequest.builder(tool.name()).arguments(Map.of()).build());
                    }
                    catch (RuntimeException err) { // the server's answer is evidence, not our failure
                        System.err.println("java-sdk host: tools/call " + tool.name() + " failed: " + err);
                    }
                }
            }
            // The plan's requests, in order; a failed one does not stop the next. Once the server
            // has hung up the session is over, so no further request is made (the SDK would
            // only wait out each one's timeout: see the target file's serve_until).
            for (int step = 0; step < plan.requests.size() && hungUp.getCount() > 0; step++) {
                request(client, mapper, plan.sessionRecord, step, plan.requests.get(step));
                if (plan.requests.get(step).kind().equals("close")) {
                    System.exit(0); // the SDK has ended the session and its server: we are done
                }
            }
            List<JavaSdkPlan.Change> pending = new ArrayList<>(plan.roots == null ? List.of() : plan.roots.changes());
            while (!hungUp.await(50, TimeUnit.MILLISECONDS)) {
                for (JavaSdkPlan.Change change : List.copyOf(pending)) {
                    if (Files.exists(change.signal())) {
                        pending.remove(change);
                        applyChange(client, plan.roots.listChanged(), change);
                    }
                }
            }
        }
        catch (RuntimeException err) {
            // The server hanging up, even mid-request, is the normal end of a session; anything
            // else (the server never started, a timeout with the server still there) is not.
            if (process != null && (hungUp.getCount() == 0 || serverExited(process))) {
                System.err.println("java-sdk host: ended with the server: " + causes(err));
            }
            else {
                System.err.println("java-sdk host: " + causes(err));
                client.close();
                System.exit(1);
            }
        }
        client.close();
        System.exit(0);
    }

    // One request of the plan through McpSyncClient's own call for its kind, its outcome appended
    // to the session record at once (README.md, "The session record"): what the call returned,
    // written by the SDK's own mapper, or the exception it raised instead, with the JSON-RPC code
    // an McpError carries (McpError.getJsonRpcError()).
    private static void request(McpSyncClient client, McpJsonMapper mapper, Path record, int step,
            JavaSdkPlan.Request request) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("step", step);
        line.put("request", request.kind());
        try {
            Object result = send(client, request);
            line.put("ok", true);
            line.put("result", result == null ? Map.of() : result);
        }
        catch (RuntimeException err) { // the SDK's answer is evidence, not our failure
            line.put("ok", false);
            String message = err.getClass().getSimpleName() + ": " + err.getMessage();
            line.put("error", message.replaceAll("\\s*\\R\\s*", " "));
            if (err instanceof McpError mcp && mcp.getJsonRpcError() != null
                    && mcp.getJsonRpcError().code() != null) {
                line.put("code", mcp.getJsonRpcError().code());
            }
        }
        append(record, mapper, line);
    }

    // One line of the session record, by the SDK's mapper. Opened, written and closed per line,
    // so each outcome is on disk as soon as it ends; synchronized, as a resource update arrives
    // on an SDK thread while a request's line may be written. A record that cannot be written
    // is the host's failure (exit 1), not the SDK's.
    private static synchronized void append(Path record, McpJsonMapper mapper, Map<String, Object> line) {
        try {
            Files.writeString(record, mapper.writeValueAsString(line) + "\n", StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        }
        catch (IOException err) {
            throw new UncheckedIOException("cannot write " + record, err);
        }
    }

    // The SDK call for one request; null where the SDK returns nothing (subscribe, unsubscribe,
    // close).
    // A list is read whole by the SDK itself: listTools(), listPrompts(), listResources() and
    // listResourceTemplates() with no cursor each ask for McpSchema.FIRST_PAGE, send every
    // nextCursor back through their cursor overload until one comes null or empty (Mono.expand),
    // and return one result of every page's items (McpAsyncClient.java:749-755, 1041-1047,
    // 836-842, 922-928 in the pinned jar's line table, the cursor test at :751, 1043, 838, 924),
    // with no bound on the pages: the SDK's doing, so no loop of ours stands in for it.
    private static Object send(McpSyncClient client, JavaSdkPlan.Request request) {
        String target = request.target();
        switch (request.kind()) {
            case "list":
                return switch (target) {
                    case "tools" -> client.listTools();
                    case "prompts" -> client.listPrompts();
                    case "resources" -> client.listResources();
                    default -> client.listResourceTemplates();
                };
            case "call":
                Map<String, Object> arguments = request.arguments() == null ? Map.of() : request.arguments();
                return client.callTool(McpSchema.CallToolRequest.builder(target).arguments(arguments).build());
            case "read":
                return client.readResource(McpSchema.ReadResourceRequest.builder(target).build());
            case "subscribe":
                client.subscribeResource(McpSchema.SubscribeRequest.builder(target).build());
                return null;
            case "unsubscribe":
                client.unsubscribeResource(McpSchema.UnsubscribeRequest.builder(target).build());
                return null;
            case "close":
                // The sync client's documented end (docs/client.md: client.closeGracefully()).
                // In the pinned jar's line tables: McpSyncClient.java:150-156 blocks up to 10 s on
                // McpAsyncClient.closeGracefully() and returns false, after logging, if that failed
                // or timed out; that one (McpAsyncClient.java:435-436) dismisses the session's
                // pending responses, then StdioClientTransport.closeGracefully() (:401-443):
                // completes its sinks (:406-408), which closes no stream, waits 100 ms (:411), then
                // Process.destroy() (:415), SIGTERM on Linux (the JDK's ProcessImpl closes its end
                // of the server's stdin only after signalling), and waits for the exit (:416).
                // Over HTTP the same call ends in HttpClientStreamableHttpTransport.closeGracefully()
                // (:284-291): whatever it sends (a DELETE with the session id, :225-250) is the SDK's.
                if (!client.closeGracefully()) {
                    throw new IllegalStateException("McpSyncClient.closeGracefully() returned false: the SDK's close "
                            + "failed or outlasted its 10000 ms (it logs which)");
                }
                return null;
            case "get_prompt":
                // Arguments only when the plan gives some, as an application without any would.
                McpSchema.GetPromptRequest.Builder prompt = McpSchema.GetPromptRequest.builder(target);
                return client.getPrompt(
                        (request.arguments() == null ? prompt : prompt.arguments(request.arguments())).build());
            default:
                JavaSdkPlan.Complete c = request.complete();
                McpSchema.CompleteReference ref = c.prompt() ? new McpSchema.PromptReference(c.name())
                        : new McpSchema.ResourceReference(c.name());
                return client.completeCompletion(McpSchema.CompleteRequest
                    .builder(ref, new McpSchema.CompleteRequest.CompleteArgument(c.argument(), c.value()))
                    .build());
        }
    }

    // One planned roots change: its folders made and appended as roots. The SDK's addRoot sends
    // notifications/roots/list_changed by itself, once per root, whenever listChanged was
    // declared and the client is initialized (McpAsyncClient.java:519-523), so the SDK gives no
    // way to add a root silently then; with listChanged undeclared, a planned notification goes
    // through the SDK's own rootsListChangedNotification() (McpAsyncClient.java:575).
    private static void applyChange(McpSyncClient client, boolean listChanged, JavaSdkPlan.Change change)
            throws java.io.IOException {
        for (Path folder : change.addFolders()) {
            Files.createDirectories(folder);
            client.addRoot(rootFor(folder));
        }
        if (change.notifyServer() && !listChanged) {
            client.rootsListChangedNotification();
        }
    }

    private static String causes(Throwable err) {
        StringBuilder text = new StringBuilder(String.valueOf(err));
        for (Throwable cause = err.getCause(); cause != null; cause = cause.getCause()) {
            text.append(" <- ").append(cause);
        }
        return text.toString();
    }

    // Whether the server process the transport started has ended (false if it never started).
    private static boolean serverExited(StdioClientTransport transport) {
        CountDownLatch exited = new CountDownLatch(1);
        Thread probe = new Thread(() -> {
            try {
                transport.awaitForExit();
                exited.countDown();
            }
            catch (RuntimeException notStarted) {
                // no process: nothing exited
            }
        }, "server-exit-probe");
        probe.setDaemon(true);
        probe.start();
        try {
            return exited.await(500, TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException err) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

}
