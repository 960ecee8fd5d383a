// An application embedding the official Go SDK's client (github.com/modelcontextprotocol/go-sdk).
//
// It is evidence: everything the SDK put on the wire was caused by the few calls below, so a
// reader can tell the library's behaviour from ours. Usage (the host contract,
// compare/hosts/README.md):
//
//	host --plan PATH -- SERVER_COMMAND...
//	host --plan PATH --url URL
//
// The plan (plan.go) names the client features to declare and the answers to give; this file
// hands them to the SDK the way its documentation shows. Source references below are into
// the pinned module, go:github.com/modelcontextprotocol/go-sdk@v1.8.0/mcp/.
//
// `mcp-compare tools install` builds it into tools/hosts/go-sdk/bin/host from the go.mod and
// go.sum beside it, which pin the SDK's exact version.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const hostName = "go-sdk host"

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, hostName+": "+format+"\n", args...)
	os.Exit(exitFailed)
}

// fileURI is the file URI of an absolute path, built by Go's standard URL type (Go has no
// dedicated path-to-URI helper; net/url percent-encodes spaces, '#' and non-ASCII bytes in a
// path). mark3labs/mcp-go's roots example builds its root URIs the same way.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// rootFor is the application's root for a folder: its file URI, named after the folder.
func rootFor(folder string) *mcp.Root {
	path, err := filepath.Abs(folder)
	if err != nil {
		fail("root %s: %v", folder, err)
	}
	return &mcp.Root{URI: fileURI(path), Name: filepath.Base(path)}
}

// hungUp tells the server closing the connection (the normal end of a session) from a failure.
func hungUp(err error) bool {
	return errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF)
}

// clientOptions turns the plan's features into the SDK's ClientOptions.
//
// Capabilities is always set, because a nil Capabilities makes the SDK declare
// {"roots":{"listChanged":true}} even for an application that has no roots (client.go:133-134,
// 262-270): the documented way to declare no roots is &ClientCapabilities{}, and roots go in
// RootsV2 (client.go:135-143), whose ListChanged also decides whether Client.AddRoots
// notifies (client.go:706-722). Elicitation and sampling are declared by setting their
// handlers (client.go:89-95, 122-129); the elicitation modes the plan names are set in
// Capabilities.Elicitation, which then overrides the SDK's inferred value (client.go:163-173,
// 287-297), so the plan, not the revision, decides form/url.
func clientOptions(features featuresPlan) *mcp.ClientOptions {
	caps := &mcp.ClientCapabilities{}
	opts := &mcp.ClientOptions{Capabilities: caps}
	if roots := features.Roots; roots != nil {
		caps.RootsV2 = &mcp.RootCapabilities{ListChanged: roots.ListChanged}
	}
	if e := features.Elicitation; e != nil {
		modes := &mcp.ElicitationCapabilities{}
		if e.Form {
			modes.Form = &mcp.FormElicitationCapabilities{}
		}
		if e.URL {
			modes.URL = &mcp.URLElicitationCapabilities{}
		}
		caps.Elicitation = modes
		answer := e.Answer
		opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			// A fresh value per request: the SDK applies the requested schema's defaults to
			// the returned content in place (client.go:901).
			return elicitAnswer(answer), nil
		}
	}
	if s := features.Sampling; s != nil {
		answer := s.Answer
		// The basic handler: it declares {"sampling":{}}; the tools variant would also declare
		// sampling.tools (client.go:102-121, 277-285), which the plan does not ask for.
		opts.CreateMessageHandler = func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return samplingAnswer(answer), nil
		}
	}
	return opts
}

// elicitAnswer decodes the plan's ElicitResult into the SDK's type (protocol.go:2179-2191).
func elicitAnswer(raw json.RawMessage) *mcp.ElicitResult {
	var result mcp.ElicitResult
	if err := decodeStrict(raw, &result); err != nil {
		planError("features.elicitation.answer: %v", err)
	}
	return &result
}

// samplingAnswer decodes the plan's CreateMessageResult into the SDK's type, whose own
// UnmarshalJSON reads the content block (protocol.go:823-858).
func samplingAnswer(raw json.RawMessage) *mcp.CreateMessageResult {
	var result mcp.CreateMessageResult
	if err := json.Unmarshal(raw, &result); err != nil {
		planError("features.sampling.answer: %v", err)
	}
	return &result
}

func main() {
	planPath, server, endpoint := parseArgs(os.Args[1:])
	plan := readPlan(planPath)
	// Roots, elicitation (form and url) and sampling each have a documented registration
	// (clientOptions), so this host never exits with "unsupported" (exit code 3).
	// The plan's answers are decoded once here, and must come out of the SDK's types as the
	// plan wrote them, so that a bad one stops the host before the server starts, not in the
	// middle of a request.
	if e := plan.Features.Elicitation; e != nil {
		carried("features.elicitation.answer", e.Answer, elicitAnswer(e.Answer))
	}
	if s := plan.Features.Sampling; s != nil {
		carried("features.sampling.answer", s.Answer, samplingAnswer(s.Answer))
	}

	// The SDK's documented roots API: the client owns its roots (Client.AddRoots) and answers
	// roots/list from them itself (client.go:729-739), in the order of their URIs, not the
	// order they were added (features.go:76-81): that order is the SDK's. With no roots
	// feature nothing is added, so the SDK's own answer to an undeclared roots/list is what
	// gets measured.
	opts := clientOptions(plan.Features)
	if plan.subscribes() {
		// The SDK's documented hook for resource updates, ClientOptions.ResourceUpdatedHandler
		// (client.go:181; docs/server.md:238-240), is handed the notification's params after
		// the SDK drops its cached read of that URI (client.go:1498-1505). Only a plan that
		// subscribes sets it, so any other plan runs as before.
		opts.ResourceUpdatedHandler = func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			recordNotification(plan.Control, req.Params)
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcp-compare-go-host", Version: "1.0.0"}, opts)
	if roots := plan.Features.Roots; roots != nil && len(roots.Folders) > 0 {
		var initial []*mcp.Root
		for _, folder := range roots.Folders {
			initial = append(initial, rootFor(folder))
		}
		client.AddRoots(initial...)
	}

	ctx := context.Background()
	// Connect sends server/discover (2026-07-28) or initialize + notifications/initialized.
	session, err := client.Connect(ctx, transport(server, endpoint), nil)
	if err != nil {
		if hungUp(err) {
			os.Exit(0)
		}
		fail("connect: %v", err)
	}

	if plan.CallTools {
		// The whole tool list, read through the SDK's own pagination helper: ClientSession.Tools
		// is an iterator that calls ListTools and passes each nextCursor back until a page comes
		// without one (client.go:1551-1562, paginate at client.go:1603-1624), as
		// docs/server.md:1202-1223 ("Pagination", client side) and
		// examples/client/listfeatures/main.go:66 show. Its stopping rule and its lack of a page
		// bound are the SDK's: it ends at a missing or empty nextCursor (client.go:1617-1620;
		// ListToolsResult.NextCursor is a plain string, protocol.go:1334, so an empty one cannot
		// be told from none), and it has no page bound: the contract's 50-page bound is for a
		// host's own loop, and where the SDK has a helper, its stopping rule is what gets measured.
		var tools []*mcp.Tool
		for tool, err := range session.Tools(ctx, nil) {
			if err != nil {
				if hungUp(err) {
					os.Exit(0)
				}
				fail("tools/list: %v", err)
			}
			tools = append(tools, tool)
		}
		for _, tool := range tools {
			// The server's answer is evidence, not our failure: report it and go on.
			if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: map[string]any{}}); err != nil {
				fmt.Fprintf(os.Stderr, "%s: tools/call %s failed: %v\n", hostName, tool.Name, err)
			}
		}
	}

	// The plan's client requests, in order, each outcome one line of the session record.
	for step, request := range plan.Requests {
		result, err := makeRequest(ctx, session, request)
		var code *int64
		// A JSON-RPC error response comes back as a *jsonrpc.Error wrapped by the SDK's call
		// (transport.go:324-325; jsonrpc/jsonrpc.go:21), whose Code is the response's code.
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) {
			code = &rpcErr.Code
		}
		recordOutcome(plan.Control, step, request.Kind, result, err, code)
		if request.Kind == "close" {
			os.Exit(0) // the session is closed and the server gone: the script is done
		}
		if err != nil && hungUp(err) {
			os.Exit(0) // the server ended the session: no later request can reach it
		}
	}

	// Wait for the harness's signals. The SDK has one call for a change, AddRoots, and it
	// sends notifications/roots/list_changed to every connected session exactly when
	// listChanged is declared (client.go:666-673, 692-722): the application cannot choose per
	// change, so a change's notify is the SDK's choice, not the plan's (the wire shows it),
	// as the contract says for a sub-capability the SDK does not let the application choose.
	if roots := plan.Features.Roots; roots != nil && len(roots.Changes) > 0 {
		go watchChanges(plan.Control, roots.Changes, func(change rootsChange) {
			var added []*mcp.Root
			for _, folder := range change.AddFolders {
				added = append(added, rootFor(folder))
			}
			client.AddRoots(added...)
		})
	}

	// The session ends when the server hangs up; that is the normal end, so exit 0. Over
	// Streamable HTTP there is no process to see end: Wait returns once the SDK gives the
	// connection up (its standalone GET stream failing after its own retries,
	// streamable.go:2224-2231), or the harness ends the host first (the target's ends: harness).
	_ = session.Wait()
}

// transport is the SDK's transport for the command line's form.
//
// With a command, the SDK's stdio transport: it starts the server command. The command
// inherits our environment (the harness configures the peer through it) and our stderr, so
// the server's own messages land in the cell's client.stderr as with the other hosts.
//
// With a URL, the SDK's documented Streamable HTTP client, StreamableClientTransport
// (mcp/streamable.go:1963-2008, Connect at 2037-2091), set up as docs/protocol.md:267-276 and
// examples/http/main.go:156 show: the Endpoint alone, every other field at its default
// (http.DefaultClient, MaxRetries 5, the standalone SSE GET stream on, no OAuth handler:
// streamable.go:2047-2089). Every HTTP request the server sees (each message's POST, the
// standalone GET once connected, streamable.go:2168-2214, the DELETE of the session on
// close, 2774-2801) and every header on it (setMCPHeaders, 2428-2487) is the SDK's.
func transport(server []string, endpoint string) mcp.Transport {
	if endpoint != "" {
		return &mcp.StreamableClientTransport{Endpoint: endpoint}
	}
	cmd := exec.Command(server[0], server[1:]...)
	cmd.Stderr = os.Stderr
	return &mcp.CommandTransport{Command: cmd}
}

// makeRequest makes one request of session.requests through the SDK's ClientSession and
// returns what it returned, to be recorded as it is. A list is read whole through the SDK's
// own iterators (Tools, Resources, ResourceTemplates, Prompts at client.go:1555-1601), which
// follow each nextCursor until a page comes without one (paginate, client.go:1604-1624) as
// docs/server.md:99, 308-319 show. On 2026-07-28 the SDK may answer a list page or a read
// from its own cache instead of the wire (ListPrompts at client.go:1237-1252 and the other
// lists alike, ReadResource at 1351-1370): that is its behaviour, measured as it is.
func makeRequest(ctx context.Context, session *mcp.ClientSession, r sessionRequest) (any, error) {
	switch r.Kind {
	case "list":
		switch r.Name {
		case "tools":
			return listWhole("tools", session.Tools(ctx, nil))
		case "prompts":
			return listWhole("prompts", session.Prompts(ctx, nil))
		case "resources":
			return listWhole("resources", session.Resources(ctx, nil))
		default: // resource_templates
			return listWhole("resourceTemplates", session.ResourceTemplates(ctx, nil))
		}
	case "call": // client.go:1284-1299
		return session.CallTool(ctx, &mcp.CallToolParams{Name: r.Name, Arguments: r.Arguments})
	case "read": // client.go:1351-1370
		return session.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.Name})
	case "subscribe", "unsubscribe":
		// Both return only an error, so success is recorded as {}. On 2026-07-28 Subscribe
		// opens a subscriptions/listen stream without awaiting it and Unsubscribe cancels it
		// (client.go:1381-1437), so nil there says what was sent, not what the server said.
		var err error
		if r.Kind == "subscribe" {
			err = session.Subscribe(ctx, &mcp.SubscribeParams{URI: r.Name})
		} else {
			err = session.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: r.Name})
		}
		if err != nil {
			return nil, err
		}
		return struct{}{}, nil
	case "get_prompt": // client.go:1255-1260; the arguments are a map[string]string (protocol.go:949)
		return session.GetPrompt(ctx, &mcp.GetPromptParams{Name: r.Name, Arguments: r.Strings})
	case "close":
		// The SDK's documented end of a session, ClientSession.Close (client.go:560-586;
		// docs/client.md:132, README.md:129), returns only an error, so success is recorded as
		// {}. It waits for the calls in flight, then closes the connection (the module's
		// internal/jsonrpc2/conn.go:504-509, 119-123). Over Streamable HTTP that is
		// streamableClientConn.Close (streamable.go:2774-2801): a DELETE of the session, when
		// the server gave one, bounded by 5s (closeDeleteTimeout, :2023), then it cancels the
		// streams still open; its error is the DELETE's. On stdio it closes the CommandTransport's pipes
		// (transport.go:811-817, cmd.go:66-108), which end the server in the order the spec
		// gives: close the server's stdin, wait up to TerminateDuration (5s, as this host leaves
		// it unset: cmd.go:16, 22-25, 42-45) for it to exit, then SIGTERM, wait as long again,
		// then SIGKILL. Its error is cmd.Wait's, so a server that exits non-zero or by a
		// signal makes it an error.
		return struct{}{}, session.Close()
	default: // complete, client.go:1372-1377
		// A prompt is referred to by name and a resource template by URI (protocol.go:582-589).
		ref := &mcp.CompleteReference{Type: r.RefType, Name: r.Name}
		if r.RefType == "ref/resource" {
			ref = &mcp.CompleteReference{Type: r.RefType, URI: r.Name}
		}
		return session.Complete(ctx, &mcp.CompleteParams{
			Ref:      ref,
			Argument: mcp.CompleteParamsArgument{Name: r.Argument[0], Value: r.Argument[1]},
		})
	}
}

// listWhole collects every item an iterator yields as {member: [...]}, or its first error
// (the iterator stops there, so the items before it are not the whole list).
func listWhole[T any](member string, items iter.Seq2[*T, error]) (any, error) {
	all := []*T{}
	for item, err := range items {
		if err != nil {
			return nil, err
		}
		all = append(all, item)
	}
	return map[string][]*T{member: all}, nil
}
