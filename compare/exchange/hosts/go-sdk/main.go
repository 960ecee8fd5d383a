// An application embedding the official Go SDK's client (github.com/modelcontextprotocol/go-sdk).
//
// It is evidence: everything the SDK put on the wire was caused by the few calls below, so a
// reader can tell the library's behaviour from ours. Usage (the host contract, CONTRACTS.md):
//
//	host --workspace DIR [--no-roots] [--control DIR] -- SERVER_COMMAND...
//
// `mcp-compare tools install` builds it into tools/hosts/go-sdk/bin/host from the go.mod and
// go.sum beside it, which pin the SDK's exact version.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type options struct {
	workspace string
	control   string
	noRoots   bool
	server    []string
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "go-sdk host: "+format+"\n", args...)
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

// fileURI is the file URI of an absolute path, built by Go's standard URL type (Go has no
// dedicated path-to-URI helper; net/url percent-encodes spaces, '#' and non-ASCII bytes in a
// path). mark3labs/mcp-go's roots example builds its root URIs the same way.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// hungUp tells the server closing the connection (the normal end of a session) from a failure.
func hungUp(err error) bool {
	return errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF)
}

func main() {
	opts := parseArgs(os.Args[1:])
	workspace, err := filepath.Abs(opts.workspace)
	if err != nil {
		fail("workspace: %v", err)
	}

	// The SDK's documented roots API: the client owns its roots (Client.AddRoots) and answers
	// roots/list from them itself. With nil ClientOptions it declares {"roots":{"listChanged":
	// true}}; the documented way to declare no roots is Capabilities: &ClientCapabilities{},
	// and then no root is added, so the SDK's own answer to an undeclared roots/list is measured.
	var clientOpts *mcp.ClientOptions
	if opts.noRoots {
		clientOpts = &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcp-compare-go-host", Version: "1.0.0"}, clientOpts)
	if !opts.noRoots {
		client.AddRoots(&mcp.Root{URI: fileURI(workspace), Name: filepath.Base(workspace)})
	}

	// The SDK's stdio transport: it starts the server command. The command inherits our
	// environment (the harness configures the peer through it) and our stderr, so the server's
	// own messages land in the cell's client.stderr as with the other hosts.
	cmd := exec.Command(opts.server[0], opts.server[1:]...)
	cmd.Stderr = os.Stderr
	ctx := context.Background()
	// Connect sends server/discover (2026-07-28) or initialize + notifications/initialized.
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		if hungUp(err) {
			os.Exit(0)
		}
		fail("connect: %v", err)
	}

	listing, err := session.ListTools(ctx, nil)
	if err != nil {
		if hungUp(err) {
			os.Exit(0)
		}
		fail("tools/list: %v", err)
	}
	for _, tool := range listing.Tools {
		// The server's answer is evidence, not our failure: report it and go on.
		if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: map[string]any{}}); err != nil {
			fmt.Fprintf(os.Stderr, "go-sdk host: tools/call %s failed: %v\n", tool.Name, err)
		}
	}

	// Wait for the harness's signal to add a root; AddRoots itself sends
	// notifications/roots/list_changed to the connected server.
	if opts.control != "" && !opts.noRoots {
		go func() {
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
			client.AddRoots(&mcp.Root{URI: fileURI(added), Name: filepath.Base(added)})
		}()
	}

	// The session ends when the server hangs up; that is the normal end, so exit 0.
	_ = session.Wait()
}
