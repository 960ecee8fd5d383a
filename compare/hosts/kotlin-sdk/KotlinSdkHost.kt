// An application embedding the official Kotlin SDK's client (Maven io.modelcontextprotocol:kotlin-sdk).
//
// It is evidence: everything the SDK put on the wire was caused by the few calls below, so a
// reader can tell the library's behaviour from ours. Usage (the host contract,
// compare/hosts/README.md):
//
//   java -cp classes:lib/* KotlinSdkHostKt --plan PLAN.json -- SERVER_COMMAND...
//   java -cp classes:lib/* KotlinSdkHostKt --plan PLAN.json --url URL
//
// The plan (read by KotlinSdkPlan.kt, beside this file) says which client features to declare
// and how to answer; this program names no feature on its command line. `mcp-compare tools
// install` builds it into tools/hosts/kotlin-sdk/ (lib/ and the compiled classes from pom.xml
// through Maven and the Kotlin compiler plugin) and writes bin/host.
//
// We use what the SDK's README shows: the application starts the server process itself and
// hands its streams to StdioClientTransport (or, given --url, the README's Streamable HTTP
// client: httpTransport() below); a Client whose ClientOptions declare the planned
// capabilities; then, per feature, the SDK's own API (read in the pinned sources jars,
// kotlin-sdk-client-jvm-0.16.0-sources.jar and kotlin-sdk-core-jvm-0.16.0-sources.jar):
// - roots: addRoot(uri, name) for each root (the SDK answers roots/list itself from them, and
//   registers that handler only when roots are declared, client/Client.kt:173), and
//   sendRootsListChanged() after a change (addRoot alone does not notify, client/Client.kt:575-583);
// - elicitation: setElicitationHandler(...) (client/Client.kt:680), which refuses a client that
//   did not declare elicitation and fills an accepted form's missing fields from the schema's
//   defaults (the SDK's doing, measured as such);
// - sampling: the SDK has no sampling-specific setter, so the generic
//   setRequestHandler<CreateMessageRequest>(Method.Defined.SamplingCreateMessage) of its Protocol
//   (shared/Protocol.kt:929), which checks the sampling capability was declared
//   (client/Client.kt:352-356) and checks sampling.tools itself (client/Client.kt:387-395).
// The plan's session.requests go through the Client's own call for each kind (request() below);
// each outcome is one line of <control>/session.jsonl, what the SDK returned written by its McpJson.
// A plan that subscribes also gets a handler for notifications/resources/updated through the
// generic setNotificationHandler of the SDK's Protocol (shared/Protocol.kt:994; the Client has no
// resource-specific setter, and registers one itself only for elicitation-complete this way,
// client/Client.kt:714-719): it is handed the SDK's ResourceUpdatedNotification
// (types/notification.kt:295-314), whose params are recorded (onUpdated() below).

import io.modelcontextprotocol.kotlin.sdk.client.Client
import io.modelcontextprotocol.kotlin.sdk.client.ClientOptions
import io.modelcontextprotocol.kotlin.sdk.client.StdioClientTransport
import io.modelcontextprotocol.kotlin.sdk.client.StreamableHttpClientTransport
import io.modelcontextprotocol.kotlin.sdk.shared.Transport
import io.modelcontextprotocol.kotlin.sdk.types.ClientCapabilities
import io.modelcontextprotocol.kotlin.sdk.types.CompleteRequest
import io.modelcontextprotocol.kotlin.sdk.types.CompleteRequestParams
import io.modelcontextprotocol.kotlin.sdk.types.CreateMessageRequest
import io.modelcontextprotocol.kotlin.sdk.types.GetPromptRequest
import io.modelcontextprotocol.kotlin.sdk.types.GetPromptRequestParams
import io.modelcontextprotocol.kotlin.sdk.types.Implementation
import io.modelcontextprotocol.kotlin.sdk.types.ListPromptsRequest
import io.modelcontextprotocol.kotlin.sdk.types.ListPromptsResult
import io.modelcontextprotocol.kotlin.sdk.types.ListResourceTemplatesRequest
import io.modelcontextprotocol.kotlin.sdk.types.ListResourceTemplatesResult
import io.modelcontextprotocol.kotlin.sdk.types.ListResourcesRequest
import io.modelcontextprotocol.kotlin.sdk.types.ListResourcesResult
import io.modelcontextprotocol.kotlin.sdk.types.ListToolsRequest
import io.modelcontextprotocol.kotlin.sdk.types.ListToolsResult
import io.modelcontextprotocol.kotlin.sdk.types.McpException
import io.modelcontextprotocol.kotlin.sdk.types.McpJson
import io.modelcontextprotocol.kotlin.sdk.types.Method
import io.modelcontextprotocol.kotlin.sdk.types.PaginatedRequestParams
import io.modelcontextprotocol.kotlin.sdk.types.PaginatedResult
import io.modelcontextprotocol.kotlin.sdk.types.PromptReference
import io.modelcontextprotocol.kotlin.sdk.types.ReadResourceRequest
import io.modelcontextprotocol.kotlin.sdk.types.ReadResourceRequestParams
import io.modelcontextprotocol.kotlin.sdk.types.ResourceTemplateReference
import io.modelcontextprotocol.kotlin.sdk.types.ResourceUpdatedNotification
import io.modelcontextprotocol.kotlin.sdk.types.SubscribeRequest
import io.modelcontextprotocol.kotlin.sdk.types.SubscribeRequestParams
import io.modelcontextprotocol.kotlin.sdk.types.UnsubscribeRequest
import io.modelcontextprotocol.kotlin.sdk.types.UnsubscribeRequestParams
import io.ktor.client.HttpClient
import io.ktor.client.plugins.sse.SSE
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.io.asSink
import kotlinx.io.asSource
import kotlinx.io.buffered
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.encodeToJsonElement
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.put
import java.io.IOException
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.StandardOpenOption
import java.util.concurrent.TimeUnit
import kotlin.system.exitProcess

private fun fail(message: String): Nothing {
    System.err.println("kotlin-sdk host: $message")
    exitProcess(1)
}

private fun causes(err: Throwable): String =
    generateSequence(err) { it.cause }.joinToString(" <- ") { it.toString() }

/** A folder's root: its file URI from the platform's own helper (Path.toUri), its base name. */
private fun Client.addFolder(folder: Path) = addRoot(folder.toUri().toString(), folder.fileName.toString())

private val EMPTY = JsonObject(emptyMap())

/** Pages read of one list at most: a bound on a server that never stops handing out cursors. */
private const val MAX_PAGES = 50

/**
 * The planned capabilities, nothing more: a plan without features declares none (the SDK's
 * own default for what is not declared is what gets measured, as with the former --no-roots).
 * listChanged is declared when planned and left out otherwise (the SDK takes a Boolean?);
 * elicitation's form and url are present-or-absent objects.
 */
private fun capabilities(plan: HostPlan) = ClientCapabilities(
    roots = plan.roots?.let { ClientCapabilities.Roots(listChanged = if (it.listChanged) true else null) },
    elicitation = plan.elicitation?.let {
        ClientCapabilities.Elicitation(form = EMPTY.takeIf { _ -> it.form }, url = EMPTY.takeIf { _ -> it.url })
    },
    sampling = plan.sampling?.let { ClientCapabilities.Sampling() },
)

/**
 * A planned notification through the SDK's own sendRootsListChanged(). The SDK refuses it
 * unless listChanged was declared (assertNotificationCapability, client/Client.kt:323-328):
 * then nothing goes on the wire, which is the SDK's doing; the session carries on.
 */
private suspend fun notifyRootsChanged(client: Client) {
    try {
        client.sendRootsListChanged()
    } catch (err: IllegalStateException) {
        System.err.println("kotlin-sdk host: the SDK refused notifications/roots/list_changed: ${err.message}")
    }
}

/**
 * Every item of one list, page by page. The SDK has no helper that follows nextCursor: each of
 * its listTools/listPrompts/listResources/listResourceTemplates(request) sends one request and
 * returns that one page (client/Client.kt:446-475, 563-566), and nothing in the client or core
 * sources jars reads further pages. So, as its own docs show a cursor going in (a list request
 * whose PaginatedRequestParams carry it, types/request.kt:261-265; the example of
 * types/tools.dsl.kt:132-137, buildListToolsRequest { cursor = ... }, builds the same but is
 * marked @ExperimentalMcpApi), each nextCursor (PaginatedResult, types/request.kt:246-250) goes
 * back as it came until a page comes without one; an empty string is a cursor too.
 */
private suspend fun <R : PaginatedResult, T> allPages(
    list: suspend (PaginatedRequestParams?) -> R,
    items: (R) -> List<T>,
): List<T> {
    val all = mutableListOf<T>()
    var cursor: String? = null
    for (page in 0 until MAX_PAGES) {
        val result = list(cursor?.let { PaginatedRequestParams(cursor = it) })
        all += items(result)
        cursor = result.nextCursor ?: break
    }
    return all
}

/**
 * One request of the plan through the Client's own call for its kind, the result as the SDK's
 * McpJson writes it. A list is recorded as the SDK's own result type holding every page's items
 * (no nextCursor, which McpJson leaves out: explicitNulls = false, types/jsonUtils.kt:19-27);
 * subscribe and unsubscribe return the SDK's EmptyResult; close returns nothing, recorded as {}.
 */
private suspend fun send(client: Client, request: RequestPlan): JsonElement {
    val target = request.target.orEmpty()
    return when (request.kind) {
        "list" -> when (target) {
            "tools" -> McpJson.encodeToJsonElement(
                ListToolsResult(allPages({ client.listTools(ListToolsRequest(it)) }, ListToolsResult::tools)),
            )
            "prompts" -> McpJson.encodeToJsonElement(
                ListPromptsResult(allPages({ client.listPrompts(ListPromptsRequest(it)) }, ListPromptsResult::prompts)),
            )
            "resources" -> McpJson.encodeToJsonElement(
                ListResourcesResult(
                    allPages({ client.listResources(ListResourcesRequest(it)) }, ListResourcesResult::resources),
                ),
            )
            else -> McpJson.encodeToJsonElement(
                ListResourceTemplatesResult(
                    allPages(
                        { client.listResourceTemplates(ListResourceTemplatesRequest(it)) },
                        ListResourceTemplatesResult::resourceTemplates,
                    ),
                ),
            )
        }
        // The SDK's callTool(name, arguments) as call_tools uses it (client/Client.kt:523-550);
        // JSON values pass through its toJson() unchanged (types/jsonUtils.kt:40-50).
        "call" -> McpJson.encodeToJsonElement(client.callTool(target, request.arguments ?: EMPTY))
        "read" -> McpJson.encodeToJsonElement(
            client.readResource(ReadResourceRequest(ReadResourceRequestParams(target))),
        )
        "subscribe" -> McpJson.encodeToJsonElement(
            client.subscribeResource(SubscribeRequest(SubscribeRequestParams(target))),
        )
        "unsubscribe" -> McpJson.encodeToJsonElement(
            client.unsubscribeResource(UnsubscribeRequest(UnsubscribeRequestParams(target))),
        )
        // The Client's own end of a session: Protocol.close(), "Closes the connection"
        // (shared/Protocol.kt:742-747), which closes the transport (shared/AbstractClientTransport.kt:232-267).
        // StdioClientTransport was handed the process's streams, not the process
        // (client/StdioClientTransport.kt:87-93), so its closeResources() (:242-248) can end the
        // server only through them: it closes its send channel and cancels its coroutines
        // (:286-290), which ends the write coroutine's output.buffered().use { } (:131-136), closing
        // the server's stdin; it closes the server's stdout and stderr sources (:250-257) and waits
        // for its coroutines (:246). It sends no signal; the host leaves the process alone after.
        // Over HTTP the same close() ends in StreamableHttpClientTransport.closeResources()
        // (client/StreamableHttpClientTransport.kt:255-259): it cancels the GET stream and sends
        // no DELETE (that is terminateSession(), :264, which the Client's close does not call).
        "close" -> {
            client.close()
            EMPTY
        }
        "get_prompt" -> {
            // The plan reader let only strings through (a prompt's arguments, as the SDK types them).
            val arguments = request.arguments?.mapValues { it.value.jsonPrimitive.content }
            McpJson.encodeToJsonElement(client.getPrompt(GetPromptRequest(GetPromptRequestParams(target, arguments))))
        }
        else -> {
            val c = request.complete!!
            val ref = if (c.prompt) PromptReference(c.name) else ResourceTemplateReference(c.name)
            val argument = CompleteRequestParams.Argument(c.argument, c.value)
            McpJson.encodeToJsonElement(client.complete(CompleteRequest(CompleteRequestParams(argument, ref))))
        }
    }
}

/** Held while a line is written: a resource update is handled on one of the SDK's coroutines. */
private val recordLock = Any()

/**
 * One line of the session record. The file is opened, written and closed per line, so each
 * line is on disk as soon as it is known; under [recordLock], as an update may arrive while a
 * request's line is written.
 */
private fun append(record: Path, line: JsonObject) {
    synchronized(recordLock) {
        Files.writeString(record, "$line\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND)
    }
}

/**
 * For a plan that subscribes: each resource update the SDK hands our handler, appended when it
 * arrives, its params as the SDK's McpJson writes them. The handler returns a completed
 * Deferred, as the SDK's own setElicitationCompleteHandler does (client/Client.kt:714-719).
 */
private fun onUpdated(client: Client, record: Path) {
    client.setNotificationHandler<ResourceUpdatedNotification>(Method.Defined.NotificationsResourcesUpdated) {
        append(
            record,
            buildJsonObject {
                put("notification", Method.Defined.NotificationsResourcesUpdated.value)
                put("params", McpJson.encodeToJsonElement(it.params))
            },
        )
        CompletableDeferred(Unit)
    }
}

/**
 * One request and its outcome, appended to the session record at once (README.md, "The session
 * record"): the result, or the exception the SDK raised instead with the JSON-RPC code an
 * McpException carries (types/McpException.kt).
 */
private suspend fun request(client: Client, record: Path, step: Int, request: RequestPlan) {
    val line = buildJsonObject {
        put("step", step)
        put("request", request.kind)
        try {
            val result = send(client, request)
            put("ok", true)
            put("result", result)
        } catch (err: CancellationException) {
            throw err
        } catch (err: Exception) { // the SDK's answer is evidence, not our failure
            put("ok", false)
            val message = "${err.javaClass.simpleName}: ${err.message}"
            put("error", message.replace(Regex("\\s*\\R\\s*"), " "))
            if (err is McpException) put("code", err.code)
        }
    }
    append(record, line)
}

/**
 * The SDK's Streamable HTTP client as its README's quickstart ("Creating a Client") shows it:
 * `HttpClient { install(SSE) }` and `StreamableHttpClientTransport(client = httpClient, url = url)`,
 * nothing else. The Ktor engine is the one the README's "Ktor dependencies" names for a client
 * (io.ktor:ktor-client-cio, pinned in pom.xml at the SDK's own Ktor version, 3.5.2), which
 * HttpClient {} finds on the classpath by itself. What the transport then does, in
 * client/StreamableHttpClientTransport.kt of kotlin-sdk-client-jvm-0.16.0-sources.jar: each
 * message is a POST with Accept "application/json, text/event-stream", Content-Type
 * application/json, Mcp-Method (and Mcp-Name from a params name or uri) and the common headers
 * (:180-187, 413-427); the common headers are mcp-session-id once a response has named one
 * (:189) and mcp-protocol-version only when the application has set the transport's public
 * protocolVersion (:145, 406-411), which neither this host nor the SDK's Client does (its
 * connect(), client/Client.kt:202-245, never touches it); a 202 to notifications/initialized
 * makes it open the GET stream itself (:191-194, 287-338), reconnecting with the defaults of
 * ReconnectionOptions (1 s, x1.5, at most 2 failed tries; client/ReconnectionOptions.kt:14-19).
 * Its close (closeResources, :255-259) cancels that stream and sends nothing: the DELETE is a
 * separate call, terminateSession() (:264-285), which the host does not make, as the README's
 * client does not. Every header and request on the wire is the SDK's (and Ktor's).
 */
private fun httpTransport(url: String): Transport {
    val httpClient = HttpClient { install(SSE) }
    return StreamableHttpClientTransport(client = httpClient, url = url)
}

fun main(argv: Array<String>) {
    val cut = argv.indexOf("--")
    // --plan PLAN.json --url URL: the server is already listening at URL (the second form of
    // the host contract, compare/hosts/README.md).
    val byUrl = cut < 0 && argv.size == 4 && argv[0] == "--plan" && argv[2] == "--url"
    if (!byUrl && (cut != 2 || argv[0] != "--plan" || cut == argv.size - 1)) {
        malformed("usage: --plan PLAN.json -- SERVER_COMMAND... | --plan PLAN.json --url URL")
    }
    val plan = readPlan(Path.of(argv[1]))
    // Over stdio the application starts its server; the environment it was given is passed on
    // whole (the harness configures the peer through it), and the server's stderr stays visible.
    val process = if (byUrl) {
        null
    } else {
        try {
            ProcessBuilder(argv.drop(cut + 1)).redirectError(ProcessBuilder.Redirect.INHERIT).start()
        } catch (err: IOException) {
            fail("cannot start the server: $err")
        }
    }
    val transport = if (process == null) {
        httpTransport(argv[3])
    } else {
        StdioClientTransport(
            input = process.inputStream.asSource().buffered(),
            output = process.outputStream.asSink().buffered(),
        )
    }
    // Whether the server is still there: its process, over stdio. Over HTTP there is no process
    // of ours, and the SDK's transport tells the application of no end of the session (its
    // onClose fires only on our own close), so the host makes every planned request and then
    // waits for the harness to end it (the target's `ends: harness`).
    val serverAlive = { process?.isAlive ?: true }
    val client = Client(
        clientInfo = Implementation(name = "mcp-compare-kotlin-host", version = "1.0.0"),
        options = ClientOptions(capabilities = capabilities(plan)),
    )
    plan.roots?.folders?.forEach { client.addFolder(it) }
    plan.elicitation?.let { e -> client.setElicitationHandler { _ -> e.answer } }
    plan.sampling?.let { answer ->
        client.setRequestHandler<CreateMessageRequest>(Method.Defined.SamplingCreateMessage) { _, _ -> answer }
    }
    if (plan.subscribes) onUpdated(client, plan.sessionRecord)
    val code = runBlocking {
        try {
            client.connect(transport)
            if (plan.callTools) {
                // The whole tool list, page by page (allPages: the SDK has no helper that
                // follows nextCursor).
                val tools = allPages({ client.listTools(ListToolsRequest(it)) }, ListToolsResult::tools)
                for (tool in tools) {
                    try {
                        client.callTool(tool.name, emptyMap())
                    } catch (err: Exception) { // the server's answer is evidence, not our failure
                        System.err.println("kotlin-sdk host: tools/call ${tool.name} failed: ${causes(err)}")
                    }
                }
            }
            // The plan's requests, in order; a failed one does not stop the next. Once the server
            // has hung up the session is over, so no further request is made.
            for ((step, planned) in plan.requests.withIndex()) {
                if (!serverAlive()) break
                request(client, plan.sessionRecord, step, planned)
                // The SDK has ended the session its way: no destroy() of ours (below) follows it.
                if (planned.kind == "close") exitProcess(0)
            }
            val pending = (plan.roots?.changes ?: emptyList()).toMutableList()
            // The server hanging up is the end of the session: its process ends.
            while (serverAlive()) {
                for (change in pending.filter { Files.exists(it.signal) }) {
                    pending.remove(change)
                    for (folder in change.addFolders) {
                        Files.createDirectories(folder)
                        client.addFolder(folder)
                    }
                    if (change.notify) notifyRootsChanged(client)
                }
                delay(50)
            }
            0
        } catch (err: Exception) {
            // The server hanging up, even mid-request, is the normal end of a session. The SDK
            // sees the closed pipe before the JVM has reaped the process, so allow it a moment
            // to be seen as ended (a race measured on a loaded machine: "Connection closed").
            if (process != null && process.waitFor(500, TimeUnit.MILLISECONDS)) {
                System.err.println("kotlin-sdk host: ended with the server: ${causes(err)}")
                0
            } else {
                System.err.println("kotlin-sdk host: ${causes(err)}")
                1
            }
        }
    }
    runCatching { runBlocking { client.close() } }
    process?.destroy()
    exitProcess(code)
}
