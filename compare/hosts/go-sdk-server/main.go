// An MCP server written with the official Go SDK's own server API
// (github.com/modelcontextprotocol/go-sdk): mcp.NewServer run over mcp.StdioTransport, or,
// with --http PORT, the same server behind the SDK's mcp.StreamableHTTPHandler.
//
// It is evidence, like the client hosts beside it: it registers the features the SDK's server
// documentation shows (docs/server.md, docs/protocol.md) — a tool with an input schema, a
// tool whose typed result gives it an output schema, a tool that counts in steps (reporting
// its progress, stopping on a cancel), a static resource, a resource template, a prompt with
// a required argument and a completion handler — and nothing else. Capabilities are left to
// the SDK's own inference, so what reaches the wire (what is declared, how lists, unknown
// names, missing arguments and cursors are answered) is the SDK's doing. The scenarios name
// no tool of ours but count_steps, which the progress and cancel scenarios call where a
// server lists it. Source references below are into the pinned module,
// go:github.com/modelcontextprotocol/go-sdk@v1.8.0/.
//
// `mcp-compare tools install` builds it into tools/hosts/go-sdk-server/bin/host from the
// go.mod and go.sum beside it, which pin the SDK's exact version.
//
//	host              # stdio, until stdin closes
//	host --http PORT  # Streamable HTTP at http://127.0.0.1:PORT/mcp, until it is signalled
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The names both completions draw from.
var notes = []string{"alpha", "beta", "gamma"}

const (
	readmeURI    = "mcp-compare://readme"
	notesPrefix  = "mcp-compare://notes/"
	notesPattern = notesPrefix + "{name}"
)

// Typed tool arguments and result: mcp.AddTool infers the input schema from the argument
// type (fields without omitempty are required) and, for a result type other than any, the
// output schema too (docs/server.md:552-567).
type echoArgs struct {
	Message string `json:"message"`
}

type addArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type sum struct {
	Sum float64 `json:"sum"`
}

// echo answers with its message as a text block; its result type is any, so it has no
// output schema (examples/server/everything/main.go contentTool).
func echo(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil, nil
}

// add returns only its typed result: the SDK puts it in structuredContent and, as Content is
// left unset, its JSON text in a text block (docs/server.md:672-675).
func add(_ context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, sum, error) {
	return nil, sum{Sum: in.A + in.B}, nil
}

// count_steps' arguments: both ints without omitempty, so the inferred schema has two
// required integers.
type countArgs struct {
	Steps   int `json:"steps"`
	DelayMS int `json:"delay_ms"`
}

// countSteps counts to in.Steps, one step every in.DelayMS, so the scenarios have a request
// that runs long enough to show progress and to be cancelled while it runs.
//
// Progress goes the way the SDK documents it (docs/protocol.md:798-857, Example_progress): the
// handler reads the token with req.Params.GetProgressToken() (mcp/protocol.go:411) and, only
// when the request carried one, calls req.Session.NotifyProgress (mcp/server.go:1520); its
// error is ignored, as in the example.
//
// A cancel reaches the handler as its context's cancellation (docs/protocol.md:705-773,
// Example_cancellation: the SDK's canceller turns notifications/cancelled into the request
// context's cancel, mcp/transport.go:252-271), so each wait selects on ctx.Done() as the
// example's slow tool does. The handler then returns ctx.Err(), an ordinary error the SDK
// packs into an IsError result (docs/server.md:566-567); whether that answer reaches the
// wire is the SDK's doing.
func countSteps(ctx context.Context, req *mcp.CallToolRequest, in countArgs) (*mcp.CallToolResult, any, error) {
	token := req.Params.GetProgressToken()
	for i := 1; i <= in.Steps; i++ {
		select {
		case <-time.After(time.Duration(in.DelayMS) * time.Millisecond):
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		if token != nil {
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token,
				Progress:      float64(i),
				Total:         float64(in.Steps),
				Message:       fmt.Sprintf("step %d of %d", i, in.Steps),
			}) // error ignored, as in the SDK's example
		}
	}
	text := fmt.Sprintf("counted %d", in.Steps)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
}

func readme(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
		{URI: req.Params.URI, MIMEType: "text/plain", Text: "served by the Go SDK"},
	}}, nil
}

// note is only called for a URI the SDK matched against the template (docs/server.md:219-220);
// the handler gets the URI alone, so it takes the name from the URI's tail.
func note(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	name := strings.TrimPrefix(req.Params.URI, notesPrefix)
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
		{URI: req.Params.URI, MIMEType: "text/plain", Text: "note " + name},
	}}, nil
}

// greet is called only for the prompt's own name; the SDK refuses other names itself.
func greet(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
		{Role: "user", Content: &mcp.TextContent{Text: "Say hello to " + req.Params.Arguments["name"] + "."}},
	}}, nil
}

// complete is the whole of the SDK's completion support: one handler for every reference.
// Like the SDK's documented handler (docs/server.md:1024-1044), it answers the references it
// knows and returns an ordinary error for any other, leaving the error's code to the SDK.
func complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	ref, arg := req.Params.Ref, req.Params.Argument
	known := (ref.Type == "ref/prompt" && ref.Name == "greet") ||
		(ref.Type == "ref/resource" && ref.URI == notesPattern)
	if !known || arg.Name != "name" {
		return nil, fmt.Errorf("no completions for %s %s%s argument %q", ref.Type, ref.Name, ref.URI, arg.Name)
	}
	values := []string{}
	for _, n := range notes {
		if strings.HasPrefix(n, arg.Value) {
			values = append(values, n)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Total: len(values), Values: values}}, nil
}

func main() {
	// --http PORT, as the SDK's everything example takes -http ADDR
	// (examples/server/everything/main.go:30); absent, the host serves stdio as it always has.
	httpPort := flag.String("http", "", "serve Streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio")
	flag.Parse()

	// ServerOptions.CompletionHandler gives the server the completions capability
	// (mcp/server.go:95-96, :697-702); tools, resources and prompts are inferred from what is
	// added before Run (docs/server.md:47-49, :257-262, :514-516). ServerOptions.PageSize is
	// the documented page size of every list (docs/server.md:1225-1228; mcp/server.go:80-84,
	// default 1000 at :36-37, applied by paginateList at :2215-2250): 1 here, so the two tools
	// come in two pages and the SDK's own cursors are what a client walks.
	server := mcp.NewServer(
		&mcp.Implementation{Name: "mcp-compare-go-sdk-server", Version: "1.0.0"},
		&mcp.ServerOptions{CompletionHandler: complete, PageSize: 1},
	)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Answer with the message it was given."}, echo)
	mcp.AddTool(server, &mcp.Tool{Name: "add", Description: "Add two numbers."}, add)
	mcp.AddTool(server, &mcp.Tool{
		Name: "count_steps", Description: "Counts up in steps, reporting its progress.",
	}, countSteps)
	server.AddResource(&mcp.Resource{
		Name: "readme", Description: "A short text.", MIMEType: "text/plain", URI: readmeURI,
	}, readme)
	server.AddResourceTemplate(&mcp.ResourceTemplate{
		Name: "note", Description: "A note by name.", MIMEType: "text/plain", URITemplate: notesPattern,
	}, note)
	server.AddPrompt(&mcp.Prompt{
		Name:        "greet",
		Description: "Greet someone by name.",
		Arguments:   []*mcp.PromptArgument{{Name: "name", Required: true}},
	}, greet)

	if *httpPort != "" {
		serveHTTP(server, *httpPort)
		return
	}

	// Run serves one session over stdin/stdout and returns when the client disconnects
	// (README.md:93-98).
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintf(os.Stderr, "go-sdk server: %v\n", err)
		os.Exit(1)
	}
}

// serveHTTP serves the same server over the SDK's Streamable HTTP handler, as its documented
// pattern does (docs/protocol.md:238-265, examples/server/everything/main.go:99-108):
// mcp.NewStreamableHTTPHandler (mcp/streamable.go:231) with a getServer that returns the one
// server for every request, and nil options, so every default stands (StreamableHTTPOptions,
// mcp/streamable.go:127-220): stateful sessions (Stateless false, :146), SSE responses
// (JSONResponse false, :154), the SDK's own DNS-rebinding check on loopback
// (DisableLocalhostProtection false, :182, applied at :317-326), no cross-origin check
// (CrossOriginProtection nil, :195). The handler keeps the sessions itself and answers every
// POST, GET and DELETE (StreamableHTTPHandler.ServeHTTP, mcp/streamable.go:316; sessions are
// looked up, and an unknown one refused, at :559-575, a GET or DELETE without one at
// :579-615, a POST at :621-740), so every status a client sees is the SDK's. The net/http mux
// only mounts it at /mcp, and the listener is on the loopback address only.
func serveHTTP(server *mcp.Server, port string) {
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		return server
	}, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	addr := net.JoinHostPort("127.0.0.1", port)
	fmt.Fprintf(os.Stderr, "go-sdk server: Streamable HTTP at http://%s/mcp\n", addr)
	if err := http.ListenAndServe(addr, mux); err != nil {
		fmt.Fprintf(os.Stderr, "go-sdk server: %v\n", err)
		os.Exit(1)
	}
}
