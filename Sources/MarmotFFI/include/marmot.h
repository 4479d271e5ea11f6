/*
 * marmot.h — the C ABI of the Marmot app core (libMarmotFFI.so / .dylib).
 *
 * One object (marmot_app), one listener callback, JSON in and out. The JSON contract is
 * docs/ffi-contract.md, schema version 1 (marmot_schema_version()):
 *
 *   state     marmot_app_state() -> AppState JSON
 *             {"schemaVersion":1,"rev":12,"router":{...},"auth":{"type":"loggedIn",...},...}
 *   actions   marmot_app_dispatch(app, "{\"type\":\"sendMessage\",\"chatId\":\"…\",\"content\":\"hi\"}")
 *   updates   the listener receives {"schemaVersion":1,"type":"chatListChanged","rev":13,"chatList":[...]}
 *
 * Enum cases are objects tagged by "type"; identifiers (chatId, messageId, inviteId) are strings;
 * absent values are null.
 *
 * The rev rule (the renderer's job, as AppManager does it in Swift): keep lastRev from the snapshot;
 * for each update, handle the side effects first whatever their rev ("accountCreated" and
 * "secretAccepted": store the nsec in secure storage; "secretForgotten": delete it; "secretExported":
 * show it once); then if rev <= lastRev drop it (stale), if rev == lastRev + 1 apply it, if rev > lastRev + 1
 * re-read marmot_app_state() and replace everything (gap). Register the listener BEFORE reading the
 * first snapshot: updates are buffered from creation, so none is lost, and the stale ones are dropped.
 *
 * Secrets: the nsec crosses this ABI only in the "login" and "restoreSession" actions and in the
 * "accountCreated", "secretAccepted" and "secretExported" updates. The library never logs it and never writes it to disk: the host keeps it
 * (Keystore, Keychain, a 0600 file) and dispatches restoreSession at launch.
 *
 * Threads: every function may be called from any thread. marmot_app_dispatch queues and returns at
 * once. The listener runs on a thread of the library, one call at a time, in rev order; it must not
 * block for long and must copy the JSON (the pointer is valid only during the call). The listener may
 * call any function of this header, marmot_app_destroy included (then it is not called again);
 * marmot_app_destroy from another thread waits for a callback in progress to return.
 */
#ifndef MARMOT_H
#define MARMOT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes. */
#define MARMOT_OK 0
#define MARMOT_ERR_NULL_ARGUMENT 1          /* a required pointer was NULL */
#define MARMOT_ERR_INVALID_JSON 2           /* not a UTF-8 JSON object */
#define MARMOT_ERR_SCHEMA_VERSION 3         /* "schemaVersion" present and not marmot_schema_version() */
#define MARMOT_ERR_UNKNOWN_ACTION 4         /* "type" is not an action of the contract */
#define MARMOT_ERR_INVALID_FIELD 5          /* a field is missing or of the wrong JSON type */
#define MARMOT_ERR_INVALID_SECRET 6         /* installation secret: not 64 hex digits */
#define MARMOT_ERR_STORAGE 7                /* data directory or installation secret file unusable */
#define MARMOT_ERR_LISTENER_SET 8           /* a listener is already registered */
#define MARMOT_ERR_INVALID_RELAY 9          /* a relay is not a ws:// or wss:// URL */

typedef struct marmot_app marmot_app;

/* Receives one AppUpdate as JSON (NUL-terminated UTF-8, valid only during the call). */
typedef void (*marmot_update_callback)(const char *update_json, void *context);

/* The JSON contract version this library speaks (1). */
uint32_t marmot_schema_version(void);

/*
 * Creates an app core over data_dir (created if missing; each account gets a subfolder).
 *   relays: ws:// or wss:// URLs separated by commas, spaces or newlines; NULL or "" for none
 *           (chat actions then end in a toast: this library embeds no relay).
 *   installation_secret_hex: the 32-byte installation secret (64 hex digits) that salts the storage
 *           key, kept by the host beside the nsec in its secure storage; NULL makes the library
 *           provision it in <data_dir>/install-secret (0600), as the `marmot` CLI does.
 * On success *out_app is set and MARMOT_OK returned; free it with marmot_app_destroy.
 */
int32_t marmot_app_create(const char *data_dir, const char *relays, const char *installation_secret_hex,
                          marmot_app **out_app);

/* The current AppState as JSON; never NULL for a valid app. Free with marmot_string_free. */
char *marmot_app_state(marmot_app *app);

/* Queues one AppAction given as JSON and returns at once; a refused action returns its code and is
 * not dispatched (results of accepted actions come back as updates, errors as a toast). */
int32_t marmot_app_dispatch(marmot_app *app, const char *action_json);

/* Registers the one listener; MARMOT_ERR_LISTENER_SET on a second call. context is passed back. */
int32_t marmot_app_set_listener(marmot_app *app, marmot_update_callback callback, void *context);

/* A human-readable description of a return code (static, do not free). Never contains secrets. */
const char *marmot_error_message(int32_t code);

/* Frees a string returned by this library (NULL is ignored). */
void marmot_string_free(char *string);

/* Stops the core and frees the app; the listener is not called after this returns. */
void marmot_app_destroy(marmot_app *app);

#ifdef __cplusplus
}
#endif

#endif /* MARMOT_H */
