// The host plan: the per-cell JSON file that tells this host what to declare and how to
// answer. The contract is compare/hosts/README.md and the shape is
// compare/hosts/host-plan.schema.json; this file knows that shape, not any SDK. The
// same file sits in both Go hosts (go-sdk, mcp-go: a test keeps the two copies identical),
// since each Go host is a module of its own, built and stamped from its own folder.
//
// Reading is strict, because a plan the host misread would put the wrong behaviour on the
// wire under the SDK's name: every rule of the schema is checked here (keys matched exactly,
// as JSON Schema does, not case-folded as encoding/json would), and a plan that breaks one is
// refused with one line on stderr and exit code 2, before any server is started. A test runs
// the same faulty plans through the schema, so the two cannot drift apart unnoticed.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Exit codes of the host contract.
const (
	exitFailed  = 1 // the session failed on our side
	exitBadPlan = 2 // the command line or the plan is malformed
)

type hostPlan struct {
	Workspace string
	Control   string
	Features  featuresPlan
	CallTools bool
}

// featuresPlan holds the client features to declare; a nil one is absent.
type featuresPlan struct {
	Roots       *rootsPlan
	Elicitation *elicitationPlan
	Sampling    *samplingPlan
}

type rootsPlan struct {
	Folders     []string
	ListChanged bool
	Changes     []rootsChange
}

type rootsChange struct {
	Signal     string
	AddFolders []string
	Notify     bool
}

type elicitationPlan struct {
	Form, URL bool
	Answer    json.RawMessage // an ElicitResult, decoded by the SDK's own type
}

type samplingPlan struct {
	Answer json.RawMessage // a CreateMessageResult, decoded by the SDK's own type
}

var signalName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// planError is a malformed command line or plan: one line on stderr, exit code 2.
func planError(format string, args ...any) {
	message := strings.Join(strings.Fields(fmt.Sprintf(format, args...)), " ")
	fmt.Fprintf(os.Stderr, "%s: bad plan: %s\n", hostName, message)
	os.Exit(exitBadPlan)
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

// object reads a JSON object at key, with exactly the allowed keys and all the required ones.
func object(key string, raw json.RawMessage, required []string, optional ...string) map[string]json.RawMessage {
	var fields map[string]json.RawMessage
	if err := decodeStrict(raw, &fields); err != nil || fields == nil {
		planError("key %s: not a JSON object", key)
	}
	known := map[string]bool{}
	for _, name := range append(append([]string(nil), required...), optional...) {
		known[name] = true
	}
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !known[name] {
			planError("key %s: unknown key %q", key, name)
		}
	}
	for _, name := range required {
		if _, ok := fields[name]; !ok {
			planError("key %s: %q is required", key, name)
		}
	}
	return fields
}

func boolean(key string, raw json.RawMessage) bool {
	var value *bool
	if json.Unmarshal(raw, &value) != nil || value == nil {
		planError("key %s: not true or false", key)
	}
	return *value
}

func text(key string, raw json.RawMessage) string {
	var value *string
	if json.Unmarshal(raw, &value) != nil || value == nil {
		planError("key %s: not a string", key)
	}
	return *value
}

func absPath(key string, raw json.RawMessage) string {
	path := text(key, raw)
	if len(path) < 2 || !strings.HasPrefix(path, "/") {
		planError("key %s: %q is not an absolute path", key, path)
	}
	return path
}

func list(key string, raw json.RawMessage) []json.RawMessage {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil || items == nil {
		planError("key %s: not an array", key)
	}
	return items
}

func absPaths(key string, raw json.RawMessage) []string {
	paths := []string{}
	for i, item := range list(key, raw) {
		paths = append(paths, absPath(fmt.Sprintf("%s.%d", key, i), item))
	}
	return paths
}

func oneOf(key string, raw json.RawMessage, allowed ...string) {
	value := text(key, raw)
	for _, ok := range allowed {
		if value == ok {
			return
		}
	}
	planError("key %s: %q is not one of %s", key, value, strings.Join(allowed, ", "))
}

// readPlan loads and checks the plan; every fault ends the host with exit code 2.
func readPlan(path string) *hostPlan {
	data, err := os.ReadFile(path)
	if err != nil {
		planError("cannot read the plan: %v", err)
	}
	if !json.Valid(data) {
		planError("the plan %s is not JSON", path)
	}
	top := object("(top level)", data, []string{"format", "workspace", "control", "features", "session", "options"})
	var format *int
	if json.Unmarshal(top["format"], &format) != nil || format == nil || *format != 1 {
		planError("key format: this host reads format 1")
	}
	plan := &hostPlan{
		Workspace: absPath("workspace", top["workspace"]),
		Control:   absPath("control", top["control"]),
	}
	session := object("session", top["session"], []string{"call_tools"})
	plan.CallTools = boolean("session.call_tools", session["call_tools"])
	object("options", top["options"], nil) // this host takes no options: any key is refused
	features := object("features", top["features"], nil, "roots", "elicitation", "sampling")
	if raw, ok := features["roots"]; ok {
		plan.Features.Roots = readRoots("features.roots", raw)
	}
	if raw, ok := features["elicitation"]; ok {
		key := "features.elicitation"
		e := object(key, raw, []string{"form", "url", "answer"})
		answer := object(key+".answer", e["answer"], []string{"action"}, anyKey(e["answer"])...)
		oneOf(key+".answer.action", answer["action"], "accept", "decline", "cancel")
		if content, ok := answer["content"]; ok {
			object(key+".answer.content", content, nil, anyKey(content)...)
		}
		plan.Features.Elicitation = &elicitationPlan{
			Form:   boolean(key+".form", e["form"]),
			URL:    boolean(key+".url", e["url"]),
			Answer: e["answer"],
		}
	}
	if raw, ok := features["sampling"]; ok {
		key := "features.sampling"
		s := object(key, raw, []string{"answer"})
		answer := object(key+".answer", s["answer"], []string{"role", "content", "model"}, anyKey(s["answer"])...)
		oneOf(key+".answer.role", answer["role"], "assistant", "user")
		content := object(key+".answer.content", answer["content"], []string{"type"}, anyKey(answer["content"])...)
		text(key+".answer.content.type", content["type"])
		text(key+".answer.model", answer["model"])
		if stop, ok := answer["stopReason"]; ok {
			text(key+".answer.stopReason", stop)
		}
		plan.Features.Sampling = &samplingPlan{Answer: s["answer"]}
	}
	return plan
}

// anyKey lists the keys of an object whose other keys the schema leaves free (an answer and
// its content): each is allowed here, and the SDK's own type is the judge of an answer when
// it is decoded (an answer the SDK's type cannot carry is refused then, by carried, with
// exit code 2). A value that is no object gets none, and object() then refuses it.
func anyKey(raw json.RawMessage) []string {
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(raw, &fields)
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	return names
}

func readRoots(key string, raw json.RawMessage) *rootsPlan {
	r := object(key, raw, []string{"folders", "list_changed", "changes"})
	roots := &rootsPlan{
		Folders:     absPaths(key+".folders", r["folders"]),
		ListChanged: boolean(key+".list_changed", r["list_changed"]),
	}
	for i, item := range list(key+".changes", r["changes"]) {
		at := fmt.Sprintf("%s.changes.%d", key, i)
		c := object(at, item, []string{"signal", "add_folders", "notify"})
		change := rootsChange{
			Signal:     text(at+".signal", c["signal"]),
			AddFolders: absPaths(at+".add_folders", c["add_folders"]),
			Notify:     boolean(at+".notify", c["notify"]),
		}
		if !signalName.MatchString(change.Signal) {
			planError("key %s.signal: %q is not a signal name (%s)", at, change.Signal, signalName)
		}
		if len(change.AddFolders) == 0 {
			planError("key %s.add_folders: names no folder", at)
		}
		roots.Changes = append(roots.Changes, change)
	}
	return roots
}

// carried refuses an answer the SDK's type does not carry as the plan wrote it: the answer
// decoded into that type and encoded again must be the same JSON value, or the wire would
// show something other than the plan under the SDK's name (a key the type drops, a content
// block it reshapes).
func carried(key string, raw json.RawMessage, value any) {
	encoded, err := json.Marshal(value)
	if err != nil {
		planError("key %s: the SDK's type cannot encode it: %v", key, err)
	}
	var want, got any
	if json.Unmarshal(raw, &want) != nil || json.Unmarshal(encoded, &got) != nil ||
		!reflect.DeepEqual(want, got) {
		planError("key %s: the SDK's type carries it as %s", key, encoded)
	}
}

// watchChanges polls the control folder every 50 ms and applies each roots change once, when
// its signal file appears, in the plan's order. apply does the SDK's part.
func watchChanges(control string, changes []rootsChange, apply func(rootsChange)) {
	pending := append([]rootsChange(nil), changes...)
	for len(pending) > 0 {
		var rest []rootsChange
		for _, change := range pending {
			if _, err := os.Stat(filepath.Join(control, change.Signal)); err != nil {
				rest = append(rest, change)
				continue
			}
			for _, folder := range change.AddFolders {
				if err := os.MkdirAll(folder, 0o755); err != nil {
					fail("add root: %v", err)
				}
			}
			apply(change)
		}
		pending = rest
		if len(pending) > 0 {
			time.Sleep(50 * time.Millisecond)
		}
	}
}
