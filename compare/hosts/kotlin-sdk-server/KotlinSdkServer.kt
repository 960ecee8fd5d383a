// An MCP server written with the official Kotlin SDK's own server API (Maven
// io.modelcontextprotocol:kotlin-sdk): a Server over a StdioServerTransport, or, with --http PORT,
// the same Server behind the SDK's Ktor Streamable HTTP endpoint.
//
// It is evidence like the hosts beside it: it registers the same small set as the TypeScript
// and fastmcp server hosts (two tools, one with an output schema, a static resource, a resource
// template, a prompt, completion for the prompt's argument and the template's variable, and a
// tool that counts up in steps reporting its progress and stops on a cancel) with the calls the
// SDK's README shows, and nothing else. What reaches the wire (the protocol version agreed, how
// lists, unknown names, cursors and malformed input are answered, what a cancel stops) is the
// SDK's doing, so the column is the SDK's server side. The scenarios name no tool of ours but
// count_steps, which the progress and cancel scenarios call where a server lists it.
//
//   java -cp classes:lib/* KotlinSdkServerKt              # stdio, until stdin closes
//   java -cp classes:lib/* KotlinSdkServerKt --http PORT  # Streamable HTTP at http://127.0.0.1:PORT/mcp
//
// `mcp-compare tools install` builds it into tools/hosts/kotlin-sdk-server/ (lib/ and the
// compiled classes from pom.xml through Maven and the Kotlin compiler plugin) and writes bin/host.
//
// Where each call is shown: README.md of gh:modelcontextprotocol/kotlin-sdk@a06d699d (the
// newest README we hold; every call checked against the pinned 0.16.0 sources jars,
// kotlin-sdk-server-jvm-0.16.0-sources.jar and kotlin-sdk-core-jvm-0.16.0-sources.jar):
// - Server(serverInfo, ServerOptions(capabilities = ServerCapabilities(...))): README.md:316-326.
//   The SDK derives nothing: it declares what the application passes (ServerSession.kt:367-395
//   returns the capabilities it was given) and installs the list/get/read handlers only for
//   what is declared (Server.kt:216-276). So this host passes what the README shows for these
//   features: tools, prompts and resources with listChanged = true (README.md:
//   323, 382, 441; the SDK then sends the list_changed notifications itself, Server.kt:140-162),
//   resources without subscribe (README.md:412: only for a server that sends updates), and
//   completions = ServerCapabilities.Completions (README.md:494). Nothing else (no logging);
// - tools: addTool(name, description, inputSchema, outputSchema = ...) { request -> ... },
//   README.md:446-452 and Server.kt:333-357 (outputSchema is a parameter there). The SDK has no
//   structured-output helper and checks nothing about a result (Server.kt:641-672), so the add
//   handler returns structuredContent and the same JSON as a text block, as the spec's tools
//   page asks; the SDK does not check arguments either, so a handler reads what it needs;
// - resource: addResource(uri, name, description, mimeType) { request -> ... }, README.md:387-402;
// - template: addResourceTemplate(uriTemplate, name, description, mimeType) { request, variables
//   -> ... }, Server.kt:582-601 (its KDoc; kotlin-sdk-server/Module.md:110-111 names templates);
//   the SDK matches the URI and hands over the variables;
// - prompt: addPrompt(name, description, arguments = listOf(PromptArgument(..., required =
//   true))) { request -> GetPromptResult(...) }, README.md:328-344;
// - completion: the SDK has no completion registry; README.md:486-517 shows the session's
//   generic setRequestHandler<CompleteRequest>(Method.Defined.CompletionComplete) (Protocol.kt:929)
//   after createSession, and routes every completion/complete to that one handler with no check
//   of its own (ServerSession.kt:313-365 asserts no capability for it). So which references get
//   values, and the empty answer for any other, is this handler's choice, not the SDK's;
// - progress: README.md:461 says a long-running tool "can report progress via the request
//   context": the RequestHandlerExtra the SDK installs in every handler's coroutine context,
//   reached through currentRequestHandlerExtra(), whose sendNotification tags the notification
//   with the request's id so a transport can route it with the request (Protocol.kt:167-193,
//   215-216 of the 0.16.0 core sources; with the JSON responses of the HTTP mode below, the
//   SDK sends such notifications on the GET stream instead, StreamableHttpServerTransport.kt:
//   283-290, and drops them when none is open). The notification is ProgressNotification(
//   ProgressNotificationParams(token, progress, total, message)) (notification.kt:207-242).
//   The SDK sends whatever it is handed, so the handler looks for the request's token itself,
//   request.meta?.progressToken (tools.kt:212-216, request.kt:30-39), as the SDK's own
//   progress tool does (conformance-test/.../ConformanceTools.kt:116-117 at a06d699d);
// - cancellation: the SDK cancels the handler's coroutine job on notifications/cancelled and
//   suppresses its response (Protocol.kt:544-553, 610-637); handlers "are cancelled
//   cooperatively, so always re-throw CancellationException" (the setRequestHandler KDoc,
//   Protocol.kt:924-927; :988-992: the built-in notifications/cancelled handler "is what cancels
//   the running job"). So count_steps waits with the cancellable delay() and lets the
//   CancellationException through, as Server.kt:660-661 does around every tool handler;
// - stdio: createSession(StdioServerTransport(input = System.in..., output = System.out...)),
//   README.md:562-567 (the 0.16.0 constructor's names, StdioServerTransport.kt:91-95), then
//   wait for the session's onClose (samples/weather-stdio-server McpWeatherServer.kt:55-62),
//   which the transport fires on EOF (StdioServerTransport.kt:59-61);
// - Streamable HTTP (--http PORT): embeddedServer(CIO, host = "127.0.0.1", port = port) {
//   mcpStreamableHttp { mcpServer } }.start(wait = true), the README's server quickstart
//   (README.md:182-236), with the one Server for every session as there (the SDK shares a
//   Server across sessions, KtorServer.kt:535-536 of the 0.16.0 sources). mcpStreamableHttp
//   (KtorServer.kt:284-308) is called with every default: path /mcp, stateful sessions kept by
//   the SDK's own StreamableHttpSessionManager, JSON responses (enableJsonResponse = true, set
//   by the SDK itself, :302), and DNS-rebinding protection on with the localhost hosts and,
//   since no hosts are passed, the localhost origins (:591-599). The SDK routes every POST, GET
//   and DELETE at /mcp itself (:216-241: a POST without a session opens one, :509-558; any
//   other request finds its session or is refused, :483-503, :575-589), so every status a
//   client sees is the SDK's; Ktor's router answers only paths other than /mcp. Completion is
//   set, as for stdio, on each session, from the Server's onConnect (Server.kt:284-290), which
//   createSession calls once the session is registered (:272-277) and before the SDK hands the
//   initialize POST to it (KtorServer.kt:535-543). The engine is ktor-server-cio, as the README
//   uses, at the SDK's Ktor version.
//
// Logging: the SDK logs through kotlin-logging (8.0.4 in its closure) on the SLF4J API and ships
// no SLF4J backend; none is added, so SLF4J prints its "no providers" notice to stderr. The
// README says nothing about configuring logging, so nothing else is configured either, and
// kotlin-logging's own startup line ("kotlin-logging: initializing... active logger factory:
// Slf4jLoggerFactory"), which that version prints to System.out by default (KotlinLogging.class;
// off only with -Dkotlin-logging.logStartupMessage=false or KOTLIN_LOGGING_STARTUP_MESSAGE=false),
// reaches stdout ahead of the first message: any stdio server built as the README shows does so.

import io.ktor.server.cio.CIO
import io.ktor.server.engine.embeddedServer
import io.modelcontextprotocol.kotlin.sdk.server.Server
import io.modelcontextprotocol.kotlin.sdk.server.ServerOptions
import io.modelcontextprotocol.kotlin.sdk.server.ServerSession
import io.modelcontextprotocol.kotlin.sdk.server.StdioServerTransport
import io.modelcontextprotocol.kotlin.sdk.server.mcpStreamableHttp
import io.modelcontextprotocol.kotlin.sdk.shared.currentRequestHandlerExtra
import io.modelcontextprotocol.kotlin.sdk.types.CallToolResult
import io.modelcontextprotocol.kotlin.sdk.types.CompleteRequest
import io.modelcontextprotocol.kotlin.sdk.types.CompleteResult
import io.modelcontextprotocol.kotlin.sdk.types.GetPromptResult
import io.modelcontextprotocol.kotlin.sdk.types.Implementation
import io.modelcontextprotocol.kotlin.sdk.types.Method
import io.modelcontextprotocol.kotlin.sdk.types.ProgressNotification
import io.modelcontextprotocol.kotlin.sdk.types.ProgressNotificationParams
import io.modelcontextprotocol.kotlin.sdk.types.PromptArgument
import io.modelcontextprotocol.kotlin.sdk.types.PromptMessage
import io.modelcontextprotocol.kotlin.sdk.types.PromptReference
import io.modelcontextprotocol.kotlin.sdk.types.ReadResourceResult
import io.modelcontextprotocol.kotlin.sdk.types.ResourceTemplateReference
import io.modelcontextprotocol.kotlin.sdk.types.Role
import io.modelcontextprotocol.kotlin.sdk.types.ServerCapabilities
import io.modelcontextprotocol.kotlin.sdk.types.TextContent
import io.modelcontextprotocol.kotlin.sdk.types.TextResourceContents
import io.modelcontextprotocol.kotlin.sdk.types.ToolSchema
import kotlinx.coroutines.Job
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.io.asSink
import kotlinx.io.asSource
import kotlinx.io.buffered
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.double
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import kotlinx.serialization.json.put
import kotlinx.serialization.json.putJsonObject
import java.io.FilterInputStream
import java.util.concurrent.CountDownLatch

private val NOTES = listOf("alpha", "beta", "gamma")
private const val NOTE_TEMPLATE = "mcp-compare://notes/{name}"

/** An object schema's properties, each of one JSON type. */
private fun properties(vararg names: Pair<String, String>): JsonObject = buildJsonObject {
    for ((name, type) in names) putJsonObject(name) { put("type", type) }
}

/**
 * Completion, on the session as the README shows: the names from the fixed list that start
 * with what was typed, for the prompt's argument and the template's variable.
 */
private fun ServerSession.answerCompletions() {
    setRequestHandler<CompleteRequest>(Method.Defined.CompletionComplete) { request, _ ->
        val ref = request.ref
        val ours = (ref is PromptReference && ref.name == "greet") ||
            (ref is ResourceTemplateReference && ref.uri == NOTE_TEMPLATE)
        val values = if (ours && request.argument.name == "name") {
            NOTES.filter { it.startsWith(request.argument.value) }
        } else {
            emptyList()
        }
        CompleteResult(CompleteResult.Completion(values = values, total = values.size, hasMore = false))
    }
}

fun main(args: Array<String>) {
    val server = Server(
        serverInfo = Implementation(name = "mcp-compare-kotlin-sdk-server", version = "1.0.0"),
        options = ServerOptions(
            capabilities = ServerCapabilities(
                tools = ServerCapabilities.Tools(listChanged = true),
                resources = ServerCapabilities.Resources(listChanged = true),
                prompts = ServerCapabilities.Prompts(listChanged = true),
                completions = ServerCapabilities.Completions,
            ),
        ),
    )

    // A tool with a required argument (what a call without it tests) and a plain text result.
    // The SDK does not hold arguments to the input schema (Server.kt:641-672), so a call
    // without the message reaches the handler, which reads it as absent.
    server.addTool(
        name = "echo",
        description = "Answer with the message it was given.",
        inputSchema = ToolSchema(properties = properties("message" to "string"), required = listOf("message")),
    ) { request ->
        val message = request.arguments?.get("message")?.jsonPrimitive?.content
        CallToolResult(content = listOf(TextContent(text = "$message")))
    }

    // A tool with an output schema: structuredContent, and the same JSON as text.
    server.addTool(
        name = "add",
        description = "Add two numbers.",
        inputSchema = ToolSchema(
            properties = properties("a" to "number", "b" to "number"),
            required = listOf("a", "b"),
        ),
        outputSchema = ToolSchema(properties = properties("sum" to "number"), required = listOf("sum")),
    ) { request ->
        val args = request.arguments ?: JsonObject(emptyMap())
        val sum = args.getValue("a").jsonPrimitive.double + args.getValue("b").jsonPrimitive.double
        val output = buildJsonObject { put("sum", sum) }
        CallToolResult(content = listOf(TextContent(text = output.toString())), structuredContent = output)
    }

    // A tool that counts up in steps, reporting each as progress when the request carried a
    // token, and stopping on a cancel (see the header: progress and cancellation).
    server.addTool(
        name = "count_steps",
        title = "Count steps",
        description = "Counts up in steps, reporting its progress.",
        inputSchema = ToolSchema(
            properties = properties("steps" to "integer", "delay_ms" to "integer"),
            required = listOf("steps", "delay_ms"),
        ),
    ) { request ->
        val args = request.arguments ?: JsonObject(emptyMap())
        val steps = args.getValue("steps").jsonPrimitive.int
        val delayMs = args.getValue("delay_ms").jsonPrimitive.long
        val token = request.meta?.progressToken
        val context = checkNotNull(currentRequestHandlerExtra()) { "count_steps outside a request" }
        for (i in 1..steps) {
            delay(delayMs)
            if (token != null) {
                val params = ProgressNotificationParams(token, i.toDouble(), steps.toDouble(), "step $i of $steps")
                context.sendNotification(ProgressNotification(params))
            }
        }
        CallToolResult(content = listOf(TextContent(text = "counted $steps")))
    }

    // A static text resource.
    server.addResource(
        uri = "mcp-compare://readme",
        name = "readme",
        description = "A short text.",
        mimeType = "text/plain",
    ) { request ->
        val text = "served by the Kotlin SDK"
        ReadResourceResult(listOf(TextResourceContents(text = text, uri = request.uri, mimeType = "text/plain")))
    }

    // A resource template; the SDK matches the URI and passes its variables.
    server.addResourceTemplate(
        uriTemplate = NOTE_TEMPLATE,
        name = "note",
        description = "A note by name.",
        mimeType = "text/plain",
    ) { request, variables ->
        val text = "note ${variables["name"]}"
        ReadResourceResult(listOf(TextResourceContents(text = text, uri = request.uri, mimeType = "text/plain")))
    }

    // A prompt with one required argument. The SDK hands the request over as it came (it does
    // not check required arguments, Server.kt:679-693), so a missing name reads as absent here.
    server.addPrompt(
        name = "greet",
        description = "Greet someone by name.",
        arguments = listOf(PromptArgument(name = "name", description = "Who to greet.", required = true)),
    ) { request ->
        val text = "Say hello to ${request.arguments?.get("name")}."
        GetPromptResult(listOf(PromptMessage(Role.User, TextContent(text = text))))
    }

    val httpAt = args.indexOf("--http")
    if (httpAt >= 0) {
        val port = args.getOrNull(httpAt + 1)?.toIntOrNull()
        if (port == null) {
            System.err.println("kotlin-sdk server: --http needs a port number")
            kotlin.system.exitProcess(2)
        }
        server.onConnect { server.sessions.values.forEach { it.answerCompletions() } }
        System.err.println("kotlin-sdk server: Streamable HTTP at http://127.0.0.1:$port/mcp")
        embeddedServer(CIO, host = "127.0.0.1", port = port) {
            mcpStreamableHttp { server }
        }.start(wait = true)
        return
    }

    // The README registers the completion handler (and the sample the close callback) on the
    // session createSession returns, but createSession has already started reading stdin by
    // then. Measured: with the client's lines already waiting, every request was dispatched
    // before the handler existed (-32601 for completion/complete), and an EOF right after
    // initialize closed the session before onClose was set, so the process never exited. So
    // stdin is held shut until both are in place: the SDK reads the same bytes, a moment later.
    val ready = CountDownLatch(1)
    val stdin = object : FilterInputStream(System.`in`) {
        override fun read(): Int = ready.await().let { super.read() }

        override fun read(b: ByteArray, off: Int, len: Int): Int = ready.await().let { super.read(b, off, len) }
    }
    val transport = StdioServerTransport(
        input = stdin.asSource().buffered(),
        output = System.out.asSink().buffered(),
    )
    runBlocking {
        val session = server.createSession(transport)
        session.answerCompletions()
        val done = Job()
        session.onClose { done.complete() }
        ready.countDown()
        done.join()
    }
}
