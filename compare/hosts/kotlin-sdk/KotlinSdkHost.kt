// An application embedding the official Kotlin SDK's client (Maven io.modelcontextprotocol:kotlin-sdk).
//
// It is evidence: everything the SDK put on the wire was caused by the few calls below, so a
// reader can tell the library's behaviour from ours. Usage (the host contract,
// compare/hosts/README.md):
//
//   java -cp classes:lib/* KotlinSdkHostKt --plan PLAN.json -- SERVER_COMMAND...
//
// The plan (read by KotlinSdkPlan.kt, beside this file) says which client features to declare
// and how to answer; this program names no feature on its command line. `mcp-compare tools
// install` builds it into tools/hosts/kotlin-sdk/ (lib/ and the compiled classes from pom.xml
// through Maven and the Kotlin compiler plugin) and writes bin/host.
//
// We use what the SDK's README shows: the application starts the server process itself and
// hands its streams to StdioClientTransport; a Client whose ClientOptions declare the planned
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

import io.modelcontextprotocol.kotlin.sdk.client.Client
import io.modelcontextprotocol.kotlin.sdk.client.ClientOptions
import io.modelcontextprotocol.kotlin.sdk.client.StdioClientTransport
import io.modelcontextprotocol.kotlin.sdk.types.ClientCapabilities
import io.modelcontextprotocol.kotlin.sdk.types.CreateMessageRequest
import io.modelcontextprotocol.kotlin.sdk.types.Implementation
import io.modelcontextprotocol.kotlin.sdk.types.ListToolsRequest
import io.modelcontextprotocol.kotlin.sdk.types.Method
import io.modelcontextprotocol.kotlin.sdk.types.PaginatedRequestParams
import io.modelcontextprotocol.kotlin.sdk.types.Tool
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.io.asSink
import kotlinx.io.asSource
import kotlinx.io.buffered
import kotlinx.serialization.json.JsonObject
import java.io.IOException
import java.nio.file.Files
import java.nio.file.Path
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

fun main(argv: Array<String>) {
    val cut = argv.indexOf("--")
    if (cut != 2 || argv[0] != "--plan" || cut == argv.size - 1) {
        malformed("usage: --plan PLAN.json -- SERVER_COMMAND...")
    }
    val plan = readPlan(Path.of(argv[1]))
    val server = argv.drop(cut + 1)
    // The application starts its server; the environment it was given is passed on whole
    // (the harness configures the peer through it), and the server's stderr stays visible.
    val process = try {
        ProcessBuilder(server).redirectError(ProcessBuilder.Redirect.INHERIT).start()
    } catch (err: IOException) {
        fail("cannot start the server: $err")
    }
    val transport = StdioClientTransport(
        input = process.inputStream.asSource().buffered(),
        output = process.outputStream.asSink().buffered(),
    )
    val client = Client(
        clientInfo = Implementation(name = "mcp-compare-kotlin-host", version = "1.0.0"),
        options = ClientOptions(capabilities = capabilities(plan)),
    )
    plan.roots?.folders?.forEach { client.addFolder(it) }
    plan.elicitation?.let { e -> client.setElicitationHandler { _ -> e.answer } }
    plan.sampling?.let { answer ->
        client.setRequestHandler<CreateMessageRequest>(Method.Defined.SamplingCreateMessage) { _, _ -> answer }
    }
    val code = runBlocking {
        try {
            client.connect(transport)
            if (plan.callTools) {
                // The whole tool list. The SDK has no helper that follows nextCursor: its
                // listTools(request) sends one tools/list and returns that one page
                // (client/Client.kt:563-566), and nothing in the client or core sources jars
                // reads further pages. So, as its own docs show a cursor going in (a
                // ListToolsRequest whose PaginatedRequestParams carry it, types/tools.kt:282,
                // types/request.kt:261-265; the buildListToolsRequest { cursor = ... } example of
                // types/tools.dsl.kt:132-137 builds the same but is @ExperimentalMcpApi), each
                // nextCursor (types/tools.kt:304) goes back as it came until a page comes without
                // one; an empty string is a cursor too.
                val tools = mutableListOf<Tool>()
                var cursor: String? = null
                for (page in 0 until MAX_PAGES) {
                    val request = if (cursor == null) ListToolsRequest() else ListToolsRequest(PaginatedRequestParams(cursor = cursor))
                    val listing = client.listTools(request)
                    tools += listing.tools
                    cursor = listing.nextCursor ?: break
                }
                for (tool in tools) {
                    try {
                        client.callTool(tool.name, emptyMap())
                    } catch (err: Exception) { // the server's answer is evidence, not our failure
                        System.err.println("kotlin-sdk host: tools/call ${tool.name} failed: ${causes(err)}")
                    }
                }
            }
            val pending = (plan.roots?.changes ?: emptyList()).toMutableList()
            // The server hanging up is the end of the session: its process ends.
            while (process.isAlive) {
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
            if (process.waitFor(500, TimeUnit.MILLISECONDS)) {
                System.err.println("kotlin-sdk host: ended with the server: ${causes(err)}")
                0
            } else {
                System.err.println("kotlin-sdk host: ${causes(err)}")
                1
            }
        }
    }
    runCatching { runBlocking { client.close() } }
    process.destroy()
    exitProcess(code)
}
