package org.marmot.model

import com.google.gson.Gson
import com.google.gson.GsonBuilder
import com.google.gson.JsonElement
import com.google.gson.JsonObject
import com.google.gson.JsonParser

/**
 * Reads AppState and AppUpdate and writes AppAction as the contract's JSON (schema version 1).
 *
 * Why two Gson instances: actions leave optional fields out (the core refuses some as `null`), while
 * [toTree] writes every null, so a decoded state written back can be compared with what the core sent.
 * Unknown fields are ignored on reading (Gson skips names a class lacks).
 */
object ContractJson {
    const val SCHEMA_VERSION = 1

    private fun builder(): GsonBuilder = GsonBuilder()
        .registerTypeAdapter(Screen::class.java, Screen.adapter)
        .registerTypeAdapter(AuthState::class.java, AuthState.adapter)
        .registerTypeAdapter(Delivery::class.java, Delivery.adapter)
        .registerTypeAdapter(RelayConnection::class.java, RelayConnection.adapter)
        .registerTypeAdapter(RelayAuth::class.java, RelayAuth.adapter)
        .registerTypeAdapter(AppUpdate::class.java, AppUpdate.adapter)
        .disableHtmlEscaping()

    /** Reads state and updates; writes actions without null fields. */
    val gson: Gson = builder().create()

    /** Writes every field, nulls included (round-trip checks, debugging without secrets). */
    val gsonWithNulls: Gson = builder().serializeNulls().create()

    /** An AppState from `marmot_app_state` (or a `fullState`'s `state`). */
    fun decodeState(json: String): AppState {
        val tree = parseObject(json)
        checkVersion(tree)
        return gson.fromJson(tree, AppState::class.java)
    }

    /** One AppUpdate from the listener; unknown types come back as [AppUpdate.Unknown]. */
    fun decodeUpdate(json: String): AppUpdate {
        val tree = parseObject(json)
        checkVersion(tree)
        if (tree.get("rev")?.isJsonPrimitive != true) throw ContractException("update without rev")
        return try {
            gson.fromJson(tree, AppUpdate::class.java)
        } catch (error: RuntimeException) {
            throw ContractException("unreadable update: ${error.javaClass.simpleName}", error)
        }
    }

    /** The action's JSON object: `schemaVersion`, `type`, then its fields (absent when null). */
    fun encodeActionTree(action: AppAction): JsonObject {
        val tree = gson.toJsonTree(action, action.javaClass).asJsonObject
        val result = JsonObject()
        result.addProperty("schemaVersion", SCHEMA_VERSION)
        result.addProperty("type", action.type)
        for ((key, value) in tree.entrySet()) result.add(key, value)
        return result
    }

    /** The action as the JSON text `marmot_app_dispatch` takes. */
    fun encodeAction(action: AppAction): String = gson.toJson(encodeActionTree(action))

    /** A model object as a JSON tree with every field (an update also gets its `schemaVersion`). */
    fun toTree(value: Any): JsonElement {
        val tree = if (value is AppUpdate) gsonWithNulls.toJsonTree(value, AppUpdate::class.java)
        else gsonWithNulls.toJsonTree(value)
        if (value is AppUpdate) tree.asJsonObject.addProperty("schemaVersion", SCHEMA_VERSION)
        return tree
    }

    private fun parseObject(json: String): JsonObject {
        val element = try {
            JsonParser.parseString(json)
        } catch (error: RuntimeException) {
            throw ContractException("not JSON", error)
        }
        if (!element.isJsonObject) throw ContractException("not a JSON object")
        return element.asJsonObject
    }

    private fun checkVersion(tree: JsonObject) {
        val version = tree.get("schemaVersion")
        if (version == null || !version.isJsonPrimitive || version.asInt != SCHEMA_VERSION) {
            throw ContractException("schemaVersion is not $SCHEMA_VERSION")
        }
    }
}
