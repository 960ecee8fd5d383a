// The host plan (compare/hosts/README.md) as the Kotlin SDK host reads it.
//
// The file is parsed with kotlinx.serialization's JSON tree (already on the host's pinned
// classpath, the SDK's own serialization library), checked key by key (an unknown key or a
// wrong type is a one-line error and exit code 2), and the two canned answers are decoded into
// the SDK's own result types (ElicitResult, CreateMessageResult) with the SDK's McpJson, so an
// answer the SDK cannot represent is refused before the server is started, not mid-session.

import io.modelcontextprotocol.kotlin.sdk.types.CreateMessageResult
import io.modelcontextprotocol.kotlin.sdk.types.ElicitResult
import io.modelcontextprotocol.kotlin.sdk.types.McpJson
import kotlinx.serialization.KSerializer
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.booleanOrNull
import kotlinx.serialization.json.intOrNull
import java.nio.file.Files
import java.nio.file.Path
import kotlin.system.exitProcess

internal class Change(val signal: Path, val addFolders: List<Path>, val notify: Boolean)

internal class RootsPlan(val folders: List<Path>, val listChanged: Boolean, val changes: List<Change>)

internal class ElicitationPlan(val form: Boolean, val url: Boolean, val answer: ElicitResult)

/** completion/complete of one argument of a prompt (ref/prompt) or resource template (ref/resource). */
internal class CompletePlan(val prompt: Boolean, val name: String, val argument: String, val value: String)

/**
 * One request of session.requests: its kind (its one key of [REQUEST_KINDS]), that key's value
 * (a list name, a tool or prompt name, a URI; null for complete and close), complete's reference and
 * argument, and the arguments of call or get_prompt (null when absent).
 */
internal class RequestPlan(
    val kind: String,
    val target: String?,
    val complete: CompletePlan?,
    val arguments: JsonObject?,
)

/** host-plan.schema.json's $defs.request, in its order. */
internal val REQUEST_KINDS =
    listOf("list", "call", "read", "subscribe", "unsubscribe", "get_prompt", "complete", "close")

internal class HostPlan(
    val roots: RootsPlan?,
    val elicitation: ElicitationPlan?,
    val sampling: CreateMessageResult?,
    val callTools: Boolean,
    val requests: List<RequestPlan>,
    /** Where the session record goes: <control>/session.jsonl. */
    val sessionRecord: Path,
) {
    /** Whether a request subscribes: then the host handles resource updates (README.md, the session record). */
    val subscribes: Boolean get() = requests.any { it.kind == "subscribe" }
}

/** One line on stderr, whatever the cause's text holds. */
internal fun malformed(why: String): Nothing {
    System.err.println("kotlin-sdk host: bad plan: ${why.replace(Regex("\\s*\\R\\s*"), " ")}")
    exitProcess(2)
}

private fun JsonObject.keys(where: String, required: Set<String>, optional: Set<String>) {
    for (key in keys) if (key !in required && key !in optional) malformed("$where: unknown key $key")
    for (key in required) if (key !in this) malformed("$where: missing $key")
}

private fun JsonElement?.obj(where: String): JsonObject =
    this as? JsonObject ?: malformed("$where: expected an object")

private fun JsonElement?.list(where: String): JsonArray =
    this as? JsonArray ?: malformed("$where: expected a list")

private fun JsonElement?.flag(where: String): Boolean {
    val p = this as? JsonPrimitive
    return (if (p != null && !p.isString) p.booleanOrNull else null) ?: malformed("$where: expected true or false")
}

private fun JsonElement?.path(where: String): Path {
    val p = this as? JsonPrimitive
    // As the schema's abs_path: a string starting with "/", not "/" alone.
    val text = p?.takeIf { it.isString }?.content
    if (text == null || !text.startsWith("/") || text.length < 2) malformed("$where: expected an absolute path")
    return Path.of(text).normalize()
}

private fun JsonElement?.text(where: String, minLength: Int = 1): String {
    val p = this as? JsonPrimitive
    return p?.takeIf { it.isString && it.content.length >= minLength }?.content
        ?: malformed("$where: expected a ${if (minLength > 0) "non-empty " else ""}string")
}

private fun <T> JsonElement?.decode(serializer: KSerializer<T>, where: String): T {
    val value = obj(where)
    return try {
        McpJson.decodeFromJsonElement(serializer, value)
    } catch (err: Exception) { // a missing field, a bad enum value or an SDK require(...)
        malformed("$where: not a ${serializer.descriptor.serialName.substringAfterLast('.')}: ${err.message}")
    }
}

/** A signal's file name, as host-plan.schema.json's pattern has it. */
private val SIGNAL = Regex("[a-z0-9][a-z0-9-]*")

private fun rootsPlan(value: JsonElement?, control: Path): RootsPlan {
    val r = value.obj("features.roots")
    r.keys("features.roots", setOf("folders", "list_changed", "changes"), emptySet())
    val folders = r["folders"].list("features.roots.folders").map { it.path("features.roots.folders[]") }
    val changes = r["changes"].list("features.roots.changes").map { item ->
        val at = "features.roots.changes[]"
        val c = item.obj(at)
        c.keys(at, setOf("signal", "add_folders", "notify"), emptySet())
        val s = c["signal"] as? JsonPrimitive
        val signal = s?.takeIf { it.isString && SIGNAL.matches(it.content) }?.content
            ?: malformed("$at.signal: expected a name like add-root")
        val added = c["add_folders"].list("$at.add_folders").map { it.path("$at.add_folders[]") }
        if (added.isEmpty()) malformed("$at.add_folders: expected at least one folder")
        Change(control.resolve(signal), added, c["notify"].flag("$at.notify"))
    }
    return RootsPlan(folders, r["list_changed"].flag("features.roots.list_changed"), changes)
}

/**
 * One request as $defs.request has it, with the harness's own checks (exactly one kind,
 * arguments only beside call or get_prompt, a prompt's arguments strings).
 */
private fun requestPlan(value: JsonElement, where: String): RequestPlan {
    val r = value.obj(where)
    r.keys(where, emptySet(), REQUEST_KINDS.toSet() + "arguments")
    val kind = REQUEST_KINDS.filter { it in r }.singleOrNull()
        ?: malformed("$where: expected exactly one of ${REQUEST_KINDS.joinToString(", ")}")
    var target: String? = null
    var complete: CompletePlan? = null
    if (kind == "complete") {
        val c = r[kind].obj("$where.complete")
        c.keys("$where.complete", setOf("ref", "argument"), emptySet())
        val ref = c["ref"].obj("$where.complete.ref")
        ref.keys("$where.complete.ref", setOf("type", "name"), emptySet())
        val type = ref["type"].text("$where.complete.ref.type")
        if (type != "ref/prompt" && type != "ref/resource") {
            malformed("$where.complete.ref.type: expected ref/prompt or ref/resource")
        }
        val argument = c["argument"].obj("$where.complete.argument")
        argument.keys("$where.complete.argument", setOf("name", "value"), emptySet())
        complete = CompletePlan(
            type == "ref/prompt",
            ref["name"].text("$where.complete.ref.name"),
            argument["name"].text("$where.complete.argument.name"),
            argument["value"].text("$where.complete.argument.value", minLength = 0),
        )
    } else if (kind == "close") {
        if (!r[kind].flag("$where.close")) malformed("$where.close: expected true")
    } else {
        target = r[kind].text("$where.$kind")
        if (kind == "list" && target !in setOf("tools", "prompts", "resources", "resource_templates")) {
            malformed("$where.list: expected tools, prompts, resources or resource_templates")
        }
    }
    val arguments = r["arguments"]?.let { value ->
        if (kind != "call" && kind != "get_prompt") malformed("$where.arguments: only beside call or get_prompt")
        value.obj("$where.arguments").also { a ->
            if (kind == "get_prompt" && !a.values.all { it is JsonPrimitive && it.isString }) {
                malformed("$where.arguments: a prompt's arguments are strings")
            }
        }
    }
    return RequestPlan(kind, target, complete, arguments)
}

internal fun readPlan(file: Path): HostPlan {
    val top = try {
        Json.parseToJsonElement(Files.readString(file))
    } catch (err: Exception) {
        malformed("$file: $err")
    }.obj("plan")
    top.keys("plan", setOf("format", "workspace", "control", "features", "session", "options"), emptySet())
    val format = top["format"] as? JsonPrimitive
    if (format == null || format.isString || format.intOrNull != 1) malformed("format: expected 1, got $format")
    top["workspace"].path("workspace")
    val control = top["control"].path("control")
    val features = top["features"].obj("features")
    features.keys("features", emptySet(), setOf("roots", "elicitation", "sampling"))
    val session = top["session"].obj("session")
    session.keys("session", setOf("call_tools"), setOf("requests"))
    // This host has no target-specific knob: any option is one it does not know.
    top["options"].obj("options").keys("options", emptySet(), emptySet())
    val elicitation = features["elicitation"]?.let { value ->
        val e = value.obj("features.elicitation")
        e.keys("features.elicitation", setOf("form", "url", "answer"), emptySet())
        ElicitationPlan(
            e["form"].flag("features.elicitation.form"),
            e["url"].flag("features.elicitation.url"),
            e["answer"].decode(ElicitResult.serializer(), "features.elicitation.answer"),
        )
    }
    val sampling = features["sampling"]?.let { value ->
        val s = value.obj("features.sampling")
        s.keys("features.sampling", setOf("answer"), emptySet())
        s["answer"].decode(CreateMessageResult.serializer(), "features.sampling.answer")
    }
    return HostPlan(
        roots = features["roots"]?.let { rootsPlan(it, control) },
        elicitation = elicitation,
        sampling = sampling,
        callTools = session["call_tools"].flag("session.call_tools"),
        requests = session["requests"]?.list("session.requests")
            ?.mapIndexed { i, item -> requestPlan(item, "session.requests[$i]") } ?: emptyList(),
        sessionRecord = control.resolve("session.jsonl"),
    )
}
