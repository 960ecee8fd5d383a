// The host plan: the per-cell JSON file that tells this host what to declare and how to
// answer (compare/exchange/hosts/README.md holds the contract). This file knows the plan's
// shape, not any SDK. The same file sits in both Go hosts (go-sdk, mcp-go: a test keeps the
// two copies identical), since each Go host is a module of its own, built and stamped from
// its own folder.
//
// Reading is strict, because a plan the host misreads would put the wrong behaviour on the
// wire under the SDK's name: an unknown key or a wrong type is refused with one line on
// stderr and exit code 2, before any server is started.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Exit codes of the host contract.
const (
	exitFailed      = 1 // the session failed on our side
	exitBadPlan     = 2 // the command line or the plan is malformed
	exitUnsupported = 3 // the SDK cannot register a feature the plan asks for
)

type hostPlan struct {
	Format    *int            `json:"format"`
	Workspace string          `json:"workspace"`
	Control   string          `json:"control"`
	Features  *featuresPlan   `json:"features"`
	Session   *sessionPlan    `json:"session"`
	Options   json.RawMessage `json:"options"`
}

type featuresPlan struct {
	Roots       *rootsPlan       `json:"roots"`
	Elicitation *elicitationPlan `json:"elicitation"`
	Sampling    *samplingPlan    `json:"sampling"`
}

type rootsPlan struct {
	Folders     *[]string     `json:"folders"`
	ListChanged *bool         `json:"list_changed"`
	Changes     []rootsChange `json:"changes"`
}

type rootsChange struct {
	Signal     string   `json:"signal"`
	AddFolders []string `json:"add_folders"`
	Notify     *bool    `json:"notify"`
}

type elicitationPlan struct {
	Form   *bool           `json:"form"`
	URL    *bool           `json:"url"`
	Answer json.RawMessage `json:"answer"`
}

type samplingPlan struct {
	Answer json.RawMessage `json:"answer"`
}

type sessionPlan struct {
	CallTools *bool `json:"call_tools"`
}

// planError is a malformed command line or plan: one line on stderr, exit code 2.
func planError(format string, args ...any) {
	fmt.Fprintf(os.Stderr, hostName+": bad plan: "+format+"\n", args...)
	os.Exit(exitBadPlan)
}

// unsupported is a feature the SDK cannot register: the contract's one line, exit code 3.
func unsupported(feature, why string) {
	fmt.Fprintf(os.Stderr, "%s: unsupported: %s: %s\n", hostName, feature, why)
	os.Exit(exitUnsupported)
}

// parseArgs reads `--plan PATH -- SERVER_COMMAND...`, the only command line a host takes.
func parseArgs(argv []string) (string, []string) {
	if len(argv) < 4 || argv[0] != "--plan" || argv[2] != "--" || argv[1] == "" {
		planError(`usage: host --plan PATH -- SERVER_COMMAND...`)
	}
	return argv[1], argv[3:]
}

// decodeStrict decodes one JSON value into out, refusing unknown keys and trailing data.
func decodeStrict(data []byte, out any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

func absolute(key, path string) {
	if path == "" || !filepath.IsAbs(path) {
		planError("%s: %q is not an absolute path", key, path)
	}
}

// readPlan loads and checks the plan; every fault ends the host with exit code 2.
func readPlan(path string) *hostPlan {
	data, err := os.ReadFile(path)
	if err != nil {
		planError("%v", err)
	}
	var plan hostPlan
	if err := decodeStrict(data, &plan); err != nil {
		planError("%s: %v", path, err)
	}
	if plan.Format == nil || *plan.Format != 1 {
		planError("format: this host reads format 1")
	}
	absolute("workspace", plan.Workspace)
	absolute("control", plan.Control)
	if plan.Features == nil {
		planError("features: missing (write {} to declare none)")
	}
	if plan.Session == nil || plan.Session.CallTools == nil {
		planError("session.call_tools: missing")
	}
	if len(plan.Options) > 0 {
		var options map[string]json.RawMessage
		if err := json.Unmarshal(plan.Options, &options); err != nil || options == nil {
			planError("options: not an object")
		}
		for key := range options {
			planError("options.%s: this host takes no options", key)
		}
	}
	if roots := plan.Features.Roots; roots != nil {
		checkRoots(roots)
	}
	if e := plan.Features.Elicitation; e != nil {
		if e.Form == nil || e.URL == nil {
			planError("features.elicitation: form and url are required")
		}
		checkElicitAnswer(e.Answer)
	}
	if s := plan.Features.Sampling; s != nil && len(s.Answer) == 0 {
		planError("features.sampling.answer: missing")
	}
	return &plan
}

func checkRoots(roots *rootsPlan) {
	if roots.Folders == nil || roots.ListChanged == nil {
		planError("features.roots: folders and list_changed are required")
	}
	for i, folder := range *roots.Folders {
		absolute(fmt.Sprintf("features.roots.folders[%d]", i), folder)
	}
	seen := map[string]bool{}
	for i, change := range roots.Changes {
		key := fmt.Sprintf("features.roots.changes[%d]", i)
		if change.Signal == "" || strings.ContainsAny(change.Signal, `/\`) || change.Signal == "." ||
			change.Signal == ".." {
			planError("%s.signal: %q is not a file name", key, change.Signal)
		}
		if seen[change.Signal] {
			planError("%s.signal: %q is used twice", key, change.Signal)
		}
		seen[change.Signal] = true
		if change.Notify == nil {
			planError("%s.notify: missing", key)
		}
		for j, folder := range change.AddFolders {
			absolute(fmt.Sprintf("%s.add_folders[%d]", key, j), folder)
		}
	}
}

// checkElicitAnswer checks the part of an ElicitResult the contract names; the SDK's own
// type decodes it (elicitAnswer in main.go).
func checkElicitAnswer(raw json.RawMessage) {
	var answer struct {
		Action string `json:"action"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &answer) != nil {
		planError("features.elicitation.answer: missing or not an object")
	}
	switch answer.Action {
	case "accept", "decline", "cancel":
	default:
		planError("features.elicitation.answer.action: %q is not accept, decline or cancel", answer.Action)
	}
}

// watchChanges polls the control folder every 50 ms and applies each roots change once, when
// its signal file appears, in the plan's order. apply does the SDK's part.
func watchChanges(control string, changes []rootsChange, apply func(rootsChange)) {
	pending := append([]rootsChange(nil), changes...)
	for len(pending) > 0 {
		rest := pending[:0]
		for _, change := range pending {
			if _, err := os.Stat(filepath.Join(control, change.Signal)); err == nil {
				for _, folder := range change.AddFolders {
					if err := os.MkdirAll(folder, 0o755); err != nil {
						fail("add root: %v", err)
					}
				}
				apply(change)
			} else {
				rest = append(rest, change)
			}
		}
		pending = rest
		if len(pending) > 0 {
			time.Sleep(50 * time.Millisecond)
		}
	}
}
