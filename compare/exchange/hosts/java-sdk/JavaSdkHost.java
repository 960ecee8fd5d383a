// An application embedding the official Java SDK's client (Maven io.modelcontextprotocol.sdk:mcp).
//
// It is evidence: everything the SDK put on the wire was caused by the few calls below, so a
// reader can tell the library's behaviour from ours. Usage (the host contract, CONTRACTS.md):
//
//   java -cp classes:lib/* JavaSdkHost --workspace DIR [--no-roots] [--control DIR] -- SERVER_COMMAND...
//
// `mcp-compare tools install` builds it into tools/hosts/java-sdk/ (lib/ from pom.xml through
// Maven, classes/ from plain javac) and writes bin/host, the launcher the target file names.
//
// We use the client the SDK's documentation shows: McpClient.sync(transport) over a
// StdioClientTransport, the roots capability switched on through ClientCapabilities, the
// application's roots handed over with .roots(...), and addRoot(...) when a folder is added.
// The SDK answers roots/list itself from the roots it was given.

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
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

    public static void main(String[] argv) throws Exception {
        int cut = Arrays.asList(argv).indexOf("--");
        if (cut < 0 || cut == argv.length - 1) {
            fail("missing \"-- SERVER_COMMAND...\"");
        }
        Path workspace = null;
        Path control = null;
        boolean noRoots = false;
        for (int i = 0; i < cut; i++) {
            switch (argv[i]) {
                case "--workspace" -> workspace = Path.of(argv[++i]);
                case "--control" -> control = Path.of(argv[++i]);
                case "--no-roots" -> noRoots = true;
                default -> fail("unknown argument " + argv[i]);
            }
        }
        if (workspace == null) {
            fail("--workspace DIR is required");
        }
        List<String> server = List.of(argv).subList(cut + 1, argv.length);
        workspace = workspace.toAbsolutePath().normalize();

        // The SDK's stdio transport. An application passes its server's configured
        // environment; the harness configures the peer through ours, so all of it is passed on.
        ServerParameters params = ServerParameters.builder(server.get(0))
            .args(new ArrayList<>(server.subList(1, server.size())))
            .env(System.getenv())
            .build();
        StdioClientTransport transport = new StdioClientTransport(params, McpJsonDefaults.getMapper());
        transport.setStdErrorHandler(line -> System.err.println("server stderr: " + line));

        McpClient.SyncSpec spec = McpClient.sync(transport)
            .requestTimeout(Duration.ofSeconds(10))
            .clientInfo(McpSchema.Implementation.builder("mcp-compare-java-host", "1.0.0").build());
        if (!noRoots) {
            // The application's root: its workspace folder as a file URI from the platform's
            // own helper (Path.toUri), handed to the SDK as a Root.
            spec = spec
                .capabilities(McpSchema.ClientCapabilities.builder().roots(true).build())
                .roots(new McpSchema.Root(workspace.toUri().toString(), workspace.getFileName().toString()));
        }
        // Roots are deprecated in SDK 2.2.0 (the 2026-07-28 revision deprecates them), but this is
        // still the documented way for a 2025-11-25 client to offer them.
        // --no-roots declares no roots capability and gives no roots: what the SDK then does
        // with a roots/list request is what gets measured.
        McpSyncClient client = spec.build();

        // The server hanging up is the end of the session: the transport's process ends.
        CountDownLatch hungUp = new CountDownLatch(1);
        try {
            client.initialize();
            Thread watcher = new Thread(() -> {
                transport.awaitForExit();
                hungUp.countDown();
            }, "server-exit");
            watcher.setDaemon(true);
            watcher.start();

            McpSchema.ListToolsResult listing = client.listTools();
            for (McpSchema.Tool tool : listing.tools()) {
                try {
                    client.callTool(McpSchema.CallToolRequest.builder(tool.name()).arguments(Map.of()).build());
                }
                catch (RuntimeException err) { // the server's answer is evidence, not our failure
                    System.err.println("java-sdk host: tools/call " + tool.name() + " failed: " + err);
                }
            }
            Path signal = control != null && !noRoots ? control.resolve("add-root") : null;
            while (!hungUp.await(50, TimeUnit.MILLISECONDS)) {
                if (signal != null && Files.exists(signal)) {
                    signal = null;
                    Path added = workspace.resolve("added root ü");
                    Files.createDirectories(added);
                    // The SDK's Javadoc: addRoot sends notifications/roots/list_changed by itself
                    // once the client is initialized, so no separate rootsListChangedNotification().
                    client.addRoot(new McpSchema.Root(added.toUri().toString(), added.getFileName().toString()));
                }
            }
        }
        catch (RuntimeException err) {
            // The server hanging up, even mid-request, is the normal end of a session; anything
            // else (the server never started, a timeout with the server still there) is not.
            if (hungUp.getCount() == 0 || serverExited(transport)) {
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
