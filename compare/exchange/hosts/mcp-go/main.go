// An application embedding the community Go client library github.com/mark3labs/mcp-go.
//
// It is evidence: everything the library put on the wire was caused by the few calls below,
// so a reader can tell the library's behaviour from ours. Usage (the host contract,
// CONTRACTS.md):
//
//	host --workspace DIR [--no-roots] [--control DIR] -- SERVER_COMMAND...
//
// `mcp-compare tools install` builds it into tools/hosts/mcp-go/bin/host from the go.mod and
// go.sum beside it, which pin the library's exact version. It follows the library's own
// examples/roots_client: a client.RootsHandler passed with client.WithRootsHandler, then
// Start, Initialize, ListTools, CallTool and RootListChanges.
package main

import (
	"context"
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

type options struct {
	workspace string
	control   string
	noRoots   bool
	server    []string
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "mcp-go host: "+format+"\n", args...)
	os.Exit(1)
}

func parseArgs(argv []string) options {
	var opts options
	cut := -1
	for i, arg := range argv {
		if arg == "--" {
			cut = i
			break
		}
	}
	if cut < 0 || cut == len(argv)-1 {
		fail(`missing "-- SERVER_COMMAND..."`)
	}
	opts.server = argv[cut+1:]
	own := argv[:cut]
	for i := 0; i < len(own); i++ {
		switch {
		case own[i] == "--workspace" && i+1 < len(own):
			i++
			opts.workspace = own[i]
		case own[i] == "--control" && i+1 < len(own):
			i++
			opts.control = own[i]
		case own[i] == "--no-roots":
			opts.noRoots = true
		default:
			fail("unknown argument %s", own[i])
		}
	}
	if opts.workspace == "" {
		fail("--workspace DIR is required")
	}
	return opts
}

// fileURI builds a root's URI the way the library's examples/roots_client does: Go's standard
// URL type, which percent-encodes spaces, '#' and non-ASCII bytes in a path.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// workspaceRoots is the application's roots handler: its workspace folder, plus whatever it
// adds later. The library calls ListRoots from its own goroutines, hence the lock.
type workspaceRoots struct {
	mu    sync.Mutex
	roots []mcp.Root
}

func (w *workspaceRoots) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return &mcp.ListRootsResult{Roots: append([]mcp.Root(nil), w.roots...)}, nil
}

func (w *workspaceRoots) add(root mcp.Root) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.roots = append(w.roots, root)
}

func main() {
	opts := parseArgs(os.Args[1:])
	workspace, err := filepath.Abs(opts.workspace)
	if err != nil {
		fail("workspace: %v", err)
	}
	roots := &workspaceRoots{roots: []mcp.Root{{URI: fileURI(workspace), Name: filepath.Base(workspace)}}}

	// The library's stdio transport starts the server with our environment (the harness
	// configures the peer through it). Its stderr is mirrored to ours, so the server's own
	// messages land in the cell's client.stderr as with the other hosts (the default drops it).
	stdio := transport.NewStdioWithOptions(opts.server[0], nil, opts.server[1:],
		transport.WithCommandStderrWriter(os.Stderr))

	// A roots handler is what makes the library declare the roots capability (with
	// listChanged) and answer roots/list; --no-roots passes none, so its own answer to an
	// undeclared roots/list is what gets measured.
	var clientOpts []client.ClientOption
	if !opts.noRoots {
		clientOpts = append(clientOpts, client.WithRootsHandler(roots))
	}
	c := client.NewClient(stdio, clientOpts...)
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		fail("start: %v", err)
	}

	// The server hanging up is the normal end of a session. The stdio transport offers no
	// connection-lost hook, but its Stderr() reader ends when the server process's stderr
	// closes, i.e. when the server has gone: then exit 0.
	go func() {
		_, _ = io.Copy(io.Discard, stdio.Stderr())
		os.Exit(0)
	}()

	// As in the library's roots example: ask for the newest revision it knows; Initialize
	// probes server/discover first and falls back to initialize for an older server.
	_, err = c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
		ClientInfo:      mcp.Implementation{Name: "mcp-compare-mcp-go-host", Version: "1.0.0"},
	}})
	if err != nil {
		waitForHangUp(fmt.Sprintf("initialize: %v", err))
	}
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
			fmt.Fprintf(os.Stderr, "mcp-go host: tools/call %s failed: %v\n", tool.Name, err)
		}
	}

	// Wait for the harness's signal to add a root, then tell the server the list changed
	// (RootListChanges is the library's call for notifications/roots/list_changed).
	if opts.control != "" && !opts.noRoots {
		signal := filepath.Join(opts.control, "add-root")
		for {
			if _, err := os.Stat(signal); err == nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		added := filepath.Join(workspace, "added root ü")
		if err := os.MkdirAll(added, 0o755); err != nil {
			fail("add root: %v", err)
		}
		roots.add(mcp.Root{URI: fileURI(added), Name: filepath.Base(added)})
		if err := c.RootListChanges(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "mcp-go host: notifications/roots/list_changed failed: %v\n", err)
		}
	}
	select {} // until the server hangs up (the goroutine above exits)
}

// waitForHangUp reports a failed request; if the server is going away it is the normal end
// (the goroutine watching its stderr exits 0), otherwise the failure is ours to report.
func waitForHangUp(message string) {
	fmt.Fprintf(os.Stderr, "mcp-go host: %s\n", message)
	time.Sleep(2 * time.Second)
	os.Exit(1)
}
