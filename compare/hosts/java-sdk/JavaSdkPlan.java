// The host plan (compare/hosts/README.md) as the Java SDK host reads it.
//
// The file is parsed with the SDK's own JSON mapper (Jackson, already on the host's pinned
// classpath) into plain maps, checked key by key (an unknown key or a wrong type is a one-line
// error and exit code 2), and the two canned answers are turned into the SDK's own result types
// (McpSchema.ElicitResult, McpSchema.CreateMessageResult) here, so an answer the SDK cannot
// represent is refused before the server is started, not mid-session.

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

final class JavaSdkPlan {

    record Change(Path signal, List<Path> addFolders, boolean notifyServer) {
    }

    record Roots(List<Path> folders, boolean listChanged, List<Change> changes) {
    }

    record Elicitation(boolean form, boolean url, McpSchema.ElicitResult answer) {
    }

    // One request of session.requests: its kind (the one key of KINDS it has), that key's value
    // (a list name, a tool or prompt name, a URI; null for complete and close), complete's reference and
    // argument, and the arguments of call or get_prompt (null when absent).
    record Request(String kind, String target, Complete complete, Map<String, Object> arguments) {
    }

    // completion/complete of one argument of a prompt (ref/prompt) or of a resource template
    // (ref/resource, name its URI template).
    record Complete(boolean prompt, String name, String argument, String value) {
    }

    // host-plan.schema.json's $defs.request, in its order.
    static final List<String> KINDS = List.of("list", "call", "read", "subscribe", "unsubscribe", "get_prompt",
            "complete", "close");

    // A signal's file name, as host-plan.schema.json's pattern has it.
    private static final Pattern SIGNAL = Pattern.compile("[a-z0-9][a-z0-9-]*");

    final Roots roots;
    final Elicitation elicitation;
    final McpSchema.CreateMessageResult sampling;
    final boolean callTools;
    final List<Request> requests;
    // Where the session record goes: <control>/session.jsonl.
    final Path sessionRecord;

    private JavaSdkPlan(Roots roots, Elicitation elicitation, McpSchema.CreateMessageResult sampling,
            boolean callTools, List<Request> requests, Path sessionRecord) {
        this.roots = roots;
        this.elicitation = elicitation;
        this.sampling = sampling;
        this.callTools = callTools;
        this.requests = requests;
        this.sessionRecord = sessionRecord;
    }

    boolean declaresAny() {
        return roots != null || elicitation != null || sampling != null;
    }

    // Whether a request subscribes: then the host registers the SDK's hook for resource updates
    // (README.md, the session record).
    boolean subscribes() {
        return requests.stream().anyMatch(r -> r.kind().equals("subscribe"));
    }

    // One line on stderr, whatever the cause's text holds.
    static void malformed(String why) {
        System.err.println("java-sdk host: bad plan: " + why.replaceAll("\\s*\\R\\s*", " "));
        System.exit(2);
    }

    static JavaSdkPlan read(Path file, McpJsonMapper mapper) {
        Map<String, Object> top = null;
        try {
            top = mapper.readValue(Files.readString(file), new TypeRef<Map<String, Object>>() {
            });
        }
        catch (IOException | RuntimeException err) {
            malformed(file + ": " + err);
        }
        if (top == null) {
            malformed(file + ": not a JSON object");
        }
        keys(top, "plan", Set.of("format", "workspace", "control", "features", "session", "options"), Set.of());
        if (!Integer.valueOf(1).equals(top.get("format"))) {
            malformed("format: expected 1, got " + top.get("format"));
        }
        Path control = path(top.get("control"), "control");
        path(top.get("workspace"), "workspace");
        Map<String, Object> features = object(top.get("features"), "features");
        keys(features, "features", Set.of(), Set.of("roots", "elicitation", "sampling"));
        Map<String, Object> session = object(top.get("session"), "session");
        keys(session, "session", Set.of("call_tools"), Set.of("requests"));
        // This host has no target-specific knob: any option is one it does not know.
        keys(object(top.get("options"), "options"), "options", Set.of(), Set.of());
        boolean callTools = flag(session.get("call_tools"), "session.call_tools");
        Roots roots = features.containsKey("roots") ? roots(features.get("roots"), control) : null;
        Elicitation elicitation = null;
        if (features.containsKey("elicitation")) {
            Map<String, Object> e = object(features.get("elicitation"), "features.elicitation");
            keys(e, "features.elicitation", Set.of("form", "url", "answer"), Set.of());
            McpSchema.ElicitResult answer = convert(mapper, e.get("answer"), McpSchema.ElicitResult.class,
                    "features.elicitation.answer");
            if (answer.action() == null) {
                malformed("features.elicitation.answer: no action");
            }
            elicitation = new Elicitation(flag(e.get("form"), "features.elicitation.form"),
                    flag(e.get("url"), "features.elicitation.url"), answer);
        }
        McpSchema.CreateMessageResult sampling = null;
        if (features.containsKey("sampling")) {
            Map<String, Object> s = object(features.get("sampling"), "features.sampling");
            keys(s, "features.sampling", Set.of("answer"), Set.of());
            // The SDK's type takes a CreateMessageResult without a model, so the schema's
            // required fields are checked on the plan itself.
            for (String key : List.of("role", "content", "model")) {
                if (!object(s.get("answer"), "features.sampling.answer").containsKey(key)) {
                    malformed("features.sampling.answer: missing " + key);
                }
            }
            sampling = convert(mapper, s.get("answer"), McpSchema.CreateMessageResult.class,
                    "features.sampling.answer");
            if (sampling.role() == null || sampling.content() == null || sampling.model() == null) {
                malformed("features.sampling.answer: role, content and model are required");
            }
        }
        List<Request> requests = new ArrayList<>();
        if (session.containsKey("requests")) {
            for (Object item : list(session.get("requests"), "session.requests")) {
                requests.add(request(item, "session.requests[" + requests.size() + "]"));
            }
        }
        return new JavaSdkPlan(roots, elicitation, sampling, callTools, requests,
                control.resolve("session.jsonl"));
    }

    // One request as $defs.request has it, with the harness's own checks (exactly one kind,
    // arguments only beside call or get_prompt, a prompt's arguments strings).
    private static Request request(Object value, String where) {
        Map<String, Object> r = object(value, where);
        Set<String> allowed = new HashSet<>(KINDS);
        allowed.add("arguments");
        keys(r, where, Set.of(), allowed);
        List<String> kinds = KINDS.stream().filter(r::containsKey).toList();
        if (kinds.size() != 1) {
            malformed(where + ": expected exactly one of " + String.join(", ", KINDS));
        }
        String kind = kinds.get(0);
        String target = null;
        Complete complete = null;
        if (kind.equals("complete")) {
            Map<String, Object> c = object(r.get(kind), where + ".complete");
            keys(c, where + ".complete", Set.of("ref", "argument"), Set.of());
            Map<String, Object> ref = object(c.get("ref"), where + ".complete.ref");
            keys(ref, where + ".complete.ref", Set.of("type", "name"), Set.of());
            if (!List.of("ref/prompt", "ref/resource").contains(ref.get("type"))) {
                malformed(where + ".complete.ref.type: expected ref/prompt or ref/resource");
            }
            Map<String, Object> argument = object(c.get("argument"), where + ".complete.argument");
            keys(argument, where + ".complete.argument", Set.of("name", "value"), Set.of());
            complete = new Complete(ref.get("type").equals("ref/prompt"),
                    text(ref.get("name"), where + ".complete.ref.name", 1),
                    text(argument.get("name"), where + ".complete.argument.name", 1),
                    text(argument.get("value"), where + ".complete.argument.value", 0));
        }
        else if (kind.equals("close")) {
            if (!Boolean.TRUE.equals(r.get(kind))) {
                malformed(where + ".close: expected true");
            }
        }
        else {
            target = text(r.get(kind), where + "." + kind, 1);
            if (kind.equals("list")
                    && !List.of("tools", "prompts", "resources", "resource_templates").contains(target)) {
                malformed(where + ".list: expected tools, prompts, resources or resource_templates");
            }
        }
        Map<String, Object> arguments = null;
        if (r.containsKey("arguments")) {
            if (!kind.equals("call") && !kind.equals("get_prompt")) {
                malformed(where + ".arguments: only beside call or get_prompt");
            }
            arguments = object(r.get("arguments"), where + ".arguments");
            if (kind.equals("get_prompt") && !arguments.values().stream().allMatch(v -> v instanceof String)) {
                malformed(where + ".arguments: a prompt's arguments are strings");
            }
        }
        return new Request(kind, target, complete, arguments);
    }

    private static String text(Object value, String where, int minLength) {
        if (!(value instanceof String s) || s.length() < minLength) {
            malformed(where + (minLength > 0 ? ": expected a non-empty string" : ": expected a string"));
            return null;
        }
        return s;
    }

    private static Roots roots(Object value, Path control) {
        Map<String, Object> r = object(value, "features.roots");
        keys(r, "features.roots", Set.of("folders", "list_changed", "changes"), Set.of());
        List<Path> folders = paths(r.get("folders"), "features.roots.folders");
        boolean listChanged = flag(r.get("list_changed"), "features.roots.list_changed");
        List<Change> changes = new ArrayList<>();
        for (Object item : list(r.get("changes"), "features.roots.changes")) {
            Map<String, Object> c = object(item, "features.roots.changes[]");
            keys(c, "features.roots.changes[]", Set.of("signal", "add_folders", "notify"), Set.of());
            if (!(c.get("signal") instanceof String signal) || !SIGNAL.matcher(signal).matches()) {
                malformed("features.roots.changes[].signal: expected a name like add-root");
                return null;
            }
            List<Path> added = paths(c.get("add_folders"), "features.roots.changes[].add_folders");
            if (added.isEmpty()) {
                malformed("features.roots.changes[].add_folders: expected at least one folder");
            }
            changes.add(new Change(control.resolve(signal), added,
                    flag(c.get("notify"), "features.roots.changes[].notify")));
        }
        return new Roots(folders, listChanged, changes);
    }

    private static void keys(Map<String, Object> map, String where, Set<String> required, Set<String> optional) {
        for (String key : map.keySet()) {
            if (!required.contains(key) && !optional.contains(key)) {
                malformed(where + ": unknown key " + key);
            }
        }
        for (String key : required) {
            if (!map.containsKey(key)) {
                malformed(where + ": missing " + key);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Object value, String where) {
        if (!(value instanceof Map)) {
            malformed(where + ": expected an object");
        }
        return (Map<String, Object>) value;
    }

    private static List<?> list(Object value, String where) {
        if (!(value instanceof List<?> items)) {
            malformed(where + ": expected a list");
            return List.of();
        }
        return items;
    }

    private static boolean flag(Object value, String where) {
        if (!(value instanceof Boolean b)) {
            malformed(where + ": expected true or false");
            return false;
        }
        return b;
    }

    // An absolute path, as the schema's abs_path: a string starting with "/", not "/" alone.
    private static Path path(Object value, String where) {
        if (!(value instanceof String text) || !text.startsWith("/") || text.length() < 2) {
            malformed(where + ": expected an absolute path");
            return null;
        }
        return Path.of(text).normalize();
    }

    private static List<Path> paths(Object value, String where) {
        List<Path> found = new ArrayList<>();
        for (Object item : list(value, where)) {
            found.add(path(item, where + "[]"));
        }
        return found;
    }

    private static <T> T convert(McpJsonMapper mapper, Object value, Class<T> type, String where) {
        object(value, where);
        try {
            return mapper.convertValue(value, type);
        }
        catch (RuntimeException err) {
            malformed(where + ": not a " + type.getSimpleName() + ": " + err.getMessage());
            return null;
        }
    }

}
