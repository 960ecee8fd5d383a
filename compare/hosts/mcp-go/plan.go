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
	"sync"
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
	Requests  []sessionRequest
}

// sessionRequest is one item of session.requests: a client request the host makes through
// the SDK's API, its outcome recorded in <control>/session.jsonl (recordOutcome).
type sessionRequest struct {
	Kind string // list, call, read, subscribe, unsubscribe, get_prompt, complete or close
	// Name is what the request names: the list (tools, prompts, resources,
	// resource_templates), the tool, the URI, the prompt, or complete's ref.name.
	Name      string
	Arguments map[string]any    // call: its arguments, {} when absent (numbers as written)
	Strings   map[string]string // get_prompt: its arguments, nil when absent
	RefType   string            // complete: ref/prompt or ref/resource
	Argument  [2]string         // complete: the argument's name and value
}

var requestKinds = []string{"list", "call", "read", "subscribe", "unsubscribe", "get_prompt", "complete", "close"}

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

// parseArgs reads the host's command line, one of two forms: `--plan PATH --
// SERVER_COMMAND...` (start the server on stdio: the command, url "") or `--plan PATH --url
// URL` (connect to a server already listening, through the SDK's Streamable HTTP client: the
// URL, no command).
func parseArgs(argv []string) (planPath string, server []string, url string) {
	if len(argv) == 4 && argv[0] == "--plan" && argv[1] != "" && argv[2] == "--url" && argv[3] != "" {
		return argv[1], nil, argv[3]
	}
	if len(argv) < 4 || argv[0] != "--plan" || argv[2] != "--" || argv[1] == "" {
		planError(`usage: host --plan PATH -- SERVER_COMMAND... | host --plan PATH --url URL`)
	}
	return argv[1], argv[3:], ""
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
	session := object("session", top["session"], []string{"call_tools"}, "requests")
	plan.CallTools = boolean("session.call_tools", session["call_tools"])
	if raw, ok := session["requests"]; ok {
		items := list("session.requests", raw)
		for i, item := range items {
			key := fmt.Sprintf("session.requests.%d", i)
			request := readRequest(key, item)
			// close ends the session, so it comes last, as the harness checks a scenario's
			// host_session (compare/exchange/_host_plan.py, check_requests): a request after
			// it could not be made.
			if request.Kind == "close" && i != len(items)-1 {
				planError("key %s.close: close ends the session, so it is the last request", key)
			}
			plan.Requests = append(plan.Requests, request)
		}
	}
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

// readRequest reads one request: exactly one kind, and arguments only beside call (any JSON
// values) or get_prompt (strings), as the harness checks a scenario's host_session
// (compare/exchange/_host_plan.py, check_requests).
func readRequest(key string, raw json.RawMessage) sessionRequest {
	r := object(key, raw, nil, append([]string{"arguments"}, requestKinds...)...)
	var kinds []string
	for _, kind := range requestKinds {
		if _, ok := r[kind]; ok {
			kinds = append(kinds, kind)
		}
	}
	if len(kinds) != 1 {
		planError("key %s: a request makes exactly one of %s", key, strings.Join(requestKinds, ", "))
	}
	request := sessionRequest{Kind: kinds[0]}
	at := key + "." + request.Kind
	switch request.Kind {
	case "list":
		oneOf(at, r["list"], "tools", "prompts", "resources", "resource_templates")
		request.Name = text(at, r["list"])
	case "complete":
		c := object(at, r["complete"], []string{"ref", "argument"})
		ref := object(at+".ref", c["ref"], []string{"type", "name"})
		oneOf(at+".ref.type", ref["type"], "ref/prompt", "ref/resource")
		request.RefType = text(at+".ref.type", ref["type"])
		request.Name = nonEmpty(at+".ref.name", ref["name"])
		argument := object(at+".argument", c["argument"], []string{"name", "value"})
		request.Argument = [2]string{
			nonEmpty(at+".argument.name", argument["name"]),
			text(at+".argument.value", argument["value"]),
		}
	case "close": // {"close": true}: it names nothing
		if !boolean(at, r["close"]) {
			planError("key %s: not true", at)
		}
	default:
		request.Name = nonEmpty(at, r[request.Kind])
	}
	arguments, given := r["arguments"]
	switch {
	case request.Kind == "call":
		request.Arguments = map[string]any{}
		if given {
			// json.Number keeps each number as the plan wrote it (a float64 would round a
			// large integer), so the SDK sends the arguments the plan names.
			dec := json.NewDecoder(bytes.NewReader(arguments))
			dec.UseNumber()
			if dec.Decode(&request.Arguments) != nil || request.Arguments == nil {
				planError("key %s.arguments: not a JSON object", key)
			}
		}
	case request.Kind == "get_prompt" && given:
		object(key+".arguments", arguments, nil, anyKey(arguments)...)
		if json.Unmarshal(arguments, &request.Strings) != nil {
			planError("key %s.arguments: a prompt's arguments are strings", key)
		}
	case given:
		planError("key %s.arguments: only beside call or get_prompt", key)
	}
	return request
}

func nonEmpty(key string, raw json.RawMessage) string {
	value := text(key, raw)
	if value == "" {
		planError("key %s: an empty string", key)
	}
	return value
}

// outcome is one line of the session record (README.md, "The session record").
type outcome struct {
	Step    int     `json:"step"`
	Request string  `json:"request"`
	OK      bool    `json:"ok"`
	Result  any     `json:"result,omitempty"`
	Error   *string `json:"error,omitempty"`
	Code    *int64  `json:"code,omitempty"`
}

// recordOutcome appends the outcome of request step to <control>/session.jsonl, written
// through at once so that the record holds it even if the server ends the session next:
// result is what the SDK returned, encoded by encoding/json (through the SDK types' own
// MarshalJSON where they have one), or err what it returned instead, with the JSON-RPC code
// when the SDK's error exposes one (code nil: it does not).
func recordOutcome(control string, step int, kind string, result any, err error, code *int64) {
	line := outcome{Step: step, Request: kind, OK: err == nil, Result: result}
	if err != nil {
		message := strings.Join(strings.Fields(err.Error()), " ")
		line.Result, line.Error, line.Code = nil, &message, code
	}
	appendRecord(control, fmt.Sprintf("step %d", step), line)
}

// updated is the notification a plan with a subscribe request records (README.md, the
// session record).
const updated = "notifications/resources/updated"

// subscribes tells whether the plan subscribes to a resource, so the host registers its SDK's
// handler for resource updates before it connects.
func (p *hostPlan) subscribes() bool {
	for _, r := range p.Requests {
		if r.Kind == "subscribe" {
			return true
		}
	}
	return false
}

// notification is a resource update line of the session record.
type notification struct {
	Notification string `json:"notification"`
	Params       any    `json:"params"`
}

// recordNotification appends one resource update the SDK handed our handler to the session
// record, when it arrives: params is what it handed, encoded by encoding/json (through the
// SDK type's own MarshalJSON where it has one).
func recordNotification(control string, params any) {
	appendRecord(control, updated, notification{Notification: updated, Params: params})
}

// recordLock keeps lines whole: the SDK calls an update handler from its own goroutine, which
// may write while the main one records a request.
var recordLock sync.Mutex

// appendRecord writes one line to <control>/session.jsonl, opened, written and closed at once.
func appendRecord(control, what string, line any) {
	data, mErr := json.Marshal(line)
	if mErr != nil {
		fail("session record: %s: %v", what, mErr)
	}
	recordLock.Lock()
	defer recordLock.Unlock()
	file, oErr := os.OpenFile(filepath.Join(control, "session.jsonl"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if oErr != nil {
		fail("session record: %v", oErr)
	}
	_, wErr := file.Write(append(data, '\n'))
	if cErr := file.Close(); wErr == nil {
		wErr = cErr
	}
	if wErr != nil {
		fail("session record: %v", wErr)
	}
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
