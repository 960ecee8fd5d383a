// An application embedding the official Kotlin SDK's client (Maven io.modelcontextprotocol:kotlin-sdk).
//
// It is evidence: everything the SDK put on the wire was caused by the few calls below, so a
// reader can tell the library's behaviour from ours. Usage (the host contract, CONTRACTS.md):
//
//   java -cp classes:lib/* KotlinSdkHostKt --workspace DIR [--no-roots] [--control DIR] -- SERVER_COMMAND...
//
// `mcp-compare tools install` builds it into tools/hosts/kotlin-sdk/ (lib/ and the compiled
// classes from pom.xml through Maven and the Kotlin compiler plugin) and writes bin/host.
//
// We use what the SDK's README shows: the application starts the server process itself and
// hands its streams to StdioClientTransport; a Client whose ClientOptions declare the roots
// capability; addRoot(...) for each root, and sendRootsListChanged() after a change (addRoot
// alone does not notify). The SDK answers roots/list itself from the roots it was given.

import io.modelcontextprotocol.kotlin.sdk.client.Client
import io.modelcontextprotocol.kotlin.sdk.client.ClientOptions
import io.modelcontextprotocol.kotlin.sdk.client.StdioClientTransport
import io.modelcontextprotocol.kotlin.sdk.types.ClientCapabilities
import io.modelcontextprotocol.kotlin.sdk.types.Implementation
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.io.asSink
import kotlinx.io.asSource
import kotlinx.io.buffered
import java.io.IOException
import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.TimeUnit
import kotlin.system.exitProcess

private fun fail(message: String): Nothing {
    System.err.println("kotlin-sdk host: $message")
    exitProcess(1)
}

private class Args(val workspace: Path, val control: Path?, val noRoots: Boolean, val server: List<String>)

private fun parseArgs(argv: Array<String>): Args {
    val cut = argv.indexOf("--")
    if (cut < 0 || cut == argv.size - 1) fail("missing \"-- SERVER_COMMAND...\"")
    var workspace: Path? = null
    var control: Path? = null
    var noRoots = false
    var i = 0
    while (i < cut) {
        when (argv[i]) {
            "--workspace" -> workspace = Path.of(argv[++i])
            "--control" -> control = Path.of(argv[++i])
            "--no-roots" -> noRoots = true
            else -> fail("unknown argument ${argv[i]}")
        }
        i++
    }
    if (workspace == null) fail("--workspace DIR is required")
    return Args(workspace.toAbsolutePath().normalize(), control, noRoots, argv.drop(cut + 1))
}

private fun causes(err: Throwable): String =
    generateSequence(err) { it.cause }.joinToString(" <- ") { it.toString() }

fun main(argv: Array<String>) {
    val args = parseArgs(argv)
    // The application starts its server; the environment it was given is passed on whole
    // (the harness configures the peer through it), and the server's stderr stays visible.
    val process = try {
        ProcessBuilder(args.server).redirectError(ProcessBuilder.Redirect.INHERIT).start()
    } catch (err: IOException) {
        fail("cannot start the server: $err")
    }
    val transport = StdioClientTransport(
        input = process.inputStream.asSource().buffered(),
        output = process.outputStream.asSink().buffered(),
    )
    // --no-roots declares no roots capability and adds no roots: what the SDK then does with a
    // roots/list request is what gets measured.
    val capabilities = if (args.noRoots) {
        ClientCapabilities()
    } else {
        ClientCapabilities(roots = ClientCapabilities.Roots(listChanged = true))
    }
    val client = Client(
        clientInfo = Implementation(name = "mcp-compare-kotlin-host", version = "1.0.0"),
        options = ClientOptions(capabilities = capabilities),
    )
    if (!args.noRoots) {
        // The application's root: its workspace folder as a file URI from the platform's own
        // helper (Path.toUri), handed to the SDK as a uri and a name.
        client.addRoot(args.workspace.toUri().toString(), args.workspace.fileName.toString())
    }
    val code = runBlocking {
        try {
            client.connect(transport)
            val listing = client.listTools()
            for (tool in listing.tools) {
                try {
                    client.callTool(tool.name, emptyMap())
                } catch (err: Exception) { // the server's answer is evidence, not our failure
                    System.err.println("kotlin-sdk host: tools/call ${tool.name} failed: ${causes(err)}")
                }
            }
            var signal = if (args.control != null && !args.noRoots) args.control.resolve("add-root") else null
            // The server hanging up is the end of the session: its process ends.
            while (process.isAlive) {
                if (signal != null && Files.exists(signal)) {
                    signal = null
                    val added = args.workspace.resolve("added root ü")
                    Files.createDirectories(added)
                    client.addRoot(added.toUri().toString(), added.fileName.toString())
                    client.sendRootsListChanged()
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
