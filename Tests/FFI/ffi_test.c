/*
 * Drives two real Marmot app cores through the C ABI (include/marmot.h), as a JNI or other host
 * would: create accounts, rev continuity over 200 actions, a chat over a relay (invite, accept,
 * messages both ways, delivery marks), refused actions with their codes.
 *
 * Usage: ffi_test <relay ws:// URL> <scratch dir>. Exit 0 on success; one line per failed check.
 * Run by scripts/ffi-test.sh (make test). Never prints the nsec.
 */
#include "marmot.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The host-side mirror of one app: the rev rule of the contract, checked on every update. */
typedef struct {
    const char *name;
    pthread_mutex_t lock;
    uint64_t last_rev;
    int have_snapshot;
    int gaps;
    int stale;
    int applied;
    int accounts_created;
    char npub[128];
    int nsec_seen;
} mirror;

static int failures = 0;

#define CHECK(cond, ...)                                                                                    \
    do {                                                                                                    \
        if (!(cond)) {                                                                                      \
            fprintf(stderr, "ffi_test: FAIL %s:%d: ", __FILE__, __LINE__);                                  \
            fprintf(stderr, __VA_ARGS__);                                                                   \
            fprintf(stderr, "\n");                                                                          \
            failures++;                                                                                     \
        }                                                                                                   \
    } while (0)

/* Copies the string value of the first "key":"…" in json into out; 0 when absent. */
static int string_field(const char *json, const char *key, char *out, size_t size) {
    char pattern[96];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    const char *start = strstr(json, pattern);
    if (!start) return 0;
    start += strlen(pattern);
    const char *end = strchr(start, '"');
    if (!end || (size_t)(end - start) >= size) return 0;
    memcpy(out, start, (size_t)(end - start));
    out[end - start] = 0;
    return 1;
}

/* The unsigned number of the first "key":N in json; -1 when absent. */
static long long number_field(const char *json, const char *key) {
    char pattern[96];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *start = strstr(json, pattern);
    if (!start) return -1;
    return strtoll(start + strlen(pattern), NULL, 10);
}

static void on_update(const char *json, void *context) {
    mirror *m = context;
    pthread_mutex_lock(&m->lock);
    long long rev = number_field(json, "rev");
    /* accountCreated first, whatever its rev: keep the secret (here: only note that it came). */
    if (strstr(json, "\"type\":\"accountCreated\"")) {
        char nsec[128];
        if (string_field(json, "nsec", nsec, sizeof nsec) && strncmp(nsec, "nsec1", 5) == 0) m->nsec_seen = 1;
        string_field(json, "npub", m->npub, sizeof m->npub);
        m->accounts_created++;
    }
    if (!m->have_snapshot) {
        /* cannot happen: the snapshot is read right after registering */
    } else if (rev <= (long long)m->last_rev) {
        m->stale++;
    } else if (rev == (long long)m->last_rev + 1) {
        m->last_rev = (uint64_t)rev;
        m->applied++;
    } else {
        m->gaps++;
        char *state = NULL; /* a real host would resync from marmot_app_state here */
        (void)state;
        m->last_rev = (uint64_t)rev;
    }
    pthread_mutex_unlock(&m->lock);
}

/* A host whose listener calls back into the library: state, dispatch, a second set_listener and,
 * on its third update, destroy (issue 26). Any of these deadlocking would hang the test (alarm). */
typedef struct {
    marmot_app *app;
    int calls;
    int calls_after_destroy;
    int destroyed;
    int second_listener_code;
    int state_ok;
    pthread_mutex_t lock;
} reentrant_host;

static void reentrant_listener(const char *json, void *context) {
    (void)json;
    reentrant_host *host = context;
    pthread_mutex_lock(&host->lock);
    if (host->destroyed) host->calls_after_destroy++;
    host->calls++;
    int call = host->calls, destroyed = host->destroyed;
    pthread_mutex_unlock(&host->lock);
    if (destroyed) return;
    char *state = marmot_app_state(host->app);
    if (state) {
        host->state_ok = strstr(state, "\"rev\"") != NULL;
        marmot_string_free(state);
    }
    marmot_app_dispatch(host->app, "{\"type\":\"pushScreen\",\"screen\":{\"type\":\"newChat\"}}");
    host->second_listener_code = marmot_app_set_listener(host->app, reentrant_listener, host);
    if (call == 3) {
        marmot_app_destroy(host->app);
        pthread_mutex_lock(&host->lock);
        host->destroyed = 1;
        pthread_mutex_unlock(&host->lock);
    }
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Polls the app's state until it contains needle (and, if set, needle2), or timeout. */
static char *wait_state(marmot_app *app, const char *needle, const char *needle2, double timeout) {
    double deadline = now_seconds() + timeout;
    for (;;) {
        char *state = marmot_app_state(app);
        if (state && strstr(state, needle) && (!needle2 || strstr(state, needle2))) return state;
        if (now_seconds() > deadline) {
            fprintf(stderr, "ffi_test: timed out waiting for %s%s%s\n", needle, needle2 ? " and " : "",
                    needle2 ? needle2 : "");
            return state;
        }
        marmot_string_free(state);
        usleep(20000);
    }
}

static marmot_app *open_app(const char *dir, const char *relay, mirror *m, const char *name) {
    marmot_app *app = NULL;
    int32_t rc = marmot_app_create(dir, relay, NULL, &app);
    CHECK(rc == MARMOT_OK && app, "%s: marmot_app_create -> %d (%s)", name, rc, marmot_error_message(rc));
    if (!app) exit(1);
    memset(m, 0, sizeof *m);
    m->name = name;
    pthread_mutex_init(&m->lock, NULL);
    pthread_mutex_lock(&m->lock);
    CHECK(marmot_app_set_listener(app, on_update, m) == MARMOT_OK, "%s: set_listener", name);
    CHECK(marmot_app_set_listener(app, on_update, m) == MARMOT_ERR_LISTENER_SET, "%s: second listener refused", name);
    char *state = marmot_app_state(app);
    m->last_rev = (uint64_t)number_field(state, "rev");
    m->have_snapshot = 1;
    CHECK(strstr(state, "\"schemaVersion\":1") != NULL, "%s: state has schemaVersion 1", name);
    marmot_string_free(state);
    pthread_mutex_unlock(&m->lock);
    return app;
}

static uint64_t last_rev(mirror *m) {
    pthread_mutex_lock(&m->lock);
    uint64_t rev = m->last_rev;
    pthread_mutex_unlock(&m->lock);
    return rev;
}

static void dispatch(marmot_app *app, const char *json) {
    int32_t rc = marmot_app_dispatch(app, json);
    CHECK(rc == MARMOT_OK, "dispatch %.40s -> %d (%s)", json, rc, marmot_error_message(rc));
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: ffi_test <relay url> <scratch dir>\n");
        return 2;
    }
    const char *relay = argv[1];
    char dir_a[1024], dir_b[1024], action[2048];
    snprintf(dir_a, sizeof dir_a, "%s/alice", argv[2]);
    snprintf(dir_b, sizeof dir_b, "%s/bob", argv[2]);
    double started = now_seconds();
    CHECK(marmot_schema_version() == 1, "schema version");

    mirror ma, mb;
    marmot_app *alice = open_app(dir_a, relay, &ma, "alice");
    marmot_app *bob = open_app(dir_b, relay, &mb, "bob");

    /* Refused actions return their code and change nothing. */
    CHECK(marmot_app_dispatch(alice, "not json") == MARMOT_ERR_INVALID_JSON, "invalid JSON code");
    CHECK(marmot_app_dispatch(alice, "{\"type\":\"fly\"}") == MARMOT_ERR_UNKNOWN_ACTION, "unknown type code");
    CHECK(marmot_app_dispatch(alice, "{\"schemaVersion\":99,\"type\":\"logout\"}") == MARMOT_ERR_SCHEMA_VERSION,
          "schema version code");
    CHECK(marmot_app_dispatch(alice, "{\"type\":\"sendMessage\",\"chatId\":\"ab\"}") == MARMOT_ERR_INVALID_FIELD,
          "invalid field code");
    CHECK(marmot_app_dispatch(NULL, "{}") == MARMOT_ERR_NULL_ARGUMENT, "null app code");
    marmot_app *bad = NULL;
    CHECK(marmot_app_create(dir_a, relay, "12", &bad) == MARMOT_ERR_INVALID_SECRET && !bad, "bad secret code");
    CHECK(marmot_app_create(dir_a, "http://x", NULL, &bad) == MARMOT_ERR_INVALID_RELAY && !bad, "bad relay code");

    /* Accounts. */
    dispatch(alice, "{\"schemaVersion\":1,\"type\":\"createAccount\"}");
    dispatch(bob, "{\"schemaVersion\":1,\"type\":\"createAccount\"}");
    marmot_string_free(wait_state(alice, "\"type\":\"loggedIn\"", "\"keyPackagePublished\":true", 30));
    marmot_string_free(wait_state(bob, "\"type\":\"loggedIn\"", "\"keyPackagePublished\":true", 30));
    CHECK(ma.accounts_created == 1 && ma.nsec_seen, "alice: accountCreated with an nsec");
    CHECK(mb.accounts_created == 1 && mb.nsec_seen, "bob: accountCreated with an nsec");
    CHECK(strncmp(mb.npub, "npub1", 5) == 0, "bob's npub");
    printf("ffi_test: two accounts in %.2fs\n", now_seconds() - started);

    /* Rev continuity over 200 actions (each a navigation change: one rev each). */
    uint64_t before = last_rev(&ma);
    double t0 = now_seconds();
    for (int i = 0; i < 100; i++) {
        dispatch(alice, "{\"type\":\"pushScreen\",\"screen\":{\"type\":\"newChat\"}}");
        dispatch(alice, "{\"type\":\"updateScreenStack\",\"screenStack\":[]}");
    }
    double deadline = now_seconds() + 30;
    while (last_rev(&ma) < before + 200 && now_seconds() < deadline) usleep(5000);
    CHECK(last_rev(&ma) >= before + 200, "200 actions: rev %llu -> %llu", (unsigned long long)before,
          (unsigned long long)last_rev(&ma));
    printf("ffi_test: 200 actions, revs %llu..%llu in order in %.3fs\n", (unsigned long long)before + 1,
           (unsigned long long)last_rev(&ma), now_seconds() - t0);

    /* Alice opens a chat with Bob's npub; Bob sees the invitation and accepts it. */
    snprintf(action, sizeof action, "{\"type\":\"createChat\",\"peerNpub\":\"%s\"}", mb.npub);
    dispatch(alice, action);
    char *state = wait_state(alice, "\"currentChat\":{", NULL, 30);
    char chat_a[256] = "";
    const char *current = strstr(state, "\"currentChat\":{");
    CHECK(current && string_field(current, "chatId", chat_a, sizeof chat_a), "alice: chat opened");
    marmot_string_free(state);

    state = wait_state(bob, "\"inviteId\":\"", NULL, 30);
    char invite[256] = "";
    CHECK(string_field(state, "inviteId", invite, sizeof invite), "bob: invitation listed");
    marmot_string_free(state);
    snprintf(action, sizeof action, "{\"type\":\"acceptInvite\",\"inviteId\":\"%s\"}", invite);
    dispatch(bob, action);
    state = wait_state(bob, "\"currentChat\":{", "\"invites\":[]", 30);
    char chat_b[256] = "";
    current = strstr(state, "\"currentChat\":{");
    CHECK(current && string_field(current, "chatId", chat_b, sizeof chat_b), "bob: chat opened after accepting");
    marmot_string_free(state);

    /* Messages both ways; Alice's is marked sent. */
    snprintf(action, sizeof action, "{\"type\":\"sendMessage\",\"chatId\":\"%s\",\"content\":\"hello from C, alice\"}",
             chat_a);
    dispatch(alice, action);
    marmot_string_free(wait_state(bob, "hello from C, alice", NULL, 30));
    marmot_string_free(wait_state(alice, "\"delivery\":{\"type\":\"sent\"}", NULL, 30));
    snprintf(action, sizeof action, "{\"type\":\"sendMessage\",\"chatId\":\"%s\",\"content\":\"hello from C, bob\"}",
             chat_b);
    dispatch(bob, action);
    state = wait_state(alice, "hello from C, bob", NULL, 30);
    CHECK(strstr(state, "hello from C, bob") != NULL, "alice received bob's message");
    marmot_string_free(state);
    printf("ffi_test: chat (invite, accept, two messages) done at %.2fs\n", now_seconds() - started);

    pthread_mutex_lock(&ma.lock);
    CHECK(ma.gaps == 0 && mb.gaps == 0, "no rev gaps (alice %d, bob %d)", ma.gaps, mb.gaps);
    printf("ffi_test: alice applied %d updates (stale %d, gaps %d); bob applied %d (stale %d, gaps %d)\n", ma.applied,
           ma.stale, ma.gaps, mb.applied, mb.stale, mb.gaps);
    pthread_mutex_unlock(&ma.lock);

    marmot_app_destroy(alice);
    marmot_app_destroy(bob);

    /* A listener that calls back into the library, then destroys the app from inside the callback. */
    char dir_r[1024];
    snprintf(dir_r, sizeof dir_r, "%s/reentrant", argv[2]);
    reentrant_host host = {0};
    pthread_mutex_init(&host.lock, NULL);
    alarm(60); /* a deadlock ends the test with SIGALRM instead of hanging CI */
    CHECK(marmot_app_create(dir_r, relay, NULL, &host.app) == MARMOT_OK && host.app, "reentrant: app created");
    CHECK(marmot_app_set_listener(host.app, reentrant_listener, &host) == MARMOT_OK, "reentrant: listener set");
    dispatch(host.app, "{\"schemaVersion\":1,\"type\":\"createAccount\"}");
    deadline = now_seconds() + 20;
    while (now_seconds() < deadline) {
        pthread_mutex_lock(&host.lock);
        int done = host.destroyed;
        pthread_mutex_unlock(&host.lock);
        if (done) break;
        usleep(5000);
    }
    usleep(300000); /* time for a late callback, if the library still made one */
    alarm(0);
    pthread_mutex_lock(&host.lock);
    CHECK(host.destroyed, "reentrant: destroy from the listener returned");
    CHECK(host.calls_after_destroy == 0, "reentrant: %d callback(s) after destroy", host.calls_after_destroy);
    CHECK(host.second_listener_code == MARMOT_ERR_LISTENER_SET, "reentrant: set_listener inside the listener: %d",
          host.second_listener_code);
    CHECK(host.state_ok, "reentrant: state read inside the listener");
    printf("ffi_test: reentrant listener: %d calls, destroy from inside the callback returned\n", host.calls);
    pthread_mutex_unlock(&host.lock);

    if (failures) {
        fprintf(stderr, "ffi_test: %d check(s) failed\n", failures);
        return 1;
    }
    printf("ffi_test: ok in %.2fs\n", now_seconds() - started);
    return 0;
}
