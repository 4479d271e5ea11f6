# The two commands of the README: `make run` (the main job) and `make test` (every test).
# Both install what is missing first (scripts/setup.sh), then build once and reuse the build.
SWIFT ?= swift
SWIFT_FLAGS ?=

.PHONY: run test build setup bench relay clean ffi-test web-test

setup:
	@bash scripts/setup.sh

run: setup
	@$(SWIFT) build $(SWIFT_FLAGS) --product marmot -q
	@$(SWIFT) run $(SWIFT_FLAGS) --skip-build marmot demo

test:
	@bash scripts/setup.sh --interop
	@$(SWIFT) build $(SWIFT_FLAGS) --build-tests
	@bash scripts/check-manifests-test.sh
	@bash scripts/check-manifests.sh
	@$(SWIFT) test $(SWIFT_FLAGS) --skip-build
	@TUI_CHAT=1 bash scripts/tui-test.sh
	@bash scripts/ffi-test.sh
	@bash scripts/web-test.sh

# The embedded Nostr relay in the foreground (PORT=7447 by default; PORT=0 picks a free one).
PORT ?= 7447
relay: setup
	@$(SWIFT) build $(SWIFT_FLAGS) --product marmot -q
	@$(SWIFT) run $(SWIFT_FLAGS) --skip-build marmot relay --port $(PORT)

bench: setup
	@$(SWIFT) build $(SWIFT_FLAGS) -c release --product marmot-bench
	@$(SWIFT) run $(SWIFT_FLAGS) -c release --skip-build marmot-bench

clean:
	@rm -rf .build

# The C ABI from C and Python ctypes; `marmot web` in headless Chromium (both also run by `make test`).
ffi-test: setup
	@bash scripts/ffi-test.sh

web-test:
	@bash scripts/setup.sh --interop
	@bash scripts/web-test.sh
