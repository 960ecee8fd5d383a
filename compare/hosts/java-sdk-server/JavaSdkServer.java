// An MCP server written with the official Java SDK's own server API (Maven
// io.modelcontextprotocol.sdk:mcp): McpServer.sync over a StdioServerTransportProvider, or, with
// --http PORT, the same server over the SDK's servlet Streamable HTTP transport.
//
// It is evidence like the hosts beside it: it registers the same small set as the TypeScript
// and fastmcp server hosts (two tools, one with an output schema, a static resource, a resource
// template, a prompt, completion for the prompt's argument and the template's variable, and a
// tool that counts up in steps reporting its progress) with the specifications the SDK's server
// documentation shows, and nothing else. What reaches the wire (the protocol version agreed,
// how lists, unknown names, bad arguments, cursors and malformed input are answered, which
// output the tool result carries, what happens on a cancel) is the SDK's doing, so the column
// is the SDK's server side. The scenarios name no tool of ours but count_steps, which the
// progress and cancel scenarios call where a server lists it.
//
//   java -cp classes:lib/* JavaSdkServer              # stdio, until stdin closes
//   java -cp classes:lib/* JavaSdkServer --http PORT  # Streamable HTTP at http://127.0.0.1:PORT/mcp
//
// `mcp-compare tools install` builds it into tools/hosts/java-sdk-server/ (lib/ from pom.xml
// through Maven, classes/ from plain javac) and writes bin/host, which the target file names.
//
// Where each call is shown: the SDK's server guide, docs/server.md of
// gh:modelcontextprotocol/java-sdk@305e4cbd (https://java.sdk.modelcontextprotocol.io/latest/server/;
// every call below checked against the pinned 2.2.0 jar's signatures with javap). Central serves
// no sources jar for 2.2.0, so the SDK lines cited are from that jar's own line table (javap -l):
// - McpServer.sync(transportProvider).serverInfo(...).capabilities(...): server.md:33-42;
//   StdioServerTransportProvider(McpJsonDefaults.getMapper()): server.md:113-114;
// - capabilities: passing any replaces the defaults the SDK would derive from what was
//   registered (McpServerFeatures.java:199-211), and those defaults leave completions out, while
//   completion/complete is only answered when completions is declared (McpAsyncServer.java:
//   258-259). So they are passed as server.md:322-330 shows them for these features:
//   tools(true), resources(false, true), prompts(true), completions(). We do not pass logging
//   (nothing here logs); the SDK adds it to whatever it is given (McpAsyncServer.java:145);
// - tools: SyncToolSpecification.builder().tool(Tool.builder(name, schema)...).callHandler(...),
//   server.md:343-358; the schema as a plain map, the type MIGRATION-2.0.md:82 gives it;
// - structured output: Tool.Builder.outputSchema(Map) and CallToolResult.Builder
//   .structuredContent(Object). The handler returns only the structured result: the SDK checks
//   it against the output schema (McpAsyncServer.java:447-456) and, when the content list is
//   empty, writes the JSON text block itself (:466-470), so that block is its serialisation;
// - text content: TextContent.builder(text), server.md:420;
// - resource: SyncResourceSpecification(Resource.builder(uri, name)...), server.md:452-462;
// - template: SyncResourceTemplateSpecification(ResourceTemplate.builder(template, name)...),
//   server.md:545-555 (the handler gets the requested URI and reads the variable from it);
// - prompt: SyncPromptSpecification(Prompt.builder(name).arguments(PromptArgument.builder
//   (...).required(true)...)), server.md:566-581; PromptMessage.builder(role, content),
//   server.md:611-632;
// - completion: SyncCompletionSpecification(PromptReference / ResourceReference, handler),
//   server.md:654-704;
// - progress: McpSyncServerExchange.progressNotification(ProgressNotification), the exchange's
//   documented "current progress status has changed for long-running operations" call
//   (McpSyncServerExchange.java:129-136 at 305e4cbd; 2.2.0 line table :153-154), with
//   ProgressNotification.builder(token, progress).total(...).message(...) (MIGRATION-2.0.md:70).
//   The SDK sends whatever it is handed (McpAsyncServerExchange.java:258-262), so the handler
//   looks for the request's token itself, as the SDK's own progress tool does
//   (conformance-tests/server-servlet/.../ConformanceServlet.java:282-283), through
//   Request.progressToken(), the token from _meta (McpSchema.java:180-185; 2.2.0 :181-184);
// - cancellation: none. The SDK's docs say it "does not currently send or process the MCP
//   notifications/cancelled message" (docs/client.md:442), and the server's exchange offers a
//   handler no signal of one (McpSyncServerExchange above: no such member in 2.2.0, checked
//   with javap); the server session finds no handler for the notification, logs "No handler
//   registered for notification method" at warn and drops it (McpServerSession.java:341-344
//   in the 2.2.0 line table). So count_steps runs to its end whatever the client sends, and
//   the cancel cells show what the SDK then does with the answer and the progress. A sync
//   handler may block: the SDK runs it off the transport's threads unless immediateExecution
//   is set (McpServer.java:1407-1418 at 305e4cbd, 2.2.0 :1523; McpServerFeatures.java:247),
//   which it is not here;
// - Streamable HTTP (--http PORT): HttpServletStreamableServerTransportProvider.builder()
//   .jsonMapper(...).mcpEndpoint("/mcp").build(), server.md:126-137, handed to the same
//   McpServer.sync(...) chain (server.md:94-96; McpServer.java:185, the overload for a
//   streamable provider). Nothing else is set, so the builder's defaults stand
//   (HttpServletStreamableServerTransportProvider.java:1030-1047, the Builder's field
//   initialisers): endpoint /mcp, DELETE allowed, the no-op header validator (no Origin or Host
//   check), keep-alive and session sweep every 30 minutes, 16 MiB request limit. The provider
//   is a servlet that keeps the sessions itself and answers every GET, POST and DELETE
//   (doGet :377-475, doPost :488-696, doDelete :709-767; each first checks the request's path
//   ends with the endpoint, else 404). The docs register it in a servlet container without
//   naming one (server.md:139-162, through Spring); the SDK's own standalone server,
//   conformance-tests/server-servlet/.../ConformanceServlet.java:104-153 (at 305e4cbd), runs it
//   in embedded Tomcat: one context, the servlet with async support mapped to "/*", which is
//   what serveHttp does, so every status a client sees is the SDK's servlet's (Tomcat only
//   writes the page around an error status the servlet sends). That server also sets a
//   security validator, a keep-alive of 30 s and the connector's async timeout (30 s,
//   Tomcat's default anyway); the documented builder call sets none, so neither do we. The
//   connector listens on 127.0.0.1 only.
//
// Logging: the SDK logs through the SLF4J API only and ships no backend (README.md:163-167);
// none is added, so SLF4J prints its "no providers" notice to stderr once and nothing else is
// logged. Stdout carries only what the SDK's transport writes.

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncCompletionSpecification;
import io.modelcontextprotocol.server.McpServerFeatures.SyncPromptSpecification;
import io.modelcontextprotocol.server.McpServerFeatures.SyncResourceSpecification;
import io.modelcontextprotocol.server.McpServerFeatures.SyncResourceTemplateSpecification;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.CompleteRequest;
import io.modelcontextprotocol.spec.McpSchema.CompleteResult;
import io.modelcontextprotocol.spec.McpSchema.CompleteResult.CompleteCompletion;
import io.modelcontextprotocol.spec.McpSchema.GetPromptResult;
import io.modelcontextprotocol.spec.McpSchema.ProgressNotification;
import io.modelcontextprotocol.spec.McpSchema.Prompt;
import io.modelcontextprotocol.spec.McpSchema.PromptArgument;
import io.modelcontextprotocol.spec.McpSchema.PromptMessage;
import io.modelcontextprotocol.spec.McpSchema.PromptReference;
import io.modelcontextprotocol.spec.McpSchema.ReadResourceResult;
import io.modelcontextprotocol.spec.McpSchema.Resource;
import io.modelcontextprotocol.spec.McpSchema.ResourceReference;
import io.modelcontextprotocol.spec.McpSchema.ResourceTemplate;
import io.modelcontextprotocol.spec.McpSchema.Role;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.TextResourceContents;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import org.apache.catalina.Context;
import org.apache.catalina.Wrapper;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.coyote.AbstractProtocol;

public final class JavaSdkServer {

    private static final List<String> NOTES = List.of("alpha", "beta", "gamma");
    private static final String NOTE_TEMPLATE = "mcp-compare://notes/{name}";
    private static final String NOTE_PREFIX = "mcp-compare://notes/";

    private JavaSdkServer() {
    }

    // The names from the fixed list that start with what was typed.
    private static CompleteResult complete(CompleteRequest request) {
        String typed = request.argument().value() == null ? "" : request.argument().value();
        List<String> values = NOTES.stream().filter(n -> n.startsWith(typed)).toList();
        return new CompleteResult(new CompleteCompletion(values, values.size(), false));
    }

    private static Map<String, Object> objectSchema(Map<String, Object> properties, List<String> required) {
        return Map.of("type", "object", "properties", properties, "required", required);
    }

    public static void main(String[] argv) throws Exception {
        int httpAt = List.of(argv).indexOf("--http");
        int port = httpAt < 0 ? 0 : portArgument(argv, httpAt + 1);

        // A tool with a required argument (what a call without it tests) and a plain text result.
        SyncToolSpecification echo = SyncToolSpecification.builder()
            .tool(Tool.builder("echo", objectSchema(Map.of("message", Map.of("type", "string")), List.of("message")))
                .description("Answer with the message it was given.")
                .build())
            .callHandler((exchange, request) -> CallToolResult.builder()
                .content(List.of(TextContent.builder(String.valueOf(request.arguments().get("message"))).build()))
                .build())
            .build();

        // A tool with an output schema: the SDK checks the structured result and adds its text.
        Map<String, Object> number = Map.of("type", "number");
        SyncToolSpecification add = SyncToolSpecification.builder()
            .tool(Tool.builder("add", objectSchema(Map.of("a", number, "b", number), List.of("a", "b")))
                .description("Add two numbers.")
                .outputSchema(objectSchema(Map.of("sum", number), List.of("sum")))
                .build())
            .callHandler((exchange, request) -> {
                double a = ((Number) request.arguments().get("a")).doubleValue();
                double b = ((Number) request.arguments().get("b")).doubleValue();
                return CallToolResult.builder().structuredContent(Map.of("sum", a + b)).build();
            })
            .build();

        // A tool that counts up in steps, reporting each step as progress when the request
        // carried a token (see the header: progress and cancellation).
        Map<String, Object> integer = Map.of("type", "integer");
        SyncToolSpecification countSteps = SyncToolSpecification.builder()
            .tool(Tool.builder("count_steps",
                    objectSchema(Map.of("steps", integer, "delay_ms", integer), List.of("steps", "delay_ms")))
                .title("Count steps")
                .description("Counts up in steps, reporting its progress.")
                .build())
            .callHandler((exchange, request) -> {
                int steps = ((Number) request.arguments().get("steps")).intValue();
                long delayMs = ((Number) request.arguments().get("delay_ms")).longValue();
                Object token = request.progressToken();
                for (int i = 1; i <= steps; i++) {
                    pause(delayMs);
                    if (token != null) {
                        exchange.progressNotification(ProgressNotification.builder(token, i)
                            .total((double) steps)
                            .message("step " + i + " of " + steps)
                            .build());
                    }
                }
                return CallToolResult.builder()
                    .content(List.of(TextContent.builder("counted " + steps).build()))
                    .build();
            })
            .build();

        // A static text resource.
        SyncResourceSpecification readme = new SyncResourceSpecification(
            Resource.builder("mcp-compare://readme", "readme")
                .description("A short text.")
                .mimeType("text/plain")
                .build(),
            (exchange, request) -> ReadResourceResult.builder(List.of(
                    TextResourceContents.builder(request.uri(), "served by the Java SDK")
                        .mimeType("text/plain")
                        .build()))
                .build());

        // A resource template; its variable is the rest of the URI after the fixed prefix.
        SyncResourceTemplateSpecification note = new SyncResourceTemplateSpecification(
            ResourceTemplate.builder(NOTE_TEMPLATE, "note")
                .description("A note by name.")
                .mimeType("text/plain")
                .build(),
            (exchange, request) -> {
                String name = request.uri().substring(NOTE_PREFIX.length());
                return ReadResourceResult.builder(List.of(
                        TextResourceContents.builder(request.uri(), "note " + name).mimeType("text/plain").build()))
                    .build();
            });

        // A prompt with one required argument. The SDK hands the handler the request as it came
        // (it does not check the declared required arguments first, measured: a prompts/get
        // without arguments reaches the handler with none), so the handler reads the argument
        // without failing on its absence: what the client gets then shows the SDK's check, not
        // an exception of ours.
        SyncPromptSpecification greet = new SyncPromptSpecification(
            Prompt.builder("greet")
                .description("Greet someone by name.")
                .arguments(List.of(PromptArgument.builder("name").description("Who to greet.").required(true).build()))
                .build(),
            (exchange, request) -> {
                Object name = request.arguments() == null ? null : request.arguments().get("name");
                return GetPromptResult.builder(List.of(PromptMessage.builder(Role.USER,
                        TextContent.builder("Say hello to " + name + ".").build()).build()))
                    .build();
            });

        // The same registrations either way; only the transport provider differs.
        HttpServletStreamableServerTransportProvider http = httpAt < 0 ? null
            : HttpServletStreamableServerTransportProvider.builder()
                .jsonMapper(McpJsonDefaults.getMapper())
                .mcpEndpoint("/mcp")
                .build();
        McpServer.SyncSpecification<?> spec = http == null
            ? McpServer.sync(new StdioServerTransportProvider(McpJsonDefaults.getMapper()))
            : McpServer.sync(http);
        spec
            .serverInfo("mcp-compare-java-sdk-server", "1.0.0")
            .capabilities(ServerCapabilities.builder()
                .tools(true)
                .resources(false, true)
                .prompts(true)
                .completions()
                .build())
            .tools(echo, add, countSteps)
            .resources(readme)
            .resourceTemplates(note)
            .prompts(greet)
            .completions(
                new SyncCompletionSpecification(new PromptReference("greet"), (exchange, request) -> complete(request)),
                new SyncCompletionSpecification(new ResourceReference(NOTE_TEMPLATE),
                    (exchange, request) -> complete(request)))
            .build();
        if (http != null) {
            serveHttp(http, port);
        }
        // The transport reads stdin on the SDK's own (non-daemon) threads; main returns and the
        // process lives until they end, when stdin closes.
    }

    // One step's wait. An interrupt can only come from the SDK tearing the work down (nothing
    // of ours interrupts), so it ends the call as an error rather than counting on.
    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("count_steps interrupted");
        }
    }

    private static int portArgument(String[] argv, int at) {
        try {
            return Integer.parseInt(argv[at]);
        }
        catch (ArrayIndexOutOfBoundsException | NumberFormatException e) {
            System.err.println("java-sdk server: --http needs a port number");
            System.exit(2);
            return 0;
        }
    }

    // Embedded Tomcat as the SDK's conformance server sets it up (ConformanceServlet.java:
    // 132-153): the servlet is the whole application, mapped to every path, so every request
    // reaches it; the connector is bound to the loopback address. Runs until the process is
    // signalled (Tomcat's await, ConformanceServlet.java:113).
    private static void serveHttp(HttpServletStreamableServerTransportProvider servlet, int port) throws Exception {
        Tomcat tomcat = new Tomcat();
        tomcat.setPort(port);
        String baseDir = System.getProperty("java.io.tmpdir");
        tomcat.setBaseDir(baseDir);
        Context context = tomcat.addContext("", baseDir);
        Wrapper wrapper = context.createWrapper();
        wrapper.setName("mcpServlet");
        wrapper.setServlet(servlet);
        wrapper.setLoadOnStartup(1);
        wrapper.setAsyncSupported(true);
        context.addChild(wrapper);
        // addServletMapping: Tomcat 11's name for the addServletMappingDecoded the conformance
        // server calls, deprecated in this version; the same mapping.
        context.addServletMapping("/*", "mcpServlet");
        Connector connector = tomcat.getConnector();
        ((AbstractProtocol<?>) connector.getProtocolHandler()).setAddress(InetAddress.getByName("127.0.0.1"));
        tomcat.start();
        System.err.println("java-sdk server: Streamable HTTP at http://127.0.0.1:" + port + "/mcp");
        tomcat.getServer().await();
    }
}
