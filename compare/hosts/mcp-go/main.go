// An application embedding the community Go client library github.com/mark3labs/mcp-go.
//
// It is evidence: everything the library put on the wire was caused by the few calls below,
// so a reader can tell the library's behaviour from ours. Usage (the host contract,
// compare/hosts/README.md):
//
//	host --plan PATH -- SERVER_COMMAND...
//	host --plan PATH --url URL
//
// The plan (plan.go) names the client features to declare and the answers to give. The host
// follows the library's own examples/roots_client: a client.RootsHandler passed with
// client.WithRootsHandler, then Start, Initialize, ListTools, CallTool and RootListChanges;
// elicitation and sampling are its client.WithElicitationHandler and
// client.WithSamplingHandler. Source references below are into the pinned module,
// go:github.com/mark3labs/mcp-go@v1.2.1/.
//
// `mcp-compare tools install` builds it into tools/hosts/mcp-go/bin/host from the go.mod and
// go.sum beside it, which pin the library's exact version.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

const hostName = "mcp-go host"

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, hostName+": "+format+"\n", args...)
	os.Exit(exitFailed)
}

// fileURI builds a root's URI the way the library's examples/roots_client does: Go's standard
// URL type, which percent-encodes spaces, '#' and non-ASCII bytes in a path.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// rootFor is the application's root for a folder: its file URI, named after the folder.
func rootFor(folder string) mcp.Root {
	path, err := filepath.Abs(folder)
	if err != nil {
		fail("root %s: %v", folder, err)
	}
	return mcp.Root{URI: fileURI(path), Name: filepath.Base(path)}
}

// appRoots is the application's roots handler (client/roots.go:9-17): its folders, plus
// whatever it adds later. The library calls ListRoots from its own goroutines, hence the lock.
type appRoots struct {
	mu    sync.Mutex
	roots []mcp.Root
}

func (a *appRoots) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return &mcp.ListRootsResult{Roots: append([]mcp.Root(nil), a.roots...)}, nil
}

func (a *appRoots) add(roots ...mcp.Root) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.roots = append(a.roots, roots...)
}

// planElicitation answers every elicitation/create with the plan's ElicitResult
// (client/elicitation.go:9-20), decoded afresh into the library's type each time.
type planElicitation struct{ answer json.RawMessage }

func (p planElicitation) Elicit(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return elicitAnswer(p.answer), nil
}

// planSampling answers every sampling/createMessage with the plan's CreateMessageResult
// (client/sampling.go:9-21).
type planSampling struct{ answer json.RawMessage }

func (p planSampling) CreateMessage(context.Context, mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return samplingAnswer(p.answer), nil
}

// elicitAnswer decodes the plan's ElicitResult into the library's type (mcp/types.go:1111-1123).
func elicitAnswer(raw json.RawMessage) *mcp.ElicitationResult {
	var result mcp.ElicitationResult
	if err := decodeStrict(raw, &result); err != nil {
		planError("features.elicitation.answer: %v", err)
	}
	return &result
}

// samplingAnswer decodes the plan's CreateMessageResult into the library's type
// (mcp/types.go:1200-1213), whose content is `any`: the library's own ParseSamplingContent
// turns the decoded object into its content type (mcp/utils.go:738-759), as it does for the
// messages of an incoming request (client/client.go:845-853).
func samplingAnswer(raw json.RawMessage) *mcp.CreateMessageResult {
	var result mcp.CreateMessageResult
	if err := decodeStrict(raw, &result); err != nil {
		planError("features.sampling.answer: %v", err)
	}
	content, err := mcp.ParseSamplingContent(result.Content)
	if err != nil {
		planError("features.sampling.answer.content: %v", err)
	}
	result.Content = content
	return &result
}

// clientOptions turns the plan's features into the library's client options.
//
// Each handler option is what makes the library declare its capability: roots with
// listChanged, sampling and elicitation as {} (client/client.go:79-103, client/protocol.go:
// 56-72). A capability set with WithClientCapabilities is kept as it is instead
// (protocol.go:60-70), which is how the plan's listChanged=false and its elicitation modes
// are declared.
func clientOptions(features featuresPlan, roots *appRoots) []client.ClientOption {
	var opts []client.ClientOption
	var caps mcp.ClientCapabilities
	if r := features.Roots; r != nil {
		opts = append(opts, client.WithRootsHandler(roots))
		if !r.ListChanged {
			caps.Roots = &struct {
				ListChanged bool `json:"listChanged,omitempty"`
			}{}
		}
	}
	if e := features.Elicitation; e != nil {
		opts = append(opts, client.WithElicitationHandler(planElicitation{e.Answer}))
		modes := &mcp.ElicitationCapability{}
		if e.Form {
			modes.Form = &struct{}{}
		}
		if e.URL {
			modes.URL = &struct{}{}
		}
		caps.Elicitation = modes
	}
	if s := features.Sampling; s != nil {
		opts = append(opts, client.WithSamplingHandler(planSampling{s.Answer}))
	}
	if caps.Roots != nil || caps.Elicitation != nil {
		opts = append(opts, client.WithClientCapabilities(caps))
	}
	return opts
}

func main() {
	planPath, server, endpoint := parseArgs(os.Args[1:])
	plan := readPlan(planPath)
	// Roots, elicitation (form and url) and sampling each have a handler option, and a roots
	// change is ours to notify or not (RootListChanges, client/client.go:789-808): nothing in
	// a plan is beyond this library, so this host never exits with "unsupported" (exit code 3).
	// The plan's answers are decoded once here, and must come out of the SDK's types as the
	// plan wrote them, so that a bad one stops the host before the server starts, not in the
	// middle of a request.
	if e := plan.Features.Elicitation; e != nil {
		carried("features.elicitation.answer", e.Answer, elicitAnswer(e.Answer))
	}
	if s := plan.Features.Sampling; s != nil {
		carried("features.sampling.answer", s.Answer, samplingAnswer(s.Answer))
	}

	roots := &appRoots{}
	if r := plan.Features.Roots; r != nil {
		for _, folder := range r.Folders {
			roots.add(rootFor(folder))
		}
	}

	// With no handler for a feature, the library's own answer to an undeclared request is
	// what gets measured.
	var c *client.Client
	var stdio *transport.Stdio
	if endpoint != "" {
		// The library's Streamable HTTP client transport, transport.NewStreamableHTTP
		// (client/transport/streamable_http.go:174-207), with no option: every field at its
		// default (a plain &http.Client{}, no custom headers, no OAuth, and no standalone GET
		// stream, which only the WithContinuousListening option opens: :39-43, :209-245).
		// Handed to client.NewClient with the handler options, as the library's
		// examples/roots_http_client/main.go:63-76 and www/docs/pages/transports/http.mdx:
		// 925-933 show for a client with handlers (both also pass WithContinuousListening,
		// which the docs call "required for sampling"; left out here, so the transport's
		// default is what gets measured); client.NewStreamableHttpClient (client/http.go:
		// 11-22), the docs' plain HTTP client, is these two calls without handler options.
		// Every HTTP request the server sees (each message's POST, sendHTTP at :801-897, which
		// sets Content-Type, Accept, Mcp-Session-Id and MCP-Protocol-Version, :826-841; the
		// DELETE of Close, :248-289) is the library's.
		httpTransport, err := transport.NewStreamableHTTP(endpoint)
		if err != nil {
			fail("streamable http: %v", err)
		}
		c = client.NewClient(httpTransport, clientOptions(plan.Features, roots)...)
	} else {
		// The library's stdio transport starts the server with our environment (the harness
		// configures the peer through it). Its stderr is mirrored to ours, so the server's own
		// messages land in the cell's client.stderr as with the other hosts (the default drops
		// it).
		stdio = transport.NewStdioWithOptions(server[0], nil, server[1:],
			transport.WithCommandStderrWriter(os.Stderr))
		c = client.NewClient(stdio, clientOptions(plan.Features, roots)...)
	}
	if plan.subscribes() {
		// The library's one hook for what a server notifies, Client.OnNotification
		// (client/client.go:214-222; examples/simple_client/main.go:99), hands each handler the
		// whole notification: its params are what an update carries. The stdio transport calls
		// it from the loop that also reads responses (client/transport/stdio.go:557-567), so it
		// must not wait for busy, which a request holds until its response is read. Only a
		// plan that subscribes registers it, so any other plan runs as before.
		c.OnNotification(func(n mcp.JSONRPCNotification) {
			if n.Method == mcp.MethodNotificationResourceUpdated {
				recordNotification(plan.Control, n.Params)
			}
		})
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		fail("start: %v", err)
	}

	// The server hanging up is the normal end of a session. The stdio transport offers no
	// connection-lost hook, but its Stderr() reader ends when the server process's stderr
	// closes, i.e. when the server has gone: then exit 0.
	// A scripted request holds busy while it is made and recorded, so a server that hangs up
	// right after answering cannot end the host before the answer is on record; one still in
	// flight ends at once too, as the transport fails it when the server's stdout closes
	// (ErrTransportClosed, client/transport/stdio.go:535-543, 656-666). An update line being
	// written is finished first (recordLock, plan.go).
	// Over Streamable HTTP there is no server process to watch, and the library's HTTP
	// transport offers no hook for the server going away: the harness ends the host (the
	// target's ends: harness).
	var busy sync.Mutex
	if stdio != nil {
		go func() {
			_, _ = io.Copy(io.Discard, stdio.Stderr())
			busy.Lock()
			recordLock.Lock()
			os.Exit(0)
		}()
	}

	// As in the library's roots example: ask for the newest revision it knows; Initialize
	// probes server/discover first and falls back to initialize for an older server.
	_, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
		ClientInfo:      mcp.Implementation{Name: "mcp-compare-mcp-go-host", Version: "1.0.0"},
	}})
	if err != nil {
		waitForHangUp(fmt.Sprintf("initialize: %v", err))
	}
	if plan.CallTools {
		// The whole tool list, through the library's own "list all" call: ListTools sends
		// tools/list and passes each nextCursor back through ListToolsByPage until a page comes
		// without one, returning every page's tools together (client/client.go:703-731). Its
		// docs name it the call for "the full list" (www/docs/pages/clients/operations.mdx:
		// 958-964, 1052-1054) and its examples list tools with it (examples/roots_client/
		// main.go:126); the lazy IterTools (client/iter.go:10-58) walks the same pages the same
		// way, for early exit, which this host does not need. The stopping rule is the
		// library's: it ends at a missing or empty nextCursor (PaginatedResult.NextCursor is a
		// plain string, mcp/types.go:768), and instead of a page bound it refuses a cursor it
		// already sent (ErrRepeatedListCursor, client/client.go:529-541).
		listing, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			waitForHangUp(fmt.Sprintf("tools/list: %v", err))
		}
		for _, tool := range listing.Tools {
			request := mcp.CallToolRequest{}
			request.Params.Name = tool.Name
			request.Params.Arguments = map[string]any{}
			// The server's answer is evidence, not our failure: report it and go on.
			if _, err := c.CallTool(ctx, request); err != nil {
				fmt.Fprintf(os.Stderr, "%s: tools/call %s failed: %v\n", hostName, tool.Name, err)
			}
		}
	}

	// The plan's client requests, in order, each outcome one line of the session record. The
	// library exposes no JSON-RPC code: sendRequest turns an error response into a sentinel
	// error (ErrInvalidParams, ...) or errors.New(message) (client/client.go:284-287,
	// mcp/errors.go:175-247), so the record carries the message only.
	for step, request := range plan.Requests {
		busy.Lock()
		result, err := makeRequest(ctx, c, request)
		recordOutcome(plan.Control, step, request.Kind, result, err, nil)
		if request.Kind == "close" {
			// Still holding busy: the goroutine above, woken as Close ends the server's stderr,
			// cannot exit before this line. The script is done.
			os.Exit(0)
		}
		busy.Unlock()
		if errors.Is(err, transport.ErrTransportClosed) {
			break // the server has gone (the goroutine above ends the host): nothing more reaches it
		}
	}

	// Wait for the harness's signals; after each change, tell the server the list changed
	// when the plan says so (RootListChanges is the library's call for
	// notifications/roots/list_changed; it sends whatever was declared).
	if r := plan.Features.Roots; r != nil && len(r.Changes) > 0 {
		watchChanges(plan.Control, r.Changes, func(change rootsChange) {
			for _, folder := range change.AddFolders {
				roots.add(rootFor(folder))
			}
			if change.Notify {
				if err := c.RootListChanges(ctx); err != nil {
					fmt.Fprintf(os.Stderr, "%s: notifications/roots/list_changed failed: %v\n", hostName, err)
				}
			}
		})
	}
	if stdio == nil {
		// Until the harness ends the host. A sleep, not an empty select: once the server has
		// closed every connection no goroutine of the library is left, and Go would end a
		// program whose goroutines all wait on nothing as deadlocked (exit 2).
		for {
			time.Sleep(time.Hour)
		}
	}
	select {} // until the server hangs up (the goroutine above exits)
}

// waitForHangUp reports a failed request; if the server is going away it is the normal end
// (the goroutine watching its stderr exits 0), otherwise the failure is ours to report.
func waitForHangUp(message string) {
	fmt.Fprintf(os.Stderr, "%s: %s\n", hostName, message)
	time.Sleep(2 * time.Second)
	os.Exit(exitFailed)
}

// makeRequest makes one request of session.requests through the library's client and returns
// what it returned, to be recorded as it is. A list is read whole through the library's "list
// all" calls, as call_tools does: ListTools, ListPrompts, ListResources and
// ListResourceTemplates each pass every nextCursor back through their ByPage call until a
// page comes without one and return every page's items together (client/client.go:544-571,
// 586-613, 643-670, 704-731; www/docs/pages/clients/operations.mdx:958-964, 1052-1054).
func makeRequest(ctx context.Context, c *client.Client, r sessionRequest) (any, error) {
	switch r.Kind {
	case "list":
		switch r.Name {
		case "tools":
			listing, err := c.ListTools(ctx, mcp.ListToolsRequest{})
			if err != nil {
				return nil, err
			}
			return map[string][]mcp.Tool{"tools": append([]mcp.Tool{}, listing.Tools...)}, nil
		case "prompts":
			listing, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
			if err != nil {
				return nil, err
			}
			return map[string][]mcp.Prompt{"prompts": append([]mcp.Prompt{}, listing.Prompts...)}, nil
		case "resources":
			listing, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
			if err != nil {
				return nil, err
			}
			return map[string][]mcp.Resource{"resources": append([]mcp.Resource{}, listing.Resources...)}, nil
		default: // resource_templates
			listing, err := c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
			if err != nil {
				return nil, err
			}
			return map[string][]mcp.ResourceTemplate{
				"resourceTemplates": append([]mcp.ResourceTemplate{}, listing.ResourceTemplates...),
			}, nil
		}
	case "call": // client/client.go:734-746
		request := mcp.CallToolRequest{}
		request.Params.Name = r.Name
		request.Params.Arguments = r.Arguments
		return c.CallTool(ctx, request)
	case "read": // client/client.go:616-628
		request := mcp.ReadResourceRequest{}
		request.Params.URI = r.Name
		return c.ReadResource(ctx, request)
	case "subscribe", "unsubscribe":
		// Both return only an error, so success is recorded as {}. On 2026-07-28 neither
		// sends anything: they add the URI to, or drop it from, the filter of the next
		// Client.Listen, which the library documents in their place (client/subscriptions.go:
		// 123-172), so nil there says the filter changed, not what a server said.
		var err error
		if r.Kind == "subscribe" {
			request := mcp.SubscribeRequest{}
			request.Params.URI = r.Name
			err = c.Subscribe(ctx, request)
		} else {
			request := mcp.UnsubscribeRequest{}
			request.Params.URI = r.Name
			err = c.Unsubscribe(ctx, request)
		}
		if err != nil {
			return nil, err
		}
		return struct{}{}, nil
	case "get_prompt": // client/client.go:673-685; arguments are a map[string]string (mcp/prompts.go:34)
		request := mcp.GetPromptRequest{}
		request.Params.Name = r.Name
		request.Params.Arguments = r.Strings
		return c.GetPrompt(ctx, request)
	case "close":
		// The library's documented end of a session, Client.Close (client/client.go:209-212;
		// www/docs/pages/clients/basics.mdx:134-139), returns only an error, so success is
		// recorded as {}. It closes the transport. Over Streamable HTTP that is
		// StreamableHTTP.Close (client/transport/streamable_http.go:248-289): it cancels the
		// requests in flight and, when the server gave a session and the revision is older
		// than 2026-07-28, sends a DELETE with Mcp-Session-Id and MCP-Protocol-Version,
		// bounded by 5s; it returns nil whatever the DELETE got. On stdio, the stdio
		// transport's Close (client/transport/stdio.go:411-491) fails the requests in flight,
		// closes the server's stdin, then our end of its stderr pipe, waits 2s for it to exit
		// (gracefulShutdownTimeout, stdio.go:67), then sends SIGTERM, waits 3s
		// (forceKillTimeout, stdio.go:68), then SIGKILL. Its error is cmd.Wait's, so a server
		// that exits non-zero or by a signal makes it an error.
		return struct{}{}, c.Close()
	default: // complete, client/client.go:771-786
		// A prompt is referred to by name and a resource template by URI (mcp/types.go:1619-1630).
		request := mcp.CompleteRequest{}
		request.Params.Ref = mcp.PromptReference{Type: r.RefType, Name: r.Name}
		if r.RefType == "ref/resource" {
			request.Params.Ref = mcp.ResourceReference{Type: r.RefType, URI: r.Name}
		}
		request.Params.Argument = mcp.CompleteArgument{Name: r.Argument[0], Value: r.Argument[1]}
		return c.Complete(ctx, request)
	}
}
