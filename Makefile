# The two commands of the README: `make run` (the main job) and `make test` (every test).
# Both install what is missing first (scripts/setup.sh), then build once and reuse the build.
SWIFT ?= swift
SWIFT_FLAGS ?=
# Seconds of libFuzzer per fuzz target in `make test` (scripts/fuzz.sh; the long run is `scripts/fuzz.sh 600`).
FUZZ_SECONDS ?= 5

.PHONY: run test build setup bench relay fuzz clean ffi-test web-test conformance

setup:
	@bash scripts/setup.sh

run: setup
	@SWIFT=$(SWIFT) SWIFT_FLAGS="$(SWIFT_FLAGS)" bash scripts/run.sh

test:
	@SWIFT=$(SWIFT) SWIFT_FLAGS="$(SWIFT_FLAGS)" FUZZ_SECONDS=$(FUZZ_SECONDS) bash scripts/test.sh

# The embedded Nostr relay in the foreground (PORT=7447 by default; PORT=0 picks a free one).
PORT ?= 7447
relay: setup
	@$(SWIFT) build $(SWIFT_FLAGS) --product marmot -q
	@$(SWIFT) run $(SWIFT_FLAGS) --skip-build marmot relay --port $(PORT)

bench: setup
	@$(SWIFT) build $(SWIFT_FLAGS) -c release --product marmot-bench
	@$(SWIFT) build $(SWIFT_FLAGS) -c release --product marmot
	@$(SWIFT) run $(SWIFT_FLAGS) -c release --skip-build marmot-bench

# MDK's conformance vectors (scenarios and branch-selector cases) against our v2 group engine.
conformance: setup
	@$(SWIFT) build $(SWIFT_FLAGS) --product marmot-conformance -q
	@bash scripts/conformance.sh

# libFuzzer over every decoder of untrusted bytes (Fuzz/), FUZZ_SECONDS per target.
fuzz: setup
	@SWIFT=$(SWIFT) bash scripts/fuzz.sh $(FUZZ_SECONDS)

clean:
	@rm -rf .build .build-fuzz

# The C ABI from C and Python ctypes; `marmot web` in headless Chromium (both also run by `make test`).
ffi-test: setup
	@SWIFT=$(SWIFT) SWIFT_FLAGS="$(SWIFT_FLAGS)" bash scripts/ffi-test.sh

web-test:
	@bash scripts/setup.sh --interop
	@SWIFT=$(SWIFT) SWIFT_FLAGS="$(SWIFT_FLAGS)" bash scripts/web-test.sh
