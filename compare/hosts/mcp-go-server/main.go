// An MCP server written with the community Go library github.com/mark3labs/mcp-go's own
// server API: server.NewMCPServer served by server.ServeStdio, or, with --http PORT, the same
// server served by the library's server.NewStreamableHTTPServer.
//
// It is evidence, like the client hosts beside it: it registers the features the library's
// README and docs (www/docs/pages/servers/) show — a tool built with mcp.NewTool and a
// required string, a tool with an output schema and a structured handler, a tool that counts
// in steps (reporting its progress, stopping on a cancel), a static resource,
// a resource template, a prompt with a required argument and the two completion providers —
// and nothing else. The only capability option passed is server.WithCompletions, which the
// library needs before it declares completions; tools, resources and prompts are declared by
// the library itself when they are added. So what reaches the wire (what is declared, how
// lists, unknown names, missing arguments and cursors are answered) is the library's doing.
// The scenarios name no tool of ours but count_steps, which the progress and cancel scenarios
// call where a server lists it. Source references below are into the pinned module,
// go:github.com/mark3labs/mcp-go@v1.2.1/.
//
// `mcp-compare tools install` builds it into tools/hosts/mcp-go-server/bin/host from the
// go.mod and go.sum beside it, which pin the library's exact version.
//
//	host              # stdio, until stdin closes
//	host --http PORT  # Streamable HTTP at http://127.0.0.1:PORT/mcp, until it is signalled
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The names both completions draw from.
var notes = []string{"alpha", "beta", "gamma"}

const (
	readmeURI    = "mcp-compare://readme"
	notesPrefix  = "mcp-compare://notes/"
	notesPattern = notesPrefix + "{name}"
)

// matching is the list of names that start with what was typed.
func matching(typed string) []string {
	values := []string{}
	for _, n := range notes {
		if strings.HasPrefix(n, typed) {
			values = append(values, n)
		}
	}
	return values
}

// echo reads its required argument and reports a missing one as a tool error, as the
// README's first tool does (README.md:60-67).
func echo(_ context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	message, err := request.RequireString("message")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	return mcp.NewToolResultText(message), nil
}

// The add tool's typed arguments and result: mcp.WithInputSchema / mcp.WithOutputSchema
// derive its schemas from them, and mcp.NewStructuredToolHandler sends the result as
// structuredContent plus its JSON text (www/docs/pages/servers/tools.mdx:186-212;
// mcp/typed_tools.go:25-42, mcp/utils.go:342-361).
type addArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type sum struct {
	Sum float64 `json:"sum"`
}

func add(_ context.Context, _ mcp.CallToolRequest, args addArgs) (sum, error) {
	return sum{Sum: args.A + args.B}, nil
}

// countSteps counts to steps, one step every delay_ms, so the scenarios have a request that
// runs long enough to show progress and to be cancelled while it runs.
//
// The library has no progress call of its own: its documented way is the one its everything
// example's long-running tool takes (examples/everything/main.go:421-449), which reads the
// token from request.Params.Meta.ProgressToken and, only when there is one, sends
// notifications/progress through server.ServerFromContext(ctx).SendNotificationToClient
// (server/session.go:398-418). Unlike the example, it checks Meta for nil first: a request
// without _meta has none.
//
// A cancel reaches the handler as its context's cancellation: the library keeps a cancel
// function per request in flight (server/request_handler.go:111-121) and calls it on
// notifications/cancelled (server/server.go:2548-2562). The docs' long-running tool checks
// ctx.Done() and returns ctx.Err() (www/docs/pages/servers/tools.mdx:1120-1150); each wait here
// selects on it, so the handler stops at once rather than after the step. Whether an answer
// then reaches the wire is the library's doing.
func countSteps(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	steps, err := request.RequireInt("steps")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	delay, err := request.RequireInt("delay_ms")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	var token mcp.ProgressToken
	if request.Params.Meta != nil {
		token = request.Params.Meta.ProgressToken
	}
	s := server.ServerFromContext(ctx)
	for i := 1; i <= steps; i++ {
		select {
		case <-time.After(time.Duration(delay) * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if token != nil {
			err := s.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
				"progressToken": token,
				"progress":      i,
				"total":         steps,
				"message":       fmt.Sprintf("step %d of %d", i, steps),
			})
			if err != nil {
				return nil, fmt.Errorf("failed to send notification: %w", err)
			}
		}
	}
	return mcp.NewToolResultText(fmt.Sprintf("counted %d", steps)), nil
}

func readme(_ context.Context, request mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	return []mcp.ResourceContents{mcp.TextResourceContents{
		URI: request.Params.URI, MIMEType: "text/plain", Text: "served by mcp-go",
	}}, nil
}

// note is only called for a URI the library matched against the template; like the
// README's template handler (README.md:285-288) it takes the name from the URI itself.
func note(_ context.Context, request mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	name := strings.TrimPrefix(request.Params.URI, notesPrefix)
	return []mcp.ResourceContents{mcp.TextResourceContents{
		URI: request.Params.URI, MIMEType: "text/plain", Text: "note " + name,
	}}, nil
}

// greet checks its required argument itself, as the README's prompts do (README.md:570-581).
func greet(_ context.Context, request mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	name := request.Params.Arguments["name"]
	if name == "" {
		return nil, fmt.Errorf("name is required")
	}
	return mcp.NewGetPromptResult("", []mcp.PromptMessage{
		mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Say hello to "+name+".")),
	}), nil
}

// The completion providers (www/docs/pages/servers/completions.mdx:19-121): each answers
// the one argument it knows and, like the documented providers, an empty list otherwise.
type promptCompletions struct{}

func (promptCompletions) CompletePromptArgument(_ context.Context, promptName string, argument mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	if promptName == "greet" && argument.Name == "name" {
		return &mcp.Completion{Values: matching(argument.Value)}, nil
	}
	return &mcp.Completion{Values: []string{}}, nil
}

type resourceCompletions struct{}

func (resourceCompletions) CompleteResourceArgument(_ context.Context, uri string, argument mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	if uri == notesPattern && argument.Name == "name" {
		return &mcp.Completion{Values: matching(argument.Value)}, nil
	}
	return &mcp.Completion{Values: []string{}}, nil
}

func main() {
	// --http PORT; absent, the host serves stdio as it always has.
	httpPort := flag.String("http", "", "serve Streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio")
	flag.Parse()

	// WithCompletions declares the capability; the providers answer it
	// (www/docs/pages/servers/completions.mdx:64-73, :114-120; server/server.go:652-657).
	// WithPaginationLimit is the library's page size for every list (server/server.go:302-307,
	// documented by its doc comment only; without it a list comes whole): 1 here, so the two
	// tools come in pages and the library's own cursors (listByPagination, server.go:1475-1515)
	// are what a client walks.
	s := server.NewMCPServer("mcp-compare-mcp-go-server", "1.0.0",
		server.WithCompletions(),
		server.WithPromptCompletionProvider(promptCompletions{}),
		server.WithResourceCompletionProvider(resourceCompletions{}),
		server.WithPaginationLimit(1),
	)

	s.AddTool(mcp.NewTool("echo",
		mcp.WithDescription("Answer with the message it was given."),
		mcp.WithString("message", mcp.Required()),
	), echo)
	s.AddTool(mcp.NewTool("add",
		mcp.WithDescription("Add two numbers."),
		mcp.WithInputSchema[addArgs](),
		mcp.WithOutputSchema[sum](),
	), mcp.NewStructuredToolHandler(add))
	s.AddTool(mcp.NewTool("count_steps",
		mcp.WithDescription("Counts up in steps, reporting its progress."),
		mcp.WithInteger("steps", mcp.Required()),
		mcp.WithInteger("delay_ms", mcp.Required()),
	), countSteps)

	// Resources and templates as README.md:249-298 shows.
	s.AddResource(mcp.NewResource(readmeURI, "readme",
		mcp.WithResourceDescription("A short text."),
		mcp.WithMIMEType("text/plain"),
	), readme)
	s.AddResourceTemplate(mcp.NewResourceTemplate(notesPattern, "note",
		mcp.WithTemplateDescription("A note by name."),
		mcp.WithTemplateMIMEType("text/plain"),
	), note)

	// A prompt with a required argument, as README.md:570-576 shows.
	s.AddPrompt(mcp.NewPrompt("greet",
		mcp.WithPromptDescription("Greet someone by name."),
		mcp.WithArgument("name", mcp.RequiredArgument()),
	), greet)

	if *httpPort != "" {
		serveHTTP(s, *httpPort)
		return
	}

	// ServeStdio serves stdin/stdout until stdin closes (README.md:54-57, server/stdio.go:881-904).
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintf(os.Stderr, "mcp-go server: %v\n", err)
		os.Exit(1)
	}
}

// serveHTTP serves the same server the way the library documents Streamable HTTP:
// server.NewStreamableHTTPServer(s).Start(addr) (www/docs/pages/getting-started.mdx:152,
// www/docs/pages/transports/http.mdx:89-93), with no option, so every default stands
// (server/streamable_http.go:338-369): the endpoint /mcp (:343), the default session id manager
// StatelessGeneratingSessionIdManager, which mints ids and checks only their form (:344,
// :2142-2162; the docs recommend stateless designs, transports/http.mdx:509), the library's
// own DNS-rebinding check on loopback (server/http_localhost.go:46-56, called at
// streamable_http.go:389), no CORS. Start builds the http.Server and mounts the library's
// handler at the endpoint itself (:446-482); its ServeHTTP answers every POST, GET and DELETE
// (:388-440, handlePost :554, handleGet :1044, handleDelete :1254), so every status a client
// sees is the library's. The only choice of ours is the address: the loopback one, not every
// interface.
func serveHTTP(s *server.MCPServer, port string) {
	addr := net.JoinHostPort("127.0.0.1", port)
	fmt.Fprintf(os.Stderr, "mcp-go server: Streamable HTTP at http://%s/mcp\n", addr)
	if err := server.NewStreamableHTTPServer(s).Start(addr); err != nil {
		fmt.Fprintf(os.Stderr, "mcp-go server: %v\n", err)
		os.Exit(1)
	}
}
