#!/usr/bin/env bash
# Tests the Kotlin side of the Android app (Apps/Android/marmot) on the JVM, as `make test` does:
# builds libMarmotFFI and `marmot`, starts `marmot relay` (in memory, free port), compiles the Kotlin
# sources and Tests/Android in one kotlinc call into one jar, and runs the JUnit 4 suite
# org.marmot.tests.AndroidSuite against the library through JNA. Needs Debian's kotlin, libjna-java,
# libgoogle-gson-java and junit4 (scripts/setup.sh --interop installs them); without them it skips
# with a message, except under CI=true, where it fails.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"
started=$SECONDS

java_dir=/usr/share/java
jars=("$java_dir/jna.jar" "$java_dir/gson.jar" "$java_dir/junit4.jar" "$java_dir/hamcrest-core.jar")
missing=()
command -v kotlinc >/dev/null 2>&1 || missing+=(kotlinc)
command -v java >/dev/null 2>&1 || missing+=(java)
for jar in "${jars[@]}"; do [ -f "$jar" ] || missing+=("$jar"); done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "${CI:-}" = "true" ]; then
        echo "android-test: missing ${missing[*]} (scripts/setup.sh --interop installs kotlin, libjna-java, libgoogle-gson-java, junit4)" >&2
        exit 1
    fi
    echo "android-test: SKIPPED, missing ${missing[*]}: run scripts/setup.sh --interop (Debian's kotlin, libjna-java, libgoogle-gson-java, junit4)" >&2
    exit 0
fi
# The Kotlin runtime that kotlinc compiled against, next to kotlinc itself.
kotlin_home="$(dirname "$(readlink -f "$(command -v kotlinc)")")/.."
stdlib="$kotlin_home/lib/kotlin-stdlib.jar"
[ -f "$stdlib" ] || stdlib="$java_dir/kotlin-stdlib.jar"

label=android-test
source scripts/lib/ffi-relay.sh

classpath="$(IFS=:; echo "${jars[*]}"):$stdlib"
echo "android-test: kotlinc (Apps/Android/marmot/src/main/kotlin and Tests/Android)"
compile_started=$SECONDS
# kotlinc 1.3 on a newer JDK warns about a JVM option it passes; nothing else is filtered.
if ! kotlinc -nowarn -cp "$classpath" Apps/Android/marmot/src/main/kotlin Tests/Android \
        -d "$scratch/marmot-android.jar" 2>"$scratch/kotlinc.err"; then
    grep -v 'Options -Xverify:none and -noverify were deprecated' "$scratch/kotlinc.err" >&2
    echo "android-test: kotlinc failed" >&2
    exit 1
fi
grep -v 'Options -Xverify:none and -noverify were deprecated' "$scratch/kotlinc.err" >&2 || true
echo "android-test: compiled in $((SECONDS - compile_started))s; JUnit over $lib, relay $relay"
timeout 900 java -Dmarmot.lib="$lib" -Dmarmot.relay="$relay" -Dmarmot.scratch="$scratch/jvm" -Dmarmot.repo="$PWD" \
    -cp "$scratch/marmot-android.jar:$classpath" org.marmot.tests.SuiteMain
echo "android-test: ok in $((SECONDS - started))s"
