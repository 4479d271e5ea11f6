package org.marmot.model

import com.google.gson.JsonDeserializationContext
import com.google.gson.JsonDeserializer
import com.google.gson.JsonElement
import com.google.gson.JsonObject
import com.google.gson.JsonParseException
import com.google.gson.JsonSerializationContext
import com.google.gson.JsonSerializer
import java.lang.reflect.Type

/**
 * Reads and writes one sealed class of the contract by its `"type"` tag.
 *
 * Why hand-written: Gson has no sealed-class support, and the contract needs cases without fields
 * (`{"type":"chatList"}`) to come back as the same Kotlin `object`, unknown tags to be tolerated
 * (a newer core may add a screen) and the tag written exactly once.
 */
class TaggedAdapter<T : Tagged>(
    private val cases: Map<String, Class<out T>>,
    private val singletons: List<T>,
    private val unknown: ((String, JsonObject) -> T)?
) : JsonSerializer<T>, JsonDeserializer<T> {
    private val singletonByTag: Map<String, T> = singletons.associateBy { it.type }

    override fun serialize(src: T, typeOfSrc: Type, context: JsonSerializationContext): JsonElement {
        val tree = if (singletonByTag[src.type] === src) JsonObject()
        else context.serialize(src, src.javaClass).asJsonObject
        tree.addProperty("type", src.type)
        return tree
    }

    override fun deserialize(json: JsonElement, typeOfT: Type, context: JsonDeserializationContext): T {
        if (!json.isJsonObject) throw JsonParseException("expected a tagged object for $typeOfT")
        val tree = json.asJsonObject
        val tagElement = tree.get("type")
        if (tagElement == null || !tagElement.isJsonPrimitive || !tagElement.asJsonPrimitive.isString) {
            throw JsonParseException("missing \"type\" in $typeOfT")
        }
        val tag = tagElement.asString
        singletonByTag[tag]?.let { return it }
        cases[tag]?.let { return context.deserialize(tree, it) }
        return unknown?.invoke(tag, tree) ?: throw JsonParseException("unknown type \"$tag\" for $typeOfT")
    }
}
