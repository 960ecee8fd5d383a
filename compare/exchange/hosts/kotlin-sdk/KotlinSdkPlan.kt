// The host plan (compare/exchange/hosts/README.md) as the Kotlin SDK host reads it.
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

internal class HostPlan(
    val roots: RootsPlan?,
    val elicitation: ElicitationPlan?,
    val sampling: CreateMessageResult?,
    val callTools: Boolean,
)

internal fun malformed(why: String): Nothing {
    System.err.println("kotlin-sdk host: bad plan: $why")
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

private fun JsonElement?.flag(where: String, default: Boolean): Boolean {
    if (this == null) return default
    val p = this as? JsonPrimitive
    return (if (p != null && !p.isString) p.booleanOrNull else null) ?: malformed("$where: expected true or false")
}

private fun JsonElement?.path(where: String): Path {
    val p = this as? JsonPrimitive
    val text = if (p != null && p.isString) p.content else malformed("$where: expected an absolute path")
    val path = Path.of(text)
    if (!path.isAbsolute) malformed("$where: expected an absolute path")
    return path.normalize()
}

private fun <T> JsonElement?.decode(serializer: KSerializer<T>, where: String): T {
    val value = obj(where)
    return try {
        McpJson.decodeFromJsonElement(serializer, value)
    } catch (err: Exception) { // a missing field, a bad enum value or an SDK require(...)
        malformed("$where: not a ${serializer.descriptor.serialName.substringAfterLast('.')}: ${err.message}")
    }
}

private fun rootsPlan(value: JsonElement?, control: Path?): RootsPlan {
    val r = value.obj("features.roots")
    r.keys("features.roots", setOf("folders"), setOf("list_changed", "changes"))
    val folders = r["folders"].list("features.roots.folders").map { it.path("features.roots.folders[]") }
    val changes = (r["changes"] ?: JsonArray(emptyList())).list("features.roots.changes").map { item ->
        val c = item.obj("features.roots.changes[]")
        c.keys("features.roots.changes[]", setOf("signal", "add_folders"), setOf("notify"))
        val s = c["signal"] as? JsonPrimitive
        val signal = if (s != null && s.isString && s.content.isNotEmpty() && '/' !in s.content) {
            s.content
        } else {
            malformed("features.roots.changes[].signal: expected a file name")
        }
        val dir = control ?: malformed("features.roots.changes needs control")
        Change(
            dir.resolve(signal),
            c["add_folders"].list("add_folders").map { it.path("add_folders[]") },
            c["notify"].flag("features.roots.changes[].notify", true),
        )
    }
    return RootsPlan(folders, r["list_changed"].flag("features.roots.list_changed", false), changes)
}

internal fun readPlan(file: Path): HostPlan {
    val top = try {
        Json.parseToJsonElement(Files.readString(file))
    } catch (err: Exception) {
        malformed("$file: $err")
    }.obj("plan")
    top.keys("plan", setOf("format", "workspace"), setOf("control", "features", "session", "options"))
    val format = top["format"] as? JsonPrimitive
    if (format == null || format.isString || format.intOrNull != 1) malformed("format: expected 1, got $format")
    top["workspace"].path("workspace")
    val control = top["control"]?.path("control")
    val features = (top["features"] ?: JsonObject(emptyMap())).obj("features")
    features.keys("features", emptySet(), setOf("roots", "elicitation", "sampling"))
    val session = (top["session"] ?: JsonObject(emptyMap())).obj("session")
    session.keys("session", emptySet(), setOf("call_tools"))
    // This host has no target-specific knob: any option is one it does not know.
    (top["options"] ?: JsonObject(emptyMap())).obj("options").keys("options", emptySet(), emptySet())
    val elicitation = features["elicitation"]?.let { value ->
        val e = value.obj("features.elicitation")
        e.keys("features.elicitation", setOf("answer"), setOf("form", "url"))
        ElicitationPlan(
            e["form"].flag("features.elicitation.form", true),
            e["url"].flag("features.elicitation.url", false),
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
        callTools = session["call_tools"].flag("session.call_tools", true),
    )
}
