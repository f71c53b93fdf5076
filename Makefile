# The front door. `make demo` and `make test` are the two promised commands (README.md); both install
# missing Debian packages first (scripts/ensure-deps.sh) and rebuild only what changed.
BUILD      ?= build
TEST_ENV   ?=
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo

.PHONY: all deps build test demo asan tsan lesson-diffs gradescope mutants clean help

all: build

help:
	@echo "make demo          build, then show stage 1 duplicating a retried transfer"
	@echo "make test          build, then run every test (unit, end-to-end, grader matrix)"
	@echo "make asan | tsan   the tests under AddressSanitizer+UBSan | ThreadSanitizer (build-asan, build-tsan)"
	@echo "make lesson-diffs  regenerate stages/*/lesson.diff"
	@echo "make mutants       build stage 6's mutants and grade each on SEEDS seeds (default 10)"
	@echo "make gradescope    build/gradescope/autograder.zip (edit scripts/gradescope/config.env first)"
	@echo "make clean         remove build folders"

deps:
	@scripts/ensure-deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) $(CMAKE_ARGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS)

test: build
	cd $(BUILD) && $(TEST_ENV) ctest --output-on-failure -j$(JOBS)

demo: build
	@BUILD=$(BUILD) scripts/demo.sh

# The servers that the tests start are sanitized too: halt_on_error makes a server die at its first
# report, so the test driving it fails instead of the report going unread in the server's stderr.
asan:
	$(MAKE) test BUILD=build-asan CMAKE_ARGS="-DCMAKE_BUILD_TYPE=Debug -DLAB_SANITIZE=address" \
	  TEST_ENV="ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1"

tsan:
	$(MAKE) test BUILD=build-tsan CMAKE_ARGS="-DCMAKE_BUILD_TYPE=Debug -DLAB_SANITIZE=thread" \
	  TEST_ENV="TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1"

lesson-diffs:
	scripts/lesson-diffs.sh write

# The grader against realistic mistakes in stage 6 (grader/mutants): every one must be killed and named.
SEEDS ?= 10
mutants: build
	cmake --build $(BUILD) --target mutants -j$(JOBS)
	$(BUILD)/grader/grader mutants --bin-dir $(BUILD)/stages --mutants grader/mutants --seeds $(SEEDS)

gradescope: build
	scripts/gradescope/package.sh $(BUILD)/gradescope/autograder.zip

clean:
	rm -rf build build-asan build-tsan
